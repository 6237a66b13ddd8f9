--[[
  Active-only dedup: creates a job for a content identity unless a job for that identity is still
  running, in which case the caller joins it. A job that ended (done, failed) or expired no longer
  holds the identity: a new upload makes a new job (and new assets).

  The caller first reads the dedup key (GET) and passes what it saw, so that the key of the job
  it points to can be declared (KEYS[2]); if the dedup key changed in between, the script
  answers `retry` and the caller reads again (bounded).

  KEYS[1]  dedup key (`<prefix>:dedup:<identity>`)
  KEYS[2]  job key of the id seen in the dedup key (KEYS[3] when none was seen)
  KEYS[3]  job key of the new job
  KEYS[4]  live-lease index
  KEYS[5]  event stream of the new job
  ARGV[1]  actor        ARGV[2] ttl seconds for the queued state
  ARGV[3]  id seen in the dedup key ('' if none)      ARGV[4] new job id
  ARGV[5]  ttl seconds for the dedup key
  ARGV[6]  grace ms before the sweeper may ask whether a queue holds the new job
  ARGV[7…] field, value pairs of the new record
  Returns  {1, 'created', newId} | {0, 'joined', existingId} | {0, 'retry', currentId}
]]
local current = redis.call('GET', KEYS[1]) or ''
if current ~= ARGV[3] then return {0, 'retry', current} end
if current ~= '' then
  local status = redis.call('HGET', KEYS[2], 'status')
  if status and not isTerminal(status) then return {0, 'joined', current} end
end
if redis.call('EXISTS', KEYS[3]) == 1 then return {0, 'retry', current} end
newRecord(KEYS[3], KEYS[4], tonumber(ARGV[6]), ARGV[1], 7, KEYS[5])
redis.call('EXPIRE', KEYS[3], tonumber(ARGV[2]))
followExpiry(KEYS[3], KEYS[5])
redis.call('SET', KEYS[1], ARGV[4], 'EX', tonumber(ARGV[5]))
return {1, 'created', ARGV[4]}
