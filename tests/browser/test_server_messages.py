"""What the server tells a client: a raw websocket client, speaking Streamlit's own protobufs.

Its own server (not the shared fixture's), since one test empties every cache on it. Prints what it
measures (docs/SECURITY.md quotes it): run with -s to see the figures.
"""

from __future__ import annotations

import asyncio
import os
import re
import time
import urllib.request

import pytest

from devtools import harness, ws_client


@pytest.fixture(scope="module")
def own_server():
    with harness.serve() as (proc, base, _):
        yield proc, base


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of one process so far (from /proc/<pid>/stat)."""
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def cache_entries(base: str) -> dict[str, float]:
    """Bytes per st.cache_data / st.cache_resource function, from Streamlit's metrics endpoint (5 s TTL)."""
    with urllib.request.urlopen(f"{base}/_stcore/metrics?families=cache_memory_bytes", timeout=30) as r:
        text = r.read().decode()
    out: dict[str, float] = {}
    for line in text.splitlines():
        m = re.match(r'cache_memory_bytes\{cache_type="(\w+)",cache="([^"]+)"\} (\S+)', line)
        if m:
            out[f"{m[1]}:{m[2]}"] = out.get(f"{m[1]}:{m[2]}", 0.0) + float(m[3])
    return out


_run = ws_client.run


async def _session(base: str, frames: list[bytes], wait_finish: list[bool]) -> list:
    """Send each frame; after those marked, read until a whole run finishes. Returns every ForwardMsg."""
    import websockets
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

    got = []
    async with websockets.connect(harness.stream_url(base), subprotocols=["streamlit"],
                                  max_size=None, open_timeout=60, ping_interval=None) as ws:
        for frame, wait in zip(frames, wait_finish, strict=True):
            await ws.send(frame)
            while wait:
                msg = ForwardMsg.FromString(await asyncio.wait_for(ws.recv(), timeout=120))
                got.append(msg)
                # Only a whole run that finished counts: one cut short for a rerun (a loaded machine's
                # earlier run still going when this frame arrived) is followed by the run asked for.
                if msg.WhichOneof("type") == "script_finished" and msg.script_finished in (
                        ForwardMsg.FINISHED_SUCCESSFULLY, ForwardMsg.FINISHED_WITH_COMPILE_ERROR):
                    break
    return got


def rerun(page: str) -> bytes:
    from streamlit.proto.BackMsg_pb2 import BackMsg

    msg = BackMsg()
    msg.rerun_script.page_name = page
    msg.rerun_script.query_string = ""
    return msg.SerializeToString()


def clear_cache() -> bytes:
    from streamlit.proto.BackMsg_pb2 import BackMsg

    msg = BackMsg()
    msg.clear_cache = True
    return msg.SerializeToString()


# A lesson whose caches no background thread fills (ui/warm.py warms others as they open): what the
# clears empty stays empty until this page runs again. A Streamlit cache: the lessons' own computations
# (ui.lru.shared) and the app's shared figures and runs are kept outside them, and a clear leaves those.
CLEARED, CLEARED_CACHE = "positional_encoding", "lessons.positional_encoding.position_tables"


def cache_metrics_once(base: str, *, listing: bool, timeout_s: float) -> dict[str, float]:
    """The cache metrics as soon as they do (``listing``) or do not list CLEARED_CACHE; after ``timeout_s``
    the last ones read. They lag the runs (a 5 s TTL, more on a loaded machine), so a test polls them."""
    seen: list[dict[str, float]] = []

    def done() -> bool:
        seen.append(cache_entries(base))
        return any(CLEARED_CACHE in k for k in seen[-1]) == listing

    try:
        harness.until(done, timeout_s, "the cache metrics did not change", every_s=0.25)
    except TimeoutError:
        pass                                      # the caller's assert shows what was listed
    return seen[-1]


def test_clear_cache_from_any_client_is_still_honoured_and_what_it_costs(own_server):
    """toolbarMode = "viewer" hides the menu item, but the server acts on the message from anyone: Streamlit
    offers no switch to refuse it. Measured: the server CPU for ten clears and the page run after them."""
    proc, base = own_server
    got = _run(_session(base, [rerun("sqrt_dk"), rerun(CLEARED)], [True, True]))
    ran = [(m.WhichOneof("type"), m.script_finished if m.WhichOneof("type") == "script_finished" else
            m.delta.new_element.WhichOneof("type") if m.WhichOneof("type") == "delta" else None) for m in got]
    ran = [r for r in ran if r[0] in ("new_session", "script_finished") or r[1] == "exception"]
    before = cache_metrics_once(base, listing=True, timeout_s=60)
    assert any(CLEARED_CACHE in k for k in before), (before, ran)
    cpu0 = cpu_seconds(proc.pid)
    _run(_session(base, [clear_cache()] * 10 + [rerun("home")], [False] * 10 + [True]))
    clears_cpu = cpu_seconds(proc.pid) - cpu0
    after = cache_metrics_once(base, listing=False, timeout_s=30)
    assert not any(CLEARED_CACHE in k for k in after), f"clear_cache was honoured: {CLEARED} emptied"
    cpu1 = cpu_seconds(proc.pid)
    _run(_session(base, [rerun(CLEARED)], [True]))                 # refills what the clears emptied
    refill_cpu = cpu_seconds(proc.pid) - cpu1
    cpu2 = cpu_seconds(proc.pid)
    _run(_session(base, [rerun(CLEARED)], [True]))
    warm_cpu = cpu_seconds(proc.pid) - cpu2
    print(f"\nclear_cache ×10 (and a home run): {clears_cpu:.2f} s server CPU; the {CLEARED} run after them "
          f"{refill_cpu:.2f} s, warm {warm_cpu:.2f} s; cache entries before {len(before)}, after {len(after)}")
    with urllib.request.urlopen(f"{base}/_stcore/health", timeout=10) as r:
        assert r.status == 200


