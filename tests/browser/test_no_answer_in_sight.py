"""No answer in sight (issue 46), in real Chromium against the real server: a presenter (1280×720, presenter mode)
asks √dₖ's "spread" prediction and a student on a phone (390×844) reads their page while it is open. Nothing on it
states the answer (the phrases its lesson file marks, the analogy and the goal, folded or not: the page's whole
text is read, not only what is scrolled into view); the presenter's page holds nothing back and offers no second
"Ask the class". After the reveal the student's analogy and goal are back. The every-lesson sweep is
tests/test_no_answer_in_sight.py (AppTest)."""

from __future__ import annotations

import re

import pytest

from devtools import harness
from tests.browser.conftest import device, wait_following
from tests.test_no_answer_in_sight import plain, snippet
from ui.content import load_lesson
from ui.giveaway import HIDDEN

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser")]

WAIT_MS = 120_000                  # generous waits for a loaded machine, not targets
LESSON = load_lesson("sqrt_dk")
ITEM = "predict:spread"
PHRASES = LESSON.answer_phrases[ITEM]
# The analogy and the goal (the "more" fold is LaTeX, which the browser draws as other text).
PIECES = [snippet(LESSON.piece(p)) for p in ("analogy", "goal")]
assert set(("analogy", "goal")) <= set(LESSON.gives_away[ITEM])
TEXT_JS = "() => document.querySelector('[data-testid=\"stMain\"]').textContent"


def page_text(page) -> str:
    """All the text of the page's main part, folded or not, as the tests read text (tests/test_no_answer_in_sight)."""
    return plain(page.evaluate(TEXT_JS))


def _until(page, check, what: str) -> None:
    harness.until(check, WAIT_MS / 1000, what, every_s=0.3, pause=page.wait_for_timeout)


def test_a_phone_shows_no_answer_while_the_prediction_is_open_and_all_of_it_after_the_reveal(server, browser):
    contexts = []
    try:
        context, pg = device(browser, 1280, 720, wait_ms=WAIT_MS)
        contexts.append(context)
        pg.goto(f"{server}/?present=1")
        harness.click_until(pg.get_by_role("button", name="Start a class"),
                            pg.get_by_text(re.compile(r"Room code: [A-Z2-9]{6}")), each_ms=40_000)
        code = re.search(r"Room code: ([A-Z2-9]{6})", pg.inner_text("body")).group(1)
        pg.locator('[data-testid="stSidebarNav"] a', has_text="Why divide by").click()
        pg.wait_for_url(re.compile(r"/sqrt_dk"))
        context, phone = device(browser, 390, 844, wait_ms=WAIT_MS)
        contexts.append(context)
        phone.goto(f"{server}/?room={code}")
        phone.wait_for_url(re.compile(r"/sqrt_dk\?.*room=" + code), timeout=WAIT_MS * 2)
        wait_following(phone, code, who="the phone")
        try:
            _until(phone, lambda: all(p in page_text(phone) for p in PIECES), "the analogy before the question")
        except TimeoutError:
            raise AssertionError(page_text(phone)[:3000]) from None

        pg.get_by_role("button", name="Ask the class").first.click()          # the prediction: first on the page
        pg.get_by_text("Another question of this page is open to the class").first.wait_for()
        assert pg.get_by_role("button", name="Ask the class").count() == 0     # no second ask under the check
        phone.locator('[class*="st-key-_class_answer"] [data-testid="stRadio"]').first.wait_for()
        _until(phone, lambda: plain(HIDDEN) in page_text(phone), "the hidden caption on the phone")
        text = page_text(phone)
        assert not [p for p in PHRASES if plain(p) in text], [p for p in PHRASES if plain(p) in text]
        assert not [p for p in PIECES if p in text]
        presenter_text = page_text(pg)
        assert plain(HIDDEN) not in presenter_text and all(p in presenter_text for p in PIECES)

        phone.locator('[class*="st-key-_class_answer"] [data-testid="stRadio"] label').nth(1 + LESSON.predictions[
            "spread"].answer).click()
        pg.get_by_text("1 of 1 answered").wait_for()
        pg.get_by_role("button", name="Reveal the answer to the class").click()
        _until(phone, lambda: plain(HIDDEN) not in page_text(phone) and all(p in page_text(phone) for p in PIECES),
               "the analogy and the goal back after the reveal")
        assert not phone.errors and not pg.errors, (phone.errors, pg.errors)
    finally:
        for context in contexts:
            context.close()
