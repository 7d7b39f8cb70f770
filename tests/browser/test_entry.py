"""A deep link as a fresh server's very first request still runs through app.py (ui/entry.py).

Streamlit 1.67 decides once per process, from the pages/ folder, to run pages in its old multipage mode
until app.py's st.navigation has run; only the first request to a fresh server shows the difference, so
this test starts its own server rather than sharing the session's.
"""

from __future__ import annotations

import pytest

from devtools import harness
from ui.content import load_lesson, page_index

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser")]

SLUG = "sqrt_dk"
SECTIONS = list(dict.fromkeys(p.section for p in page_index()))


@pytest.mark.skipif(SLUG not in [p.slug for p in page_index()], reason="the page is not in the lesson index")
def test_a_deep_link_first_on_a_fresh_server_gets_the_sections_and_presenter_mode(browser):
    log = open(harness.ROOT / "artifacts" / "browser-fresh-server.log", "w")
    with harness.serve(log=log) as (_, base, _):
        context = browser.new_context(viewport={"width": 1400, "height": 2000})
        try:
            pg = context.new_page()
            runs = harness.Runs(pg)
            runs.open(harness.page_url(base, SLUG, "present=1"))           # the server's first request
            pg.wait_for_function("() => /Step 1 of \\d/.test(document.body.innerText)", timeout=60_000)
            headers = pg.locator('[data-testid="stSidebar"] [data-testid="stNavSectionHeader"]')
            shown = [h.strip() for h in headers.all_inner_texts()]
            # The sidebar folds the later lessons behind "View more", so the first sections are the ones on screen.
            assert len(shown) >= 2 and shown == SECTIONS[:len(shown)], f"sectioned navigation from app.py: {shown}"
            assert pg.get_by_role("switch", name="Presenter mode").is_checked()
            assert pg.locator('[data-testid="stMain"] h1').first.inner_text().strip() == load_lesson(SLUG).title
            assert f"/{SLUG}" in pg.url and "present=1" in pg.url
            assert pg.locator('[data-testid="stException"]').count() == 0
        finally:
            context.close()
            log.close()
