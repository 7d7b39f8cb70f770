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
# What one snapshot may carry, so a presenter's session cannot grow a room without bound.
MAX_CONTROLS = 64                 # lesson controls in one snapshot
MAX_SNAPSHOT_CHARS = 32_000       # all control names and values together (a few matrices of text)
MAX_OPTIONS = 12                  # choices in one poll
MAX_NAME_CHARS = 120              # a page slug, a poll id, a follower id
MAX_OPTION_CHARS = 500


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


def normal_code(text: object) -> str | None:
    """A room code as typed or linked ("k7mq2p", " K7MQ2P ") in canonical form, or None if it cannot be one.

    Checked before any lookup, so a hostile ``?room=`` value is refused without touching the store.
    """
    if not isinstance(text, str) or len(text) > 32:
        return None
    code = text.strip().upper()
    if len(code) != CODE_LENGTH or any(ch not in CODE_ALPHABET for ch in code):
        return None
    return code


def check_controls(page: object, step: object, controls: object) -> dict[str, list[str]]:
    """The snapshot a presenter publishes, copied, or ValueError if it breaks a limit (a bug, not user input)."""
    if not isinstance(page, str) or not 0 < len(page) <= MAX_NAME_CHARS:
        raise ValueError("page must be a lesson slug")
    if not isinstance(step, int) or isinstance(step, bool) or not 0 <= step <= 1000:
        raise ValueError("step must be an int in [0, 1000]")
    if not isinstance(controls, dict) or len(controls) > MAX_CONTROLS:
        raise ValueError(f"controls must be a dict of at most {MAX_CONTROLS} entries")
    copied: dict[str, list[str]] = {}
    size = 0
    for name, values in controls.items():
        if not isinstance(name, str) or not isinstance(values, list | tuple) \
                or not all(isinstance(v, str) for v in values):
            raise ValueError("controls map names to lists of strings")
        size += len(name) + sum(len(v) for v in values)
        copied[name] = list(values)
    if size > MAX_SNAPSHOT_CHARS:
        raise ValueError(f"controls exceed {MAX_SNAPSHOT_CHARS} characters")
    return copied


def check_poll(poll_id: object, options: object) -> tuple[str, ...]:
    """A poll's options as a tuple, or ValueError if the question breaks a limit."""
    if not isinstance(poll_id, str) or not 0 < len(poll_id) <= MAX_NAME_CHARS:
        raise ValueError("poll_id must be a short string")
    if not isinstance(options, list | tuple) or not 2 <= len(options) <= MAX_OPTIONS:
        raise ValueError(f"a poll has 2 to {MAX_OPTIONS} options")
    if not all(isinstance(o, str) and 0 < len(o) <= MAX_OPTION_CHARS for o in options) \
            or len(set(options)) != len(options):
        raise ValueError("poll options must be distinct, non-empty, short strings")
    return tuple(options)


def check_follower_id(follower_id: object) -> None:
    if not isinstance(follower_id, str) or not 0 < len(follower_id) <= MAX_NAME_CHARS:
        raise ValueError("follower_id must be a short string")


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

    def close_poll(self, code: str, key: str, now: float) -> int:
        """Stop asking: the snapshot has no poll (its counts are kept); returns the version, bumped if one was open."""

    def answer(self, code: str, poll_id: str, follower_id: str, option: str, now: float) -> bool:
        """Record or change one follower's answer; False (and nothing kept) if the poll is not open,
        already revealed, or ``option`` is not one of its options."""

    def poll_counts(self, code: str, poll_id: str) -> dict[str, int]:
        """How many chose each option (every option present, zeros included). Counts only, no names.
        Raises UnknownRoom for a room or question this store does not hold."""

    def reveal_poll(self, code: str, key: str, poll_id: str, now: float) -> int:
        """Reveal the answer on every student's screen; returns the new version. From then on only the
        counts are kept: the record of who chose what, needed to move a changed answer, is dropped."""
