"""The in-process room store: one per server process, a dict under a lock.

Enough for a single Streamlit process (Community Cloud). Every read and write takes one lock for a
few dict operations, so sixty followers polling once a second never contend for long. Announcements
go straight to this process's listeners.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import secrets
import threading
from dataclasses import dataclass, field

from classroom import results as cr
from classroom.memory_polls import PollState, results_of
from classroom.memory_questions import MemoryQuestions
from classroom.store import (
    CODE_ALPHABET,
    CODE_LENGTH,
    EVICT_IDLE_S,
    FOLLOWER_TTL_S,
    KNOWN_ADDRESSES_PER_ROOM,
    LIVE_CLASSES_PER_ADDRESS,
    MAX_FOLLOWERS,
    MAX_POLLS,
    MAX_ROOMS,
    NEW_STUDENTS,
    PRESENTER_GONE_S,
    REJOIN_GRACE_S,
    RESULTS_TTL_S,
    ROOM_IDLE_S,
    ROOM_TTL_S,
    Check,
    NotPresenter,
    Outdated,
    Poll,
    RateLimited,
    RoomFull,
    RoomLocked,
    Snapshot,
    UnknownRoom,
    address_id,
    check_controls,
    check_follower_id,
    join_token_of,
    normal_code,
    students_per_address,
    too_many_students,
)
from classroom.throttle import MAX_ADDRESSES, Counts

_LOGGER = logging.getLogger(__name__)
MAX_KEPT_RESULTS = 4 * MAX_ROOMS                   # ended classes' results kept at once (24 hours each)

UNKNOWN = "There is no class with that code: it may have ended, or the code is mistyped."


def _key_hash(key: str) -> bytes:
    return hashlib.sha256(key.encode("utf-8")).digest()


@dataclass
class _Room:
    key_hash: bytes
    presenter_seen: float
    active: float = 0.0                          # the last presenter action or student heartbeat
    owner: str = "-"                             # the hashed address that started it
    version: int = 1
    page: str = ""
    step: int = 0
    controls: dict[str, list[str]] = field(default_factory=dict)
    poll_id: str | None = None
    check: tuple[str, tuple[str, ...], int] | None = None   # the open check: (check id, poll ids, round)
    polls: dict[str, PollState] = field(default_factory=dict)
    followers: dict[str, float] = field(default_factory=dict)
    locked: bool = False
    known: set[str] = field(default_factory=set)  # hashed addresses that found it
    code: str = ""
    addresses: dict[str, str] = field(default_factory=dict)   # follower id -> the hashed address it joined from
    presenter_here: float = 0.0                  # the presenter's last action or panel read

    def live_followers(self, now: float) -> set[str]:
        return {f for f, seen in self.followers.items() if now - seen <= FOLLOWER_TTL_S}

    def is_open(self, poll_id: str) -> bool:
        """The open question, or one of the open check's."""
        return poll_id == self.poll_id or (self.check is not None and poll_id in self.check[1])


class _Listening:
    def __init__(self, listeners: list, on_change) -> None:
        self._listeners, self._on_change = listeners, on_change

    def stop(self) -> None:
        if self._on_change in self._listeners:
            self._listeners.remove(self._on_change)


