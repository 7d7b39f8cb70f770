"""Measure the app and write docs/PERFORMANCE.md: python -m benchmarks.run [--quick] [--no-levers] [--out FILE]
[--pages SLUG,SLUG] (only those pages, printed; see --help).

Not a test: nothing here asserts on time. It prints one markdown report and writes it into
docs/PERFORMANCE.md between its own markers, keeping every other section of that file (the "Model"
section, for one) as it is. Every page comes from assets/lessons/index.toml, so pages that land
later are measured without editing this file. One module per measurement:

(a), (b) benchmarks/server_rerun.py: server rerun per page (AppTest), as a multiple of benchmarks/floor_app.py
         in the same run; the chart JSON per interaction (the Plotly spec strings Streamlit sends)
(a2) benchmarks/server_move.py: one move of the page's named control as a running server handles it (a section
     of its own reruns alone), replayed from a real browser's messages, alternately with the floor page's move
(c) benchmarks/redraw.py: slider → chart redraw in Chromium, from the input event to the first frame with new
    chart data, and all websocket bytes per interaction
(d) benchmarks/sessions.py: N concurrent sessions, each changing a control once a second, replaying a real
    browser's messages
(e), (f) benchmarks/cold_start.py: process start → health answers → first page run finished; the server's
         VmRSS after every page has been visited (and under load)
levers: benchmarks/levers.py: runner.postScriptGC and server.fileWatcherType, before and after, on the same figures
The report itself: benchmarks/report.py.
"""

from __future__ import annotations

import argparse
import datetime as dt
import sys
from dataclasses import dataclass
from pathlib import Path

from benchmarks import cold_start, levers, redraw, report, server_move, server_rerun, sessions
from devtools import harness
from devtools.apptest import as_the_server
from ui.content import page_index


@dataclass
class Settings:
    reruns: int = 30          # (a) timed reruns per page
    redraws: int = 30         # (c) slider → redraw samples per page
    moves: int = 30           # (a2) replayed moves per page
    load_seconds: float = 20  # (d) seconds per N
    loads: tuple[int, ...] = (10, 30, 60)
    lever_redraws: int = 20
    lever_seconds: float = 12


QUICK = Settings(reruns=10, redraws=12, moves=10, load_seconds=8, lever_redraws=8, lever_seconds=6)


def say(*args) -> None:
    print(*args, file=sys.stderr, flush=True)


def arguments() -> tuple[argparse.Namespace, Settings, list[str]]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer samples, shorter load phases (a few minutes)")
    parser.add_argument("--no-levers", action="store_true", help="skip the before/after runs of the config levers")
    parser.add_argument("--out", default=None,
                        help="file whose benchmarks block is replaced (default docs/PERFORMANCE.md; with --pages, "
                             "the report is only printed unless --out is given)")
    parser.add_argument("--pages", default="",
                        help="comma-separated slugs to measure alone, e.g. multi_head,sqrt_dk: (a), (c), (e) and (f) "
                             "for those pages only, without the levers or the concurrent sessions of (d)")
    args = parser.parse_args()
    cfg = QUICK if args.quick else Settings()
    slugs = [p.slug for p in page_index()]
    if args.pages:
        chosen = [s.strip() for s in args.pages.split(",") if s.strip()]
        unknown = sorted(set(chosen) - set(slugs))
        if unknown:
            parser.error(f"not in assets/lessons/index.toml: {', '.join(unknown)}")
        slugs = [s for s in slugs if s in chosen]
        args.no_levers = True
        cfg.loads = ()
    if args.out is None and not args.pages:
        args.out = str(harness.ROOT / "docs" / "PERFORMANCE.md")
    return args, cfg, slugs


