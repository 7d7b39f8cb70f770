"""deploy/haproxy.cfg as it is, with Debian's haproxy, in front of two app processes sharing one redis-server.

The same file the compose deployment mounts: devtools/services.py only sets the addresses it reads from the
environment. HAProxy logs one line per request (its ``option logasap``), naming the replica that served
it, so the test reads from the log which replica each page load and each websocket went to.
"""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest

from devtools import harness, services
from tests.browser.conftest import failed, wait_following

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser")]

ARTIFACTS = harness.ROOT / "artifacts"
SHOTS = ARTIFACTS / "screenshots"
# e.g. 127.0.0.1:58102 [01/Dec/2026:12:06:11.265] lecture_hall replicas/app2 0/0/0/15/+15 200 ... "GET / HTTP/1.1"
LOG_LINE = re.compile(r'^(?P<client>\S+) \[[^]]+\] lecture_hall replicas/(?P<server>\S+) .*"(?P<method>[A-Z]+) '
                      r'(?P<path>\S+) HTTP')


class Hall:
    """One redis-server, two app servers on it, and haproxy in front; ``requests()`` parses haproxy's log."""

    def __init__(self, log_path: Path, base: str, redis: services.RedisServer, apps: list) -> None:
        self.log_path, self.base, self.redis, self.apps = log_path, base, redis, apps

    def requests(self) -> list[dict[str, str]]:
        lines = self.log_path.read_text(encoding="utf-8", errors="replace").splitlines()
        return [m.groupdict() for m in map(LOG_LINE.match, lines) if m]

    def streams(self) -> list[str]:
        """The replica each websocket (/_stcore/stream) went to, in order."""
        return [r["server"] for r in self.requests() if r["path"].startswith("/_stcore/stream")]


@pytest.fixture(scope="module")
def hall():
    services.require(services.REDIS_SERVER, services.HAPROXY)
    ARTIFACTS.mkdir(exist_ok=True)
    log_path = ARTIFACTS / "haproxy-hall.log"
    app_log = open(ARTIFACTS / "hall-apps.log", "w")
    with services.redis_server() as redis, open(log_path, "w") as hap_log:
        env = {"ATTENTION_REDIS_URL": redis.url}
        apps = [harness.start(log=app_log, env=env), harness.start(log=app_log, env=env)]
        try:
            ports = [int(base.rsplit(":", 1)[1]) for _, base, _ in apps]
            with services.haproxy(ports, log=hap_log) as (base, _):
                yield Hall(log_path, base, redis, apps)
        finally:
            for proc, _, _ in apps:
                harness.stop(proc)
            app_log.close()


def _context(browser):
    context = browser.new_context(viewport={"width": 1280, "height": 4000})
    context.set_default_timeout(120_000)             # a machine shared with other work: be patient
    page = context.new_page()
    return context, page, harness.Runs(page)


def _server_cookie(context) -> str | None:
    return next((c["value"] for c in context.cookies() if c["name"] == "SERVERID"), None)


def _finished(runs: harness.Runs, after: int, timeout_s: float = 120) -> None:
    """Wait until a script run (or a fragment's) after ``after`` has finished: this test is about which
    replica runs it, not about the charts it draws."""
    deadline = time.monotonic() + timeout_s
    while runs.finished <= after:
        assert time.monotonic() < deadline, f"no run finished within {timeout_s} s"
        runs.page.wait_for_timeout(25)


def _reload(runs: harness.Runs, timeout_s: float = 120) -> None:
    """Reload, and wait for a run on the new page's own websocket (a late run on the old one, such as
    the progress component's, must not count)."""
    sockets = runs.sockets
    runs.page.reload()
    deadline = time.monotonic() + timeout_s
    while runs.sockets <= sockets or runs.finished_on_latest == 0:
        assert time.monotonic() < deadline, f"no run on a new websocket within {timeout_s} s"
        runs.page.wait_for_timeout(25)


def _wait_for_streams(hall: Hall, n: int, timeout_s: float = 10) -> list[str]:
    deadline = time.monotonic() + timeout_s
    while len(streams := hall.streams()) < n and time.monotonic() < deadline:
        time.sleep(0.1)
    return streams


