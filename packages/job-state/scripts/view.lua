--[[
  The status document of a record that has none yet: one written before documents were kept in
  the `view` field (a rolling upgrade). Builds and stores it, so this runs at most once per record.
  KEYS[1]  job key
  Returns  {1, <status>, <view JSON>} | {0, 'missing'}
]]
local status = redis.call('HGET', KEYS[1], 'status')
if not status then return {0, 'missing'} end
publishView(KEYS[1])
return {1, status, redis.call('HGET', KEYS[1], 'view')}
