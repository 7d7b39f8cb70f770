"""A live class in real Chromium against the real server: one presenter, three students.

The tests run in order and share one class (the ``classroom`` fixture): a presenter starts it, three
students join with ?room=, they follow the presenter's page and slider, one explores and follows again,
a poll collects their three answers, a reload rejoins, and no student ever sees a presenter's control.
"""

from __future__ import annotations

import re
import time

import pytest
from playwright.sync_api import expect

from devtools import harness
from tests.browser.conftest import SCREENSHOTS, device, wait_following

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser")]

# Generous waits for a machine shared with other work, not targets: benchmarks/classroom.py measures how
# long following takes (docs/PERFORMANCE.md, "A live class").
FOLLOW_TIMEOUT_MS = 120_000
PRESENTER_ONLY = ("Start a class", "End the class", "Ask the class", "Presenter link (keep private)",
                  "Reveal the answer to the class", "Stop asking", "Show the code large")
SLIDER = harness.SLIDER_INPUT


class Classroom:
    def __init__(self, browser, base: str) -> None:
        self.browser, self.base = browser, base
        self.contexts = []
        self.presenter = self._page(1280, 720)
        self.students: list = []
        self.code = ""

    def _page(self, width: int, height: int):
        # FOLLOW_TIMEOUT_MS for clicks and reads, too, on a loaded machine
        context, page = device(self.browser, width, height, "light", FOLLOW_TIMEOUT_MS)
        self.contexts.append(context)
        return page

    def student(self):
        page = self._page(390, 2400)
        page.goto(f"{self.base}/?room={self.code.lower()}")   # as typed from a board: case does not matter
        self.students.append(page)
        return page

    def close(self) -> None:
        for context in self.contexts:
            context.close()


@pytest.fixture(scope="module")
def classroom(server, browser):
    room = Classroom(browser, server)
    yield room
    room.close()


def _slider_value(page) -> str:
    page.locator(SLIDER).first.wait_for(state="attached", timeout=FOLLOW_TIMEOUT_MS)
    return page.locator(SLIDER).first.input_value(timeout=FOLLOW_TIMEOUT_MS)


def _wait_slider(page, value: str) -> None:
    page.wait_for_function(f"v => {{ const s = document.querySelector('{SLIDER}'); return s && s.value === v; }}",
                           arg=value, timeout=FOLLOW_TIMEOUT_MS)


def _see(page, text: str, shot: str, width: int = 390) -> None:
    """Wait for ``text`` on ``page``; if it never shows, keep what the page did show, then fail."""
    try:
        page.get_by_text(text).wait_for(timeout=FOLLOW_TIMEOUT_MS)
    except Exception:
        harness.save_full(page, SCREENSHOTS / shot, width)
        raise


def _no_exception(page) -> None:
    assert page.locator('[data-testid="stException"]').count() == 0
    assert not page.errors, page.errors


def test_a_presenter_starts_a_class(classroom):
    pg = classroom.presenter
    pg.goto(f"{classroom.base}/?present=1")
    harness.click_until(pg.get_by_role("button", name="Start a class"),
                        pg.get_by_text(re.compile(r"Room code: [A-Z2-9]{6}")), each_ms=40_000)
    pg.get_by_text("0 students following").wait_for(timeout=FOLLOW_TIMEOUT_MS)      # the run has finished
    classroom.code = re.search(r"Room code: ([A-Z2-9]{6})", pg.inner_text("body")).group(1)
    sidebar = pg.locator('[data-testid="stSidebar"]')
    # st.code's highlighter loads lazily: the first code block appears a moment after the text around it.
    sidebar.locator('[data-testid="stCode"]').first.wait_for(timeout=FOLLOW_TIMEOUT_MS)
    links = [c.text_content() for c in sidebar.locator('[data-testid="stCode"]').all()]
    # The join link: the code, then the token that spares a link's students the limits on typed codes (issue 45).
    assert any(re.search(rf"/\?room={classroom.code}\.[0-9a-f]{{16}}$", link.strip()) for link in links), links
    assert sidebar.locator('[data-testid="stImage"] img').first.bounding_box()["width"] >= 200   # the QR code
    assert "key=" not in sidebar.inner_text()                 # the presenter link stays in its popover
    assert "key=" not in pg.url and "room=" not in pg.url
    _no_exception(pg)


def test_three_students_join_with_the_link(classroom):
    for _ in range(3):
        st = classroom.student()
        wait_following(st, classroom.code, FOLLOW_TIMEOUT_MS, who="a student")
        assert f"room={classroom.code}" in st.url
    classroom.presenter.get_by_text("3 students following").wait_for(timeout=FOLLOW_TIMEOUT_MS)
    for st in classroom.students:
        _no_exception(st)


def test_students_follow_the_presenter_to_a_lesson_and_its_slider(classroom):
    pg = classroom.presenter
    pg.locator('[data-testid="stSidebarNav"] a', has_text="Why divide by").click()
    pg.wait_for_url(re.compile(r"/sqrt_dk"), timeout=30_000)
    pg.locator(SLIDER).first.wait_for(state="attached", timeout=FOLLOW_TIMEOUT_MS)
    for st in classroom.students:
        st.wait_for_url(re.compile(r"/sqrt_dk\?.*room=" + classroom.code), timeout=FOLLOW_TIMEOUT_MS * 2)
        st.locator(SLIDER).first.wait_for(state="attached", timeout=FOLLOW_TIMEOUT_MS)
        expect(st.locator(SLIDER).first).to_be_disabled()   # the presenter moves it
    before = _slider_value(pg)
    t0 = time.perf_counter()
    pg.locator(SLIDER).first.focus()
    pg.keyboard.press("ArrowRight")
    pg.wait_for_function(f"v => document.querySelector('{SLIDER}').value !== v", arg=before)
    moved = _slider_value(pg)
    for st in classroom.students:
        _wait_slider(st, moved)
    print(f"three students followed a slider move in {time.perf_counter() - t0:.2f} s")
    for st in classroom.students:
        _no_exception(st)


