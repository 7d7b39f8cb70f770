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
_DIGEST = re.compile(r"[0-9a-f]{16}")
MAX_CHOICES = 20                        # options a question may have, for a committed answer's index


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


def hold(slug: str, item: str, choice: int, question: str) -> None:
    """Keep which option the learner committed to in a question, and the question's digest (``digest``), so a
    reload that opens the same question (the link keeps the controls) gives the answer back. Only an index and
    a digest go to the browser: nothing the page would have to trust as text."""
    _state().setdefault("held", {}).setdefault(slug, {})[item] = [int(choice), question]


def release(slug: str, item: str) -> None:
    """The learner let go of a committed answer ("Predict again"): a reload must not bring it back."""
    _state().get("held", {}).get(slug, {}).pop(item, None)


def held(slug: str, item: str, question: str) -> int | None:
    """The option committed in this very question (same digest) in this browser, or None."""
    kept = _state().get("held", {}).get(slug, {}).get(item)
    return kept[0] if kept is not None and kept[1] == question else None


def digest(*parts: object) -> str:
    """A short digest of a question as asked (its prompt and options): which question an answer belongs to."""
    return hashlib.blake2b(json.dumps([str(p) for p in parts]).encode(), digest_size=8).hexdigest()


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
    held_raw = data.get("held")
    if isinstance(held_raw, dict):
        for slug, items in held_raw.items():
            if slug not in slugs or not isinstance(items, dict):
                continue
            kept = {k: [v[0], v[1]] for k, v in items.items()
                    if isinstance(k, str) and _ITEM.fullmatch(k) and isinstance(v, list) and len(v) == 2
                    and type(v[0]) is int and 0 <= v[0] < MAX_CHOICES and isinstance(v[1], str)
                    and _DIGEST.fullmatch(v[1])}
            if kept:
                out.setdefault("held", {})[slug] = dict(list(kept.items())[:MAX_ITEMS])
    if concept_kept := _clean_concept(data.get("concept")):
        out["concept"] = concept_kept
    if (results_kept := _clean_results(data.get("class_results"))) is not None:
        out["class_results"] = results_kept
    return out


# --- the concept check taken alone, and an ended class's results kept for its presenter ----------------------
ATTEMPTS = ("pre", "post")              # the concept check before the course, and after it
_CODE = re.compile(r"[A-HJKMNP-Z2-9]{6}")
_KEY_TEXT = re.compile(r"[A-Za-z0-9_-]{1,64}")


def concept(attempt: str) -> dict | None:
    """The learner's try at the concept check (``attempt`` "pre" or "post"): {"picked": [index or -1 per
    question], "digest": the questions' digest, "at": epoch s}, or None."""
    return _state().get("concept", {}).get(attempt)


def keep_concept(attempt: str, picked: list[int], question_digest: str, at: float) -> None:
    _state().setdefault("concept", {})[attempt] = {"picked": [int(i) for i in picked], "digest": question_digest,
                                                   "at": float(at)}


def retake_concept() -> None:
    """Both tries forgotten, here and (at the next sync) in the browser: the check starts over."""
    _state().pop("concept", None)


def keep_results(code: str, key: str, until: float) -> None:
    """An ended class's code and presenter key, so its presenter can read its results until ``until``."""
    _state()["class_results"] = [code, key, float(until)]


def kept_results() -> tuple[str, str, float] | None:
    kept = _state().get("class_results")
    return None if kept is None else (kept[0], kept[1], kept[2])


def forget_results() -> None:
    _state().pop("class_results", None)


def _clean_concept(raw: object) -> dict:
    out = {}
    if isinstance(raw, dict):
        for attempt in ATTEMPTS:
            one = raw.get(attempt)
            if isinstance(one, dict) and isinstance(one.get("picked"), list) and len(one["picked"]) <= MAX_ITEMS \
                    and all(type(i) is int and -1 <= i < MAX_CHOICES for i in one["picked"]) \
                    and isinstance(one.get("digest"), str) and _DIGEST.fullmatch(one["digest"]) \
                    and type(one.get("at")) in (int, float):
                out[attempt] = {"picked": list(one["picked"]), "digest": one["digest"], "at": float(one["at"])}
    return out


def _clean_results(raw: object) -> list | None:
    if isinstance(raw, list) and len(raw) == 3 and isinstance(raw[0], str) and _CODE.fullmatch(raw[0]) \
            and isinstance(raw[1], str) and _KEY_TEXT.fullmatch(raw[1]) and type(raw[2]) in (int, float):
        return [raw[0], raw[1], float(raw[2])]
    return None


def _merge(stored: dict) -> None:
    """Stored progress under this session's: a visit or a first answer made in either is kept."""
    state = _state()
    state["visited"] = list(dict.fromkeys([*stored["visited"], *state["visited"]]))
    for slug, items in stored["answers"].items():
        mine = state["answers"].setdefault(slug, {})
        for item, correct in items.items():
            mine.setdefault(item, correct)
    for slug, items in stored.get("held", {}).items():
        mine = state.setdefault("held", {}).setdefault(slug, {})
        for item, kept in items.items():
            mine.setdefault(item, kept)
    for attempt, kept in stored.get("concept", {}).items():
        state.setdefault("concept", {}).setdefault(attempt, kept)
    if "class_results" in stored:
        state.setdefault("class_results", stored["class_results"])


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
            stored = clean(raw, slugs)
            _merge(stored)
            st.session_state[_LOADED] = True
            if stored.get("held") or stored.get("concept") or stored.get("class_results"):
                st.rerun(scope="app")                    # kept before a reload (answers, scores): draw them now
        state = _state()
        if not any(state.get(k) for k in ("visited", "answers", "held", "concept", "class_results")):
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
