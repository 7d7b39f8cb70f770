"""Widget keys: one definition of their names and of what counts as a lesson control.

Three kinds of key live in a session, told apart by their shape:
- **lesson controls**, ``<prefix>_<name>`` (e.g. ``sd_dk``): the page's own sliders, toggles and boxes,
  carried by "Link to this view" and followed by a live class. The prefix names the page (``PREFIXES``).
  A page declares each one once, ``frame.control(st.slider, "dk", ...)`` (``ui.frame.Frame.control``), which
  keys it with ``control``, binds it to the URL and disables it while the session follows a class; the
  page's other prefixed keys (charts, cached tables) come from ``frame.key`` (``page_key``). No page
  spells out its prefix, nor passes ``key``, ``disabled`` or ``bind`` for a lesson control
  (tests/test_contract.py).
- **frame keys**, ``<slug>__<kind>__<id>[__<part>]``: predictions, checks, exercises and presenter steps,
  made by ``frame_key`` and the helpers below it.
- **private keys**, starting with ``_``: the classroom's and progress's own state.
"""

from __future__ import annotations

import math

import streamlit as st

from ui import navigation

# Query parameters that belong to the classroom, not to a view: a shared link never carries them.
CLASS_PARAMS = ("room", "key")

# Each lesson's key prefix: every lesson control (and chart key) of the page starts with it and "_".
PREFIXES = {
    "first_look": "fl",
    "polysemy": "pl",
    "convex_blending": "cb",
    "queries_keys_values": "qkv",
    "projection": "pr",
    "learned_projections": "lp",
    "scaled_formula": "sf",
    "sqrt_dk": "sd",
    "multi_head": "mh",
    "masks_and_cross_attention": "mk",
    "positional_encoding": "pe",
    "transformer_block": "tb",
    "rnn_vs_attention": "rn",
    "flash_attention": "fa",
    "kv_cache": "kv",
    "real_model_lab": "lab",
    "glossary": "gl",
    "concept_check": "cc",
}

# Links shared before a page's keys took its prefix still open the same view: old name -> key.
LEGACY_PARAMS = {
    "scaled_formula": {"Q": "sf_q", "K": "sf_k", "V": "sf_v", "scale": "sf_scale"},
}


def is_lesson_control(key: object) -> bool:
    """Lesson controls are the keyed widgets whose keys are plain names; frame keys hold "__" and
    private keys start with "_"."""
    return isinstance(key, str) and not key.startswith("_") and "__" not in key


def page_key(slug: str, name: str) -> str:
    """Any key of page ``slug`` made from its prefix (a lesson control's, a chart's, a cached table's name):
    ``<prefix>_<name>``, e.g. page_key("sqrt_dk", "fig_raw") == "sd_fig_raw"."""
    return f"{PREFIXES[slug]}_{name}"


def control(slug: str, name: str) -> str:
    """The key of the lesson control ``name`` on page ``slug``, e.g. control("sqrt_dk", "dk") == "sd_dk"."""
    key = page_key(slug, name)
    if not is_lesson_control(key):
        raise ValueError(f"{key!r} is not a lesson control's key: no leading '_' and no '__'")
    return key


def frame_key(slug: str, kind: str, item: str = "", part: str = "") -> str:
    """A frame widget's key: ``<slug>__<kind>[__<item>][__<part>]``; never a lesson control."""
    return "__".join(p for p in (slug, kind, item, part) if p)


def prediction_key(slug: str, prediction_id: str) -> str:
    return frame_key(slug, "predict", prediction_id)


def revealed_key(slug: str, prediction_id: str) -> str:
    """Where the frame notes that a prediction's answer was revealed (read it with ``Frame.revealed``)."""
    return frame_key(slug, "predict", prediction_id, "revealed")


def check_key(slug: str, check_id: str) -> str:
    return frame_key(slug, "check", check_id)


def exercise_key(slug: str, exercise_id: str) -> str:
    return frame_key(slug, "exercise", exercise_id)


def private_key(*parts: str) -> str:
    """A key of the app's own state, never a lesson control nor a frame key: ``_<part>__<part>…``."""
    return "_" + "__".join(parts)


def step_key(slug: str) -> str:
    """The presenter step a page is on."""
    return frame_key(slug, "step")


