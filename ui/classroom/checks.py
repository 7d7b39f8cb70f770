"""The concept check in class: the presenter opens it as the "Pre-class check" or the "Exit check", following
students answer all its questions on one form, anonymously, and see nothing of the answers until the presenter
reveals them (the exit check only: the pre-check gives no answers at all, so it does not teach the exit check).

The questions are ``classroom.concept_check``'s; the store holds them as one check (``RoomStore.open_check``),
round 1 the pre-class check and round 2 the exit check, so the class's results give the gain.
"""

from __future__ import annotations

import time

import streamlit as st

from classroom import results as cr
from classroom.concept_check import SLUG, ConceptQuestion
from classroom.store import Check, RoomError, StoreUnavailable
from ui import concept_check
from ui.classroom.rooms import changed, room_store
from ui.classroom.session import following, notice, role, state

CHECK_EVERY_S = 1.0              # the presenter's count of answers
NAMES = {1: "Pre-class check", 2: "Exit check"}
_SENT = "_class_check_sent"      # this student's answers sent, per round: {round: {question id: option}}


def _open_check() -> Check | None:
    """The room's open check (the concept check), or None; None too while the store cannot be reached."""
    s = state()
    snap = s.snap if role() == "student" else None
    if role() == "presenter":
        try:
            snap = room_store().snapshot(s.code, time.time())
        except RoomError:
            return None
    check = snap.check if snap is not None else None
    return check if check is not None and check.check_id == SLUG else None


def in_class() -> bool:
    """The concept check page is the class's here (``class_check`` draws it): a presenter's, or a following
    student's."""
    return role() == "presenter" or following()


def how(alone: str, in_class_text: str) -> str:
    """How the check works, for this learner: in class, what the class does (the presenter opens each check, the
    answers go to the class, the presenter reveals); alone, the two tries (two notes of the lesson file)."""
    return (in_class_text if in_class() else alone).strip()


def class_check(questions: tuple[ConceptQuestion, ...]) -> bool:
    """The class's side of the concept check page: the presenter's controls, or a follower's form. False for a
    learner on their own, who takes the check alone (a student exploring on their own is told where the class's
    check went)."""
    if role() == "presenter":
        _presenter(questions)
        return True
    if following():
        _student(questions)
        return True
    if role() == "student":
        st.caption(":material/explore: You are exploring on your own: the class's check appears here when you "
                   "follow again. Meanwhile, this is the check on your own.")
    return False


# --- the presenter -------------------------------------------------------------------------------------------

def _open(questions: tuple[ConceptQuestion, ...], round_: int) -> None:
    s = state()
    try:
        room_store().open_check(s.code, s.key, SLUG, tuple((q.poll_id, q.options, q.info) for q in questions),
                                time.time(), round=round_)
    except ValueError:
        notice("warning", "The exit check has started already: the pre-class check cannot be asked again.")
        return
    except RoomError as err:
        notice("warning", str(err))
        return
    changed(s.code)


def _act(method: str) -> None:
    s = state()
    try:
        getattr(room_store(), method)(s.code, s.key, time.time())
    except RoomError as err:
        notice("warning", str(err))
        return
    changed(s.code)


def _exit_started() -> bool:
    s = state()
    try:
        found = room_store().results(s.code, s.key, time.time())
    except RoomError:
        return False
    return any(len(q.rounds) > 1 for q in cr.check_results(found).questions)


def _presenter(questions: tuple[ConceptQuestion, ...]) -> None:
    check = _open_check()
    if check is None:
        _closed(questions, _exit_started())
        return
    _live(check)


@st.fragment(run_every=CHECK_EVERY_S)
def _closed(questions: tuple[ConceptQuestion, ...], exit_started: bool) -> None:
    """No check is open: the two buttons that open one. A check opened here (a press reruns only this fragment) or
    on another presenter screen of the class redraws the page with its panel."""
    if role() != "presenter":
        return
    if _open_check() is not None:
        st.rerun(scope="app")
    st.markdown("**Ask the class.** Every student who follows answers all ten questions on their own screen, "
                "anonymously. The pre-class check shows no answers at all; the exit check shows them when you "
                "reveal. *Class results* in the sidebar then gives the gain.")
    cols = st.columns(2)
    cols[0].button("Pre-class check", key="_class_check_pre", on_click=_open, args=(questions, 1),
                   disabled=exit_started, icon=":material/play_arrow:", width="stretch",
                   help="At the start of the class: ten questions, no answers shown.")
    cols[1].button("Exit check", key="_class_check_exit", on_click=_open, args=(questions, 2),
                   icon=":material/flag:", width="stretch",
                   help="At the end of the class: the same ten questions again.")


