"""The Lua scripts of RedisRoomStore for checks: several questions open at once (the concept check). The
conventions are in classroom/redis_lua.py. The open check is the room's ``check`` field (JSON {id, round,
polls}, "" for none) and the set ``R:check`` of its poll ids, which VOTE reads."""

from __future__ import annotations

from classroom.redis_lua import PRELUDE as _LUA

# ARGV[4..]: key_hash, the check (JSON {id, round, polls}), its questions (JSON [[id, options JSON, meta JSON]]),
# max_polls
OPEN_CHECK = _LUA + """
local p = presenting(); if p ~= 0 then return p end
local spec, qs, polls = cjson.decode(ARGV[5]), cjson.decode(ARGV[6]), R .. ':polls'
local new = 0
for _, q in ipairs(qs) do                         -- every refusal before any change
  local known = redis.call('HGET', polls, q[1])
  if not known then new = new + 1
  elseif known ~= q[2] or #cjson.decode(redis.call('HGET', R .. ':meta', q[1])).asked > spec.round then
    return -24
  end
end
if new > 0 and redis.call('HLEN', polls) + new > tonumber(ARGV[7]) then return -3 end
redis.call('DEL', R .. ':check')
for _, q in ipairs(qs) do
  local id = q[1]
  local C = R .. ':counts:' .. id
  if not redis.call('HGET', polls, id) then
    redis.call('HSET', polls, id, q[2])
    redis.call('HSET', R .. ':meta', id, q[3])
    for _, o in ipairs(cjson.decode(q[2])) do redis.call('HSET', C, o, 0) end
  end
  local meta = cjson.decode(redis.call('HGET', R .. ':meta', id))
  if type(meta.past) ~= 'table' or next(meta.past) == nil then meta.past = {} end
  while #meta.asked < spec.round do               -- asked again: this round's counts go to the past
    local seen = counted(R, id, NOW)
    meta.past[#meta.past + 1] = seen[1]
    if type(meta.present) ~= 'table' then meta.present = {} end
    meta.present[#meta.past] = seen[2]
    meta.asked[#meta.asked + 1] = NOW
    redis.call('DEL', C, R .. ':chosen:' .. id)
    for _, o in ipairs(cjson.decode(q[2])) do redis.call('HSET', C, o, 0) end
    redis.call('HDEL', R .. ':final', id)
    redis.call('SREM', R .. ':revealed', id)
  end
  redis.call('HDEL', R .. ':closed', id)          -- open again: the present students' answers count
  redis.call('HSET', R .. ':meta', id, cjson.encode(meta))
  redis.call('EXPIRE', C, REDIS_TTL)
  redis.call('SADD', R .. ':check', id)
end
for _, s in ipairs({':polls', ':meta', ':check'}) do redis.call('EXPIRE', R .. s, REDIS_TTL) end
redis.call('HSET', R, 'check', ARGV[5])
return redis.call('HINCRBY', R, 'version', 1)
"""

# ARGV[4]: key_hash
CLOSE_CHECK = _LUA + """
local p = presenting(); if p ~= 0 then return p end
if (redis.call('HGET', R, 'check') or '') == '' then return tonumber(redis.call('HGET', R, 'version')) end
for _, id in ipairs(redis.call('SMEMBERS', R .. ':check')) do
  if redis.call('SISMEMBER', R .. ':revealed', id) == 0 then  -- each holds the answers of those present now
    forget_gone(id)
    local counts, following = live_tally(R, id, NOW)
    redis.call('HSET', R .. ':closed', id, cjson.encode({counts, following}))
  end
end
with_room_ttl(R .. ':closed')
redis.call('HSET', R, 'check', '')
redis.call('DEL', R .. ':check')
return redis.call('HINCRBY', R, 'version', 1)
"""

# ARGV[4]: key_hash
REVEAL_CHECK = _LUA + """
local p = presenting(); if p ~= 0 then return p end
if (redis.call('HGET', R, 'check') or '') == '' then return -25 end
for _, id in ipairs(redis.call('SMEMBERS', R .. ':check')) do
  if redis.call('SISMEMBER', R .. ':revealed', id) == 0 then   -- the tally, frozen as it stood
    local counts, following = live_tally(R, id, NOW)
    redis.call('HSET', R .. ':final', id, cjson.encode({counts, following}))
    redis.call('SADD', R .. ':revealed', id)
  end
  redis.call('DEL', R .. ':chosen:' .. id)      -- counts only from here on
end
with_room_ttl(R .. ':final')
with_room_ttl(R .. ':revealed')
return redis.call('HINCRBY', R, 'version', 1)
"""
