"""The theme picked in the Settings menu stays across pages and reloads (issue 47), in Chromium: picked on one
page, it holds after going to another page and reloading there, and after a fresh load of the first page."""

from __future__ import annotations

import pytest

from devtools import harness

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser")]

WAIT_MS = 120_000
# The app's background: its luminance says which theme the frontend drew, whatever the theme's exact colours.
DARK_JS = """() => { const m = getComputedStyle(document.querySelector('.stApp')).backgroundColor.match(/\\d+/g);
  return 0.2126 * m[0] + 0.7152 * m[1] + 0.0722 * m[2] < 128; }"""


def _dark(page) -> bool:
    page.locator(".stApp").wait_for(timeout=WAIT_MS)
    return page.evaluate(DARK_JS)


def _pick(page, theme: str) -> None:
    page.get_by_test_id("stMainMenu").click()
    page.get_by_test_id(f"stMainMenuItem-theme-{theme}").click()
    page.keyboard.press("Escape")


def test_a_theme_picked_on_one_page_holds_on_another_after_a_reload(browser, server):
    context = browser.new_context(viewport={"width": 1280, "height": 720}, color_scheme="light")
    page = context.new_page()
    runs = harness.Runs(page)
    runs.open(harness.page_url(server, "sqrt_dk"))
    page.wait_for_function("() => window.__attnHooks === true", timeout=WAIT_MS)   # the app's script is in
    assert not _dark(page)
    _pick(page, "Dark")
    page.wait_for_function(DARK_JS, timeout=WAIT_MS)
    page.locator('[data-testid="stSidebarNavLink"][href$="/glossary"]').click()       # this tab, this session
    page.wait_for_function("() => location.pathname.endsWith('/glossary')", timeout=WAIT_MS)
    runs.reload()
    assert page.evaluate("() => location.pathname").endswith("/glossary") and _dark(page)
    runs.open(harness.page_url(server, "kv_cache"))                                   # a page never visited
    assert _dark(page)
    runs.open(harness.page_url(server, "sqrt_dk"))                                    # a fresh load of the first
    assert _dark(page)
    _pick(page, "Light")                                                              # and back, everywhere
    page.wait_for_function(f"() => !({DARK_JS})()", timeout=WAIT_MS)
    runs.open(harness.page_url(server, "glossary"))
    assert not _dark(page)
    context.close()
