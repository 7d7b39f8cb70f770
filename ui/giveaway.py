"""No answer in sight (issue 46): while the class answers one of a lesson's questions, the pieces of the frame
its lesson file marks as giving that answer away are held back on a following student's page.

A question in ``assets/lessons/<slug>.toml`` lists them as ``gives_away`` ("analogy", "goal", "foundations",
"more", or "note:<name>" for a paragraph of its [notes]), and the phrases that state its answer as
``answer_phrases``, which tests/test_no_answer_in_sight.py looks for on a student's page while each question is
open. Only ``ui.classroom.asking`` (a following student's open, unrevealed question) holds anything back: a
learner on their own and the presenter always see the whole page.
"""

from __future__ import annotations

import streamlit as st

from ui import classroom
from ui.content import Lesson

HIDDEN = "Hidden until the class's answer is revealed: it gives the answer away."


def open_item(slug: str) -> str | None:
    """The item ("predict:spread") of the question of page ``slug`` the followed class is answering, else None."""
    poll = classroom.asking()
    if poll is None:
        return None
    page, _, item = poll.poll_id.partition(":")
    return item if page == slug else None


def gives_away(lesson: Lesson, piece: str) -> bool:
    """True while the class's open question is one ``piece`` of ``lesson`` would answer."""
    item = open_item(lesson.slug)
    return item is not None and piece in lesson.gives_away.get(item, ())


def held_back(lesson: Lesson, piece: str) -> bool:
    """True, with one caption in the piece's place, while the class's open question is one ``piece`` would
    answer; False (nothing drawn) otherwise."""
    if not gives_away(lesson, piece):
        return False
    st.caption(f":material/visibility_off: {HIDDEN}")
    return True
