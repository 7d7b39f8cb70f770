"""A presenter's change handed to one daemon thread, which wakes this process's followers a few at a time.

In one process the room store calls its change listeners in the thread that announces the change: the
presenter's own script run. Waking every follower from there, and so starting every follower's run at once
to share one interpreter lock with the presenter's, made one slider move take the presenter 5–22 s of its own
update with 500 followers (issue 29). Here the presenter's run only notes the room (``put``) and returns; the
thread ``attention-classroom-wakes`` wakes the room's followers, at most ``WAKE_AT_ONCE`` runs at a time, the
next as soon as one is over. The presenter's next run then competes with a few follower runs, not the class;
and while a presenter's run goes on (``presenting`` notes the presenter sessions), no new wake goes out, for up
to ``HOLD_MAX_S``: the presenter's own update comes first.

Wakes coalesce. A follower due for a wake and noted again is woken once, and its run reads the room's newest
snapshot; a follower whose wake has gone out is due again (its run may have read the older one). A change
inside one lesson section stays a section wake unless a follower is due for two different sections, then its
whole page reruns, which is always right. With Redis, each replica's listener thread notes rooms the same way,
and the watcher's asks (a wake lost, the store away and back) queue here too.
"""

from __future__ import annotations

import logging
import threading
import time

from ui import wake
from ui.lru import once

_LOGGER = logging.getLogger(__name__)

WAKE_AT_ONCE = 4              # follower runs woken and not yet over, at most, per process
POLL_S = 0.01                 # how often the thread looks whether a woken run is over, while some are
HOLD_MAX_S = 1.0              # while a presenter's run goes on, no new wake goes out for up to this long
MAX_PRESENTERS = 256          # presenter sessions remembered (the oldest is dropped past this)
_THREAD = "attention-classroom-wakes"


def _merge(due: dict, key: str, section: wake.Section | None) -> None:
    """Note ``key`` as due for a wake of ``section`` (None: the whole page), keeping its place if already due."""
    if key not in due:
        due[key] = section
    elif due[key] != section:
        due[key] = None


class WakeQueue:
    """Rooms and followers due for a wake, and the one thread that wakes them (started with the first)."""

    def __init__(self, registry: wake.Followers, at_once: int = WAKE_AT_ONCE) -> None:
        self.registry, self.at_once = registry, max(1, at_once)
        self._cond = threading.Condition()
        self._rooms: dict[str, wake.Section | None] = {}   # rooms noted since the thread last looked
        self._due: dict[str, wake.Section | None] = {}     # session id -> section, in the order they came due
        self._turns: dict[str, wake.Turn] = {}             # session id -> its woken run, not yet over
        self._sending: set[str] = set()                     # taken for a wake, not yet sent
        self._presenters: dict[str, None] = {}              # presenter session ids, oldest first
        self._held_since: float | None = None               # when a presenter's run began holding the wakes
        self._thread: threading.Thread | None = None
        self.stopped = False
        self.woken = 0                                     # wakes sent (for tests and the log)

    def put(self, code: str, section: wake.Section | None = None) -> None:
        """The room store's change listener: wake the local followers of ``code`` soon. Returns at once."""
        with self._cond:
            _merge(self._rooms, code, section)
            self._cond.notify()
        self._start()

    def ask(self, sids: list[str], section: wake.Section | None = None) -> int:
        """Wake these local followers soon (the watcher's asks), unless a wake is already due or under way for
        one (a follower waiting its turn in a crowd is not lost: waking its whole page too would only slow
        the class); returns how many were noted."""
        with self._cond:
            sids = [sid for sid in sids if sid not in self._due and sid not in self._turns
                    and sid not in self._sending]
            for sid in sids:
                _merge(self._due, sid, section)
            self._cond.notify()
        if sids:
            self._start()
        return len(sids)

    def presenting(self, sid: str | None) -> None:
        """Note a presenter's session (from its run, as it publishes): wakes wait while its runs go on."""
        if sid is None:
            return
        with self._cond:
            self._presenters.pop(sid, None)
            self._presenters[sid] = None
            while len(self._presenters) > MAX_PRESENTERS:
                del self._presenters[next(iter(self._presenters))]

    def _holding(self, now: float) -> bool:
        """True while a presenter's run goes on and has held the wakes for less than HOLD_MAX_S."""
        server = wake.server() if self._presenters else None
        busy = False
        for sid in list(self._presenters) if server is not None else ():
            session = server.session(sid)
            if session is None:
                del self._presenters[sid]
            elif wake.running(session):
                busy = True
                break
        if not busy:
            self._held_since = None
            return False
        if self._held_since is None:
            self._held_since = now
        return now - self._held_since < HOLD_MAX_S

    def pending(self) -> int:
        """Followers due for a wake or whose woken run is not over yet (rooms noted count as one each)."""
        with self._cond:
            return len(self._rooms) + len(self._due.keys() | self._turns.keys() | self._sending)

    def stop(self) -> None:
        with self._cond:
            self.stopped = True
            self._cond.notify()

    def _start(self) -> None:
        with self._cond:
            if self.stopped or (self._thread is not None and self._thread.is_alive()):
                return
            self._thread = threading.Thread(target=self._run, name=_THREAD, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while True:
            try:
                batch = self._next()
            except Exception as err:                    # never let the thread die: the watcher catches up
                _LOGGER.warning("Waking followers failed (%s); the next check of their room catches up.", err)
                time.sleep(POLL_S)
                continue
            if batch is None:
                return
            for sid, section in batch:
                turn = None
                try:
                    turn = self.registry.send(sid, section)
                except Exception as err:                # one follower's failure stops no other
                    _LOGGER.warning("A follower's wake failed (%s); it catches up at the next check.", err)
                with self._cond:
                    self._sending.discard(sid)
                    if turn is not None:
                        self._turns[sid] = turn
                        self.woken += 1

    def _next(self) -> list[tuple[str, wake.Section | None]] | None:
        """The next followers to wake, as soon as a turn is free (None once stopped)."""
        with self._cond:
            while not self.stopped:
                rooms, self._rooms = self._rooms, {}
                for code, section in rooms.items():     # a room's followers as they are now
                    for sid, _, _ in self.registry.members(code):
                        _merge(self._due, sid, section)
                now = time.monotonic()
                for sid in [sid for sid, turn in self._turns.items() if turn.over(now)]:
                    del self._turns[sid]
                free = self.at_once - len(self._turns) if not (self._due and self._holding(now)) else 0
                picked: list[str] = []
                for sid in self._due if free > 0 else ():     # the first due, skipping those being woken
                    if sid not in self._turns:
                        picked.append(sid)
                        if len(picked) == free:
                            break
                batch = [(sid, self._due.pop(sid)) for sid in picked]
                if batch:
                    self._sending.update(sid for sid, _ in batch)
                    return batch
                self._cond.wait(POLL_S if self._turns or self._held_since is not None else None)
            return None


@once
def wakes() -> WakeQueue:
    """The process's one wake queue, over its one follower registry."""
    return WakeQueue(wake.followers())
