"""RedisRoomStore: the RoomStore every replica of the app shares through one Redis.

Layout, per room (``R`` = ``attention:room:{CODE}``; ``{CODE}`` is a hash tag, so a room's keys share a
cluster slot):

- ``R``               hash: key_hash, version, page, step, controls (JSON), poll_id ("" for none),
                      until (the presenter's last activity + ROOM_TTL_S, in the caller's ``now``)
- ``R:followers``     hash: follower id -> last heartbeat (``now``)
- ``R:polls``         hash: poll id -> its options (JSON); its size is the room's poll count
- ``R:revealed``      set of the poll ids revealed
- ``R:counts:ID``     hash per poll: option -> how many chose it
- ``R:chosen:ID``     hash per poll: follower id -> option, so a changed answer moves one count;
                      deleted at the reveal, after which only the counts remain
- ``attention:rooms`` sorted set: code -> until, for the room limit (pruned by score)

Every key of a room has a Redis TTL of ROOM_TTL_S plus a minute, refreshed while the presenter is
active, so an abandoned room disappears by itself. Expiry as the interface defines it compares
``until`` with the ``now`` passed in (tests need not wait four hours); a room found expired is deleted
then and there, as the in-process store does. The Redis TTL is the real-time collector behind it.

Round trips: a follower's version check is one HMGET of two small fields. Everything else is one
EVALSHA of a Lua script (atomic: "check the key, bump the version, write the snapshot, refresh the
TTLs" cannot interleave with another replica's write) or one pipeline. The scripts compare key hashes
by XOR over every byte, in constant time, as ``is_presenter`` does with ``hmac.compare_digest``.
Redis unreachable or restarting: ``StoreUnavailable``.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import json
import secrets
import threading
import time

import redis
from redis.backoff import ExponentialBackoff
from redis.retry import Retry

from classroom.store import (
    CODE_ALPHABET,
    CODE_LENGTH,
    FOLLOWER_TTL_S,
    MAX_FOLLOWERS,
    MAX_NAME_CHARS,
    MAX_OPTION_CHARS,
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
    check_controls,
    check_follower_id,
    check_poll,
    normal_code,
)

REDIS_TTL_S = ROOM_TTL_S + 60           # a minute past the interface's expiry, so `now` decides first

# What the scripts return instead of a version (a version is never negative).
_UNKNOWN, _NOT_PRESENTER, _FULL, _TAKEN, _EXPIRED, _NOT_ASKED = -1, -2, -3, -4, -5, -6
_MESSAGES = {
    _UNKNOWN: (UnknownRoom, "There is no class with that code: it may have ended, or the code is mistyped."),
    _EXPIRED: (UnknownRoom, "That class has ended: its presenter has been away for over 4 hours."),
    _NOT_PRESENTER: (NotPresenter, "Only the presenter of this class can do that."),
    _NOT_ASKED: (UnknownRoom, "That question was not asked in this class."),
}

# Helpers every script shares. R is KEYS[1], the room's hash; its other keys are R .. suffix.
_LUA = """
local R = KEYS[1]
local function drop(room)
  for _, id in ipairs(redis.call('HKEYS', room .. ':polls')) do
    redis.call('DEL', room .. ':counts:' .. id, room .. ':chosen:' .. id)
  end
  redis.call('DEL', room, room .. ':followers', room .. ':polls', room .. ':revealed')
end
-- 0 when the room is alive at `now`; else -1 (no such room) or -5 (expired: deleted now, as it is seen).
local function check_alive(now)
  local u = redis.call('HGET', R, 'until')
  if not u then return -1 end
  if tonumber(u) < now then drop(R); return -5 end
  return 0
end
local function same(a, b)
  if not a or #a ~= #b then return false end
  local d = 0
  for i = 1, #a do d = bit.bor(d, bit.bxor(string.byte(a, i), string.byte(b, i))) end
  return d == 0
