"""A learner's committed answers to a lesson's questions, kept outside the widgets that show them.

``hold`` keeps an answer with the question exactly as it was asked; ``held`` puts it back into its widget
when Streamlit dropped the widget's state (a run that did not draw it). ``adopt`` makes a following
student's class answer, once the presenter revealed it to the class, the student's own answer: committed,
kept in the browser (``ui.progress``) and recorded, exactly as if they had chosen it on the page.
"""

from __future__ import annotations

import streamlit as st

from ui import controls, progress
from ui.content import Check

_ADOPTED = "_class_adopted"          # frame keys of the questions a class reveal committed in this session
# A verdict's icon says right or wrong without the colour. Named, not left for Streamlit to look for at the
# start of the text: that look-up compiles Streamlit's whole emoji table once per process, and it landed
# on the first reveal after a server start (docs/PERFORMANCE.md (i)).
RIGHT_ICON, WRONG_ICON = ":material/check_circle:", ":material/cancel:"
TYPED_LIMIT = 1e6                    # a hand-worked answer larger than this is refused, never echoed


def verdict(correct: bool, text: str) -> None:
    """The feedback on an answer: green with a tick when right, red with a cross when wrong."""
    (st.success if correct else st.error)(text, icon=RIGHT_ICON if correct else WRONG_ICON)


def graded(asked: Check, committed: str | None, choice: str | None) -> None:
    """A revealed prediction's feedback: the verdict on the answer committed at the reveal, the one graded; an
    option picked since gets its own feedback, said to be practice."""
    kept = next((c for c in asked.choices if c.text == committed), None)
    if kept is not None:
        verdict(kept.correct, kept.feedback)
    practice = next((c for c in asked.choices if c.text == choice and c.text != committed), None)
    if practice is not None:
        st.caption(f"Graded: the answer you revealed, “{committed}”. The option you picked since is practice, not "
                   "graded; its feedback:")
        verdict(practice.correct, practice.feedback)


def typed_number(typed: float | None, decimals: int) -> float | None:
    """A number typed as an answer, or None: a number too large to be one is refused in a short sentence (a
    300-digit echo of 1e300 helps no one)."""
    if typed is not None and not abs(typed) <= TYPED_LIMIT:
        st.error(f"That number is too large to be the answer: type it with {decimals} decimals, like "
                 f"{0.1234:.{decimals}f}.", icon=WRONG_ICON)
        return None
    return typed


def held_key(key: str) -> str:
    return controls.private_key("held", key)


def held(key: str) -> dict | None:
    """The answer committed in the widget ``key`` (and the question it answered), put back into the widget's
    state when Streamlit dropped it: a widget a run did not draw (bad input above it, a section held back)
    loses its value, and the learner's answer must not go with it."""
    kept = st.session_state.get(held_key(key))
    if kept is not None and key not in st.session_state:
        st.session_state[key] = kept["answer"]
    return kept


def hold(key: str, question: object, answer: object) -> None:
    """Keep the learner's answer, with the question exactly as it was asked, outside the widget's own state."""
    st.session_state[held_key(key)] = {"question": question, "answer": answer}


def forget(slug: str, item: str, key: str, revealed_key: str | None) -> None:
    """"Predict again": the learner lets go of a committed answer to answer the question as it is now."""
    for k in (key, revealed_key, held_key(key)):
        if k is not None:
            st.session_state.pop(k, None)
    progress.release(slug, item)


def digest(question: Check) -> str:
    """Which question an answer belongs to: its prompt and options as asked."""
    return progress.digest(question.prompt, *(c.text for c in question.choices))


def adopted(key: str) -> bool:
    """True once a class reveal committed this question's answer (or revealed it) in this session."""
    return key in st.session_state.get(_ADOPTED, set())


def adopt(slug: str, item: str, key: str, question: Check, choice: str | None, revealed_key: str | None = None,
          *, once: object = None) -> None:
    """The presenter revealed ``question`` to the class: commit this follower's class answer ``choice`` (None
    when they did not answer) as their own, and for a prediction mark it revealed, as their own "Reveal the
    answer" would. ``once`` (the question's round) makes a rerun of the same reveal change nothing.
    Recording the first answer of a question reruns the app (``progress.record``), like a learner's own."""
    done = st.session_state.setdefault(_ADOPTED, set())
    if (key, once) in done:
        return
    done.update({(key, once), key})
    if revealed_key is not None:
        st.session_state[revealed_key] = True
    texts = [c.text for c in question.choices]
    if choice is None or choice not in texts:
        return
    st.session_state[key] = choice
    hold(key, question, choice)
    index = texts.index(choice)
    progress.hold(slug, item, index, digest(question))
    progress.record(slug, item, question.choices[index].correct)
