"""Polls: the presenter asks the class a lesson's question, students answer anonymously, the presenter
reveals the answer, and everyone sees the class's counts."""

from __future__ import annotations

import time

import streamlit as st

from classroom.store import QuestionInfo, RoomError
from figures.classroom import poll_figure
from ui.classroom.rooms import changed, room_store
from ui.classroom.session import following, notice, role, state
from ui.content import Check
from ui.inputs import literal

POLL_EVERY_S = 1.0            # the presenter's live chart


def poll_revealed(poll_id: str) -> bool:
    """True once the presenter revealed the answer to this question, for a student following the class."""
    snap = state().snap
    return following() and snap is not None and snap.poll is not None and snap.poll.poll_id == poll_id \
        and snap.poll.revealed


def _right(question: Check, options: tuple[str, ...]) -> int | None:
    text = question.choices[question.answer].text
    return options.index(text) if text in options else None


def _send_answer(poll_id: str, widget_key: str) -> None:
    s = state()
    option = st.session_state.get(widget_key)
    if role() != "student" or option is None:
        return
    try:
        if not room_store().answer(s.code, poll_id, s.me, option, time.time()):
            notice("info", "Your answer was not counted: the presenter has already revealed this one.")
    except RoomError as err:
        notice("warning", str(err))


def student_poll(poll_id: str, label: str, question: Check) -> bool:
    """For a following student whose class is asked this question: the class version of it, drawn in the
    caller's container (answer, then after the reveal the answer, its explanation and the class's counts).
    Returns False, drawing nothing, otherwise."""
    snap = state().snap
    if not following() or snap is None or snap.poll is None or snap.poll.poll_id != poll_id:
        return False
    poll = snap.poll
    widget_key = f"_class_answer__{poll_id}"
    if not poll.revealed:
        st.radio(label, poll.options, index=None, key=widget_key, on_change=_send_answer,
                 args=(poll_id, widget_key))
        st.caption(":material/how_to_vote: The presenter asked the class. Your answer is anonymous (only the "
                   "counts are kept), and you can change it until the answer is revealed.")
        return True
    st.radio(label, poll.options, index=None, key=widget_key, disabled=True)
    right = _right(question, poll.options)
    picked = st.session_state.get(widget_key)
    if right is not None:
        # Options may hold a learner's words (the lab's tokens): escaped for Markdown.
        st.success(f"**The answer:** {literal(poll.options[right], 200)}"
                   + (" (your answer)" if picked == poll.options[right] else ""))
    choice = next((c for c in question.choices if c.text == picked), None)
    if choice is not None and not choice.correct:
        st.error(choice.feedback)
    if question.explanation:
        st.markdown(question.explanation.strip())
    _class_chart(poll_id, poll.options, right)
    return True


def _class_chart(poll_id: str, options: tuple[str, ...], right: int | None) -> int:
    try:
        counts = room_store().poll_counts(state().code, poll_id)
    except RoomError:
        counts = dict.fromkeys(options, 0)
    st.plotly_chart(poll_figure(options, counts, right), key=f"_class_chart__{poll_id}",
                    config={"displayModeBar": False})
    return sum(counts.values())


def _ask(poll_id: str, options: tuple[str, ...], info: QuestionInfo | None = None) -> None:
    s = state()
    try:
        room_store().open_poll(s.code, s.key, poll_id, options, time.time(), info=info)
    except (ValueError, RoomError) as err:
        notice("warning", str(err) if isinstance(err, RoomError) else "This question cannot be put to the class.")
        return
    changed(s.code)
    s.poll = (poll_id, options, False)


def _reveal(poll_id: str) -> None:
    s = state()
    try:
        room_store().reveal_poll(s.code, s.key, poll_id, time.time())
    except RoomError as err:
        notice("warning", str(err))
        return
    changed(s.code)
    if s.poll and s.poll[0] == poll_id:
        s.poll = (poll_id, s.poll[1], True)


def _stop_asking() -> None:
    s = state()
    try:
        room_store().close_poll(s.code, s.key, time.time())
    except RoomError:
        pass
    changed(s.code)
    s.poll = None


def presenter_poll(poll_id: str, question: Check) -> None:
    """For the presenter: "Ask the class" under a question, or, once asked, the class's answers live."""
    if role() != "presenter":
        return
    asked = state().poll
    if asked is None or asked[0] != poll_id:
        options = tuple(c.text for c in question.choices)
        # What the class results keep: the lesson (the poll id's first part), the question and its right option.
        info = QuestionInfo(poll_id.split(":")[0][:120], question.prompt.strip()[:2000],
                            next((c.text for c in question.choices if c.correct), None))
        st.button("Ask the class", key=f"_class_ask__{poll_id}", icon=":material/how_to_vote:",
                  on_click=_ask, args=(poll_id, options, info))
        return
    _live_poll(poll_id, question)


@st.fragment(run_every=POLL_EVERY_S)
def _live_poll(poll_id: str, question: Check) -> None:
    s = state()
    asked = s.poll
    if role() != "presenter" or asked is None or asked[0] != poll_id:
        return
    _, options, revealed = asked
    right = _right(question, options)
    answered = _class_chart(poll_id, options, right if revealed else None)
    try:
        present_now = room_store().follower_count(s.code, time.time())
    except RoomError:
        present_now = 0
    st.markdown(f"**{answered} of {max(present_now, answered)} answered**")
    cols = st.columns(2)
    cols[0].button("Reveal the answer to the class", key=f"_class_reveal__{poll_id}", on_click=_reveal,
                   args=(poll_id,), disabled=revealed, type="primary", icon=":material/visibility:")
    cols[1].button("Stop asking", key=f"_class_stop__{poll_id}", on_click=_stop_asking, icon=":material/close:")
