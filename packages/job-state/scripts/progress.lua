--[[
  Reports progress; also renews the caller's lease like a heartbeat. Fenced (prelude.lua).
  KEYS[1]  job key            KEYS[2] live-lease index      KEYS[3] event stream
  KEYS[4]  (optional) batch key    KEYS[5] (with KEYS[4]) batch event stream
  ARGV[1]  series   ARGV[2] holder   ARGV[3] epoch   ARGV[4] token
  ARGV[5]  actor              ARGV[6] done   ARGV[7] total
  ARGV[8]  phase ('' keeps)   ARGV[9] phase rank
  ARGV[10] lease ms           ARGV[11] ttl seconds for the processing state
  Counters only rise: done = max(stored, new), total = max(stored, new, done).
  Returns  {1, 'processing'} | {0, 'missing'} | {0, <terminal status>} ignored | {0, 'stale' | 'fenced'} refused
]]
local status = redis.call('HGET', KEYS[1], 'status')
if not status then return {0, 'missing'} end
if isTerminal(status) then return {0, status} end
local refused = refusal(KEYS[1], ARGV[1], ARGV[2], ARGV[3], ARGV[4])
if refused then return {0, refused} end
local done = math.max(tonumber(redis.call('HGET', KEYS[1], 'done') or '0'), tonumber(ARGV[6]))
local total = math.max(tonumber(redis.call('HGET', KEYS[1], 'total') or '0'), tonumber(ARGV[7]), done)
local now = nowMs()
redis.call('HSET', KEYS[1], 'status', 'processing', 'done', done, 'total', total, 'updatedAt', now, 'updatedBy', ARGV[5])
renewLease(KEYS[1], KEYS[2], ARGV[2], now, tonumber(ARGV[10]))
advancePhase(KEYS[1], ARGV[8], tonumber(ARGV[9]))
publishView(KEYS[1], KEYS[3], KEYS[5])
local ttl = tonumber(ARGV[11])
redis.call('EXPIRE', KEYS[1], ttl)
extendBatch(KEYS[4], ttl)
followExpiry(KEYS[1], KEYS[3], KEYS[4], KEYS[5])
return {1, 'processing'}
