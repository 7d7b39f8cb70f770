"""The presenter console: the presenter link opened on a second device (a phone, a laptop at the lectern) shows,
above the class's own Next / Back bar, the current step and the next one's label, the speaker notes for the
current step, a class clock and "N following · N answered".

It is private to a presenter session that asked for it: the presenter link with ``&console=1`` (the QR code
"for your phone" in the *Presenter link (keep private)* popover carries it), or the **Presenter console** toggle
in the presenter's panel, off by default. The projector, and every student, never draws it.

The notes live in each lesson's ``[speaker_notes]`` table (``ui.content.Lesson.speaker_notes``), keyed by the
name of the step in the page's ``Step`` enum; the names are read from the page file itself (``step_names``), so
a relabelled step keeps its notes and a page needs no change.
"""

from __future__ import annotations

import re
import time
from functools import lru_cache
from urllib.parse import urlencode

import streamlit as st

from classroom.store import RoomError, StoreUnavailable
from ui import present, streamlit_private as private
from ui.classroom.rooms import room_store
from ui.classroom.session import role, state
from ui.content import APP_DIR, PAGE_FILES, load_lesson

CONSOLE_PARAM, SINCE_PARAM = "console", "since"   # the console link: the presenter link with &console=1&since=…
TOGGLE = "_class_console"                          # the toggle's key (a "_class" key: never a lesson control)
_ON = "_class_console_on"                          # the choice itself: kept when a run draws no toggle
_STARTED = "_class_console_started"               # (room code, start time, exact?) as this session knows it
_LINKED = "_class_console_linked"                  # a presenter link's console and since, kept past the wipe
LIVE_EVERY_S = 1.0                                 # the clock and the counts refresh this often
MAX_CLASS_S = 24 * 3600                            # a link's start time older than this is not believed


# A page's ``class Step(Steps):`` block and its members' names (``    NAME = "label"``), read as text: a parse
# (``ast.parse``) in a session's thread is unsafe beside other threads on Python 3.11 (.streamlit/config.toml,
# magicEnabled), and the console runs in a session's thread.
_STEP_CLASS = re.compile(r"^class Step\(Steps\):\n((?:[ \t]+.*\n|[ \t]*\n)*)", re.M)
_STEP_NAME = re.compile(r"^    ([A-Z][A-Z0-9_]*) = ", re.M)


@lru_cache(maxsize=64)
def step_names(slug: str) -> tuple[str, ...]:
    """The names of the page's presenter steps (``class Step(Steps)``), in order; () when it has none."""
    try:
        text = (APP_DIR / PAGE_FILES.format(slug=slug)).read_text(encoding="utf-8")
    except OSError:
        return ()
    block = _STEP_CLASS.search(text)
    return tuple(_STEP_NAME.findall(block.group(1))) if block else ()


def notes_for(slug: str, number: int) -> str:
    """The speaker notes of step ``number`` (1-based) of lesson ``slug``; "" when it has none."""
    names = step_names(slug)
    if not 1 <= number <= len(names):
        return ""
    return load_lesson(slug).speaker_notes.get(names[number - 1], "").strip()


def on() -> bool:
    """This session presents a class and asked for the console."""
    return role() == "presenter" and bool(st.session_state.get(_ON))


def _link_params() -> dict[str, str]:
    """This run's ``&console=`` and ``&since=``, those present."""
    return {name: st.query_params.get(name, "") for name in (CONSOLE_PARAM, SINCE_PARAM) if name in st.query_params}


def keep_link() -> None:
    """A presenter link's run, before its address is wiped: keep its ``&console=`` and ``&since=`` for
    ``arrive``. The wipe rewrites the address bar at once, and a run that the wipe's answer interrupts before
    ``arrive`` has read them would otherwise find them gone (the browser sends the rewritten address with its
    next run): the console link would open a plain presenter screen."""
    linked = _link_params()
    if linked:
        st.session_state[_LINKED] = linked


