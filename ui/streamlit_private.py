"""Every use the app makes of Streamlit's private parts, in one place: no other app module imports
``streamlit.runtime`` or ``streamlit.proto``, or touches the attributes below (tests/test_streamlit_private.py
checks both, and exercises each access on a real server of the pinned version, so that an upgrade that moves
one fails there first; docs/STREAMLIT.md is the upgrade checklist).

1. ``PagesManager.uses_pages_directory`` (``stop_pages_directory``). A class attribute Streamlit sets True
   when a ``pages/`` folder sits beside the main script; while it is, a deep link runs ``pages/<name>.py``
   alone, without app.py (ui/entry.py explains). No public call turns the old multipage mode off except
   ``st.navigation``, which a fresh server's first deep link never reaches. Without it: a deep link on a
   fresh server shows a page without its sidebar sections, wide layout or presenter mode.
2. The script run context (``session_id``, ``fragment_run``, ``page_hash``, ``widget_keys``):
   ``get_script_run_ctx()`` and its ``session_id``, ``fragment_ids_this_run``, ``pages_manager.get_pages()``
   and ``shared.widget_user_keys_this_run``. ``st.context`` has none of them. Without them: the classroom
   cannot note who follows a room (no wakes, only the watcher's slower checks), a lesson section cannot tell
   its own run from the page's, a follower switched to another page is woken on the old one, and a section
   cannot tell which controls it owns (every change reruns the whole page).
3. ``ThreadState.get().fragment_id`` (``current_fragment_id``): the id of the fragment running now, which a
   wake names to rerun one lesson section alone. No public API exposes fragment ids. Without it: a follower
   reruns the whole page for a change inside one section.
4. The runtime's session manager and event loop (``server``): ``Runtime._session_mgr``
   (``get_active_session_info``) and ``Runtime._get_async_objs().eventloop``. Streamlit has no public call to
   rerun another session. Without them: a presenter's change reaches followers only at the watcher's next
   check (every few seconds) instead of at once.
5. ``AppSession._client_state`` (``client_page_hash``, ``rerun_session``) and ``AppSession._scriptrunner``
   (``running``): the session's last ``ClientState``
   protobuf (``streamlit.proto.ClientState_pb2``), copied with one-off triggers (button presses) dropped, so a
   wake reruns the page the follower shows with its widget values. Without it: a wake could press a button
   twice, or undo a page switch the follower's browser has not reported yet; and ``running`` would always say
   False, so the wake queue (ui/wake_queue.py) would no longer wait for a woken run before the next.
6. ``AppSession.request_rerun(client_state)`` and ``AppSession.has_fragment(fragment_id)``
   (``rerun_session``): the rerun itself, the way run-on-save asks for one. Without them: no wakes.
7. ``runtime.exists()`` and the type of ``runtime.get_instance()`` (``served``): AppTest runs pages with a
   stand-in runtime, where the classroom's watcher thread must not start. Without it: tests would start
   watcher threads that never stop, or a real server would start none.
8. The logger ``streamlit.runtime.scriptrunner_utils.script_run_context`` (``SCRIPT_CONTEXT_LOGGER``): it
   warns when a cached function runs without a script; ui/warm.py silences that for its warming threads,
   where there is none by design. Without it: the server's log fills with warnings (nothing breaks).
9. ``streamlit.emojis`` (``load_emoji_table``): the module whose import compiles the emoji table an alert or
   pill label is checked against; ui/warm.py imports it ahead of the first learner. Without it: the first
   alert of a fresh process is slower (nothing breaks).
10. Frontend names in injected CSS and scripts (``TEST_IDS``, ``CLASS_NAMES``, ``frontend``): the
    ``data-testid`` values and class names ui/present.py's styles and scripts select; each passes through
    ``frontend``, which refuses an unlisted test id. Streamlit offers no public styling hooks for them (its
    Plotly element has no aria attributes; presenter mode restyles captions, metrics, the sidebar nav).
    Without them: presenter-mode styling, chart names for screen readers and the clicker's scroll-to-reveal
    silently stop applying.
11. ``SafeSessionState.query_params()`` and ``QueryParams._query_params`` (``drop_query_params``): a
    parameter removed from this run's ``st.query_params`` without the message that makes the browser push
    a new history entry. A presenter link's key is then wiped from the address bar in place by the page
    itself (ui/classroom/browser.py), so Back never brings it back. Without it: the key stays in the
    browser's history, one entry back. ``QueryParams._initial_query_params`` (``reseed_query_param``): the
    link's values a bound widget takes on its first run, replaced by the same values without invisible or
    direction-changing characters. Without it: a link's U+202E shows in the box it fills.
12. The frontend's own browser storage and links (``keep_in_browser``, ``close_sidebar``), through streamlit_js_eval
    (as ui/progress.py uses it), each script installed once per page load, sending nothing back (no rerun), in a
    frame hidden with ``display: none``. The theme picked in the Settings menu is kept in localStorage under
    ``THEME_ITEM`` with the path the page was *loaded* at, so a reload on another page forgot it;
    ``keep_in_browser`` copies it to every page's item of the app's navigation as it is picked (a click in
    ``stThemeSwitcher``), and when the page is left or hidden if it changed meanwhile. The lessons' list scrolls in
    a box of its own (ui/classroom/sidebar_ui.py): the current page's link (``stSidebarNavItems``, ``aria-current``)
    is scrolled into that box's view on each page change. A Markdown link is opened in a new tab unless it starts
    with ``#``; a link to one of the app's own pages (``[Jacobian](./glossary#jacobian)``) is followed through that
    page's link in the sidebar's navigation instead (``stSidebarNavLink``: this tab, this session), then scrolled to
    its anchor. ``close_sidebar`` presses the sidebar's collapse button (``stSidebar``'s ``data-collapsed``,
    ``stSidebarCollapseButton``) once per join on a screen up to ``TABLET_PX`` wide: ``initial_sidebar_state``
    cannot do it, since the frontend lets the learner's own last toggle (kept in localStorage) win over it, and a
    student who typed a code opened the sidebar to do so. Without them: the theme is forgotten on reload, glossary
    links open a second tab (a student's class left behind in the first), and a joined tablet keeps the sidebar over
    the lesson.
13. ``AppSession.request_rerun``, wrapped once per process (``drop_stale_ticks``), and the session's
    ``_pages_manager.current_page_script_hash``: a ``run_every`` timer's tick that the browser sent, tagged with
    the page it showed, after the server had switched the session to another page (``st.switch_page``: a
    presenter resuming the class's page, a student following) is dropped, as Streamlit already drops a tick for
    a fragment it no longer has. Run, it is a fragment run tagged with the page left, and the browser drops
    the page it now shows (a blank page until the next full run: the students' timers were replaced by the
    watcher for that reason, RELIABILITY.md). The browser stops every timer when a new page's run starts and
    sets that page's own again, so no tick for the page the session shows is dropped. Without it: a presenter's
    page (which keeps timers for its counts and clock) can go blank after the presenter link takes it to the
    class's page.
14. ``Runtime._session_mgr._session_storage._cache`` (``reap_closed_sessions``): the ``TTLCache`` in which a
    ``MemorySessionStorage`` keeps a closed tab's session for ``server.disconnectedSessionTTL`` (120 s) in case it
    reconnects. It removes an expired session only when another is written to it, so after a class has left up
    to 128 of them stay, with their state and widgets (58,000 objects after a class of 60 measured on 2026-12-06,
    each walked by every full collection), until the next class's tabs close. Its own ``expire()`` removes
    only those a reconnect can no longer have. Without it: a second morning starts beside the first's sessions.
"""

