"""What this learner has visited and answered, kept in their own session only."""

from __future__ import annotations

import streamlit as st

_KEY = "_progress"


def _state() -> dict:
    if _KEY not in st.session_state:
        st.session_state[_KEY] = {"visited": [], "answers": {}}
    return st.session_state[_KEY]


def visit(slug: str) -> None:
    state = _state()
    if slug not in state["visited"]:
        state["visited"].append(slug)


def record(slug: str, item: str, correct: bool) -> None:
    """Keep the first answer to each question: that is the honest measure of what was known."""
    state = _state()
    state["answers"].setdefault(slug, {}).setdefault(item, bool(correct))


def visited() -> list[str]:
    return list(_state()["visited"])


def answers(slug: str) -> dict[str, bool]:
    return dict(_state()["answers"].get(slug, {}))