def arrive() -> None:
    """A presenter's run: a console link's ``&console=1`` turns the console on for this session, and its
    ``&since=`` gives the class clock its start. Both leave this run's parameters without a history entry
    (the presenter link's key is being wiped from the address bar at the same time)."""
    s = state()
    if s.role != "presenter":
        return
    now = time.time()
    linked = {**st.session_state.pop(_LINKED, {}), **_link_params()}
    if linked.get(CONSOLE_PARAM) == "1":
        st.session_state[_ON] = True
        st.session_state.pop(TOGGLE, None)              # the toggle shows the choice on its next drawing
    since = linked.get(SINCE_PARAM, "")
    if since.isdigit() and now - MAX_CLASS_S <= int(since) <= now + 60:
        st.session_state[_STARTED] = (s.code, min(float(since), now), True)
    if CONSOLE_PARAM in st.query_params or SINCE_PARAM in st.query_params:
        private.drop_query_params(CONSOLE_PARAM, SINCE_PARAM)
    started = st.session_state.get(_STARTED)
    if started is None or started[0] != s.code:         # first seen here: started now, or joined now
        st.session_state[_STARTED] = (s.code, now, not s.resuming)


def link(presenter_link: str) -> str:
    """The console link: the presenter link (with its key) and the class's start, for the clock."""
    started = st.session_state.get(_STARTED)
    since = {SINCE_PARAM: int(started[1])} if started and started[2] else {}
    return presenter_link + "&" + urlencode({CONSOLE_PARAM: 1, **since})


def offer(console_link: str, qr: bytes) -> None:
    """Inside the private popover: the console link as a QR code for the presenter's phone."""
    st.image(qr, caption="Presenter console, for your phone: your notes, the clock and Next / Back",
             width=220)
    st.code(console_link, language=None, wrap_lines=True)


def _switched() -> None:
    st.session_state[_ON] = bool(st.session_state.get(TOGGLE))


def toggle() -> None:
    """The presenter's switch for this screen's console (off by default: the projector never shows it)."""
    if TOGGLE not in st.session_state:                  # a widget's state goes with a run that did not draw it
        st.session_state[TOGGLE] = bool(st.session_state.get(_ON))
    st.toggle("Presenter console", key=TOGGLE, on_change=_switched,
              help="On this screen only: the current and next step, your speaker notes, the class clock and "
                   "the counts, above Next / Back. Keep it off on the projector.")
    if on() and not present.active():
        st.caption("The console shows above Next / Back on a lesson page, in presenter mode.")


def clock(seconds: float) -> str:
    """A class's running time as a presenter reads it: "4:07", "1:02:09"."""
    s = max(0, int(seconds))
    h, m, sec = s // 3600, s // 60 % 60, s % 60
    return f"{h}:{m:02d}:{sec:02d}" if h else f"{m}:{sec:02d}"


@st.fragment(run_every=LIVE_EVERY_S)
def _live() -> None:
    """The class clock and "N following · N answered", kept current between the page's runs."""
    s = state()
    if role() != "presenter":
        return
    now = time.time()
    code, since, exact = st.session_state.get(_STARTED, (s.code, now, False))
    words = "Class clock" if exact and code == s.code else "On this screen"
    try:
        following = room_store().follower_count(s.code, now)
        poll = room_store().snapshot(s.code, now).poll
        tally = room_store().tally(s.code, poll.poll_id, now) if poll and not poll.revealed else None
    except (StoreUnavailable, RoomError):
        st.markdown(f":material/timer: **{words} {clock(now - since)}**")
        return
    counts = f"{following} following" + (f" · {tally.answered} answered" if tally is not None else "")
    st.markdown(f":material/timer: **{words} {clock(now - since)}** · {counts}")


def draw(slug: str, labels: list[str], shown: int) -> None:
    """The console, for a presenter session that asked for it, on a page with presenter steps."""
    if not on():
        return
    with st.container(border=True, key="_class_console_box"):
        st.markdown(f"**:material/co_present: Step {shown} of {len(labels)}:** {labels[shown - 1]}")
        st.caption(f"Next: {labels[shown]}" if shown < len(labels) else "Next: the last step (the page ends here)")
        _live()
        notes = notes_for(slug, shown)
        with st.container(key="_class_console_notes"):
            st.markdown(notes if notes else "*No speaker notes for this step.*")
