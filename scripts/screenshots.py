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

CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def save_full(page, path: Path, width: int) -> None:
    """Streamlit scrolls inside its main block, so grow the viewport to the content before the shot."""
    height = page.evaluate(
        "() => Math.max(...[...document.querySelectorAll('[data-testid=stMain], section, div')]"
        ".slice(0, 400).map(e => e.scrollHeight))"
    )
    page.set_viewport_size({"width": width, "height": min(int(height) + 40, 16000)})
    page.wait_for_timeout(800)
    page.screenshot(path=str(path))
    page.set_viewport_size({"width": width, "height": 900})


def main() -> None:
    base = sys.argv[1] if len(sys.argv) > 1 else "http://localhost:8501"
    out = Path(sys.argv[2] if len(sys.argv) > 2 else "artifacts/screenshots")
    width = int(os.environ.get("WIDTH", "1400"))
    out.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=os.environ.get("CHROMIUM", "/usr/bin/chromium"),
                                    args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": width, "height": 900},
                                color_scheme=os.environ.get("SCHEME", "light"))
        for entry in page_index():
            url = base if entry.slug == "home" else f"{base}/{entry.slug}"
            page.goto(url)
            page.wait_for_selector('[data-testid="stAppViewContainer"]')
            page.wait_for_timeout(int(os.environ.get("SETTLE_MS", "2500")))
            save_full(page, out / f"{entry.slug}.png", width)
            print("saved", out / f"{entry.slug}.png")
        browser.close()


if __name__ == "__main__":
    main()
