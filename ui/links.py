"""Links to a lesson view: the URL carrying every lesson control's value, and the names a learner sees
for the settings a link carried that the page could not use."""

from __future__ import annotations

from urllib.parse import urlencode

import streamlit as st

from ui import content, controls
from ui.inputs import label_markdown, literal

LINK_NOTICE = controls.private_key("link_notice")   # (slug, names, the controls then): a tampered link's notice


def lasting_notice(slug: str, names: list[str] | None) -> list[str]:
    """The settings a tampered link carried that page ``slug`` could not use, kept until the learner moves a
    control: a rerun they did not cause (a component reporting its value) finds the link already cleaned, and
    must not take the notice away. ``names`` None: another page opened, whose notice this is not."""
    kept = st.session_state.get(LINK_NOTICE)
    if names is None:
        if kept is not None and kept[0] != slug:
            del st.session_state[LINK_NOTICE]
        return []
    now = controls.lesson_controls(slug)
    if names:
        st.session_state[LINK_NOTICE] = (slug, names, now)
        return names
    if kept is not None and kept[0] == slug and kept[2] == now:
        return kept[1]
    st.session_state.pop(LINK_NOTICE, None)
    return []


def control_label(slug: str, key: str) -> str:
    """The label a learner sees on the control with this key (from assets/lessons/control_labels.toml),
    quoted and Markdown-escaped; a key no page has (a made-up parameter) is shown escaped, shortened."""
    label = content.control_labels().get((slug, key))
    return f"“{label_markdown(label)}”" if label else f"“{literal(key[:40])}”"


def link_matches_state(key: str, raw: list[str]) -> bool:
    """True when a parameter was dropped only because it equals the widget's default value."""
    if key not in st.session_state or not raw:
        return key == "present"
    value = st.session_state[key]
    text = raw[0]
    if isinstance(value, bool):
        return text.lower() == str(value).lower()
    if isinstance(value, int | float):
        try:
            return float(text) == float(value)
        except ValueError:
            return False
    if isinstance(value, list | tuple):
        return [str(v) for v in value] == raw
    return str(value) == text


def view_link(slug: str) -> str:
    """This page's URL carrying every lesson control's current value (relative when the app's URL is unknown).

    The URL's own parameters, without the classroom's, overlaid with ``controls.lesson_controls(slug)``:
    the same definition of a lesson control the live classroom publishes.
    """
    params: dict[str, list[str]] = {k: st.query_params.get_all(k) for k in st.query_params
                                    if k not in controls.CLASS_PARAMS}
    params.update(controls.lesson_controls(slug))
    pairs = [(k, v) for k, values in sorted(params.items()) for v in values]
    base = (st.context.url or "").split("?")[0] or ("./" if slug == "home" else f"./{slug}")
    return base + ("?" + urlencode(pairs) if pairs else "")
