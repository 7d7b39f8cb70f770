"""A lesson section (one of the pages' fragments, through ``ui.frame.Frame.fragment``) in a live class.

A presenter's move inside a section reruns only that section, on the presenter's screen and on each
follower's: ``section_starts`` runs at the top of the section (a follower applies the room's new view
there), ``section_ends`` at its end (a presenter publishes the change there, naming the section). Both
roles meet here, so this module sits above ``follow`` and ``presenting``, which never import it.
"""

from __future__ import annotations

import time

import streamlit as st

from classroom.store import RoomError, StoreUnavailable
from ui import controls, wake
from ui.classroom.follow import hold
from ui.classroom.presenting import publish
from ui.classroom.rooms import room_store
from ui.classroom.session import following, late_run, role, state


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
        hold(slug, snap)
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
    controls.set_lesson_controls(snap.controls)
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
