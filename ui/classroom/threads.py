"""The classroom's threads, started in one place: ``ensure_running()``, at the top of every run's classroom
entry (``sidebar_ui.sidebar``), so no follower's, presenter's or page's run starts one as a side effect.

- The listener: the room store calls ``ui.wake_queue.WakeQueue.put`` for every presenter's change (the
  in-process store in the presenter's own run; the Redis store on redis-py's worker thread
  ``attention-classroom-changes``, for a change on any replica). ``put`` only queues the room; the queue's
  own thread, ``attention-classroom-wakes``, started by its first wake, wakes the followers.
- The watcher (``watcher.Watcher``, thread ``attention-classroom-watch``), under a server only: AppTest has
  none, and there a follower's next run is its check.

Both are started once per process, and kept whatever a client asks (like the room store they serve).
After the first run, ``ensure_running`` is one attribute read.
"""

from __future__ import annotations

import logging
import threading
import time

from classroom.store import Listening
from ui import streamlit_private as private, wake, wake_queue
from ui.classroom import rooms, watcher as watching

_LOGGER = logging.getLogger(__name__)

RETRY_S = 30.0                # a start that failed is tried again by the first run after this long


class _Threads:
    """What ``ensure_running`` started in this process (a first attempt that raised is made again)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.started = False
        self.listener: Listening | None = None
        self.watcher: watching.Watcher | None = None
        self.retry_at = 0.0                             # time.monotonic() before which a failed start waits


_THREADS = _Threads()


def ensure_running() -> None:
    """Start this process's listener and, under a server, its watcher, unless they run already. Idempotent
    and cheap: called at the top of every run. Never raises: a start that failed is logged and tried again
    ``RETRY_S`` later (each part once: a listener already given is not given twice)."""
    if _THREADS.started:
        return
    with _THREADS.lock:
        if _THREADS.started or time.monotonic() < _THREADS.retry_at:
            return
        try:
            if _THREADS.listener is None:
                _THREADS.listener = rooms.room_store().listen(wake_queue.wakes().put)
            if _THREADS.watcher is None and private.served():
                _THREADS.watcher = watching.start_watcher(rooms.room_store(), wake.followers(), wake_queue.wakes())
        except Exception as err:                        # no page fails for it: followers catch up on their runs
            _THREADS.retry_at = time.monotonic() + RETRY_S
            _LOGGER.warning("classroom: the listener or the watcher did not start (%s); trying again in %s s",
                            err, RETRY_S)
            return
        _THREADS.started = True


def full(sid: str) -> str | None:
    """Why this session can no longer follow (the watcher found its class full), once; else None."""
    found = _THREADS.watcher
    return found.full(sid) if found is not None else None