def test_a_student_explores_then_follows_again(classroom):
    pg, st = classroom.presenter, classroom.students[0]
    st.get_by_role("button", name="Explore on my own").click()
    st.get_by_text("Exploring on your own").wait_for(timeout=FOLLOW_TIMEOUT_MS)
    expect(st.locator(SLIDER).first).to_be_enabled(timeout=FOLLOW_TIMEOUT_MS)
    kept = _slider_value(st)
    pg.locator(SLIDER).first.focus()
    pg.keyboard.press("ArrowRight")
    moved = _slider_value(pg)
    _wait_slider(classroom.students[1], moved)            # a follower has moved by now
    assert _slider_value(st) == kept                      # the explorer has not
    st.get_by_role("button", name="Follow again").click()
    _wait_slider(st, moved)
    wait_following(st, classroom.code, FOLLOW_TIMEOUT_MS, who="a student")


def test_a_poll_collects_three_answers_and_reveals_them(classroom):
    pg = classroom.presenter
    pg.get_by_role("button", name="Ask the class").first.click()
    pg.get_by_role("button", name="Reveal the answer to the class").wait_for(timeout=FOLLOW_TIMEOUT_MS)
    for i, st in enumerate(classroom.students):
        st.get_by_text("The presenter asked the class").wait_for(timeout=FOLLOW_TIMEOUT_MS)
        # The class's radio (keyed _class_answer__…), not the page's own one it replaces: for a moment after
        # the switch, the page's radio can still be on screen.
        box = st.locator('[class*="st-key-_class_answer"] [data-testid="stRadio"]', has_text="Predict first")
        box.wait_for(timeout=FOLLOW_TIMEOUT_MS)
        # label 0 is the question itself: two students pick the first option, one the second
        box.locator("label").nth(1 + (i == 2)).click()
    pg.get_by_text("3 of 3 answered").wait_for(timeout=FOLLOW_TIMEOUT_MS)
    pg.get_by_role("button", name="Show the results").click()       # hidden until shown (peer instruction)
    counts = pg.wait_for_function("""() => {
        const el = [...document.querySelectorAll('.js-plotly-plot')]
            .find(p => p.layout
                  && String((p.layout.title || {}).text || '').replace(/<br>/g, ' ').includes('answers ('));
        if (!el || !el.data) return null;
        const x = Array.from(el.data[0].x);
        return x.reduce((a, b) => a + b, 0) === 3 ? x : null; }""", timeout=FOLLOW_TIMEOUT_MS).json_value()
    assert sum(counts) == 3 and sorted(counts, reverse=True)[:2] == [2, 1]
    harness.save_full(pg, SCREENSHOTS / "classroom_presenter_poll.png", 1280)
    pg.get_by_role("button", name="Reveal the answer to the class").click()
    for i, st in enumerate(classroom.students):
        _see(st, "The answer:", f"classroom_fail_{i}.png")
        st.wait_for_function("""() => [...document.querySelectorAll('.js-plotly-plot')].some(p => p.data && p.layout
            && String((p.layout.title || {}).text || '').replace(/<br>/g, ' ').includes('answers (3 in all)'))""",
                             timeout=FOLLOW_TIMEOUT_MS)
    harness.save_full(classroom.students[0], SCREENSHOTS / "classroom_student_reveal.png", 390)


def test_a_reload_rejoins_the_class(classroom):
    st = classroom.students[2]
    st.reload()
    wait_following(st, classroom.code, FOLLOW_TIMEOUT_MS, who="a student")
    assert "/sqrt_dk" in st.url
    pg = classroom.presenter
    pg.locator(SLIDER).first.focus()
    pg.keyboard.press("ArrowLeft")
    moved = _slider_value(pg)
    try:
        _wait_slider(st, moved)
    except Exception as err:
        harness.save_full(st, SCREENSHOTS / "classroom_rejoin_fail.png", 390)
        harness.save_full(pg, SCREENSHOTS / "classroom_rejoin_fail_presenter.png", 1280)
        # Seen once in a full run (docs/RELIABILITY.md): did the move reach the students who did not reload?
        others = [s.locator(SLIDER).first.input_value() for s in classroom.students[:2]]
        raise AssertionError(f"the reloaded student shows {st.locator(SLIDER).first.input_value()}, the "
                             f"presenter {moved}, the other students {others}") from err


def test_a_student_never_sees_presenter_controls(classroom):
    for st in classroom.students:
        text = st.inner_text("body")
        for label in PRESENTER_ONLY:
            assert label not in text, label
        assert "key=" not in text
        _no_exception(st)


def test_ending_the_class_tells_the_students_and_keeps_their_page(classroom):
    pg = classroom.presenter
    pg.get_by_role("button", name="End the class", exact=True).click()      # it asks first
    pg.get_by_role("button", name="Yes, end the class").click()
    for i, st in enumerate(classroom.students):
        _see(st, "The class has ended", f"classroom_end_fail_{i}.png")
        assert "/sqrt_dk" in st.url and "room=" not in st.url
        _no_exception(st)
