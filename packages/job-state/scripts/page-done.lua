--[[
  Pages of a fanned-out document finished (an OCR page read or failed for good, or the pages of a
  PDF slice): `done` rises by one per page, once per page however often the job is delivered
  (at-least-once), and never past `total`.
  Renews the caller's lease like a heartbeat. Fenced (prelude.lua).
  KEYS[1]  job key        KEYS[2] live-lease index      KEYS[3] event stream
  KEYS[4]  (optional) batch key    KEYS[5] (with KEYS[4]) batch event stream
  ARGV[1]  series   ARGV[2] holder   ARGV[3] epoch   ARGV[4] token
  ARGV[5]  actor          ARGV[6] page index     ARGV[7] lease ms
  ARGV[8]  ttl seconds for the processing state
  ARGV[9]  (optional) page count: pages ARGV[6] .. ARGV[6] + ARGV[9] - 1 are counted (default 1)
  Returns  {1, 'processing'} some page counted | {0, 'processing'} already counted | {0, 'missing'}
           | {0, <terminal status>} | {0, 'stale' | 'fenced'} refused
]]
local status = redis.call('HGET', KEYS[1], 'status')
if not status then return {0, 'missing'} end
if isTerminal(status) then return {0, status} end
local refused = refusal(KEYS[1], ARGV[1], ARGV[2], ARGV[3], ARGV[4])
if refused then return {0, refused} end
local first = tonumber(ARGV[6])
local counted = 0
for page = first, first + tonumber(ARGV[9] or '1') - 1 do
  counted = counted + redis.call('HSETNX', KEYS[1], 'page.' .. page, 1)
end
if counted == 0 then return {0, status} end
local total = tonumber(redis.call('HGET', KEYS[1], 'total') or '0')
local done = tonumber(redis.call('HGET', KEYS[1], 'done') or '0') + counted
if total > 0 and done > total then done = total end
local now = nowMs()
redis.call('HSET', KEYS[1], 'status', 'processing', 'done', done, 'updatedAt', now, 'updatedBy', ARGV[5])
renewLease(KEYS[1], KEYS[2], ARGV[2], now, tonumber(ARGV[7]))
publishView(KEYS[1], KEYS[3], KEYS[5])
local ttl = tonumber(ARGV[8])
redis.call('EXPIRE', KEYS[1], ttl)
extendBatch(KEYS[4], ttl)
followExpiry(KEYS[1], KEYS[3], KEYS[4], KEYS[5])
return {1, 'processing'}
