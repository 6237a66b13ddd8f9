--[[
  The sweeper found an expired entry whose job a queue still holds (waiting for a consumer, or
  about to be taken over): it is due again after `delay`, so a long backlog is not re-read on
  every sweep. Only an entry that is still expired moves (a start or renewal in between wins).
  KEYS[1]  live-lease index
  ARGV[1]  member   ARGV[2] delay ms
  Returns  {1, 'rearmed'} | {0, 'live'} | {0, 'absent'}
]]
local expiry = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not expiry then return {0, 'absent'} end
local now = nowMs()
if tonumber(expiry) > now then return {0, 'live'} end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[1])
return {1, 'rearmed'}
