"""The presenter's side of a live class in real Chromium (issues 28 and 29): a reload resumes presenting, the
presenter link resumes on another device and leaves no key in the history, a closed student tab leaves the
count within FOLLOWER_TTL_S, the localhost warning, and the large code fully in view at 1366×768.

The tests share one class (the ``klass`` fixture, ended at the end), with a student or two joining as each
test needs; each browser context has its own client address (tests/browser/conftest.py).
"""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from classroom.store import FOLLOWER_TTL_S
from devtools import harness
from tests.browser.conftest import device, wait_following

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser")]

WAIT_MS = 120_000                     # generous: a machine shared with other work
SHOTS = Path("/tmp/presenter")
SLIDER = harness.SLIDER_INPUT
CODE = re.compile(r"Room code: ([A-Z2-9]{6})")


def _context(browser, width: int, height: int, scheme: str = "light"):
    return device(browser, width, height, scheme, WAIT_MS)


def _start(page, base: str, query: str = "present=1") -> str:
    page.goto(f"{base}/?{query}")
    harness.click_until(page.get_by_role("button", name="Start a class"), page.get_by_text(CODE), each_ms=60_000)
    page.get_by_text("0 students following").wait_for(timeout=WAIT_MS)
    return CODE.search(page.inner_text("body")).group(1)


def _join(browser, base: str, code: str, width: int = 390, height: int = 844):
    context, page = _context(browser, width, height)
    page.goto(f"{base}/?room={code}")
    wait_following(page, code, WAIT_MS, who="a student")
    return context, page


def _count(page, n: int) -> None:
    page.get_by_text(f"{n} student{'s' if n != 1 else ''} following").wait_for(timeout=WAIT_MS)


def _to_sqrt_dk_and_move(presenter, students) -> str:
    """The presenter opens the √dₖ lesson and moves its slider; returns the value every student shows."""
    presenter.locator('[data-testid="stSidebarNav"] a', has_text="Why divide by").click()
    presenter.wait_for_url(re.compile(r"/sqrt_dk"), timeout=WAIT_MS)
    slider = presenter.locator(SLIDER).first
    slider.wait_for(state="attached", timeout=WAIT_MS)
    before = slider.input_value()
    slider.focus()
    presenter.keyboard.press("ArrowRight")
    presenter.wait_for_function(f"v => document.querySelector('{SLIDER}').value !== v", arg=before)
    moved = slider.input_value()
    for st in students:
        _wait_slider(st, moved)
    return moved


def _wait_slider(page, value: str, who: str = "the student") -> None:
    try:
        page.wait_for_function(f"v => {{ const s = document.querySelector('{SLIDER}'); return s && s.value === v; }}",
                               arg=value, timeout=WAIT_MS)
    except Exception as err:                            # say what the page showed instead
        shown = page.evaluate(f"() => {{ const s = document.querySelector('{SLIDER}'); return s && s.value; }}")
        following = page.get_by_text("Following class").count() > 0
        raise AssertionError(f"{who} shows {shown!r}, not {value!r}, at {page.url} "
                             f"({'following' if following else 'not following'})") from err


def _student_runs(page) -> harness.Runs:
    return harness.Runs(page)


class Klass:
    def __init__(self, browser, base: str) -> None:
        self.browser, self.base, self.contexts = browser, base, []
        context, self.presenter = _context(browser, 1280, 720)
        self.contexts.append(context)
        self.code = _start(self.presenter, base)

    def student(self, width: int = 390, height: int = 844):
        context, page = _join(self.browser, self.base, self.code, width, height)
        self.contexts.append(context)
        return context, page

    def close(self) -> None:
        pg = self.presenter
        try:
            pg.set_viewport_size({"width": 1280, "height": 720})
            pg.keyboard.press("Escape")
            pg.get_by_role("button", name="End the class", exact=True).click()
            pg.get_by_role("button", name="Yes, end the class").click()
            pg.get_by_text("The class has ended.").wait_for(timeout=WAIT_MS)
        finally:
            for context in self.contexts:
                context.close()


@pytest.fixture(scope="module")
def klass(server, browser):
    room = Klass(browser, server)
    yield room
    room.close()


def test_a_class_started_at_localhost_says_phones_cannot_reach_it(klass, server):
    assert "127.0.0.1" in server                        # the test server's own address
    sidebar = klass.presenter.locator('[data-testid="stSidebar"]')
    sidebar.get_by_text("Phones cannot open this link").wait_for(timeout=WAIT_MS)
    assert "ATTENTION_PUBLIC_URL" in sidebar.inner_text()
    SHOTS.mkdir(parents=True, exist_ok=True)
    for scheme in ("light", "dark"):
        klass.presenter.emulate_media(color_scheme=scheme)
        harness.settle(klass.presenter)
        klass.presenter.screenshot(path=str(SHOTS / f"panel_1280_{scheme}.png"))
    klass.presenter.emulate_media(color_scheme="light")


