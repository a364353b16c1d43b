/**
 * The Lua sources of the billing commands (registered with ioredis `defineCommand` in
 * billing-scripts.ts). Each runs atomically in Redis, so every api replica sees one order of
 * admissions. Amounts travel as integer strings; totals change only through HINCRBY (exact int64).
 * Comparisons use Lua doubles: exact below 2^53 µIRT (about 9·10⁹ IRT), beyond that an admission at
 * the exact boundary may be off by a few µIRT, while the ledger in the store stays exact.
 */

const HELPERS = `
-- Lua 5.1 prints numbers with 14 significant digits; scores and expiries go out as integers.
local function int(n)
  return string.format('%d', n)
end

local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end

local function drop_hold(expiries, amounts, id)
  local amount = redis.call('HGET', amounts, 'h:' .. id)
  if amount then
    redis.call('HDEL', amounts, 'h:' .. id)
    redis.call('HINCRBY', amounts, 'total', '-' .. amount)
  end
  redis.call('ZREM', expiries, id)
end

-- Drops holds whose expiry passed (a bounded batch per call) and returns what is still held.
local function live_total(expiries, amounts, now)
  local expired = redis.call('ZRANGEBYSCORE', expiries, '-inf', int(now), 'LIMIT', 0, 1000)
  for _, id in ipairs(expired) do drop_hold(expiries, amounts, id) end
  return tonumber(redis.call('HGET', amounts, 'total') or '0')
end

local function add_hold(expiries, amounts, id, amount, expires_at, ttl)
  drop_hold(expiries, amounts, id)
  redis.call('ZADD', expiries, int(expires_at), id)
  redis.call('HSET', amounts, 'h:' .. id, amount)
  redis.call('HINCRBY', amounts, 'total', amount)
  -- The sets outlive their longest hold, and never get a shorter life than one they hold.
  if redis.call('PTTL', expiries) < ttl then
    redis.call('PEXPIRE', expiries, ttl)
    redis.call('PEXPIRE', amounts, ttl)
  end
end

-- Writes a snapshot unless the one present is as new or newer (versions only grow in the store).
local function put_snapshot(key, field, value, version, ttl)
  local current = redis.call('HGET', key, 'version')
  if current and tonumber(current) >= tonumber(version) then return 0 end
  redis.call('HSET', key, field, value, 'version', version)
  redis.call('PEXPIRE', key, ttl)
  return 1
end
`;

/**
 * Checks 4–7 and the hold. KEYS: rate window, wallet snapshot, spend snapshot, wallet hold
 * expiries, wallet hold amounts, key hold expiries, key hold amounts. ARGV: limit, window ms,
 * request id, estimate, hold ttl ms (a lease, or a fixed life), min required, cap ('' for none),
 * model allowed ('1'/'0'), count the request ('1'; '0' for the hold phase of a request already
 * counted).
 * Returns {outcome, limit, remaining, reset ms}, or {'need_snapshot', which} before any write.
 */
export const ADMIT_LUA = `${HELPERS}
local limit, window, id, estimate = tonumber(ARGV[1]), ARGV[2], ARGV[3], ARGV[4]
local hold_ttl, min_required, cap = tonumber(ARGV[5]), tonumber(ARGV[6]), ARGV[7]
if redis.call('EXISTS', KEYS[2]) == 0 then return {'need_snapshot', 'wallet'} end
if cap ~= '' and redis.call('EXISTS', KEYS[3]) == 0 then return {'need_snapshot', 'spend'} end
local count, reset
if ARGV[9] == '0' then
  -- A second phase of an already counted request (a hold taken once an upload is measured).
  count = tonumber(redis.call('GET', KEYS[1]) or '0')
  reset = redis.call('PTTL', KEYS[1])
  if reset < 0 then reset = tonumber(window) end
else
  count = redis.call('INCR', KEYS[1])
  reset = redis.call('PTTL', KEYS[1])
  if reset < 0 then
    -- The window starts with its first request.
    redis.call('PEXPIRE', KEYS[1], window)
    reset = tonumber(window)
  end
  if count > limit then return {'rate_limited', limit, 0, reset} end
end
local remaining = math.max(limit - count, 0)
local now = now_ms()
local held = live_total(KEYS[4], KEYS[5], now)
local balance = tonumber(redis.call('HGET', KEYS[2], 'balance'))
if balance - held < min_required then return {'insufficient_quota', limit, remaining, reset} end
local key_held = live_total(KEYS[6], KEYS[7], now)
if cap ~= '' then
  local spent = tonumber(redis.call('HGET', KEYS[3], 'spent'))
  if spent + key_held >= tonumber(cap) then return {'spend_limit_reached', limit, remaining, reset} end
end
if ARGV[8] ~= '1' then return {'model_not_allowed', limit, remaining, reset} end
if estimate ~= '0' then
  add_hold(KEYS[4], KEYS[5], id, estimate, now + hold_ttl, hold_ttl)
  add_hold(KEYS[6], KEYS[7], id, estimate, now + hold_ttl, hold_ttl)
end
return {'admitted', limit, remaining, reset}
`;

