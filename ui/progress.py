"""What this learner has visited and answered: in their session, and in their own browser between visits.

The server keeps it in the session only (gone when the session ends). The browser keeps a copy in its
localStorage under one key, read once when a session starts and written after each change, through
streamlit_js_eval (a maintained component on PyPI; docs/SECURITY.md says why this one). No accounts,
nothing about a learner on the server after the session; "Forget my progress" in the sidebar clears both.

What comes back from the browser is user-controlled: it is parsed, checked and cut to size by ``clean``
before any of it is used.
"""

from __future__ import annotations

import hashlib
import json
import re

import streamlit as st

_KEY = "_progress"
_LOADED = "_progress_loaded"
STORAGE_KEY = "attention_progress_v1"
MAX_CHARS = 20_000                      # far above what every page's every question takes (~3,000)
MAX_ITEMS = 60                          # questions kept per lesson
_ITEM = re.compile(r"(check|predict|exercise):[A-Za-z0-9_]{1,60}")


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
    mine = _state()["answers"].setdefault(slug, {})
    if item not in mine:
        mine[item] = bool(correct)
        # A whole run, so sync() (at the end of the page, outside any fragment) writes it to the browser.
        st.rerun(scope="app")


def visited() -> list[str]:
    return list(_state()["visited"])


def answers(slug: str) -> dict[str, bool]:
    return dict(_state()["answers"].get(slug, {}))


def clean(raw: object, slugs: set[str]) -> dict:
    """The progress a browser sent back, kept only where it is well-formed: known lesson slugs, question ids
    of the form "check:name", true/false answers, at most MAX_ITEMS a lesson; anything else is dropped."""
    out: dict = {"visited": [], "answers": {}}
    if not isinstance(raw, str) or not raw or len(raw) > MAX_CHARS:
        return out
    try:
        data = json.loads(raw)
    except ValueError:
        return out
    if not isinstance(data, dict):
        return out
    visited_raw = data.get("visited")
    if isinstance(visited_raw, list):
        out["visited"] = list(dict.fromkeys(s for s in visited_raw if isinstance(s, str) and s in slugs))
    answers_raw = data.get("answers")
    if isinstance(answers_raw, dict):
        for slug, items in answers_raw.items():
            if slug not in slugs or not isinstance(items, dict):
                continue
            kept = {k: v for k, v in items.items()
                    if isinstance(k, str) and _ITEM.fullmatch(k) and isinstance(v, bool)}
            if kept:
                out["answers"][slug] = dict(list(kept.items())[:MAX_ITEMS])
    return out


def _merge(stored: dict) -> None:
    """Stored progress under this session's: a visit or a first answer made in either is kept."""
    state = _state()
    state["visited"] = list(dict.fromkeys([*stored["visited"], *state["visited"]]))
    for slug, items in stored["answers"].items():
        mine = state["answers"].setdefault(slug, {})
        for item, correct in items.items():
            mine.setdefault(item, correct)


def _forget() -> None:
    st.session_state[_KEY] = {"visited": [], "answers": {}}


def sync(slugs: set[str]) -> None:
    """Called once per page run, after the page's visit is recorded: read the browser's copy once per
    session, write it back when it changed, and offer "Forget my progress". In the sidebar, out of the way."""
    from streamlit_js_eval import streamlit_js_eval

    with st.sidebar:
        st.button("Forget my progress", key="_progress_forget", on_click=_forget, icon=":material/delete:",
                  help="Clears the lessons you visited and your answers, here and in this browser.")
        if not st.session_state.get(_LOADED):
            # One constant expression; its answer is the stored text, "" when there is none.
            raw = streamlit_js_eval(js_expressions=f"localStorage.getItem('{STORAGE_KEY}') || ''",
                                    key="_progress_read")
            if raw is None:                              # the browser has not answered yet
                return
            _merge(clean(raw, slugs))
            st.session_state[_LOADED] = True
        state = _state()
        if not state["visited"] and not state["answers"]:
            expression = f"localStorage.removeItem('{STORAGE_KEY}') || 'removed'"
        else:
            # Only clean()-shaped data (known slugs, checked ids, booleans) goes out; json.dumps makes the
            # JSON text a JavaScript string literal.
            text = json.dumps(clean(json.dumps(state), slugs), separators=(",", ":"))
            expression = f"localStorage.setItem('{STORAGE_KEY}', {json.dumps(text)}) || 'saved'"
        # Drawn on every run with a key that names its content: the same write is not done twice, and a
        # changed state is a new element, which the browser runs once.
        digest = hashlib.blake2b(expression.encode(), digest_size=8).hexdigest()
        streamlit_js_eval(js_expressions=expression, key=f"_progress_write_{digest}")
