"""Measure the app and write docs/PERFORMANCE.md: python benchmarks/run.py [--quick] [--no-levers] [--out FILE].

Not a test: nothing here asserts on time. It prints one markdown report and writes it into
docs/PERFORMANCE.md between its own markers, keeping every other section of that file (the "Model"
section, for one) as it is. Every page comes from assets/lessons/index.toml, so pages that land
later are measured without editing this file.

(a) server rerun per page (AppTest), as a multiple of benchmarks/floor_app.py in the same run
(b) chart JSON per interaction: the Plotly spec strings Streamlit sends, and all websocket bytes
(c) slider → chart redraw in Chromium, from the input event to the first frame with new chart data
(d) N concurrent sessions, each changing a control once a second, replaying a real browser's messages
(e) cold start: process start → health answers → first page run finished
(f) memory: VmRSS of the server after every page has been visited (and under load)
levers: runner.postScriptGC and server.fileWatcherType, before and after, on the same figures
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import os
import platform
import random
import statistics
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.chdir(ROOT)

from tests.browser import harness  # noqa: E402
from ui.content import page_index  # noqa: E402

START, END = "<!-- benchmarks/run.py: start -->", "<!-- benchmarks/run.py: end -->"
BASELINE = ("--runner.postScriptGC", "true", "--server.fileWatcherType", "auto")
LEVERS = {
    "Streamlit defaults": BASELINE,
    "postScriptGC = false": ("--runner.postScriptGC", "false", "--server.fileWatcherType", "auto"),
    'fileWatcherType = "none"': ("--runner.postScriptGC", "true", "--server.fileWatcherType", "none"),
    "both": ("--runner.postScriptGC", "false", "--server.fileWatcherType", "none"),
}
TARGETS = {"ratio": 4.0, "chart_kb": 150.0, "redraw_p95_ms": 300.0, "load30_p95_ms": 1000.0, "rss_mb": 600.0}


@dataclass
class Settings:
    reruns: int = 30          # (a) timed reruns per page
    redraws: int = 30         # (c) slider → redraw samples per page
    load_seconds: float = 20  # (d) seconds per N
    loads: tuple[int, ...] = (10, 30, 60)
    lever_redraws: int = 20
    lever_seconds: float = 12


QUICK = Settings(reruns=10, redraws=12, load_seconds=8, lever_redraws=10, lever_seconds=6)


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")  # shown as "nan": no sample completed
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def ok(value: float, limit: float) -> str:
    return "✅" if value <= limit else "❌"


# ----------------------------------------------------------------------------------------------- (a), (b)


def _first_control(at):
    """The first slider or toggle on the page (AppTest lists), and a function giving its other value."""
    if at.slider:
        s = at.slider[0]
        if isinstance(s.value, tuple | list):
            return s, lambda v: (s.min, v[1]) if v[0] != s.min else (s.min + s.step, v[1])
        return s, lambda v: s.max if v != s.max else s.min
    if at.toggle:
        return at.toggle[0], lambda v: not v
    return None, None


def _spec_bytes(at) -> int:
    return sum(len(el.proto.spec.encode()) for el in at.get("plotly_chart"))


@dataclass
class ServerRerun:
    slug: str
    control: str
    median_ms: float
    charts: int
    chart_bytes: int


def server_reruns(slugs: list[str], n: int) -> tuple[ServerRerun, list[ServerRerun]]:
    from streamlit.testing.v1 import AppTest

    def measure(at, slug: str) -> ServerRerun:
        widget, other = _first_control(at)
        times, sizes = [], []
        for _ in range(n + 2):  # two warm-up reruns, not timed
            if widget is not None:
                widget = _first_control(at)[0]
                widget.set_value(other(widget.value))
            t0 = time.perf_counter()
            at.run()
            times.append(time.perf_counter() - t0)
            sizes.append(_spec_bytes(at))
            if at.exception:
                raise RuntimeError(f"{slug}: {at.exception}")
        label = f"{type(widget).__name__.lower()} `{widget.key or widget.label}`" if widget else "none (plain rerun)"
        return ServerRerun(slug, label, statistics.median(times[2:]) * 1000, len(at.get("plotly_chart")),
                           max(sizes[2:]))

    def floor() -> ServerRerun:
        at = AppTest.from_file(str(ROOT / "benchmarks" / "floor_app.py"), default_timeout=120)
        at.run()
        return measure(at, "floor")

    first = floor()
    rows = []
    for slug in slugs:
        at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
        at.run()
        if slug != "home":
            at.switch_page(f"pages/{slug}.py").run()
        rows.append(measure(at, slug))
    # The floor before and after the pages, averaged: on a machine that gets busier or quieter during
    # the run, one floor measurement at one end would skew every ratio.
    last = floor()
    first.median_ms = (first.median_ms + last.median_ms) / 2
    return first, rows


# ----------------------------------------------------------------------------------------------- (c)

ARM_JS = """() => {
  const snap = () => JSON.stringify([...document.querySelectorAll('.js-plotly-plot')].map(e => e.data));
  const before = snap();
  window.__latency = null;
  const start = e => {
    document.removeEventListener('keydown', start, true);
    document.removeEventListener('click', start, true);
    const t0 = e.timeStamp;
    const poll = () => snap() !== before ? (window.__latency = performance.now() - t0) : requestAnimationFrame(poll);
    requestAnimationFrame(poll);
  };
  document.addEventListener('keydown', start, true);
  document.addEventListener('click', start, true);
}"""


@dataclass
class Redraw:
    slug: str
    control: str
    samples: list[float]
    ws_bytes: list[int]
    misses: int = 0


def _press(page, step: int) -> str | None:
    """Move the first control; sliders go right then back left, so they never stick at a bound."""
    slider = page.locator('[data-testid="stMain"] [data-testid="stSlider"] [role="slider"]')
    if slider.count():
        slider.first.focus()
        page.keyboard.press("ArrowRight" if step % 2 == 0 else "ArrowLeft")
        return "slider"
    return harness.move_first_control(page)


def redraws(page, runs, base: str, slug: str, n: int) -> Redraw | None:
    runs.open(harness.page_url(base, slug))
    if not page.locator(".js-plotly-plot").count():
        return None
    result = Redraw(slug, "", [], [])
    for step in range(n + 1):
        page.evaluate(ARM_JS)
        finished, sent = runs.finished, runs.bytes
        moved = _press(page, step)
        if moved is None:
            return None
        result.control = moved
        try:
            page.wait_for_function("() => window.__latency !== null", timeout=15_000, polling=20)
            runs.wait(finished)
        except Exception:  # a move that changed no chart (e.g. a slider already at its bound)
            result.misses += 1
            page.wait_for_timeout(500)
            continue
        if step:  # the first move loads nothing new but is not timed: it may wait on lazy chunks
            result.samples.append(page.evaluate("() => window.__latency"))
            result.ws_bytes.append(runs.bytes - sent)
    return result


# ----------------------------------------------------------------------------------------------- (d)


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
            "framesent", lambda f: s.frames.append(f) if isinstance(f, bytes) and _is_rerun(f) else None))
        runs.open(harness.page_url(base, slug))
        for step in range(2):
            done = runs.finished
            if _press(page, step) is None:
                break
            runs.wait(done)
        context.close()
        if len(script.frames) >= 3:
            scripts.append(Script(slug, script.frames[:3]))
    return scripts


def _is_rerun(frame: bytes) -> bool:
    from streamlit.proto.BackMsg_pb2 import BackMsg

    return BackMsg.FromString(frame).WhichOneof("type") == "rerun_script"


@dataclass
class Load:
    n: int
    latencies: list[float]
    first_render: list[float]
    errors: list[str]
    changes: int


async def _session(ws_url: str, script: Script, until: float, out: Load) -> None:
    import websockets
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

    async def run(ws, frame: bytes) -> float:
        t0 = time.perf_counter()
        await ws.send(frame)
        while True:
            msg = ForwardMsg.FromString(await asyncio.wait_for(ws.recv(), timeout=30))
            kind = msg.WhichOneof("type")
            if kind == "delta" and msg.delta.new_element.WhichOneof("type") == "exception":
                out.errors.append(f"{script.slug}: exception element")
            elif kind == "script_finished":
                if msg.script_finished == ForwardMsg.FINISHED_WITH_COMPILE_ERROR:
                    out.errors.append(f"{script.slug}: compile error")
                return time.perf_counter() - t0

    try:
        async with websockets.connect(ws_url, subprotocols=["streamlit"], max_size=None, open_timeout=30) as ws:
            out.first_render.append(await run(ws, script.frames[0]))
            if time.perf_counter() < until:
                await asyncio.sleep(random.random())  # spread the sessions over the second
            step = 0
            while time.perf_counter() < until:
                tick = time.perf_counter()
                out.latencies.append(await run(ws, script.frames[1 + step % 2]))
                out.changes += 1
                step += 1
                await asyncio.sleep(max(0.0, 1.0 - (time.perf_counter() - tick)))
    except Exception as err:  # every failure counts: refused, dropped, timed out
        out.errors.append(f"{script.slug}: {type(err).__name__}: {err}"[:200])


def _run(coro):
    """asyncio.run in a thread of its own: Playwright's sync API already runs a loop in this one."""
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coro).result()