end
-- ARGV[1] key hash, ARGV[2] now, ARGV[3] until, ARGV[4] ttl, ARGV[5] rooms zset, ARGV[6] code.
-- 0 if the caller is the presenter of a live room; the presenter is active, so the room lives on.
local function presenting()
  local alive = check_alive(tonumber(ARGV[2]))
  if alive ~= 0 then return alive end
  if not same(redis.call('HGET', R, 'key_hash'), ARGV[1]) then return -2 end
  redis.call('HSET', R, 'until', ARGV[3])
  redis.call('ZADD', ARGV[5], 'XX', ARGV[3], ARGV[6])
  local ttl = tonumber(ARGV[4])
  if redis.call('TTL', R) < ttl - 60 then       -- at most once a minute: every key of the room
    for _, k in ipairs({R, R .. ':followers', R .. ':polls', R .. ':revealed'}) do redis.call('EXPIRE', k, ttl) end
    for _, id in ipairs(redis.call('HKEYS', R .. ':polls')) do
      redis.call('EXPIRE', R .. ':counts:' .. id, ttl)
      redis.call('EXPIRE', R .. ':chosen:' .. id, ttl)
    end
  end
  return 0
end
-- A key created after the room (a first heartbeat, a first answer) dies with it.
local function with_room_ttl(k)
  if redis.call('PTTL', k) == -1 then redis.call('PEXPIRE', k, math.max(redis.call('PTTL', R), 1)) end
end
"""

# ARGV: key_hash, now, until, ttl, rooms, code, max_rooms, room prefix
_CREATE = _LUA + """
local now = tonumber(ARGV[2])
for _, code in ipairs(redis.call('ZRANGEBYSCORE', ARGV[5], '-inf', '(' .. ARGV[2])) do
  drop(ARGV[8] .. '{' .. code .. '}')
end
redis.call('ZREMRANGEBYSCORE', ARGV[5], '-inf', '(' .. ARGV[2])
if check_alive(now) == 0 then return -4 end
if redis.call('ZCARD', ARGV[5]) >= tonumber(ARGV[7]) then return -3 end
drop(R)
redis.call('HSET', R, 'key_hash', ARGV[1], 'version', 1, 'page', '', 'step', 0, 'controls', '{}',
           'poll_id', '', 'until', ARGV[3])
redis.call('EXPIRE', R, ARGV[4])
redis.call('ZADD', ARGV[5], ARGV[3], ARGV[6])
return 0
"""

# ARGV: presenter args, page, step, controls
_PUBLISH = _LUA + """
local p = presenting(); if p ~= 0 then return p end
local h = redis.call('HMGET', R, 'page', 'step', 'controls', 'version')
if h[1] == ARGV[7] and h[2] == ARGV[8] and h[3] == ARGV[9] then return tonumber(h[4]) end
redis.call('HSET', R, 'page', ARGV[7], 'step', ARGV[8], 'controls', ARGV[9])
return redis.call('HINCRBY', R, 'version', 1)
"""

# ARGV: presenter args, poll_id, options (JSON), max_polls
_OPEN_POLL = _LUA + """
local p = presenting(); if p ~= 0 then return p end
local id, polls = ARGV[7], R .. ':polls'
local known = redis.call('HGET', polls, id)
if known ~= ARGV[8] then                        -- a new question, or the same id with other options
  if not known and redis.call('HLEN', polls) >= tonumber(ARGV[9]) then return -3 end
  redis.call('HSET', polls, id, ARGV[8])
  redis.call('SREM', R .. ':revealed', id)
  redis.call('DEL', R .. ':counts:' .. id, R .. ':chosen:' .. id)
  for _, o in ipairs(cjson.decode(ARGV[8])) do redis.call('HSET', R .. ':counts:' .. id, o, 0) end
  redis.call('EXPIRE', polls, ARGV[4])
  redis.call('EXPIRE', R .. ':counts:' .. id, ARGV[4])
elseif redis.call('HGET', R, 'poll_id') == id then
  return tonumber(redis.call('HGET', R, 'version'))      -- already the open question
