import type { Redis } from 'ioredis';

/**
 * The breaker's Redis truth, shared by every replica. All of it lives under one hash tag
 * (`{channels}`), so each script touches keys of one slot on a Redis Cluster; breaker traffic is
 * failures and recoveries only, never a successful request's path.
 *
 * - `failures` (hash): scope → `count:windowEndsMs`, the consecutive failures of a healthy scope;
 * - `open` (hash): scope → `untilMs:cooldownMs:reason`, the scopes cooling down (and half-open once
 *   `untilMs` has passed, until their probe ends);
 * - `probe:<scope>` (string): the one probe in flight across replicas (`SET NX` once the stored
 *   cooldown has passed, expires with the cooldown so a probe that never reports frees the next one);
 * - `env-disabled` (hash): environment channel id → reason, for environment channels the provider
 *   refused (API channels keep theirs in the store).
 * Every change is published on `events` as `open|untilMs|cooldownMs|reason|scope` or `close|scope`
 * (the scope last: a per-model scope is `channel|model`; a reason never holds `|`).
 */
export interface BreakerKeys {
  readonly failures: string;
  readonly open: string;
  readonly envDisabled: string;
  readonly events: string;
  probe(scope: string): string;
}

export function breakerKeys(prefix: string): BreakerKeys {
  const base = `${prefix}:{channels}`;
  return {
    failures: `${base}:failures`,
    open: `${base}:open`,
    envDisabled: `${base}:env-disabled`,
    events: `${base}:events`,
    probe: (scope) => `${base}:probe:${scope}`,
  };
}

/**
 * KEYS: failures, open. ARGV: scope, nowMs, threshold, windowMs, cooldownMs, reason.
 * Counts one failure of a healthy scope; at the threshold (within the window) opens it for
 * `cooldownMs` and publishes. Returns the cooldown opened, or 0.
 */
const FAILURE_LUA = `
if redis.call('HEXISTS', KEYS[2], ARGV[1]) == 1 then return 0 end
local now = tonumber(ARGV[2])
local count = 0
local ends = now + tonumber(ARGV[4])
local entry = redis.call('HGET', KEYS[1], ARGV[1])
if entry then
  local c, e = string.match(entry, '^(%d+):(%d+)$')
  if c and tonumber(e) >= now then count = tonumber(c); ends = tonumber(e) end
end
count = count + 1
if count < tonumber(ARGV[3]) then
  redis.call('HSET', KEYS[1], ARGV[1], count .. ':' .. ends)
  return 0
end
redis.call('HDEL', KEYS[1], ARGV[1])
local cooldown = tonumber(ARGV[5])
local untilMs = now + cooldown
redis.call('HSET', KEYS[2], ARGV[1], untilMs .. ':' .. cooldown .. ':' .. ARGV[6])
redis.call('PUBLISH', KEYS[3], 'open|' .. untilMs .. '|' .. cooldown .. '|' .. ARGV[6] .. '|' .. ARGV[1])
return cooldown
`;

/**
 * KEYS: open, probe. ARGV: scope, nowMs, ttlMs.
 * Takes the one probe of a scope whose cooldown has passed (`SET NX PX`); refuses while the stored
 * cooldown still runs, so a request that still sees the scope half-open (the event of a failed
 * probe not yet received, here or on another replica) cannot take a second probe. A scope not open
 * any more (closed meanwhile) gives the token: a stray probe there is harmless. Returns 1 or 0.
 */
const TAKE_PROBE_LUA = `
local entry = redis.call('HGET', KEYS[1], ARGV[1])
if entry then
  local untilMs = tonumber(string.match(entry, '^(%d+):'))
  if untilMs and untilMs > tonumber(ARGV[2]) then return 0 end
end
if redis.call('SET', KEYS[2], '1', 'PX', ARGV[3], 'NX') then return 1 end
return 0
`;