def test_a_closed_student_tab_leaves_the_count_within_the_follower_ttl(klass):
    for _ in range(2):
        klass.student()
    _count(klass.presenter, 2)
    closed = time.perf_counter()
    klass.contexts.pop().close()                        # a phone's tab closed: no goodbye
    _count(klass.presenter, 1)
    took = time.perf_counter() - closed
    print(f"a closed tab left the count after {took:.1f} s")
    assert took <= FOLLOWER_TTL_S + 3                   # the count's own refresh and a loaded machine


BOXES_JS = """() => {
  const dialog = document.querySelector('[role=dialog]');
  const box = el => { if (!el) return null; const r = el.getBoundingClientRect();
                      return {top: r.top, bottom: r.bottom, left: r.left, right: r.right, height: r.height}; };
  const code = dialog.querySelector('.st-key-_class_large_code p');
  return {code: box(code), text: code && code.textContent,
          qr: box(dialog.querySelector('.st-key-_class_large_qr img')),
          link: box(dialog.querySelector('.st-key-_class_large_link [data-testid=stCode]')),
          scroll: [...dialog.querySelectorAll('*')].some(e => e.scrollHeight > e.clientHeight + 2
                     && ['auto', 'scroll'].includes(getComputedStyle(e).overflowY)),
          vw: innerWidth, vh: innerHeight};
}"""


IN_VIEW_JS = "el => { const r = el.getBoundingClientRect(); return r.left >= 0 && r.right <= innerWidth; }"


def _open_drawer(pg, inside) -> None:
    """On a phone the sidebar is a drawer. Narrowing the window folds an open sidebar away, but on the resize
    event that follows, not at once: open the drawer whenever it is folded, until ``inside`` is in view."""
    expand = pg.get_by_test_id("stExpandSidebarButton")

    def shown() -> bool:
        if expand.is_visible():
            try:     # widened again, the sidebar may open by itself between the look and the click: look again
                expand.click(timeout=2_000)
            except PlaywrightTimeout:
                pass
        return inside.count() > 0 and inside.first.evaluate(IN_VIEW_JS)

    harness.until(shown, WAIT_MS / 1000, "the sidebar drawer did not open", every_s=0.25, pause=pg.wait_for_timeout)


@pytest.mark.parametrize("width, height, scheme", [(1366, 768, "light"), (1366, 768, "dark"), (390, 844, "light")])
def test_the_large_code_fills_the_screen_and_stays_in_view(klass, width, height, scheme):
    pg = klass.presenter
    pg.set_viewport_size({"width": width, "height": height})
    pg.emulate_media(color_scheme=scheme)
    try:
        show = pg.get_by_role("button", name="Show the code large")
        if width < 600:
            # A phone: the sidebar is a drawer, which narrowing the window folds on a resize event of its own
            # (in CI, and once beside a CPU hog here, it was shut under the click). The drawer is not what this
            # test is about: the button is pressed where it is, as a script would.
            show.evaluate("b => b.click()")
        else:
            show.click()
        pg.locator('.st-key-_class_large_qr img').wait_for(timeout=WAIT_MS)
        pg.locator('.st-key-_class_large_link [data-testid=stCode]').wait_for(timeout=WAIT_MS)
        harness.settle(pg)
        SHOTS.mkdir(parents=True, exist_ok=True)
        pg.screenshot(path=str(SHOTS / f"large_{width}x{height}_{scheme}.png"))
        boxes = pg.evaluate(BOXES_JS)
        assert boxes["text"].replace(" ", "") == klass.code
        if width >= 1000:
            assert boxes["code"]["height"] >= 0.15 * height, boxes
            for part in ("code", "qr", "link"):
                b = boxes[part]
                assert b["top"] >= 0 and b["bottom"] <= height and b["left"] >= 0 and b["right"] <= width, (part, b)
            assert boxes["qr"]["height"] >= 250, boxes          # scannable across a room
            assert not boxes["scroll"], boxes
        assert not pg.errors
    finally:
        pg.keyboard.press("Escape")
        try:
            pg.locator('[role=dialog]').wait_for(state="detached", timeout=10_000)
        except Exception:           # the key went nowhere (a button pressed by script leaves the focus outside)
            pg.locator('[role=dialog] button[aria-label="Close"]').first.click()
            pg.locator('[role=dialog]').wait_for(state="detached", timeout=WAIT_MS)
        pg.set_viewport_size({"width": 1280, "height": 720})
        pg.emulate_media(color_scheme="light")
        if width < 600:                                 # the next tests use the sidebar: open it again
            _open_drawer(pg, pg.get_by_role("button", name="Presenter link (keep private)"))


