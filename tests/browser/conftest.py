"""Fixtures for the real-browser tests: one server and one Chromium per test session (per xdist worker)."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from devtools import harness

SCREENSHOTS = harness.ROOT / "artifacts" / "screenshots"


# The server believes X-Forwarded-For from 127.0.0.1, as the shipped setup believes HAProxy's; each browser
# context says an address of its own (``browser`` below), as each device in a class has one. The classroom's
# limits per address (docs/SECURITY.md: 3 live classes, 10 an hour) then count one test's contexts, not the suite.
TRUSTED = {"ATTENTION_TRUSTED_PROXIES": "127.0.0.1"}


def server_log() -> Path:
    """This worker's app server log (the ``server`` fixture's)."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")             # one log per worker: two would overwrite one
    return harness.ROOT / "artifacts" / f"browser-server{'-' + worker if worker else ''}.log"


@pytest.fixture(scope="session")
def server():
    """The real app: ``streamlit run app.py`` on a free port; yields its base URL, kills its process group."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    log = open(server_log(), "w")
    with harness.serve(log=log, env=TRUSTED) as (_, base, _):
        yield base
    log.close()


@pytest.fixture(scope="session")
def browser():
    if not Path(harness.CHROMIUM).exists():
        message = f"{harness.CHROMIUM} is missing: install Debian's chromium (scripts/test.sh does)"
        if os.environ.get("CI"):
            pytest.fail(message)  # on CI the browser tests must run, never skip silently
        pytest.skip(message)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = harness.launch(p)
        yield Devices(b)
        b.close()


class Devices:
    """The browser, each new context with its own client address (X-Forwarded-For, 198.18.0.0/15: a range
    kept for tests), as each device in a class has its own."""

    def __init__(self, browser) -> None:
        self._browser, self._made = browser, 0

    def new_context(self, **options):
        self._made += 1
        address = f"198.18.{self._made // 250 % 256}.{self._made % 250 + 1}"
        headers = {"X-Forwarded-For": address, **options.pop("extra_http_headers", {})}
        return self._browser.new_context(extra_http_headers=headers, **options)

    def __getattr__(self, name: str):
        return getattr(self._browser, name)


class Problems:
    """Console errors, uncaught page errors and alert() dialogs seen by one page, and its script runs."""

    def __init__(self, page) -> None:
        self.errors: list[str] = []
        self.dialogs: list[str] = []
        self.runs = harness.Runs(page)


# Streamlit issue #7074 (open, confirmed): opened directly on a page's URL, the frontend first probes
# <page>/_stcore/health and <page>/_stcore/host-config, gets 404, then falls back to the server root,
# which answers. Chromium logs each 404 as a console error. The frontend makes these requests, not the
# app (docs/SECURITY.md); that and only that is ignored here.
_BENIGN_404 = re.compile(r"/[^/?#]+/_stcore/(health|host-config)$")


def _benign(url: str) -> bool:
    return bool(_BENIGN_404.search(url))


def device(browser, width: int, height: int, scheme: str = "light", wait_ms: int = 120_000, **options):
    """One more person's browser for the classroom tests: a context of that size and theme and its page, which
    waits up to ``wait_ms`` by default and keeps its uncaught errors in ``page.errors``. Returns (context, page);
    the caller closes the context."""
    context = browser.new_context(viewport={"width": width, "height": height}, color_scheme=scheme, **options)
    page = context.new_page()
    page.set_default_timeout(wait_ms)
    page.errors = []
    page.on("pageerror", lambda err: page.errors.append(str(err)))
    page.on("crash", lambda _: page.errors.append("the page crashed"))
    page.console_errors = []                        # kept for a failure's report only, at most 20
    page.on("console", lambda m: m.type == "error" and len(page.console_errors) < 20
            and page.console_errors.append(m.text[:200]))
    return context, page


@pytest.fixture
def devices(browser, request):
    """Make more people's browsers in one test: ``devices(width, height, **context options)`` returns a page (light
    theme, waits up to 120 s); every context it made is closed after the test, once a failed test has kept a
    picture of each page and its address (artifacts/screenshots/<test>_<n>.png)."""
    made = []

    def make(width: int, height: int, **options):
        context, page = device(browser, width, height, "light", 120_000, **options)
        made.append((context, page))
        return page

    yield make
    for i, (context, page) in enumerate(made):
        if failed(request):
            try:
                SCREENSHOTS.mkdir(parents=True, exist_ok=True)
                shown = page.evaluate("() => document.body ? document.body.innerText.length : -1")
                print(f"person {i} at {page.url}: {shown} characters shown; page errors {page.errors[:3]}; "
                      f"console errors {page.console_errors[:5]}")
                page.screenshot(path=str(SCREENSHOTS / f"{request.node.name[:60]}_{i}.png"), full_page=True)
            except Exception as err:                    # a page that broke: the failure says more
                print(f"no screenshot of person {i}: {err}")
        context.close()


def wait_following(page, code: str, timeout_ms: int = 120_000, who: str = "student") -> None:
    """Wait until ``page`` shows "Following class <code>"; on a timeout, fail with what it showed instead (its
    address, its class bar, the start of its lesson) and keep a screenshot: such a wait has failed now and
    then without a trace (docs/RELIABILITY.md)."""
    try:
        page.get_by_text(f"Following class {code}").wait_for(timeout=timeout_ms)
    except Exception as err:
        bar = page.locator(".st-key-_class_bar")
        main = page.locator('[data-testid="stMain"]')
        shown = bar.first.inner_text() if bar.count() else "(no class bar)"
        lesson = main.first.inner_text()[:500] if main.count() else "(no main)"
        name = re.sub(r"\W+", "_", who)
        try:
            SCREENSHOTS.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(SCREENSHOTS / f"not_following_{name}.png"), full_page=True)
        except Exception:
            pass                                      # the message below matters more than the picture
        raise AssertionError(f"{who} did not show 'Following class {code}' within {timeout_ms} ms at {page.url}; "
                             f"class bar: {shown!r}; page: {lesson!r}") from err


@pytest.fixture
def page(browser):
    """A fresh browser context and page; yields (page, problems)."""
    # Tall: Streamlit renders elements below the fold lazily (as skeletons), so a control or chart far
    # down a long lesson page only exists in the DOM once it is in view.
    context = browser.new_context(viewport={"width": 1400, "height": 6000}, color_scheme="light")
    pg = context.new_page()
    problems = Problems(pg)

    def on_console(msg):
        if msg.type == "error" and not _benign(msg.location.get("url", "")):
            problems.errors.append(f"console: {msg.text} @ {msg.location.get('url', '')}")

    def on_dialog(dialog):
        problems.dialogs.append(f"{dialog.type}: {dialog.message}")
        dialog.dismiss()

    pg.on("console", on_console)
    pg.on("pageerror", lambda err: problems.errors.append(f"pageerror: {err}"))
    pg.on("dialog", on_dialog)
    yield pg, problems
    context.close()


BROWSER_RERUNS = 1     # one more try for a real-browser test that failed; each is listed as RERUN in the summary


def pytest_collection_modifyitems(config, items):
    """A real-browser test that fails gets one more try (pytest-rerunfailures). Two real browsers, app servers,
    HAProxy and Redis share CI's two cores with the rest of the suite, and a wait there now and then outlasts
    its bound; the first try's failure still keeps its screenshots and log lines, and the summary names it.
    ``-p no:rerunfailures`` turns it off (``devtools/flakes.py`` does, to count every failure)."""
    if not config.pluginmanager.hasplugin("rerunfailures"):
        return
    for item in items:
        if item.get_closest_marker("browser") and not item.get_closest_marker("flaky"):
            item.add_marker(pytest.mark.flaky(reruns=BROWSER_RERUNS))


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(item, call):
    """Keep each phase's report on the test item, so a fixture can tell at teardown that its test failed."""
    report = yield
    setattr(item, f"report_{report.when}", report)
    return report


def failed(request) -> bool:
    report = getattr(request.node, "report_call", None)
    return bool(report and report.failed)
