--[[
  Records facts a stage must find again after a takeover (e.g. the MinerU task it submitted), as
  `ext.*` fields of a record that is not terminal. Never touches status, progress or phase.
  Fenced (prelude.lua): a zombie cannot leave a fact about work it no longer owns.
  KEYS[1]  job key
  ARGV[1]  series   ARGV[2] holder   ARGV[3] epoch   ARGV[4] token
  ARGV[5…] field, value pairs; every field must start with `ext.`
  Returns  {1, <status>} | {0, 'missing'} | {0, <terminal status>} ignored | {0, 'stale' | 'fenced'} refused
]]
local status = redis.call('HGET', KEYS[1], 'status')
if not status then return {0, 'missing'} end
if isTerminal(status) then return {0, status} end
local refused = refusal(KEYS[1], ARGV[1], ARGV[2], ARGV[3], ARGV[4])
if refused then return {0, refused} end
for i = 5, #ARGV, 2 do
  if string.sub(ARGV[i], 1, 4) ~= 'ext.' then return redis.error_reply('annotate: field ' .. ARGV[i] .. ' is not ext.*') end
  redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1])
end
return {1, status}