from __future__ import annotations

import functools
import logging
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

SCRIPT_CONTEXT_LOGGER = "streamlit.runtime.scriptrunner_utils.script_run_context"

# Every data-testid the app's styles and scripts select (ui/present.py's, the sidebar's, this module's own;
# a test checks the list against the app's files).
TEST_IDS = frozenset({
    "stButtonGroup", "stCaptionContainer", "stColumn", "stElementContainer", "stExpander", "stMain",
    "stMainBlockContainer", "stMarkdownContainer", "stMetricLabel", "stMetricValue", "stMultiSelect",
    "stNavSectionHeader", "stPageLink", "stPlotlyChart", "stRadio", "stSidebar", "stSidebarCollapseButton",
    "stSidebarNav", "stSidebarNavItems", "stSidebarNavLink", "stSkeleton", "stTable", "stThemeSwitcher",
    "stVerticalBlock",
})
# Class names Streamlit's frontend gives elements: a keyed element's class prefix, a nav label's ellipsis.
CLASS_NAMES = frozenset({"st-key-", "stMarkdownEllipsis"})

# One-off widget values (a button press, a chat message): a copied client state must not replay them.
_TRIGGERS = frozenset({"trigger_value", "string_trigger_value", "json_trigger_value", "chat_input_value"})