def test_a_browser_session_stays_on_its_replica_across_reruns_and_reloads(hall, browser):
    before = len(hall.streams())
    context, page, runs = _context(browser)
    try:
        page.goto(harness.page_url(hall.base, "sqrt_dk"))
        _finished(runs, 0)
        replica = _server_cookie(context)
        assert replica in ("app1", "app2")                          # haproxy set the sticky cookie
        slider = page.locator(harness.SLIDER_INPUT).first
        for _ in range(3):                                          # reruns over the same websocket
            done = runs.finished
            slider.focus()
            page.keyboard.press("ArrowRight")
            _finished(runs, done)
        for _ in range(2):                                          # reloads: new page load, new websocket
            _reload(runs)
        assert _server_cookie(context) == replica
        streams = _wait_for_streams(hall, before + 3)[before:]
        assert len(streams) == 3, hall.log_path.read_text()         # the first load and two reloads
        assert set(streams) == {replica}
        loads = [r["server"] for r in hall.requests() if r["path"].split("?")[0] == "/sqrt_dk"]
        assert loads and set(loads) == {replica}
    finally:
        context.close()


def test_a_second_learner_lands_on_the_other_replica_and_stays_there(hall, browser):
    first, first_page, first_runs = _context(browser)
    second, second_page, second_runs = _context(browser)
    try:
        first_page.goto(harness.page_url(hall.base, "projection"))
        _finished(first_runs, 0)
        # leastconn: the first learner's open websocket makes its replica the busier one.
        before = len(hall.streams())
        second_page.goto(harness.page_url(hall.base, "projection"))
        _finished(second_runs, 0)
        a, b = _server_cookie(first), _server_cookie(second)
        assert {a, b} == {"app1", "app2"}
        _reload(second_runs)
        streams = _wait_for_streams(hall, before + 2)[before:]
        assert streams == [b, b]
    finally:
        first.close()
        second.close()


# --- a class across replicas ------------------------------------------------------------------------------

FOLLOW_TIMEOUT_MS = 45_000            # "about a second" on a quiet machine; generous for one shared with other work
SLIDER = harness.SLIDER_INPUT


class Person:
    """One browser context and page: a presenter or a student, with the page's uncaught errors."""

    def __init__(self, browser, width: int = 1280, height: int = 2400) -> None:
        self.context = browser.new_context(viewport={"width": width, "height": height}, color_scheme="light")
        self.context.set_default_timeout(120_000)
        self.page = self.context.new_page()
        self.runs = harness.Runs(self.page)          # from the start: it listens for websockets as they open
        self.errors: list[str] = []
        self.page.on("pageerror", lambda err: self.errors.append(str(err)))

    def no_exception(self) -> None:
        assert self.page.locator('[data-testid="stException"]').count() == 0
        assert not self.errors, self.errors

    def slider(self) -> str:
        return self.page.locator(SLIDER).first.input_value()

    def wait_slider(self, value: str) -> None:
        self.page.wait_for_function(
            f"v => {{ const s = document.querySelector('{SLIDER}'); return s && s.value === v; }}",
            arg=value, timeout=FOLLOW_TIMEOUT_MS)

    def step_slider(self) -> str:
        """Move the first slider one step right; returns its new value once the page shows it."""
        before = self.slider()
        self.page.locator(SLIDER).first.focus()
        self.page.keyboard.press("ArrowRight")
        self.page.wait_for_function(f"v => document.querySelector('{SLIDER}').value !== v", arg=before)
        return self.slider()

    def close(self) -> None:
        self.context.close()


def _start_class(presenter: Person, base: str) -> str:
    pg = presenter.page
    pg.goto(base + "/")
    harness.click_until(pg.get_by_role("button", name="Start a class"),
                        pg.get_by_text(re.compile(r"Room code: [A-Z2-9]{6}")), each_ms=30_000)
    pg.get_by_text("0 students following").wait_for(timeout=30_000)
    return re.search(r"Room code: ([A-Z2-9]{6})", pg.inner_text("body")).group(1)


def _to_sqrt_dk(presenter: Person, students: list[Person], code: str) -> None:
    presenter.page.locator('[data-testid="stSidebarNav"] a', has_text="Why divide by").click()
    presenter.page.wait_for_url(re.compile(r"/sqrt_dk"), timeout=30_000)
    presenter.page.locator(SLIDER).first.wait_for()
    for s in students:
        s.page.wait_for_url(re.compile(r"/sqrt_dk\?.*room=" + code), timeout=FOLLOW_TIMEOUT_MS * 2)
        s.page.locator(SLIDER).first.wait_for()


