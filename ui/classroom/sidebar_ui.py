"""The Classroom section of the sidebar, and a student's following bar at the top of the page."""

from __future__ import annotations

import time

import streamlit as st
from streamlit.errors import StreamlitAPIException

from classroom.store import RoomError, StoreUnavailable
from classroom.text import visible_text
from ui import controls, present, streamlit_private as private
from ui.classroom import browser, follow, joining, own_question, presenting, results_view, screens, threads
from ui.classroom.rooms import room_store
from ui.classroom.session import RECONNECTING, leave, notice, pending_notice, role, state

_JOIN_CODE = "_class_join_code"
# The classroom's browser-storage scripts (ui/classroom/browser.py) run in zero-size frames: no gap for them (nor
# for the wrapper Streamlit puts around a keyed container that holds one; never a block of elements itself).
# The lessons' list scrolls within the top of the sidebar (about 20 links, 900 px at 1280×720), so the Classroom
# section below it is in view at once; every lesson stays in it, in order.
# (Like every style the app adds, it applies a few hundred ms after the first page's sidebar is drawn: Streamlit
# draws style-only HTML after the elements, even placed beside them.)
_SIDEBAR_CSS = private.frontend("""<style>
.st-key-_class_browser, .st-key-_class_browser_keep,
div:not([data-testid="stVerticalBlock"]):has(> .st-key-_class_browser),
div:not([data-testid="stVerticalBlock"]):has(> .st-key-_class_browser_keep) { display: none; }
[data-testid="stSidebarNavItems"] { max-height: 45vh; overflow-y: auto; overscroll-behavior: contain; }
</style>""")
WAIT_EVERY_S = 0.5            # a join waiting for the browser's follower id looks again this often


def _join_submitted() -> None:
    typed = str(st.session_state.get(_JOIN_CODE) or "")[:33]   # one past the longest code normal_code reads
    st.session_state[_JOIN_CODE] = ""
    joining.join(typed)


def sidebar(slug: str) -> bool:
    """The Classroom section (sidebar) and, for a student, the following bar (top of the page).

    Returns True when this run applied the presenter's view to this page.
    """
    threads.ensure_running()                            # the listener and the watcher (once per process)
    applied = False
    with st.sidebar:
        st.html(_SIDEBAR_CSS)
        with st.container(key="_class_browser"):        # the browser-storage scripts: no room on screen
            browser.read()                              # this browser's follower id and this tab's class
            settled = joining.arrive()
    _visible_link()                                     # after arrive(): a write would send a link's key back
    s = state()
    if presenting.late(slug):
        s.resuming = True                               # a late run of the page a resume left: resume again
    if settled:
        _resume_from_tab()
        presenting.resume(slug)
    if s.role == "presenter":
        s.mid_run = True                                # publish() at the end of this run clears it
    if role() == "student":
        applied = follow.register(slug)
    with st.sidebar:
        st.subheader("Classroom")
        with st.container(key="_class_browser_keep"):
            browser.keep_presenter((s.code, s.key) if role() == "presenter" and s.key else None)
            if role() == "student":
                private.close_sidebar(joining.joined())  # once per join, on a tablet or phone: the lesson in full
        if role() == "presenter":
            presenting.panel(slug)
        elif role() == "student":
            st.caption(f"You are in class {state().code}.")
            st.button("Leave the class", key="_class_leave", on_click=leave, width="stretch")
        elif joining.waiting():
            _waiting(joining.waiting())
        else:
            _alone()
    if not settled:
        st.stop()                                       # the address bar is being rewritten: change nothing
    present.keep_address()                              # after arrive(), as _visible_link: a key may be in it
    if s.role is None and s.ended:
        st.info(f"The class has ended (class {s.ended}). This page stays as it is, for you to explore.",
                icon=":material/event_busy:")
    notice = pending_notice()
    if notice is not None:
        {"warning": st.warning, "success": st.success, "info": st.info}[notice[0]](notice[1])
    if role() is None:
        results_view.after_class()                      # an ended class's results, for its presenter
    if role() == "student":
        _student_bar()
        own_question.own_for_student()                         # the presenter's own question, while it is asked
    return applied


def _visible_link() -> None:
    """A link's words as the page will show them: without invisible or direction-changing characters (a
    ``?lab_word=%E2%80%AEknab`` would otherwise reverse the sentence around it). Before any widget reads them."""
    for name in [n for n in st.query_params if n not in ("room", "key")]:   # a code is refused, not mended
        values = st.query_params.get_all(name)
        shown = [visible_text(v, multiline=True) for v in values]
        if shown != values:
            private.reseed_query_param(name, shown)     # what a bound widget takes from the link
            try:
                st.query_params[name] = controls.link_value(shown)
            except StreamlitAPIException:               # bound to a drawn widget: its own value, as typed
                continue


def _resume_from_tab() -> None:
    """Once per session: this tab was presenting a class before a reload (its sessionStorage says so, with
    the key): present it again, unless the address asks for another class."""
    if role() is not None or not browser.said():
        return
    entry = browser.presenter_entry()
    if entry is None:
        return
    code, key = entry
    asked = st.query_params.get("room")
    if asked is not None and joining.code_of(asked) != code:
        return
    try:
        if not room_store().is_presenter(code, key):
            return                                      # ended meanwhile: the tab forgets it (keep_presenter)
    except (StoreUnavailable, RoomError):
        notice("warning", "The class you were presenting cannot be reached right now: reload in a moment.")
        return
    st.query_params.pop("room", None)
    joining.become_presenter(code, key)
    notice("success", f"You are presenting class {code} again.")


@st.fragment(run_every=WAIT_EVERY_S)
def _waiting(code: str) -> None:
    """A join waits for the browser's follower id (its answer reruns the page); without one by then, it
    joins anyway (a browser that runs no scripts)."""
    if joining.waiting() != code:
        st.rerun(scope="app")
    st.caption(f":material/hourglass_top: Joining class {code}…")
    if time.time() - state().pending_since >= joining.WAIT_FOR_BROWSER_S:
        st.rerun(scope="app")


def _alone() -> None:
    """Start a class (or resume presenting the one this browser presented), or join one."""
    screens.resume_offer()
    st.button("Start a class", key="_class_start", on_click=presenting.start, icon=":material/co_present:",
              width="stretch", help="Students follow your page, step and controls, and answer "
                                    "your questions live.")
    # No st.form: its submit button's session key ("FormSubmitter:...") would read as a lesson control.
    st.text_input("Join a class", key=_JOIN_CODE, max_chars=12, on_change=_join_submitted,
                  placeholder="Room code, e.g. K7MQ2P")
    st.button("Join", key="_class_join", on_click=_join_submitted, width="stretch")


def _student_bar() -> None:
    code = state().code
    with st.container(border=True, horizontal=True, vertical_alignment="center", key="_class_bar"):
        if follow.following() and state().offline:
            st.markdown(f":material/sync: **{RECONNECTING}** (class {code}). The lesson works on its own meanwhile.")
            st.button("Explore on my own", key="_class_explore", on_click=follow.stop_following)
        elif follow.following():
            st.markdown(f":material/groups: **Following class {code}**: this page and its controls move with the "
                        "presenter.")
            st.button("Explore on my own", key="_class_explore", on_click=follow.stop_following)
        else:
            st.markdown(f":material/explore: **Exploring on your own** (class {code}).")
            st.button("Follow again", key="_class_follow", on_click=follow.follow_again, type="primary")
