"""Make sure every run goes through app.py's navigation, even for a deep link.

Streamlit (1.67) treats a folder named ``pages/`` beside the entry script as an old-style multipage
app: it then runs a deep-linked page (``/scaled_formula?…``) on its own, without app.py, so the link
would lose the sectioned navigation, the wide layout and presenter mode. app.py switches that mode off
for the process and marks each run; a page run without that mark switches it off and reruns once,
this time through app.py, which opens the same page with the same query parameters.
"""

from __future__ import annotations

import gc

import streamlit as st

_MARK = "_entry_ran"
_RETRIED = "_entry_retried"


def use_navigation_only() -> None:
    """Called by app.py: no old-style pages/ handling from now on, and this run came through app.py."""
    from streamlit.runtime.pages_manager import PagesManager

    PagesManager.uses_pages_directory = False
    st.session_state[_MARK] = True


def ensure_entry() -> None:
    """Called by every page: if app.py did not run first, rerun once through it."""
    if st.session_state.pop(_MARK, False):
        return
    if not st.session_state.get(_RETRIED):
        st.session_state[_RETRIED] = True
        from streamlit.runtime.pages_manager import PagesManager

        PagesManager.uses_pages_directory = False
        st.rerun()


def settle_heap() -> None:
    """Called by app.py after a run: the first time in this process, collect once and freeze what is left.

    With runner.postScriptGC off (.streamlit/config.toml), Python's own collector still runs now and then,
    and a full (generation 2) pass walks every object the server holds: NumPy, pandas, Plotly and
    Streamlit's modules, ~130,000 objects after a tour of the pages. Such passes took 97–209 ms in a
    running server (logged through gc.callbacks), holding the GIL, so every session waits. Frozen objects
    are left out of later passes: a full collection right after freezing took under 1 ms, and the one at
    the end of a learner's session 34 ms against 112 ms unfrozen. What the server makes afterwards
    (sessions, cached figures) is collected as usual.
    """
    if gc.get_freeze_count() == 0:                       # nothing frozen yet: the first run in this process
        gc.collect()
        gc.freeze()
