"""Each lesson's changed chart redrawn on its own: is the chart what makes a lesson's redraw slower than the floor's?

For each page, the control that table (c) moves (``benchmarks/redraw.py``) is moved twice in the running app,
and the figures of the first chart whose figure changed are taken from the server's messages: two states of
the chart a learner sees change. A bare page then swaps between those two figures on a slider (a fragment with
the slider and that chart alone, the figure and its config as the app sent them), and each page's chart is
timed with the clock of (c), beside the floor page, round by round.

    python -m benchmarks.chart_alone polysemy sqrt_dk [--n 10] [--rounds 2]

A chart that redraws here about as fast as the floor's line does not explain its lesson's redraw; the rest is
the page around it (docs/PERFORMANCE.md, "Where a lesson's redraw goes").
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
from pathlib import Path

from benchmarks import redraw, report
from benchmarks.redraw_trace import Messages
from benchmarks.report import pct
from devtools import harness

PAGE = '''
import json
from pathlib import Path

import plotly.io as pio
import streamlit as st

FIGURES = json.loads(Path(__file__).with_name("figures.json").read_text())
st.title("Chart alone")
slug = st.query_params.get("slug", "")


@st.fragment
def section():
    state = st.slider("Frequency", 1, 10, 3, key="frequency")
    spec, config = FIGURES[slug][state % 2]
    st.plotly_chart(pio.from_json(spec), key="chart", config=json.loads(config))


section()
'''


def changed_figures(browser, base: str, slug: str) -> list[tuple[str, str]]:
    """(spec, config) of the first chart whose figure changed, in two states: moves of (c)'s control, up to four,
    until two different figures have been seen."""
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    messages = Messages(page)
    runs = harness.Runs(page)
    runs.open(harness.page_url(base, slug))
    page.wait_for_function(redraw.DRAWN_JS, timeout=60_000, polling=50)
    index = redraw.control_for(page, runs, slug)
    figures, last = [], 0                           # before the first move: every chart the page has drawn
    for step in range(4):
        before = {f[2] for f in messages.frames[last:] if f[2]}   # the charts of the move before
        last = len(messages.frames)
        finished = runs.finished
        redraw.press(page, step, index)
        runs.wait(finished)
        page.wait_for_timeout(300)                  # the websocket events reach Python after the run's end
        new = [f[2] for f in messages.frames[last:] if f[1] == "plotly_chart" and f[2] not in before]
        if new and messages.figures[new[0]] not in figures:
            figures.append(messages.figures[new[0]])
    figures = figures[:2]
    page.close()
    return figures


def main() -> None:
    from playwright.sync_api import sync_playwright

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pages", nargs="+", help="lesson slugs")
    parser.add_argument("--n", type=int, default=10, help="timed moves per page and round")
    parser.add_argument("--rounds", type=int, default=2, help="rounds, each timing every chart and the floor")
    args = parser.parse_args()
    print(report.machine(chromium=harness.CHROMIUM))
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as p:
        browser = harness.launch(p)
        with harness.serve() as (_, base, _):
            figures = {slug: changed_figures(browser, base, slug) for slug in args.pages}
        missing = [slug for slug, f in figures.items() if len(f) < 2]
        for slug in missing:
            print(f"{slug}: fewer than two changed figures captured; left out")
        (Path(tmp) / "figures.json").write_text(json.dumps(figures))
        (Path(tmp) / "chart_alone.py").write_text(PAGE)
        slugs = [slug for slug in args.pages if slug not in missing]
        page = browser.new_page(viewport={"width": 1400, "height": 900})
        runs = harness.Runs(page)
        with harness.serve(script=str(Path(tmp) / "chart_alone.py")) as (_, alone, _), \
                harness.serve(script="benchmarks/floor_app.py") as (_, floor, _):
            samples = redraw.in_rounds(page, runs, {**{slug: f"{alone}?slug={slug}" for slug in slugs}, "floor": floor},
                                       args.rounds, args.n)
        browser.close()
    floor_median = statistics.median(samples["floor"])
    rows = ["| Chart | Figure (KB) | Samples | Median | × floor | p95 |", "| --- | ---: | ---: | ---: | ---: | ---: |"]
    for slug, values in samples.items():
        size = "–" if slug == "floor" else f"{len(figures[slug][0][0]) / 1024:.1f}"
        name = "*floor* (`benchmarks/floor_app.py`)" if slug == "floor" else f"`{slug}`"
        rows.append(f"| {name} | {size} | {len(values)} | {statistics.median(values):.0f} ms | "
                    f"{statistics.median(values) / floor_median:.2f} | {pct(values, 0.95):.0f} ms |")
    print("\n".join(rows))


if __name__ == "__main__":
    main()
