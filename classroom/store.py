"""The room store: what a live classroom shares between the presenter's session and the students'.

Pure Python (no Streamlit), so both backends are tested with one suite:
- ``classroom.memory.MemoryRoomStore``: one per server process, under a lock (Community Cloud);
- ``classroom.redis_store.RedisRoomStore``: shared by replicas through Redis (a lecture hall).

A room holds one versioned snapshot of the presenter's view (page, step, lesson controls), the hash of
the presenter's secret key, follower heartbeats, and anonymous poll counts. Every method that changes
what students see takes the presenter key and refuses a wrong one. ``now`` is passed in (seconds, as
``time.time()``) so expiry is tested without sleeping.

Errors a page must show as a message, never a traceback, are ``RoomError`` subclasses.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

# Room codes: 6 characters from an alphabet without look-alikes (no 0/O, 1/I/L).
CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
CODE_LENGTH = 6
ROOM_TTL_S = 4 * 60 * 60          # a room expires 4 hours after the presenter was last active
FOLLOWER_TTL_S = 15               # a follower counts as present this long after its last heartbeat
MAX_ROOMS = 200                   # per store (per process for the in-process store)
MAX_FOLLOWERS = 500               # per room
MAX_POLLS = 100                   # per room


class RoomError(Exception):
    """Something a user should be told in a sentence (its str is that sentence, with no user text)."""


class UnknownRoom(RoomError):
    """No such room, or it expired, or the class ended."""


class NotPresenter(RoomError):
    """The presenter key is missing or wrong."""


class RoomFull(RoomError):
    """A limit was reached: rooms in this store, followers in a room, or polls in a room."""


class StoreUnavailable(RoomError):
    """The shared store cannot be reached right now (Redis down): the lesson keeps working on its own."""


@dataclass(frozen=True)
class Poll:
    """A question the presenter put to the class. ``options`` are the choice texts, in order."""

    poll_id: str                   # e.g. "scaled_formula:predict:tie"
    options: tuple[str, ...]
    revealed: bool = False


@dataclass(frozen=True)
class Snapshot:
    """The presenter's view as students should copy it."""

    version: int
    page: str                                  # lesson slug, e.g. "sqrt_dk"
    step: int                                  # presenter step (1-based), 0 when the page has none
    controls: dict[str, list[str]] = field(default_factory=dict)   # as "Link to this view" would set them
    poll: Poll | None = None                   # the open (or just revealed) poll, if any


class RoomStore(Protocol):
    def create_room(self, now: float) -> tuple[str, str]:
        """A new room: returns (code, presenter_key). The store keeps only a hash of the key."""

    def end_room(self, code: str, key: str) -> None:
        """Close the room ("End the class"): later reads raise UnknownRoom."""

    def is_presenter(self, code: str, key: str) -> bool:
        """Constant-time check of the key against the stored hash; False for an unknown room."""

    def publish(self, code: str, key: str, page: str, step: int, controls: dict[str, list[str]],
                now: float) -> int:
        """Replace the snapshot's page, step and controls; returns the new version (only if it changed)."""

    def version(self, code: str, now: float) -> int:
        """The snapshot's version: the one cheap read a follower makes every poll. Raises UnknownRoom."""

    def snapshot(self, code: str, now: float) -> Snapshot:
        """The whole snapshot. Raises UnknownRoom."""

    def heartbeat(self, code: str, follower_id: str, now: float) -> None:
        """A follower is still here. Raises UnknownRoom, or RoomFull past MAX_FOLLOWERS."""

    def follower_count(self, code: str, now: float) -> int:
        """Followers whose last heartbeat is within FOLLOWER_TTL_S."""

    def open_poll(self, code: str, key: str, poll_id: str, options: tuple[str, ...], now: float) -> int:
        """Ask the class: the poll becomes the snapshot's poll (answers so far kept); returns the new version."""

    def answer(self, code: str, poll_id: str, follower_id: str, option: str, now: float) -> bool:
        """Record or change one follower's answer; False (and nothing kept) if the poll is not open,
        already revealed, or ``option`` is not one of its options."""

    def poll_counts(self, code: str, poll_id: str) -> dict[str, int]:
        """How many chose each option (every option present, zeros included). Counts only, no names."""

    def reveal_poll(self, code: str, key: str, poll_id: str, now: float) -> int:
        """Reveal the answer on every student's screen; returns the new version."""
