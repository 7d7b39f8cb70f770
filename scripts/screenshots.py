"""Take a full-page screenshot of every page of a running app: python scripts/screenshots.py [URL] [OUTDIR].

Uses Playwright driving Debian's Chromium at /usr/bin/chromium (override with CHROMIUM).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from playwright.sync_api import sync_playwright

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from ui.content import page_index

TALL = 12000
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def settle(page, timeout_ms: int = 90000) -> None:
    """Wait until the script run is over and nothing in view is still a loading skeleton (Streamlit
    renders elements below the fold lazily, so only the grown viewport shows them all)."""
    page.wait_for_function(
        "() => !document.querySelector('[data-testid=stSkeleton], [data-testid=stStatusWidget]')",
        timeout=timeout_ms,
    )
    page.wait_for_timeout(int(os.environ.get("SETTLE_MS", "1500")))


def content_height(page) -> int:
    """Bottom edge of the page's content block, in CSS pixels."""
    return int(page.evaluate(
        "() => document.querySelector('[data-testid=stMainBlockContainer]').getBoundingClientRect().bottom"
    ))


def save_full(page, path: Path, width: int) -> None:
    """Streamlit scrolls inside its main block and renders below-the-fold elements lazily, so the page
    is opened in a very tall viewport; the shot is clipped to the content's height."""
    settle(page)
    height = min(content_height(page) + 40, TALL)
    page.screenshot(path=str(path), clip={"x": 0, "y": 0, "width": width, "height": height})


def main() -> None:
    base = sys.argv[1] if len(sys.argv) > 1 else "http://localhost:8501"
    out = Path(sys.argv[2] if len(sys.argv) > 2 else "artifacts/screenshots")
    width = int(os.environ.get("WIDTH", "1400"))
    out.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=os.environ.get("CHROMIUM", "/usr/bin/chromium"),
                                    args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": width, "height": TALL},
                                color_scheme=os.environ.get("SCHEME", "light"))
        for entry in page_index():
            url = base if entry.slug == "home" else f"{base}/{entry.slug}"
            page.goto(url)
            page.wait_for_selector('[data-testid="stAppViewContainer"]')
            page.wait_for_selector('h1')
            save_full(page, out / f"{entry.slug}.png", width)
            print("saved", out / f"{entry.slug}.png")
        browser.close()


if __name__ == "__main__":
    main()
