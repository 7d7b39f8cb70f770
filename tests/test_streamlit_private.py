"""Streamlit's private parts, all in ui/streamlit_private.py: each access exercised for real on the pinned
version (a real server runs devtools/streamlit_probe.py), so that an upgrade that moves one fails here
first; and no other app module reaching them itself (docs/STREAMLIT.md is the upgrade checklist)."""

from __future__ import annotations

import ast
import asyncio
import logging
import re
import threading
from pathlib import Path

from ui import streamlit_private as private

ROOT = Path(__file__).resolve().parent.parent
APP_SOURCES = ("app.py", "pages", "ui", "figures", "attention_core")
PRIVATE = ROOT / "ui" / "streamlit_private.py"
WAIT_S = 120                  # generous, for a machine shared with other work

# What only ui/streamlit_private.py may touch: Streamlit's internal modules, and these attributes.
PRIVATE_MODULES = ("streamlit.runtime", "streamlit.proto", "streamlit.emojis", "streamlit.web",
                   "streamlit.elements", "streamlit.commands")
PRIVATE_NAMES = frozenset({
    "PagesManager", "uses_pages_directory", "get_script_run_ctx", "fragment_ids_this_run",
    "pages_manager", "widget_user_keys_this_run", "ThreadState", "_session_mgr",
    "_get_async_objs", "get_active_session_info", "_client_state", "request_rerun", "has_fragment",
    "page_script_hash", "_scriptrunner", "_pages_manager", "current_page_script_hash", "_session_storage",
})


def app_modules() -> list[Path]:
    """The app's Python files, and the scripts it injects into the browser (ui/js/*.js)."""
    files = []
    for name in APP_SOURCES:
        path = ROOT / name
        files += [path] if path.is_file() else sorted(path.rglob("*.py")) + sorted(path.rglob("*.js"))
    return files


