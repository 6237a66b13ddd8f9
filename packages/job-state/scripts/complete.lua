--[[
  Terminal success: the reading package exists and is recorded by pointer (never its content).
  KEYS[1]  job key     KEYS[2] (optional) batch key
  ARGV[1]  actor       ARGV[2] result pointer (JSON: packageId, size, sha256)
  ARGV[3]  final phase ARGV[4] its rank      ARGV[5] ttl seconds for the terminal state
  Progress is completed (done = total). The polling window starts now.
  Returns  {1, 'done'} | {0, 'missing'} | {0, <terminal status>} ignored
]]
local status = redis.call('HGET', KEYS[1], 'status')
if not status then return {0, 'missing'} end
if isTerminal(status) then return {0, status} end
local total = math.max(tonumber(redis.call('HGET', KEYS[1], 'total') or '0'), 1)
local now = nowMs()
redis.call('HSET', KEYS[1], 'status', 'done', 'result', ARGV[2], 'done', total, 'total', total,
  'updatedAt', now, 'updatedBy', ARGV[1])
advancePhase(KEYS[1], ARGV[3], tonumber(ARGV[4]))
dropWorkingFields(KEYS[1])
publishView(KEYS[1])
local ttl = tonumber(ARGV[5])
redis.call('EXPIRE', KEYS[1], ttl)
extendBatch(ttl)
return {1, 'done'}
