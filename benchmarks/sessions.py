"""(d) N concurrent sessions, each changing a control once a second, replaying a real browser's messages."""

from __future__ import annotations

import asyncio
import random
import time
from dataclasses import dataclass, field

from benchmarks.redraw import press
from benchmarks.report import TARGETS, ok, pct
from devtools import harness, ws_client


@dataclass
class Script:
    """What a real browser sent for one page: the first run, then the control moved and moved back."""

    slug: str
    frames: list[bytes] = field(default_factory=list)


def capture_scripts(browser, base: str, slugs: list[str]) -> list[Script]:
    scripts = []
    for slug in slugs:
        context = browser.new_context(viewport={"width": 1400, "height": 900})
        page = context.new_page()
        runs = harness.Runs(page)
        script = Script(slug)
        page.on("websocket", lambda ws, s=script: ws.on(
            "framesent", lambda f: s.frames.append(f) if isinstance(f, bytes) and is_rerun(f) else None))
        runs.open(harness.page_url(base, slug))
        for step in range(2):
            done = runs.finished
            if press(page, step) is None:
                break
            runs.wait(done)
        context.close()
        if len(script.frames) >= 3:
            scripts.append(Script(slug, script.frames[:3]))
    return scripts


def is_rerun(frame: bytes) -> bool:
    from streamlit.proto.BackMsg_pb2 import BackMsg

    return BackMsg.FromString(frame).WhichOneof("type") == "rerun_script"


@dataclass
class Load:
    n: int
    latencies: list[float]
    first_render: list[float]
    errors: list[str]
    changes: int


class Window:
    """The timed phase starts once every session has its first page (or has failed to get it).

    Arrival (all sessions opening the app at once) and steady use (each changing a control once a
    second) are two different loads; mixing them would let a slow arrival hide the steady figures.
    """

    def __init__(self, sessions: int, seconds: float) -> None:
        self.pending, self.seconds = sessions, seconds
        self.open = asyncio.Event()
        self.until = 0.0

    def arrived(self) -> None:
        self.pending -= 1
        if self.pending == 0:
            self.until = time.perf_counter() + self.seconds
            self.open.set()


# No client pings: a browser sends none, so a busy server must not be failed for missing them.
CONNECT = {"subprotocols": ["streamlit"], "max_size": None, "open_timeout": 60, "ping_interval": None}


@dataclass
class Sent:
    """What one run sent: its elements (``new_element`` deltas, and messages sent as a reference to one the
    browser already holds: Streamlit's message cache does that for a large element it sent before, a chart as
    a rule), the Plotly charts among the new ones, the references, and the bytes of every message of the run."""

    elements: int = 0
    charts: int = 0
    by_reference: int = 0
    bytes: int = 0


async def timed_run(ws, frame: bytes, errors: list[str] | None = None, slug: str = "",
                    sent: Sent | None = None) -> float:
    """Send one replayed message and wait for the run it starts to finish: seconds taken. An exception drawn
    or a compile error is noted in ``errors``, when given (named by ``slug``); what the run sent is counted
    into ``sent``, when given."""
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

    errors = [] if errors is None else errors
    sent = Sent() if sent is None else sent
    t0 = time.perf_counter()
    await ws.send(frame)
    while True:
        data = await asyncio.wait_for(ws.recv(), timeout=60)
        sent.bytes += len(data)
        msg = ForwardMsg.FromString(data)
        kind = msg.WhichOneof("type")
        element = msg.delta.new_element.WhichOneof("type") if kind == "delta" else None
        if kind == "ref_hash":
            sent.elements += 1
            sent.by_reference += 1
        if element is not None:
            sent.elements += 1
            sent.charts += element == "plotly_chart"
        if element == "exception":
            errors.append(f"{slug}: exception element")
        elif kind == "script_finished":
            if msg.script_finished == ForwardMsg.FINISHED_WITH_COMPILE_ERROR:
                errors.append(f"{slug}: compile error")
            return time.perf_counter() - t0


async def session(ws_url: str, script: Script, out: Load, window: Window, pace: float = 1.0) -> None:
    import websockets

    async def run(ws, frame: bytes) -> float:
        return await timed_run(ws, frame, out.errors, script.slug)

    arrived = False
    try:
        async with websockets.connect(ws_url, **CONNECT) as ws:
            out.first_render.append(await run(ws, script.frames[0]))
            window.arrived()
            arrived = True
            if len(script.frames) < 3:
                return
            await window.open.wait()
            await asyncio.sleep(random.random() * pace)  # spread the sessions over the second
            step = 0
            while time.perf_counter() < window.until:
                tick = time.perf_counter()
                out.latencies.append(await run(ws, script.frames[1 + step % 2]))
                out.changes += 1
                step += 1
                await asyncio.sleep(max(0.0, pace - (time.perf_counter() - tick)))
    except Exception as err:  # every failure counts: refused, dropped, timed out
        out.errors.append(f"{script.slug}: {type(err).__name__}: {err}"[:200])
        if not arrived:
            window.arrived()


run_in_thread = ws_client.run


def load(base: str, scripts: list[Script], n: int, seconds: float, pace: float = 1.0) -> Load:
    """n sessions arrive together, then each changes its control every ``pace`` seconds for ``seconds``."""
    out = Load(n, [], [], [], 0)
    ws_url = harness.stream_url(base)

    async def main():
        window = Window(n, seconds)
        await asyncio.gather(*(session(ws_url, scripts[i % len(scripts)], out, window, pace) for i in range(n)))

    run_in_thread(main())
    return out


def section(loads: list[Load], scripts: list[Script], seconds: float) -> list[str]:
    """The report's (d) section: one row per number of sessions."""
    rows = ["| Sessions | Changes made | Arriving at once: first page p95 | Steady: change → run finished p50 "
            "| p95 | Errors |",
            "| ---: | ---: | ---: | ---: | ---: | ---: |"]
    for result in loads:
        p95 = pct(result.latencies, 0.95) * 1000
        mark = (ok(p95, TARGETS["load30_p95_ms"]) + (" ❌ errors" if result.errors else "")) if result.n == 30 else ""
        rows.append(f"| {result.n} | {result.changes} | {pct(result.first_render, 0.95) * 1000:.0f} ms | "
                    f"{pct(result.latencies, 0.5) * 1000:.0f} ms | {p95:.0f} ms {mark} | "
                    f"{len(result.errors)} |")
    pages_used = ", ".join(f"`{s.slug}`" for s in scripts) or "none (no page has a slider or toggle)"
    errors = sorted({e for r in loads for e in r.errors})[:5]
    return ["### (d) Concurrent sessions against one server process",
            f"Websocket clients (one Python process, asyncio) replaying what a real Chromium sent "
            f"for each page: its first run, then its first control moved and moved back. Sessions are "
            f"spread round-robin over {pages_used}. All N open the app at once (*arriving*); once "
            f"every one has its first page, each changes its control once a second (waiting for the "
            f"previous run to finish) for {seconds:.0f} s (*steady*). Latency is from sending "
            "the change to the server's `script_finished`: server time plus the wire, without the "
            "browser's drawing, which (c) measures. Clients and server share the same 2 cores.",
            "\n".join(rows)] + ([f"Errors seen: {'; '.join(errors)}"] if errors else [])
