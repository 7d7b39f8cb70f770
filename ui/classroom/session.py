"""This session's place in the classroom: one typed object under one private session key.

Every part of ``ui.classroom`` reads and changes the session's classroom state through ``state()``; nothing
else keeps classroom values in the session (its widgets' keys all start with "_class", so none of them is a
lesson control).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import streamlit as st

from classroom.store import Snapshot
from ui import wake

STATE_KEY = "_class_state"
NOTICE_S = 6.0                # a message stays on the page this long

Notice = tuple[str, str]                 # (kind: "warning" | "success" | "info", text), shown once
View = tuple[str, int, dict[str, list[str]]]   # (page slug, presenter step, lesson controls) as published
AskedPoll = tuple[str, tuple[str, ...], bool]  # (poll id, options, revealed) of the question the presenter asked

RECONNECTING = "Reconnecting to the class…"
# The store came back without the room (a Redis restart without persistence loses every room).
LOST = ("The connection to the class came back, but the class itself was lost meanwhile. This page stays "
        "as it is; ask the presenter for the new class code.")
LOST_PRESENTER = ("The connection to the class came back, but the class itself was lost meanwhile: "
                  "start a new class and give your students its new code.")
ENDED_ELSEWHERE = "Your class has ended (it expired, or was ended elsewhere)."


@dataclass
class ClassState:
    """The session's classroom state. ``leave()`` resets the class part; ``me``, ``fails`` and ``notice``
    belong to the session and outlive a class."""

    role: str | None = None              # "presenter" or "student"
    code: str | None = None              # the room's code
    key: str | None = None               # the presenter's secret key (presenter sessions only)
    following: bool = False              # a student who follows (not exploring on their own)
    seen: int | None = None              # the snapshot version this follower last applied (a presenter: the
                                         # version its own view is based on, published or taken from the room)
    snap: Snapshot | None = None         # that snapshot
    published: View | None = None        # presenter: the view last published
    poll: AskedPoll | None = None        # presenter: the question asked
    mid_run: bool = False                # presenter: a full run has started and not yet published
    offline: bool = False                # the shared store (Redis) could not be reached on the last try
    ended: str | None = None             # the code of the class that ended under this session (never rejoined)
    # follower: (page slug, fragment name) -> the widget keys that lesson section drew in its last run
    sections: dict[tuple[str, str], frozenset[str]] = field(default_factory=dict)
    locked: bool = False                 # presenter: the class takes no new student ("Lock the class")
    resuming: bool = False               # presenter: the room's view is still to be applied to this screen
    adopted: bool = False                # presenter: this run took the room's view (what it draws is not sent)
    # The follower id: the one this browser keeps (localStorage, ``ui.classroom.browser``) once it has said,
    # so a reload or a dead server keeps one student one follower with one vote; until then, one made here.
    me: str | None = None
    fails: list[float] = field(default_factory=list)   # times of recent joins with unknown codes
    notice: Notice | None = None         # one message, shown for NOTICE_S (the runs a page load makes by itself)
    notice_at: float = 0.0               # when it was set
    pending: str | None = None           # a code to join once the browser has said its follower id
    pending_since: float = 0.0           # when that wait began (a browser that never says is not waited on)
    cleaning: str | None = None          # the query a link's key is being wiped to, in the address bar itself
    left: tuple[str, float] | None = None  # the page a follow or a resume last switched away from, and when

    def leave(self) -> None:
        """Forget the class (not the session's follower id, recent failed joins, a pending notice, or a
        link's key still being wiped from the address bar)."""
        vars(self).update(vars(ClassState(me=self.me, fails=self.fails, notice=self.notice,
                                          notice_at=self.notice_at, cleaning=self.cleaning)))


def state() -> ClassState:
    """This session's classroom state (made on first use)."""
    try:                      # one look-up: every run asks this about a hundred times
        return st.session_state[STATE_KEY]
    except KeyError:
        made = st.session_state[STATE_KEY] = ClassState()
        return made


def role() -> str | None:
    return state().role


LATE_RUN_S = 30.0             # after a switch (a follow's or a resume's), how long a run of the page left is a late one


def late_run(slug: str, room_page: str) -> bool:
    """This run is of the page a switch (a follow's, or a presenter's resume) left, within ``LATE_RUN_S`` of
    it, while the room shows another page: a message the browser sent before it learnt of the switch, not a
    page opened by hand."""
    left = state().left
    return bool(room_page) and room_page != slug and left is not None and left[0] == slug \
        and time.time() - left[1] < LATE_RUN_S


def following(s: ClassState | None = None) -> bool:
    """This session follows a class as a student (``s``: its state, when the caller holds it already)."""
    s = state() if s is None else s
    return s.role == "student" and s.following


def holds_controls() -> bool:
    """The room sets this session's lesson controls on every run: it follows a class it can reach. Its
    controls are then drawn disabled, since a move of its own would be put back by the room's value."""
    s = state()
    return following(s) and not s.offline


def follower_id() -> str | None:
    """This session's follower id (``ClassState.me``): the id its browser keeps once known. Votes and
    heartbeats use it, so one browser is one follower, however often it reloads."""
    return state().me


def notice(kind: str, text: str) -> None:
    s = state()
    s.notice, s.notice_at = (kind, text), time.time()


def pending_notice() -> Notice | None:
    """The message to show on this run: kept for NOTICE_S, since a page's first runs follow one another by
    themselves (its storage scripts answer) and a message shown on only one of them would flash and vanish."""
    s = state()
    shown = s.notice
    if shown is not None and time.time() - s.notice_at >= NOTICE_S:
        s.notice = shown = None
    return shown


def forget_class() -> None:
    """The session's state forgets its class (``leave()`` without the address): nothing it does sends the browser
    anything, so no rerun asked for meanwhile can stop a run halfway through it."""
    if role() == "student":
        wake.forget()
    state().leave()


def leave(message: str | None = None) -> None:
    """Back to learning alone: the page stays as it is."""
    forget_class()
    st.query_params.pop("room", None)
    st.query_params.pop("key", None)
    if message:
        notice("warning", message)