def test_the_public_settings_are_in_the_config_the_server_reads():
    import tomllib

    config = tomllib.loads((harness.ROOT / ".streamlit" / "config.toml").read_text(encoding="utf-8"))
    assert config["client"] == {"showErrorDetails": "none", "toolbarMode": "viewer"}
    assert config["server"]["maxMessageSize"] <= 4


def test_malformed_messages_get_no_traceback_or_server_path(own_server):
    """Widget values of the wrong type, an unknown widget, an unknown fragment: whatever Streamlit answers,
    no traceback and no server path reaches the client (showErrorDetails = "none")."""
    _, base = own_server
    from streamlit.proto.BackMsg_pb2 import BackMsg

    first = _run(_session(base, [rerun("sqrt_dk"), rerun("sqrt_dk")], [True, True]))
    slider_ids = [m.delta.new_element.slider.id for m in first if m.WhichOneof("type") == "delta"
                  and m.delta.new_element.WhichOneof("type") == "slider"]
    assert slider_ids, "the page's slider was found"
    bad = BackMsg()
    bad.rerun_script.page_name = "sqrt_dk"
    state = bad.rerun_script.widget_states.widgets.add()
    state.id = slider_ids[0]
    state.string_value = "not a number"
    unknown = BackMsg()
    unknown.rerun_script.page_name = "sqrt_dk"
    ghost = unknown.rerun_script.widget_states.widgets.add()
    ghost.id = "$$ID-0000-no_such_widget"
    ghost.double_array_value.data.extend([1e308, -1e308])
    fragment = BackMsg()
    fragment.rerun_script.page_name = "sqrt_dk"
    fragment.rerun_script.fragment_id = "no-such-fragment"
    frames = [rerun("sqrt_dk"), bad.SerializeToString(), unknown.SerializeToString(), fragment.SerializeToString()]
    got = _run(_session(base, frames, [True, True, True, False]))
    # new_session always carries the main script's path (Streamlit's own, whatever the settings): left out.
    text = "\n".join(str(m) for m in got if m.WhichOneof("type") != "new_session")
    exceptions = [m.delta.new_element.exception for m in got if m.WhichOneof("type") == "delta"
                  and m.delta.new_element.WhichOneof("type") == "exception"]
    print(f"\nmalformed messages: {len(exceptions)} exception element(s): "
          + "; ".join(f"{e.type!r} {e.message[:80]!r} ({len(e.stack_trace)} trace lines)" for e in exceptions))
    assert "Traceback" not in text and "site-packages" not in text and str(harness.ROOT) not in text
    assert all(not e.stack_trace for e in exceptions)


def test_a_message_over_the_size_limit_is_refused_and_the_server_keeps_serving(own_server):
    _, base = own_server
    import websockets
    from streamlit.proto.BackMsg_pb2 import BackMsg

    flood = BackMsg()
    flood.rerun_script.page_name = "polysemy"
    ws_state = flood.rerun_script.widget_states.widgets.add()
    ws_state.id = "pl_ctx"
    ws_state.string_array_value.data.extend(f"w{i}" for i in range(400_000))     # about 3 MB
    frame = flood.SerializeToString()
    assert len(frame) > 2 * 2**20

    async def send() -> str:
        async with websockets.connect(harness.stream_url(base),
                                      subprotocols=["streamlit"], max_size=None, ping_interval=None) as ws:
            try:
                # The server may close while the frame is still going out (it reads the length first): the send
                # itself then raises, with the server's 1009 (seen in a full run on a loaded machine).
                await ws.send(frame)
                while True:
                    await asyncio.wait_for(ws.recv(), timeout=30)
            except websockets.ConnectionClosed as closed:
                return f"closed {closed.rcvd.code if closed.rcvd else None}"
            except TimeoutError:
                return "still open"

    t0 = time.perf_counter()
    assert _run(send()).startswith("closed"), "the server must drop an oversized message"
    assert time.perf_counter() - t0 < 20
    got = _run(_session(base, [rerun("home")], [True]))
    assert any(m.WhichOneof("type") == "script_finished" for m in got)
