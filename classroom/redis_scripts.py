"""The Lua scripts of RedisRoomStore for rooms, followers and limits (the conventions are in
classroom/redis_lua.py; the scripts for questions in classroom/redis_poll_scripts.py)."""

from __future__ import annotations

from classroom.redis_check_scripts import CLOSE_CHECK, OPEN_CHECK, REVEAL_CHECK
from classroom.redis_lua import PRELUDE as _LUA
from classroom.redis_poll_scripts import ASK_AGAIN, CLOSE_POLL, OPEN_POLL, REVEAL, TALLY, VOTE

# ARGV[4..]: key_hash, max_rooms, owner (hashed address, "" for none), a unique member
CREATE = _LUA + """
for _, code in ipairs(redis.call('ZRANGEBYSCORE', ROOMS, '-inf', '(' .. ARGV[1])) do
  drop(room_key(code), code, NOW)
end
for _, code in ipairs(redis.call('ZRANGEBYSCORE', ACTIVE, '-inf', '(' .. (NOW - IDLE_S))) do
  drop(room_key(code), code, NOW)
end
if check_alive() == 0 or redis.call('EXISTS', results_key(CODE)) == 1 then return -4 end
local O, S = P .. 'owner:' .. ARGV[6], P .. 'started:' .. ARGV[6]
if ARGV[6] ~= '' then
  local live = 0
  for _, c in ipairs(redis.call('ZRANGE', O, 0, -1)) do
    if redis.call('ZSCORE', ROOMS, c) then live = live + 1 else redis.call('ZREM', O, c) end
  end
  if live >= PER_ADDRESS_LIVE then return {-9, tostring(EVICT_S)} end
  redis.call('ZREMRANGEBYSCORE', S, '-inf', NOW - 3600)
  if redis.call('ZCARD', S) >= PER_HOUR then
    local oldest = redis.call('ZRANGE', S, -PER_HOUR, -PER_HOUR, 'WITHSCORES')
    return {-10, tostring(tonumber(oldest[2]) + 3600 - NOW)}
  end
end
if redis.call('ZCARD', ROOMS) >= tonumber(ARGV[5]) then     -- full: the idlest room whose presenter is gone goes
  local idlest, when = nil, nil
  for _, c in ipairs(redis.call('ZRANGEBYSCORE', HERE, '-inf', '(' .. (NOW - GONE_S))) do
    local a = tonumber(redis.call('ZSCORE', ACTIVE, c) or '0')
    if not when or a < when then idlest, when = c, a end
  end
  if not idlest then return -3 end
  drop(room_key(idlest), idlest, NOW)
end
drop(R, CODE, false)
redis.call('HSET', R, 'key_hash', ARGV[4], 'version', 1, 'page', '', 'step', 0, 'controls', '{}',
           'poll_id', '', 'check', '', 'until', NOW + ROOM_TTL, 'active', ARGV[1], 'owner', ARGV[6], 'locked', '0')
redis.call('EXPIRE', R, REDIS_TTL)
redis.call('ZADD', ROOMS, NOW + ROOM_TTL, CODE)
redis.call('ZADD', ACTIVE, NOW, CODE)
redis.call('ZADD', HERE, NOW, CODE)
if ARGV[6] ~= '' then
  redis.call('ZADD', O, NOW, CODE)
  redis.call('EXPIRE', O, REDIS_TTL)
  redis.call('ZADD', S, NOW, ARGV[7])
  redis.call('EXPIRE', S, 3600)
end
return 0
"""

# ARGV[4..]: hashed address, a unique member, a join link's token ("" for none)
FIND = _LUA + """
local alive = check_alive()
if alive == 0 and ARGV[6] ~= '' and same(ARGV[6],
    string.sub(redis.sha1hex('attention-join:' .. redis.call('HGET', R, 'key_hash')), 1, JOIN_TOKEN)) then
  if redis.call('SCARD', R .. ':known') < KNOWN_MAX then
    redis.call('SADD', R .. ':known', ARGV[4])
    with_room_ttl(R .. ':known')
  end
  return {0}                                    -- the join link (or its QR code): never limited
end
if alive == 0 and redis.call('SISMEMBER', R .. ':known', ARGV[4]) == 1 then return {0} end
local A, F = P .. 'tries:' .. ARGV[4], P .. 'failures'
redis.call('ZREMRANGEBYSCORE', A, '-inf', NOW - WINDOW_S)
redis.call('ZREMRANGEBYSCORE', F, '-inf', NOW - WINDOW_S)
local wait, n = 0, redis.call('ZCARD', A)
if n >= FAILS_ADDRESS then
  local last = tonumber(redis.call('ZRANGE', A, -1, -1, 'WITHSCORES')[2])
  wait = math.max(0, last + math.min(BACKOFF_MAX, BACKOFF_BASE * 2 ^ (n - FAILS_ADDRESS)) - NOW)
end
if n > 0 and redis.call('ZCARD', F) >= FAILS_SERVER then   -- only an address that failed itself waits
  local t = tonumber(redis.call('ZRANGE', F, -FAILS_SERVER, -FAILS_SERVER, 'WITHSCORES')[2])
  wait = math.max(wait, t + WINDOW_S - NOW)
end
if wait > 0 then                                -- this attempt makes the wait longer: say by how much
  note(A, KEEP_ADDRESS, ARGV[5])
  n = redis.call('ZCARD', A)
  wait = math.max(wait, math.min(BACKOFF_MAX, BACKOFF_BASE * 2 ^ (n - FAILS_ADDRESS)))
  return {-11, tostring(wait)}
end
if alive ~= 0 then
  note(A, KEEP_ADDRESS, ARGV[5])
  note(F, FAILS_SERVER, ARGV[5])
  return {-1}
end
if redis.call('SCARD', R .. ':known') < KNOWN_MAX then
  redis.call('SADD', R .. ':known', ARGV[4])
  with_room_ttl(R .. ':known')
end
return {0}
"""

