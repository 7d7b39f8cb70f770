"""Joining a class: a typed code, or a link's ``?room=`` (and a presenter link's ``?key=``).

Codes are validated before any lookup, and a session may try only ``JOIN_TRIES`` unknown codes a window.
"""

from __future__ import annotations

import secrets
import time

import streamlit as st

from classroom.store import RoomError, StoreUnavailable, UnknownRoom, normal_code
from ui.classroom.rooms import room_store
from ui.classroom.session import leave, notice, role, state

JOIN_TRIES, JOIN_WINDOW_S = 5, 60.0   # unknown codes a session may try per window
MAX_KEY_CHARS = 64


def arrive() -> None:
    """Read ?room= (and a presenter link's ?key=) once: validate before any lookup, then join or present."""
    raw = st.query_params.get_all("room")
    if not raw:
        return
    s = state()
    code = normal_code(raw[-1]) if len(raw) == 1 else None
    if code is not None and s.code == code and s.role is not None:
        return                                          # already in this class: nothing to do
    if code is not None and code == s.ended:            # a rerun still carrying the ended class's URL
        st.query_params.pop("room", None)
        return
    key = st.query_params.get("key")
    st.query_params.pop("key", None)                    # never left in the address bar
    if code is None:
        st.query_params.pop("room", None)
        notice("warning", "The link's class code is not one this app makes (6 letters and digits), "
                          "so you are not following a class.")
        return
    if role() == "presenter":                           # a presenter keeps their own class
        st.query_params.pop("room", None)
        return
    if key is not None and _present_again(code, key):
        return
    join(code)


def _present_again(code: str, key: str) -> bool:
    """A presenter link: present the class again if the key is the class's (True when that settled it)."""
    try:
        presenter = len(key) <= MAX_KEY_CHARS and room_store().is_presenter(code, key)
    except StoreUnavailable:
        st.query_params["key"] = key                    # a reload tries again once the class is reachable
        notice("warning", "The class cannot be reached right now: reload this link in a moment.")
        return True
    if not presenter:
        notice("warning", "That presenter link's key does not match the class, so you joined it as a student.")
        return False
    leave()
    s = state()
    s.role, s.code, s.key = "presenter", code, key
    notice("success", f"You are presenting class {code} again.")
    try:                                                # a question still open stays live on this screen
        poll = room_store().snapshot(code, time.time()).poll
    except RoomError:
        poll = None
    if poll is not None:
        s.poll = (poll.poll_id, poll.options, poll.revealed)
    return True


def _limited(now: float) -> bool:
    s = state()
    s.fails = [t for t in s.fails if now - t < JOIN_WINDOW_S]
    return len(s.fails) >= JOIN_TRIES


def join(code_text: str) -> bool:
    """Follow the class with this code (as typed or linked); on failure, one message and no class."""
    code = normal_code(code_text)
    if code is None:
        st.query_params.pop("room", None)
        notice("warning", "A class code is 6 letters and digits, like K7MQ2P.")
        return False
    now = time.time()
    if _limited(now):
        st.query_params.pop("room", None)
        notice("warning", f"Too many codes that matched no class: wait a minute, then try again "
                          f"(at most {JOIN_TRIES} a minute).")
        return False
    s = state()
    if s.me is None:
        s.me = secrets.token_urlsafe(12)
    try:
        room_store().heartbeat(code, s.me, now)
    except UnknownRoom:
        s.fails.append(now)
        leave("There is no class with that code: it may have ended, or the code is mistyped.")
        return False
    except StoreUnavailable:                            # join now; the watcher wakes it when the store is back
        _become_student(code, offline=True)
        return True
    except RoomError as err:
        leave(str(err))
        return False
    _become_student(code, offline=False)
    return True


def _become_student(code: str, offline: bool) -> None:
    leave()
    s = state()
    s.role, s.code, s.following, s.offline = "student", code, True, offline
    st.query_params["room"] = code
