--[[
  Terminal failure with a stable code and a human message. Progress and phase stay where the job
  got to, so a client can tell how far it went. The record leaves the live-lease index, and the
  failure is counted by code (a hash, for operators: failures that are not dead-lettered, such as a
  user's corrupt document, show there).
  Two kinds of caller:
  - a consumer (holder ~= ''): fenced like every consumer write (prelude.lua);
  - an authority with no lease (holder = ''): the API when the enqueue after an upload failed, the
    sweeper for an orphan. It may end the job only while no consumer holds a live lease (one
    whose expiry, its score in the index, is still ahead), so a consumer that started in the
    meantime wins; and only in the series it looked at.
  KEYS[1]  job key     KEYS[2] live-lease index     KEYS[3] failure counts by code
  KEYS[4]  event stream   KEYS[5] (optional) batch key   KEYS[6] (with KEYS[5]) batch event stream
  ARGV[1]  series   ARGV[2] holder ('' for an authority)   ARGV[3] epoch   ARGV[4] token
  ARGV[5]  actor       ARGV[6] error code   ARGV[7] error message
  ARGV[8]  ttl seconds for the terminal state
  Returns  {1, 'failed'} | {0, 'missing'} | {0, <terminal status>} ignored
           | {0, 'stale' | 'fenced'} refused | {0, 'leased'} an authority found a live lease
]]
local status = redis.call('HGET', KEYS[1], 'status')
if not status then return {0, 'missing'} end
if isTerminal(status) then return {0, status} end
local now = nowMs()
if ARGV[2] ~= '' then
  local refused = refusal(KEYS[1], ARGV[1], ARGV[2], ARGV[3], ARGV[4])
  if refused then return {0, refused} end
else
  if tonumber(ARGV[1]) ~= tonumber(redis.call('HGET', KEYS[1], 'series') or '1') then return {0, 'stale'} end
  for _, field in ipairs(redis.call('HKEYS', KEYS[1])) do
    if string.sub(field, 1, 6) == 'lease.' then
      local expiry = redis.call('ZSCORE', KEYS[2], leaseMember(KEYS[1], string.sub(field, 7)))
      if expiry and tonumber(expiry) > now then return {0, 'leased'} end
    end
  end
end
redis.call('HSET', KEYS[1], 'status', 'failed', 'errorCode', ARGV[6], 'errorMessage', ARGV[7],
  'updatedAt', now, 'updatedBy', ARGV[5])
dropWorkingFields(KEYS[1], KEYS[2])
publishView(KEYS[1], KEYS[4], KEYS[6])
redis.call('HINCRBY', KEYS[3], ARGV[6], 1)
local ttl = tonumber(ARGV[8])
redis.call('EXPIRE', KEYS[1], ttl)
extendBatch(KEYS[5], ttl)
followExpiry(KEYS[1], KEYS[4], KEYS[5], KEYS[6])
return {1, 'failed'}
