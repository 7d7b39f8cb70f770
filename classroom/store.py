"""The room store: what a live classroom shares between the presenter's session and the students'.

Pure Python (no Streamlit), so both backends are tested with one suite:
- ``classroom.memory.MemoryRoomStore``: one per server process, under a lock (Community Cloud);
- ``classroom.redis_store.RedisRoomStore``: shared by replicas through Redis (a lecture hall).

A room holds one versioned snapshot of the presenter's view (page, step, lesson controls), the hash of
the presenter's secret key, follower heartbeats, and anonymous poll counts. Every method that changes
what students see takes the presenter key and refuses a wrong one. ``now`` is passed in (seconds, as
``time.time()``) so expiry is tested without sleeping.

Errors a page must show as a message, never a traceback, are ``RoomError`` subclasses. A room also
closes when idle (no live student, no presenter action) for ROOM_IDLE_S; every number the classroom
limits by is below, in one place, and explained in docs/SECURITY.md.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from classroom.addresses import (  # re-exported: importable from here as before
    IPV6_PREFIX as IPV6_PREFIX,
    JOIN_TOKEN_CHARS as JOIN_TOKEN_CHARS,
    MAX_ADDRESS_CHARS as MAX_ADDRESS_CHARS,
    address_group as address_group,
    address_id as address_id,
    join_token as join_token,
    join_token_of as join_token_of,
)
from classroom.errors import (  # the store's refusals, re-exported: importable from here as before
    REFUSALS as REFUSALS,
    NoSuchOption as NoSuchOption,
    NotFollowing as NotFollowing,
    NotOpen as NotOpen,
    NotPresenter as NotPresenter,
    Outdated as Outdated,
    RateLimited as RateLimited,
    Refusal as Refusal,
    RoomError as RoomError,
    RoomFull as RoomFull,
    RoomLocked as RoomLocked,
    StoreUnavailable as StoreUnavailable,
    UnknownRoom as UnknownRoom,
    VoteRefused as VoteRefused,
    VotersFull as VotersFull,
)
from classroom.results import ClassResults

# Room codes: 6 characters from an alphabet without look-alikes (no 0/O, 1/I/L).
CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
CODE_LENGTH = 6
ROOM_TTL_S = 4 * 60 * 60          # a room expires 4 hours after the presenter was last active
FOLLOWER_TTL_S = 15               # a follower counts as present this long after its last heartbeat
# A full room (500 students, 100 questions each holding all 500 answers, the largest snapshot) measured on
# 2026-12-06 (tests/test_classroom_room_memory.py): 2.1 MB in process, 9.3 MB in Redis. The room limits keep
# the worst case within ROOMS_BUDGET_BYTES: 200 × 2.1 MB ≈ 0.4 GiB in process, 100 × 9.3 MB ≈ 0.9 GiB in Redis.
ROOMS_BUDGET_BYTES = 2**30
MAX_ROOMS = 200                   # per store (per process for the in-process store)
MAX_ROOMS_REDIS = 100             # per Redis (shared by every replica)
MAX_FOLLOWERS = 500               # per room
MAX_POLLS = 100                   # per room
# What one snapshot may carry, so a presenter's session cannot grow a room without bound.
MAX_CONTROLS = 64                 # lesson controls in one snapshot
MAX_SNAPSHOT_CHARS = 32_000       # all control names and values together (a few matrices of text)
MAX_OPTIONS = 12                  # choices in one poll
MAX_NAME_CHARS = 120              # a page slug, a poll id, a follower id
MAX_OPTION_CHARS = 500
MAX_QUESTION_CHARS = 2000         # a question's text, kept with its results

# --- What no single client may exceed: every number the classroom limits by, in one place ----------------
# docs/SECURITY.md explains each. "Address" is the client's address as the ui layer passes it (behind the
# shipped HAProxy, the forwarded address set by that proxy only); it is kept only as a hash.
ROOM_IDLE_S = 30 * 60             # a room with no live student and no presenter action for this long closes
EVICT_IDLE_S = 5 * 60             # how long a teacher at LIVE_CLASSES_PER_ADDRESS is told to wait
PRESENTER_GONE_S = 15             # a presenter's page unheard from this long (it reads the count every 0.5 s)
                                  # is gone: at MAX_ROOMS, the idlest such room closes before anyone is refused
REJOIN_GRACE_S = 120              # a locked room still admits a follower whose heartbeat lapsed this recently
LIVE_CLASSES_PER_ADDRESS = 3      # classes one address may run at once
CLASSES_PER_HOUR_PER_ADDRESS = 10 # classes one address may start in an hour
LOOKUP_WINDOW_S = 10 * 60         # failed room-code lookups are counted over this window
LOOKUP_FAILURES_PER_ADDRESS = 30  # then that address waits (BACKOFF_*), unless it asks for a room it joined:
                                  # above a class's typos (a session may try JOIN_TRIES = 5 a minute first)
LOOKUP_FAILURES_PER_SERVER = 200  # then every address that failed in the window waits, unless it asks for a room
                                  # it joined; an address with no failed lookup is never refused by it
NEW_STUDENTS_PER_ADDRESS = 200    # new student ids one address may bring in NEW_STUDENTS_WINDOW_S (three classes
NEW_STUDENTS_WINDOW_S = 60        # of 60 joining in one minute are never slowed; a flood of fresh ids waits its turn)
LIVE_STUDENTS_PER_ADDRESS = 500   # live students one address may have at once, in all classes (a lecture hall
                                  # behind one address); the deployer sets it with STUDENTS_PER_ADDRESS_ENV
STUDENTS_PER_ADDRESS_ENV = "ATTENTION_STUDENTS_PER_ADDRESS"
BACKOFF_BASE_S = 5.0              # the first wait; each attempt while waiting doubles it...
BACKOFF_MAX_S = 10 * 60.0         # ...up to this
KNOWN_ADDRESSES_PER_ROOM = 64     # addresses a room remembers as having joined it (a school shares one)
RESULTS_TTL_S = 24 * 60 * 60      # an ended class's results (counts only) stay this long for its presenter
MAX_ROUNDS = 2                    # "First vote", then "After discussion"
MAX_CHECK_QUESTIONS = 20          # questions one check (the concept check) opens at once




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


NEW_STUDENTS = "Many students have just joined from your network: wait a moment, then join again."


def too_many_students(cap: int) -> str:
    """What a student is told past the cap of live students per address."""
    return (f"Your network already has {cap} students in classes on this server, the most it allows from one "
            "network: join when someone leaves, or ask the presenter.")


def students_per_address(environ: dict | None = None) -> int:
    """LIVE_STUDENTS_PER_ADDRESS, or the deployer's STUDENTS_PER_ADDRESS_ENV (a whole number from 1 up)."""
    import os

    text = (os.environ if environ is None else environ).get(STUDENTS_PER_ADDRESS_ENV, "")
    try:
        value = int(text)
    except ValueError:
        return LIVE_STUDENTS_PER_ADDRESS
    return value if value >= 1 else LIVE_STUDENTS_PER_ADDRESS


