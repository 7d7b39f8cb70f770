"""A replica dies in the middle of a class (issue 45): its students follow again from the other one.

deploy/haproxy.cfg as shipped, with Debian's haproxy, in front of two app processes sharing one redis-server
(the set-up of test_lecture_hall.py, here with a hall of its own, since this test kills one of its replicas).
The presenter and one student load the class through HAProxy, whose leastconn puts them on different
replicas; the student answers the class's question; then the student's replica is killed (SIGKILL: no
goodbye). Streamlit's page reconnects by itself to HAProxy, which redispatches it to the live replica; the
new session there reads the class from the address (?room=CODE) and the follower id from the browser's own
storage, so the student is the same follower with the same answer, without a reload.
"""

from __future__ import annotations

import os
import re
import signal
import time

import pytest

from devtools import harness, services
from tests.browser.conftest import device, failed, wait_following

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser")]

ARTIFACTS = harness.ROOT / "artifacts"
SHOTS = ARTIFACTS / "screenshots"
BACK_S = 15.0                       # the bound: following again within 15 s of the replica's death
WAIT_MS = 120_000                   # everything else: a machine shared with other work
SLIDER = harness.SLIDER_INPUT
RADIO = '[class*="st-key-_class_answer"] [data-testid="stRadio"]'


@pytest.fixture
def hall():
    """Two replicas on one redis-server behind haproxy: yields (haproxy's URL, {cookie: replica process})."""
    services.require(services.REDIS_SERVER, services.HAPROXY)
    ARTIFACTS.mkdir(exist_ok=True)
    app_log = open(ARTIFACTS / "replica-death-apps.log", "w")
    with services.redis_server() as redis, open(ARTIFACTS / "haproxy-replica-death.log", "w") as hap_log:
        env = {"ATTENTION_REDIS_URL": redis.url}
        apps = [harness.start(log=app_log, env=env), harness.start(log=app_log, env=env)]
        try:
            ports = [int(base.rsplit(":", 1)[1]) for _, base, _ in apps]
            with services.haproxy(ports, log=hap_log) as (base, _):
                yield base, {"app1": apps[0][0], "app2": apps[1][0]}
        finally:
            for proc, _, _ in apps:
                harness.stop(proc)
            app_log.close()


@pytest.fixture
def people(browser, request):
    made = []

    def make(width: int, height: int):
        context, page = device(browser, width, height, wait_ms=WAIT_MS)
        made.append((context, page))
        return page

    yield make
    for i, (context, page) in enumerate(made):
        if failed(request):
            try:
                harness.save_full(page, SHOTS / f"replica_death_fail_{i}.png", 1280)
            except Exception as err:                    # a page that broke: the failure says more
                print(f"no screenshot of person {i}: {err}")
        context.close()


# While the page has no server, Streamlit disables its widgets (and says it is connecting): an answer cannot be
# given into the void. Seen by a MutationObserver, since the gap may last a second. ``__sameDocument`` is lost if
# the page reloads.
REFUSED_WHILE_AWAY_JS = """() => { window.__sameDocument = true;
    const seen = () => { const r = document.querySelector('[class*="st-key-_class_answer"] input[type="radio"]');
        if (r && r.disabled) window.__refusedWhileAway = true; };
    new MutationObserver(seen).observe(document.body, {subtree: true, childList: true, attributes: true}); }"""


def _replica(page) -> str | None:
    return next((c["value"] for c in page.context.cookies() if c["name"] == "SERVERID"), None)


def _presenter_text(page, text: str) -> None:
    page.get_by_text(text).first.wait_for(timeout=WAIT_MS)


def _step_slider(page) -> str:
    before = page.locator(SLIDER).first.input_value()
    page.locator(SLIDER).first.focus()
    page.keyboard.press("ArrowRight")
    page.wait_for_function(f"v => document.querySelector('{SLIDER}').value !== v", arg=before)
    return page.locator(SLIDER).first.input_value()


def _shows(page, value: str, timeout_ms: float) -> None:
    page.wait_for_function(f"v => {{ const s = document.querySelector('{SLIDER}'); return s && s.value === v; }}",
                           arg=value, timeout=timeout_ms)


def _start_on_sqrt_dk(presenter, base: str) -> str:
    presenter.goto(base + "/")
    harness.click_until(presenter.get_by_role("button", name="Start a class"),
                        presenter.get_by_text(re.compile(r"Room code: [A-Z2-9]{6}")), each_ms=30_000)
    code = re.search(r"Room code: ([A-Z2-9]{6})", presenter.inner_text("body")).group(1)
    presenter.locator('[data-testid="stSidebarNav"] a', has_text="Why divide by").click()
    presenter.wait_for_url(re.compile(r"/sqrt_dk"), timeout=WAIT_MS)
    presenter.locator(SLIDER).first.wait_for()
    return code


