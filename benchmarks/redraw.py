"""(c) Slider → chart redraw in Chromium, from the input event to the first frame with new chart data."""

from __future__ import annotations

import statistics
import sys
from dataclasses import dataclass

from benchmarks.report import TARGETS, ok, pct
from devtools import harness, layout

# The charts' data is serialised once, when armed; each frame after the move serialises only a chart whose div or
# data object is new (a chart whose div and data are the ones armed has not redrawn). Serialising every chart on
# every frame cost up to 30 ms a move on the 12-head figure, inside the time being measured.
ARM_JS = """() => {
  const charts = () => [...document.querySelectorAll('.js-plotly-plot')];
  const before = charts().map(e => [e, e.data, JSON.stringify(e.data)]);
  const differs = () => { const now = charts();
    return now.length !== before.length || now.some((e, i) => { const [el, data, json] = before[i];
      return !(e === el && e.data === data) && JSON.stringify(e.data) !== json; }); };
  window.__latency = null;
  const start = e => {
    document.removeEventListener('keydown', start, true);
    document.removeEventListener('click', start, true);
    const t0 = e.timeStamp;
    const poll = () => differs() ? (window.__latency = performance.now() - t0) : requestAnimationFrame(poll);
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
    charts: int = 0
    grown: int = 0                                  # charts laid out twice per draw (a margin grew)
    floor: list[float] | None = None                # the floor page's samples taken right after this page's


# The slider each page's row moves, by widget key, where the first slider that changes a chart is not the one a
# learner moves most or would pass over most of the page's work: the row then names it. Pages not listed move
# their first slider that changes a chart. Chosen for the lesson, not for speed
# (docs/archive/PERFORMANCE_HISTORY.md, session 11).
CONTROLS = {
    "multi_head": "mh_layer",                       # the page's one slider: the 12 heads of the chosen layer
    "masks_and_cross_attention": "mk_ball_row",      # the picture's ball: both cross-attention charts follow it
    "rnn_vs_attention": "rn_len",                   # T: every section of the page depends on it
    "flash_attention": "fa_tokens",                 # T: new tiles, so the grid and the running max both redraw
    "positional_encoding": "pe_offset",             # k: both position heatmaps, the metrics and the offset curve
    "transformer_block": "tb_layer",                # the block shown: its vector heatmap and the lengths
    "kv_cache": "kv_step",                          # t: the cache grows by a row; the outputs compared again
}


def slider_for(page, slug: str):
    """The locator of the slider CONTROLS names for ``slug`` (Streamlit gives a keyed widget's box the class
    ``st-key-<key>``), or None for a page it does not list or whose slider is not on screen."""
    key = CONTROLS.get(slug)
    if key is None:
        return None
    thumb = page.locator(f'[data-testid="stMain"] .st-key-{key} input[type="range"]')
    return thumb.first if thumb.count() else None


def control_for(page, runs, slug: str):
    """What table (c) moves on ``slug``: the locator of its slider from CONTROLS, or else the number of its first
    slider whose move changes a chart (moving each slider tried once, untimed), or 0."""
    index = slider_for(page, slug)
    if index is None:
        sliders = page.locator(harness.SLIDER_INPUT).count()
        index = next((i for i in range(sliders) if changes_a_chart(page, runs, i)), 0)
    return index


def press(page, step: int, index: int | object = 0) -> str | None:
    """Move the page's slider number ``index`` (the first by default; or a slider's locator), or else its first
    toggle; sliders go right then back left, so they never stick at a bound."""
    slider = page.locator(harness.SLIDER_INPUT)
    if not isinstance(index, int) or slider.count() > index:
        thumb = index if not isinstance(index, int) else slider.nth(index)
        now, low, high = thumb.input_value(), thumb.get_attribute("min"), thumb.get_attribute("max")
        right = now != high and (now == low or step % 2 == 0)
        thumb.focus()
        page.keyboard.press("ArrowRight" if right else "ArrowLeft")
        return "slider"
    return harness.move_first_control(page)


def changes_a_chart(page, runs, index) -> bool:
    """Move slider ``index`` once (untimed): True when a chart's data changed."""
    page.evaluate(ARM_JS)
    finished = runs.finished
    if press(page, 0, index) is None:
        return False
    try:
        page.wait_for_function("() => window.__latency !== null", timeout=15_000, polling=20)
        changed = True
    except Exception:
        changed = False
    runs.wait(finished)
    return changed


