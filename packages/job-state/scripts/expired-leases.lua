--[[
  The sweeper's read: live-lease index entries whose expiry has passed, by Redis time (hosts'
  clocks may disagree), oldest first. Reads the index only: its cost depends on the number of
  expired leases, never on how many records exist.
  KEYS[1]  live-lease index
  ARGV[1]  most entries to return
  Returns  {now ms, member, expiry ms, member, expiry ms, …}
]]
local now = nowMs()
local reply = {now}
local due = redis.call('ZRANGE', KEYS[1], '-inf', now, 'BYSCORE', 'LIMIT', 0, tonumber(ARGV[1]), 'WITHSCORES')
for i = 1, #due do reply[#reply + 1] = due[i] end
return reply
