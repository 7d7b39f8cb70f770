"""What every Lua script of RedisRoomStore shares (classroom/redis_store.py has the key layout). Each runs atomically in
Redis: "check the key, bump the version, write the snapshot, refresh the TTLs" cannot interleave with
another replica's write. The numbers they limit by come from classroom/store.py, written into the text.

Every script takes KEYS[1] = the room's hash R, ARGV[1] = now, ARGV[2] = the room code, ARGV[3] = the
key prefix, then its own arguments from ARGV[4]. A script's refusal is a negative number (a version
never is): the table ``REFUSED`` in redis_store.py maps each to an exception.
"""

from __future__ import annotations

from classroom.store import (
    BACKOFF_BASE_S,
    BACKOFF_MAX_S,
    CLASSES_PER_HOUR_PER_ADDRESS,
    EVICT_IDLE_S,
    FOLLOWER_TTL_S,
    JOIN_TOKEN_CHARS,
    KNOWN_ADDRESSES_PER_ROOM,
    LIVE_CLASSES_PER_ADDRESS,
    LOOKUP_FAILURES_PER_ADDRESS,
    LOOKUP_FAILURES_PER_SERVER,
    LOOKUP_WINDOW_S,
    MAX_ROUNDS,
    NEW_STUDENTS_PER_ADDRESS,
    NEW_STUDENTS_WINDOW_S,
    PRESENTER_GONE_S,
    REJOIN_GRACE_S,
    RESULTS_TTL_S,
    ROOM_IDLE_S,
    ROOM_TTL_S,
)
from classroom.throttle import KEEP_PER_ADDRESS

REDIS_TTL_S = ROOM_TTL_S + 60           # a minute past the interface's expiry, so `now` decides first

UNKNOWN, NOT_PRESENTER, FULL, TAKEN, EXPIRED, NOT_ASKED, LOCKED, IDLE = -1, -2, -3, -4, -5, -6, -7, -8
TOO_MANY_LIVE, TOO_MANY_STARTED, WAIT, NO_RESULTS, TOO_MANY_STUDENTS = -9, -10, -11, -12, -13
NOT_OPEN, NO_SUCH_OPTION, NOT_FOLLOWING, VOTERS_FULL = -20, -21, -22, -23
CHECK_CLASH, NO_CHECK = -24, -25
OUTDATED = -26                          # a publish made from an older version than the room's

_CONSTANTS = {
    "ROOM_TTL": ROOM_TTL_S, "REDIS_TTL": REDIS_TTL_S, "IDLE_S": ROOM_IDLE_S, "EVICT_S": EVICT_IDLE_S,
    "FOLLOWER_TTL": FOLLOWER_TTL_S, "GRACE_S": REJOIN_GRACE_S, "RESULTS_TTL": RESULTS_TTL_S,
    "PER_ADDRESS_LIVE": LIVE_CLASSES_PER_ADDRESS, "PER_HOUR": CLASSES_PER_HOUR_PER_ADDRESS,
    "WINDOW_S": LOOKUP_WINDOW_S, "FAILS_ADDRESS": LOOKUP_FAILURES_PER_ADDRESS,
    "FAILS_SERVER": LOOKUP_FAILURES_PER_SERVER,
    "KEEP_ADDRESS": KEEP_PER_ADDRESS, "BACKOFF_BASE": BACKOFF_BASE_S, "BACKOFF_MAX": BACKOFF_MAX_S,
    "KNOWN_MAX": KNOWN_ADDRESSES_PER_ROOM, "MAX_ROUNDS": MAX_ROUNDS, "JOIN_TOKEN": JOIN_TOKEN_CHARS,
    "JOINS_ADDRESS": NEW_STUDENTS_PER_ADDRESS, "JOINS_WINDOW": NEW_STUDENTS_WINDOW_S,
    "GONE_S": PRESENTER_GONE_S,
}

