"""The Lua scripts of RedisRoomStore that ask, count and reveal questions (the conventions are in
classroom/redis_lua.py; the others in classroom/redis_scripts.py)."""

from __future__ import annotations

from classroom.redis_lua import PRELUDE as _LUA

# ARGV[4..]: key_hash, poll_id, options (JSON), max_polls, meta (JSON: lesson, text, right, asked, past)
OPEN_POLL = _LUA + """
local p = presenting(); if p ~= 0 then return p end
local id, polls = ARGV[5], R .. ':polls'
local known = redis.call('HGET', polls, id)
if known ~= ARGV[6] then                        -- a new question, or the same id with other options
  if not known and redis.call('HLEN', polls) >= tonumber(ARGV[7]) then return -3 end
  redis.call('HSET', polls, id, ARGV[6])
  redis.call('HSET', R .. ':meta', id, ARGV[8])
  redis.call('HDEL', R .. ':final', id)
  redis.call('HDEL', R .. ':closed', id)
  redis.call('SREM', R .. ':revealed', id)
  redis.call('DEL', R .. ':counts:' .. id, R .. ':chosen:' .. id)
  for _, o in ipairs(cjson.decode(ARGV[6])) do redis.call('HSET', R .. ':counts:' .. id, o, 0) end
  redis.call('EXPIRE', polls, REDIS_TTL)
  redis.call('EXPIRE', R .. ':meta', REDIS_TTL)
  redis.call('EXPIRE', R .. ':counts:' .. id, REDIS_TTL)
elseif redis.call('HGET', R, 'poll_id') == id then
  return tonumber(redis.call('HGET', R, 'version'))      -- already the open question
else
  redis.call('HDEL', R .. ':closed', id)                  -- asked again as it was: live answers count again
end
redis.call('HSET', R, 'poll_id', id)
return redis.call('HINCRBY', R, 'version', 1)
"""

# ARGV[4..]: key_hash, poll_id
ASK_AGAIN = _LUA + """
local p = presenting(); if p ~= 0 then return p end
local id = ARGV[5]
local options = redis.call('HGET', R .. ':polls', id)
if not options then return -6 end
local meta = cjson.decode(redis.call('HGET', R .. ':meta', id))
if #meta.asked >= MAX_ROUNDS then return -3 end
local C = R .. ':counts:' .. id
if type(meta.past) ~= 'table' or next(meta.past) == nil then meta.past = {} end
local seen = counted(R, id, NOW)                      -- the round as the presenter saw it
meta.past[#meta.past + 1] = seen[1]
if type(meta.present) ~= 'table' then meta.present = {} end
meta.present[#meta.past] = seen[2]                    -- the students present in it
meta.asked[#meta.asked + 1] = NOW
redis.call('HSET', R .. ':meta', id, cjson.encode(meta))
redis.call('DEL', C, R .. ':chosen:' .. id)
for _, o in ipairs(cjson.decode(options)) do redis.call('HSET', C, o, 0) end
redis.call('EXPIRE', C, REDIS_TTL)
redis.call('HDEL', R .. ':final', id)
redis.call('HDEL', R .. ':closed', id)
redis.call('SREM', R .. ':revealed', id)
redis.call('HSET', R, 'poll_id', id)
return redis.call('HINCRBY', R, 'version', 1)
"""

# ARGV[4]: key_hash
CLOSE_POLL = _LUA + """
local p = presenting(); if p ~= 0 then return p end
local id = redis.call('HGET', R, 'poll_id')
if id == '' then return tonumber(redis.call('HGET', R, 'version')) end
if redis.call('SISMEMBER', R .. ':revealed', id) == 0 then  -- the round holds the answers of those present now
  forget_gone(id)
  local counts, following = live_tally(R, id, NOW)
  redis.call('HSET', R .. ':closed', id, cjson.encode({counts, following}))
  with_room_ttl(R .. ':closed')
end
redis.call('HSET', R, 'poll_id', '')
return redis.call('HINCRBY', R, 'version', 1)
"""

# ARGV[4..]: key_hash, poll_id
REVEAL = _LUA + """
local p = presenting(); if p ~= 0 then return p end
local id = ARGV[5]
if redis.call('HEXISTS', R .. ':polls', id) == 0 then return -6 end
local shown = redis.call('SISMEMBER', R .. ':revealed', id) == 1
if shown and redis.call('HGET', R, 'poll_id') == id then return tonumber(redis.call('HGET', R, 'version')) end
if not shown then                               -- the tally, frozen as it stood
  local counts, following = live_tally(R, id, NOW)
  redis.call('HSET', R .. ':final', id, cjson.encode({counts, following}))
  with_room_ttl(R .. ':final')
end
redis.call('SADD', R .. ':revealed', id)
with_room_ttl(R .. ':revealed')
redis.call('DEL', R .. ':chosen:' .. id)        -- counts only from here on
redis.call('HSET', R, 'poll_id', id)
return redis.call('HINCRBY', R, 'version', 1)
"""

# ARGV[4..]: poll_id (the open question's, or one of the open check's), follower_id, option, max_answers, "1"
# when the voter must be a live follower
VOTE = _LUA + """
local alive = check_alive(); if alive ~= 0 then return alive end
local id = ARGV[4]
if (redis.call('HGET', R, 'poll_id') ~= id and redis.call('SISMEMBER', R .. ':check', id) == 0)
    or redis.call('SISMEMBER', R .. ':revealed', id) == 1 then return -20 end
local C, N = R .. ':chosen:' .. id, R .. ':counts:' .. id
if redis.call('HEXISTS', N, ARGV[6]) == 0 then return -21 end
if ARGV[8] == '1' then
  local seen = redis.call('ZSCORE', R .. ':followers', ARGV[5])
  if not seen or tonumber(seen) < NOW - FOLLOWER_TTL then return -22 end
end
local before = redis.call('HGET', C, ARGV[5])
if not before and redis.call('HLEN', C) >= tonumber(ARGV[7]) and ARGV[8] == '1' then
  forget_gone(id)                               -- a seat held by an answer that left is free at once
end
if not before and redis.call('HLEN', C) >= tonumber(ARGV[7]) then return -23 end
if before then redis.call('HINCRBY', N, before, -1) end
redis.call('HSET', C, ARGV[5], ARGV[6])
with_room_ttl(C)
redis.call('HINCRBY', N, ARGV[6], 1)
return 1
"""

# ARGV[4]: poll_id -> JSON [counts, following, final (0/1), options JSON] or a refusal
TALLY = _LUA + """
local alive = check_alive(); if alive ~= 0 then return alive end
local id = ARGV[4]
local options = redis.call('HGET', R .. ':polls', id)
if not options then return -6 end
local t = counted(R, id, NOW)
return cjson.encode({t[1], t[2], t[3], options})
"""
