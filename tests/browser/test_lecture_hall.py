"""deploy/haproxy.cfg as it is, with Debian's haproxy, in front of two app processes sharing one redis-server.

The same file the compose deployment mounts: tests/services.py only sets the addresses it reads from the
environment. HAProxy logs one line per request (its ``option logasap``), naming the replica that served
it, so the test reads from the log which replica each page load and each websocket went to.
"""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest

from tests import services
from tests.browser import harness

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser")]

ARTIFACTS = harness.ROOT / "artifacts"
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
            with services.haproxy(ports, log=hap_log) as base:
                yield Hall(log_path, base, redis, apps)
        finally:
            for proc, _, _ in apps:
                harness.stop(proc)
            app_log.close()


def _context(browser):
    context = browser.new_context(viewport={"width": 1280, "height": 4000})
    page = context.new_page()
    return context, page, harness.Runs(page)


def _server_cookie(context) -> str | None:
    return next((c["value"] for c in context.cookies() if c["name"] == "SERVERID"), None)


def _wait_for_streams(hall: Hall, n: int, timeout_s: float = 10) -> list[str]:
    deadline = time.monotonic() + timeout_s
    while len(streams := hall.streams()) < n and time.monotonic() < deadline:
        time.sleep(0.1)
    return streams


def test_a_browser_session_stays_on_its_replica_across_reruns_and_reloads(hall, browser):
    before = len(hall.streams())
    context, page, runs = _context(browser)
    try:
        runs.open(harness.page_url(hall.base, "sqrt_dk"))
        replica = _server_cookie(context)
        assert replica in ("app1", "app2")                          # haproxy set the sticky cookie
        for _ in range(3):                                          # reruns over the same websocket
            done = runs.finished
            assert harness.move_first_control(page) == "slider"
            runs.wait(done)
        for _ in range(2):                                          # reloads: new page load, new websocket
            done = runs.finished
            page.reload()
            runs.wait(done)
        assert _server_cookie(context) == replica
        streams = _wait_for_streams(hall, before + 3)[before:]
        assert len(streams) == 3, streams                           # the first load and two reloads
        assert set(streams) == {replica}
        loads = [r["server"] for r in hall.requests() if r["path"].split("?")[0] == "/sqrt_dk"]
        assert loads and set(loads) == {replica}
    finally:
        context.close()


def test_a_second_learner_lands_on_the_other_replica_and_stays_there(hall, browser):
    first, _, first_runs = _context(browser)
    second, second_page, second_runs = _context(browser)
    try:
        first_runs.open(harness.page_url(hall.base, "projection"))
        # leastconn: the first learner's open websocket makes its replica the busier one.
        before = len(hall.streams())
        second_runs.open(harness.page_url(hall.base, "projection"))
        a, b = _server_cookie(first), _server_cookie(second)
        assert {a, b} == {"app1", "app2"}
        done = second_runs.finished
        second_page.reload()
        second_runs.wait(done)
        streams = _wait_for_streams(hall, before + 2)[before:]
        assert streams == [b, b]
    finally:
        first.close()
        second.close()