def introduction(started: dt.datetime, mode: str) -> list[str]:
    return [
        "## Measured figures (benchmarks/run.py)",
        f"Run {started:%Y-%m-%d %H:%M %Z}, `{mode}` mode, on {report.machine(chromium=harness.CHROMIUM)}. The "
        "machine is shared with other developers, so absolute times are noisy; compare the ratios and the "
        "before/after rows of one run. Reproduce with `python -m benchmarks.run` (or `--quick`).",
        "**Targets** (this 2-core machine): every page's rerun ≤ 4× the floor page; a move ≤ 3× the floor's "
        "move and the pages' median redraw ≤ 1.5× the floor's (issue 34); chart JSON "
        "≤ 150 KB per interaction; slider → redraw p95 ≤ 300 ms; 30 concurrent sessions p95 ≤ 1 s with "
        "zero errors; server RSS ≤ 600 MB.",
    ]


def in_process(slugs: list[str], cfg: Settings) -> list[str]:
    """(a), (b) through AppTest, before any server competes for the CPU."""
    say("(a) server reruns through AppTest …")
    floor, reruns = server_rerun.server_reruns(slugs, cfg.reruns)
    with as_the_server():
        floor_c, reruns_c = server_rerun.server_reruns(slugs, cfg.reruns)
    return server_rerun.section(floor, reruns, floor_c, reruns_c, cfg.reruns)


def as_deployed(browser, slugs: list[str], cfg: Settings) -> list[str]:
    """(c) to (f) on the server as deployed, with .streamlit/config.toml deciding the settings."""
    say("(e) cold start …")
    cold, proc, base = cold_start.cold_start(())
    try:
        say("(c) slider → redraw …")
        context = browser.new_context(viewport={"width": 1400, "height": 900})
        page = context.new_page()
        runs = harness.Runs(page)
        # The floor page in a browser, after each page in turn: what one slider and one chart cost end to end here.
        with harness.serve(script="benchmarks/floor_app.py") as (_, floor_base, _):
            results, floor = redraw.alongside(page, runs, base, floor_base, slugs, cfg.redraws)
        rss_visited = harness.rss_kb(proc.pid)           # every page has been visited in one session
        context.close()
        say("(a2) one move as the server handles it …")
        moved = server_move.moves(browser, base, [s for s in slugs if s != "home"], cfg.moves)
        say("(d) concurrent sessions …")
        scripts = sessions.capture_scripts(browser, base, slugs)
        loads = [sessions.load(base, scripts, n, cfg.load_seconds) for n in cfg.loads if scripts]
        rss_load = harness.rss_kb(proc.pid)
    finally:
        harness.stop(proc)
    return (server_move.section(moved, cfg.moves) + redraw.section(results, floor)
            + sessions.section(loads, scripts, cfg.load_seconds)
            + cold_start.section(cold, rss_visited, rss_load))


def main() -> None:
    args, cfg, slugs = arguments()
    started = dt.datetime.now().astimezone()
    from playwright.sync_api import sync_playwright

    sections = introduction(started, "quick" if args.quick else "full") + in_process(slugs, cfg)
    gc_ms = server_rerun.gc_collect_ms()
    with sync_playwright() as p:
        browser = harness.launch(p)
        if not args.no_levers:          # levers first, each on a fresh server
            pooled = levers.measure(browser, slugs, cfg.lever_redraws, cfg.lever_seconds, args.quick, say)
            sections += levers.section(pooled, cfg.lever_redraws, cfg.lever_seconds, args.quick, gc_ms)
        sections += as_deployed(browser, slugs, cfg)
        browser.close()
    sections.append(f"Pages measured: {', '.join(f'`{s}`' for s in slugs)} (from `assets/lessons/index.toml`).")
    text = report.render(sections)
    print(text)
    took = (dt.datetime.now().astimezone() - started).total_seconds()
    if args.out is None:
        say(f"printed only (--pages without --out) in {took:.0f} s")
        return
    report.write_doc(text, Path(args.out))
    say(f"wrote {args.out} in {took:.0f} s")


if __name__ == "__main__":
    main()
