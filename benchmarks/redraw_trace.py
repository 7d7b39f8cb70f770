"""Where one slider move's redraw time goes, page by page: a timeline of the move against the server's messages
and the browser's main thread.

    python -m benchmarks.redraw_trace multi_head masks_and_cross_attention [--moves 8] [--base URL]

For each timed move of the page's first control (as benchmarks/redraw.py moves it, at the same 1400 × 900
viewport), from the key press (t = 0):

- *first message*: the server's first websocket message for the run arrives (the wait before it is the
  server: the websocket round trip and the script up to its first element);
- *chart message*: the message carrying the first changed Plotly chart arrives;
- *drawn*: the first animation frame in which a chart's data differs (what table (c) reports).

and, from a Chrome DevTools CPU profile of the same moves, the main thread's time from the chart's message to
*drawn*, split into Plotly (any frame in Streamlit's Plotly chunk), other JavaScript (React, Streamlit), the
browser's own work (style, layout, paint: "(program)"), GC and idle. The per-frame data comparison that
detects *drawn* is counted apart ("probe"). It also counts, per move, the charts whose figure changed (a
new element id, so a fresh mount) and the elements the run sent.

Not a test and nothing asserts on time; the breakdown is written up in docs/archive/PERFORMANCE_HISTORY.md
("What a redraw costs inside Streamlit 1.67").
"""

from __future__ import annotations

import argparse
import collections
import statistics

from benchmarks.redraw import ARM_JS, press
from devtools import harness

# Each websocket message's arrival on the main thread, in performance.now() time: the listener is added when
# the socket is made, so it runs before Streamlit's own.
WS_JS = """(() => {
  window.__msgs = [];
  const Native = window.WebSocket;
  window.WebSocket = function (...args) {
    const ws = new Native(...args);
    ws.addEventListener('message', () => window.__msgs.push(performance.now()));
    return ws;
  };
  window.WebSocket.prototype = Native.prototype;
  Object.assign(window.WebSocket, {CONNECTING: 0, OPEN: 1, CLOSING: 2, CLOSED: 3});
})();"""


NATIVE = ("(idle)", "(program)", "(garbage collector)")

# The move's start, as ARM_JS takes it: the slider's key press or the toggle's click, whichever comes first.
INPUT_JS = """() => { window.__key = null;
  const start = e => { if (window.__key === null) window.__key = e.timeStamp; };
  document.addEventListener('keydown', start, {capture: true, once: true});
  document.addEventListener('click', start, {capture: true, once: true}); }"""


class Messages:
    """Every websocket frame the page received, decoded: (kind, element type, element id); and each Plotly
    chart's figure by its element id, (spec, config) as the server sent them."""

    def __init__(self, page) -> None:
        self.frames: list[tuple[str, str, str]] = []
        self.figures: dict[str, tuple[str, str]] = {}
        self.cached: dict[str, tuple[str, str, str]] = {}
        page.on("websocket", lambda ws: ws.on("framereceived", self._frame))

    def _frame(self, payload) -> None:
        from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

        if not isinstance(payload, bytes):
            self.frames.append(("text", "", ""))
            return
        msg = ForwardMsg.FromString(payload)
        kind = msg.WhichOneof("type")
        if kind == "ref_hash":                   # a message the browser has cached: Streamlit sends its hash
            self.frames.append(self.cached.get(msg.ref_hash, ("ref_hash", "", "")))
            return
        element, ident = "", ""
        if kind == "delta" and msg.delta.WhichOneof("type") == "new_element":
            element = msg.delta.new_element.WhichOneof("type")
            if element == "plotly_chart":
                chart = msg.delta.new_element.plotly_chart
                ident = chart.id
                self.figures[ident] = (chart.spec, chart.config)
        self.frames.append((kind, element, ident))
        if msg.hash:
            self.cached[msg.hash] = (kind, element, ident)


def samples(profile: dict):
    """(timestamp in µs of the profile's clock, category, ms until the next sample) per sample."""
    nodes = {node["id"]: node for node in profile["nodes"]}
    parent = {child: node["id"] for node in profile["nodes"] for child in node.get("children", [])}
    t = profile["startTime"]
    deltas = [*profile["timeDeltas"][1:], 0]
    for sample, delta in zip(profile["samples"], profile["timeDeltas"], strict=True):
        t += delta
        top = nodes[sample]["callFrame"]["functionName"]
        names, urls, node = [], [], sample
        while node is not None:
            names.append(nodes[node]["callFrame"]["functionName"])
            urls.append(nodes[node]["callFrame"]["url"])
            node = parent.get(node)
        if top in NATIVE:
            kind = top
        elif any("PlotlyChart" in u for u in urls):
            kind = "plotly"
        elif "differs" in names or "poll" in names:
            kind = "probe"
        else:
            kind = "javascript"
        frame = nodes[sample]["callFrame"]
        where = f'{frame["functionName"] or "(anon)"} {frame["url"].rsplit("/", 1)[-1][:30]}:{frame["lineNumber"]}'
        stack = " < ".join(n for n in names[1:6] if n)
        yield t, kind, deltas.pop(0) / 1000, (where, stack)


def clock_offset(page, cdp) -> float:
    """page ms = profile µs / 1000 + offset: performance.now() against the browser's monotonic clock (which
    the CPU profile's timestamps use), read between two page clock readings; the tightest of 20 brackets."""
    cdp.send("Performance.enable")
    best = (float("inf"), 0.0)
    for _ in range(20):
        before = page.evaluate("() => performance.now()")
        ticks = next(m["value"] for m in cdp.send("Performance.getMetrics")["metrics"] if m["name"] == "Timestamp")
        after = page.evaluate("() => performance.now()")
        best = min(best, (after - before, (before + after) / 2 - ticks * 1000))
    return best[1]