@pytest.fixture
def people(browser, request):
    made: list[Person] = []

    def make(**size) -> Person:
        made.append(Person(browser, **size))
        return made[-1]

    yield make
    for i, p in enumerate(made):
        if failed(request):                                         # what each person saw, for the log
            try:
                harness.save_full(p.page, SHOTS / f"hall_fail_{request.node.name[:40]}_{i}.png", 1280)
            except Exception as err:                                # a page that broke: the failure says more
                print(f"no screenshot of person {i}: {err}")
        p.close()


def test_a_presenter_on_one_replica_leads_a_student_on_the_other(hall, people):
    (_, base_a, _), (_, base_b, _) = hall.apps
    presenter, student = people(), people(width=390)
    code = _start_class(presenter, base_a)                          # server A
    student.page.goto(f"{base_b}/?room={code}")                     # server B: only Redis links them
    wait_following(student.page, code, 60_000, who="the student")
    presenter.page.get_by_text("1 student following").wait_for(timeout=30_000)
    _to_sqrt_dk(presenter, [student], code)
    student.wait_slider(presenter.step_slider())
    presenter.no_exception()
    student.no_exception()


def test_a_class_through_haproxy_works_with_students_on_both_replicas(hall, people):
    presenter = people()
    code = _start_class(presenter, hall.base)
    students = []
    for _ in range(3):
        s = people(width=390)
        s.page.goto(f"{hall.base}/?room={code}")
        wait_following(s.page, code, 60_000, who="a student")
        students.append(s)
    replicas = {_server_cookie(p.context) for p in [presenter, *students]}
    assert replicas == {"app1", "app2"}                             # leastconn spread them
    presenter.page.get_by_text("3 students following").wait_for(timeout=30_000)
    _to_sqrt_dk(presenter, students, code)
    moved = presenter.step_slider()
    for s in students:
        s.wait_slider(moved)
        s.no_exception()
    assert {_server_cookie(p.context) for p in [presenter, *students]} == replicas    # nobody moved replica


def test_redis_stopping_mid_class_keeps_lessons_working_and_says_so(hall, people):
    """Redis hangs (SIGSTOP: the keys survive) and comes back: the class resumes. Then Redis restarts
    empty (no persistence): every one is told the class was lost. No page ever shows an exception."""
    import os
    import signal

    (_, base_a, _), (_, base_b, _) = hall.apps
    presenter, student = people(), people(width=390)
    code = _start_class(presenter, base_a)
    student.page.goto(f"{base_b}/?room={code}")
    wait_following(student.page, code, 60_000, who="the student")
    _to_sqrt_dk(presenter, [student], code)
    student.wait_slider(presenter.step_slider())

    os.kill(hall.redis.proc.pid, signal.SIGSTOP)                    # a hung Redis: every call times out
    try:
        student.page.get_by_text("Reconnecting to the class…").wait_for(timeout=FOLLOW_TIMEOUT_MS)
        presenter.page.get_by_text("Reconnecting to the class…").wait_for(timeout=FOLLOW_TIMEOUT_MS)
        SHOTS.mkdir(parents=True, exist_ok=True)
        student.page.screenshot(path=SHOTS / "hall_student_reconnecting.png")
        presenter.page.screenshot(path=SHOTS / "hall_presenter_reconnecting.png")
        done = student.runs.finished                                # the lesson itself keeps working
        student.step_slider()
        _finished(student.runs, done, timeout_s=60)
        student.no_exception()
    finally:
        os.kill(hall.redis.proc.pid, signal.SIGCONT)
    wait_following(student.page, code, FOLLOW_TIMEOUT_MS, who="the student")
    presenter.page.get_by_text("1 student following").wait_for(timeout=FOLLOW_TIMEOUT_MS)
    student.wait_slider(presenter.step_slider())                    # the keys survived: the class resumes

    hall.redis.stop()                                               # gone...
    student.page.get_by_text("Reconnecting to the class…").wait_for(timeout=FOLLOW_TIMEOUT_MS)
    hall.redis.start()                                              # ...and back empty
    student.page.get_by_text("the class itself was lost meanwhile").wait_for(timeout=FOLLOW_TIMEOUT_MS)
    presenter.page.get_by_text("start a new class and give your students").wait_for(timeout=FOLLOW_TIMEOUT_MS)
    presenter.page.get_by_role("button", name="Start a class").wait_for(timeout=FOLLOW_TIMEOUT_MS)
    student.page.screenshot(path=SHOTS / "hall_student_class_lost.png")
    presenter.page.screenshot(path=SHOTS / "hall_presenter_class_lost.png")
    presenter.no_exception()
    student.no_exception()
