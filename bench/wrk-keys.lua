-- The harness's wrk-post.lua (POST a fixed JSON body, JSON summary on exit) plus per-request API
-- key rotation (run-bench.ts installs it as wrk-post.lua in the harness's copy): a gateway key
-- allows 3000 requests a minute, one 0 ms round sends tens of thousands. When WRK_KEYS_FILE names
-- a file of keys (one a line) and the target's Authorization header carries one of them, each
-- request takes the next key, round robin, from requests formatted once at start; any other target
-- keeps its fixed header. The file may hold the keys of several gateways, in groups separated by a
-- blank line: a target rotates over the group of the key it was given. Env: WRK_BODY, WRK_JSON_OUT
-- (output path), WRK_KEYS_FILE (optional).
wrk.method = "POST"
wrk.body = os.getenv("WRK_BODY") or '{"model":"mock","messages":[{"role":"user","content":"hi"}]}'
wrk.headers["Content-Type"] = "application/json"

local function read_groups(path)
  local groups, group = {}, {}
  local f = path and io.open(path, "r")
  if not f then return groups end
  for line in f:lines() do
    if line ~= "" then
      group[#group + 1] = line
    elseif #group > 0 then
      groups[#groups + 1] = group
      group = {}
    end
  end
  if #group > 0 then groups[#groups + 1] = group end
  f:close()
  return groups
end

-- The key goes in the header -H gave, under the very name it gave (wrk keeps its case): setting
-- another spelling would send two Authorization headers, and Node keeps the first.
local auth_name = "Authorization"
for name in pairs(wrk.headers) do
  if name:lower() == "authorization" then auth_name = name end
end
local given = wrk.headers[auth_name] or ""
local keys = {}
local rotate = false
for _, group in ipairs(read_groups(os.getenv("WRK_KEYS_FILE"))) do
  for _, k in ipairs(group) do
    if given == "Bearer " .. k then rotate = true; keys = group end
  end
end

if rotate then
  local prepared, n, i = {}, 0, 0
  function init(args)
    for t, k in ipairs(keys) do
      wrk.headers[auth_name] = "Bearer " .. k
      prepared[t] = wrk.format()
    end
    n = #prepared
    -- Threads start at different keys so they do not march in step.
    i = math.random(n) - 1
  end
  function request()
    i = i % n + 1
    return prepared[i]
  end
end

done = function(summary, latency, requests)
  local path = os.getenv("WRK_JSON_OUT")
  local f = path and io.open(path, "w") or io.stdout
  local e = summary.errors
  local function p(q) return latency:percentile(q) end
  f:write(string.format(
    '{"requests":%d,"duration_us":%d,"bytes":%d,' ..
    '"errors":{"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d},' ..
    '"latency_us":{"min":%d,"mean":%.2f,"stdev":%.2f,"max":%d,"p50":%d,"p90":%d,"p99":%d,"p999":%d}}\n',
    summary.requests, summary.duration, summary.bytes,
    e.connect, e.read, e.write, e.status, e.timeout,
    latency.min, latency.mean, latency.stdev, latency.max, p(50), p(90), p(99), p(99.9)))
  if f ~= io.stdout then f:close() end
end
