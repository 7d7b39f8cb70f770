"""Full-page screenshots of every page of a running app, for looking at with a person's eyes.

    python -m scripts.screenshots [URL] [OUTDIR] [--sizes 1280x720,390x844] [--themes light,dark]
                                  [--presenter] [--reveal] [--pages slug,slug] [--layout]

By default: every page at 1400 px wide (or $WIDTH), light theme (or $SCHEME), as before. With options:
each named size (devtools/layout.py SIZES: 1366x900, 1280x720, 1024x768, 390x844, or "all") x each theme;
``--presenter`` adds presenter mode (?present=1) at the two projector sizes (1366x900, 1280x720): the first
step, the last step, and what the screen shows at the last step; ``--reveal`` answers and reveals every
prediction before the shot; ``--layout`` prints what devtools/layout.py finds clipped or overlapping.
PNGs go to OUTDIR/<size>-<theme>[-present]/<slug>[-suffix].png. Uses Playwright driving Debian's
Chromium at /usr/bin/chromium (override with CHROMIUM).
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from playwright.sync_api import sync_playwright

from devtools import layout
from devtools.harness import TALL, Runs, launch, page_url, save_full, settle
from ui.content import page_index

PROJECTOR_SIZES = ("1366x900", "1280x720")


def _options() -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("base", nargs="?", default="http://localhost:8501")
    ap.add_argument("out", nargs="?", default="artifacts/screenshots")
    ap.add_argument("--sizes", default="", help="comma-separated WxH names from devtools/layout.py, or 'all'")
    ap.add_argument("--themes", default=os.environ.get("SCHEME", "light"), help="light, dark or light,dark")
    ap.add_argument("--presenter", action="store_true", help="also presenter mode at 1366x900 and 1280x720")
    ap.add_argument("--reveal", action="store_true", help="answer and reveal every prediction first")
    ap.add_argument("--pages", default="", help="comma-separated slugs (default: every page)")
    ap.add_argument("--layout", action="store_true", help="print what the layout check finds on each shot")
    return ap.parse_args()


def _sizes(names: str) -> dict[str, tuple[int, int]]:
    if not names:
        width = int(os.environ.get("WIDTH", "1400"))
        return {f"{width}": (width, TALL)}
    if names == "all":
        return dict(layout.SIZES)
    unknown = [n for n in names.split(",") if n not in layout.SIZES]
    if unknown:
        raise SystemExit(f"unknown sizes {unknown}; known: {', '.join(layout.SIZES)}")
    return {n: layout.SIZES[n] for n in names.split(",")}


def _report(page, where: str) -> None:
    for p in layout.problems(page):
        print(f"  {where}: {layout.describe(p)}")


def _reveal(page, runs, slug: str) -> None:
    try:
        layout.reveal_predictions(page, runs)
    except Exception as e:                            # a shot without the reveal beats no shot at all
        print(f"  {slug}: could not reveal every prediction ({type(e).__name__})")


def _shoot(browser, opts, slugs, size: str, width: int, height: int, theme: str, present: bool) -> None:
    folder = Path(opts.out) / (f"{size}-{theme}" + ("-present" if present else "") if opts.sizes else "")
    folder.mkdir(parents=True, exist_ok=True)
    context = browser.new_context(viewport={"width": width, "height": TALL}, color_scheme=theme)
    page = context.new_page()
    runs = Runs(page)
    for slug in slugs:
        runs.open(page_url(opts.base, slug, "present=1" if present else ""))
        if opts.reveal:
            _reveal(page, runs, slug)
        save_full(page, folder / f"{slug}.png", width)
        print("saved", folder / f"{slug}.png")
        if opts.layout:
            _report(page, f"{folder.name}/{slug}")
        if not present:
            continue
        steps = layout.step_count(page)
        if not steps:
            continue
        # The last step, opened from a link, then what a projector of this size shows of it.
        runs.open(page_url(opts.base, slug, f"present=1&step={steps}"))
        if opts.reveal:
            _reveal(page, runs, slug)
        save_full(page, folder / f"{slug}-last.png", width)
        page.set_viewport_size({"width": width, "height": height})
        page.locator(layout.STEP_BAR).first.scroll_into_view_if_needed()
        settle(page)
        page.screenshot(path=str(folder / f"{slug}-last-screen.png"))
        page.set_viewport_size({"width": width, "height": TALL})
        print("saved", folder / f"{slug}-last.png", "and -last-screen.png")
        if opts.layout:
            _report(page, f"{folder.name}/{slug}-last")
    context.close()


def main() -> None:
    opts = _options()
    slugs = opts.pages.split(",") if opts.pages else [entry.slug for entry in page_index()]
    with sync_playwright() as p:
        browser = launch(p)
        for size, (width, height) in _sizes(opts.sizes).items():
            for theme in opts.themes.split(","):
                _shoot(browser, opts, slugs, size, width, height, theme, present=False)
                if opts.presenter and size in PROJECTOR_SIZES:
                    _shoot(browser, opts, slugs, size, width, height, theme, present=True)
        browser.close()


if __name__ == "__main__":
    main()
