"""Levers: runner.postScriptGC and server.fileWatcherType, before and after, on the same figures.

Each setting gets a fresh server started with it on the command line (so .streamlit/config.toml does not
decide it), and the figures of (c) and (d) are taken again on it.
"""

from __future__ import annotations

from benchmarks import redraw, sessions
from benchmarks.report import pct
from devtools import harness

BASELINE = ("--runner.postScriptGC", "true", "--server.fileWatcherType", "auto")
LEVERS = {
    "Streamlit defaults": BASELINE,
    "postScriptGC = false": ("--runner.postScriptGC", "false", "--server.fileWatcherType", "auto"),
    'fileWatcherType = "none"': ("--runner.postScriptGC", "true", "--server.fileWatcherType", "none"),
    "both": ("--runner.postScriptGC", "false", "--server.fileWatcherType", "none"),
}


def measure_one(browser, options: tuple[str, ...], slugs: list[str], redraws: int, seconds: float,
                got: dict[str, list]) -> None:
    """One fresh server with ``options``: back-to-back reruns, redraws and 30 sessions, added to ``got``."""
    with harness.serve(*options) as (_, base, _):
        scripts = sessions.capture_scripts(browser, base, slugs)
        if scripts:  # one session, reruns back to back: the server's own cost per change
            got["seq"] += sessions.load(base, scripts[:1], 1, seconds, pace=0.0).latencies
        context = browser.new_context(viewport={"width": 1400, "height": 900})
        page = context.new_page()
        runs = harness.Runs(page)
        for slug in slugs:
            r = redraw.redraws(page, runs, base, slug, redraws)
            got["redraw"] += r.samples if r else []
        context.close()
        if scripts:
            burst = sessions.load(base, scripts, 30, seconds)
            got["arrive"] += burst.first_render
            got["steady"] += burst.latencies
            got["errors"] += burst.errors


def measure(browser, slugs: list[str], redraws: int, seconds: float, quick: bool, say) -> dict[str, dict]:
    """Every setting's figures, pooled. A full run makes two passes in opposite orders (A B C D, D C B A),
    so a machine that gets busier during the run does not favour whichever setting came first."""
    pooled = {name: {"seq": [], "redraw": [], "arrive": [], "steady": [], "errors": []} for name in LEVERS}
    order = list(LEVERS) if quick else list(LEVERS) + list(reversed(LEVERS))
    for name in order:
        say(f"lever: {name} …")
        measure_one(browser, LEVERS[name], slugs, redraws, seconds, pooled[name])
    return pooled


def section(pooled: dict[str, dict], redraws: int, seconds: float, quick: bool, gc_ms: float) -> list[str]:
    """The report's levers section: one row per setting."""
    rows = ["| Setting | Rerun, 1 session back to back (median) | Redraw median | Redraw p95 | "
            "30 arriving at once: first page p95 | 30 steady: p50 | p95 | Errors |",
            "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]

    def ms(v, q):
        return f"{pct(v, q) * 1000:.0f} ms"

    for name, got in pooled.items():
        rows.append(f"| {name} | {ms(got['seq'], 0.5)} | {pct(got['redraw'], 0.5):.0f} ms | "
                    f"{pct(got['redraw'], 0.95):.0f} ms | {ms(got['arrive'], 0.95)} | "
                    f"{ms(got['steady'], 0.5)} | {ms(got['steady'], 0.95)} | {len(got['errors'])} |")
    return ["### Levers: `runner.postScriptGC` and `server.fileWatcherType`",
            "Each row is a fresh server started with the setting on the command line (so "
            "`.streamlit/config.toml` does not decide it)"
            + ("" if quick else ", measured in two passes in opposite orders and pooled")
            + f". *Rerun, back to back*: one websocket session changing its control as fast as "
            f"the server answers for {seconds:.0f} s. *Redraw*: as in (c), "
            f"{redraws} per page. *30 arriving / steady*: as in (d), 30 sessions for "
            f"{seconds:.0f} s.",
            f"For scale: one full `gc.collect()` in the benchmark process, after it has run every "
            f"page, took {gc_ms:.1f} ms (median of 10); `runner.postScriptGC` runs one after "
            "every script run, holding the GIL.", "\n".join(rows)]
