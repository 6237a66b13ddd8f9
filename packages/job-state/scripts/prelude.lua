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
  - fenced: a consumer's write counts only while it holds its lease (see `fence` below); a write
    from an older attempt series ({0, 'stale'}) or from a consumer whose lease was taken over
    ({0, 'fenced'}) changes nothing.

  Key layout of the transition scripts: KEYS[1] the job record, KEYS[2] the live-lease index,
  KEYS[3] the record's event stream, KEYS[4] (optional) the batch key and KEYS[5] (with it) the
  batch's event stream. Every key a script touches is passed in KEYS, never built from another
  key inside the script, so the scripts stay valid on a Redis Cluster.

  Event streams. Every change of the public status document is also appended to the record's
  stream (`<prefix>:job-events:<id>`) and, for a batch member, to the batch's
  (`<prefix>:batch-events:<id>`; not under `:job:`, whose pattern must match records only). The
  stream ids are the Server-Sent Events ids of GET /api/files/job/:id/events: any API process
  reads any change from Redis (no process has to have seen it), and a client that reconnects
  with Last-Event-ID resumes with XRANGE after that id. A stream lives as long as its record.

  Leases. Several consumers work on one record at once (a document's OCR pages), so a record holds
  one lease per *holder*: the stage job working on it (`<stage>:<BullMQ job id>`, e.g.
  `ocr:J-ocr-p3`). The field `lease.<holder>` is `<epoch>:<token>`: the epoch is the BullMQ job's
  start count (attemptsStarted, which every retry and every takeover raises) and the token is the
  BullMQ lock token of that start. A start with a higher epoch takes the lease over; every other
  write must present exactly the stored epoch and token. A holder that finished keeps
  `<epoch>:` (released, no token) so that a zombie of an earlier epoch stays refused after the
  lease is gone. The expiry of each live lease is its score in the live-lease index (a sorted set,
  members `<jobId>|<holder>`), which the sweeper reads instead of scanning records; a queued
  record is in the index too, as holder `queue`, due when it has waited for its grace period.
  Terminal records leave the index.
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
local function extendBatch(batchKey, ttl)
  if batchKey == nil then return end
  local current = redis.call('TTL', batchKey)
  if current >= 0 and current < ttl then
    redis.call('EXPIRE', batchKey, ttl)
  end
end

-- The event streams expire with the record (and the batch's with the batch key): called after
-- every EXPIRE of a record, so a stream never outlives, nor dies before, what it describes.
local function followExpiry(key, events, batchKey, batchEvents)
  local ttl = redis.call('PTTL', key)
  if ttl > 0 then redis.call('PEXPIRE', events, ttl) end
  if batchKey ~= nil and batchEvents ~= nil then
    local batchTtl = redis.call('PTTL', batchKey)
    if batchTtl > 0 then redis.call('PEXPIRE', batchEvents, batchTtl) end
  end
end

local function jobIdOf(key)
  return string.match(key, '([^:]+)$')
end

local function leaseMember(key, holder)
  return jobIdOf(key) .. '|' .. holder
end

-- Per-page bookkeeping (`page.<n>` fields, see page-done.lua), stage annotations (`ext.*`), the
-- leases and the phase rank are working state: a terminal record keeps only its outcome, and
-- leaves the live-lease index. (Its `updatedAt` is when it ended: nothing changes a terminal record.)
local function dropWorkingFields(key, index)
  redis.call('HDEL', key, 'leaseUntil', 'phaseRank')
  redis.call('ZREM', index, leaseMember(key, 'queue'))
  for _, field in ipairs(redis.call('HKEYS', key)) do
    local head = string.sub(field, 1, 5)
    if head == 'page.' or string.sub(field, 1, 4) == 'ext.' then
      redis.call('HDEL', key, field)
    elseif head == 'lease' and string.sub(field, 1, 6) == 'lease.' then
      redis.call('ZREM', index, leaseMember(key, string.sub(field, 7)))
      redis.call('HDEL', key, field)
    end
  end
end

-- The stored lease of a holder: epoch (number) and token ('' once released), or nil.
local function storedLease(key, holder)
  local stored = redis.call('HGET', key, 'lease.' .. holder)
  if not stored then return nil, nil end
  local epoch, token = string.match(stored, '^(%d+):(.*)$')
  return tonumber(epoch), token
end

--[[
  The fence of every write a consumer makes. `fence` is the four ARGV a fenced script starts
  with: series, holder, epoch, token. Returns nil when the caller may write, else the reason it
  may not: 'stale' (an older attempt series than the record's: an operator replayed the job) or
  'fenced' (the holder's lease is another start's, or was released).
]]
local function refusal(key, series, holder, epoch, token)
  if tonumber(series) < tonumber(redis.call('HGET', key, 'series') or '1') then return 'stale' end
  local storedEpoch, storedToken = storedLease(key, holder)
  if storedEpoch == nil or storedEpoch ~= tonumber(epoch) or storedToken == '' or storedToken ~= token then return 'fenced' end
  return nil
end

-- Pushes a holder's lease expiry forward (index score) and the record's `leaseUntil` with it.
local function renewLease(key, index, holder, now, leaseMs)
  local untilMs = now + leaseMs
  redis.call('ZADD', index, untilMs, leaseMember(key, holder))
  redis.call('HSET', key, 'leaseUntil', untilMs)
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
  The same document is appended to the record's event stream and, when the record is a batch
  member, to the batch's (see Event streams above). MAXLEN ~ keeps a stream bounded: a job makes
  a few dozen changes, and a client that fell further behind than the bound still ends with the
  newest document, which is all a status needs. A batch stream holds every member's changes.
]]
local function publishView(key, events, batchEvents)
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
  redis.call('XADD', events, 'MAXLEN', '~', 200, '*', 'view', view.raw)
  if batchEvents ~= nil then redis.call('XADD', batchEvents, 'MAXLEN', '~', 5000, '*', 'view', view.raw) end
end

-- Writes a new record in `queued`, series 1, with the caller's field/value pairs from ARGV[first]
-- on (create.lua and create-deduped.lua), and puts it in the live-lease index as holder `queue`,
-- due after `graceMs`: a record still queued then may never have been enqueued (the sweeper checks).
local function newRecord(key, index, graceMs, actor, first, events, batchEvents)
  local now = nowMs()
  redis.call('ZADD', index, now + graceMs, leaseMember(key, 'queue'))
  redis.call('HSET', key, 'status', 'queued', 'phase', 'queued', 'phaseRank', 0, 'done', 0, 'total', 0,
    'series', 1, 'createdAt', now, 'updatedAt', now, 'createdBy', actor, 'updatedBy', actor)
  for i = first, #ARGV, 2 do
    redis.call('HSET', key, ARGV[i], ARGV[i + 1])
  end
  publishView(key, events, batchEvents)
end

-- Raises the phase only if the new one ranks at least as high as the stored one.
local function advancePhase(key, phase, rank)
  if phase == '' then return end
  local stored = tonumber(redis.call('HGET', key, 'phaseRank') or '0')
  if rank >= stored then
    redis.call('HSET', key, 'phase', phase, 'phaseRank', rank)
  end
end