# A chart has drawn: plotly.js loads lazily, so the run can finish before the first chart exists. Attached, not
# "visible": Playwright's visible test of the first match can fail on a chart that is drawn but not the first
# in the DOM to be laid out.
DRAWN_JS = "() => [...document.querySelectorAll('.js-plotly-plot')].some(el => el.data && el._fullLayout)"


def redraws(page, runs, base: str, slug: str, n: int, tries: int = 2) -> Redraw | None:
    """``n`` timed moves of the page's slider from CONTROLS, or else of its first control that changes a chart
    (a slider that changes none, such as one whose charts wait on a prediction, is passed over); None, and why
    on stderr, for a page without. A page whose chart does not draw, or whose every move missed, is opened
    again once (``tries``) before it is left out, and the report says so rather than dropping its row."""
    for attempt in range(1, tries + 1):
        result = _redraws(page, runs, base, slug, n)
        if result is not None and result.samples:
            return result
        print(f"(c) {slug}: attempt {attempt} of {tries} gave no sample"
              + ("" if result is None else f" ({result.misses} moves of {result.control} changed no chart)"),
              file=sys.stderr)
    return result


def _redraws(page, runs, base: str, slug: str, n: int) -> Redraw | None:
    runs.open(harness.page_url(base, slug))
    # A page whose first run sent no st.plotly_chart (the glossary) is left out after a short look: a probe's
    # page may still draw Plotly charts of its own (benchmarks/inplace_probe.py, through a component).
    wait_s = 60 if runs.charts else 5
    try:
        page.wait_for_function(DRAWN_JS, timeout=wait_s * 1000, polling=50)
    except Exception:
        print(f"(c) {slug}: no chart drawn within {wait_s} s of the page's run"
              + ("" if runs.charts else " (its first run sent none)"), file=sys.stderr)
        return None
    index = control_for(page, runs, slug)
    result = Redraw(slug, "", [], [])
    for step in range(n + 1):
        page.evaluate(ARM_JS)
        finished, sent = runs.finished, runs.bytes
        moved = press(page, step, index)
        if moved is None:
            return None
        result.control = (f"slider `{CONTROLS[slug]}`" if not isinstance(index, int)
                          else moved if index == 0 else f"{moved} {index + 1}")
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
    charts = page.evaluate(layout.CHART_MARGINS_JS)
    result.charts, result.grown = len(charts), sum(bool(c["grew"]) for c in charts)
    return result


def in_rounds(page, runs, urls: dict, rounds: int, n: int) -> dict:
    """The probes' timing: ``rounds`` rounds, each timing ``n`` redraws of every page in ``urls`` (any name →
    the address of a one-page app) in turn, so load drifting on a shared machine falls on every page alike.
    Returns each name's samples, pooled over the rounds (none for a page whose moves all missed)."""
    samples: dict = {name: [] for name in urls}
    for _ in range(rounds):
        for name, url in urls.items():
            result = redraws(page, runs, url, "home", n)
            samples[name] += result.samples if result is not None else []
    return samples


def alongside(page, runs, base: str, floor_base: str, slugs: list[str], n: int) -> tuple[list[Redraw], Redraw | None]:
    """Each page's redraws, each followed by as many of the floor page's (served at ``floor_base``), so a page's
    × floor compares two measurements a minute apart: the load on a shared machine drifts more than that
    between the first page and the last. Returns the pages' results and the floor's, pooled."""
    results, pooled = [], Redraw("floor", "", [], [])
    for slug in slugs:
        r = redraws(page, runs, base, slug, n)
        if r is None:
            continue
        f = redraws(page, runs, floor_base, "home", n)
        if f is not None and f.samples:
            r.floor = f.samples
            pooled.control, pooled.charts, pooled.grown = f.control, f.charts, f.grown
            pooled.samples += f.samples
            pooled.ws_bytes += f.ws_bytes
        results.append(r)
    return results, pooled if pooled.samples else None


def _floor_median(r: Redraw, floor: Redraw | None) -> float:
    """The floor's median a page is compared with: the one taken right after it, else the pooled one."""
    samples = r.floor or (floor.samples if floor is not None else [])
    return statistics.median(samples) if samples else float("nan")


def ratio_to_floor(results: list[Redraw], floor: Redraw | None) -> float | None:
    """Issue 34's figure: the median over the pages of each page's median redraw ÷ its floor's median."""
    ratios = [statistics.median(r.samples) / _floor_median(r, floor) for r in results if r.samples]
    return statistics.median(ratios) if ratios else None


