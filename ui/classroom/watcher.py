"""This process's check on the rooms its students follow: one daemon thread (``Watcher``), never more.

A presenter's change wakes the followers in this process at once (``ui.wake_queue``); with Redis, every
replica's listener wakes its own. The watcher reads each followed room's version every ``FOLLOW_QUIET_S``, keeps
the heartbeats of the followers whose browser is still connected (a closed tab's stop at once, so it leaves
the room's count within FOLLOWER_TTL_S), and wakes whoever is behind (a wake missed, the store away or back,
the class ended): an idle student costs nothing.
"""

from __future__ import annotations

import logging
import threading
import time

from classroom.store import RoomError, RoomFull, RoomStore, StoreUnavailable
from ui import wake, wake_queue

_LOGGER = logging.getLogger(__name__)

FOLLOW_QUIET_S = 5.0          # the process's check on its followers' rooms: wakes do the rest

_WATCH_THREAD = "attention-classroom-watch"


def _running(name: str) -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == name and t.is_alive()]


class Watcher:
    """This process's check on the rooms its students follow, every ``FOLLOW_QUIET_S`` on a daemon thread:
    one version read per room (not per student), a heartbeat for each local follower, and a wake for
    each follower still behind the room since the last round (a wake missed, a Redis message lost), or
    for every follower of a room that became unreachable, came back, or ended (their next run says so).

    It replaces a timer fragment (``run_every``) on each student's page. Besides costing an idle student
    nothing, that removes a race: a timer run the browser sent while the old page was current could reach
    the server after a follow had switched the page, run under the old page, and leave the student's
    browser with a blank page (docs/RELIABILITY.md)."""

    def __init__(self, store: RoomStore, registry: wake.Followers, wakes: wake_queue.WakeQueue) -> None:
        self.store, self.registry, self.wakes = store, registry, wakes    # ``wakes`` takes its asks
        self.offline: set[str] = set()                  # rooms the last check could not reach
        self._lock = threading.Lock()
        self._full: dict[str, str] = {}                 # session id -> why it stopped following
        self._behind: dict[str, tuple[int | None, int]] = {}   # follower behind -> (its version, the room's)
        self.stop = threading.Event()                   # set when a newer watcher takes over

    def check(self, now: float) -> int:
        """One round over the rooms; returns how many followers it asked to rerun."""
        asked, present = 0, set()
        for code in self.registry.rooms():
            members = self.registry.members(code)
            alive = set(self.registry.alive([sid for sid, _, _ in members]))
            members = [m for m in members if m[0] in alive]     # a closed tab's session beats no more
            everyone = [sid for sid, _, _ in members]
            present.update(everyone)
            try:
                version = self.store.version(code, now)
                for sid, _, me in members:
                    if me is None:
                        continue
                    try:
                        self.store.heartbeat(code, me, now)
                    except RoomFull as err:            # the class filled while this student's beat lapsed
                        with self._lock:
                            self._full[sid] = str(err)
                        asked += self.wakes.ask([sid])
            except StoreUnavailable:
                if code not in self.offline:           # once: their bar then says it is reconnecting
                    self.offline.add(code)
                    asked += self.wakes.ask(everyone)
                continue
            except RoomError:                          # ended or expired: their next run says so
                asked += self.wakes.ask(everyone)
                continue
            back = code in self.offline
            self.offline.discard(code)
            asked += self.wakes.ask([sid for sid, seen, _ in members if back or self._stuck(sid, seen, version)])
        with self._lock:                                # followers that left: forget them here too
            for sid in self._behind.keys() - present:
                del self._behind[sid]
        return asked

    def _stuck(self, sid: str, seen: int | None, version: int) -> bool:
        """Behind the room, and at the same version as at the last round: its wake was lost. A follower
        behind for the first time is most likely running the presenter's change right now; waking it too
        would only add a whole-page run to that class-wide moment."""
        with self._lock:
            if seen == version:
                self._behind.pop(sid, None)
                return False
            last = self._behind.get(sid)
            self._behind[sid] = (seen, version)
            return seen is None or (last is not None and last[0] == seen)

    def full(self, sid: str) -> str | None:
        """Why this session can no longer follow (its class is full), once; else None."""
        with self._lock:
            return self._full.pop(sid, None)

    def run(self) -> None:
        while not self.stop.wait(FOLLOW_QUIET_S):
            try:
                self.check(time.time())
            except Exception as err:                   # never let the thread die: the next round tries again
                _LOGGER.warning("The classroom check failed (%s); it tries again in %s s.", err, FOLLOW_QUIET_S)


def start_watcher(store: RoomStore, registry: wake.Followers, wakes: wake_queue.WakeQueue) -> Watcher:
    """Start a watcher thread, stopping any other first: never more than one per process, however often
    this is called (the app calls it once, from ``ui.classroom.threads.ensure_running``)."""
    for thread in _running(_WATCH_THREAD):
        old = getattr(thread, "watcher", None)
        if isinstance(old, Watcher):
            old.stop.set()
    watcher = Watcher(store, registry, wakes)
    thread = threading.Thread(target=watcher.run, name=_WATCH_THREAD, daemon=True)
    thread.watcher = watcher
    thread.start()
    return watcher

