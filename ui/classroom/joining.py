"""Joining a class: a typed code, or a link's ``?room=`` (and a presenter link's ``?key=``).

Codes are read in any case, with spaces or hyphens ("njw qkk", "NJW-QKK"), and validated before any lookup.
The store then checks the code for this client's address (``find_room``: failed lookups are limited per
address and per server, docs/SECURITY.md) before the first heartbeat; a session may also try only
``JOIN_TRIES`` unknown codes a window. A join link or QR code carries ``?room=CODE.TOKEN`` (the room's join
token, ``classroom.store.join_token``) and meets none of those limits; ``?room=CODE`` alone is a typed code.
The join's first heartbeat carries the address too (new students per address are paced, live ones capped).
A student joins once their browser has said its follower id (``ui.classroom.browser``), so a reload stays one
follower; a browser that never says is not waited on.
"""

from __future__ import annotations

import re
import secrets
import time

import streamlit as st

from classroom.store import (
    JOIN_TOKEN_CHARS,
    RateLimited,
    RoomError,
    RoomFull,
    RoomLocked,
    StoreUnavailable,
    UnknownRoom,
    normal_code,
)
from ui import streamlit_private as private
from ui.classroom import browser, console, results_view
from ui.classroom.rooms import client_address, room_store
from ui.classroom.session import forget_class, leave, notice, role, state

JOIN_TRIES, JOIN_WINDOW_S = 5, 60.0   # unknown codes a session may try per window
MAX_KEY_CHARS = 64
WAIT_FOR_BROWSER_S = 2.0              # a join waits this long at most for the browser's follower id
_SEPARATORS = re.compile(r"[\s\-‐-―]+")   # spaces and hyphens (and dashes) people type inside a code
_TOKEN_FORM = re.compile(rf"[0-9a-f]{{{JOIN_TOKEN_CHARS}}}")
_TOKEN = "_class_join_token"          # a pending join's token, until the browser says its follower id
_JOINED = "_class_joined"             # this session's latest join: its code and moment (``joined``)

UNKNOWN = "There is no class with that code: it may have ended, or the code is mistyped."
BAD_LINK = "The link's class code is not one this app makes (6 letters and digits), so you are not following a class."
LOCKED = ("This class is locked: the presenter is not letting anyone new join right now. Ask them to unlock "
          "it, then join again.")


def code_of(text: object) -> str | None:
    """A typed or linked code in canonical form ("njw qkk", "NJW-QKK" → "NJWQKK"), or None."""
    if not isinstance(text, str) or len(text) > 32:
        return None
    return normal_code(_SEPARATORS.sub("", text))


def _linked_code(raw: list[str]) -> str | None:
    """The code a link's ?room= carries, in canonical form; None when it is given more than once or malformed.
    A join link's ?room= is the code, a dot and the room's join token (``K7MQ2P.3f9a…``); ``?room=K7MQ2P`` works too."""
    return code_of(raw[-1].partition(".")[0]) if len(raw) == 1 else None


def _linked_token(raw: list[str]) -> str | None:
    """The join token a join link's ?room= carries after its code (``linked_room``), or None."""
    token = raw[-1].partition(".")[2] if len(raw) == 1 else ""
    return token if _TOKEN_FORM.fullmatch(token) else None


def linked_room(code: str, token: str) -> str:
    """A join link's ?room= value: the code and the room's join token, so opening it faces no limit on typed codes."""
    return f"{code}.{token}"


def in_words(seconds: float) -> str:
    """A wait as a person says it: "12 seconds", "about 3 minutes", "about 2 hours"."""
    s = max(1, round(seconds))
    if s < 60:
        return f"{s} second{'s' if s != 1 else ''}"
    if round(s / 60) < 60:
        m = max(1, round(s / 60))
        return f"about {m} minute{'s' if m != 1 else ''}"
    h = max(1, round(s / 3600))
    return f"about {h} hour{'s' if h != 1 else ''}"


def arrive() -> bool:
    """Read ?room= (and a presenter link's ?key=) once: validate before any lookup, then join or present.
    Returns False while the run must stop here: a link's key is still being wiped from the address bar
    (any change to the address in this run would push a history entry that keeps it)."""
    s = state()
    if s.cleaning is not None:
        if not browser.wipe_address(s.cleaning):
            private.drop_query_params("key", "room")    # the browser still sends them until it has rewritten
            return False
        st.query_params.pop("key", None)                # the address already says so: no history entry
        st.query_params.pop("room", None)
        s.cleaning = None
    if "key" in st.query_params:
        return _presenter_link()
    raw = st.query_params.get_all("room")
    if not raw:
        if s.pending is not None and s.role is None:
            join(s.pending, st.session_state.get(_TOKEN))
        return True
    code = _linked_code(raw)
    if code is not None and s.code == code and s.role is not None:
        return True                                     # already in this class: nothing to do
    if code is not None and code == s.ended:            # a rerun still carrying the ended class's URL
        st.query_params.pop("room", None)
        return True
    if code is None:
        st.query_params.pop("room", None)
        notice("warning", BAD_LINK)
        return True
    if role() == "presenter":                           # a presenter keeps their own class
        st.query_params.pop("room", None)
        return True
    join(code, _linked_token(raw))
    return True


