"""The process's one room store, and the presenter's change told to every follower.

``room_store()`` is shared by every session of this process. ``changed`` tells the followers of a room that
the presenter changed it (through Redis, every replica's listener wakes its own; in one process, this one's
followers directly), and ``listening`` starts this process's listener once.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

import streamlit as st

from classroom.select import open_store
from classroom.store import RoomStore
from ui import wake
from ui.lru import once

_LOGGER = logging.getLogger(__name__)


class _InProcessSignals:
    """ADAPTER, to remove once every store has ``announce``/``listen`` (the RoomStore protocol gains them
    with an in-process implementation): gives a store without them the in-process pair, so that callers
    call ``room_store().announce`` and ``.listen`` directly. Everything else goes to the store itself."""

    def __init__(self, store: RoomStore) -> None:
        self._store = store
        self._lock = threading.Lock()
        self._listeners: list[Callable[[str, wake.Section | None], object]] = []

    def __getattr__(self, name: str):
        return getattr(self._store, name)

    def announce(self, code: str, section: wake.Section | None = None) -> None:
        with self._lock:
            listeners = list(self._listeners)
        for on_change in listeners:
            on_change(code, section)

    def listen(self, on_change: Callable[[str, wake.Section | None], object]) -> None:
        with self._lock:
            self._listeners.append(on_change)


def _signalling(store: RoomStore) -> RoomStore:
    return store if hasattr(store, "announce") and hasattr(store, "listen") else _InProcessSignals(store)


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
        return _signalling(open_store(secret if isinstance(secret, str) else None))
    except ValueError as err:                           # a mistyped URL: say so in the log, keep serving
        from classroom.memory import MemoryRoomStore

        _LOGGER.error("classroom: %s; using the in-process room store", err)
        return _signalling(MemoryRoomStore())


def changed(code: str, section: wake.Section | None = None) -> None:
    """The presenter changed room ``code`` (only inside ``section``, when named): wake its followers now."""
    room_store().announce(code, section)


@once
def listening() -> bool:
    """Once per process: wake local followers of any changed room (a store shared between replicas runs
    the listener on its own thread, which holds the registry itself: it runs outside any script run)."""
    room_store().listen(wake.followers().wake)
    return True
