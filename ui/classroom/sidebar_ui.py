"""The Classroom section of the sidebar, and a student's following bar at the top of the page."""

from __future__ import annotations

import streamlit as st

from ui.classroom import follow, joining, presenting, results_view
from ui.classroom.session import RECONNECTING, leave, role, state

_JOIN_CODE = "_class_join_code"


def _join_submitted() -> None:
    typed = str(st.session_state.get(_JOIN_CODE) or "")[:33]   # one past the longest code normal_code reads
    st.session_state[_JOIN_CODE] = ""
    joining.join(typed)


def sidebar(slug: str) -> bool:
    """The Classroom section (sidebar) and, for a student, the following bar (top of the page).

    Returns True when this run applied the presenter's view to this page.
    """
    applied = False
    joining.arrive()
    s = state()
    if s.role == "presenter":
        s.mid_run = True                                # publish() at the end of this run clears it
    if role() == "student":
        applied = follow.register(slug)
    with st.sidebar:
        st.subheader("Classroom")
        if role() == "presenter":
            presenting.panel(slug)
        elif role() == "student":
            st.caption(f"You are in class {state().code}.")
            st.button("Leave the class", key="_class_leave", on_click=leave, width="stretch")
        else:
            _alone()
    if s.role is None and s.ended:
        st.info(f"The class has ended (class {s.ended}). This page stays as it is, for you to explore.",
                icon=":material/event_busy:")
    notice, s.notice = s.notice, None
    if notice is not None:
        {"warning": st.warning, "success": st.success, "info": st.info}[notice[0]](notice[1])
    if role() is None:
        results_view.after_class()                      # an ended class's results, for its presenter
    if role() == "student":
        _student_bar()
    return applied


def _alone() -> None:
    """Start a class, or join one."""
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
