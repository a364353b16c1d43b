-- wrk script of `npm run bench:soak` (bench/soak.ts, SOAK_LOADGEN=wrk): POSTs a fixed JSON body,
-- rotating the API keys of SOAK_KEYS_FILE (one a line) request by request, as wrk-keys.lua does, and
-- counts the answers per wall-clock second and HTTP status. On exit it writes one JSON object to
-- SOAK_JSON_OUT: {"seconds": {"<unix second>": {"<status>": n}}, "latency_us": {...}, "errors": {...}}.
-- wrk's Lua has no sub-second clock, so per-second latencies are not available in this mode (the
-- latency percentiles are over the whole run); SOAK_LOADGEN=node records them per second.
wrk.method = "POST"
wrk.body = os.getenv("SOAK_BODY")
wrk.headers["Content-Type"] = "application/json"

local function read_keys(path)
  local keys = {}
  local f = path and io.open(path, "r")
  if not f then return keys end
  for line in f:lines() do
    if line ~= "" then keys[#keys + 1] = line end
  end
  f:close()
  return keys
end

local threads = {}
function setup(thread)
  threads[#threads + 1] = thread
end

local keys = read_keys(os.getenv("SOAK_KEYS_FILE"))
local prepared, n, i = {}, 0, 0
-- Per thread (a global, so done() can fetch it with thread:get): counts["<second>:<status>"].
counts = {}

function init(args)
  for t, k in ipairs(keys) do
    wrk.headers["Authorization"] = "Bearer " .. k
    prepared[t] = wrk.format()
  end
  n = #prepared
  i = math.random(math.max(n, 1)) - 1
end

function request()
  if n == 0 then return wrk.format() end
  i = i % n + 1
  return prepared[i]
end

function response(status, headers, body)
  local key = os.time() .. ":" .. status
  counts[key] = (counts[key] or 0) + 1
end

done = function(summary, latency, requests)
  local merged = {}
  for _, thread in ipairs(threads) do
    local c = thread:get("counts") or {}
    for k, v in pairs(c) do merged[k] = (merged[k] or 0) + v end
  end
  local bySecond = {}
  for k, v in pairs(merged) do
    local second, status = k:match("^(%d+):(%d+)$")
    bySecond[second] = bySecond[second] or {}
    bySecond[second][status] = v
  end
  local parts = {}
  for second, statuses in pairs(bySecond) do
    local inner = {}
    for status, v in pairs(statuses) do inner[#inner + 1] = string.format('"%s":%d', status, v) end
    parts[#parts + 1] = string.format('"%s":{%s}', second, table.concat(inner, ","))
  end
  local e = summary.errors
  local function p(q) return latency:percentile(q) end
  local f = io.open(os.getenv("SOAK_JSON_OUT"), "w")
  f:write(string.format(
    '{"seconds":{%s},"requests":%d,"duration_us":%d,' ..
    '"errors":{"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d},' ..
    '"latency_us":{"min":%d,"mean":%.2f,"max":%d,"p50":%d,"p90":%d,"p99":%d,"p999":%d}}\n',
    table.concat(parts, ","), summary.requests, summary.duration,
    e.connect, e.read, e.write, e.status, e.timeout,
    latency.min, latency.mean, latency.max, p(50), p(90), p(99), p(99.9)))
  f:close()
end