end
redis.call('HSET', R, 'poll_id', id)
return redis.call('HINCRBY', R, 'version', 1)
"""

# ARGV: presenter args
_CLOSE_POLL = _LUA + """
local p = presenting(); if p ~= 0 then return p end
if redis.call('HGET', R, 'poll_id') == '' then return tonumber(redis.call('HGET', R, 'version')) end
redis.call('HSET', R, 'poll_id', '')
return redis.call('HINCRBY', R, 'version', 1)
"""

# ARGV: presenter args, poll_id
_REVEAL = _LUA + """
local p = presenting(); if p ~= 0 then return p end
local id = ARGV[7]
if redis.call('HEXISTS', R .. ':polls', id) == 0 then return -6 end
local shown = redis.call('SISMEMBER', R .. ':revealed', id) == 1
if shown and redis.call('HGET', R, 'poll_id') == id then return tonumber(redis.call('HGET', R, 'version')) end
redis.call('SADD', R .. ':revealed', id)
with_room_ttl(R .. ':revealed')
redis.call('DEL', R .. ':chosen:' .. id)        -- counts only from here on
redis.call('HSET', R, 'poll_id', id)
return redis.call('HINCRBY', R, 'version', 1)
"""

# ARGV: key_hash, rooms, code   (no `now`: an expired room can still be ended)
_END = _LUA + """
if not same(redis.call('HGET', R, 'key_hash'), ARGV[1]) then
  if redis.call('EXISTS', R) == 0 then return -1 end
  return -2
end
drop(R)
redis.call('ZREM', ARGV[2], ARGV[3])
return 0
"""

# ARGV: now  -> {version, page, step, controls, poll_id, options, revealed} or an error number
_SNAPSHOT = _LUA + """
local alive = check_alive(tonumber(ARGV[1])); if alive ~= 0 then return alive end
local h = redis.call('HMGET', R, 'version', 'page', 'step', 'controls', 'poll_id')
local options, revealed = false, 0
if h[5] ~= '' then
  options = redis.call('HGET', R .. ':polls', h[5])
  revealed = redis.call('SISMEMBER', R .. ':revealed', h[5])
end
return {h[1], h[2], h[3], h[4], h[5], options, revealed}
"""

# ARGV: now  (a version check found the room past its time: delete it, as it is seen)
_EXPIRE = _LUA + """
return check_alive(tonumber(ARGV[1]))
"""

# ARGV: follower_id, now, max_followers, follower_ttl
_HEARTBEAT = _LUA + """
local now = tonumber(ARGV[2])
local alive = check_alive(now); if alive ~= 0 then return alive end
local F = R .. ':followers'
if redis.call('HEXISTS', F, ARGV[1]) == 0 and redis.call('HLEN', F) >= tonumber(ARGV[3]) then
  local kv = redis.call('HGETALL', F)
  for i = 1, #kv, 2 do
    if now - tonumber(kv[i + 1]) > tonumber(ARGV[4]) then redis.call('HDEL', F, kv[i]) end
  end
  if redis.call('HLEN', F) >= tonumber(ARGV[3]) then return -3 end
end
redis.call('HSET', F, ARGV[1], ARGV[2])
with_room_ttl(F)
return 0
"""

# ARGV: now, follower_ttl   (stale heartbeats are forgotten, so the hash stays as small as the class)
_FOLLOWERS = _LUA + """
local now = tonumber(ARGV[1])
local alive = check_alive(now); if alive ~= 0 then return alive end
local F = R .. ':followers'
local kv = redis.call('HGETALL', F)
for i = 1, #kv, 2 do
  if now - tonumber(kv[i + 1]) > tonumber(ARGV[2]) then redis.call('HDEL', F, kv[i]) end