def load(base: str, scripts: list[Script], n: int, seconds: float) -> Load:
    out = Load(n, [], [], [], 0)
    ws_url = base.replace("http://", "ws://") + "/_stcore/stream"

    async def main():
        until = time.perf_counter() + seconds
        await asyncio.gather(*(_session(ws_url, scripts[i % len(scripts)], until, out) for i in range(n)))

    _run(main())
    return out


# ----------------------------------------------------------------------------------------------- (e), (f)


def first_run_seconds(base: str) -> float:
    """One websocket session runs the default page (home) to its end."""
    from streamlit.proto.BackMsg_pb2 import BackMsg

    frame = BackMsg()
    frame.rerun_script.page_name = ""
    out = Load(1, [], [], [], 0)
    _run(_session(base.replace("http://", "ws://") + "/_stcore/stream",
                         Script("home", [frame.SerializeToString()]), 0, out))
    if out.errors:
        raise RuntimeError(out.errors)
    return out.first_render[0]


@dataclass
class Cold:
    healthy: float
    html: float
    first_run: float


def cold_start(options: tuple[str, ...]) -> tuple[Cold, subprocess.Popen, str]:
    t0 = time.perf_counter()
    proc, base, healthy = harness.start(*options)
    with urllib.request.urlopen(base + "/", timeout=30) as r:
        r.read()
    html = time.perf_counter() - t0
    first = first_run_seconds(base)
    return Cold(healthy, html, time.perf_counter() - t0 if first else 0.0), proc, base