def frontend(text: str) -> str:
    """``text`` (CSS or a script to inject into the page), checked to select no ``data-testid`` beyond
    ``TEST_IDS``: every frontend name the app relies on is listed here, and checked on each upgrade."""
    unknown = set(re.findall(r'data-testid=\\?"(\w+)', text)) - TEST_IDS
    if unknown:
        raise ValueError(f"unlisted data-testid values {sorted(unknown)}: add them to TEST_IDS")
    return text


# --- 1. old multipage mode ----------------------------------------------------------------------------------

def stop_pages_directory() -> None:
    """Turn off Streamlit's old ``pages/`` mode for this server process (ui/entry.py)."""
    from streamlit.runtime.pages_manager import PagesManager

    PagesManager.uses_pages_directory = False


# --- 2, 3. the script run context --------------------------------------------------------------------------

def _ctx():
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    return get_script_run_ctx()


def session_id() -> str | None:
    """The id of the session running this script (None outside one)."""
    ctx = _ctx()
    return ctx.session_id if ctx is not None else None


def fragment_run() -> bool:
    """True while this script run reruns fragments only (not the whole page)."""
    ctx = _ctx()
    return bool(ctx is not None and ctx.fragment_ids_this_run)


def current_fragment_id() -> str | None:
    """The id of the fragment whose body is running now (None outside one, or if Streamlit moved it)."""
    try:
        from streamlit.runtime.scriptrunner_utils.script_run_context import ThreadState

        return ThreadState.get().fragment_id
    except Exception:
        return None


def widget_keys() -> frozenset[str] | None:
    """The user keys of the widgets this run has drawn so far (None if Streamlit moved them)."""
    try:
        return _ctx().shared.widget_user_keys_this_run.snapshot()
    except Exception:
        return None


def drop_query_params(*names: str) -> None:
    """Remove ``names`` from this run's ``st.query_params`` without telling the browser (no history entry)."""
    ctx = _ctx()
    if ctx is None:
        return
    with ctx.session_state.query_params() as qp:
        for name in names:
            qp._query_params.pop(name, None)


def reseed_query_param(name: str, values: list[str]) -> None:
    """The value a widget bound to ``name`` takes from the link on its first run, replaced by ``values``."""
    ctx = _ctx()
    if ctx is None:
        return
    with ctx.session_state.query_params() as qp:
        if name in qp._initial_query_params:
            qp._initial_query_params[name] = list(values)


def page_hash(url_path: str) -> str:
    """The script hash of the navigation page at ``url_path`` in this run; raises if there is none."""
    pages = _ctx().pages_manager.get_pages()
    return next(h for h, info in pages.items() if info.get("url_pathname") == url_path)


# --- 4-7. the runtime: other sessions, and reruns ------------------------------------------------------------