end
return redis.call('HLEN', F)
"""

# ARGV: poll_id, follower_id, option, now, max_answers  -> 1 counted, 0 dropped, or an error number
_ANSWER = _LUA + """
local alive = check_alive(tonumber(ARGV[4])); if alive ~= 0 then return alive end
local id = ARGV[1]
if redis.call('HGET', R, 'poll_id') ~= id or redis.call('SISMEMBER', R .. ':revealed', id) == 1 then return 0 end
if redis.call('HEXISTS', R .. ':counts:' .. id, ARGV[3]) == 0 then return 0 end
local C, chosen = R .. ':chosen:' .. id, R .. ':counts:' .. id
local before = redis.call('HGET', C, ARGV[2])
if not before and redis.call('HLEN', C) >= tonumber(ARGV[5]) then return 0 end
if before then redis.call('HINCRBY', chosen, before, -1) end
redis.call('HSET', C, ARGV[2], ARGV[3])
with_room_ttl(C)
redis.call('HINCRBY', chosen, ARGV[3], 1)
return 1
"""

# Redis down, restarting or loading its data (BusyLoadingError is a ConnectionError), or a replica
# that cannot take writes: the lesson keeps working and the page says it is reconnecting.
_UNREACHABLE = (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError, redis.exceptions.ReadOnlyError)


RETRY_AFTER_S = 1.0     # after a failure, calls fail at once for this long; then one call tries Redis again


def _mapped(method):
    """Redis unreachable -> StoreUnavailable. A hung Redis makes each call wait for its timeout, so after
    one failure the store answers StoreUnavailable at once for RETRY_AFTER_S (a circuit breaker): a
    replica's hundred followers then cost one timed-out call a second, not a hundred."""

    @functools.wraps(method)
    def wrapper(self, *args, **kwargs):
        if time.monotonic() < self._down_until:
            raise StoreUnavailable("Reconnecting to the class…")
        try:
            return method(self, *args, **kwargs)
        except _UNREACHABLE as e:
            self._down_until = time.monotonic() + RETRY_AFTER_S
            raise StoreUnavailable("Reconnecting to the class…") from e

    return wrapper


def _key_hash(key: object) -> str:
    """SHA-256 of the key; a value that cannot be a key gets a hash no room holds (the scripts still
    check that the room exists first, so an unknown room is reported as such)."""
    if not isinstance(key, str) or not 0 < len(key) <= 64:
        return "-"
    return hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()