@dataclass(frozen=True)
class QuestionInfo:
    """What the results keep about a question besides its options: its lesson, text and right option."""

    lesson: str = ""
    text: str = ""
    right: str | None = None


def check_question(info: object, options: tuple[str, ...]) -> QuestionInfo:
    """``info`` (None for none) checked against the poll's options, or ValueError."""
    if info is None:
        return QuestionInfo()
    if not isinstance(info, QuestionInfo) or not isinstance(info.lesson, str) or len(info.lesson) > MAX_NAME_CHARS \
            or not isinstance(info.text, str) or len(info.text) > MAX_QUESTION_CHARS:
        raise ValueError("info must be a QuestionInfo with a short lesson slug and text")
    if info.right is not None and info.right not in options:
        raise ValueError("the right option must be one of the options")
    return info


@dataclass(frozen=True)
class Tally:
    """A question's answers as the presenter sees them: ``answered`` never exceeds ``following``.

    While the question is open, only the answers of live followers count (a student who left takes
    their answer with them until they come back). At the reveal the tally is frozen: ``final``."""

    counts: dict[str, int]
    answered: int
    following: int
    final: bool = False


@dataclass(frozen=True)
class Poll:
    """A question the presenter put to the class. ``options`` are the choice texts, in order."""

    poll_id: str                   # e.g. "scaled_formula:predict:tie"
    options: tuple[str, ...]
    revealed: bool = False
    round: int = 1                 # 2 once asked again ("After discussion"): a follower answers afresh
    text: str = ""                 # the question, for one the presenter typed ("own:…"); a lesson's is on its page
    right: str = ""                # that question's right option, once revealed ("" before, or without one)


@dataclass(frozen=True)
class Check:
    """A set of questions open at once, answered on one form (the concept check): ``round`` 1 is the pre-class
    check, 2 the exit check. Each question is a poll of its own in the results; ``revealed`` once the
    presenter revealed every answer of this round."""

    check_id: str                  # e.g. "concept_check"
    poll_ids: tuple[str, ...]
    round: int
    revealed: bool = False


