--[[
  Shared helpers, prepended to every job-state script (see src/scripts.ts).

  Why Lua and not WATCH/MULTI: a script runs atomically on the server in one round trip, needs no
  dedicated connection (WATCH is per connection, and ioredis multiplexes one connection between
  concurrent requests, so two WATCHes on it would interfere), and never needs a retry loop under
  contention. The record is a hash at KEYS[1]; time comes from the Redis server (TIME), so
  consumers on hosts with skewed clocks still agree on leases and timestamps.

  Invariants every script keeps:
  - `done` and `failed` are terminal: no script changes a terminal record except to ignore it.
  - progress counters (`done`, `total`) and the phase rank only ever go up.
  - a late or duplicate update is not an error: it returns {0, <current status>}.
]]

local function nowMs()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end

local function isTerminal(status)
  return status == 'done' or status == 'failed'
end

-- A batch key lives at least as long as its longest-lived member: members report here whenever
-- they move their own expiry.
local function extendBatch(ttl)
  local batchKey = KEYS[2]
  if batchKey == nil then return end
  local current = redis.call('TTL', batchKey)
  if current >= 0 and current < ttl then
    redis.call('EXPIRE', batchKey, ttl)
  end
end

-- Per-page bookkeeping (`page.<n>` fields, see page-done.lua), stage annotations (`ext.*`), the
-- lease and the phase rank are working state: a terminal record keeps only its outcome. (Its
-- `updatedAt` is when it ended: nothing changes a terminal record.)
local function dropWorkingFields(key)
  redis.call('HDEL', key, 'leaseUntil', 'phaseRank')
  for _, field in ipairs(redis.call('HKEYS', key)) do
    local head = string.sub(field, 1, 5)
    if head == 'page.' or string.sub(field, 1, 4) == 'ext.' then redis.call('HDEL', key, field) end
  end
end

-- Unix milliseconds → ISO 8601 UTC with milliseconds, exactly as JavaScript's Date#toISOString
-- (days → civil date by Howard Hinnant's algorithm; Lua in Redis has no date library).
local function isoTime(ms)
  ms = tonumber(ms) or 0
  local secs = math.floor(ms / 1000)
  local days = math.floor(secs / 86400)
  local rem = secs - days * 86400
  local z = days + 719468
  local era = math.floor(z / 146097)
  local doe = z - era * 146097
  local yoe = math.floor((doe - math.floor(doe / 1460) + math.floor(doe / 36524) - math.floor(doe / 146096)) / 365)
  local doy = doe - (365 * yoe + math.floor(yoe / 4) - math.floor(yoe / 100))
  local mp = math.floor((5 * doy + 2) / 153)
  local month = mp < 10 and mp + 3 or mp - 9
  local year = yoe + era * 400 + (month <= 2 and 1 or 0)
  return string.format('%04d-%02d-%02dT%02d:%02d:%02d.%03dZ', year, month, doy - math.floor((153 * mp + 2) / 5) + 1,
    math.floor(rem / 3600), math.floor(rem % 3600 / 60), rem % 60, ms - secs * 1000)
end

-- One JSON value. cjson escapes every '/' as '\/' (valid, but noisy in media types); an escaped
-- slash is the only place '\/' can occur in its output (a literal backslash is '\\'), so undoing
-- it is exact.
local function jsonValue(value)
  if type(value) == 'table' then return value.raw end
  return (string.gsub(cjson.encode(value), '\\/', '/'))
end

-- A JSON object with its members in the given order (cjson's own order is the hash order).
-- Members whose value is nil are left out; a table value is {raw = <JSON text>}.
local function jsonObject(members)
  local parts = {}
  for _, member in ipairs(members) do
    if member[2] ~= nil then parts[#parts + 1] = jsonValue(member[1]) .. ':' .. jsonValue(member[2]) end
  end
  return { raw = '{' .. table.concat(parts, ',') .. '}' }
end

--[[
  The public status document (the body of GET /api/files/job/:id), kept in the record's `view`
  field and rewritten by every script that changes what it shows. Clients poll far more often
  than jobs change, so the JSON is built once per change here rather than once per poll: a poll
  is one HMGET and a copy of the string. This is the only place the document is built; its
  shape is `JobView` in src/types.ts. Lease renewals (heartbeat) and annotations change
  nothing in it and leave it alone.
]]
local function publishView(key)
  local flat = redis.call('HGETALL', key)
  local f = {}
  for i = 1, #flat, 2 do f[flat[i]] = flat[i + 1] end
  local failure, result, batch, history
  if f.errorCode and f.errorCode ~= '' then
    failure = jsonObject({ { 'code', f.errorCode }, { 'message', f.errorMessage or '' } })
  end
  if f.result then
    local pointer = cjson.decode(f.result)
    result = jsonObject({ { 'packageId', pointer.packageId }, { 'size', pointer.size }, { 'sha256', pointer.sha256 } })
  end
  if f.batchId and f.batchId ~= '' then
    batch = jsonObject({ { 'batchId', f.batchId }, { 'index', tonumber(f.batchIndex or '0') } })
  end
  if f.history then
    local entries = {}
    for _, h in ipairs(cjson.decode(f.history)) do
      entries[#entries + 1] = jsonObject({ { 'series', h.series }, { 'code', h.code or '' }, { 'message', h.message or '' },
        { 'phase', h.phase or '' }, { 'failedAt', isoTime(h.failedAt) } }).raw
    end
    if #entries > 0 then history = { raw = '[' .. table.concat(entries, ',') .. ']' } end
  end
  local view = jsonObject({
    { 'jobId', string.match(key, '([^:]+)$') },
    { 'status', f.status },
    { 'phase', f.phase or 'queued' },
    { 'progress', jsonObject({ { 'done', tonumber(f.done or '0') }, { 'total', tonumber(f.total or '0') } }) },
    { 'error', failure },
    { 'result', result },
    { 'source', jsonObject({ { 'filename', f.filename or '' }, { 'mediaType', f.mediaType or '' }, { 'size', tonumber(f.size or '0') },
      { 'originalFilename', f.originalFilename } }) },
    { 'batch', batch },
    { 'series', tonumber(f.series or '1') },
    { 'history', history },
    { 'createdAt', isoTime(f.createdAt) },
    { 'updatedAt', isoTime(f.updatedAt) },
  })
  redis.call('HSET', key, 'view', view.raw)
end

-- Writes a new record in `queued`, series 1, with the caller's field/value pairs from ARGV[first]
-- on (create.lua and create-deduped.lua).
local function newRecord(key, actor, first)
  local now = nowMs()
  redis.call('HSET', key, 'status', 'queued', 'phase', 'queued', 'phaseRank', 0, 'done', 0, 'total', 0,
    'series', 1, 'createdAt', now, 'updatedAt', now, 'createdBy', actor, 'updatedBy', actor)
  for i = first, #ARGV, 2 do
    redis.call('HSET', key, ARGV[i], ARGV[i + 1])
  end
  publishView(key)
end

-- Raises the phase only if the new one ranks at least as high as the stored one.
local function advancePhase(key, phase, rank)
  if phase == '' then return end
  local stored = tonumber(redis.call('HGET', key, 'phaseRank') or '0')
  if rank >= stored then
    redis.call('HSET', key, 'phase', phase, 'phaseRank', rank)
  end
end
