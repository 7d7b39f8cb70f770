"""The concept check taken alone: a first try before the course, a second after it, and the learner's own gain.

Both tries are kept in the learner's progress (``ui.progress``: this session, and this browser between
visits), as the option index chosen per question and the questions' digest, so a reload brings the scores back
and a changed question file starts over rather than scoring old answers against new questions. The first try
shows the score only, never the answers: the second try then measures what was learned, not what was shown.
"""

from __future__ import annotations

import time

import streamlit as st

from classroom import results as cr
from classroom.concept_check import ConceptQuestion, load_concept_check
from ui import progress
from ui.frame import verdict
from ui.inputs import literal

TRIES = {"pre": "First try (before the course)", "post": "Second try (after the course)"}
CLASS_REVIEW = "_cc_class_review"   # the revealed exit check a class showed this student: {question id: option}


def questions() -> tuple[ConceptQuestion, ...]:
    """The concept check's questions (assets/lessons/concept_check.toml), read once per process."""
    return _questions()


@st.cache_resource(max_entries=1)
def _questions() -> tuple[ConceptQuestion, ...]:
    return load_concept_check()


def _digest(questions: tuple[ConceptQuestion, ...]) -> str:
    return progress.digest(*[f"{q.prompt}|{'|'.join(q.options)}|{q.right}" for q in questions])


def _field(attempt: str, question: ConceptQuestion) -> str:
    return f"_cc_solo__{attempt}__{question.id}"


def _kept(attempt: str, questions: tuple[ConceptQuestion, ...]) -> list[int] | None:
    """The option indices of a try at these very questions, or None."""
    kept = progress.concept(attempt)
    if kept is None or kept["digest"] != _digest(questions) or len(kept["picked"]) != len(questions) \
            or not all(0 <= i < len(q.options) for q, i in zip(questions, kept["picked"], strict=True)):
        return None
    return kept["picked"]


def _score(questions: tuple[ConceptQuestion, ...], picked: list[int]) -> cr.Score:
    right = sum(q.options[i] == q.right for q, i in zip(questions, picked, strict=True))
    return cr.Score(right, len(questions))


def _submit(attempt: str, questions: tuple[ConceptQuestion, ...]) -> None:
    chosen = [st.session_state.get(_field(attempt, q)) for q in questions]
    missing = sum(c is None for c in chosen)
    if missing:
        st.session_state["_cc_solo_missing"] = missing
        return
    progress.keep_concept(attempt, [q.options.index(c) for q, c in zip(questions, chosen, strict=True)],
                          _digest(questions), time.time())


def _retake(questions: tuple[ConceptQuestion, ...]) -> None:
    progress.retake_concept()
    for attempt in TRIES:
        for q in questions:
            st.session_state.pop(_field(attempt, q), None)


def _form(attempt: str, questions: tuple[ConceptQuestion, ...]) -> None:
    st.markdown(f"### {TRIES[attempt]}")
    with st.form(f"_cc_solo_form_{attempt}"):
        for n, q in enumerate(questions, 1):
            st.radio(f"**{n}.** {q.prompt}", q.options, index=None, key=_field(attempt, q))
        st.form_submit_button("Send my answers", on_click=_submit, args=(attempt, questions))
    missing = st.session_state.pop("_cc_solo_missing", None)
    if missing:
        st.warning(f"Answer every question before sending: {missing} left.", icon=":material/error:")


def _percent(score: cr.Score) -> str:
    return f"{score.right} of {score.answered} ({score.percent:.0f} %)"


def class_review(questions: tuple[ConceptQuestion, ...], sent: dict[str, str]) -> None:
    """A revealed exit check on a student's screen: their score, their answers with feedback, the answers and
    the explanations. Kept for the session (``CLASS_REVIEW``), so that it stays after the class ends or the
    student explores on their own, until they take the check alone."""
    st.session_state[CLASS_REVIEW] = dict(sent)
    right = sum(sent.get(q.id) == q.right for q in questions)
    st.markdown(f"### The answers. You got {right} of {len(questions)} right." if sent else "### The answers")
    for n, q in enumerate(questions, 1):
        st.markdown(f"**{n}.** {q.prompt}")
        mine = sent.get(q.id)
        if mine in q.feedback:                              # an option of the question (never typed text)
            verdict(mine == q.right, f"You chose: {literal(mine, 200)}. {q.feedback[mine]}")
        st.markdown(f"**The answer:** {q.right}.")
        st.caption(q.explanation)


def _kept_review(questions: tuple[ConceptQuestion, ...]) -> bool:
    """Out of class: the exit check the class revealed to this student, as it was, with a way to the solo check.
    True when it was drawn."""
    sent = st.session_state.get(CLASS_REVIEW)
    if sent is None:
        return False
    st.caption("Your class's exit check, as it was revealed: it stays here after the class.")
    class_review(questions, sent)
    st.button("Take the check on my own", key="_cc_class_review_done", icon=":material/restart_alt:",
              on_click=st.session_state.pop, args=(CLASS_REVIEW, None),
              help="Leaves this review and starts the check alone (your own tries stay in this browser).")
    return True


def solo_check(questions: tuple[ConceptQuestion, ...]) -> None:
    """The check for one learner: the first try, then the second, then both scores, the gain and the answers.
    A student whose class revealed its exit check first keeps that review (``class_review``)."""
    if _kept_review(questions):
        return
    pre, post = _kept("pre", questions), _kept("post", questions)
    if pre is None:
        _form("pre", questions)
        return
    before = _score(questions, pre)
    if post is None:
        st.success(f"**Your first try: {_percent(before)} right.** The answers stay hidden until your second "
                   "try, so that one measures what the lessons taught you.", icon=":material/flag:")
        _form("post", questions)
    else:
        after = _score(questions, post)
        gain = cr.normalized_gain(before, after)
        cols = st.columns(3)
        cols[0].metric("Before the course", f"{before.percent:.0f} %", help=_percent(before))
        cols[1].metric("After the course", f"{after.percent:.0f} %", help=_percent(after))
        cols[2].metric("Your gain ⟨g⟩", "–" if gain.g is None else f"{gain.g:.2f}",
                       help="(after − before) / (100 − before): the share of what you missed at first that you "
                            "now get right.")
        st.caption(gain.describe())
        _answers(questions, pre, post)
    st.button("Take the check again", key="_cc_solo_retake", on_click=_retake, args=(questions,),
              icon=":material/restart_alt:", help="Forgets both tries, here and in this browser, and starts over.")


def _answers(questions: tuple[ConceptQuestion, ...], pre: list[int], post: list[int]) -> None:
    st.markdown("### The answers")
    for n, (q, first, second) in enumerate(zip(questions, pre, post, strict=True), 1):
        with st.expander(f"{n}. {q.prompt}", expanded=q.options[second] != q.right):
            st.caption(f"Before: {q.options[first]}")
            verdict(q.options[second] == q.right, f"After: {q.options[second]}. {q.feedback[q.options[second]]}")
            st.markdown(f"**The answer:** {q.right}.")
            st.caption(q.explanation)
