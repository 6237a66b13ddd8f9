--[[
  Terminal failure with a stable code and a human message. Progress and phase stay where the job
  got to, so a client can tell how far it went.
  KEYS[1]  job key     KEYS[2] (optional) batch key
  ARGV[1]  actor       ARGV[2] error code   ARGV[3] error message
  ARGV[4]  ttl seconds for the terminal state
  Returns  {1, 'failed'} | {0, 'missing'} | {0, <terminal status>} ignored
]]
local status = redis.call('HGET', KEYS[1], 'status')
if not status then return {0, 'missing'} end
if isTerminal(status) then return {0, status} end
local now = nowMs()
redis.call('HSET', KEYS[1], 'status', 'failed', 'errorCode', ARGV[2], 'errorMessage', ARGV[3],
  'updatedAt', now, 'updatedBy', ARGV[1])
dropWorkingFields(KEYS[1])
publishView(KEYS[1])
local ttl = tonumber(ARGV[4])
redis.call('EXPIRE', KEYS[1], ttl)
extendBatch(ttl)
return {1, 'failed'}