@dataclass(frozen=True)
class Server:
    """The running server's sessions, as far as a wake needs them."""

    session: Callable[[str], object | None]      # session id -> its AppSession, None once it has gone
    call_soon: Callable[..., object]             # run a function on the server's event loop, from any thread


def served() -> bool:
    """True under a real Streamlit server (AppTest runs pages with a stand-in runtime)."""
    from streamlit import runtime
    from streamlit.runtime.runtime import Runtime

    return runtime.exists() and type(runtime.get_instance()) is Runtime


def server() -> Server | None:
    """This process's server (None without one). Raises if Streamlit's runtime moved what it uses."""
    from streamlit import runtime

    if not runtime.exists():
        return None
    rt = runtime.get_instance()
    manager, loop = rt._session_mgr, rt._get_async_objs().eventloop

    def session(sid: str) -> object | None:
        info = manager.get_active_session_info(sid)
        return None if info is None else info.session

    return Server(session, loop.call_soon_threadsafe)


def client_page_hash(session) -> str | None:
    """The page the session's browser last said it shows (None before its first message)."""
    state = getattr(session, "_client_state", None)
    return None if state is None else state.page_script_hash


def running(session) -> bool:
    """True while the session has a script runner: its run (or a rerun it was asked for) is not over yet.
    Streamlit drops the runner on the event loop once the run's last message is queued for the browser."""
    return getattr(session, "_scriptrunner", None) is not None


def rerun_session(session, fragment_id: str | None = None, moved: tuple[str, str] | None = None) -> None:
    """On the server's event loop: run the session's page again with its last widget values, less any
    one-off trigger (a wake must never press a button twice). With ``fragment_id`` (one the session still
    holds), only that fragment reruns. With ``moved`` (a page hash and query string), the whole of that page
    runs while the browser has not yet said it is there. Raises if Streamlit moved what it uses."""
    from streamlit.proto.ClientState_pb2 import ClientState

    state = ClientState()
    state.CopyFrom(session._client_state)
    kept = [w for w in state.widget_states.widgets if w.WhichOneof("value") not in _TRIGGERS]
    del state.widget_states.widgets[:]
    state.widget_states.widgets.extend(kept)
    if moved is not None and state.page_script_hash != moved[0]:
        state.page_script_hash, state.query_string = moved
        state.page_name, state.fragment_id = "", ""
    elif fragment_id and session.has_fragment(fragment_id):
        state.fragment_id = fragment_id
    else:
        state.fragment_id = ""
    session.request_rerun(state)


# --- 9. first-use work --------------------------------------------------------------------------------------

def load_emoji_table() -> None:
    """Compile the emoji table Streamlit checks an alert's or a pill's label against (once per process)."""
    import streamlit.emojis  # noqa: F401  (compiled as it is imported)


# --- 12. the frontend's browser storage and links --------------------------------------------------------------

THEME_ITEM = "stActiveTheme-{path}-v2"     # the frontend's localStorage item for the theme, per load path
TABLET_PX = 1024                           # a joined student's sidebar closes on screens up to this wide
_HOOKS_KEY = "_app_browser"                # the keyed container the scripts' frames sit in, hidden
_JS = Path(__file__).resolve().parent / "js"  # the scripts themselves (read once, checked by ``frontend``)
# The keyed container and the wrapper Streamlit puts around it: a wrapper left in place, empty, still takes the
# sidebar's gap (16 px, every element below it moved down).
_HOOKS_CSS = frontend("<style>.st-key-_app_browser, .st-key-_class_sidebar_close, "
                     'div:not([data-testid="stVerticalBlock"]):has(> .st-key-_app_browser), '
                     'div:not([data-testid="stVerticalBlock"]):has(> .st-key-_class_sidebar_close) '
                     "{ display: none; }</style>")

# Run in the app's own window (``w.Function``), so its listeners outlive the component's frame. ``PAGES`` is the
# navigation's URL paths ("" for the default page), never user text.
_HOOKS_JS = frontend((_JS / "hooks.js").read_text(encoding="utf-8"))

