--[[
  Operator replay of a failed job (from its dead-letter entry): the record goes back to `queued`
  with a new attempt series. The failure it replaces is appended to `history` (newest last, at
  most 20 entries), so the record still tells what happened. Only `failed` can be replayed: `done`
  stays final, and a job still running needs no replay.
  The record re-enters the live-lease index as holder `queue` (see newRecord in prelude.lua).
  KEYS[1]  job key      KEYS[2] live-lease index      KEYS[3] event stream
  KEYS[4]  (optional) batch key    KEYS[5] (with KEYS[4]) batch event stream
  ARGV[1]  actor        ARGV[2] ttl seconds for the queued state
  ARGV[3]  grace ms before the sweeper may ask whether a queue holds the job
  Returns  {1, 'queued', series} | {0, <status>, series} ignored | {0, 'missing', 0}
]]
local status = redis.call('HGET', KEYS[1], 'status')
if not status then return {0, 'missing', 0} end
local series = tonumber(redis.call('HGET', KEYS[1], 'series') or '1')
if status ~= 'failed' then return {0, status, series} end
local history = cjson.decode(redis.call('HGET', KEYS[1], 'history') or '[]')
table.insert(history, {
  series = series,
  code = redis.call('HGET', KEYS[1], 'errorCode'),
  message = redis.call('HGET', KEYS[1], 'errorMessage'),
  phase = redis.call('HGET', KEYS[1], 'phase'),
  -- A failed record is never updated after it failed: its updatedAt is when.
  failedAt = tonumber(redis.call('HGET', KEYS[1], 'updatedAt') or '0'),
})
while #history > 20 do table.remove(history, 1) end
local now = nowMs()
series = series + 1
redis.call('HSET', KEYS[1], 'status', 'queued', 'phase', 'queued', 'phaseRank', 0, 'done', 0, 'total', 0,
  'series', series, 'history', cjson.encode(history), 'updatedAt', now, 'updatedBy', ARGV[1])
redis.call('HDEL', KEYS[1], 'errorCode', 'errorMessage', 'leaseUntil', 'result')
redis.call('ZADD', KEYS[2], now + tonumber(ARGV[3]), leaseMember(KEYS[1], 'queue'))
publishView(KEYS[1], KEYS[3], KEYS[5])
local ttl = tonumber(ARGV[2])
redis.call('EXPIRE', KEYS[1], ttl)
extendBatch(KEYS[4], ttl)
followExpiry(KEYS[1], KEYS[3], KEYS[4], KEYS[5])
return {1, 'queued', series}
