"""Make sure every run goes through app.py's navigation, even for a deep link.

Streamlit (1.67) treats a folder named ``pages/`` beside the entry script as an old-style multipage
app: it then runs a deep-linked page (``/scaled_formula?…``) on its own, without app.py, so the link
would lose the sectioned navigation, the wide layout and presenter mode. app.py switches that mode off
for the process and marks each run; a page run without that mark switches it off and reruns once,
this time through app.py, which opens the same page with the same query parameters.
"""

from __future__ import annotations

import copy
import functools
import gc

import streamlit as st

from ui.content import APP_DIR, PAGE_FILES, page_index

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


def navigation_pages() -> dict[str, list[st.Page]]:
    """Called by app.py: the lessons' pages for st.navigation, by section, in teaching order (index.toml).

    Copies of pages made once per process: st.Page resolves and checks its file on the disk each time it
    is made (2.8 ms for the eleven, on every rerun: a third of the floor page's whole rerun), and
    st.navigation marks the page it picks to run on the object itself, so no two runs share one.
    """
    return {name: [copy.copy(p) for p in pages] for name, pages in _page_templates().items()}


@functools.cache                                          # no arguments: made once per process
def _page_templates() -> dict[str, tuple[st.Page, ...]]:
    sections: dict[str, list[st.Page]] = {}
    for item in page_index():
        sections.setdefault(item.section, []).append(
            st.Page(str(APP_DIR / PAGE_FILES.format(slug=item.slug)), title=item.title, icon=item.icon,
                    default=item.slug == "home")
        )
    return {name: tuple(pages) for name, pages in sections.items()}


# Once per process, remembered by the cache: asking gc.get_freeze_count() instead walks every frozen object
# (11.7 ms for the ~115,000 here, on every rerun).
@functools.cache
def settle_heap() -> None:
    """Called by app.py after every run: the first time in this process, collect once and freeze what is left.

    With runner.postScriptGC off (.streamlit/config.toml), Python's own collector still runs now and then,
    and a full (generation 2) pass walks every object the server holds: NumPy, pandas, Plotly and
    Streamlit's modules, ~130,000 objects after a tour of the pages. Such passes took 97–209 ms in a
    running server (logged through gc.callbacks), holding the GIL, so every session waits. Frozen objects
    are left out of later passes: a full collection right after freezing took under 1 ms, and the one at
    the end of a learner's session 34 ms against 112 ms unfrozen. What the server makes afterwards
    (sessions, cached figures) is collected as usual.
    """
    gc.collect()
    gc.freeze()
