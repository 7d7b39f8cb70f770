"""RedisRoomStore: the RoomStore every replica of the app shares through one Redis.

Layout, per room (``R`` = ``attention:room:{CODE}``; ``{CODE}`` is a hash tag, so a room's keys share a
cluster slot):

- ``R``               hash: key_hash, version, page, step, controls (JSON), poll_id ("" for none), check,
                      until (the presenter's last action + ROOM_TTL_S), active (the last presenter action or
                      student heartbeat), owner (the hashed address that started it), locked ("1"/"0")
- ``R:followers``     sorted set: follower id -> last heartbeat (``now``); live ones are found by score
- ``R:polls``         hash: poll id -> its options (JSON); its size is the room's poll count
- ``R:meta``          hash: poll id -> JSON {lesson, text, right, asked: [time per round], past: [counts]}
- ``R:revealed``      set of the poll ids revealed
- ``R:final``         hash: poll id -> the tally frozen at its reveal (JSON)
- ``R:check``         set of the poll ids of the open check (the room's ``check`` field: JSON {id, round, polls})
- ``R:counts:ID``     hash per poll: option -> how many chose it in the current round
- ``R:chosen:ID``     hash per poll: follower id -> option, so a changed answer moves one count;
                      deleted at the reveal, after which only the counts remain
- ``R:known``         set of hashed addresses that found the room (never rate limited for it)
- ``attention:rooms`` sorted set: code -> until; ``attention:active``: code -> active (the limit, idleness)
- ``attention:results:{CODE}``  an ended class's results (counts only), for RESULTS_TTL_S
- ``attention:owner:A``, ``attention:started:A``, ``attention:tries:A`` (A a hashed address) and
  ``attention:failures``: sorted sets of times, for the limits per address and per server

Every key of a room has a Redis TTL of ROOM_TTL_S plus a minute, refreshed while the presenter is
active, so an abandoned room disappears by itself. Expiry as the interface defines it compares the
room's times with the ``now`` passed in (tests need not wait); a room found expired is deleted then and
there, as the in-process store does. The Redis TTL is the real-time collector behind it.

Round trips: a follower's version check is one HMGET. Everything else is one EVALSHA of a script
(classroom/redis_scripts.py) or one pipeline. Redis unreachable or restarting: ``StoreUnavailable``.
"""

from __future__ import annotations

import hmac
import json
import secrets
import time

import redis
from redis.backoff import ExponentialBackoff
from redis.retry import Retry

from classroom import redis_lua as lua, results as cr
from classroom.redis_calls import RETRY_AFTER_S, key_hash as _key_hash, mapped as _mapped
from classroom.redis_changes import Changes, changed_room
from classroom.redis_lua import REDIS_TTL_S
from classroom.redis_questions import NOT_ASKED, RedisQuestions
from classroom.redis_scripts import SCRIPTS
from classroom.store import (
    CODE_ALPHABET,
    CODE_LENGTH,
    JOIN_TOKEN_CHARS,
    LIVE_CLASSES_PER_ADDRESS,
    MAX_FOLLOWERS,
    MAX_POLLS,
    MAX_ROOMS_REDIS,
    MAX_ROUNDS,
    NEW_STUDENTS,
    ROOM_IDLE_S,
    Check,
    NoSuchOption,
    NotFollowing,
    NotOpen,
    NotPresenter,
    Outdated,
    Poll,
    RateLimited,
    RoomError,
    RoomFull,
    RoomLocked,
    Snapshot,
    UnknownRoom,
    VotersFull,
    address_id,
    check_controls,
    check_follower_id,
    normal_code,
    students_per_address,
    too_many_students,
)

UNKNOWN = "There is no class with that code: it may have ended, or the code is mistyped."
REFUSED = {
    lua.UNKNOWN: (UnknownRoom, UNKNOWN),
    lua.EXPIRED: (UnknownRoom, "That class has ended: its presenter has been away for over 4 hours."),
    lua.IDLE: (UnknownRoom, "That class has ended: no one was in it for 30 minutes."),
    lua.NOT_PRESENTER: (NotPresenter, "Only the presenter of this class can do that."),
    lua.NOT_ASKED: (UnknownRoom, NOT_ASKED),
    lua.LOCKED: (RoomLocked, "The presenter has locked this class: no one new can join it now."),
    lua.NO_RESULTS: (UnknownRoom, "There are no results for that class: they are kept for 24 hours."),
    lua.NOT_OPEN: (NotOpen, None), lua.NO_SUCH_OPTION: (NoSuchOption, None),
    lua.NOT_FOLLOWING: (NotFollowing, None), lua.VOTERS_FULL: (VotersFull, None),
    lua.CHECK_CLASH: (ValueError, "a question of the check was asked with other options or is past this round"),
    lua.NO_CHECK: (UnknownRoom, "No check is open in this class."),
    lua.OUTDATED: (Outdated, None),
}

