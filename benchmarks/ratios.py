"""The ratios that keep the pages honest, measured side by side in one run (issue 48), each with PASS or MISS.

- redraw: slider → chart redraw in Chromium, the lessons' median of (page median ÷ the floor page's median, the
  floor measured right after each page): ≤ 2× (a guard: the gap left is Streamlit re-rendering the page around a
  section, docs/PERFORMANCE.md); benchmarks/redraw.py.
- rerun: each lesson's server rerun (AppTest as a server runs it: compiled once, through app.py) ÷ the floor
  page's, rerun alternately with it: ≤ 3× each;
  benchmarks/server_rerun.py.
- model: the Lab's 128-token pass ÷ its bare matrix products at the same T, alternating: ≤ 2.5×;
  benchmarks/bench_model.py.
- first look: the animation, played in Chromium after its prediction is revealed, draws every stage
  (Plotly's own animatingframe events) with no script run while it plays (one late report of the page's own
  components tolerated, as tests/browser/test_first_look.py does).

Run:  python -m benchmarks.ratios                   (every lesson: about 10 minutes on a quiet 2-core machine)
      python -m benchmarks.ratios --pages sqrt_dk,projection --n 4     (a small check)
      python -m benchmarks.ratios --reruns-only --n 30                 (the server reruns alone: about 3 minutes)
"""

from __future__ import annotations

import argparse
import os
import sys
import tomllib

from benchmarks import bench_model, redraw, server_rerun
from benchmarks.report import machine
from devtools import harness
from devtools.apptest import as_the_server
from devtools.targets import Target, table
from ui.content import LESSONS_DIR, page_index

LIMITS = {"redraw": 2.0, "rerun": 3.0, "model": 2.5, "first_look_runs": 1}
FIRST_LOOK = "first_look"
CHART = ".st-key-fl_fig_pass .js-plotly-plot"
WATCH_JS = """selector => {
    const gd = document.querySelector(selector);
    window.__stages = [];
    gd.on('plotly_animatingframe', e => window.__stages.push(e.name));
}"""


def say(*args) -> None:
    print(*args, file=sys.stderr, flush=True)


def reruns(slugs: list[str], n: int) -> list[Target]:
    """Each lesson's server rerun ÷ the floor page's, rerun for rerun alternately (server_rerun.server_reruns),
    as a server runs them: each script compiled once and every rerun through app.py (``as_the_server``;
    AppTest as shipped also reads and compiles the page on every run, which a server never does)."""
    with as_the_server():
        _, rows = server_rerun.server_reruns(slugs, n)
    return [Target(f"server rerun {r.slug} ÷ floor", r.median_ms / r.floor_ms, LIMITS["rerun"], "×") for r in rows]


def redraws(browser, slugs: list[str], n: int) -> Target:
    """The lessons' median redraw ÷ floor in Chromium (redraw.alongside, redraw.ratio_to_floor)."""
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    with harness.serve() as (_, base, _), harness.serve(script="benchmarks/floor_app.py") as (_, floor_base, _):
        results, floor = redraw.alongside(page, harness.Runs(page), base, floor_base, slugs, n)
    page.close()
    ratio = redraw.ratio_to_floor(results, floor)
    return Target(f"redraw median pages ÷ floor ({len(results)} pages)", float("nan") if ratio is None else ratio,
                  LIMITS["redraw"], "×")


def model(rounds: int) -> Target:
    """The Lab's 128-token pass ÷ its bare matrix products (bench_model.model_vs_bare)."""
    import attention_core

    m = bench_model.model_vs_bare(attention_core.load_model(), "word " * 200, rounds)
    return Target(f"Lab pass ÷ bare matmuls, T={m['T']}", m["model"] / m["bare"], LIMITS["model"], "×")


def first_look(browser) -> list[Target]:
    """Open the first look, reveal its first prediction, press Play: the stages drawn and the script runs meanwhile."""
    stages = [s["label"] for s in tomllib.loads((LESSONS_DIR / f"{FIRST_LOOK}.toml").read_text("utf-8"))["stages"]]
    context = browser.new_context(viewport={"width": 1280, "height": 3000})
    pg = context.new_page()
    runs = harness.Runs(pg)
    with harness.serve() as (_, base, _):
        runs.open(harness.page_url(base, FIRST_LOOK))
        runs.settle()
        pg.locator(f".st-key-{FIRST_LOOK}__predict__same").get_by_text("No: it comes out different").click()
        sel = f".st-key-{FIRST_LOOK}__predict__same__button button"
        pg.wait_for_function(f"() => !document.querySelector('{sel}').disabled", timeout=120_000)
        done = runs.finished
        pg.locator(sel).click()
        runs.wait(done)
        runs.settle(quiet_ms=3000)
        chart = pg.locator(CHART)
        chart.scroll_into_view_if_needed()
        pg.evaluate(WATCH_JS, CHART)
        before = runs.finished
        chart.locator("g.updatemenu-button", has_text="Play").click()
        try:
            pg.wait_for_function("n => window.__stages.length >= n", arg=len(stages), timeout=120_000)
        except Exception as err:                       # played short: the figures say so
            say(f"first look: {type(err).__name__}")
        pg.wait_for_timeout(1000)
        played, ran = pg.evaluate("window.__stages"), runs.finished - before
    context.close()
    return [Target(f"first look: stages played in the browser (of {len(stages)})",
                   sum(1 for a, b in zip(played, stages, strict=False) if a == b), len(stages), at_least=True),
            Target("first look: script runs while it played", ran, LIMITS["first_look_runs"])]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", default="", help="comma-separated lesson slugs (default: every lesson)")
    parser.add_argument("--n", type=int, default=12, help="timed reruns and redraws per page")
    parser.add_argument("--model-rounds", type=int, default=40)
    parser.add_argument("--reruns-only", action="store_true", help="the server reruns alone (no browser, no model)")
    args = parser.parse_args()
    chosen = {s.strip() for s in args.pages.split(",") if s.strip()}
    slugs = [p.slug for p in page_index() if p.kind == "lesson" and (not chosen or p.slug in chosen)]
    load0 = os.getloadavg()[0]
    from playwright.sync_api import sync_playwright

    say("server reruns …")
    found = reruns(slugs, args.n)
    for t in found if args.reruns_only else ():
        print(t.line())
    if args.reruns_only:
        return 0 if all(t.met for t in found) else 1
    say("the Lab's pass …")
    found.append(model(args.model_rounds))
    with sync_playwright() as p:
        browser = harness.launch(p)
        say("redraws …")
        found.append(redraws(browser, slugs, args.n))
        say("the first look …")
        found += first_look(browser)
        browser.close()
    for t in found:
        print(t.line())
    worst = max((t for t in found if t.name.startswith("server rerun")), key=lambda t: t.figure, default=None)
    print(f"\nMachine: {machine(load0, harness.CHROMIUM)}; {len(slugs)} lessons, n = {args.n}"
          + (f"; the slowest rerun {worst.name} at {worst.figure:.2f}×" if worst else "") + "\n")
    print("\n".join(table(found)))
    return 0 if all(t.met for t in found) else 1


if __name__ == "__main__":
    sys.exit(main())