# ARGV[4..]: key_hash, page, step, controls, base version ('' for none)
PUBLISH = _LUA + """
local p = presenting(); if p ~= 0 then return p end
local h = redis.call('HMGET', R, 'page', 'step', 'controls', 'version')
if h[1] == ARGV[5] and h[2] == ARGV[6] and h[3] == ARGV[7] then return tonumber(h[4]) end
if ARGV[8] ~= '' and tonumber(ARGV[8]) ~= tonumber(h[4]) then return -26 end  -- OUTDATED
redis.call('HSET', R, 'page', ARGV[5], 'step', ARGV[6], 'controls', ARGV[7])
return redis.call('HINCRBY', R, 'version', 1)
"""





# ARGV[4..]: key_hash, "1" to lock or "0" to unlock
LOCK = _LUA + """
local p = presenting(); if p ~= 0 then return p end
redis.call('HSET', R, 'locked', ARGV[5])
return 0
"""

# (no more arguments) -> 1 locked, 0 not, or a refusal
LOCKED = _LUA + """
local alive = check_alive(); if alive ~= 0 then return alive end
if redis.call('HGET', R, 'locked') == '1' then return 1 end
return 0
"""

# ARGV[4]: key_hash  (no check of the time: an expired room can still be ended)
END = _LUA + """
if not same(redis.call('HGET', R, 'key_hash'), ARGV[4]) then
  if redis.call('EXISTS', R) == 0 then return -1 end
  return -2
end
local h = redis.call('HMGET', R, 'until', 'active')     -- the class ended with its last activity
drop(R, CODE, math.max(tonumber(h[1]) - ROOM_TTL, tonumber(h[2])))
return 0
"""

# ARGV[4]: key_hash -> JSON [key hash, ended at or false, questions], or a refusal
RESULTS = _LUA + """
if redis.call('EXISTS', R) == 1 and check_alive() == 0 then
  if not same(redis.call('HGET', R, 'key_hash'), ARGV[4]) then return -2 end
  return cjson.encode({'', false, collect(R, NOW)})
end
local kept = redis.call('GET', results_key(CODE))
if not kept then return -12 end
local data = cjson.decode(kept)
if tonumber(data[2]) + RESULTS_TTL < NOW then return -12 end     -- the key's TTL is the real-time collector
if not same(data[1], ARGV[4]) then return -2 end
return kept
"""

# -> {version, page, step, controls, poll_id, options, revealed, check JSON or "", check revealed, round, own
# question's text or "", its right option once revealed or ""}
# or a refusal
SNAPSHOT = _LUA + """
local alive = check_alive(); if alive ~= 0 then return alive end
local h = redis.call('HMGET', R, 'version', 'page', 'step', 'controls', 'poll_id', 'check')
local options, revealed, check, shown, round, text, right = false, 0, h[6] or '', 0, 1, '', ''
if h[5] ~= '' then
  options = redis.call('HGET', R .. ':polls', h[5])
  revealed = redis.call('SISMEMBER', R .. ':revealed', h[5])
  local meta = redis.call('HGET', R .. ':meta', h[5])
  if meta then
    meta = cjson.decode(meta)
    round = math.max(1, #(meta.asked or {}))
    if string.sub(h[5], 1, 4) == 'own:' then
      if type(meta.text) == 'string' then text = meta.text end
      if revealed == 1 and type(meta.right) == 'string' then right = meta.right end    -- never before the reveal
    end
  end
end
if check ~= '' then
  shown = 1
  for _, id in ipairs(redis.call('SMEMBERS', R .. ':check')) do
    if redis.call('SISMEMBER', R .. ':revealed', id) == 0 then shown = 0; break end
  end
end
return {h[1], h[2], h[3], h[4], h[5], options, revealed, check, shown, round, text, right}
"""