def _controls_json(controls: dict[str, list[str]]) -> str:
    """One spelling per view, so an unchanged view compares equal and keeps its version."""
    return json.dumps(controls, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _t(now: float) -> str:
    return repr(float(now))


class RedisRoomStore(RedisQuestions, Changes):
    """``classroom.store.RoomStore`` on one Redis (the module docstring has the layout)."""

    def __init__(self, client: redis.Redis, max_rooms: int = MAX_ROOMS_REDIS, max_followers: int = MAX_FOLLOWERS,
                 max_polls: int = MAX_POLLS, prefix: str = "attention:") -> None:
        self.r = client
        self.max_rooms, self.max_followers, self.max_polls = max_rooms, max_followers, max_polls
        self.prefix = prefix
        self.rooms_key = prefix + "rooms"
        self.url: str | None = None                    # set by from_url: listen() opens its own connection
        self._down_until = 0.0                          # see _mapped
        self._scripts = {name: client.register_script(lua.lua(text)) for name, text in SCRIPTS.items()}

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

    # --- helpers --------------------------------------------------------------------------------------
    def _room(self, code: object) -> tuple[str, str]:
        """(code, its room key), with the code validated before any lookup."""
        normal = normal_code(code)
        if normal is None:
            raise UnknownRoom(UNKNOWN)
        return normal, f"{self.prefix}room:{{{normal}}}"

    def _run(self, script: str, code: object, now: float, *args) -> int | list | str:
        """Run a script on room ``code``; a refusal it returns raised as its exception."""
        normal, room = self._room(code)
        result = self._scripts[script](keys=[room], args=[_t(now), normal, self.prefix, *args])
        if isinstance(result, int) and result in REFUSED:
            kind, message = REFUSED[result]
            raise kind(message) if message else kind()
        if result == lua.FULL:
            raise RoomFull({"heartbeat": f"This class is full ({self.max_followers} students).",
                            "open_poll": f"This class has asked its {self.max_polls} questions; "
                                         "start a new class to ask more.",
                            "open_check": f"This class has asked its {self.max_polls} questions; "
                                          "start a new class to ask more.",
                            "ask_again": f"This question has had its {MAX_ROUNDS} votes."}.get(script,
                                                                                                "This class is full."))
        return result

    # --- the RoomStore interface ------------------------------------------------------------------------
    @_mapped
    def create_room(self, now: float, *, address: str | None = None) -> tuple[str, str]:
        key = secrets.token_urlsafe(16)                                    # 128 random bits
        owner = "" if address is None else address_id(address)
        while True:                                    # 31⁶ ≈ 887 million codes: a clash is rare
            code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
            result = self._run("create", code, now, _key_hash(key), self.max_rooms, owner, secrets.token_hex(8))
            if result == lua.FULL:
                raise RoomFull("This server is running as many classes as it can; try again later.")
            if isinstance(result, list):
                why = (f"You are already running {LIVE_CLASSES_PER_ADDRESS} classes: end one to start another."
                       if result[0] == lua.TOO_MANY_LIVE
                       else "You have started many classes this hour: try again later.")
                raise RateLimited(why, float(result[1]))
            if result == 0:
                return code, key

    @_mapped
    def end_room(self, code: str, key: str) -> None:
        self._run("end", code, time.time(), _key_hash(key))

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
                now: float, *, base: int | None = None) -> int:
        controls = check_controls(page, step, controls)
        return self._run("publish", code, now, _key_hash(key), page, str(step), _controls_json(controls),
                         "" if base is None else str(int(base)))

    @_mapped
    def version(self, code: str, now: float) -> int:
        """One HMGET: the version and the room's times. Only a room found past its time costs a second call."""
        _, room = self._room(code)
        version, until, active = self.r.hmget(room, "version", "until", "active")
        if version is None or until is None or active is None:
            raise UnknownRoom(UNKNOWN)
        if float(until) < now or float(active) + ROOM_IDLE_S < now:
            self._run("expire", code, now)
        return int(version)

    @_mapped
    def snapshot(self, code: str, now: float) -> Snapshot:
        fields = self._run("snapshot", code, now)
        version, page, step, controls, poll_id, options, revealed, check, shown, rounds, text, right = fields
        poll = (Poll(poll_id, tuple(json.loads(options)), bool(revealed), int(rounds), text or "", right or "")
                if poll_id and options else None)
        if check:
            spec = json.loads(check)
            check = Check(spec["id"], tuple(spec["polls"]), int(spec["round"]), bool(shown))
        return Snapshot(int(version), page, int(step), json.loads(controls), poll, check or None)

    @_mapped
    def find_room(self, code: str, address: str | None, now: float, *, token: str | None = None) -> str:
        normal = normal_code(code) or "------"          # a code that cannot be one still counts as a failure
        token = token if isinstance(token, str) and len(token) == JOIN_TOKEN_CHARS else ""
        result = self._scripts["find"](keys=[f"{self.prefix}room:{{{normal}}}"],
                                       args=[_t(now), normal, self.prefix, address_id(address), secrets.token_hex(8),
                                             token])
        if result[0] == lua.WAIT:
            raise RateLimited("Too many class codes were tried: wait a moment, then type the code again.",
                              float(result[1]))
        if result[0] != 0:
            raise UnknownRoom(UNKNOWN)
        return normal

    @_mapped
    def heartbeat(self, code: str, follower_id: str, now: float, *, address: str | None = None) -> None:
        check_follower_id(follower_id)
        cap = students_per_address()
        result = self._run("heartbeat", code, now, follower_id, self.max_followers,
                           "" if address is None else address_id(address), cap, secrets.token_hex(8))
        if isinstance(result, list):
            raise RateLimited(NEW_STUDENTS if result[0] == lua.WAIT else too_many_students(cap), float(result[1]))

    @_mapped
    def follower_count(self, code: str, now: float, *, key: str | None = None) -> int:
        return int(self._run("followers", code, now, "" if key is None else _key_hash(key)))

    @_mapped
    def lock(self, code: str, key: str, now: float) -> None:
        self._run("lock", code, now, _key_hash(key), "1")

    @_mapped
    def unlock(self, code: str, key: str, now: float) -> None:
        self._run("lock", code, now, _key_hash(key), "0")

    @_mapped
    def locked(self, code: str, now: float) -> bool:
        return self._run("locked", code, now) == 1

    @_mapped
    def results(self, code: str, key: str, now: float) -> cr.ClassResults:
        normal, _ = self._room(code)
        _, ended_at, questions = json.loads(self._run("results", code, now, _key_hash(key)))
        return cr.ClassResults(normal, ended_at or None, tuple(sorted(
            (_question(q) for q in (questions or [])), key=lambda q: (q.rounds[0].asked_at, q.poll_id))))