CheckQuestion = tuple[str, tuple[str, ...], QuestionInfo | None]   # (poll id, options, info)


def check_questions(check_id: object, questions: object, round_: object) -> tuple[CheckQuestion, ...]:
    """A check's questions checked (each as ``check_poll`` and ``check_question`` would), or ValueError."""
    if not isinstance(check_id, str) or not 0 < len(check_id) <= MAX_NAME_CHARS:
        raise ValueError("check_id must be a short string")
    if not isinstance(round_, int) or isinstance(round_, bool) or not 1 <= round_ <= MAX_ROUNDS:
        raise ValueError(f"round must be 1 to {MAX_ROUNDS}")
    if not isinstance(questions, list | tuple) or not 0 < len(questions) <= MAX_CHECK_QUESTIONS:
        raise ValueError(f"a check has 1 to {MAX_CHECK_QUESTIONS} questions")
    checked = []
    for q in questions:
        if not isinstance(q, tuple) or len(q) != 3:
            raise ValueError("a check's question is (poll id, options, info)")
        options = check_poll(q[0], q[1])
        checked.append((q[0], options, check_question(q[2], options)))
    if len({q[0] for q in checked}) != len(checked):
        raise ValueError("a check's poll ids must be distinct")
    return tuple(checked)


@dataclass(frozen=True)
class Snapshot:
    """The presenter's view as students should copy it."""

    version: int
    page: str                                  # lesson slug, e.g. "sqrt_dk"
    step: int                                  # presenter step (1-based), 0 when the page has none
    controls: dict[str, list[str]] = field(default_factory=dict)   # as "Link to this view" would set them
    poll: Poll | None = None                   # the open (or just revealed) poll, if any
    check: Check | None = None                 # the open check (several questions on one form), if any


ChangeListener = Callable[[str, "tuple[str, str] | None"], None]


class Listening(Protocol):
    """What ``listen`` returns: stop() ends the listening (tests; a process just exits)."""

    def stop(self) -> None: ...