def private_uses(source: str) -> list[str]:
    """Each reach into Streamlit's private parts in ``source``: imports of its internal modules, the
    attributes above, their dotted module names in strings, and data-testid values."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import | ast.ImportFrom):
            names = [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            names += [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [f"{node.module}.{a.name}" for a in node.names]
            found += [f"{node.lineno}: imports {n}" for n in names if n.startswith(PRIVATE_MODULES)]
        elif isinstance(node, ast.Attribute) and node.attr in PRIVATE_NAMES:
            found.append(f"{node.lineno}: .{node.attr}")
        elif isinstance(node, ast.Name) and node.id in PRIVATE_NAMES:
            found.append(f"{node.lineno}: {node.id}")
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and \
                any(m in node.value for m in PRIVATE_MODULES):
            found.append(f"{node.lineno}: names a Streamlit module in a string")
    return found


def test_no_app_module_but_one_reaches_into_streamlits_private_parts():
    files = [p for p in app_modules() if p != PRIVATE and p.suffix == ".py"]
    assert len(files) > 40 and PRIVATE.exists()
    uses = [f"{p.relative_to(ROOT)}:{u}" for p in files for u in private_uses(p.read_text(encoding="utf-8"))]
    assert not uses, "go through ui/streamlit_private.py:\n" + "\n".join(uses)


def test_the_check_sees_each_kind_of_reach():
    probe = ("from streamlit.runtime.scriptrunner import get_script_run_ctx\nimport streamlit.proto.ClientState_pb2\n"
             "s._client_state\nrt._session_mgr\nlogging.getLogger('streamlit.runtime.x')\nPagesManager\n"
             "import streamlit as st\nst.session_state['x']\n")
    found = private_uses(probe)
    assert [int(u.split(":")[0]) for u in found].count(1) == 2          # the import and the name it brings
    assert {int(u.split(":")[0]) for u in found} == {1, 2, 3, 4, 5, 6}
    assert private_uses(PRIVATE.read_text(encoding="utf-8"))           # and the module itself has them all


def test_every_data_testid_the_app_selects_is_listed_and_the_list_is_current():
    used = {m for p in app_modules() for m in re.findall(r'data-testid=\\?"(\w+)', p.read_text(encoding="utf-8"))}
    assert used and used == set(private.TEST_IDS)


def test_every_listed_frontend_name_is_in_the_pinned_frontend():
    import streamlit

    bundle = "".join(p.read_text(encoding="utf-8", errors="ignore")
                     for p in (Path(streamlit.__file__).parent / "static").rglob("*.js"))
    quoted = lambda name: any(q + name + q in bundle for q in "\"'`")       # noqa: E731
    missing = [t for t in sorted(private.TEST_IDS) if not quoted(t)]
    missing += [c for c in sorted(private.CLASS_NAMES) if not (quoted(c) or f"`{c}`+" in bundle)]
    assert not missing, f"Streamlit's frontend no longer names these: {missing}"


def test_the_script_context_logger_is_the_one_that_warns_without_a_script(caplog):
    import streamlit as st

    @st.cache_data(show_spinner="busy", max_entries=1)
    def cached() -> int:
        return 1

    caplog.set_level(logging.WARNING, logger=private.SCRIPT_CONTEXT_LOGGER)
    worker = threading.Thread(target=cached, name="not-a-script")
    worker.start()
    worker.join(30)
    assert any(r.name == private.SCRIPT_CONTEXT_LOGGER for r in caplog.records), [r.name for r in caplog.records]


def test_the_emoji_table_is_the_module_streamlit_compiles_on_import():
    import sys

    private.load_emoji_table()
    emojis = sys.modules["streamlit.emojis"]
    assert isinstance(emojis.EMOJI_EXTRACTION_REGEX, re.Pattern)


def test_outside_a_server_the_accesses_say_so_without_raising():
    assert private.session_id() is None and not private.fragment_run() and private.current_fragment_id() is None
    assert private.widget_keys() is None and not private.served() and private.server() is None
    assert private.reap_closed_sessions() is None


async def _probe(base: str) -> list[str]:
    from devtools.harness import stream_url
    from devtools.ws_client import Client, widget_state

    tab = Client(stream_url(base), "probe", query="probe_seed=%E2%80%AEab")
    await tab.open()
    try:
        await tab.run(timeout=WAIT_S)
        slider, wake = tab.widgets["probe_slider"], tab.widgets["probe_wake"]
        await tab.send([widget_state(slider, double_array_value=[7]), widget_state(wake, trigger_value=True)])
        await tab.until(lambda: any(m.startswith("probe moved:") for m in tab.markdown), WAIT_S)
        assert not tab.errors, tab.errors
        return tab.markdown
    finally:
        await tab.close()


def test_each_private_access_works_on_a_real_server_of_the_pinned_version():
    """The probe app uses every access on a real server: the old pages mode turned off, the run context's
    session id, fragment ids and widget keys, a page's hash, the session found through the runtime, and
    three wakes through its event loop (a whole page without replaying a press, a fragment alone, another
    page with its query string)."""
    from devtools import harness, ws_client

    with harness.serve(script="devtools/streamlit_probe.py") as (_, base, _):
        lines = ws_client.run(_probe(base))
    said: dict[str, list[str]] = {}
    for line in lines:
        name, _, value = line.removeprefix("probe ").partition(": ")
        said.setdefault(name, []).append(value)
    assert set(said["pages directory"]) == {"False"} and set(said["served"]) == {"True"}
    for name in ("session id", "widget keys", "session", "client page", "other page", "fragment id", "reseeded",
                 "dropped"):
        assert set(said[name]) == {"ok"}, (name, said[name])
    assert said["pressed"] == ["7"]                       # the browser's press, once
    assert said["woken page"] == ["7"]                    # the whole-page wake: the slider kept, no press again
    assert "True" in said["fragment run"] and "False" in said["fragment run"]   # the fragment's own run came
    assert said["moved"] == ["1 moved"]                   # the other page ran, with the query string given
    assert set(said["running"]) == {"True"}              # a session is running while its script runs...
    assert set(said["running before a wake"]) == {"False"}   # ...and not once its run is over


async def _ticks(base: str) -> tuple[bool, bool]:
    """The probe's timer ticked by hand: once tagged with the page the session left for this one, once with this
    page. Whether each ran (a fragment run finished)."""
    from streamlit.util import calc_hash

    from devtools.harness import stream_url
    from devtools.ws_client import FINISHED_FRAGMENT, Client

    tab = Client(stream_url(base), "ticks")
    await tab.open()
    try:
        await tab.run(timeout=WAIT_S)
        await tab.until(lambda: bool(tab.timers), WAIT_S)       # the timer set (its auto_rerun message)
        fid, here = next(iter(tab.timers)), tab.page_hash

        async def tick(page: str) -> bool:
            before = len(tab.finished)
            tab.page_hash = page
            await tab.send(fragment_id=fid, auto=True)
            tab.page_hash = here
            try:      # no event: a dropped tick gets no reply at all, so its absence is waited for, 5 s
                await tab.until(lambda: len(tab.finished) > before, 5)
            except TimeoutError:
                return False
            return tab.finished[-1][1] == FINISHED_FRAGMENT

        return await tick(calc_hash("other")), await tick(here)
    finally:
        await tab.close()


def test_a_timers_tick_from_a_page_left_is_dropped_and_one_from_this_page_runs():
    from devtools import harness, ws_client

    with harness.serve(script="devtools/streamlit_probe.py") as (_, base, _):
        stale, current = ws_client.run(_ticks(base))
    assert not stale, "a tick tagged with the page left ran a fragment of it"
    assert current, "a tick for the page shown did not run its fragment"


def test_a_tick_is_stale_only_when_it_names_another_page_than_the_sessions():
    from streamlit.proto.ClientState_pb2 import ClientState

    tick = ClientState(fragment_id="f", is_auto_rerun=True, page_script_hash="old")
    assert private.stale_tick(tick, "new")
    assert not private.stale_tick(tick, "old")
    assert not private.stale_tick(tick, "")                          # no page run yet: nothing to compare
    assert not private.stale_tick(ClientState(fragment_id="f", page_script_hash="old"), "new")   # a widget's
    assert not private.stale_tick(ClientState(is_auto_rerun=True, page_script_hash="old"), "new")  # whole page
    assert not private.stale_tick(None, "new")


async def _reaped(base: str, closed: int) -> list[str]:
    """``closed`` tabs open the probe and close; once their wait for a reconnect is over, one more asks it to reap."""
    from devtools.harness import stream_url
    from devtools.ws_client import Client

    for n in range(closed):
        tab = Client(stream_url(base), f"closed {n}")
        await tab.open()
        await tab.run(timeout=WAIT_S)
        await tab.close()
    await asyncio.sleep(2.5)      # no event: a wait for a reconnect ends silently (1 s here; a close may take one)
    tab = Client(stream_url(base), "reaper", query="probe_reap=1")
    await tab.open()
    try:
        await tab.run(timeout=WAIT_S)
        return [m.removeprefix("probe reaped: ") for m in tab.markdown if m.startswith("probe reaped: ")]
    finally:
        await tab.close()


def test_closed_sessions_past_their_reconnect_wait_are_reaped_on_a_real_server():
    """Streamlit keeps a closed tab's session for server.disconnectedSessionTTL and removes an expired one only when
    another session closes: the last tabs of a class stay until the next class leaves. The reap removes them."""
    from devtools import harness, ws_client

    with harness.serve("--server.disconnectedSessionTTL", "1", script="devtools/streamlit_probe.py") as (_, base, _):
        said = ws_client.run(_reaped(base, 3))
    # The three closed within a second of each other, so no close found another's wait over: all three were still
    # held, long expired, and the reap removed them (the reaper's own session is open, so not among them).
    assert said == ["3"], said
