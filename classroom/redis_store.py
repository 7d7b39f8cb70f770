"""RedisRoomStore: the RoomStore shared by every replica of the app through one Redis.

Layout, per room (``{CODE}`` is a Redis hash tag, so one room's keys share a cluster slot):

- ``attention:room:{CODE}``            hash: key_hash, version, page, step, controls (JSON), poll (JSON),
                                       until (the presenter's last activity + ROOM_TTL_S, in ``now`` time)
- ``attention:room:{CODE}:followers``  hash: follower id -> last heartbeat (``now``)
- ``attention:room:{CODE}:polls``      hash: poll id -> options (JSON); its size is the room's poll count
- ``attention:room:{CODE}:answers:ID`` hash per poll: follower id -> option (so a student may change it;
                                       only counts ever leave the store)
- ``attention:rooms``                  sorted set: code -> until, for MAX_ROOMS (pruned by score)

Every key of a room carries a Redis TTL (ROOM_TTL_S plus a minute), refreshed whenever the presenter
publishes, opens or reveals a poll, so an abandoned room disappears by itself. Expiry as the interface
defines it compares ``until`` with the ``now`` passed in, so tests need not wait four hours; the Redis
TTL is only the real-time garbage collector behind it.

Round trips: a follower's version check is one HMGET; every write is one EVALSHA of a Lua script, so
"check the key, bump the version, write the snapshot, refresh the TTLs" is atomic and costs one round
trip. The scripts compare the key's SHA-256 in constant time (XOR over every byte), as ``is_presenter``
does with ``hmac.compare_digest``. Connection failures become ``StoreUnavailable``.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import json
import re
import secrets

import redis
from redis.backoff import ExponentialBackoff
from redis.retry import Retry

from classroom.store import (
    CODE_ALPHABET,
    CODE_LENGTH,
    FOLLOWER_TTL_S,
    MAX_FOLLOWERS,
    MAX_POLLS,
    MAX_ROOMS,
    ROOM_TTL_S,
    NotPresenter,
    Poll,
    RoomError,
    RoomFull,
    Snapshot,
    StoreUnavailable,
    UnknownRoom,
)

PREFIX = "attention:"
ROOMS = PREFIX + "rooms"
REDIS_TTL_S = ROOM_TTL_S + 60           # a minute past the interface's expiry, so `now` decides first
MAX_ID_CHARS = 120                       # poll ids and follower ids are ours, but bound them anyway
_CODE = re.compile(f"[{CODE_ALPHABET}]{{{CODE_LENGTH}}}")

# Outcomes the scripts return as negative numbers (a version is never negative).
_UNKNOWN, _NOT_PRESENTER, _FULL, _TAKEN, _NO_POLL = -1, -2, -3, -4, -5

# Shared by the scripts: is the room alive at ARGV now, and does the key hash match (constant time)?
_LUA_COMMON = """
local function alive(room, now)
  local u = redis.call('HGET', room, 'until')
  return u and tonumber(u) >= now
end
local function same(a, b)
  if not a or #a ~= #b then return false end
  local d = 0
  for i = 1, #a do d = bit.bor(d, bit.bxor(string.byte(a, i), string.byte(b, i))) end
  return d == 0
end
-- The presenter is active: every key of the room lives another ROOM_TTL_S.
local function refresh(room, followers, polls, rooms, code, answers_prefix, untl, ttl)
  redis.call('HSET', room, 'until', untl)
  redis.call('EXPIRE', room, ttl)
  redis.call('EXPIRE', followers, ttl)
  redis.call('EXPIRE', polls, ttl)
  for _, id in ipairs(redis.call('HKEYS', polls)) do redis.call('EXPIRE', answers_prefix .. id, ttl) end
  redis.call('ZADD', rooms, 'XX', untl, code)
end
"""

# KEYS: rooms, room, followers, polls   ARGV: code, key_hash, now, until, ttl, max_rooms, answers_prefix
_CREATE = _LUA_COMMON + """
local now = tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', '(' .. ARGV[3])
if alive(KEYS[2], now) then return -4 end
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[6]) then return -3 end
for _, id in ipairs(redis.call('HKEYS', KEYS[4])) do redis.call('DEL', ARGV[7] .. id) end
redis.call('DEL', KEYS[2], KEYS[3], KEYS[4])
redis.call('HSET', KEYS[2], 'key_hash', ARGV[2], 'version', 0, 'page', '', 'step', 0, 'controls', '{}',
           'poll', '', 'until', ARGV[4])
