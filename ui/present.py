"""Presenter mode: larger type and charts for a projector, prose folded away, reveals one step at a time.

Turned on by the sidebar toggle or a ``?present=1`` link; it lasts for the browser session.
"""

from __future__ import annotations

import streamlit as st

_KEY = "_present"
_SWITCH = "_present_switch"
_ON = {"1", "true", "yes", "on"}

# Static CSS only (never anything a user typed): bigger type, wider column, roomier controls.
PRESENTER_CSS = """
<style>
  html { font-size: 20px; }
  [data-testid="stMainBlockContainer"] { max-width: 100%; padding-left: 2.5rem; padding-right: 2.5rem; }
  [data-testid="stMarkdownContainer"] p, [data-testid="stMarkdownContainer"] li { font-size: 1.15rem; }
  h1 { font-size: 2.6rem !important; }
  .stButton button { font-size: 1.1rem; padding: 0.5rem 1.4rem; }
</style>
"""


def _flip() -> None:
    st.session_state[_KEY] = bool(st.session_state.get(_SWITCH, st.session_state.get(_KEY, False)))


def sidebar_toggle() -> None:
    """The presenter switch in the sidebar, drawn by every page (the lesson frame and the home page).

    The mode lives in a plain session key, not only in the widget, so it survives page switches.
    """
    if _KEY not in st.session_state:
        st.session_state[_KEY] = str(st.query_params.get("present", "")).lower() in _ON
    st.sidebar.toggle("Presenter mode", value=st.session_state[_KEY], key=_SWITCH, on_change=_flip,
                      help="Large type for a projector; prose folded; Page Down / Page Up step through reveals.")
    if st.session_state[_KEY]:
        st.query_params["present"] = "1"
        st.html(PRESENTER_CSS)
    elif "present" in st.query_params:
        del st.query_params["present"]


def active() -> bool:
    return bool(st.session_state.get(_KEY, False))


# Static script (the two keys are our own widget keys, never user text): a presentation clicker sends
# PageDown / PageUp, which press the page's Next / Back step buttons. Bare arrow keys are left alone,
# so a focused slider keeps them.
_CLICKER_JS = """
<script>
(function () {
  window.__attnSteps = {next: "%(next)s", back: "%(back)s"};
  if (window.__attnStepsInstalled) return;
  window.__attnStepsInstalled = true;
  document.addEventListener("keydown", function (e) {
    if (e.key !== "PageDown" && e.key !== "PageUp") return;
    var key = e.key === "PageDown" ? window.__attnSteps.next : window.__attnSteps.back;
    var button = document.querySelector(".st-key-" + key + " button");
    if (button && !button.disabled) { e.preventDefault(); button.click(); }
  });
})();
</script>
"""


def clicker_keys(next_key: str, back_key: str) -> None:
    """Let PageDown / PageUp press the buttons with these (code-defined) keys."""
    if not (next_key.replace("_", "").isalnum() and back_key.replace("_", "").isalnum()):
        raise ValueError("clicker keys must be plain identifiers")
    st.html(_CLICKER_JS % {"next": next_key, "back": back_key}, unsafe_allow_javascript=True)
