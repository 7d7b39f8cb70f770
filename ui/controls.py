"""What counts as a lesson control: one definition for "Link to this view" and the live classroom."""

from __future__ import annotations

import streamlit as st

# Query parameters that belong to the classroom, not to a view: a shared link never carries them.
CLASS_PARAMS = ("room", "key")


def is_lesson_control(key: object) -> bool:
    """Lesson controls are the keyed widgets whose keys are plain names; frame, progress and classroom
    keys hold "__" or start with "_"."""
    return isinstance(key, str) and not key.startswith("_") and "__" not in key


def lesson_controls() -> dict[str, list[str]]:
    """Every lesson control's current value as the text a link carries (booleans as true/false, lists
    one item per value), read from the session, since the browser, not Python, keeps the bound part of
    the URL up to date. Values of other types are left out."""
    params: dict[str, list[str]] = {}
    for key, value in st.session_state.to_dict().items():
        if not is_lesson_control(key):
            continue
        if isinstance(value, bool):
            params[key] = [str(value).lower()]
        elif isinstance(value, int | float | str):
            params[key] = [str(value)]
        elif isinstance(value, list | tuple) and all(isinstance(v, int | float | str) for v in value):
            params[key] = [str(v) for v in value]
    return params
