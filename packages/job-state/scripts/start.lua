--[[
  A consumer begins (or resumes, after a retry or a takeover) work on a job.
  KEYS[1]  job key            KEYS[2] (optional) batch key
  ARGV[1]  actor (host:pid)   ARGV[2] phase   ARGV[3] phase rank
  ARGV[4]  lease ms           ARGV[5] ttl seconds for the processing state
  ARGV[6]  attempt series of the queue job (see replay.lua)
  Returns  {1, 'processing'} | {0, 'missing'} record gone | {0, <terminal status>} ignored
           | {0, 'stale'} the queue job belongs to an older series than the record (replayed since)
]]
local status = redis.call('HGET', KEYS[1], 'status')
if not status then return {0, 'missing'} end
if tonumber(ARGV[6]) < tonumber(redis.call('HGET', KEYS[1], 'series') or '1') then return {0, 'stale'} end
if isTerminal(status) then return {0, status} end
local now = nowMs()
redis.call('HSET', KEYS[1], 'status', 'processing', 'updatedAt', now, 'updatedBy', ARGV[1],
  'leaseUntil', now + tonumber(ARGV[4]))
advancePhase(KEYS[1], ARGV[2], tonumber(ARGV[3]))
publishView(KEYS[1])
local ttl = tonumber(ARGV[5])
redis.call('EXPIRE', KEYS[1], ttl)
extendBatch(ttl)
return {1, 'processing'}
