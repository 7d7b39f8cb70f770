"""Following a class: the room's view applied to this session, at the top of a run or of a lesson section.

When the room's version changed, the whole app reruns and ``register`` (from the sidebar) applies the
snapshot before the page draws a widget: same page, widget values through the session state; another
page, ``st.switch_page`` with the controls in the URL, exactly as a shared link opens it. A change inside
one lesson section reruns only that section, which applies it in ``section_starts``.
"""

from __future__ import annotations

import math
import time

import streamlit as st

from classroom.store import RoomError, Snapshot, StoreUnavailable, UnknownRoom
from ui import controls, navigation, present, streamlit_private as private, wake
from ui.classroom import watcher
from ui.classroom.presenting import publish
from ui.classroom.rooms import listening, room_store
from ui.classroom.session import LOST, following, late_run, leave, notice, role, state
from ui.content import page_index


def _typed(text: str, like: object) -> object:
    """``text`` (as a link carries it) as the type of the widget's current value; ValueError if it is not one."""
    if isinstance(like, bool):
        if text not in ("true", "false"):
            raise ValueError(text)
        return text == "true"
    if isinstance(like, int):
        return int(text)
    if isinstance(like, float):
        value = float(text)
        if not math.isfinite(value):
            raise ValueError(text)
        return value
    return text


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
        params = controls.switch_params(snap.controls, present=present.active(), room=s.code)   # see ``_hold``
        wake.switching(snap.page, params)
        s.left = (slug, time.time())
        st.switch_page(navigation.page(snap.page), query_params=params)
    _set_controls(snap)
    return True


def _set_controls(snap: Snapshot) -> None:
    """This session's lesson controls set to the snapshot's, before their widgets are drawn in this run."""
    ss = st.session_state
    for name, values in snap.controls.items():
        if not controls.is_lesson_control(name):
            continue
        current = ss[name] if name in ss else None
        try:
            if name not in ss:
                st.query_params[name] = controls.link_value(values)
            elif isinstance(current, list | tuple):
                like = current[0] if current else ""
                value = type(current)(_typed(v, like) for v in values)
                if value != current:
                    ss[name] = value
            elif len(values) == 1 and (value := _typed(values[0], current)) != current:
                ss[name] = value
        except (ValueError, TypeError):
            continue                                    # a value this session's widget cannot take


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
        return _hold(slug, snap)
    return _apply(slug, snap)


def _hold(slug: str, snap: Snapshot) -> bool:
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
        _set_controls(snap)
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
    listening()
    if private.served():
        why = watcher.watcher().full(wake.session_id() or "")
        if why is not None:                             # the class is full: stop following, say why
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


# --- lesson sections (the pages' fragments, through ui.frame.Frame.fragment) ------------------------------------

def section_starts(slug: str, name: str) -> frozenset[str] | None:
    """At the top of a lesson fragment. A follower notes the section's fragment id (a presenter's change
    inside it then reruns only this section, ``ui.wake``); in a fragment-only run it applies the room's
    new snapshot here, before the section draws a widget, when the change lies inside this section.
    Anything else (another page or step, a poll, a control outside) reruns the whole page instead.
    Returns, for a follower only, the widget keys drawn so far in this run (for ``section_ends``)."""
    if not following():
        return None
    wake.section((slug, name))
    drawn_before = wake.widget_keys()
    if not wake.fragment_run():
        return drawn_before                             # a full run: sidebar() has applied the view already
    s = state()
    try:
        snap = room_store().snapshot(s.code, time.time())
    except StoreUnavailable:
        return drawn_before                             # the watcher wakes the page, which says so
    except RoomError:
        st.rerun(scope="app")                           # the full run says what happened to the class
    if snap.version == s.seen:
        if late_run(slug, snap.page):
            st.rerun(scope="app")                       # a late run of the page left: the full run switches
        _hold(slug, snap)
        return drawn_before
    before, owned = s.snap, s.sections.get((slug, name))
    if before is None or owned is None or snap.page != slug or \
            (snap.page, snap.step, snap.poll) != (before.page, before.step, before.poll):
        st.rerun(scope="app")
    changed = {k for k in snap.controls.keys() | before.controls.keys()
               if snap.controls.get(k) != before.controls.get(k)}
    if not changed <= owned:
        st.rerun(scope="app")
    s.seen, s.snap = snap.version, snap
    wake.note(snap.version, s.me)
    _set_controls(snap)
    return drawn_before


def section_ends(slug: str, name: str, drawn_before: frozenset[str] | None) -> None:
    """At the end of a lesson fragment: a follower keeps the widget keys the section drew (those drawn since
    ``drawn_before``, from ``section_starts``); a presenter whose change reran only this section publishes
    it now, naming the section."""
    if following():
        drawn_after = wake.widget_keys()
        if drawn_before is not None and drawn_after is not None:
            s = state()
            s.sections[(slug, name)] = drawn_after - drawn_before
    elif role() == "presenter" and wake.fragment_run():
        publish(slug, from_tick=True, section=(slug, name))