# A version check found the room past its time: delete it, as it is seen.
EXPIRE = _LUA + """
return check_alive()
"""

# ARGV[4..]: follower_id, max_followers, the hashed address of a join ("" for a beat), the live students one
# address may have, a unique member. The sorted set holds follower -> last beat; those silent past the grace
# go, those silent past FOLLOWER_TTL no longer count, so a join-and-leave flood frees its seats. R:addr holds
# follower -> the hashed address it joined from; P..'students:'..A that address's live students (room:follower
# -> last beat) and P..'joins:'..A the times its new students joined (the pace).
HEARTBEAT = _LUA + """
local alive = check_alive(); if alive ~= 0 then return alive end
local F, max = R .. ':followers', tonumber(ARGV[5])
redis.call('ZREMRANGEBYSCORE', F, '-inf', '(' .. (NOW - GRACE_S))
local seen = redis.call('ZSCORE', F, ARGV[4])
if not seen and redis.call('HGET', R, 'locked') == '1' then return -7 end
if not (seen and tonumber(seen) >= NOW - FOLLOWER_TTL)
    and redis.call('ZCOUNT', F, NOW - FOLLOWER_TTL, '+inf') >= max then return -3 end
local A, member = ARGV[6], CODE .. ':' .. ARGV[4]
if A == '' then A = redis.call('HGET', R .. ':addr', ARGV[4]) or '' end
if ARGV[6] ~= '' and not seen then               -- a new student of this room, from address A
  local J, S = P .. 'joins:' .. A, P .. 'students:' .. A
  redis.call('ZREMRANGEBYSCORE', J, '-inf', NOW - JOINS_WINDOW)
  if redis.call('ZCARD', J) >= JOINS_ADDRESS then
    local oldest = tonumber(redis.call('ZRANGE', J, -JOINS_ADDRESS, -JOINS_ADDRESS, 'WITHSCORES')[2])
    return {-11, tostring(oldest + JOINS_WINDOW - NOW)}
  end
  redis.call('ZREMRANGEBYSCORE', S, '-inf', '(' .. (NOW - FOLLOWER_TTL))
  if not redis.call('ZSCORE', S, member) and redis.call('ZCARD', S) >= tonumber(ARGV[7]) then
    return {-13, tostring(FOLLOWER_TTL)}
  end
  redis.call('ZADD', J, NOW, ARGV[8])
  redis.call('EXPIRE', J, JOINS_WINDOW + 1)
end
if not seen and redis.call('ZCARD', F) >= 2 * max then
  local gone = redis.call('ZPOPMIN', F)
  if gone[1] then redis.call('HDEL', R .. ':addr', gone[1]) end
end
redis.call('ZADD', F, NOW, ARGV[4])
with_room_ttl(F)
if A ~= '' then
  redis.call('HSET', R .. ':addr', ARGV[4], A)
  with_room_ttl(R .. ':addr')
  local S = P .. 'students:' .. A
  redis.call('ZADD', S, NOW, member)
  redis.call('EXPIRE', S, GRACE_S)
end
touch()
return 0
"""

# ARGV[4]: the presenter's key hash ("" for none) -> how many followers beat within FOLLOWER_TTL (one ZCOUNT:
# Redis finds them by time); with the presenter's key, the presenter is noted as here
FOLLOWERS = _LUA + """
local alive = check_alive(); if alive ~= 0 then return alive end
if ARGV[4] ~= '' and same(redis.call('HGET', R, 'key_hash'), ARGV[4]) then
  redis.call('ZADD', HERE, 'XX', 'GT', NOW, CODE)
end
return redis.call('ZCOUNT', R .. ':followers', NOW - FOLLOWER_TTL, '+inf')
"""


SCRIPTS = {name.lower(): text for name, text in {
    "CREATE": CREATE, "FIND": FIND, "PUBLISH": PUBLISH, "OPEN_POLL": OPEN_POLL, "ASK_AGAIN": ASK_AGAIN,
    "CLOSE_POLL": CLOSE_POLL, "REVEAL": REVEAL, "LOCK": LOCK, "LOCKED": LOCKED, "END": END, "RESULTS": RESULTS,
    "SNAPSHOT": SNAPSHOT, "EXPIRE": EXPIRE, "HEARTBEAT": HEARTBEAT, "FOLLOWERS": FOLLOWERS, "VOTE": VOTE,
    "TALLY": TALLY, "OPEN_CHECK": OPEN_CHECK, "CLOSE_CHECK": CLOSE_CHECK, "REVEAL_CHECK": REVEAL_CHECK}.items()}
