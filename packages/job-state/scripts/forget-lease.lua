--[[
  The sweeper found an expired lease whose stage job no queue holds any more (its consumer died
  after BullMQ let go of the job): the entry leaves the index, and a consumer lease is kept as
  released. Only while the entry is still expired: a start or renewal in between wins.
  KEYS[1]  job key   KEYS[2] live-lease index
  ARGV[1]  holder (`queue` or `<stage>:<BullMQ job id>`)
  Returns  {1, 'forgotten'} | {0, 'live'} renewed since | {0, 'absent'}
]]
local member = leaseMember(KEYS[1], ARGV[1])
local expiry = redis.call('ZSCORE', KEYS[2], member)
if not expiry then return {0, 'absent'} end
if tonumber(expiry) > nowMs() then return {0, 'live'} end
redis.call('ZREM', KEYS[2], member)
local epoch = storedLease(KEYS[1], ARGV[1])
if epoch ~= nil then redis.call('HSET', KEYS[1], 'lease.' .. ARGV[1], epoch .. ':') end
return {1, 'forgotten'}
