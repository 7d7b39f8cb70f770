"""The process's one room store, and the presenter's change told to every follower.

``room_store()`` is shared by every session of this process. ``changed`` tells the followers of a room that
the presenter changed it (through Redis, every replica's listener wakes its own; in one process, this one's
followers directly), and ``listening`` starts this process's listener once.
"""

from __future__ import annotations

import logging

import streamlit as st

from classroom.select import open_store
from classroom.store import RoomStore
from ui import wake, wake_queue
from ui.classroom.session import role
from ui.lru import once

_LOGGER = logging.getLogger(__name__)


@once
def room_store() -> RoomStore:
    """One store per server process, kept whatever any client asks (a cleared cache would end every class):
    Redis when ATTENTION_REDIS_URL or ``[classroom] redis_url`` in .streamlit/secrets.toml names one
    (replicas share the rooms), else in-process."""
    try:
        secret = st.secrets.get("classroom", {}).get("redis_url")
    except (FileNotFoundError, AttributeError):         # no secrets file, or no [classroom] table in it
        secret = None
    try:
        return open_store(secret if isinstance(secret, str) else None)
    except ValueError as err:                           # a mistyped URL: say so in the log, keep serving
        from classroom.memory import MemoryRoomStore

        _LOGGER.error("classroom: %s; using the in-process room store", err)
        return MemoryRoomStore()


def changed(code: str, section: wake.Section | None = None) -> None:
    """The presenter changed room ``code`` (only inside ``section``, when named): wake its followers now
    (after the presenter's own runs, which ``ui.wake_queue`` lets go first)."""
    if role() == "presenter":                           # a student's change (none today) gets no priority
        wake_queue.wakes().presenting(wake.session_id())
    room_store().announce(code, section)


@once
def listening() -> bool:
    """Once per process: wake local followers of any changed room. The listener only queues the room
    (``ui.wake_queue``): the in-process store calls it in the presenter's own run, which must not wait for
    the class; its thread wakes them (Redis's listener thread queues rooms the same way)."""
    room_store().listen(wake_queue.wakes().put)
    return True
