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

-- A running sum of hold amounts (each at most 2^48 µIRT) stays exact as a Lua double below 2^52;
-- a larger one leaves the total in parts.
local EXACT_SUM = 4503599627370496

-- Drops the holds \`ids\` (a list) from one hold set, in four commands whatever their number: the
-- amounts of those still there leave the total, then their fields and expiries go.
local function drop_holds(expiries, amounts, ids)
  if #ids == 0 then return end
  local fields = {}
  for i = 1, #ids do fields[i] = 'h:' .. ids[i] end
  local held = redis.call('HMGET', amounts, unpack(fields))
  local sum, present = 0, false
  for i = 1, #fields do
    if held[i] then
      present = true
      local amount = tonumber(held[i])
      if sum + amount >= EXACT_SUM then
        redis.call('HINCRBY', amounts, 'total', int(-sum))
        sum = 0
      end
      sum = sum + amount
    end
  end
  if present then
    redis.call('HDEL', amounts, unpack(fields))
    if sum ~= 0 then redis.call('HINCRBY', amounts, 'total', int(-sum)) end
  end
  redis.call('ZREM', expiries, unpack(ids))
end

-- Drops holds whose expiry passed (a bounded batch per call) and returns what is still held.
local function live_total(expiries, amounts, now)
  drop_holds(expiries, amounts, redis.call('ZRANGEBYSCORE', expiries, '-inf', int(now), 'LIMIT', 0, 1000))
  return tonumber(redis.call('HGET', amounts, 'total') or '0')
end

-- Holds \`amount\` for \`id\` until \`expires_at\`; a request admitted again (its hold phase, once an
-- upload is measured) has its hold replaced. Returns the set's new total, and how long the set is
-- now known to live (ms). \`life\`: how long it was known to live before (0: unknown).
local function add_hold(expiries, amounts, id, amount, expires_at, ttl, life)
  local field = 'h:' .. id
  local total, fresh
  if redis.call('HSETNX', amounts, field, amount) == 1 then
    total = redis.call('HINCRBY', amounts, 'total', amount)
    -- Nothing else held (amounts are positive): Redis removed the expiries with their last hold.
    fresh = total == tonumber(amount)
  else
    local before = tonumber(redis.call('HGET', amounts, field))
    total = redis.call('HINCRBY', amounts, 'total', int(tonumber(amount) - before))
    redis.call('HSET', amounts, field, amount)
  end
  redis.call('ZADD', expiries, int(expires_at), id)
  if life >= ttl then return total, life end
  -- The sets outlive their longest hold; extended to twice the hold's life, so that a busy set is
  -- extended about once a hold life rather than at every hold.
  if not fresh then
    local left = redis.call('PTTL', expiries)
    if left >= ttl then return total, left end
  end
  redis.call('PEXPIRE', expiries, int(ttl * 2))
  redis.call('PEXPIRE', amounts, int(ttl * 2))
  return total, ttl * 2
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

/** The keys and arguments of one admission in `ADMIT_LUA`'s lists. */
export const ADMIT_KEYS_PER_CALL = 7;
export const ADMIT_ARGS_PER_CALL = 10;

/**
 * Checks 4–7 and the hold, for one or more requests in one call (a batch: each request in turn,
 * as if each had its own call). Per request, KEYS: rate window, wallet snapshot, spend snapshot,
 * wallet hold expiries, wallet hold amounts, key hold expiries, key hold amounts; ARGV: limit,
 * window ms, request id, estimate, hold ttl ms (a lease, or a fixed life), min required, cap (''
 * for none), model allowed ('1'/'0'), count the request ('1'; '0' for the hold phase of a request
 * already counted), bounded ('1': the estimate is the request's own bound, admitted only when the
 * wallet above its floor and the cap can pay all of it; '0': an estimate, admitted while the wallet
 * is above its floor and the key under its cap); the requests' keys and arguments follow one
 * another in that order.
 * Returns one reply per request: {outcome, limit, remaining, reset ms}, {'need_snapshot', which}
 * before any write of that request, or {'error', message} when its checks failed in Redis (the
 * other requests of the batch are answered all the same).
 */
export const ADMIT_LUA = `${HELPERS}
-- The hold sets this call has read or written: their live total and how long they are known to
-- live. The admissions of one call happen at one instant (one \`TIME\`), so a set swept once needs
-- no second sweep, and its total is what the last hold added left it at. A request that fails in
-- Redis leaves it true: a set's entry changes only with the HINCRBY reply of a hold just added, and
-- what follows that HINCRBY in add_hold cannot fail on keys the call has already read.
local sets = {}

local function held_in(expiries, amounts, now)
  local seen = sets[expiries]
  if seen then return seen.total end
  local total = live_total(expiries, amounts, now)
  sets[expiries] = { total = total, life = 0 }
  return total
end

local function hold_in(expiries, amounts, id, amount, expires_at, ttl)
  local seen = sets[expiries]
  seen.total, seen.life = add_hold(expiries, amounts, id, amount, expires_at, ttl, seen.life)
end

local function admit(k, a, now)
  local limit, window, id, estimate = tonumber(ARGV[a + 1]), ARGV[a + 2], ARGV[a + 3], ARGV[a + 4]
  local hold_ttl, min_required, cap = tonumber(ARGV[a + 5]), tonumber(ARGV[a + 6]), ARGV[a + 7]
  local rate, wallet_snapshot, spend_snapshot = KEYS[k + 1], KEYS[k + 2], KEYS[k + 3]
  local balance = redis.call('HGET', wallet_snapshot, 'balance')
  if not balance then return {'need_snapshot', 'wallet'} end
  local spent
  if cap ~= '' then
    spent = redis.call('HGET', spend_snapshot, 'spent')
    if not spent then return {'need_snapshot', 'spend'} end
  end
  local count, reset
  if ARGV[a + 9] == '0' then
    -- A second phase of an already counted request (a hold taken once an upload is measured).
    count = tonumber(redis.call('GET', rate) or '0')
    reset = redis.call('PTTL', rate)
    if reset < 0 then reset = tonumber(window) end
  else
    count = redis.call('INCR', rate)
    reset = count > 1 and redis.call('PTTL', rate) or -1
    if reset < 0 then
      -- The window starts with its first request.
      redis.call('PEXPIRE', rate, window)
      reset = tonumber(window)
    end
    if count > limit then return {'rate_limited', limit, 0, reset} end
  end
  local remaining = math.max(limit - count, 0)
  local held = held_in(KEYS[k + 4], KEYS[k + 5], now)
  if tonumber(balance) - held < min_required then return {'insufficient_quota', limit, remaining, reset} end
  local key_held = held_in(KEYS[k + 6], KEYS[k + 7], now)
  if cap ~= '' then
    if tonumber(spent) + key_held >= tonumber(cap) then return {'spend_limit_reached', limit, remaining, reset} end
  end
  if ARGV[a + 8] ~= '1' then return {'model_not_allowed', limit, remaining, reset} end
  if ARGV[a + 10] == '1' then
    -- A bounded request must fit whole, after checks 5 to 7: the wallet above its floor and the cap
    -- pay all of its bound beside what is held already.
    local own = tonumber(estimate)
    if tonumber(balance) - held - own < min_required then return {'insufficient_quota', limit, remaining, reset} end
    if cap ~= '' and tonumber(spent) + key_held + own > tonumber(cap) then
      return {'spend_limit_reached', limit, remaining, reset}
    end
  end
  if estimate ~= '0' then
    hold_in(KEYS[k + 4], KEYS[k + 5], id, estimate, now + hold_ttl, hold_ttl)
    hold_in(KEYS[k + 6], KEYS[k + 7], id, estimate, now + hold_ttl, hold_ttl)
  end
  return {'admitted', limit, remaining, reset}
end

local now = now_ms()
local replies = {}
for i = 1, #KEYS / ${ADMIT_KEYS_PER_CALL} do
  local ok, reply = pcall(admit, (i - 1) * ${ADMIT_KEYS_PER_CALL}, (i - 1) * ${ADMIT_ARGS_PER_CALL}, now)
  if ok then
    replies[i] = reply
  else
    replies[i] = {'error', type(reply) == 'table' and (reply.err or 'error') or tostring(reply)}
  end
end
return replies
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
  local ids = {}
  for i = 1, count do ids[i] = ARGV[at + i] end
  drop_holds(KEYS[k], KEYS[k + 1], ids)
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
  local ids, fields = {}, {}
  for i = 1, count do
    ids[i] = ARGV[at + i]
    fields[i] = 'h:' .. ids[i]
  end
  at = at + count + 1
  if count > 0 then
    -- Each set's holds in three commands however many they are (the caller sends at most a few
    -- hundred ids per call): their expiries, their amounts, and the new expiries of those renewed.
    local scores = redis.call('ZMSCORE', expiries, unpack(ids))
    local held = redis.call('HMGET', amounts, unpack(fields))
    local later = {}
    local renewed = 0
    for i = 1, count do
      if scores[i] and held[i] then
        renewed = renewed + 1
        if tonumber(scores[i]) < expiry then
          later[#later + 1] = int(expiry)
          later[#later + 1] = ids[i]
        end
      else
        missing[#missing + 1] = ids[i]
      end
    end
    if #later > 0 then redis.call('ZADD', expiries, unpack(later)) end
    if renewed > 0 and redis.call('PTTL', expiries) < lease then
      redis.call('PEXPIRE', expiries, lease)
      redis.call('PEXPIRE', amounts, lease)
    end
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
add_hold(KEYS[1], KEYS[2], ARGV[1], ARGV[2], now + ttl, ttl, 0)
add_hold(KEYS[3], KEYS[4], ARGV[1], ARGV[2], now + ttl, ttl, 0)
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
