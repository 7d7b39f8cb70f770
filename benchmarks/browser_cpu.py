"""Browser main-thread CPU per move of a page's first control, by where it goes (Plotly, other JavaScript,
the browser's own style/layout/paint, garbage collection), from a Chrome DevTools CPU profile.

    python -m benchmarks.browser_cpu sqrt_dk polysemy [--moves 10]

Wall-clock redraw latency (table (c), benchmarks/redraw.py) is noisy on a shared machine, often more than
a single change saves (docs/PERFORMANCE.md). CPU time per move is far steadier: to compare two versions of a page, run
this script in each checkout, alternating, two or three times each. The window per move runs from the key
press to 0.7 s after the run finished, so it includes the work Streamlit does after the first chart has
changed (the later charts, the theme pass and the resize observers).
"""

from __future__ import annotations

import argparse
import collections

from benchmarks.levers import LEVERS
from benchmarks.redraw import ARM_JS, press
from devtools import harness

NATIVE = ("(idle)", "(program)", "(garbage collector)")


def categories(profile: dict) -> collections.Counter:
    """Milliseconds per category: a sample counts as Plotly when any frame on its stack is in Streamlit's
    Plotly chunk, as native when its top frame is the browser's own, and as other JavaScript otherwise."""
    nodes = {node["id"]: node for node in profile["nodes"]}
    parent = {child: node["id"] for node in profile["nodes"] for child in node.get("children", [])}
    out: collections.Counter = collections.Counter()
    for sample, delta in zip(profile["samples"], profile["timeDeltas"], strict=True):
        top = nodes[sample]["callFrame"]["functionName"]
        urls, node = [], sample
        while node is not None:
            urls.append(nodes[node]["callFrame"]["url"])
            node = parent.get(node)
        kind = top if top in NATIVE else "plotly" if any("PlotlyChart" in u for u in urls) else "javascript"
        out[kind] += delta / 1000
    return out


def profile_page(browser, base: str, slug: str, moves: int) -> collections.Counter:
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    runs = harness.Runs(page)
    runs.open(harness.page_url(base, "home"))
    runs.open(harness.page_url(base, slug))
    cdp = page.context.new_cdp_session(page)
    cdp.send("Profiler.enable")
    cdp.send("Profiler.setSamplingInterval", {"interval": 200})
    for step in range(moves + 2):
        if step == 2:                              # two untimed moves first: lazy chunks, first mounts
            cdp.send("Profiler.start")
        finished = runs.finished
        page.evaluate(ARM_JS)
        if press(page, step) is None:
            raise SystemExit(f"{slug}: no slider, toggle or radio to move")
        page.wait_for_function("() => window.__latency !== null", timeout=15_000, polling=20)
        runs.wait(finished)
        page.wait_for_timeout(700)
    profile = cdp.send("Profiler.stop")["profile"]
    page.close()
    return categories(profile)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pages", nargs="+", help="page slugs, e.g. sqrt_dk")
    parser.add_argument("--moves", type=int, default=10)
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = harness.launch(p)
        with harness.serve(*LEVERS["both"]) as (_, base, _):
            for slug in args.pages:
                ms = profile_page(browser, base, slug, args.moves)
                busy = sum(v for k, v in ms.items() if k != "(idle)")
                print(f"{slug:22} busy {busy / args.moves:6.1f} ms per move: Plotly {ms['plotly'] / args.moves:5.1f}, "
                      f"other JavaScript {ms['javascript'] / args.moves:5.1f}, browser (style, layout, paint) "
                      f"{ms['(program)'] / args.moves:5.1f}, GC {ms['(garbage collector)'] / args.moves:4.1f}",
                      flush=True)
        browser.close()


if __name__ == "__main__":
    main()