_CLOSE_JS = frontend((_JS / "close_sidebar.js").read_text(encoding="utf-8").strip())


def _run_in_browser(expression: str, key: str) -> None:
    """Run ``expression`` in the browser once per change of it; no answer comes back, so no rerun."""
    from streamlit_js_eval import streamlit_js_eval

    streamlit_js_eval(js_expressions=expression, want_output=False, key=key)


def hooks_script(page_paths: list[str]) -> str:
    """The expression ``keep_in_browser`` runs: the hooks, installed in the app's window once per page load."""
    import json

    body = _HOOKS_JS.replace("PAGES", json.dumps(page_paths)).replace("THEME_ITEM", json.dumps(THEME_ITEM))
    return f"(() => {{ const w = window.parent; w.Function({json.dumps(body)}).call(w); return 'hooked'; }})()"


def keep_in_browser(page_paths: list[str]) -> None:
    """The chosen theme kept for every page in ``page_paths`` (the navigation's URL paths), and links to the app's
    own pages followed in this tab. Drawn by app.py on every run, in a hidden frame (nothing without a browser)."""
    import streamlit as st

    if not served():
        return
    st.html(_HOOKS_CSS)                                  # style only: Streamlit gives it no space
    with st.sidebar, st.container(key=_HOOKS_KEY):
        _run_in_browser(hooks_script(page_paths), key="_app_browser_hooks")


def close_sidebar(token: str) -> None:
    """Close the sidebar once for ``token`` (one join) on a screen up to ``TABLET_PX`` wide, where it covers the
    lesson; wider, and for every later run of the same join, nothing. In a hidden frame (nothing without a browser)."""
    import json

    import streamlit as st

    if not served():
        return
    expression = _CLOSE_JS.replace("TOKEN", json.dumps(token)).replace("WIDTH", str(TABLET_PX))
    with st.container(key="_class_sidebar_close"):       # hidden by _HOOKS_CSS (app.py draws it on every run)
        _run_in_browser(expression, key="_class_sidebar_close_" + re.sub(r"\W", "_", token))


# --- 13. a timer's tick from a page left -------------------------------------------------------------------

_LOGGER = logging.getLogger(__name__)


def stale_tick(client_state, current_page: str) -> bool:
    """``client_state`` (a ClientState the browser sent) is a ``run_every`` timer's tick tagged with another page
    than ``current_page``, the one the session runs now ("" before its first navigation: never stale)."""
    return bool(client_state is not None and client_state.fragment_id and client_state.is_auto_rerun
                and current_page and client_state.page_script_hash
                and client_state.page_script_hash != current_page)


@functools.cache
def drop_stale_ticks() -> None:
    """Once per process: the server drops a timer's tick that names a page its session has left (item 13)."""
    from streamlit.runtime.app_session import AppSession

    original = AppSession.request_rerun

    @functools.wraps(original)
    def request_rerun(self, client_state) -> None:
        if stale_tick(client_state, self._pages_manager.current_page_script_hash):
            _LOGGER.info("A timer's tick for page %s, which this session has left, was dropped.",
                         client_state.page_script_hash)
            return
        original(self, client_state)

    AppSession.request_rerun = request_rerun


# --- 14. the sessions Streamlit keeps for a reconnect ------------------------------------------------------------

def reap_closed_sessions() -> int | None:
    """Drop the closed sessions whose wait for a reconnect (``server.disconnectedSessionTTL``) is over, which
    Streamlit itself drops only when another session closes; the number dropped (None without a server, or if
    Streamlit keeps them elsewhere now)."""
    from streamlit import runtime

    if not runtime.exists():
        return None
    storage = getattr(getattr(runtime.get_instance(), "_session_mgr", None), "_session_storage", None)
    expire = getattr(getattr(storage, "_cache", None), "expire", None)
    return None if expire is None else len(expire())
