"""The presenter console in real Chromium (issue 46): the console link, taken from the private popover and opened
on a phone (390×844), shows the current step's speaker notes and follows Next, while the projector (the same
class, no console) shows none of them. The link's key is wiped from the phone's address as any presenter link's."""

from __future__ import annotations

import re

import pytest

from devtools import harness
from tests.browser.conftest import SCREENSHOTS
from ui.classroom import console
from ui.content import load_lesson

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser")]

WAIT_MS = 120_000                  # generous waits for a loaded machine, not targets
SLUG = "polysemy"
NOTES = ".st-key-_class_console_notes"


def plain(markdown: str) -> str:
    """The notes as the page renders them: bold marks and TeX dollars gone, runs of spaces one."""
    return " ".join(markdown.replace("**", "").split())


def notes_on(page) -> str:
    box = page.locator(NOTES)
    return " ".join(box.first.inner_text().split()) if box.count() else ""


def test_the_console_link_shows_the_notes_on_a_phone_and_never_on_the_projector(server, devices):
    first, second = (plain(console.notes_for(SLUG, n)) for n in (1, 2))
    assert first and second and first != second
    pg = devices(1280, 720)
    pg.goto(f"{server}/?present=1")
    harness.click_until(pg.get_by_role("button", name="Start a class"),
                        pg.get_by_text(re.compile(r"Room code: [A-Z2-9]{6}")), each_ms=40_000)
    pg.get_by_text("0 students following").wait_for()
    pg.locator('[data-testid="stSidebarNav"] a', has_text=load_lesson(SLUG).title).click()
    pg.wait_for_url(re.compile(f"/{SLUG}"))
    pg.get_by_role("button", name="Next ▶").wait_for()
    pg.get_by_text("Presenter link (keep private)").click()
    link_box = pg.locator('[data-testid="stCode"]', has_text="console=1").first
    link_box.wait_for()
    link = " ".join(link_box.inner_text().split()).replace(" ", "")
    assert "key=" in link and "console=1" in link
    pg.keyboard.press("Escape")

    phone = devices(390, 844)
    try:
        phone.goto(link)
        phone.wait_for_url(re.compile(f"/{SLUG}"), timeout=WAIT_MS * 2)
        phone.wait_for_function(f"t => {{ const b = document.querySelector('{NOTES}'); return b && "
                                "b.innerText.replace(/\\s+/g, ' ').includes(t); }", arg=first[:60])
        assert "key=" not in phone.url and "console=" not in phone.url
        assert notes_on(phone).startswith(first[:40])
        phone.get_by_role("button", name="Next ▶").click()       # the class's own Next, under the console
        phone.wait_for_function(f"t => {{ const b = document.querySelector('{NOTES}'); return b && "
                                "b.innerText.replace(/\\s+/g, ' ').includes(t); }", arg=second[:60])
        # no event: the projector follows the console to the next step, and must still draw no notes while it does
        pg.wait_for_timeout(3000)
        assert pg.locator(NOTES).count() == 0 and pg.locator(".st-key-_class_console_box").count() == 0
        body = " ".join(pg.inner_text("body").split())
        assert first[:40] not in body and second[:40] not in body, "the projector shows speaker notes"
    except Exception:
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        phone.screenshot(path=str(SCREENSHOTS / "console_phone.png"), full_page=True)
        pg.screenshot(path=str(SCREENSHOTS / "console_projector.png"))
        raise
    assert not phone.errors and not pg.errors, (phone.errors, pg.errors)