def test_a_presenter_reload_resumes_the_class_and_moves_no_student(klass):
    presenter, code = klass.presenter, klass.code
    _, student = klass.student()
    moved = _to_sqrt_dk_and_move(presenter, [student])
    runs = _student_runs(student)
    url_before = student.url
    said = f"You are presenting class {code} again."
    # The notice shows for a few seconds (ui/classroom/session.NOTICE_S); on a loaded machine the page's first
    # runs can outlast that between two looks, so the page itself records that it showed it.
    presenter.add_init_script("""text => {
        const look = new MutationObserver(() => {
            if (document.body && document.body.innerText.includes(text)) { window.__said = true; look.disconnect(); }
        });
        look.observe(document, {subtree: true, childList: true, characterData: true});
        setTimeout(() => look.disconnect(), 150000);
    }""".replace("text => {", "(text => {", 1) + f")({said!r});")
    presenter.reload()
    presenter.wait_for_function("() => window.__said === true", timeout=WAIT_MS)
    presenter.get_by_text(f"Room code: {code}").wait_for(timeout=WAIT_MS)
    assert "/sqrt_dk" in presenter.url and "key=" not in presenter.url
    presenter.locator(SLIDER).first.wait_for(state="attached", timeout=WAIT_MS)
    assert presenter.locator(SLIDER).first.input_value() == moved
    # The student has not moved, nor even run again; the next move still reaches them.
    assert student.url == url_before and student.locator(SLIDER).first.input_value() == moved
    assert runs.finished == 0, "the presenter's reload made the student's page run again"
    presenter.locator(SLIDER).first.focus()
    presenter.keyboard.press("ArrowRight")
    presenter.wait_for_function(f"v => document.querySelector('{SLIDER}').value !== v", arg=moved)
    moved = presenter.locator(SLIDER).first.input_value()
    for n, page in enumerate(p for c in klass.contexts[1:] for p in c.pages):   # this one, and the earlier one
        _wait_slider(page, moved, f"student {n + 1}")
    assert not presenter.errors and not student.errors


def _presenter_link(page) -> str:
    page.get_by_role("button", name="Presenter link (keep private)").click()
    code_block = page.locator('[data-testid="stPopoverBody"] [data-testid="stCode"]').first
    code_block.wait_for(timeout=WAIT_MS)
    link = code_block.text_content().strip()
    page.keyboard.press("Escape")
    return link


def test_the_presenter_link_resumes_on_another_device_and_leaves_no_key_behind(klass):
    presenter, code = klass.presenter, klass.code
    student = klass.contexts[-1].pages[0]              # the reload test's student
    moved = presenter.locator(SLIDER).first.input_value()
    _wait_slider(student, moved)
    link = _presenter_link(presenter)
    assert f"room={code}" in link and "key=" in link
    key = link.split("key=")[1]
    runs = _student_runs(student)
    context, laptop = _context(klass.browser, 1366, 768)
    klass.contexts.append(context)
    laptop.goto(link)
    laptop.get_by_text(f"You are presenting class {code} again.").wait_for(timeout=WAIT_MS)
    laptop.wait_for_url(re.compile(r"/sqrt_dk\?"), timeout=WAIT_MS)
    try:
        laptop.locator(SLIDER).first.wait_for(state="attached", timeout=WAIT_MS)
    except Exception as err:                            # seen under a CPU hog: say what the laptop showed
        SHOTS.mkdir(parents=True, exist_ok=True)
        laptop.screenshot(path=str(SHOTS / "presenter_link_no_slider.png"), full_page=True)
        main = laptop.locator('[data-testid="stMain"]').inner_text()[:400]
        raise AssertionError(f"no slider at {laptop.url}; the page shows {main!r}") from err
    _wait_slider(laptop, moved, "the presenter's laptop")
    assert "present=1" in laptop.url                    # the class was presented in presenter mode
    assert key not in laptop.url and "room=" not in laptop.url
    assert key not in laptop.evaluate("() => document.documentElement.outerHTML")
    assert student.url.split("?")[0].endswith("/sqrt_dk") and runs.finished == 0   # nobody moved
    # No history entry keeps the key: Back, as far as this tab's history goes, never shows it (being the
    # presenter's own navigation, it takes the class along).
    seen = [laptop.url]
    for _ in range(laptop.evaluate("() => history.length") - 1):
        # Back has changed the address when go_back returns. Two entries can hold the same address (beside a
        # CPU hog a wait for a different one timed out), so each is read as it is, not waited for.
        laptop.go_back()
        seen.append(laptop.evaluate("() => location.href"))
        if seen[-1].startswith("about:"):
            break
    print("history after the presenter link:", ["(key)" if key in u else u.split("?")[0] for u in seen])
    assert len(seen) > 1 and not [u for u in seen if key in u], seen
    assert not laptop.errors
    context.close()
    klass.contexts.remove(context)