def _presenter_link() -> bool:
    """A link with ?key=: room and key leave this run's parameters at once; with a browser, silently, and the
    page rewrites its own address in place before anything else may change it (a student joins after)."""
    s = state()
    code = _linked_code(st.query_params.get_all("room"))
    key = st.query_params.get("key") or ""
    console.keep_link()
    if browser.there():
        private.drop_query_params("key", "room")
        s.cleaning = ""
    else:
        st.query_params.pop("key", None)
        st.query_params.pop("room", None)
    if code is None:
        notice("warning", BAD_LINK)
    elif role() != "presenter" and not _present_again(code, key):
        if s.cleaning is None:
            join(code)
        else:
            s.pending, s.pending_since = code, time.time()   # joins once the address is rewritten
    return arrive() if s.cleaning is not None else True


def _present_again(code: str, key: str) -> bool:
    """A presenter link: present the class again if the key is the class's (True when that settled it)."""
    try:
        presenter = len(key) <= MAX_KEY_CHARS and room_store().is_presenter(code, key)
    except StoreUnavailable:
        notice("warning", "The class cannot be reached right now: open the presenter link again in a moment.")
        return True
    if not presenter and _ended_results(code, key):
        return True
    if not presenter:
        notice("warning", "That presenter link's key does not match the class, so you joined it as a student.")
        return False
    become_presenter(code, key)
    notice("success", f"You are presenting class {code} again.")
    return True


def _ended_results(code: str, key: str) -> bool:
    """A presenter link to a class that has ended: its results, for this tab only (True when they were found)."""
    try:
        room_store().results(code, key, time.time())
    except RoomError:
        return False
    results_view.remember(code, key, keep=False)
    notice("info", f"Class {code} has ended: its results are at the top of this page, in this tab only.")
    return True


def become_presenter(code: str, key: str) -> None:
    """Present class ``code`` again (a presenter link, or this tab's reload): the room's page, step and
    controls are applied to this screen before it publishes anything (``presenting.resume``)."""
    leave()
    s = state()
    s.role, s.code, s.key, s.resuming = "presenter", code, key, True
    now = time.time()
    try:                                                # a question still open stays live on this screen
        snap = room_store().snapshot(code, now)
        s.locked = room_store().locked(code, now)
    except RoomError:
        return
    if snap.poll is not None:
        s.poll = (snap.poll.poll_id, snap.poll.options, snap.poll.revealed)


def _limited(now: float) -> bool:
    s = state()
    s.fails = [t for t in s.fails if now - t < JOIN_WINDOW_S]
    return len(s.fails) >= JOIN_TRIES


def join(code_text: str, token: str | None = None) -> bool:
    """Follow the class with this code (as typed or linked, with a join link's ``token``); on failure, one message
    and no class. Waits (at most WAIT_FOR_BROWSER_S) for the browser's follower id first, so a reload stays one
    follower. A typed code faces the limits on guessing (per session here, per address in the store); a join
    link's token none of them."""
    code = code_of(code_text)
    if code is None:
        st.query_params.pop("room", None)
        notice("warning", "A class code is 6 letters and digits, like K7MQ2P (spaces and hyphens are fine).")
        return False
    s = state()
    now = time.time()
    if not browser.said() and (s.pending != code or now - s.pending_since < WAIT_FOR_BROWSER_S):
        if s.pending != code:
            s.pending, s.pending_since = code, now
            st.session_state[_TOKEN] = token
        return False
    s.pending = None
    st.session_state.pop(_TOKEN, None)
    if token is None and _limited(now):
        st.query_params.pop("room", None)
        notice("warning", f"Too many codes that matched no class: wait a minute, then try again "
                          f"(at most {JOIN_TRIES} a minute).")
        return False
    s.me = browser.follower() or s.me or secrets.token_hex(16)
    try:
        address = client_address()
        code = room_store().find_room(code, address, now, token=token)
        room_store().heartbeat(code, s.me, now, address=address)
    except UnknownRoom:
        s.fails.append(now)
        leave(UNKNOWN)
        return False
    except RateLimited as err:
        leave(f"{err} (Try again in {in_words(err.retry_after)}.)")
        return False
    except RoomLocked:
        leave(LOCKED)
        return False
    except StoreUnavailable:                            # join now; the watcher wakes it when the store is back
        _become_student(code, offline=True)
        return True
    except (RoomFull, RoomError) as err:
        leave(str(err))
        return False
    _become_student(code, offline=False)
    return True


def waiting() -> str | None:
    """The code this session is about to join (its browser has not yet said its follower id), else None."""
    return state().pending


def _become_student(code: str, offline: bool) -> None:
    """The session follows ``code``, which the store has just counted it in. Its state says so before any call that
    sends the browser something: a rerun asked for meanwhile (the browser's follower id arriving) stops a run at
    such a call, and a run stopped with the state unsaid would join again, under the browser's id, and the class
    would count one student twice until the first id's presence lapsed (seen filling a class of 500 at 499)."""
    forget_class()
    s = state()
    s.role, s.code, s.following, s.offline = "student", code, True, offline
    st.query_params.pop("key", None)
    st.query_params["room"] = code
    st.session_state[_JOINED] = f"{code}_{time.time_ns()}"


def joined() -> str:
    """This session's latest join, as a token of its own (the code and the moment): what the sidebar closes for,
    once (``ui.streamlit_private.close_sidebar``)."""
    return str(st.session_state.get(_JOINED, ""))
