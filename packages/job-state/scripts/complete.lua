--[[
  Terminal success: the reading package exists and is recorded by pointer (never its content).
  Fenced (prelude.lua): only the holder of a live lease ends the job.
  KEYS[1]  job key     KEYS[2] live-lease index     KEYS[3] event stream
  KEYS[4]  (optional) batch key    KEYS[5] (with KEYS[4]) batch event stream
  ARGV[1]  series   ARGV[2] holder   ARGV[3] epoch   ARGV[4] token
  ARGV[5]  actor       ARGV[6] result pointer (JSON: packageId, size, sha256)
  ARGV[7]  final phase ARGV[8] its rank      ARGV[9] ttl seconds for the terminal state
  Progress is completed (done = total). The polling window starts now; the record leaves the
  live-lease index.
  Returns  {1, 'done', tenant, series, callbackUrl or '', view} | {0, 'missing'}
           | {0, <terminal status>} ignored | {0, 'stale' | 'fenced'} refused
  The applied reply carries what the terminal notice needs (a webhook), read here rather than in
  one more round trip after the end.
]]
local status = redis.call('HGET', KEYS[1], 'status')
if not status then return {0, 'missing'} end
if isTerminal(status) then return {0, status} end
local refused = refusal(KEYS[1], ARGV[1], ARGV[2], ARGV[3], ARGV[4])
if refused then return {0, refused} end
local total = math.max(tonumber(redis.call('HGET', KEYS[1], 'total') or '0'), 1)
local now = nowMs()
redis.call('HSET', KEYS[1], 'status', 'done', 'result', ARGV[6], 'done', total, 'total', total,
  'updatedAt', now, 'updatedBy', ARGV[5])
advancePhase(KEYS[1], ARGV[7], tonumber(ARGV[8]))
dropWorkingFields(KEYS[1], KEYS[2])
publishView(KEYS[1], KEYS[3], KEYS[5])
local ttl = tonumber(ARGV[9])
redis.call('EXPIRE', KEYS[1], ttl)
extendBatch(KEYS[4], ttl)
followExpiry(KEYS[1], KEYS[3], KEYS[4], KEYS[5])
local notice = redis.call('HMGET', KEYS[1], 'tenant', 'series', 'callbackUrl', 'view')
return {1, 'done', notice[1] or '', notice[2] or '1', notice[3] or '', notice[4] or ''}