@st.fragment(run_every=CHECK_EVERY_S)
def _live(check: Check) -> None:
    """The open check's panel, kept current between the page's runs. A press here reruns only this fragment, with
    the check it was first drawn with: the room's check is read again on every run, so the panel says what the
    check is now (revealed; closed, here or on another presenter screen, which redraws the page)."""
    s = state()
    if role() != "presenter":
        return
    now = time.time()
    try:
        snap = room_store().snapshot(s.code, now)
        current = snap.check if snap.check is not None and snap.check.check_id == check.check_id else None
        tallies = [room_store().tally(s.code, p, now) for p in current.poll_ids] if current is not None else []
    except StoreUnavailable:
        st.caption("Reconnecting to the class…")
        return
    except RoomError:
        return
    if current is None or current.round != check.round:
        st.rerun(scope="app")                           # closed, or another check: the page draws what is now
    answered = max((t.answered for t in tallies), default=0)
    following_now = max((t.following for t in tallies), default=0)
    st.markdown(f"### {NAMES.get(current.round, 'Check')} is open")
    st.markdown(f"**{answered} of {max(following_now, answered)} answered**")
    if current.revealed:
        st.caption(":material/visibility: The answers are revealed on the students' screens.")
    cols = st.columns(2)
    if current.round == 2:
        cols[0].button("Reveal the answers", key="_class_check_reveal", on_click=_act, args=("reveal_check",),
                       disabled=current.revealed, type="primary", icon=":material/visibility:", width="stretch")
    cols[1].button("Close the check", key="_class_check_close", on_click=_act, args=("close_check",),
                   icon=":material/close:", width="stretch")


# --- a following student ---------------------------------------------------------------------------------------

def _field(round_: int, question: ConceptQuestion) -> str:
    return f"_class_check__{round_}__{question.id}"


def _send(questions: tuple[ConceptQuestion, ...], round_: int) -> None:
    s = state()
    picked = {q.id: st.session_state.get(_field(round_, q)) for q in questions}
    sent, now = {}, time.time()
    try:
        for q in questions:
            if picked[q.id] in q.options:
                room_store().vote(s.code, q.poll_id, s.me, picked[q.id], now)
                sent[q.id] = picked[q.id]
    except RoomError as err:
        notice("warning", str(err))
    st.session_state.setdefault(_SENT, {})[round_] = sent


def _student(questions: tuple[ConceptQuestion, ...]) -> None:
    check = _open_check()
    if check is None:
        st.info("When the presenter opens the check, its questions appear here.", icon=":material/hourglass_top:")
        return
    sent = st.session_state.get(_SENT, {}).get(check.round)
    if check.revealed:
        _revealed(questions, sent or {})
        return
    st.markdown(f"### {NAMES.get(check.round, 'Check')}")
    st.caption("Anonymous: only the counts are kept. " + ("No answers are shown afterwards." if check.round == 1
                                                          else "The presenter reveals the answers at the end."))
    with st.form("_class_check_form"):
        for n, q in enumerate(questions, 1):
            st.radio(f"**{n}.** {q.prompt}", q.options, index=None, key=_field(check.round, q))
        st.form_submit_button("Send my answers", on_click=_send, args=(questions, check.round))
    if sent is not None:
        st.success(f"Sent: {len(sent)} of {len(questions)} answers. You can change them and send again until the "
                   "presenter closes the check.", icon=":material/check:")


def _revealed(questions: tuple[ConceptQuestion, ...], sent: dict[str, str]) -> None:
    """After the reveal: the answers and explanations, and this student's own score (from this screen only),
    kept for after the class (``ui.concept_check.class_review``)."""
    concept_check.class_review(questions, sent)
