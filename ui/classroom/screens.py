"""Several presenter screens of one class (issue 46): the projector, a console on a phone, a laptop, each showing
the room's view; and a presenter whose browser closed, offered the class again in that browser.

A screen's view is based on the room version it last published or took (``ClassState.seen``); it publishes from
that version only (``RoomStore.publish``'s ``base``, in ``presenting.publish``). At the top of each presenter run
``moved_on`` looks at the room's version: when another screen has moved the class, this screen takes the room's
view, with its own move of this run made again on top, so a screen that is behind never moves the class back.
Between runs, the presenter's fragment asks ``behind`` every ``presenting.PRESENT_EVERY_S`` and reruns the
screen when another one moved the class: a move on one screen shows on the others within a second or so.

While a class is live its presenter's browser keeps the class and key (``browser.keep_presenter``): a session in
no class is offered "Resume presenting class CODE" (``resume_offer``) while that class is live.
"""

from __future__ import annotations

import time

import streamlit as st

from classroom.store import RoomError, Snapshot, StoreUnavailable
from classroom.text import visible_text
from ui import controls, present, wake_queue
from ui.classroom import browser, console, joining
from ui.classroom.rooms import room_store
from ui.classroom.session import View, notice, state

_HIDDEN_CSS = "<style>.st-key-_class_browser_forget { display: none; }</style>"
_BEHIND = "_class_behind_at"     # session key: the room version this screen last found itself behind
_OFFER = "_class_resume_offer"   # session key: the live class this browser kept, checked once: (code, key) or None


def view(slug: str) -> View:
    """This screen's view as the class would be shown it: its page, its step (0 outside presenter mode) and its
    lesson controls, read from the session (at the top of a run, what its browser sent)."""
    step = int(st.session_state.get(controls.step_key(slug), 1)) if present.active() else 0
    # What a follower is shown drops invisible and direction-changing characters (a typed U+202E).
    shown = {name: [visible_text(v, multiline=True) for v in values]
             for name, values in controls.lesson_controls(slug).items()}
    return (slug, step, shown)


def room_view(snap: Snapshot) -> View:
    return (snap.page, snap.step, snap.controls)


def note_poll(snap: Snapshot) -> None:
    """The question the class is asked, as this screen's panel shows it (another screen may have asked it)."""
    poll, s = snap.poll, state()                          # this session's classroom state
    s.poll = (poll.poll_id, poll.options, poll.revealed) if poll is not None else None


def moved_on(slug: str) -> None:
    """At the top of a presenter's run: when another screen of the class has moved it since this screen last
    looked (one version read), this screen takes the room's view. With no move of its own in this run, all of
    it (``resume`` then applies it, ``s.resuming``). With a move of its own (a Next or a Back, a slider; the
    browser sent it with this run), that move is made again on top of the room's view: the step moves by as
    much from the room's step, a control it changed keeps its new value, every other control takes the room's.
    A move on a page or in a mode the class has left gives way to the room's view; a move to another page
    stands (that page is published)."""
    s = state()
    now = time.time()
    try:
        if room_store().version(s.code, now) == s.seen:
            return
        snap = room_store().snapshot(s.code, now)
    except StoreUnavailable:
        s.offline = True
        return
    except RoomError:
        return                                          # publish() says what happened to the class
    note_poll(snap)
    room, base = room_view(snap), s.published
    s.seen = snap.version
    if not snap.page or base is None or room == base:
        return                                          # nothing new to show: this screen's view stands
    here = view(slug)
    if here == base or (here[0] == base[0] and (snap.page != base[0] or (snap.step > 0) != (base[1] > 0))):
        s.resuming = True
        return
    if here[0] != base[0]:
        return
    mine = {name for name, values in here[2].items() if name in base[2] and base[2][name] != values}
    step = _rebased_step(slug, snap.step, base[1], here[1])
    if step:
        st.session_state[controls.step_key(slug)] = step
    controls.set_lesson_controls({name: values for name, values in snap.controls.items() if name not in mine})
    s.published = room                                  # this run's publish sends the rebased view