def _controls_json(controls: dict[str, list[str]]) -> str:
    """One spelling per view, so an unchanged view compares equal and keeps its version."""
    return json.dumps(controls, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


class RedisRoomStore:
    """``classroom.store.RoomStore`` on one Redis (the module docstring has the layout)."""

    def __init__(self, client: redis.Redis, max_rooms: int = MAX_ROOMS, max_followers: int = MAX_FOLLOWERS,
                 max_polls: int = MAX_POLLS, prefix: str = "attention:") -> None:
        self.r = client
        self.max_rooms, self.max_followers, self.max_polls = max_rooms, max_followers, max_polls
        self.prefix = prefix
        self.rooms_key = prefix + "rooms"
        self.url: str | None = None                    # set by from_url: listen() opens its own connection
        self._down_until = 0.0                          # see _mapped
        scripts = {"create": _CREATE, "publish": _PUBLISH, "open_poll": _OPEN_POLL, "close_poll": _CLOSE_POLL,
                   "reveal": _REVEAL, "end": _END, "snapshot": _SNAPSHOT, "expire": _EXPIRE,
                   "heartbeat": _HEARTBEAT, "followers": _FOLLOWERS, "answer": _ANSWER}
        self._scripts = {name: client.register_script(text) for name, text in scripts.items()}

    @classmethod
    def from_url(cls, url: str, **limits) -> RedisRoomStore:
        """A store on ``redis://host:port/db``. Nothing connects yet. Short timeouts, so a follower's poll
        never hangs a page, and one quick retry, so a dropped connection (a Redis restart) is ridden over."""
        client = redis.Redis.from_url(
            url, decode_responses=True, socket_connect_timeout=0.5, socket_timeout=1.0,
            retry=Retry(ExponentialBackoff(cap=0.2, base=0.02), 1), health_check_interval=30,
            client_name="attention-classroom")
        store = cls(client, **limits)
        store.url = url
        return store

    # --- changes, across replicas ------------------------------------------------------------------------
    @property
    def changes_channel(self) -> str:
        return self.prefix + "changed"

    def announce(self, code: str, section: tuple[str, str] | None = None) -> None:
        """Tell every replica that room ``code`` changed (Redis PUBLISH), and in which lesson section
        (page slug, fragment name) when the change lies inside one; best effort: followers also poll."""
        message = code if section is None else " ".join((code, *section))
        try:
            self.r.publish(self.changes_channel, message)
        except redis.RedisError:
            pass

    def listen(self, on_change) -> threading.Thread:
        """Call ``on_change(code, section)`` on a daemon thread for each room any replica announces (section
        None, or the (slug, fragment name) the change lies in). Its own connection, without a read timeout
        (it waits for messages); it reconnects after Redis goes away."""
        url = self.url

        def run() -> None:
            while True:
                try:
                    client = (redis.Redis.from_url(url, decode_responses=True, socket_connect_timeout=2,
                                                   health_check_interval=30, client_name="attention-changes")
                              if url else self.r)
                    pubsub = client.pubsub(ignore_subscribe_messages=True)
                    pubsub.subscribe(self.changes_channel)
                    for message in pubsub.listen():
                        if message.get("type") == "message" and isinstance(message.get("data"), str):
                            on_change(*changed_room(message["data"]))
                except Exception:                      # Redis away, or a wake failed: wait, then listen again
                    time.sleep(1.0)

        thread = threading.Thread(target=run, name="attention-classroom-changes", daemon=True)
        thread.start()
        return thread

    # --- helpers --------------------------------------------------------------------------------------
    def _room(self, code: object) -> tuple[str, str]:
        """(code, its room key), with the code validated before any lookup."""
        normal = normal_code(code)
        if normal is None:
            raise UnknownRoom(_MESSAGES[_UNKNOWN][1])
        return normal, f"{self.prefix}room:{{{normal}}}"

    def _run(self, script: str, room: str, args: list) -> int | list:
        result = self._scripts[script](keys=[room], args=args)
        if isinstance(result, int) and result in _MESSAGES:
            kind, message = _MESSAGES[result]
            raise kind(message)
        if result == _FULL:
            raise RoomFull({"heartbeat": f"This class is full ({self.max_followers} students).",
                            "open_poll": f"This class has asked its {self.max_polls} questions; "
                                         "start a new class to ask more."}.get(script, "This class is full."))
        return result

    def _presenter_args(self, code: str, key: object, now: float) -> list:
        return [_key_hash(key), repr(float(now)), repr(float(now) + ROOM_TTL_S), REDIS_TTL_S, self.rooms_key,
                code]

    # --- the RoomStore interface ------------------------------------------------------------------------
    @_mapped
    def create_room(self, now: float) -> tuple[str, str]:
        key = secrets.token_urlsafe(16)                                    # 128 random bits
        while True:                                    # 31⁶ ≈ 887 million codes: a clash is rare
            code, room = self._room("".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH)))
            result = self._scripts["create"](
                keys=[room], args=[_key_hash(key), repr(float(now)), repr(float(now) + ROOM_TTL_S), REDIS_TTL_S,
                                   self.rooms_key, code, self.max_rooms, f"{self.prefix}room:"])
            if result == _FULL:
                raise RoomFull("This server is running as many classes as it can; try again later.")
            if result == 0:
                return code, key

    @_mapped
    def end_room(self, code: str, key: str) -> None:
        code, room = self._room(code)
        self._run("end", room, [_key_hash(key), self.rooms_key, code])

    @_mapped
    def is_presenter(self, code: str, key: str) -> bool:
        normal = normal_code(code)
        digest = _key_hash(key)
        if normal is None or digest == "-":
            return False
        stored = self.r.hget(self._room(normal)[1], "key_hash")
        return stored is not None and hmac.compare_digest(stored.encode(), digest.encode())

    @_mapped
    def publish(self, code: str, key: str, page: str, step: int, controls: dict[str, list[str]],
                now: float) -> int:
        controls = check_controls(page, step, controls)
        code, room = self._room(code)
        return self._run("publish", room, [*self._presenter_args(code, key, now), page, str(step),
                                           _controls_json(controls)])

    @_mapped
    def version(self, code: str, now: float) -> int:
        """One HMGET: the version and the room's time. Only a room found past its time costs a second call."""
        _, room = self._room(code)
        version, until = self.r.hmget(room, "version", "until")
        if version is None or until is None:
            raise UnknownRoom(_MESSAGES[_UNKNOWN][1])
        if float(until) < now:
            self._run("expire", room, [repr(float(now))])
        return int(version)

    @_mapped
    def snapshot(self, code: str, now: float) -> Snapshot:
        _, room = self._room(code)
        version, page, step, controls, poll_id, options, revealed = self._run("snapshot", room, [repr(float(now))])
        poll = Poll(poll_id, tuple(json.loads(options)), bool(revealed)) if poll_id and options else None
        return Snapshot(int(version), page, int(step), json.loads(controls), poll)

    @_mapped
    def heartbeat(self, code: str, follower_id: str, now: float) -> None:
        check_follower_id(follower_id)
        _, room = self._room(code)
        self._run("heartbeat", room, [follower_id, repr(float(now)), self.max_followers, FOLLOWER_TTL_S])

    @_mapped
    def follower_count(self, code: str, now: float) -> int:
        _, room = self._room(code)
        return int(self._run("followers", room, [repr(float(now)), FOLLOWER_TTL_S]))

    @_mapped
    def open_poll(self, code: str, key: str, poll_id: str, options: tuple[str, ...], now: float) -> int:
        options = check_poll(poll_id, options)
        code, room = self._room(code)
        return self._run("open_poll", room, [*self._presenter_args(code, key, now), poll_id,
                                             json.dumps(list(options), ensure_ascii=False), self.max_polls])

    @_mapped
    def close_poll(self, code: str, key: str, now: float) -> int:
        code, room = self._room(code)
        return self._run("close_poll", room, self._presenter_args(code, key, now))

    @_mapped
    def answer(self, code: str, poll_id: str, follower_id: str, option: str, now: float) -> bool:
        if not isinstance(option, str) or not isinstance(poll_id, str):
            return False
        check_follower_id(follower_id)
        _, room = self._room(code)
        if len(poll_id) > MAX_NAME_CHARS or len(option) > MAX_OPTION_CHARS:
            return False                               # cannot be the open question's option: not sent
        return self._run("answer", room, [poll_id, follower_id, option, repr(float(now)), self.max_followers]) == 1

    @_mapped
    def poll_counts(self, code: str, poll_id: str) -> dict[str, int]:
        _, room = self._room(code)
        if not isinstance(poll_id, str) or len(poll_id) > MAX_NAME_CHARS:
            raise UnknownRoom(_MESSAGES[_NOT_ASKED][1])
        with self.r.pipeline(transaction=False) as p:                     # one round trip
            p.hget(room + ":polls", poll_id)
            p.hgetall(f"{room}:counts:{poll_id}")
            options, counts = p.execute()
        if options is None:
            raise UnknownRoom(_MESSAGES[_NOT_ASKED][1])
        return {o: int(counts.get(o, 0)) for o in json.loads(options)}

    @_mapped
    def reveal_poll(self, code: str, key: str, poll_id: str, now: float) -> int:
        code, room = self._room(code)
        if not isinstance(poll_id, str) or not 0 < len(poll_id) <= MAX_NAME_CHARS:
            raise UnknownRoom(_MESSAGES[_NOT_ASKED][1])
        return self._run("reveal", room, [*self._presenter_args(code, key, now), poll_id])


__all__ = ["RedisRoomStore", "RoomError"]


def changed_room(message: str) -> tuple[str, tuple[str, str] | None]:
    """An announcement read back: (room code, section or None). Anything malformed names no section
    (followers then rerun the whole page, which is always right)."""
    parts = message[:200].split(" ")
    section = (parts[1], parts[2]) if len(parts) == 3 and all(0 < len(p) <= 64 for p in parts[1:]) else None
    return parts[0][:16], section
