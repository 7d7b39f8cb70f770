"""A tiny Streamlit app that exercises every access in ui/streamlit_private.py on a real server, and says
what it found in markdown lines "probe <name>: <value>" (tests/test_streamlit_private.py reads them through
a websocket client). Not part of the app.

The runs, one session: (1) the browser's first run; (2) the browser presses "wake" with the slider at 7, and
the run asks the server to rerun this session's whole page; (3) that rerun, which must not press "wake"
again and keeps the slider at 7, asks for its fragment alone; (4) the fragment's own run asks for the whole
"other" page with a query string, as a follower switched to another page is woken.
"""

from __future__ import annotations

import threading

import streamlit as st
from streamlit.runtime.pages_manager import PagesManager

from ui import streamlit_private as private


def say(name: str, value: object) -> None:
    st.markdown(f"probe {name}: {value}")


@st.cache_resource(max_entries=1)
def idle() -> list[bool]:
    """private.running(session) as each wake found it (False: the run was over), kept across runs."""
    return []


def _wake(session, fragment_id: str | None = None, moved: tuple[str, str] | None = None) -> None:
    """Wake this session a second after its run (by then finished: a wake during a run interrupts it, and
    the lines it drew would never reach the browser), from another thread, as a presenter's change does."""
    server, found = private.server(), idle()

    def later() -> None:
        found.append(private.running(session))
        server.call_soon(private.rerun_session, session, fragment_id, moved)

    threading.Timer(1.0, later).start()


@st.fragment
def section() -> None:
    fid = private.current_fragment_id()
    st.session_state.setdefault("fid", fid)
    say("fragment id", "ok" if fid and fid == st.session_state["fid"] else f"bad {fid!r}")
    say("fragment run", private.fragment_run())
    if private.fragment_run() and st.session_state.get("woken") == "fragment":
        st.session_state["woken"] = "moved"
        session = private.server().session(private.session_id())
        _wake(session, None, (private.page_hash("other"), "probe=1"))


@st.fragment(run_every=3600)
def ticker() -> None:
    """A timer (its hour never comes: the test sends its ticks itself, tagged with this page or another)."""
    st.session_state["ticks"] = st.session_state.get("ticks", -1) + 1
    say("ticks", st.session_state["ticks"])


def main() -> None:
    private.stop_pages_directory()
    private.drop_stale_ticks()
    say("pages directory", PagesManager.uses_pages_directory)
    sid = private.session_id()
    say("session id", "ok" if isinstance(sid, str) and sid else f"bad {sid!r}")
    say("served", private.served())
    if "probe_reap" in st.query_params:                   # the closed sessions a reconnect can no longer have
        say("reaped", private.reap_closed_sessions())
    say("fragment run", private.fragment_run())
    value = st.slider("x", 0, 10, 3, key="probe_slider")
    pressed = st.button("wake", key="probe_wake")
    keys = private.widget_keys()
    say("widget keys", "ok" if keys is not None and {"probe_slider", "probe_wake"} <= keys else f"bad {keys!r}")
    section()
    session = private.server().session(sid)
    say("session", "ok" if session is not None else "missing")
    say("client page", "ok" if private.client_page_hash(session) else "missing")
    say("running", private.running(session))             # this very run
    if idle():
        say("running before a wake", idle()[-1])
    say("other page", "ok" if private.page_hash("other") else "missing")
    woken = st.session_state.get("woken")
    if pressed:
        say("pressed", value)
        st.session_state["woken"] = "page"
        _wake(session)
    elif woken == "page":
        say("woken page", value)                           # a whole-page wake: no press replayed
        st.session_state["woken"] = "fragment"
        _wake(session, st.session_state["fid"])
    query_params()
    ticker()                                              # last: the ids of the fragments above stay as they were


def query_params() -> None:
    """A link's value a bound widget takes, reseeded on the first run; a parameter dropped without a message.
    Drawn after the fragment, whose id depends on what comes before it."""
    first = "probe_seed" not in st.session_state
    if first:                                             # the first run: the link's value, reseeded
        private.reseed_query_param("probe_seed", ["ab"])
    seeded = st.text_input("seed", key="probe_seed", bind="query-params")
    if first:
        say("reseeded", "ok" if seeded == "ab" else f"bad {seeded!r}")
    st.query_params["probe_drop"] = "x"
    private.drop_query_params("probe_drop")
    say("dropped", "ok" if "probe_drop" not in st.query_params else "still there")


def other() -> None:
    say("moved", f"{st.query_params.get('probe')} {st.session_state.get('woken')}")


st.navigation([st.Page(main, title="main", url_path="main", default=True),
               st.Page(other, title="other", url_path="other")]).run()
