--[[
  Renews the lease of a processing record and pushes its expiry forward.
  Does not touch updatedAt: a heartbeat is not news for a polling client.
  KEYS[1]  job key   KEYS[2] (optional) batch key
  ARGV[1]  lease ms  ARGV[2] ttl seconds for the processing state
  Returns  {1, 'processing'} | {0, 'missing'} | {0, <other status>} ignored
]]
local status = redis.call('HGET', KEYS[1], 'status')
if not status then return {0, 'missing'} end
if status ~= 'processing' then return {0, status} end
redis.call('HSET', KEYS[1], 'leaseUntil', nowMs() + tonumber(ARGV[1]))
local ttl = tonumber(ARGV[2])
redis.call('EXPIRE', KEYS[1], ttl)
extendBatch(ttl)
return {1, 'processing'}