class RoomStore(Protocol):
    def create_room(self, now: float, *, address: str | None = None) -> tuple[str, str]:
        """A new room: returns (code, presenter_key). The store keeps only a hash of the key. With
        ``address``, RateLimited past LIVE_CLASSES_PER_ADDRESS or CLASSES_PER_HOUR_PER_ADDRESS. At MAX_ROOMS,
        the idlest room whose presenter is gone (unheard from for PRESENTER_GONE_S) closes first; RoomFull only
        when every room has a live presenter."""

    def end_room(self, code: str, key: str) -> None:
        """Close the room ("End the class"): later reads raise UnknownRoom."""

    def is_presenter(self, code: str, key: str) -> bool:
        """Constant-time check of the key against the stored hash; False for an unknown room."""

    def publish(self, code: str, key: str, page: str, step: int, controls: dict[str, list[str]],
                now: float, *, base: int | None = None) -> int:
        """Replace the snapshot's page, step and controls; returns the new version (only if it changed). With
        ``base``, the version the caller's view was made from (a presenter screen's last look at the room): a
        view that differs from the room's while the room is at another version raises Outdated and changes
        nothing, so a screen that is behind never puts an older view back (issue 46)."""

    def version(self, code: str, now: float) -> int:
        """The snapshot's version: the one cheap read a follower makes every poll. Raises UnknownRoom."""

    def snapshot(self, code: str, now: float) -> Snapshot:
        """The whole snapshot. Raises UnknownRoom."""

    def heartbeat(self, code: str, follower_id: str, now: float, *, address: str | None = None) -> None:
        """A follower is still here (the watcher beats for each live browser session). Raises UnknownRoom,
        RoomFull past MAX_FOLLOWERS live ones, or RoomLocked for a new follower of a locked room. With
        ``address`` (a join), a follower new to the room counts against that address: RateLimited past
        NEW_STUDENTS_PER_ADDRESS new ones in NEW_STUDENTS_WINDOW_S, or past ``students_per_address()`` live ones
        in all classes; its later beats (without an address) keep it counted for that address."""

    def follower_count(self, code: str, now: float, *, key: str | None = None) -> int:
        """Followers whose last heartbeat is within FOLLOWER_TTL_S. With the presenter's ``key`` (the presenter's
        panel reads the count every 0.5 s), also notes that the presenter is still here (PRESENTER_GONE_S)."""

    def open_poll(self, code: str, key: str, poll_id: str, options: tuple[str, ...], now: float, *,
                  info: QuestionInfo | None = None) -> int:
        """Ask the class: the poll becomes the snapshot's poll (answers so far kept); returns the new version.
        ``info`` (lesson, text, right option) is kept for the results when the question is first asked."""

    def close_poll(self, code: str, key: str, now: float) -> int:
        """Stop asking: the snapshot has no poll (its counts are kept); returns the version, bumped if one was open."""

    def answer(self, code: str, poll_id: str, follower_id: str, option: str, now: float) -> bool:
        """Record or change one follower's answer; False (and nothing kept) if the poll is not open,
        already revealed, or ``option`` is not one of its options. Lenient: any id counts, live or not.
        ``vote`` is the honest one (live followers only, and it says why a vote was refused)."""

    def poll_counts(self, code: str, poll_id: str) -> dict[str, int]:
        """How many chose each option (every option present, zeros included). Counts only, no names.
        Raises UnknownRoom for a room or question this store does not hold."""

    def reveal_poll(self, code: str, key: str, poll_id: str, now: float) -> int:
        """Reveal the answer on every student's screen; returns the new version. From then on only the
        counts are kept: the record of who chose what, needed to move a changed answer, is dropped."""

    # --- added for issues 29, 30 and 33; every argument after ``now`` is keyword-only and optional, so a
    # caller of the methods above works unchanged -----------------------------------------------------------

    def announce(self, code: str, section: tuple[str, str] | None = None) -> None:
        """Tell every listener (in this process, or every replica's through Redis) that room ``code`` changed,
        inside lesson section (page slug, fragment name) when given. Best effort, never raises."""

    def listen(self, on_change: ChangeListener) -> Listening:
        """Call ``on_change(code, section)`` for each announcement (on a daemon thread for Redis, at once in
        the announcing thread for the in-process store). An exception in ``on_change`` is logged."""

    def find_room(self, code: str, address: str | None, now: float, *, token: str | None = None) -> str:
        """A student's typed or linked code checked: the room's canonical code. A failed lookup counts against
        ``address`` and the server; past LOOKUP_FAILURES_PER_ADDRESS the address gets RateLimited instead of
        UnknownRoom, until a back-off has passed; past LOOKUP_FAILURES_PER_SERVER so does every address that has
        itself failed in the window (one that has not is never refused). Never limited: a room this address
        joined before, and a join link's ``token`` (``join_token``) that matches the room."""

    def lock(self, code: str, key: str, now: float) -> None:
        """No new follower may join (heartbeat of a new id raises RoomLocked); those in the room stay."""

    def unlock(self, code: str, key: str, now: float) -> None:
        """Open the room to new followers again."""

    def locked(self, code: str, now: float) -> bool:
        """Whether the room is locked. Raises UnknownRoom."""

    def vote(self, code: str, poll_id: str, follower_id: str, option: str, now: float) -> None:
        """One live follower's answer to the open question, or to a question of the open check not yet revealed
        (a new vote replaces this follower's earlier one in the same round). Raises a VoteRefused subclass saying
        why it was not counted, or UnknownRoom."""

    def chosen(self, code: str, poll_id: str, follower_id: str, now: float) -> str | None:
        """The option this follower chose in the question's current round, until it is revealed (None when it chose
        none): a student's page that starts again (a reload, another replica) shows the answer that counts."""

    def tally(self, code: str, poll_id: str, now: float) -> Tally:
        """The question's counts from live followers, how many answered and how many follow. Raises UnknownRoom."""

    def ask_again(self, code: str, key: str, poll_id: str, now: float) -> int:
        """The next round of an asked question ("After discussion"): counts start at zero, the question opens
        again unrevealed; the previous round's counts go to the results. RoomFull past MAX_ROUNDS."""

    def open_check(self, code: str, key: str, check_id: str, questions: tuple[CheckQuestion, ...], now: float, *,
                   round: int = 1) -> int:
        """Open several questions at once, as one check in round ``round`` (1: the pre-class check, 2: the exit
        check): a question not asked yet is asked; one in an earlier round is asked again (its counts so far go
        to the results); one already in this round keeps its answers. Returns the new version. ValueError for
        a malformed check, a question asked before with other options, or one already past ``round``;
        RoomFull past MAX_POLLS."""

    def close_check(self, code: str, key: str, now: float) -> int:
        """Stop the check (its counts are kept); returns the version, bumped if one was open."""

    def reveal_check(self, code: str, key: str, now: float) -> int:
        """Reveal every answer of the open check (each question's tally frozen, as ``reveal_poll``)."""

    def results(self, code: str, key: str, now: float) -> ClassResults:
        """The class's results (counts per question, round and option) for its presenter: while live, and for
        RESULTS_TTL_S after the class ended or expired. Raises UnknownRoom, NotPresenter."""
