--[[
  Renews the caller's lease on a processing record and pushes the record's expiry forward.
  Does not touch updatedAt: a heartbeat is not news for a polling client. Fenced (prelude.lua).
  KEYS[1]  job key   KEYS[2] live-lease index   KEYS[3] event stream
  KEYS[4]  (optional) batch key    KEYS[5] (with KEYS[4]) batch event stream
  ARGV[1]  series   ARGV[2] holder   ARGV[3] epoch   ARGV[4] token
  ARGV[5]  lease ms  ARGV[6] ttl seconds for the processing state
  Returns  {1, 'processing'} | {0, 'missing'} | {0, <other status>} ignored | {0, 'stale' | 'fenced'} refused
]]
local status = redis.call('HGET', KEYS[1], 'status')
if not status then return {0, 'missing'} end
if status ~= 'processing' then return {0, status} end
local refused = refusal(KEYS[1], ARGV[1], ARGV[2], ARGV[3], ARGV[4])
if refused then return {0, refused} end
renewLease(KEYS[1], KEYS[2], ARGV[2], nowMs(), tonumber(ARGV[5]))
local ttl = tonumber(ARGV[6])
redis.call('EXPIRE', KEYS[1], ttl)
extendBatch(KEYS[4], ttl)
followExpiry(KEYS[1], KEYS[3], KEYS[4], KEYS[5])
return {1, 'processing'}
