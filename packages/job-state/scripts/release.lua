--[[
  The holder's stage job is over (it returned, or failed and goes back to BullMQ): its lease
  leaves the live-lease index and is kept as released (`<epoch>:`), so a zombie of this or an
  earlier start stays refused. The record re-enters the index as holder `queue`, due after the
  grace: until its next stage job starts, it waits in a queue, and a record nothing holds any
  more must still reach the sweeper. Fenced (prelude.lua).
  KEYS[1]  job key   KEYS[2] live-lease index
  ARGV[1]  series   ARGV[2] holder   ARGV[3] epoch   ARGV[4] token
  ARGV[5]  grace ms
  Returns  {1, <status>} | {0, 'missing'} | {0, <terminal status>} | {0, 'stale' | 'fenced'}
]]
local status = redis.call('HGET', KEYS[1], 'status')
if not status then return {0, 'missing'} end
if isTerminal(status) then return {0, status} end
local refused = refusal(KEYS[1], ARGV[1], ARGV[2], ARGV[3], ARGV[4])
if refused then return {0, refused} end
redis.call('HSET', KEYS[1], 'lease.' .. ARGV[2], ARGV[3] .. ':')
redis.call('ZREM', KEYS[2], leaseMember(KEYS[1], ARGV[2]))
redis.call('ZADD', KEYS[2], 'NX', nowMs() + tonumber(ARGV[5]), leaseMember(KEYS[1], 'queue'))
return {1, status}