class MemoryRoomStore(MemoryQuestions):
    """``classroom.store.RoomStore`` in one process's memory."""

    def __init__(self, max_rooms: int = MAX_ROOMS, max_followers: int = MAX_FOLLOWERS,
                 max_polls: int = MAX_POLLS) -> None:
        self._lock = threading.Lock()
        self._rooms: dict[str, _Room] = {}
        self._ended: dict[str, tuple[bytes, float, cr.ClassResults]] = {}   # code -> (key hash, until, results)
        self._counts = Counts()
        self._students: dict[str, dict[tuple[str, str], float]] = {}   # address -> (room, follower) -> last beat
        self._listeners: list = []
        self.max_rooms, self.max_followers, self.max_polls = max_rooms, max_followers, max_polls

    # --- helpers (call with the lock held) ---------------------------------------------------------

    def _live(self, code: str, now: float) -> _Room:
        code = normal_code(code)
        room = self._rooms.get(code) if code else None
        if room is None:
            raise UnknownRoom(UNKNOWN)
        if now - room.presenter_seen > ROOM_TTL_S:
            self._close(code, now)
            raise UnknownRoom("That class has ended: its presenter has been away for over 4 hours.")
        if now - room.active > ROOM_IDLE_S:
            self._close(code, now)
            raise UnknownRoom("That class has ended: no one was in it for 30 minutes.")
        return room

    def _presenting(self, code: str, key: str, now: float) -> _Room:
        room = self._live(code, now)
        if not _key_matches(room.key_hash, key):
            raise NotPresenter("Only the presenter of this class can do that.")
        room.presenter_seen = room.active = max(room.active, now)
        room.presenter_here = max(room.presenter_here, now)
        return room

    def _close(self, code: str, now: float) -> None:
        """The room goes; its results stay for RESULTS_TTL_S."""
        room = self._rooms.pop(code)
        for gone in [c for c, (_, until, _) in self._ended.items() if until < now]:
            del self._ended[gone]
        while len(self._ended) >= MAX_KEPT_RESULTS:
            del self._ended[next(iter(self._ended))]
        # Who was present when the class ended: at its last action or heartbeat (an idle room closes long after).
        present = room.live_followers(min(now, max(room.active, room.presenter_seen)))
        self._ended[code] = (room.key_hash, now + RESULTS_TTL_S, results_of(code, room.polls, now, present))

    def _sweep(self, now: float) -> None:
        for code, room in list(self._rooms.items()):
            if now - room.presenter_seen > ROOM_TTL_S or now - room.active > ROOM_IDLE_S:
                self._close(code, now)

    def _evict_idle(self, now: float) -> bool:
        """At the room limit: close the idlest room whose presenter is gone (unheard from for PRESENTER_GONE_S)."""
        gone = [c for c, room in self._rooms.items() if now - room.presenter_here > PRESENTER_GONE_S]
        code = min(gone, key=lambda c: self._rooms[c].active, default=None)
        if code is None:
            return False
        self._close(code, now)
        return True

    def _snapshot(self, room: _Room) -> Snapshot:
        poll = None
        if room.poll_id is not None:
            state = room.polls[room.poll_id]
            own = room.poll_id.startswith(cr.OWN_PREFIX)
            poll = Poll(room.poll_id, state.options, state.revealed, max(1, len(state.asked)),
                        state.info.text if own else "", (state.info.right or "") if own and state.revealed else "")
        check = None
        if room.check is not None:
            check_id, ids, round_ = room.check
            check = Check(check_id, ids, round_, all(room.polls[i].revealed for i in ids))
        controls = {name: list(values) for name, values in room.controls.items()}
        return Snapshot(room.version, room.page, room.step, controls, poll, check)

    # --- the RoomStore interface -------------------------------------------------------------------

    def create_room(self, now: float, *, address: str | None = None) -> tuple[str, str]:
        key = secrets.token_urlsafe(16)                 # 128 random bits
        owner = address_id(address)
        with self._lock:
            self._sweep(now)
            if address is not None:
                self._may_start(owner, now)
            if len(self._rooms) >= self.max_rooms and not self._evict_idle(now):
                raise RoomFull("This server is running as many classes as it can; try again later.")
            code = _new_code()
            while code in self._rooms or code in self._ended:
                code = _new_code()
            self._rooms[code] = _Room(_key_hash(key), presenter_seen=now, active=now, owner=owner, code=code,
                                      presenter_here=now)
            if address is not None:
                self._counts.started(owner, now)
        return code, key

    def _may_start(self, owner: str, now: float) -> None:
        if sum(room.owner == owner for room in self._rooms.values()) >= LIVE_CLASSES_PER_ADDRESS:
            raise RateLimited(f"You are already running {LIVE_CLASSES_PER_ADDRESS} classes: end one to start "
                              "another.", EVICT_IDLE_S)
        wait = self._counts.start_wait(owner, now)
        if wait > 0:
            raise RateLimited("You have started many classes this hour: try again later.", wait)

    def end_room(self, code: str, key: str) -> None:
        code = normal_code(code) or ""
        with self._lock:
            room = self._rooms.get(code)                # an expired room can still be ended
            if room is None:
                raise UnknownRoom("There is no class with that code: it may have ended already.")
            if not _key_matches(room.key_hash, key):
                raise NotPresenter("Only the presenter of this class can end it.")
            self._close(code, max(room.active, room.presenter_seen))

    def is_presenter(self, code: str, key: str) -> bool:
        with self._lock:
            room = self._rooms.get(normal_code(code) or "")
            return room is not None and _key_matches(room.key_hash, key)

    def publish(self, code: str, key: str, page: str, step: int, controls: dict[str, list[str]],
                now: float, *, base: int | None = None) -> int:
        controls = check_controls(page, step, controls)
        with self._lock:
            room = self._presenting(code, key, now)
            if (page, step, controls) != (room.page, room.step, room.controls):
                if base is not None and base != room.version:
                    raise Outdated()
                room.page, room.step, room.controls = page, step, controls
                room.version += 1
            return room.version

    def version(self, code: str, now: float) -> int:
        with self._lock:
            return self._live(code, now).version

    def snapshot(self, code: str, now: float) -> Snapshot:
        with self._lock:
            return self._snapshot(self._live(code, now))

    def find_room(self, code: str, address: str | None, now: float, *, token: str | None = None) -> str:
        who, normal = address_id(address), normal_code(code)
        with self._lock:
            try:
                room = self._live(normal or "", now)
            except UnknownRoom:
                room = None
            if room is not None and isinstance(token, str) and hmac.compare_digest(
                    token.encode("utf-8", "replace"), join_token_of(room.key_hash.hex()).encode()):
                if len(room.known) < KNOWN_ADDRESSES_PER_ROOM:
                    room.known.add(who)
                return normal                           # the join link (or its QR code): never limited
            if room is not None and who in room.known:
                return normal                           # a room this address found before: never limited
            if self._counts.lookup_wait(who, now) > 0:
                self._counts.attempt(who, now, failed=False)
                wait = self._counts.lookup_wait(who, now)   # this attempt made the wait longer: say by how much
                raise RateLimited("Too many class codes were tried: wait a moment, then type the code again.",
                                  wait)
            if room is None:
                self._counts.attempt(who, now, failed=True)
                raise UnknownRoom(UNKNOWN)
            if len(room.known) < KNOWN_ADDRESSES_PER_ROOM:
                room.known.add(who)
            return normal

    def heartbeat(self, code: str, follower_id: str, now: float, *, address: str | None = None) -> None:
        check_follower_id(follower_id)
        with self._lock:
            room = self._live(code, now)
            for gone in [f for f, seen in room.followers.items() if now - seen > REJOIN_GRACE_S]:
                del room.followers[gone]
                room.addresses.pop(gone, None)
            if follower_id not in room.followers and room.locked:
                raise RoomLocked("The presenter has locked this class: no one new can join it now.")
            live = room.live_followers(now)
            if follower_id not in live and len(live) >= self.max_followers:
                raise RoomFull(f"This class is full ({self.max_followers} students).")
            who = address_id(address) if address is not None else room.addresses.get(follower_id)
            if address is not None and follower_id not in room.followers:
                self._may_join(room.code, follower_id, who, now)
            if follower_id not in room.followers and len(room.followers) >= 2 * self.max_followers:
                gone = min(room.followers, key=room.followers.__getitem__)     # the longest gone
                del room.followers[gone]
                room.addresses.pop(gone, None)
            room.followers[follower_id] = now
            room.active = max(room.active, now)
            if who is not None:
                room.addresses[follower_id] = who
                self._students.setdefault(who, {})[(room.code, follower_id)] = now

    def _may_join(self, code: str, follower_id: str, who: str, now: float) -> None:
        """A student new to room ``code`` from address ``who``: paced, and capped per address (with the lock)."""
        wait = self._counts.new_student_wait(who, now)
        if wait > 0:
            raise RateLimited(NEW_STUDENTS, wait)
        mine = self._students.get(who, {})
        for gone in [k for k, seen in mine.items() if now - seen > FOLLOWER_TTL_S]:
            del mine[gone]
        cap = students_per_address()
        if (code, follower_id) not in mine and len(mine) >= cap:
            raise RateLimited(too_many_students(cap), FOLLOWER_TTL_S)
        self._counts.new_student(who, now)
        if who not in self._students and len(self._students) >= MAX_ADDRESSES:
            for stale in [a for a, m in self._students.items() if not m or max(m.values()) < now - FOLLOWER_TTL_S]:
                del self._students[stale]

    def follower_count(self, code: str, now: float, *, key: str | None = None) -> int:
        with self._lock:
            room = self._live(code, now)
            if key is not None and _key_matches(room.key_hash, key):
                room.presenter_here = max(room.presenter_here, now)
            return len(room.live_followers(now))

    def lock(self, code: str, key: str, now: float) -> None:
        with self._lock:
            self._presenting(code, key, now).locked = True

    def unlock(self, code: str, key: str, now: float) -> None:
        with self._lock:
            self._presenting(code, key, now).locked = False

    def locked(self, code: str, now: float) -> bool:
        with self._lock:
            return self._live(code, now).locked

    def results(self, code: str, key: str, now: float) -> cr.ClassResults:
        normal = normal_code(code) or ""
        with self._lock:
            self._sweep(now)
            room = self._rooms.get(normal)
            if room is not None:
                if not _key_matches(room.key_hash, key):
                    raise NotPresenter("Only the presenter of this class can see its results.")
                return results_of(normal, room.polls, None, room.live_followers(now))
            kept = self._ended.get(normal)
            if kept is None or kept[1] < now:
                raise UnknownRoom("There are no results for that class: they are kept for 24 hours.")
            if not _key_matches(kept[0], key):
                raise NotPresenter("Only the presenter of this class can see its results.")
            return kept[2]

    # --- announcements, in this process ------------------------------------------------------------

    def announce(self, code: str, section: tuple[str, str] | None = None) -> None:
        for on_change in list(self._listeners):
            try:
                on_change(code, section)
            except Exception:                           # one listener's failure must not stop the rest
                _LOGGER.exception("classroom: a change listener failed")

    def listen(self, on_change) -> _Listening:
        self._listeners.append(on_change)
        return _Listening(self._listeners, on_change)


def _new_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def _key_matches(key_hash: bytes, key: object) -> bool:
    if not isinstance(key, str) or not 0 < len(key) <= 64:
        return False                                    # no hashing of an attacker's megabyte
    return hmac.compare_digest(key_hash, _key_hash(key))
