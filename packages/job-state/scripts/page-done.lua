--[[
  One page of a fanned-out document finished (read, or failed for good): `done` rises by one, once
  per page however often the page's job is delivered (at-least-once), and never past `total`.
  Renews the lease like a heartbeat.
  KEYS[1]  job key        KEYS[2] (optional) batch key
  ARGV[1]  actor          ARGV[2] page index     ARGV[3] lease ms
  ARGV[4]  ttl seconds for the processing state
  Returns  {1, 'processing'} counted | {0, 'processing'} already counted | {0, 'missing'} | {0, <terminal status>}
]]
local status = redis.call('HGET', KEYS[1], 'status')
if not status then return {0, 'missing'} end
if isTerminal(status) then return {0, status} end
if redis.call('HSETNX', KEYS[1], 'page.' .. ARGV[2], 1) == 0 then return {0, status} end
local total = tonumber(redis.call('HGET', KEYS[1], 'total') or '0')
local done = tonumber(redis.call('HGET', KEYS[1], 'done') or '0') + 1
if total > 0 and done > total then done = total end
local now = nowMs()
redis.call('HSET', KEYS[1], 'status', 'processing', 'done', done, 'updatedAt', now, 'updatedBy', ARGV[1],
  'leaseUntil', now + tonumber(ARGV[3]))
publishView(KEYS[1])
local ttl = tonumber(ARGV[4])
redis.call('EXPIRE', KEYS[1], ttl)
extendBatch(ttl)
return {1, 'processing'}
