-- wrk script for every HTTP load of the suite; BENCH_MODE picks it:
--   health          GET /health (the framework ceiling: no database)
--   products        GET /productsStatus for a random user (the app's secret key + user-id header: a public key
--                   answers only for the user of its signed uid cookie, which a load generator cannot make)
--   user            GET /v1/users/{id} for a random user (secret key)
--   notifications   POST each signed notification of BENCH_BODIES once (each thread its share), then stop
-- BENCH_APPS: a file of "app_id public_key secret_key prefix" lines; BENCH_USERS: users per app.
-- done() prints one line "WRK_JSON {...}" that the runner parses.
local mode = os.getenv("BENCH_MODE") or "health"
local threads = {}
local apps, bodies, sent, failures, stopped = {}, {}, 0, 0, false
local users = tonumber(os.getenv("BENCH_USERS") or "1")

function setup(thread)
  thread:set("index", #threads)
  table.insert(threads, thread)
end

local function lines(path)
  local result = {}
  for line in io.lines(path) do table.insert(result, line) end
  return result
end

function init(args)
  math.randomseed(os.time() + index * 7919)
  if mode == "products" or mode == "user" then
    for _, line in ipairs(lines(os.getenv("BENCH_APPS"))) do
      local id, public, secret, prefix = line:match("(%S+) (%S+) (%S+) (%S+)")
      table.insert(apps, { id = id, public = public, secret = secret, prefix = prefix })
    end
  elseif mode == "notifications" then
    local count = tonumber(os.getenv("BENCH_THREADS") or "1")
    local n = 0
    for line in io.lines(os.getenv("BENCH_BODIES")) do
      if n % count == index then table.insert(bodies, line) end
      n = n + 1
    end
  end
end

function request()
  if mode == "health" then
    return wrk.format("GET", "/health")
  end
  if mode == "notifications" then
    sent = sent + 1
    local body = bodies[math.min(sent, #bodies)]
    return wrk.format("POST", os.getenv("BENCH_PATH"), { ["Content-Type"] = "application/json" }, body)
  end
  local app = apps[math.random(#apps)]
  local user = "user-" .. app.prefix .. math.random(users)
  if mode == "products" then
    return wrk.format("GET", "/productsStatus", { ["APIKey"] = app.secret, ["user-id"] = user })
  end
  return wrk.format("GET", "/v1/users/" .. user, { ["Authorization"] = "Bearer " .. app.secret })
end

local answered = 0
function response(status, headers, body)
  answered = answered + 1
  if status ~= 200 then failures = failures + 1 end
  if mode == "notifications" and answered >= #bodies and not stopped then
    stopped = true
    wrk.thread:set("failures", failures)
    wrk.thread:stop()
  end
  if mode ~= "notifications" then wrk.thread:set("failures", failures) end
end

function done(summary, latency, requests)
  local failed = 0
  for _, thread in ipairs(threads) do failed = failed + (thread:get("failures") or 0) end
  io.write(string.format('WRK_JSON {"requests":%d,"duration_us":%d,"failures":%d,"socket_errors":%d,"p50_us":%d,"p99_us":%d,"max_us":%d}\n',
    summary.requests, summary.duration, failed,
    summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout,
    latency:percentile(50), latency:percentile(99), latency.max))
end