def section(results: list[Redraw], floor: Redraw | None) -> list[str]:
    """The report's (c) section: one row per page, the floor page first, then the pages' median ÷ the floor's."""
    rows = ["| Page | Control | Samples | Median | × floor | p95 | Websocket bytes per interaction (median) "
            "| Charts on screen (margins grown) |",
            "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
    floor_median = statistics.median(floor.samples) if floor is not None and floor.samples else float("nan")
    if floor is not None:
        rows.append(f"| *floor* (`benchmarks/floor_app.py`) | {floor.control} | "
                    f"{len(floor.samples)} | {floor_median:.0f} ms | 1.00 | "
                    f"{pct(floor.samples, 0.95):.0f} ms | "
                    f"{statistics.median(floor.ws_bytes) / 1024:.1f} KB | "
                    f"{floor.charts} ({floor.grown}) |")
    for r in results:
        if not r.samples:
            rows.append(f"| `{r.slug}` | {r.control} | 0 ({r.misses} moves changed no chart) | – | – | – | – | "
                        f"{r.charts} ({r.grown}) |")
            continue
        p95 = pct(r.samples, 0.95)
        miss = f" ({r.misses} moves changed no chart)" if r.misses else ""
        median = statistics.median(r.samples)
        rows.append(f"| `{r.slug}` | {r.control} | {len(r.samples)}{miss} | "
                    f"{median:.0f} ms | {median / _floor_median(r, floor):.2f} | "
                    f"{p95:.0f} ms {ok(p95, TARGETS['redraw_p95_ms'])} | "
                    f"{statistics.median(r.ws_bytes) / 1024:.1f} KB | {r.charts} ({r.grown}) |")
    ratio = ratio_to_floor(results, floor)
    summary = ("" if ratio is None else
               f"**The pages' median redraw ÷ the floor's: {ratio:.2f}×** {ok(ratio, TARGETS['redraw_ratio'])} "
               f"(the median over the {sum(bool(r.samples) for r in results)} pages of each one's median ÷ the "
               "median of the floor's redraws taken right after that page's, which the floor row pools; target "
               f"≤ {TARGETS['redraw_ratio']:g}×, issue 34).")
    return ["### (c) Slider → chart redraw in Chromium",
            "Headless Chromium, one session, one page after another. Measured inside the page: from "
            "the trusted input event's timestamp (the key press on the slider, the click on the "
            "toggle) to the first animation frame in which any Plotly chart's data differs. "
            "Pages with no chart or no slider/toggle are left out. The control is the slider named in "
            "`benchmarks/redraw.py`'s CONTROLS, or else the page's first slider whose move "
            "changes a chart (\"slider 2\": its second; the first changes none before a prediction is made). "
            "The floor page, served on its own, "
            "shows what one slider and one chart cost end to end on this machine. The last column "
            "counts the charts on screen after the moves, and in brackets those whose margins "
            "Plotly had to grow for their labels: automargin then lays the figure out twice on "
            "every draw. Streamlit remounts a chart whose figure changed (the figure is part of "
            "its element id), so each changed chart is a fresh `Plotly.newPlot`.", "\n".join(rows)] + (
                [summary] if summary else [])


def main() -> None:
    """python -m benchmarks.redraw [--pages a,b] [--n N]: (c) alone, each page followed by the floor, printed."""
    import argparse

    from playwright.sync_api import sync_playwright

    from benchmarks import report
    from ui.content import page_index

    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("--pages", default="", help="comma-separated slugs (default: every lesson)")
    parser.add_argument("--n", type=int, default=12, help="timed moves per page")
    args = parser.parse_args()
    chosen = {x.strip() for x in args.pages.split(",") if x.strip()}
    slugs = [p.slug for p in page_index() if (p.slug in chosen if chosen else p.kind == "lesson")]
    print(report.machine(chromium=harness.CHROMIUM))
    with sync_playwright() as p, harness.serve() as (_, base, _), \
            harness.serve(script="benchmarks/floor_app.py") as (_, floor_base, _):
        browser = harness.launch(p)
        page = browser.new_page(viewport={"width": 1400, "height": 900})
        results, floor = alongside(page, harness.Runs(page), base, floor_base, slugs, args.n)
        browser.close()
    print(report.render(section(results, floor)))
    print(report.machine())


if __name__ == "__main__":
    main()