/**
 * Drops the holds of settled requests and refreshes the snapshots from the store's state after a
 * settlement, in one step so admission never sees a hold gone before its charge. KEYS: pairs of
 * hold expiries and hold amounts (a wallet's or a key's sets), then the snapshots to write. ARGV:
 * snapshot ttl ms, the number of hold pairs, then for each pair the number of its holds followed by
 * their ids, then for each snapshot its field ('balance' or 'spent'), value and version.
 */
export const SETTLE_LUA = `${HELPERS}
local ttl = ARGV[1]
local at = 3
local k = 1
for _ = 1, tonumber(ARGV[2]) do
  local count = tonumber(ARGV[at])
  for i = 1, count do drop_hold(KEYS[k], KEYS[k + 1], ARGV[at + i]) end
  at = at + count + 1
  k = k + 2
end
while k <= #KEYS do
  put_snapshot(KEYS[k], ARGV[at], ARGV[at + 1], ARGV[at + 2], ttl)
  at = at + 3
  k = k + 1
end
return 1
`;

/**
 * Renews the leases of holds a live process owns, many at once (docs/money-core.md, "Holds are
 * leases"). KEYS: pairs of hold expiries and hold amounts (a wallet's or a key's sets). ARGV: lease
 * ms, then for each pair of KEYS the number of its holds followed by their ids. Each hold still
 * there gets expiry now + lease unless it expires later already (a longer hold is never cut short),
 * and each set lives at least one lease more. Returns the ids that are no longer there (settled,
 * released, expired, or Redis lost them): their owner stops renewing them.
 */
export const RENEW_HOLDS_LUA = `${HELPERS}
local lease = tonumber(ARGV[1])
local expiry = now_ms() + lease
local missing = {}
local at = 2
for k = 1, #KEYS, 2 do
  local expiries, amounts = KEYS[k], KEYS[k + 1]
  local count = tonumber(ARGV[at])
  at = at + 1
  local renewed = 0
  for i = 1, count do
    local id = ARGV[at]
    at = at + 1
    local score = redis.call('ZSCORE', expiries, id)
    if score and redis.call('HEXISTS', amounts, 'h:' .. id) == 1 then
      if tonumber(score) < expiry then redis.call('ZADD', expiries, int(expiry), id) end
      renewed = renewed + 1
    else
      missing[#missing + 1] = id
    end
  end
  if renewed > 0 and redis.call('PTTL', expiries) < lease then
    redis.call('PEXPIRE', expiries, lease)
    redis.call('PEXPIRE', amounts, lease)
  end
end
return missing
`;

/**
 * Puts back the hold of a job whose hold Redis lost (its data was flushed or lost), unless the hold
 * is there. KEYS: wallet hold expiries, wallet hold amounts, key hold expiries, key hold amounts.
 * ARGV: hold id, amount, ttl ms. Returns 1 when it added the hold, 0 when it was there.
 */
export const RESTORE_HOLD_LUA = `${HELPERS}
if redis.call('HEXISTS', KEYS[2], 'h:' .. ARGV[1]) == 1 then return 0 end
local ttl = tonumber(ARGV[3])
local now = now_ms()
add_hold(KEYS[1], KEYS[2], ARGV[1], ARGV[2], now + ttl, ttl)
add_hold(KEYS[3], KEYS[4], ARGV[1], ARGV[2], now + ttl, ttl)
return 1
`;

/** Writes one snapshot unless a newer one is present. KEYS: snapshot. ARGV: field, value, version, ttl ms. */
export const PUT_SNAPSHOT_LUA = `${HELPERS}
return put_snapshot(KEYS[1], ARGV[1], ARGV[2], ARGV[3], ARGV[4])
`;

/** Reads a rate window without counting a request. KEYS: rate window. Returns {count, reset ms}. */
export const PEEK_RATE_LUA = `
local count = tonumber(redis.call('GET', KEYS[1]) or '0')
local reset = redis.call('PTTL', KEYS[1])
return {count, reset}
`;