redis.call('EXPIRE', KEYS[2], ARGV[5])
redis.call('ZADD', KEYS[1], ARGV[4], ARGV[1])
return 0
"""

# KEYS: room, followers, polls, rooms   ARGV: key_hash, now, until, ttl, code, answers_prefix,
#                                             page, step, controls
_PUBLISH = _LUA_COMMON + """
if not alive(KEYS[1], tonumber(ARGV[2])) then return -1 end
if not same(redis.call('HGET', KEYS[1], 'key_hash'), ARGV[1]) then return -2 end
refresh(KEYS[1], KEYS[2], KEYS[3], KEYS[4], ARGV[5], ARGV[6], ARGV[3], ARGV[4])
local h = redis.call('HMGET', KEYS[1], 'page', 'step', 'controls', 'version')
if h[1] == ARGV[7] and h[2] == ARGV[8] and h[3] == ARGV[9] then return tonumber(h[4]) end
redis.call('HSET', KEYS[1], 'page', ARGV[7], 'step', ARGV[8], 'controls', ARGV[9])
return redis.call('HINCRBY', KEYS[1], 'version', 1)
"""

# KEYS: room, followers, polls, rooms   ARGV: key_hash, now, until, ttl, code, answers_prefix,
#                                             poll_id, options_json, poll_json, max_polls
_OPEN_POLL = _LUA_COMMON + """
if not alive(KEYS[1], tonumber(ARGV[2])) then return -1 end
if not same(redis.call('HGET', KEYS[1], 'key_hash'), ARGV[1]) then return -2 end
if redis.call('HEXISTS', KEYS[3], ARGV[7]) == 0 and redis.call('HLEN', KEYS[3]) >= tonumber(ARGV[10]) then
  return -3
end
redis.call('HSET', KEYS[3], ARGV[7], ARGV[8])
redis.call('HSET', KEYS[1], 'poll', ARGV[9])
refresh(KEYS[1], KEYS[2], KEYS[3], KEYS[4], ARGV[5], ARGV[6], ARGV[3], ARGV[4])
return redis.call('HINCRBY', KEYS[1], 'version', 1)
"""

# KEYS: room, followers, polls, rooms   ARGV: key_hash, now, until, ttl, code, answers_prefix, poll_id
_REVEAL = _LUA_COMMON + """
if not alive(KEYS[1], tonumber(ARGV[2])) then return -1 end
if not same(redis.call('HGET', KEYS[1], 'key_hash'), ARGV[1]) then return -2 end
local raw = redis.call('HGET', KEYS[1], 'poll')
if not raw or raw == '' then return -5 end
local p = cjson.decode(raw)
if p.id ~= ARGV[7] then return -5 end
p.revealed = true
redis.call('HSET', KEYS[1], 'poll', cjson.encode(p))
refresh(KEYS[1], KEYS[2], KEYS[3], KEYS[4], ARGV[5], ARGV[6], ARGV[3], ARGV[4])
return redis.call('HINCRBY', KEYS[1], 'version', 1)
"""

# KEYS: room, followers, polls, rooms   ARGV: key_hash, now, code, answers_prefix
_END = _LUA_COMMON + """
if not alive(KEYS[1], tonumber(ARGV[2])) then return -1 end
if not same(redis.call('HGET', KEYS[1], 'key_hash'), ARGV[1]) then return -2 end
for _, id in ipairs(redis.call('HKEYS', KEYS[3])) do redis.call('DEL', ARGV[4] .. id) end
redis.call('DEL', KEYS[1], KEYS[2], KEYS[3])
redis.call('ZREM', KEYS[4], ARGV[3])
return 0
"""

# KEYS: room, followers   ARGV: follower_id, now, max_followers, follower_ttl
_HEARTBEAT = _LUA_COMMON + """
local now = tonumber(ARGV[2])
if not alive(KEYS[1], now) then return -1 end
if redis.call('HEXISTS', KEYS[2], ARGV[1]) == 0 and redis.call('HLEN', KEYS[2]) >= tonumber(ARGV[3]) then
  local kv = redis.call('HGETALL', KEYS[2])
  for i = 1, #kv, 2 do
    if tonumber(kv[i + 1]) < now - tonumber(ARGV[4]) then redis.call('HDEL', KEYS[2], kv[i]) end
  end
  if redis.call('HLEN', KEYS[2]) >= tonumber(ARGV[3]) then return -3 end
end
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
if redis.call('PTTL', KEYS[2]) == -1 then redis.call('PEXPIRE', KEYS[2], redis.call('PTTL', KEYS[1])) end
return 0
"""

# KEYS: room, followers   ARGV: now, follower_ttl
_FOLLOWERS = _LUA_COMMON + """
local now = tonumber(ARGV[1])
if not alive(KEYS[1], now) then return 0 end
local n = 0
for _, t in ipairs(redis.call('HVALS', KEYS[2])) do
  if tonumber(t) >= now - tonumber(ARGV[2]) then n = n + 1 end