def _question(stored: list) -> cr.Question:
    """A question as the scripts collect it: [id, options JSON, meta JSON, current counts as k, v, k, v…, the
    students present now] (results kept before the last item was collected have four items)."""
    poll_id, options_json, meta_json, flat = stored[:4]
    options = tuple(json.loads(options_json))
    meta = json.loads(meta_json) if meta_json else {}
    current = dict(zip(flat[::2], flat[1::2], strict=True)) if isinstance(flat, list) else {}
    past = meta.get("past") or []
    asked = meta.get("asked") or [0.0]
    every = [*(p if isinstance(p, dict) else {} for p in past), current]
    present = meta.get("present") if isinstance(meta.get("present"), list) else []
    present = [*present, *[None] * (len(past) - len(present)), stored[4] if len(stored) > 4 else None]
    rounds = tuple(cr.Round(i + 1, float(asked[min(i, len(asked) - 1)]), {o: int(c.get(o, 0)) for o in options},
                            None if present[i] is None else int(present[i]))
                   for i, c in enumerate(every))
    right = meta.get("right")
    return cr.Question(poll_id, meta.get("lesson") or "", meta.get("text") or "", options,
                       right if isinstance(right, str) else None, rounds)


__all__ = ["REDIS_TTL_S", "RETRY_AFTER_S", "RedisRoomStore", "RoomError", "changed_room"]