# ----------------------------------------------------------------------------------------------- report


def machine() -> str:
    cpu = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                if line.startswith("model name")), platform.processor() or "unknown")
    load1 = os.getloadavg()[0]
    import streamlit

    return (f"{os.cpu_count()} cores ({cpu}), load average {load1:.1f} at the start, Python "
            f"{platform.python_version()}, Streamlit {streamlit.__version__}, Chromium at {harness.CHROMIUM}")


def render(sections: list[str]) -> str:
    return "\n\n".join(sections)


def write_doc(block: str, out: Path) -> None:
    block = f"{START}\n{block.strip()}\n{END}"
    if out.exists():
        text = out.read_text(encoding="utf-8")
        if START in text and END in text:
            head, rest = text.split(START, 1)
            text = head + block + rest.split(END, 1)[1]
        else:  # keep whatever is there (a "Model" section, say) after our part
            lines = text.splitlines()
            if lines and lines[0].startswith("# "):
                text = "\n".join([lines[0], "", block, "", *lines[1:]]) + "\n"
            else:
                text = f"# Performance\n\n{block}\n\n{text}"
    else:
        text = f"# Performance\n\n{block}\n"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text, encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer samples, shorter load phases (a few minutes)")
    parser.add_argument("--no-levers", action="store_true", help="skip the before/after runs of the config levers")
    parser.add_argument("--out", default=str(ROOT / "docs" / "PERFORMANCE.md"))
    args = parser.parse_args()
    cfg = QUICK if args.quick else Settings()
    slugs = [p.slug for p in page_index()]
    started = dt.datetime.now().astimezone()
    say = lambda *a: print(*a, file=sys.stderr, flush=True)  # noqa: E731
    mode = "quick" if args.quick else "full"
    from playwright.sync_api import sync_playwright

    sections = [
        "## Measured figures (benchmarks/run.py)",
        f"Run {started:%Y-%m-%d %H:%M %Z}, `{mode}` mode, on {machine()}. The machine is shared with other "
        "developers, so absolute times are noisy; compare the ratios and the before/after rows of one run. "
        "Reproduce with `python benchmarks/run.py` (or `--quick`).",
        "**Targets** (issue 7, this 2-core machine): every page's rerun ≤ 4× the floor page; chart JSON "
        "≤ 150 KB per interaction; slider → redraw p95 ≤ 300 ms; 30 concurrent sessions p95 ≤ 1 s with "
        "zero errors; server RSS ≤ 600 MB.",
    ]

    # (a), (b) in-process, before any server competes for the CPU.
    say("(a) server reruns through AppTest …")
    floor, reruns = server_reruns(slugs, cfg.reruns)
    rows = ["| Page | Control moved | Rerun, median | × floor | Charts | Chart JSON per interaction |",
            "| --- | --- | ---: | ---: | ---: | ---: |",
            f"| *floor* (`benchmarks/floor_app.py`, before and after the pages) | {floor.control} | "
            f"{floor.median_ms:.1f} ms | 1.00 | {floor.charts} | {floor.chart_bytes / 1024:.1f} KB |"]
    for r in reruns:
        ratio = r.median_ms / floor.median_ms
        rows.append(f"| `{r.slug}` | {r.control} | {r.median_ms:.1f} ms | {ratio:.2f} {ok(ratio, TARGETS['ratio'])} "
                    f"| {r.charts} | {r.chart_bytes / 1024:.1f} KB {ok(r.chart_bytes / 1024, TARGETS['chart_kb'])} |")
    sections += ["### (a) Server rerun per page, and (b) chart JSON per interaction",
                 f"AppTest, median of {cfg.reruns} reruns, each after moving the page's first slider or toggle "
                 "(found generically). Chart JSON is the sum of the `spec` strings of the page's `plotly_chart` "
                 "elements after the change: Streamlit resends every chart on every rerun, so this is what one "
                 "interaction ships. The websocket total per interaction (everything, not only charts) is in (c).",
                 "\n".join(rows)]

    lever_rows = []
    with sync_playwright() as p:
        browser = harness.launch(p)

        # Levers first, each on a fresh server: the same redraw and load figures under each setting.
        if not args.no_levers:
            for name, options in LEVERS.items():
                say(f"lever: {name} …")
                with harness.serve(*options) as (_, base, _):
                    context = browser.new_context(viewport={"width": 1400, "height": 900})
                    page = context.new_page()
                    runs = harness.Runs(page)
                    samples = []
                    for slug in slugs:
                        r = redraws(page, runs, base, slug, cfg.lever_redraws)
                        samples += r.samples if r else []
                    context.close()
                    scripts = capture_scripts(browser, base, slugs)
                    burst = load(base, scripts, 30, cfg.lever_seconds) if scripts else None
                lever_rows.append((name, samples, burst))
            rows = ["| Setting | Redraw median | Redraw p95 | 30 sessions: first render p95 | 30 sessions: p50 | "
                    "p95 | errors |", "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
            for name, samples, burst in lever_rows:
                b = burst or Load(30, [], [], ["no page with a control"], 0)
                rows.append(f"| {name} | {statistics.median(samples) if samples else float('nan'):.0f} ms | "
                            f"{pct(samples, 0.95):.0f} ms | {pct(b.first_render, 0.95) * 1000:.0f} ms | "
                            f"{pct(b.latencies, 0.5) * 1000:.0f} ms | {pct(b.latencies, 0.95) * 1000:.0f} ms | "
                            f"{len(b.errors)} |")
            sections += ["### Levers: `runner.postScriptGC` and `server.fileWatcherType`",
                         "Each row is a fresh server started with the setting on the command line (so "
                         "`.streamlit/config.toml` does not decide it), then the slider → redraw samples of (c) "
                         f"over every page ({cfg.lever_redraws} per page) and 30 concurrent sessions for "
                         f"{cfg.lever_seconds:.0f} s as in (d). *First render* is the time for each of the 30 "
                         "sessions, all arriving at once, to get its first page.", "\n".join(rows)]

        # The main figures: the server as deployed, with .streamlit/config.toml deciding the settings.
        say("(e) cold start …")
        cold, proc, base = cold_start(())
        try:
            say("(c) slider → redraw …")
            context = browser.new_context(viewport={"width": 1400, "height": 900})
            page = context.new_page()
            runs = harness.Runs(page)
            results = [harness_result for slug in slugs
                       if (harness_result := redraws(page, runs, base, slug, cfg.redraws)) is not None]
            # Every page has now been visited in one session (the lab, once it exists, has loaded its model).
            rss_visited = harness.rss_kb(proc.pid)
            context.close()
            rows = ["| Page | Control | Samples | Median | p95 | Websocket bytes per interaction (median) |",
                    "| --- | --- | ---: | ---: | ---: | ---: |"]
            all_samples = []
            for r in results:
                all_samples += r.samples
                p95 = pct(r.samples, 0.95)
                miss = f" ({r.misses} moves changed no chart)" if r.misses else ""
                rows.append(f"| `{r.slug}` | {r.control} | {len(r.samples)}{miss} | "
                            f"{statistics.median(r.samples):.0f} ms | "
                            f"{p95:.0f} ms {ok(p95, TARGETS['redraw_p95_ms'])} | "
                            f"{statistics.median(r.ws_bytes) / 1024:.1f} KB |")
            sections += ["### (c) Slider → chart redraw in Chromium",
                         "Headless Chromium, one session, one page after another. Measured inside the page: from "
                         "the trusted input event's timestamp (the key press on the slider, the click on the "
                         "toggle) to the first animation frame in which any Plotly chart's data differs. "
                         "Pages with no chart or no slider/toggle are left out.", "\n".join(rows)]

            say("(d) concurrent sessions …")
            scripts = capture_scripts(browser, base, slugs)
            rows = ["| Sessions | Changes made | First render p95 | Change → run finished p50 | p95 | Errors |",
                    "| ---: | ---: | ---: | ---: | ---: | ---: |"]
            loads = []
            for n in cfg.loads:
                if not scripts:
                    break
                result = load(base, scripts, n, cfg.load_seconds)
                loads.append(result)
                p95 = pct(result.latencies, 0.95) * 1000
                mark = (ok(p95, TARGETS["load30_p95_ms"]) + (" ❌ errors" if result.errors else "")) if n == 30 else ""
                rows.append(f"| {n} | {result.changes} | {pct(result.first_render, 0.95) * 1000:.0f} ms | "
                            f"{pct(result.latencies, 0.5) * 1000:.0f} ms | {p95:.0f} ms {mark} | "
                            f"{len(result.errors)} |")
            rss_load = harness.rss_kb(proc.pid)
            pages_used = ", ".join(f"`{s.slug}`" for s in scripts) or "none (no page has a slider or toggle)"
            errors = sorted({e for r in loads for e in r.errors})[:5]
            sections += ["### (d) Concurrent sessions against one server process",
                         f"Websocket clients (one Python process, asyncio) replaying what a real Chromium sent "
                         f"for each page: its first run, then its first control moved and moved back. Sessions are "
                         f"spread round-robin over {pages_used}; each changes the control once a second (waiting "
                         f"for the previous run to finish) for {cfg.load_seconds:.0f} s. Latency is from sending "
                         "the change to the server's `script_finished`: server time plus the wire, without the "
                         "browser's drawing, which (c) measures. Clients and server share the same 2 cores.",
                         "\n".join(rows)] + ([f"Errors seen: {'; '.join(errors)}"] if errors else [])
        finally:
            harness.stop(proc)
        browser.close()

    sections += ["### (e) Cold start",
                 "| Process start → `/_stcore/health` answers | → first HTML page served | → first page's script "
                 "run finished (home, over the websocket) |\n| ---: | ---: | ---: |\n"
                 f"| {cold.healthy:.2f} s | {cold.html:.2f} s | {cold.first_run:.2f} s |",
                 "### (f) Memory",
                 "| Server RSS after every page visited | After the load runs | Peak (VmHWM) |\n"
                 "| ---: | ---: | ---: |\n"
                 f"| {rss_visited['VmRSS'] / 1024:.0f} MB {ok(rss_visited['VmRSS'] / 1024, TARGETS['rss_mb'])} | "
                 f"{rss_load['VmRSS'] / 1024:.0f} MB | {rss_load['VmHWM'] / 1024:.0f} MB "
                 f"{ok(rss_load['VmHWM'] / 1024, TARGETS['rss_mb'])} |",
                 f"Pages measured: {', '.join(f'`{s}`' for s in slugs)} (from `assets/lessons/index.toml`)."]
    report = render(sections)
    print(report)
    write_doc(report, Path(args.out))
    say(f"wrote {args.out} in {(dt.datetime.now().astimezone() - started).total_seconds():.0f} s")


if __name__ == "__main__":
    main()
