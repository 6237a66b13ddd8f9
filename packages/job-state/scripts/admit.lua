--[[
  Admission control: how many jobs one tenant may have queued or processing at once, counted in
  Redis so that every API process enforces the same limit. The tenant's active set is a sorted
  set of job ids, scored by admission time (ms, Redis TIME). The scripts that end a job do not
  know about it; instead, each admission first prunes it:
  - a member whose record is terminal (done, failed) leaves at once;
  - a member with no record leaves once the grace has passed: the API writes the record right
    after admitting it, so a record still missing after that has expired or was never written.
    (A younger one may be an upload another process admitted a moment ago: it still counts.)
  Then all of ARGV[5…] are admitted, or none. Pruning reads each member's record, so one call
  costs O(limit).

  The records it reads come in KEYS, like every key a script touches (a Redis Cluster refuses
  undeclared keys): the caller reads the set (ZRANGE) and passes one record key per member. A
  member that joined after that read has no declared key; it was admitted a moment ago by
  another process, so it simply counts, as any young member does.

  KEYS[1]  the tenant's active set (`<prefix>:tenant:<tenant>:active`)
  KEYS[2…] the records of the members the caller read (`<prefix>:job:<id>`)
  ARGV[1]  job key prefix (`<prefix>:job:`): matches a member to its key in KEYS, never used to build one
  ARGV[2]  limit: most active jobs       ARGV[3] grace ms for members without a record
  ARGV[4]  ttl seconds of the set (renewed by every admission; an idle tenant's set expires)
  ARGV[5…] ids of the jobs to admit
  Returns  {1, 'admitted', active before} | {0, 'refused', active}
]]
local now = nowMs()
local graceEnd = now - tonumber(ARGV[3])
local declared = {}
for i = 2, #KEYS do declared[KEYS[i]] = true end
local members = redis.call('ZRANGE', KEYS[1], 0, -1, 'WITHSCORES')
for i = 1, #members, 2 do
  local id = members[i]
  local key = ARGV[1] .. id
  if declared[key] then
    local status = redis.call('HGET', key, 'status')
    if status then
      if isTerminal(status) then redis.call('ZREM', KEYS[1], id) end
    elseif tonumber(members[i + 1]) <= graceEnd then
      redis.call('ZREM', KEYS[1], id)
    end
  end
end
local active = redis.call('ZCARD', KEYS[1])
local wanted = #ARGV - 4
if active + wanted > tonumber(ARGV[2]) then return {0, 'refused', active} end
for i = 5, #ARGV do
  redis.call('ZADD', KEYS[1], now, ARGV[i])
end
redis.call('EXPIRE', KEYS[1], tonumber(ARGV[4]))
return {1, 'admitted', active}