def _class(people, base: str):
    """A presenter on sqrt_dk and a phone following it: (presenter, student, class code)."""
    presenter = people(1280, 720)
    code = _start_on_sqrt_dk(presenter, base)
    student = people(390, 844)
    student.goto(f"{base}/?room={code}")
    wait_following(student, code, WAIT_MS, who="the student")
    student.wait_for_url(re.compile(r"/sqrt_dk"), timeout=WAIT_MS)
    return presenter, student, code


def test_a_student_whose_replica_dies_follows_again_from_the_other_with_their_answer(hall, people):
    base, replicas = hall
    presenter, student, code = _class(people, base)
    assert {_replica(presenter), _replica(student)} == {"app1", "app2"}       # leastconn: one on each
    _presenter_text(presenter, "1 student following")

    harness.click_until(presenter.get_by_role("button", name="Ask the class").first,
                        presenter.get_by_text("0 of 1 answered"), each_ms=30_000)
    student.locator(RADIO).first.wait_for()
    student.locator(RADIO).first.locator("label").nth(2).click()             # the second option
    _presenter_text(presenter, "1 of 1 answered")

    student.evaluate(REFUSED_WHILE_AWAY_JS)                                 # and marks the page as this one
    dead = _replica(student)
    os.killpg(replicas[dead].pid, signal.SIGKILL)
    died = time.monotonic()

    moved = _step_slider(presenter)                                         # a move while the student is cut off
    _shows(student, moved, BACK_S * 1000)
    back_s = time.monotonic() - died
    print(f"the student followed again {back_s:.1f} s after their replica died")
    assert back_s <= BACK_S
    assert student.evaluate("() => window.__sameDocument === true"), "the student's page was reloaded"
    assert _replica(student) != dead
    wait_following(student, code, WAIT_MS, who="the student")
    _presenter_text(presenter, "1 student following")
    _presenter_text(presenter, "1 of 1 answered")                           # the answer given before it died
    radios = student.locator(RADIO).first.locator('input[type="radio"]')
    harness.until(lambda: radios.nth(1).is_checked(), WAIT_MS / 1000, "the student's counted answer on their page",
                  pause=student.wait_for_timeout)                           # shown as it counts, not blank
    assert student.evaluate("() => window.__refusedWhileAway === true"), \
        "the class's radio took answers while the page had no server"

    student.locator(RADIO).first.locator("label").nth(1).click()            # an answer after: counted, once
    harness.until(lambda: radios.nth(0).is_checked(),
                  WAIT_MS / 1000, "the new answer on the student's page", pause=student.wait_for_timeout)
    _presenter_text(presenter, "1 of 1 answered")
    student.screenshot(path=SHOTS / "replica_death_student_back.png")
    for page in (presenter, student):
        assert page.locator('[data-testid="stException"]').count() == 0
        assert not page.errors, page.errors


def test_a_presenter_whose_replica_dies_presents_on_from_the_other(hall, people):
    """The presenter's page has timers of its own, so Streamlit asks the new replica for a run; the tab's
    sessionStorage brings the class back, and the students follow the next move."""
    base, replicas = hall
    presenter, student, code = _class(people, base)
    presenter.evaluate("() => { window.__sameDocument = true; }")
    dead = _replica(presenter)
    os.killpg(replicas[dead].pid, signal.SIGKILL)
    died = time.monotonic()
    harness.until(lambda: _replica(presenter) not in (None, dead), WAIT_MS / 1000, "the presenter on the other replica",
                  pause=presenter.wait_for_timeout)
    _presenter_text(presenter, f"Room code: {code}")
    _presenter_text(presenter, "1 student following")
    back_s = time.monotonic() - died
    print(f"the presenter was presenting again {back_s:.1f} s after their replica died")
    assert presenter.evaluate("() => window.__sameDocument === true"), "the presenter's page was reloaded"
    # "Room code" and "1 student following" were on the page before the death: seen at once, they do not say the
    # new replica has run it yet. A move made before it has is taken back by the resume (a presenter back in a
    # class takes the room's view first), and the presenter sees their slider go back; what counts is that the
    # next move reaches the class.
    tries = []

    def moved_and_followed() -> bool:
        value = _step_slider(presenter)
        tries.append(value)
        try:
            _shows(student, value, 20_000)
        except Exception:
            return False
        return True

    harness.until(moved_and_followed, WAIT_MS / 1000, "a presenter's move followed by the student",
                  pause=presenter.wait_for_timeout)
    print(f"followed after {len(tries)} move(s)")
    for page in (presenter, student):
        assert page.locator('[data-testid="stException"]').count() == 0
        assert not page.errors, page.errors