PRELUDE = """
local R = KEYS[1]
local NOW, CODE, P = tonumber(ARGV[1]), ARGV[2], ARGV[3]
local ROOMS, ACTIVE, HERE = P .. 'rooms', P .. 'active', P .. 'here'
local function room_key(code) return P .. 'room:{' .. code .. '}' end
local function results_key(code) return P .. 'results:{' .. code .. '}' end
-- The answers to question `id` of room `room` from followers present at `at`, and how many are present.
local function live_tally(room, id, at)
  local F, lo, counts = room .. ':followers', at - FOLLOWER_TTL, {}
  local kv = redis.call('HGETALL', room .. ':chosen:' .. id)
  for i = 1, #kv, 2 do
    local seen = redis.call('ZSCORE', F, kv[i])
    if seen and tonumber(seen) >= lo then counts[kv[i + 1]] = (counts[kv[i + 1]] or 0) + 1 end
  end
  return counts, redis.call('ZCOUNT', F, lo, '+inf')
end
-- What the presenter sees of question `id` at `at`: {counts, following, final (0/1)}, frozen at the reveal,
-- as it stood when it was last closed, else the present followers' answers. The results say the same.
local function counted(room, id, at)
  local kept = redis.call('HGET', room .. ':final', id)
  if kept then local f = cjson.decode(kept); return {f[1], f[2], 1} end
  kept = redis.call('HGET', room .. ':closed', id)
  if kept then local f = cjson.decode(kept); return {f[1], f[2], 0} end
  local counts, following = live_tally(room, id, at)
  return {counts, following, 0}
end
-- Drop the answers to `id` of followers not present at NOW: they left, and took their answer with them.
local function forget_gone(id)
  local C, N, F = R .. ':chosen:' .. id, R .. ':counts:' .. id, R .. ':followers'
  local kv = redis.call('HGETALL', C)
  for i = 1, #kv, 2 do
    local seen = redis.call('ZSCORE', F, kv[i])
    if not seen or tonumber(seen) < NOW - FOLLOWER_TTL then
      redis.call('HDEL', C, kv[i])
      redis.call('HINCRBY', N, kv[i + 1], -1)
    end
  end
end
-- Every question with its options, what the results keep about it, and its current round's counts at `at`
-- (as ``counted``: what the presenter sees), flat as option, count, option, count…, and the students present
local function collect(room, at)
  local qs = {}
  local polls = redis.call('HGETALL', room .. ':polls')
  for i = 1, #polls, 2 do
    local id, flat = polls[i], {}
    local seen = counted(room, id, at)
    for option, n in pairs(seen[1]) do flat[#flat + 1] = option; flat[#flat + 1] = n end
    qs[#qs + 1] = {id, polls[i + 1], redis.call('HGET', room .. ':meta', id) or '', flat, seen[2]}
  end
  return qs
end
-- The room goes; with `ended` (a time), its results stay RESULTS_TTL seconds under its own key, counted from
-- the students present at its last action or heartbeat (an idle room is closed long after).
local function drop(room, code, ended)
  local kh = redis.call('HGET', room, 'key_hash')
  if kh and ended then
    local h = redis.call('HMGET', room, 'until', 'active')
    local at = math.min(ended, math.max(tonumber(h[1]) - ROOM_TTL, tonumber(h[2])))
    redis.call('SET', results_key(code), cjson.encode({kh, ended, collect(room, at)}), 'EX', RESULTS_TTL)
  end
  for _, id in ipairs(redis.call('HKEYS', room .. ':polls')) do
    redis.call('DEL', room .. ':counts:' .. id, room .. ':chosen:' .. id)
  end
  redis.call('DEL', room, room .. ':followers', room .. ':polls', room .. ':revealed', room .. ':meta',
             room .. ':final', room .. ':closed', room .. ':known', room .. ':check', room .. ':addr')
  redis.call('ZREM', ROOMS, code)
  redis.call('ZREM', ACTIVE, code)
  redis.call('ZREM', HERE, code)
end
-- 0 when the room is alive at NOW; else -1 (no such room), -5 (its presenter left) or -8 (idle): deleted now.
local function check_alive()
  local h = redis.call('HMGET', R, 'until', 'active')
  if not h[1] then return -1 end
  if tonumber(h[1]) < NOW then drop(R, CODE, NOW); return -5 end
  if tonumber(h[2]) + IDLE_S < NOW then drop(R, CODE, NOW); return -8 end
  return 0
end
local function touch()
  if tonumber(redis.call('HGET', R, 'active')) < NOW then
    redis.call('HSET', R, 'active', ARGV[1])
    redis.call('ZADD', ACTIVE, 'XX', NOW, CODE)
  end
end
local function same(a, b)
  if not a or #a ~= #b then return false end
  local d = 0
  for i = 1, #a do d = bit.bor(d, bit.bxor(string.byte(a, i), string.byte(b, i))) end
  return d == 0
end
-- ARGV[4] is the key hash. 0 if the caller is the presenter of a live room, which then lives on.
local function presenting()
  local alive = check_alive()
  if alive ~= 0 then return alive end
  if not same(redis.call('HGET', R, 'key_hash'), ARGV[4]) then return -2 end
  redis.call('HSET', R, 'until', NOW + ROOM_TTL)
  redis.call('ZADD', ROOMS, 'XX', NOW + ROOM_TTL, CODE)
  redis.call('ZADD', HERE, 'XX', 'GT', NOW, CODE)
  touch()
  if redis.call('TTL', R) < REDIS_TTL - 60 then       -- at most once a minute: every key of the room
    for _, s in ipairs({'', ':followers', ':polls', ':revealed', ':meta', ':final', ':closed', ':known',
                        ':check', ':addr'}) do
      redis.call('EXPIRE', R .. s, REDIS_TTL)
    end
    for _, id in ipairs(redis.call('HKEYS', R .. ':polls')) do
      redis.call('EXPIRE', R .. ':counts:' .. id, REDIS_TTL)
      redis.call('EXPIRE', R .. ':chosen:' .. id, REDIS_TTL)
    end
  end
  return 0
end
-- A key created after the room (a first heartbeat, a first answer) dies with it.
local function with_room_ttl(k)
  if redis.call('PTTL', k) == -1 then redis.call('PEXPIRE', k, math.max(redis.call('PTTL', R), 1)) end
end
-- A sorted set of attempt times: note one (a unique member), keep the newest `keep`, expire with the window.
local function note(k, keep, member)
  redis.call('ZADD', k, NOW, member)
  local n = redis.call('ZCARD', k)
  if n > keep then redis.call('ZREMRANGEBYRANK', k, 0, n - keep - 1) end
  redis.call('EXPIRE', k, WINDOW_S + 1)
end
"""


def lua(text: str) -> str:
    """A script with the limits written in (as Lua numbers)."""
    for name, value in sorted(_CONSTANTS.items(), key=lambda kv: -len(kv[0])):
        text = text.replace(name, repr(value))
    return text
