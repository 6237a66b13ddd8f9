--[[
  Reports progress; also renews the lease like a heartbeat.
  KEYS[1]  job key            KEYS[2] (optional) batch key
  ARGV[1]  actor              ARGV[2] done   ARGV[3] total
  ARGV[4]  phase ('' keeps)   ARGV[5] phase rank
  ARGV[6]  lease ms           ARGV[7] ttl seconds for the processing state
  Counters only rise: done = max(stored, new), total = max(stored, new, done).
  Returns  {1, 'processing'} | {0, 'missing'} | {0, <terminal status>} ignored
]]
local status = redis.call('HGET', KEYS[1], 'status')
if not status then return {0, 'missing'} end
if isTerminal(status) then return {0, status} end
local done = math.max(tonumber(redis.call('HGET', KEYS[1], 'done') or '0'), tonumber(ARGV[2]))
local total = math.max(tonumber(redis.call('HGET', KEYS[1], 'total') or '0'), tonumber(ARGV[3]), done)
local now = nowMs()
redis.call('HSET', KEYS[1], 'status', 'processing', 'done', done, 'total', total, 'updatedAt', now,
  'updatedBy', ARGV[1], 'leaseUntil', now + tonumber(ARGV[6]))
advancePhase(KEYS[1], ARGV[4], tonumber(ARGV[5]))
publishView(KEYS[1])
local ttl = tonumber(ARGV[7])
redis.call('EXPIRE', KEYS[1], ttl)
extendBatch(ttl)
return {1, 'processing'}
