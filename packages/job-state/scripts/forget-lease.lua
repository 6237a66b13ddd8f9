--[[
  The sweeper found an expired lease whose stage job no queue holds any more (its consumer died
  after BullMQ let go of the job): the entry leaves the index, and a consumer lease is kept as
  released, and the record waits as holder `queue` (due after the grace, like release.lua). Only
  while the entry is still expired: a start or renewal in between wins.
  KEYS[1]  job key   KEYS[2] live-lease index
  ARGV[1]  holder (`<stage>:<BullMQ job id>`)   ARGV[2] grace ms
  Returns  {1, 'forgotten'} | {0, 'live'} renewed since | {0, 'absent'}
]]
local member = leaseMember(KEYS[1], ARGV[1])
local expiry = redis.call('ZSCORE', KEYS[2], member)
if not expiry then return {0, 'absent'} end
local now = nowMs()
if tonumber(expiry) > now then return {0, 'live'} end
redis.call('ZREM', KEYS[2], member)
if redis.call('EXISTS', KEYS[1]) == 1 then redis.call('ZADD', KEYS[2], 'NX', now + tonumber(ARGV[2]), leaseMember(KEYS[1], 'queue')) end
local epoch = storedLease(KEYS[1], ARGV[1])
if epoch ~= nil then redis.call('HSET', KEYS[1], 'lease.' .. ARGV[1], epoch .. ':') end
return {1, 'forgotten'}
