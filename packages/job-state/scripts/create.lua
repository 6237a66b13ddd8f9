--[[
  Creates a job record in `queued`, unless one exists.
  KEYS[1]  job key     KEYS[2] live-lease index     KEYS[3] event stream
  KEYS[4]  (optional) batch key, kept alive as long as this record
  KEYS[5]  (with KEYS[4]) batch event stream
  ARGV[1]  actor (host:pid)
  ARGV[2]  ttl seconds for the queued state
  ARGV[3]  grace ms: when the sweeper may first ask whether a queue holds the job
  ARGV[4…] field, value pairs (tenant, source, batch membership…)
  Returns  {1, 'queued'} created | {0, <status>} already existed (nothing changed)
]]
local existing = redis.call('HGET', KEYS[1], 'status')
if existing then return {0, existing} end
newRecord(KEYS[1], KEYS[2], tonumber(ARGV[3]), ARGV[1], 4, KEYS[3], KEYS[5])
local ttl = tonumber(ARGV[2])
redis.call('EXPIRE', KEYS[1], ttl)
extendBatch(KEYS[4], ttl)
followExpiry(KEYS[1], KEYS[3], KEYS[4], KEYS[5])
return {1, 'queued'}
