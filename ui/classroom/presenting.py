"""Presenting a class: starting and ending it, publishing the presenter's view, and the presenter's panel.

The presenter publishes the page, the presenter step and the lesson controls (``ui.controls``, the same
definition "Link to this view" uses) at the end of each run, and from a small fragment every
``PRESENT_EVERY_S`` (a control inside a page's own fragment reruns that fragment only).
"""

from __future__ import annotations

import time
from urllib.parse import urlencode

import segno
import streamlit as st

from classroom.store import NotPresenter, RoomError, StoreUnavailable, UnknownRoom
from ui import controls, present, wake
from ui.classroom import results_view
from ui.classroom.rooms import changed, room_store
from ui.classroom.session import ENDED_ELSEWHERE, LOST_PRESENTER, RECONNECTING, leave, notice, role, state

PRESENT_EVERY_S = 0.5         # the presenter's publish check and follower count


def start() -> None:
    try:
        code, key = room_store().create_room(time.time())
    except StoreUnavailable:
        notice("warning", "The classroom cannot be reached right now: try again in a moment.")
        return
    except RoomError as err:
        notice("warning", str(err))
        return
    leave()
    s = state()
    s.role, s.code, s.key = "presenter", code, key


def end() -> None:
    s = state()
    try:
        room_store().end_room(s.code, s.key)
    except RoomError:
        pass                                            # already gone: the result is the same
    changed(s.code)
    results_view.remember(s.code, s.key)                # its results, for this presenter, for a day
    leave()
    notice("info", "The class has ended.")


def publish(slug: str, *, from_tick: bool = False, section: wake.Section | None = None) -> None:
    """The presenter's view, published if it changed since the last publish: called at the end of every
    full run, at the end of a lesson section's own run (naming the ``section``), and by the presenter's
    fragment between full runs (not during one: a new page's widgets do not exist yet, and a half-made view
    would cost every student an extra run)."""
    s = state()
    if s.role != "presenter":
        return
    if from_tick and s.mid_run:
        return
    if not from_tick:
        s.mid_run = False
    step = int(st.session_state.get(controls.step_key(slug), 1)) if present.active() else 0
    view = (slug, step, controls.lesson_controls(slug))
    if s.published == view:
        return
    try:
        room_store().publish(s.code, s.key, *view, time.time())
    except ValueError:
        notice("warning", "This view is too large to share with the class; the class stays where it was.")
    except StoreUnavailable:
        s.offline = True                                # not marked published: sent again once reachable
        return
    except (NotPresenter, UnknownRoom):
        leave(LOST_PRESENTER if s.offline else ENDED_ELSEWHERE)
        return
    s.offline = False
    s.published = view
    changed(s.code, section)


def app_root(url: str, slug: str) -> str:
    """The app's root URL from the current page's (its path ends with the page's name, except home)."""
    base = (url or "").split("?")[0].split("#")[0].rstrip("/")
    if slug != "home" and base.endswith("/" + slug):
        base = base[: -len(slug) - 1]
    return base + "/"


def join_link(code: str, slug: str) -> str:
    return app_root(st.context.url or "", slug) + "?" + urlencode({"room": code})


@st.cache_data(max_entries=64, ttl=4 * 3600)
def qr_png(link: str) -> bytes:
    """The join link as a QR code: 10 px per module, so ~330 px for a short link (scannable across a room)."""
    import io

    out = io.BytesIO()
    segno.make(link, error="m").save(out, kind="png", scale=10, border=2, dark="#000000", light="#ffffff")
    return out.getvalue()


@st.dialog("Join the class", width="large")
def _show_large(code: str, link: str) -> None:
    st.markdown(f"## Room code: {code}")
    st.image(qr_png(link), width=560)
    st.code(link, language=None, wrap_lines=True)


@st.fragment(run_every=PRESENT_EVERY_S)
def _presenter_tick(slug: str) -> None:
    """Publishes what a fragment's control changed, and keeps the follower count current."""
    if role() != "presenter":
        return
    publish(slug, from_tick=True)
    if role() != "presenter":
        st.rerun(scope="app")
    s = state()
    try:
        n = room_store().follower_count(s.code, time.time())
    except StoreUnavailable:
        s.offline = True
        st.markdown(f":material/sync: **{RECONNECTING}**")
        return
    except UnknownRoom:
        leave(LOST_PRESENTER if s.offline else ENDED_ELSEWHERE)
        st.rerun(scope="app")
    except RoomError:
        return
    s.offline = False
    st.markdown(f"**{n} student{'s' if n != 1 else ''} following**")


def panel(slug: str) -> None:
    """The presenter's part of the sidebar: the code, link and QR code to join, the count, the private link."""
    s = state()
    code, key = s.code, s.key
    link = join_link(code, slug)
    st.markdown(f"### Room code: {code}")
    st.caption("Students open this link, scan the code, or type the room code into *Join a class*.")
    st.code(link, language=None, wrap_lines=True)
    st.image(qr_png(link), width="stretch", caption="Scan to join")
    if st.button("Show the code large", key="_class_large", icon=":material/fullscreen:", width="stretch"):
        _show_large(code, link)
    _presenter_tick(slug)
    with st.popover("Presenter link (keep private)", icon=":material/key:", width="stretch"):
        st.caption("Open this link to present this class again, after a reload or on another device. "
                   "Anyone with it can move the class: do not show it on the projector.")
        st.code(link + "&" + urlencode({"key": key}), language=None, wrap_lines=True)
    results_view.panel_entry()                          # the concept check page, and "Class results"
    st.button("End the class", key="_class_end", on_click=end, icon=":material/stop_circle:", width="stretch")
