"""The sidebar in a live class, in Chromium (issue 46): a tablet's sidebar closes once its student has joined, by
link or by typed code, and stays open for the presenter and for a learner outside a class; and the Classroom
section is in the sidebar's first screen, above the fold, without scrolling past every lesson."""

from __future__ import annotations

import re

import pytest

from devtools import harness
from tests.browser.conftest import wait_following
from ui.content import page_index

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser")]

WAIT_MS = 120_000
CODE = re.compile(r"Room code: ([A-Z2-9]{6})")
SIDEBAR = '[data-testid="stSidebar"]'
TABLET = (768, 1024)


def _collapsed(page) -> bool:
    return page.locator(SIDEBAR).get_attribute("data-collapsed", timeout=WAIT_MS) == "true"


def _open_sidebar(page) -> None:
    """The learner opens the sidebar with its arrow (the frontend keeps that choice in localStorage)."""
    if _collapsed(page):
        page.get_by_test_id("stExpandSidebarButton").click()
    page.wait_for_function(f"() => document.querySelector('{SIDEBAR}').dataset.collapsed === 'false'",
                           timeout=WAIT_MS)


def _start_class(devices, server, size=(1280, 720)) -> tuple[object, str, str]:
    """A presenter starts a class (on a screen of ``size``, its sidebar opened): (their page, the code, the join
    link)."""
    pg = devices(*size)
    harness.Runs(pg).open(server)
    _open_sidebar(pg)
    harness.click_until(pg.get_by_role("button", name="Start a class"), pg.get_by_text(CODE), each_ms=40_000)
    pg.get_by_text("0 students following").wait_for(timeout=WAIT_MS)
    code = CODE.search(pg.inner_text("body")).group(1)
    sidebar = pg.locator(SIDEBAR)
    sidebar.locator('[data-testid="stCode"]').first.wait_for(timeout=WAIT_MS)
    link = next(c.text_content().strip() for c in sidebar.locator('[data-testid="stCode"]').all()
                if "room=" in (c.text_content() or "") and "key=" not in (c.text_content() or ""))
    return pg, code, link


def _stays(page, runs: harness.Runs, collapsed: bool) -> None:
    """The sidebar is collapsed or open as said, and still is once the page's runs have settled."""
    said = str(collapsed).lower()
    page.wait_for_function(f"() => document.querySelector('{SIDEBAR}').dataset.collapsed === '{said}'",
                           timeout=WAIT_MS)
    runs.settle()
    assert _collapsed(page) is collapsed


def test_a_tablets_sidebar_closes_once_its_student_joins_and_stays_open_otherwise(devices, server):
    presenter, code, link = _start_class(devices, server, TABLET)
    typed = devices(*TABLET)
    typed_runs = harness.Runs(typed)
    typed_runs.open(server)
    _open_sidebar(typed)
    _stays(typed, typed_runs, collapsed=False)                  # outside a class: open, as the learner left it
    typed.get_by_label("Join a class").fill(code.lower())
    typed.get_by_role("button", name="Join", exact=True).click()
    wait_following(typed, code, WAIT_MS)
    _stays(typed, typed_runs, collapsed=True)                   # joined: the lesson fills the tablet
    assert _no_gap_for_scripts(typed, ".st-key-_class_browser_keep")
    _open_sidebar(typed)                                        # opened again by hand: it stays open now
    _stays(typed, typed_runs, collapsed=False)
    assert typed.get_by_role("button", name="Leave the class").is_visible()

    linked = devices(*TABLET)
    linked_runs = harness.Runs(linked)
    linked_runs.open(server)
    _open_sidebar(linked)                                       # opened once before: the frontend remembers it
    linked_runs.open(link)
    wait_following(linked, code, WAIT_MS)
    _stays(linked, linked_runs, collapsed=True)

    presenter.get_by_text("2 students following").wait_for(timeout=WAIT_MS)   # its runs since both joins
    assert not _collapsed(presenter)                            # a presenter's tablet keeps its sidebar open


def test_a_laptop_students_sidebar_stays_open(devices, server):
    _, code, link = _start_class(devices, server)
    laptop = devices(1280, 720)
    runs = harness.Runs(laptop)
    runs.open(link)
    wait_following(laptop, code, WAIT_MS)
    _stays(laptop, runs, collapsed=False)


@pytest.mark.parametrize("slug", ["home", "glossary", "kv_cache"])
def test_the_classroom_section_is_in_the_sidebars_first_screen(devices, server, slug):
    page = devices(1280, 720)
    harness.Runs(page).open(harness.page_url(server, slug))
    heading = page.locator(SIDEBAR).get_by_role("heading", name="Classroom")
    heading.wait_for(timeout=WAIT_MS)
    # The app's styles apply a moment after the first page is drawn (Streamlit draws style-only HTML last).
    page.wait_for_function("() => getComputedStyle(document.querySelector('[data-testid=stSidebarNavItems]'))"
                           ".maxHeight !== 'none'", timeout=WAIT_MS)
    box, sidebar = heading.bounding_box(), page.locator(SIDEBAR).bounding_box()
    assert box["y"] + box["height"] <= sidebar["y"] + 720, (box, sidebar)
    assert page.get_by_role("button", name="Start a class").bounding_box()["y"] < 720
    scrolled = page.evaluate("() => document.querySelector('[data-testid=stSidebarContent]').scrollTop")
    assert scrolled == 0
    links = page.locator('[data-testid="stSidebarNavLink"]')
    assert links.count() == len(page_index())                    # every page is still in the list, in its box
    current = page.locator('[data-testid="stSidebarNavLink"][aria-current="page"]')
    items = page.locator('[data-testid="stSidebarNavItems"]').bounding_box()
    page.wait_for_function("""() => { const b = document.querySelector('[data-testid=stSidebarNavItems]')
        .getBoundingClientRect(), a = document.querySelector('[data-testid=stSidebarNavLink][aria-current=page]')
        .getBoundingClientRect(); return a.top >= b.top - 1 && a.bottom <= b.bottom + 1; }""", timeout=WAIT_MS)
    assert current.count() == 1 and items["height"] < 720 / 2
    assert _no_gap_for_scripts(page, ".st-key-_app_browser")     # the app's hidden scripts move nothing down


def _no_gap_for_scripts(page, selector: str) -> bool:
    """The hidden scripts' keyed container is there, and neither it nor the wrapper around it is displayed (an
    empty wrapper still takes the sidebar's gap, moving everything below it down)."""
    page.locator(selector).first.wait_for(state="attached", timeout=WAIT_MS)
    return page.evaluate("""s => [...document.querySelectorAll(s)].every(e =>
        getComputedStyle(e).display === 'none' && getComputedStyle(e.parentElement).display === 'none')""", selector)
