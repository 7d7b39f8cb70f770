"""Every run goes through app.py's navigation, even the first run of a deep link.

What Streamlit 1.67 does (streamlit/runtime/pages_manager.py, runtime/scriptrunner/script_runner.py,
commands/navigation.py):

- ``PagesManager.uses_pages_directory`` is a class attribute, so it holds for the whole server process.
  It starts as ``None``; the first session's ``PagesManager.__init__`` sets it to whether a folder named
  ``pages/`` exists beside the main script. Ours does (the project's layout needs it), so it becomes True.
- Before every script run, the ``ScriptRunner`` checks it. While it is True, the run does not execute
  app.py: it calls ``_mpa_v1``, the old multipage mode, which lists app.py plus every ``pages/*.py``
  (sorted by file name) as a flat navigation and runs the page the URL names. A deep link such as
  ``/sqrt_dk?present=1`` therefore runs ``pages/sqrt_dk.py`` alone: no sections in the sidebar, no
  ``set_page_config(layout="wide")``, and nothing of what app.py sets up for presenter mode.
- Only the public ``st.navigation`` sets the flag to False (``_mpa_v1`` calls the private
  ``_navigation``), and nothing sets it back. So the flag stays True until some run executes app.py,
  which a fresh server's first deep link never does.

The workaround (the flag is set through ``ui.streamlit_private.stop_pages_directory``): app.py calls
``use_navigation_only`` before anything else, which sets the flag to False and marks the run as having
come through app.py. Every page calls ``ensure_entry`` first; a run without the mark is one that
``_mpa_v1`` started, so it sets the flag to False and reruns once. The rerun executes
app.py, whose ``st.navigation`` opens the same page with the same query parameters.
"""

from __future__ import annotations

import streamlit as st

from ui import streamlit_private as private

_MARK = "_entry_ran"
_RETRIED = "_entry_retried"


def use_navigation_only() -> None:
    """Called by app.py: no old-style pages/ handling from now on, and this run came through app.py."""
    private.stop_pages_directory()
    st.session_state[_MARK] = True


def ensure_entry() -> None:
    """Called by every page: if app.py did not run first, rerun once through it."""
    if st.session_state.pop(_MARK, False):
        return
    if not st.session_state.get(_RETRIED):
        st.session_state[_RETRIED] = True
        private.stop_pages_directory()
        st.rerun()
