"""(i) The first reveal against later ones: from a click on "Reveal the answer" to the revealed charts drawn.

For each lesson, on a freshly started server: the first learner's reveal (the server's caches cold), then
``--later`` more learners, each in a new browser context, revealing the same prediction (caches warm).
Every learner picks the prediction's first option; the clock runs in the page, from the click to the first
frame with more charts drawn than before it. Prints a Markdown table for docs/PERFORMANCE.md.

    python -m benchmarks.reveal [--later 3] [--apptest] [slug ...]

With ``--apptest``, the server's share alone, without a browser: for each lesson a fresh Python process opens
the page with AppTest and reveals its first prediction (two script runs: the answer, then the reveal), then
``--later`` more sessions do the same in that process. Less noisy on a shared machine than the browser.
"""

from __future__ import annotations

import argparse
import os
import statistics

from benchmarks.report import machine, pct
from devtools import harness
from ui.content import load_lesson, page_index

# Resolves with the ms from the click (armed on the capture phase) to the first frame showing more charts.
ARM_JS = """() => {
  const drawn = () => [...document.querySelectorAll('.js-plotly-plot')].filter(p => p._fullLayout).length;
  const before = drawn();
  window.__reveal = new Promise(resolve => {
    document.addEventListener('click', e => {
      const t0 = e.timeStamp;
      const poll = () => drawn() > before ? resolve(performance.now() - t0) : requestAnimationFrame(poll);
      requestAnimationFrame(poll);
    }, {capture: true, once: true});
  });
}"""


def revealing_lessons() -> list[str]:
    """Lessons whose first prediction gates at least one chart (every lesson with a prediction, today)."""
    return [p.slug for p in page_index() if p.slug != "home" and load_lesson(p.slug).predictions]


def one_reveal(browser, base: str, slug: str, timeout_ms: int = 120_000) -> float:
    context = browser.new_context(viewport={"width": 1280, "height": 4000})
    try:
        page = context.new_page()
        harness.Runs(page).open(harness.page_url(base, slug))
        question = page.locator('[data-testid="stRadio"]', has_text="Predict first").first
        question.wait_for(timeout=timeout_ms)
        # The progress component reruns the page once just after load; a click during that rerun is lost.
        harness.settle(page, timeout_ms)
        question.locator('[role="radiogroup"] label').first.click()
        button = page.get_by_role("button", name="Reveal the answer").first
        page.wait_for_function("b => !b.disabled", arg=button.element_handle(), timeout=timeout_ms)
        page.evaluate(ARM_JS)
        button.click()
        return float(page.evaluate("() => window.__reveal"))
    finally:
        context.close()


def measure(slugs: list[str], later: int) -> list[dict]:
    from playwright.sync_api import sync_playwright

    rows = []
    with sync_playwright() as p:
        browser = harness.launch(p)
        for slug in slugs:
            proc, base, _ = harness.start()                         # a fresh server: its caches are cold
            try:
                first = one_reveal(browser, base, slug)
                rest = [one_reveal(browser, base, slug) for _ in range(later)]
            finally:
                harness.stop(proc)
            rows.append({"slug": slug, "first_ms": first, "later_p50_ms": statistics.median(rest),
                         "later_max_ms": max(rest)})
            print(f"{slug}: first {first:.0f} ms, later {', '.join(f'{r:.0f}' for r in rest)} ms", flush=True)
        browser.close()
    return rows


# Run in a fresh interpreter per lesson (its caches, imports and Streamlit's tables cold): prints one JSON line.
APPTEST_SCRIPT = """
import json, sys, time
from devtools.apptest import open_page, reveal
from ui.content import load_lesson
slug, later = sys.argv[1], int(sys.argv[2])
first = next(iter(load_lesson(slug).predictions))
took = []
for _ in range(1 + later):
    at = open_page(slug)
    t0 = time.perf_counter()
    reveal(at, slug, first)
    took.append(1000 * (time.perf_counter() - t0))
    assert not at.exception, [e.value for e in at.exception]
print(json.dumps(took))
"""


def measure_apptest(slugs: list[str], later: int) -> list[dict]:
    import json
    import subprocess
    import sys

    rows = []
    for slug in slugs:
        out = subprocess.run([sys.executable, "-c", APPTEST_SCRIPT, slug, str(later)], cwd=harness.ROOT, check=True,
                             capture_output=True, text=True).stdout
        first, *rest = json.loads(out.strip().splitlines()[-1])
        rows.append({"slug": slug, "first_ms": first, "later_p50_ms": statistics.median(rest),
                     "later_max_ms": max(rest)})
        print(f"{slug} (AppTest): first {first:.0f} ms, later {', '.join(f'{r:.0f}' for r in rest)} ms", flush=True)
    return rows


def table(rows: list[dict]) -> str:
    lines = ["| Lesson | First reveal (cold server) | Later reveals, p50 | Later, max | First ÷ later |",
             "| --- | ---: | ---: | ---: | ---: |"]
    for r in rows:
        lines.append(f"| `{r['slug']}` | {r['first_ms']:.0f} ms | {r['later_p50_ms']:.0f} ms | "
                     f"{r['later_max_ms']:.0f} ms | {r['first_ms'] / max(r['later_p50_ms'], 1):.2f} |")
    ratios = [r["first_ms"] / max(r["later_p50_ms"], 1) for r in rows]
    lines.append(f"\nMedian first ÷ later over {len(rows)} lessons: {pct(ratios, 0.5):.2f}.")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("slugs", nargs="*", help="lessons to measure (default: every lesson with a prediction)")
    parser.add_argument("--later", type=int, default=3, help="learners revealing after the first")
    parser.add_argument("--apptest", action="store_true", help="the server's share only, with AppTest")
    args = parser.parse_args()
    load = os.getloadavg()[0]
    rows = (measure_apptest if args.apptest else measure)(args.slugs or revealing_lessons(), args.later)
    print(f"\n{machine(load, harness.CHROMIUM)}\n\n{table(rows)}")


if __name__ == "__main__":
    main()
