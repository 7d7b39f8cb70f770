"""A lesson's link to a glossary term, followed in Chromium: it resolves to the glossary page on the app's own
host (a relative link, as on Streamlit Community Cloud), and the page opens scrolled to that term."""

from __future__ import annotations

from urllib.parse import urljoin

import pytest

from devtools import harness

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser")]

LINKS_JS = """() => [...document.querySelectorAll('[data-testid=stMain] a')]
  .filter(a => (a.getAttribute('href') || '').includes('glossary#'))
  .map(a => ({href: a.getAttribute('href'), absolute: a.href, text: a.innerText.trim()}))"""


def test_a_lessons_glossary_link_opens_the_glossary_at_its_term(server, browser):
    context = browser.new_context(viewport={"width": 1280, "height": 720})
    pg = context.new_page()
    runs = harness.Runs(pg)
    runs.open(harness.page_url(server, "flash_attention"))
    pg.get_by_text("Helpful foundations").click()
    pg.wait_for_function(f"() => ({LINKS_JS})().length >= 2", timeout=30_000)
    links = pg.evaluate(LINKS_JS)
    hbm = next(link for link in links if link["text"] == "HBM")
    assert hbm["href"] == "./glossary#hbm"
    assert hbm["absolute"] == urljoin(harness.page_url(server, "flash_attention"), "./glossary#hbm")
    runs.open(hbm["absolute"])
    pg.wait_for_selector("#hbm", timeout=60_000)
    pg.wait_for_function("() => Math.abs(document.getElementById('hbm').getBoundingClientRect().top) < 200",
                         timeout=30_000)
    assert pg.locator("h1").first.inner_text().strip() == "Glossary"
    context.close()


def test_a_glossary_link_opens_in_the_same_tab_and_session_at_its_term(server, browser):
    """Clicked, the lesson's link opens the glossary in this tab (no second tab; Streamlit would open one for a
    Markdown link), in this session (no new page load: a student's class stays), scrolled to the term, with the
    term in the address."""
    context = browser.new_context(viewport={"width": 1280, "height": 720})
    pg = context.new_page()
    runs = harness.Runs(pg)
    runs.open(harness.page_url(server, "flash_attention"))
    pg.wait_for_function("() => window.__attnHooks === true", timeout=60_000)      # the app's script is in
    pg.evaluate("() => { window.__sameLoad = true; }")                             # gone if the page reloads
    pg.get_by_text("Helpful foundations").click()
    pg.wait_for_function(f"() => ({LINKS_JS})().length >= 2", timeout=30_000)
    link = pg.locator('[data-testid=stMain] a[href="./glossary#hbm"]').first
    assert link.get_attribute("target") == "_blank"                                # as Streamlit renders it
    link.click()
    pg.wait_for_function("() => location.pathname.endsWith('/glossary') && location.hash === '#hbm'",
                         timeout=60_000)
    pg.wait_for_function("() => { const t = document.getElementById('hbm'); "
                         "return t && Math.abs(t.getBoundingClientRect().top) < 200; }", timeout=30_000)
    assert pg.locator("h1").first.inner_text().strip() == "Glossary"
    assert len(context.pages) == 1 and pg.evaluate("() => window.__sameLoad === true")
    pg.go_back()                                                                   # Back returns to the lesson
    pg.wait_for_function("() => location.pathname.endsWith('/flash_attention')", timeout=60_000)
    pg.locator("h1", has_text="Attention, block by block").wait_for(timeout=60_000)
    context.close()
