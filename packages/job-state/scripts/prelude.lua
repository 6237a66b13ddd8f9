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

-- Per-page bookkeeping (`page.<n>` fields, see page-done.lua) and stage annotations (`ext.*`)
-- are working state: a terminal record keeps only its outcome.
local function dropWorkingFields(key)
  for _, field in ipairs(redis.call('HKEYS', key)) do
    local head = string.sub(field, 1, 5)
    if head == 'page.' or string.sub(field, 1, 4) == 'ext.' then redis.call('HDEL', key, field) end
  end
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
end

-- Raises the phase only if the new one ranks at least as high as the stored one.
local function advancePhase(key, phase, rank)
  if phase == '' then return end
  local stored = tonumber(redis.call('HGET', key, 'phaseRank') or '0')
  if rank >= stored then
    redis.call('HSET', key, 'phase', phase, 'phaseRank', rank)
  end
end
