"""Following a class: the room's view applied to this session, at the top of a full run.

When the room's version changed, the whole app reruns and ``register`` (from the sidebar) applies the
snapshot before the page draws a widget: same page, widget values through the session state
(``controls.set_lesson_controls``); another page, ``st.switch_page`` with the controls in the URL, exactly
as a shared link opens it. A change inside one lesson section reruns only that section, which applies it
in ``sections.section_starts`` (with ``hold`` for a run of a view already applied).
"""

from __future__ import annotations

import time

import streamlit as st

from classroom.store import Snapshot, StoreUnavailable, UnknownRoom
from ui import controls, navigation, present, wake
from ui.classroom import threads
from ui.classroom.rooms import room_store
from ui.classroom.session import LOST, following, late_run, leave, notice, state
from ui.content import page_index


def _apply(slug: str, snap: Snapshot) -> bool:
    """Make this session show the snapshot: switch page (as a link would open it) or set the widgets.

    A switch is counted as applied only by the run on the new page: a rerun of the old page that overtakes
    it (a message its browser sent before it knew of the switch) then switches again, where marking the
    version seen first left the student on the old page until the presenter's next change."""
    s = state()
    s.snap = snap
    switching = bool(snap.page) and snap.page != slug and snap.page in {p.slug for p in page_index()}
    if not switching:
        s.seen = snap.version                           # the caller (register) tells the watcher
    if not snap.page:
        return False
    if snap.step:
        st.session_state[controls.step_key(snap.page)] = snap.step
    if snap.page != slug:
        if not switching:
            return False
        params = controls.switch_params(snap.controls, present=present.active(), room=s.code)   # see ``hold``
        wake.switching(snap.page, params)
        s.left = (slug, time.time())
        st.switch_page(navigation.page(snap.page), query_params=params)
    controls.set_lesson_controls(snap.controls)
    return True


def _follow_now(slug: str) -> bool:
    """At the top of a run: apply the room's snapshot if it changed since this session last applied one."""
    s = state()
    try:
        snap = room_store().snapshot(s.code, time.time())
    except UnknownRoom:
        code, lost = s.code, s.offline
        leave(LOST if lost else None)
        if not lost:
            s.ended = code                              # said on every run until another class (sidebar)
        return False
    except StoreUnavailable:
        s.offline = True
        return False
    s.offline = False
    if snap.version == s.seen:
        return hold(slug, snap)
    return _apply(slug, snap)


def hold(slug: str, snap: Snapshot) -> bool:
    """A run of a view already applied: its controls set to the room's again. The run may come from a message
    the browser sent before it had the presenter's values, and a run starts from the browser's widget values:
    without this, such a run would put the old ones back, with the version counted as seen, until the
    presenter's next change. (A student who wants to move the controls explores on their own.)

    The same holds for the page: a message the browser sent from the old page, before it learnt of a switch,
    can arrive after the new page's run is over. That run reruns the old page with the version already
    counted as seen, and the student stayed there until the presenter's next change (a crowd of 500 joining
    at once left some on the lesson map for minutes). A run of the page just left, within ``session.LATE_RUN_S`` of
    the switch, switches again; a page the student opens by hand stays theirs until the presenter's next
    change, as before. True when the page switches."""
    if snap.page == slug:
        controls.set_lesson_controls(snap.controls)
        return False
    return late_run(slug, snap.page) and _apply(slug, snap)


def register(slug: str) -> bool:
    """At the top of a student's full run: note this session as a follower (or not), apply the room's
    view if it changed, and tell the watcher which version it has. True when the view was applied."""
    s = state()
    if not following():
        wake.forget()
        return False
    wake.follow(s.code)
    why = threads.full(wake.session_id() or "")
    if why is not None:                                 # the class is full: stop following, say why
        stop_following()
        notice("warning", why)
        return False
    applied = _follow_now(slug)
    wake.note(s.seen, s.me)
    return applied


def stop_following() -> None:
    s = state()
    s.following = False
    wake.forget()


def follow_again() -> None:
    s = state()
    s.following = True
    s.seen = None                                       # re-sync at once, whatever the version


def followed_step(slug: str) -> int | None:
    """The presenter's step on this page while this session follows it, else None."""
    snap = state().snap
    if following() and snap is not None and snap.page == slug and snap.step > 0:
        return snap.step
    return None