def _rebased_step(slug: str, room: int, base: int, here: int) -> int:
    """The step after this screen's own step move (``base`` to ``here``) is made again from the room's step:
    Next on a screen that is behind goes one past where the class is, never back to where this screen was.
    Turning presenter mode on or off (0 stands for off) stands as it is."""
    if (here > 0) != (base > 0):
        return here
    if here == base:
        return room
    last = len(console.step_names(slug)) or max(room, here)
    return min(max(room + here - base, 1), last)


def behind() -> bool:
    """Between this screen's runs: another screen of the class has moved it (its view, or its question) since this
    screen last looked, so this screen must run again to show it. One version read while nothing changed."""
    s = state()
    if s.role != "presenter" or s.mid_run or s.resuming:
        return False
    now = time.time()
    try:
        if room_store().version(s.code, now) == s.seen:
            return False
        snap = room_store().snapshot(s.code, now)
    except RoomError:
        return False                                    # the count below says what happened
    poll = (snap.poll.poll_id, snap.poll.options, snap.poll.revealed) if snap.poll is not None else None
    if (snap.page and room_view(snap) != s.published) or poll != s.poll:
        return _students_first(snap.version)
    s.seen = snap.version                               # a change of this screen's own (a question, a check)
    return False


def _students_first(version: int) -> bool:
    """Whether this screen may run again for room version ``version`` now. A presenter's run holds the wakes of the
    followers in this process (``ui.wake_queue``, so that a presenter's own move comes first); a screen that only
    takes another screen's move lets the students it would hold go first, for one look (``PRESENT_EVERY_S``)."""
    ss = st.session_state
    since = ss.get(_BEHIND)
    if since == version:
        return True
    ss[_BEHIND] = version
    return not wake_queue.wakes().pending()


def forget_offer() -> None:
    """This session presents a class of its own now: the offer is made again (for what the browser then keeps)."""
    st.session_state.pop(_OFFER, None)


def _kept_live() -> tuple[str, str] | None:
    """The class this browser was presenting while it was live (kept by ``browser.keep_presenter``, in a tab since
    closed), if its key still presents it: checked once per session; an entry whose class has ended is removed."""
    ss = st.session_state
    if _OFFER not in ss:
        if not browser.said():
            return None                                 # its storage is read first (its answer reruns the page)
        entry = browser.live_presenter_entry()
        try:
            ss[_OFFER] = entry if entry is not None and room_store().is_presenter(*entry) else None
        except StoreUnavailable:
            return None                                 # asked again on the next run
        except RoomError:
            ss[_OFFER] = None
    if ss[_OFFER] is None and browser.live_presenter_entry() is not None:   # its class has ended: forgotten
        st.html(_HIDDEN_CSS)                            # the storage script runs in a frame of no size
        with st.container(key="_class_browser_forget"):
            browser.forget_live_presenter()
    return ss[_OFFER]


def _resume_kept(code: str, key: str) -> None:
    st.session_state.pop(_OFFER, None)
    try:
        live = room_store().is_presenter(code, key)
    except StoreUnavailable:
        notice("warning", "The class you were presenting cannot be reached right now: try again in a moment.")
        return
    if not live:
        notice("info", f"Class {code} has ended.")
        return
    joining.become_presenter(code, key)
    notice("success", f"You are presenting class {code} again.")


def resume_offer() -> None:
    """For a session in no class: "Resume presenting class CODE" when this browser presented a class that is still
    live (its tab or the browser closed meanwhile), above "Start a class"."""
    kept = _kept_live()
    if kept is None:
        return
    st.button(f"Resume presenting class {kept[0]}", key="_class_resume", on_click=_resume_kept, args=kept,
              type="primary", icon=":material/co_present:", width="stretch",
              help="This browser was presenting this class: present it again, on the class's page, step and "
                   "controls (no student moves).")