def trace_page(browser, base: str, slug: str, moves: int, debug: bool = False, settle: int = 300) -> list[dict]:
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    context.add_init_script(WS_JS)
    page = context.new_page()
    messages = Messages(page)
    runs = harness.Runs(page)
    runs.open(harness.page_url(base, slug))
    cdp = page.context.new_cdp_session(page)
    cdp.send("Profiler.enable")
    cdp.send("Profiler.setSamplingInterval", {"interval": 200})
    offset = clock_offset(page, cdp)
    rows, last_run = [], 0
    for step in range(moves + 2):
        timed = step >= 2                       # two untimed moves first: lazy chunks, first mounts
        ids_before = {f[2] for f in messages.frames[last_run:] if f[2]}   # the charts of the run before
        last_run = n_frames = len(messages.frames)
        n_msgs = page.evaluate("() => window.__msgs.length")
        if timed:
            cdp.send("Profiler.start")
        page.evaluate(ARM_JS)
        page.evaluate(INPUT_JS)
        finished = runs.finished
        if press(page, step) is None:
            raise SystemExit(f"{slug}: no slider or toggle to move")
        try:
            page.wait_for_function("() => window.__latency !== null", timeout=15_000, polling=20)
        except Exception:
            print(f"{slug}: move {step} changed no chart", flush=True)
        runs.wait(finished)
        page.wait_for_timeout(settle)
        if not timed:
            continue
        profile = cdp.send("Profiler.stop")["profile"]
        key, latency, arrivals = page.evaluate("() => [window.__key, window.__latency, window.__msgs]")
        frames, arrivals = messages.frames[n_frames:], arrivals[n_msgs:]
        pts = list(samples(profile))
        if debug:
            print(f"key at 0, drawn at {latency:.0f} ms")
            for f, a in zip(frames, arrivals, strict=False):
                print(f"  {a - key:7.1f}  {f[0]} {f[1]} {f[2][-40:]}")
            bins = collections.defaultdict(collections.Counter)
            for t, kind, ms, _ in pts:
                at = t / 1000 + offset - key
                if 0 <= at < latency + 100:
                    bins[int(at // 25)][kind] += ms
            tops = collections.Counter()
            for t, kind, ms, (where, stack) in pts:
                at = t / 1000 + offset - key
                if 0 <= at < latency and kind not in NATIVE:
                    tops[(kind, where, stack)] += ms
            for (kind, where, stack), ms in tops.most_common(25):
                print(f"   {ms:5.1f} ms {kind:10} {where}  <  {stack}")
            for b in sorted(bins):
                print(f"  [{b * 25:4d}, +25): " + ", ".join(f"{k} {v:.0f}" for k, v in bins[b].most_common()
                                                        if k != "(idle)" and v >= 1))
        new_charts = [i for i, f in enumerate(frames) if f[1] == "plotly_chart" and f[2] not in ids_before]
        chart_at = arrivals[new_charts[0]] - key if new_charts and len(arrivals) > new_charts[0] else float("nan")
        drawn = latency if latency is not None else float("nan")
        window = collections.Counter()
        before = collections.Counter()
        for t, kind, ms, _ in pts:
            at = t / 1000 + offset - key
            if chart_at <= at < drawn:
                window[kind] += ms
            elif 0 <= at < chart_at:
                before[kind] += ms
        rows.append({"first": arrivals[0] - key if arrivals else float("nan"), "chart": chart_at, "drawn": drawn,
                     "changed": len(new_charts), "charts": sum(f[1] == "plotly_chart" for f in frames),
                     "elements": sum(f[0] == "delta" for f in frames), "window": window, "before": before})
    context.close()
    return rows


def summary(slug: str, rows: list[dict]) -> str:
    med = lambda key: statistics.median(r[key] for r in rows)  # noqa: E731
    cats = ("plotly", "javascript", "(program)", "(garbage collector)", "probe", "(idle)")
    win = {c: statistics.median(r["window"][c] for r in rows) for c in cats}
    bef = {c: statistics.median(r["before"][c] for r in rows) for c in cats}
    return (f"{slug:26} first msg {med('first'):5.0f}  chart msg {med('chart'):5.0f}  drawn {med('drawn'):5.0f} ms | "
            f"charts changed {med('changed'):.0f} of {med('charts'):.0f}, elements {med('elements'):.0f} | "
            "before chart msg: " + ", ".join(f"{c} {bef[c]:.0f}" for c in cats) +
            " | chart msg → drawn: " + ", ".join(f"{c} {win[c]:.0f}" for c in cats))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pages", nargs="+", help="page slugs; 'floor' for benchmarks/floor_app.py")
    parser.add_argument("--moves", type=int, default=8)
    parser.add_argument("--base", default="", help="a running app's URL (else one is started)")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = harness.launch(p)
        with harness.serve(script="benchmarks/floor_app.py") as (_, floor_base, _):
            server = harness.serve() if not args.base else None
            base = args.base or server.__enter__()[1]
            try:
                for slug in args.pages:
                    rows = (trace_page(browser, floor_base, "home", args.moves) if slug == "floor"
                            else trace_page(browser, base, slug, args.moves))
                    print(summary(slug, rows), flush=True)
            finally:
                if server is not None:
                    server.__exit__(None, None, None)
        browser.close()


if __name__ == "__main__":
    main()
