"""How long an address, or the whole server, must wait: the rules both stores apply (the Redis one in Lua,
classroom/redis_scripts.py, with the same numbers from classroom/store.py), and the in-process bookkeeping.

Failed room-code lookups are kept as times within LOOKUP_WINDOW_S. An address with
LOOKUP_FAILURES_PER_ADDRESS of them waits BACKOFF_BASE_S after its last attempt, and every attempt made
while waiting counts too, so the wait doubles with each one (up to BACKOFF_MAX_S). The server, with
LOOKUP_FAILURES_PER_SERVER failures in the window, makes every address that has itself failed in the window
wait until the oldest leaves it (an address with no failure is never refused); attempts refused while waiting
do not count there, so one address can never make the server wait.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence

from classroom.store import (
    BACKOFF_BASE_S,
    BACKOFF_MAX_S,
    CLASSES_PER_HOUR_PER_ADDRESS,
    LOOKUP_FAILURES_PER_ADDRESS,
    LOOKUP_FAILURES_PER_SERVER,
    LOOKUP_WINDOW_S,
    NEW_STUDENTS_PER_ADDRESS,
    NEW_STUDENTS_WINDOW_S,
)

HOUR_S = 3600.0
KEEP_PER_ADDRESS = LOOKUP_FAILURES_PER_ADDRESS + 16   # 2¹⁶ × BACKOFF_BASE_S is far past BACKOFF_MAX_S
MAX_ADDRESSES = 20_000                                 # addresses the in-process store keeps counts for


def address_wait(times: Sequence[float], now: float) -> float:
    """Seconds this address must still wait, given its attempts' times (oldest first); 0 for none."""
    recent = [t for t in times if t > now - LOOKUP_WINDOW_S]
    if len(recent) < LOOKUP_FAILURES_PER_ADDRESS:
        return 0.0
    backoff = min(BACKOFF_MAX_S, BACKOFF_BASE_S * 2.0 ** (len(recent) - LOOKUP_FAILURES_PER_ADDRESS))
    return max(0.0, recent[-1] + backoff - now)


def new_student_wait(times: Sequence[float], now: float) -> float:
    """Seconds until this address may bring another new student, given its new students' times (oldest first)."""
    recent = [t for t in times if t > now - NEW_STUDENTS_WINDOW_S]
    if len(recent) < NEW_STUDENTS_PER_ADDRESS:
        return 0.0
    return max(0.0, recent[-NEW_STUDENTS_PER_ADDRESS] + NEW_STUDENTS_WINDOW_S - now)


def server_wait(times: Sequence[float], now: float) -> float:
    """Seconds every address must still wait, given the server's failures' times (oldest first)."""
    recent = [t for t in times if t > now - LOOKUP_WINDOW_S]
    if len(recent) < LOOKUP_FAILURES_PER_SERVER:
        return 0.0
    return max(0.0, recent[-LOOKUP_FAILURES_PER_SERVER] + LOOKUP_WINDOW_S - now)


def hourly_wait(times: Sequence[float], now: float) -> float:
    """Seconds until this address may start another class, given its starts' times (oldest first)."""
    recent = [t for t in times if t > now - HOUR_S]
    if len(recent) < CLASSES_PER_HOUR_PER_ADDRESS:
        return 0.0
    return max(0.0, recent[-CLASSES_PER_HOUR_PER_ADDRESS] + HOUR_S - now)


class Counts:
    """Times per address (and for the server) in one process, bounded: call with the store's lock held."""

    def __init__(self) -> None:
        self.attempts: dict[str, deque[float]] = {}
        self.server: deque[float] = deque(maxlen=LOOKUP_FAILURES_PER_SERVER)
        self.starts: dict[str, deque[float]] = {}
        self.joins: dict[str, deque[float]] = {}       # new students' times per address

    def lookup_wait(self, address: str, now: float) -> float:
        mine = self.attempts.get(address, ())
        if not mine or mine[-1] <= now - LOOKUP_WINDOW_S:
            return 0.0                                 # no failed lookup in the window: never refused
        return max(address_wait(mine, now), server_wait(self.server, now))

    def attempt(self, address: str, now: float, *, failed: bool) -> None:
        """A lookup that failed (``failed``) or was refused while waiting."""
        _note(self.attempts, address, now, KEEP_PER_ADDRESS, LOOKUP_WINDOW_S)
        if failed:
            self.server.append(now)

    def new_student_wait(self, address: str, now: float) -> float:
        return new_student_wait(self.joins.get(address, ()), now)

    def new_student(self, address: str, now: float) -> None:
        _note(self.joins, address, now, NEW_STUDENTS_PER_ADDRESS, NEW_STUDENTS_WINDOW_S)

    def start_wait(self, address: str, now: float) -> float:
        return hourly_wait(self.starts.get(address, ()), now)

    def started(self, address: str, now: float) -> None:
        _note(self.starts, address, now, CLASSES_PER_HOUR_PER_ADDRESS, HOUR_S)


def _note(table: dict[str, deque[float]], address: str, now: float, keep: int, window: float) -> None:
    if address not in table and len(table) >= MAX_ADDRESSES:
        for stale in [a for a, times in table.items() if not times or times[-1] <= now - window]:
            del table[stale]
        if len(table) >= MAX_ADDRESSES:                # all recent: the oldest-noted address goes
            del table[next(iter(table))]
    table.setdefault(address, deque(maxlen=keep)).append(now)
