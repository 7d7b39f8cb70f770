"""The in-process room store: one per server process, a dict under a lock.

Enough for a single Streamlit process (Community Cloud). Every read and write takes one lock for a
few dict operations, so sixty followers polling once a second never contend for long.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import threading
from dataclasses import dataclass, field

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
    RoomFull,
    Snapshot,
    UnknownRoom,
    check_controls,
    check_follower_id,
    check_poll,
    normal_code,
)


def _key_hash(key: str) -> bytes:
    return hashlib.sha256(key.encode("utf-8")).digest()


@dataclass
class _PollState:
    options: tuple[str, ...]
    counts: dict[str, int]
    # Which option each follower (an opaque random id, never a name) chose, so a changed answer moves
    # one count, not two; dropped at the reveal, after which only the counts remain.
    chosen: dict[str, str] = field(default_factory=dict)
    revealed: bool = False


@dataclass
class _Room:
    key_hash: bytes
    presenter_seen: float
    version: int = 1
    page: str = ""
    step: int = 0
    controls: dict[str, list[str]] = field(default_factory=dict)
    poll_id: str | None = None
    polls: dict[str, _PollState] = field(default_factory=dict)
    followers: dict[str, float] = field(default_factory=dict)


class MemoryRoomStore:
    """``classroom.store.RoomStore`` in one process's memory."""

    def __init__(self, max_rooms: int = MAX_ROOMS, max_followers: int = MAX_FOLLOWERS,
                 max_polls: int = MAX_POLLS) -> None:
        self._lock = threading.Lock()
        self._rooms: dict[str, _Room] = {}
        self.max_rooms, self.max_followers, self.max_polls = max_rooms, max_followers, max_polls

    # --- helpers (call with the lock held) ---------------------------------------------------------

    def _live(self, code: str, now: float) -> _Room:
        code = normal_code(code)
        room = self._rooms.get(code) if code else None
        if room is None:
            raise UnknownRoom("There is no class with that code: it may have ended, or the code is mistyped.")
        if now - room.presenter_seen > ROOM_TTL_S:
            del self._rooms[code]
            raise UnknownRoom("That class has ended: its presenter has been away for over 4 hours.")
        return room

    def _presenting(self, code: str, key: str, now: float) -> _Room:
        room = self._live(code, now)
        if not _key_matches(room, key):
            raise NotPresenter("Only the presenter of this class can do that.")
        room.presenter_seen = now
        return room

    def _sweep(self, now: float) -> None:
        for code in [c for c, r in self._rooms.items() if now - r.presenter_seen > ROOM_TTL_S]:
            del self._rooms[code]

    def _snapshot(self, room: _Room) -> Snapshot:
        poll = None
        if room.poll_id is not None:
            state = room.polls[room.poll_id]
            poll = Poll(room.poll_id, state.options, state.revealed)
        controls = {name: list(values) for name, values in room.controls.items()}
        return Snapshot(room.version, room.page, room.step, controls, poll)

    # --- the RoomStore interface -------------------------------------------------------------------

    def create_room(self, now: float) -> tuple[str, str]:
        key = secrets.token_urlsafe(16)                 # 128 random bits
        with self._lock:
            self._sweep(now)
            if len(self._rooms) >= self.max_rooms:
                raise RoomFull("This server is running as many classes as it can; try again later.")
            code = _new_code()
            while code in self._rooms:
                code = _new_code()
            self._rooms[code] = _Room(_key_hash(key), presenter_seen=now)
        return code, key

    def end_room(self, code: str, key: str) -> None:
        code = normal_code(code) or ""
        with self._lock:
            room = self._rooms.get(code)                # an expired room can still be ended
            if room is None:
                raise UnknownRoom("There is no class with that code: it may have ended already.")
            if not _key_matches(room, key):
                raise NotPresenter("Only the presenter of this class can end it.")
            del self._rooms[code]

    def is_presenter(self, code: str, key: str) -> bool:
        with self._lock:
            room = self._rooms.get(normal_code(code) or "")
            return room is not None and _key_matches(room, key)

    def publish(self, code: str, key: str, page: str, step: int, controls: dict[str, list[str]],
                now: float) -> int:
        controls = check_controls(page, step, controls)
        with self._lock:
            room = self._presenting(code, key, now)
            if (page, step, controls) != (room.page, room.step, room.controls):
                room.page, room.step, room.controls = page, step, controls
                room.version += 1
            return room.version

    def version(self, code: str, now: float) -> int:
        with self._lock:
            return self._live(code, now).version

    def snapshot(self, code: str, now: float) -> Snapshot:
        with self._lock:
            return self._snapshot(self._live(code, now))

    def heartbeat(self, code: str, follower_id: str, now: float) -> None:
        check_follower_id(follower_id)
        with self._lock:
            room = self._live(code, now)
            if follower_id not in room.followers and len(room.followers) >= self.max_followers:
                _forget_stale(room, now)
                if len(room.followers) >= self.max_followers:
                    raise RoomFull(f"This class is full ({self.max_followers} students).")
            room.followers[follower_id] = now

    def follower_count(self, code: str, now: float) -> int:
        with self._lock:
            room = self._live(code, now)
            _forget_stale(room, now)
            return len(room.followers)

    def open_poll(self, code: str, key: str, poll_id: str, options: tuple[str, ...], now: float) -> int:
        options = check_poll(poll_id, options)
        with self._lock:
            room = self._presenting(code, key, now)
            state = room.polls.get(poll_id)
            if state is None or state.options != options:
                if state is None and len(room.polls) >= self.max_polls:
                    raise RoomFull(f"This class has asked its {self.max_polls} questions; "
                                   "start a new class to ask more.")
                room.polls[poll_id] = _PollState(options, dict.fromkeys(options, 0))
            elif room.poll_id == poll_id:
                return room.version                     # already the open question: nothing changed
            room.poll_id = poll_id
            room.version += 1
            return room.version

    def close_poll(self, code: str, key: str, now: float) -> int:
        with self._lock:
            room = self._presenting(code, key, now)
            if room.poll_id is not None:
                room.poll_id = None
                room.version += 1
            return room.version

    def answer(self, code: str, poll_id: str, follower_id: str, option: str, now: float) -> bool:
        if not isinstance(option, str) or not isinstance(poll_id, str):
            return False
        check_follower_id(follower_id)
        with self._lock:
            room = self._live(code, now)
            if room.poll_id != poll_id:
                return False
            state = room.polls[poll_id]
            if state.revealed or option not in state.counts:
                return False
            previous = state.chosen.get(follower_id)
            if previous is None and len(state.chosen) >= self.max_followers:
                return False
            if previous is not None:
                state.counts[previous] -= 1
            state.chosen[follower_id] = option
            state.counts[option] += 1
            return True

    def poll_counts(self, code: str, poll_id: str) -> dict[str, int]:
        with self._lock:
            room = self._rooms.get(normal_code(code) or "")
            state = room.polls.get(poll_id) if room is not None and isinstance(poll_id, str) else None
            if state is None:
                raise UnknownRoom("That question was not asked in this class.")
            return dict(state.counts)

    def reveal_poll(self, code: str, key: str, poll_id: str, now: float) -> int:
        with self._lock:
            room = self._presenting(code, key, now)
            state = room.polls.get(poll_id) if isinstance(poll_id, str) else None
            if state is None:
                raise UnknownRoom("That question was not asked in this class.")
            if room.poll_id == poll_id and state.revealed:
                return room.version
            state.revealed = True
            state.chosen.clear()                        # counts only from here on
            room.poll_id = poll_id
            room.version += 1
            return room.version


def _new_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def _key_matches(room: _Room, key: object) -> bool:
    if not isinstance(key, str) or not 0 < len(key) <= 64:
        return False                                    # no hashing of an attacker's megabyte
    return hmac.compare_digest(room.key_hash, _key_hash(key))


def _forget_stale(room: _Room, now: float) -> None:
    stale = [f for f, seen in room.followers.items() if now - seen > FOLLOWER_TTL_S]
    for follower in stale:
        del room.followers[follower]
