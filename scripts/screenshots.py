"""Take a full-page screenshot of every page of a running app: python -m scripts.screenshots [URL] [OUTDIR].

Uses Playwright driving Debian's Chromium at /usr/bin/chromium (override with CHROMIUM).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from playwright.sync_api import sync_playwright

from devtools.harness import TALL, launch, page_url, save_full
from ui.content import page_index


def main() -> None:
    base = sys.argv[1] if len(sys.argv) > 1 else "http://localhost:8501"
    out = Path(sys.argv[2] if len(sys.argv) > 2 else "artifacts/screenshots")
    width = int(os.environ.get("WIDTH", "1400"))
    out.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as p:
        browser = launch(p)
        page = browser.new_page(viewport={"width": width, "height": TALL},
                                color_scheme=os.environ.get("SCHEME", "light"))
        for entry in page_index():
            page.goto(page_url(base, entry.slug))
            page.wait_for_selector('[data-testid="stAppViewContainer"]')
            page.wait_for_selector('h1')
            save_full(page, out / f"{entry.slug}.png", width)
            print("saved", out / f"{entry.slug}.png")
        browser.close()


if __name__ == "__main__":
    main()
