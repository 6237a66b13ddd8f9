--[[
  A consumer begins (or resumes, after a retry or a takeover) work on a job, and takes the lease
  of its holder (see prelude.lua, Leases): a start with a higher epoch than the stored one takes
  the lease over; one with a lower epoch (a zombie of an earlier start) is refused.
  KEYS[1]  job key            KEYS[2] live-lease index      KEYS[3] event stream
  KEYS[4]  (optional) batch key    KEYS[5] (with KEYS[4]) batch event stream
  ARGV[1]  attempt series of the queue job (see replay.lua)
  ARGV[2]  holder             ARGV[3] epoch                 ARGV[4] token
  ARGV[5]  actor (host:pid)   ARGV[6] phase   ARGV[7] phase rank
  ARGV[8]  lease ms           ARGV[9] ttl seconds for the processing state
  Returns  {1, 'processing'} | {0, 'missing'} record gone | {0, <terminal status>} ignored
           | {0, 'stale'} the queue job belongs to an older series than the record (replayed since)
           | {0, 'fenced'} a later start of the same holder holds the lease
]]
local status = redis.call('HGET', KEYS[1], 'status')
if not status then return {0, 'missing'} end
if tonumber(ARGV[1]) < tonumber(redis.call('HGET', KEYS[1], 'series') or '1') then return {0, 'stale'} end
if isTerminal(status) then return {0, status} end
local epoch = tonumber(ARGV[3])
local storedEpoch, storedToken = storedLease(KEYS[1], ARGV[2])
if storedEpoch ~= nil and (epoch < storedEpoch or (epoch == storedEpoch and storedToken ~= ARGV[4])) then return {0, 'fenced'} end
local now = nowMs()
redis.call('HSET', KEYS[1], 'status', 'processing', 'updatedAt', now, 'updatedBy', ARGV[5],
  'lease.' .. ARGV[2], epoch .. ':' .. ARGV[4])
redis.call('ZREM', KEYS[2], leaseMember(KEYS[1], 'queue'))
renewLease(KEYS[1], KEYS[2], ARGV[2], now, tonumber(ARGV[8]))
advancePhase(KEYS[1], ARGV[6], tonumber(ARGV[7]))
publishView(KEYS[1], KEYS[3], KEYS[5])
local ttl = tonumber(ARGV[9])
redis.call('EXPIRE', KEYS[1], ttl)
extendBatch(KEYS[4], ttl)
followExpiry(KEYS[1], KEYS[3], KEYS[4], KEYS[5])
return {1, 'processing'}