def link_value(values: list[str]) -> str | list[str]:
    """A parameter's values as a link writes them: one value as itself, several as the list."""
    return values[0] if len(values) == 1 else values


def adopt_legacy_params(slug: str) -> None:
    """Reopen a link that uses a page's old parameter names with its keys instead, before its widgets are
    made: a bound widget takes its value from the URL the page was opened with, so the page is opened
    again (as the classroom opens a presenter's view) rather than the names swapped in place."""
    old = LEGACY_PARAMS.get(slug, {})
    if not any(name in st.query_params for name in old):
        return
    params = {old.get(k, k): st.query_params.get_all(k) for k in st.query_params if old.get(k, k) == k or
              old[k] not in st.query_params}
    st.switch_page(navigation.page(slug),
                   query_params={k: link_value(v) for k, v in params.items()})


def switch_params(values: dict[str, list[str]], *, present: bool,
                  room: str | None = None) -> dict[str, str | list[str]]:
    """The query parameters that open another page with these control ``values`` (as a room's view holds
    them), for ``st.switch_page``: a one-item list as its item, ``present=1`` when presenting, ``room`` for a
    follower. A control this session already holds is left out: it takes the value from the session state on
    the new page, since Streamlit refuses a link's value for a widget still bound to the address (which it is
    when a late run of the old page switches back)."""
    params: dict[str, str | list[str]] = {"room": room} if room else {}
    params |= {name: link_value(v) for name, v in values.items() if name not in st.session_state}
    if present:
        params["present"] = "1"
    return params


def lesson_controls(slug: str) -> dict[str, list[str]]:
    """Every lesson control of page ``slug`` with its current value as the text a link carries (booleans as
    true/false, lists one item per value), read from the session, since the browser, not Python, keeps the
    bound part of the URL up to date. Values of other types are left out, and so are other pages' controls
    that the session still holds (a link, or a class, must not carry them to a page whose widget owns them)."""
    if slug not in PREFIXES:                              # the home page has no lesson controls
        return {}
    prefix = PREFIXES[slug] + "_"
    params: dict[str, list[str]] = {}
    for key, value in st.session_state.to_dict().items():
        if not is_lesson_control(key) or not key.startswith(prefix):
            continue
        if isinstance(value, int | float | str):
            params[key] = [_link_text(value)]
        elif isinstance(value, list | tuple) and all(isinstance(v, int | float | str) for v in value):
            params[key] = [_link_text(v) for v in value]
    return params


def set_lesson_controls(values: dict[str, list[str]]) -> None:
    """The inverse of ``lesson_controls``: these link values (a room's view) put into this session's lesson
    controls, before their widgets are drawn in this run. A control the session holds takes each value as
    the type of its current one (a list keeps its own type, a tuple stays a tuple); one it does not hold yet
    takes the value from the link, as a shared link's would. A value the widget cannot take is skipped,
    and so is every name that is not a lesson control."""
    ss = st.session_state
    for name, texts in values.items():
        if not is_lesson_control(name):
            continue
        try:
            if name not in ss:
                st.query_params[name] = link_value(texts)
                continue
            current = ss[name]
            if isinstance(current, list | tuple):
                like = current[0] if current else ""
                value = type(current)(_typed(text, like) for text in texts)
            elif len(texts) == 1:
                value = _typed(texts[0], current)
            else:
                continue                                # several values for a one-value widget
            if value != current:
                ss[name] = value
        except (ValueError, TypeError):
            continue                                    # a value this session's widget cannot take


def _link_text(value: int | float | str) -> str:
    """One value as a link carries it: booleans as true/false, numbers as Python writes them (exactly)."""
    return str(value).lower() if isinstance(value, bool) else str(value)


def _typed(text: str, like: object) -> object:
    """``text`` (as a link carries it) as the type of ``like``, the widget's current value; ValueError if it is
    not one (a boolean other than true/false, a number that does not parse or is not finite)."""
    if isinstance(like, bool):
        if text not in ("true", "false"):
            raise ValueError(text)
        return text == "true"
    if isinstance(like, int):
        return int(text)
    if isinstance(like, float):
        value = float(text)
        if not math.isfinite(value):
            raise ValueError(text)
        return value
    return text