/**
 * KEYS: failures, open, events, probe. ARGV: scope.
 * A success: the scope's failures are forgotten; an open (half-open) scope closes and publishes.
 */
const SUCCESS_LUA = `
redis.call('HDEL', KEYS[1], ARGV[1])
if redis.call('HDEL', KEYS[2], ARGV[1]) == 1 then
  redis.call('DEL', KEYS[4])
  redis.call('PUBLISH', KEYS[3], 'close|' .. ARGV[1])
  return 1
end
return 0
`;

/**
 * KEYS: open, events, probe. ARGV: scope, nowMs, maxCooldownMs, reason.
 * The probe failed: the cooldown doubles (bounded) from now, the probe token is freed.
 */
const PROBE_FAILED_LUA = `
local entry = redis.call('HGET', KEYS[1], ARGV[1])
local cooldown = 0
if entry then cooldown = tonumber(string.match(entry, '^%d+:(%d+):')) or 0 end
cooldown = math.min(math.max(cooldown * 2, 1000), tonumber(ARGV[3]))
local untilMs = tonumber(ARGV[2]) + cooldown
redis.call('HSET', KEYS[1], ARGV[1], untilMs .. ':' .. cooldown .. ':' .. ARGV[4])
redis.call('DEL', KEYS[3])
redis.call('PUBLISH', KEYS[2], 'open|' .. untilMs .. '|' .. cooldown .. '|' .. ARGV[4] .. '|' .. ARGV[1])
return cooldown
`;

/**
 * KEYS: failures, open, events. ARGV: channel id.
 * Forgets everything of a channel (its own scope and its per-model scopes): an edit, a passing test.
 */
const RESET_LUA = `
local n = 0
for _, key in ipairs({KEYS[1], KEYS[2]}) do
  for _, scope in ipairs(redis.call('HKEYS', key)) do
    if scope == ARGV[1] or string.sub(scope, 1, string.len(ARGV[1]) + 1) == ARGV[1] .. '|' then
      redis.call('HDEL', key, scope)
      if key == KEYS[2] then
        redis.call('DEL', KEYS[4] .. scope)
        redis.call('PUBLISH', KEYS[3], 'close|' .. scope)
      end
      n = n + 1
    end
  end
end
return n
`;

export interface BreakerRedis extends Redis {
  channelTakeProbe(open: string, probe: string, scope: string, nowMs: number, ttlMs: number): Promise<number>;
  channelFailure(
    failures: string,
    open: string,
    events: string,
    scope: string,
    nowMs: number,
    threshold: number,
    windowMs: number,
    cooldownMs: number,
    reason: string,
  ): Promise<number>;
  channelSuccess(
    failures: string,
    open: string,
    events: string,
    probe: string,
    scope: string,
  ): Promise<number>;
  channelProbeFailed(
    open: string,
    events: string,
    probe: string,
    scope: string,
    nowMs: number,
    maxCooldownMs: number,
    reason: string,
  ): Promise<number>;
  channelReset(
    failures: string,
    open: string,
    events: string,
    probePrefix: string,
    channelId: string,
  ): Promise<number>;
}

/** The breaker's scripts on a connection (defined once per connection; ioredis caches them by SHA). */
export function withBreakerScripts(redis: Redis): BreakerRedis {
  const r = redis as BreakerRedis;
  if (typeof r.channelFailure !== 'function') {
    redis.defineCommand('channelFailure', { numberOfKeys: 3, lua: FAILURE_LUA });
    redis.defineCommand('channelSuccess', { numberOfKeys: 4, lua: SUCCESS_LUA });
    redis.defineCommand('channelProbeFailed', { numberOfKeys: 3, lua: PROBE_FAILED_LUA });
    redis.defineCommand('channelReset', { numberOfKeys: 4, lua: RESET_LUA });
    redis.defineCommand('channelTakeProbe', { numberOfKeys: 2, lua: TAKE_PROBE_LUA });
  }
  return r;
}