end
return n
"""

# KEYS: room, answers   ARGV: poll_id, follower_id, option, now, max_answers
_ANSWER = _LUA_COMMON + """
if not alive(KEYS[1], tonumber(ARGV[4])) then return -1 end
local raw = redis.call('HGET', KEYS[1], 'poll')
if not raw or raw == '' then return 0 end
local p = cjson.decode(raw)
if p.id ~= ARGV[1] or p.revealed then return 0 end
local ok = false
for _, o in ipairs(p.options) do if o == ARGV[3] then ok = true end end
if not ok then return 0 end
if redis.call('HEXISTS', KEYS[2], ARGV[2]) == 0 and redis.call('HLEN', KEYS[2]) >= tonumber(ARGV[5]) then
  return 0
end
redis.call('HSET', KEYS[2], ARGV[2], ARGV[3])
if redis.call('PTTL', KEYS[2]) == -1 then redis.call('PEXPIRE', KEYS[2], redis.call('PTTL', KEYS[1])) end
return 1
"""

# What a down or restarting Redis raises (BusyLoadingError, while it loads, is a ConnectionError).
_UNREACHABLE = (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError, redis.exceptions.ReadOnlyError)


def _mapped(method):
    """Redis unreachable -> StoreUnavailable, so a page shows 'Reconnecting…' instead of a traceback."""

    @functools.wraps(method)
    def wrapper(self, *args, **kwargs):
        try:
            return method(self, *args, **kwargs)
        except _UNREACHABLE as e:
            raise StoreUnavailable("Reconnecting to the class…") from e

    return wrapper


def _hash(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()


def _controls_json(controls: dict[str, list[str]]) -> str:
    """One spelling per state, so an unchanged view compares equal and keeps its version."""
    return json.dumps({str(k): [str(v) for v in vs] for k, vs in controls.items()},
                      sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _poll(raw: str) -> Poll | None:
    if not raw:
        return None
    p = json.loads(raw)
    options = p.get("options") or []
    return Poll(poll_id=p["id"], options=tuple(options) if isinstance(options, list) else (),
                revealed=bool(p.get("revealed")))


class RedisRoomStore:
    """The RoomStore on one Redis (see the module docstring for the layout)."""

    def __init__(self, client: redis.Redis) -> None:
        self.r = client
        self._create = client.register_script(_CREATE)
        self._publish = client.register_script(_PUBLISH)
        self._open_poll = client.register_script(_OPEN_POLL)
        self._reveal = client.register_script(_REVEAL)
        self._end = client.register_script(_END)
        self._heartbeat = client.register_script(_HEARTBEAT)
        self._followers = client.register_script(_FOLLOWERS)
        self._answer = client.register_script(_ANSWER)

    @classmethod
    def from_url(cls, url: str) -> RedisRoomStore:
        """A store on ``redis://host:port/db``. Short timeouts: a follower's poll must not hang a page,
        and one quick retry rides over a dropped connection (a Redis restart) without the user noticing."""
        client = redis.Redis.from_url(
            url, decode_responses=True, socket_connect_timeout=0.5, socket_timeout=1.0,
            retry=Retry(ExponentialBackoff(cap=0.2, base=0.02), 1), health_check_interval=30,
            client_name="attention-classroom")
        return cls(client)

    # --- keys ------------------------------------------------------------------------------------------
    @staticmethod
    def _keys(code: str) -> list[str]:
        if not isinstance(code, str) or not _CODE.fullmatch(code):
            raise UnknownRoom("There is no class with that code (it may have ended).")
        room = f"{PREFIX}room:{{{code}}}"
        return [room, room + ":followers", room + ":polls", ROOMS]

    @staticmethod
    def _answers_prefix(code: str) -> str:
        return f"{PREFIX}room:{{{code}}}:answers:"

    @staticmethod
    def _check(result: int) -> int:
        result = int(result)
        if result == _UNKNOWN:
            raise UnknownRoom("There is no class with that code (it may have ended).")
        if result == _NOT_PRESENTER:
            raise NotPresenter("Only the presenter can do that.")
        if result == _FULL:
            raise RoomFull("This class is full.")
        if result == _NO_POLL:
            raise RoomError("That question is not open in this class.")
        return result

    def _presenter_args(self, code: str, key: str, now: float) -> list:
        return [_hash(key), repr(float(now)), repr(float(now) + ROOM_TTL_S), REDIS_TTL_S, code,
                self._answers_prefix(code)]

    # --- the RoomStore interface ------------------------------------------------------------------------
    @_mapped
    def create_room(self, now: float) -> tuple[str, str]:
        key = secrets.token_urlsafe(16)                                    # 128 random bits
        for _ in range(20):
            code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
            room, followers, polls, rooms = self._keys(code)
            result = int(self._create(keys=[rooms, room, followers, polls],
                                      args=[code, _hash(key), repr(float(now)), repr(float(now) + ROOM_TTL_S),
                                            REDIS_TTL_S, MAX_ROOMS, self._answers_prefix(code)]))
            if result == _FULL:
                raise RoomFull("The classroom has as many classes as it can hold; try again later.")
            if result == 0:
                return code, key
        raise RoomFull("No free room code was found; try again.")   # 31⁶ ≈ 887 million codes, ≤ 200 used

    @_mapped
    def end_room(self, code: str, key: str) -> None:
        # No `now` here: a room past its expiry but not yet collected by Redis can still be ended.
        k = self._keys(code)
        self._check(self._end(keys=k, args=[_hash(key), "0", code, self._answers_prefix(code)]))

    @_mapped
    def is_presenter(self, code: str, key: str) -> bool:
        try:
            room = self._keys(code)[0]
        except UnknownRoom:
            return False
        stored = self.r.hget(room, "key_hash")
        if stored is None or not isinstance(key, str):
            return False
        return hmac.compare_digest(stored.encode(), _hash(key).encode())

    @_mapped
    def publish(self, code: str, key: str, page: str, step: int, controls: dict[str, list[str]],
                now: float) -> int:
        return self._check(self._publish(keys=self._keys(code),
                                         args=[*self._presenter_args(code, key, now), str(page), str(int(step)),
                                               _controls_json(controls)]))

    @_mapped
    def version(self, code: str, now: float) -> int:
        version, until = self.r.hmget(self._keys(code)[0], "version", "until")
        if version is None or until is None or float(until) < now:
            raise UnknownRoom("There is no class with that code (it may have ended).")
        return int(version)

    @_mapped
    def snapshot(self, code: str, now: float) -> Snapshot:
        h = self.r.hmget(self._keys(code)[0], "version", "page", "step", "controls", "poll", "until")
        version, page, step, controls, poll, until = h
        if version is None or until is None or float(until) < now:
            raise UnknownRoom("There is no class with that code (it may have ended).")
        return Snapshot(version=int(version), page=page or "", step=int(step or 0),
                        controls=json.loads(controls or "{}"), poll=_poll(poll or ""))

    @_mapped
    def heartbeat(self, code: str, follower_id: str, now: float) -> None:
        room, followers, _, _ = self._keys(code)
        self._check(self._heartbeat(keys=[room, followers],
                                    args=[str(follower_id)[:MAX_ID_CHARS], repr(float(now)), MAX_FOLLOWERS,
                                          FOLLOWER_TTL_S]))

    @_mapped
    def follower_count(self, code: str, now: float) -> int:
        try:
            room, followers, _, _ = self._keys(code)
        except UnknownRoom:
            return 0
        return int(self._followers(keys=[room, followers], args=[repr(float(now)), FOLLOWER_TTL_S]))

    @_mapped
    def open_poll(self, code: str, key: str, poll_id: str, options: tuple[str, ...], now: float) -> int:
        poll_id = str(poll_id)[:MAX_ID_CHARS]
        opts = [str(o) for o in options]
        poll = json.dumps({"id": poll_id, "options": opts, "revealed": False}, ensure_ascii=False)
        return self._check(self._open_poll(keys=self._keys(code),
                                           args=[*self._presenter_args(code, key, now), poll_id,
                                                 json.dumps(opts, ensure_ascii=False), poll, MAX_POLLS]))

    @_mapped
    def answer(self, code: str, poll_id: str, follower_id: str, option: str, now: float) -> bool:
        if not isinstance(option, str) or not isinstance(poll_id, str) or len(poll_id) > MAX_ID_CHARS:
            return False
        room = self._keys(code)[0]
        result = int(self._answer(keys=[room, self._answers_prefix(code) + poll_id],
                                  args=[poll_id, str(follower_id)[:MAX_ID_CHARS], option, repr(float(now)),
                                        MAX_FOLLOWERS]))
        if result == _UNKNOWN:
            raise UnknownRoom("There is no class with that code (it may have ended).")
        return result == 1

    @_mapped
    def poll_counts(self, code: str, poll_id: str) -> dict[str, int]:
        if not isinstance(poll_id, str) or len(poll_id) > MAX_ID_CHARS:
            return {}
        _, _, polls, _ = self._keys(code)
        with self.r.pipeline(transaction=False) as p:                     # one round trip
            p.hget(polls, poll_id)
            p.hvals(self._answers_prefix(code) + poll_id)
            options, chosen = p.execute()
        if options is None:
            return {}
        counts = {o: 0 for o in json.loads(options)}
        for c in chosen:
            if c in counts:
                counts[c] += 1
        return counts

    @_mapped
    def reveal_poll(self, code: str, key: str, poll_id: str, now: float) -> int:
        return self._check(self._reveal(keys=self._keys(code),
                                        args=[*self._presenter_args(code, key, now), str(poll_id)]))
