"""The process's one room store, and the presenter's change told to every follower.

``room_store()`` is shared by every session of this process. ``changed`` tells the followers of a room that
the presenter changed it (the store announces it to every listener: through Redis, each replica's; in one
process, this one's). The listener itself is started by ``ui.classroom.threads.ensure_running``.
"""

from __future__ import annotations

import logging
import os

import streamlit as st

from classroom import client
from classroom.select import open_store
from classroom.store import RoomStore
from ui import streamlit_private as private, wake, wake_queue
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


UNKNOWN_ADDRESS = "unknown"   # a peer that is not an address: all such clients share one set of limits


@once
def trusted_proxies() -> tuple:
    """ATTENTION_TRUSTED_PROXIES, read once; a malformed value trusts no proxy (and says so in the log)."""
    try:
        return client.trusted_proxies()
    except ValueError as err:
        _LOGGER.error("classroom: %s=%r is not a list of addresses (%s); no proxy is trusted",
                      client.ENV_VAR, os.environ.get(client.ENV_VAR), err)
        return ()


def client_address() -> str | None:
    """The address the classroom limits this session's client by (docs/SECURITY.md): its TCP peer, or behind
    a trusted proxy (ATTENTION_TRUSTED_PROXIES) the address that proxy forwarded. None outside a server
    (AppTest has no client), where the store applies no limit per address."""
    if not private.served():
        return None
    headers = st.context.headers
    forwarded = ", ".join(headers.get_all("X-Forwarded-For")) if headers else None
    return client.client_address(st.context.ip_address, forwarded or None, trusted_proxies()) or UNKNOWN_ADDRESS


def changed(code: str, section: wake.Section | None = None) -> None:
    """The presenter changed room ``code`` (only inside ``section``, when named): wake its followers now
    (after the presenter's own runs, which ``ui.wake_queue`` lets go first)."""
    if role() == "presenter":                           # a student's change (none today) gets no priority
        wake_queue.wakes().presenting(wake.session_id())
    room_store().announce(code, section)

