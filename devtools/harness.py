"""Start the real app server and drive Chromium: shared by the browser tests, scripts/ and benchmarks/.

Plain functions, no pytest.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
TALL = 12000                    # a viewport tall enough for a whole lesson page: see save_full

# Every Plotly chart's data, as one string: a redraw with new numbers changes it.
CHART_DATA_JS = "() => JSON.stringify([...document.querySelectorAll('.js-plotly-plot')].map(el => el.data))"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def page_url(base: str, slug: str, query: str = "") -> str:
    url = base if slug == "home" else f"{base}/{slug}"
    return f"{url}?{query}" if query else url


def stream_url(base: str) -> str:
    """The websocket a page at ``base`` (http://host:port) talks to the server through."""
    return base.replace("http://", "ws://", 1) + "/_stcore/stream"


def _healthy(base: str) -> bool:
    try:
        with urllib.request.urlopen(f"{base}/_stcore/health", timeout=2) as r:
            return r.status == 200
    except OSError:
        return False


def start(*options: str, port: int | None = None, log=None, script: str = "app.py",
          env: dict[str, str] | None = None) -> tuple[subprocess.Popen, str, float]:
    """Start ``streamlit run <script>`` (the app by default) on 127.0.0.1; return (process, base URL, seconds
    until healthy).

    ``options`` are extra command-line config flags, e.g. ("--runner.postScriptGC", "false").
    The server gets its own process group so stop() takes down anything it spawned. ``env`` adds
    environment variables (e.g. ATTENTION_REDIS_URL) to the server's.
    """
    port = port or free_port()
    cmd = [sys.executable, "-m", "streamlit", "run", script, "--server.headless", "true",
           "--server.port", str(port), "--server.address", "127.0.0.1", "--browser.gatherUsageStats", "false",
           *options]
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=log or subprocess.DEVNULL, stderr=subprocess.STDOUT,
                            start_new_session=True, env={**os.environ, **(env or {})})
    base = f"http://127.0.0.1:{port}"
    deadline = t0 + 90
    while not _healthy(base):
        if proc.poll() is not None:
            raise RuntimeError(f"streamlit exited with code {proc.returncode}: {' '.join(cmd)}")
        if time.perf_counter() > deadline:
            stop(proc)
            raise TimeoutError(f"streamlit did not answer {base}/_stcore/health within 90 s")
        time.sleep(0.05)
    return proc, base, time.perf_counter() - t0


def stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


@contextmanager
def serve(*options: str, log=None, script: str = "app.py", env: dict[str, str] | None = None):
    """with serve() as (proc, base, seconds_to_healthy): ..."""
    proc, base, ready = start(*options, log=log, script=script, env=env)
    try:
        yield proc, base, ready
    finally:
        stop(proc)


def launch(playwright):
    return playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)


class Runs:
    """Counts the script runs the server reports finished to one page, and the bytes it sent. A run stopped
    early for a rerun is not counted: the run that replaces it is.

    Read from the websocket itself (ForwardMsg.script_finished), so "the run is over" does not depend
    on spinners or test ids that change between Streamlit versions.
    """

    def __init__(self, page) -> None:
        self.finished = 0
        self.bytes = 0
        self.charts = 0  # Plotly charts in the last finished run
        self._charts_now = 0
        self.sockets = 0              # websockets the page opened (one per load or reload)
        self.finished_on_latest = 0   # runs finished on the newest of them
        self.running = False          # the server said a run started and has not said it finished
        self.changed_at = time.perf_counter()  # when a run last started or finished
        self.page = page
        page.on("websocket", self._socket)

    def _socket(self, ws) -> None:
        self.sockets += 1
        self.finished_on_latest = 0
        number = self.sockets
        ws.on("framereceived", lambda payload: self._frame(payload, number))

    def _frame(self, payload, socket: int | None = None) -> None:
        from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

        if not isinstance(payload, bytes):
            return
        self.bytes += len(payload)
        msg = ForwardMsg.FromString(payload)
        kind = msg.WhichOneof("type")
        newest = socket is None or socket == self.sockets      # not a frame of a page that is being left
        if kind == "new_session":
            # Every run starts with one: the charts counted are this run's alone, whatever came before it
            # (a full run once expected 4 charts of the lab, which holds 3: not explained, docs/RELIABILITY.md).
            self._charts_now = 0
        elif kind == "session_status_changed":
            self.running = msg.session_status_changed.script_is_running
            self.changed_at = time.perf_counter()
            if self.running:
                self._charts_now = 0
        elif kind == "delta" and msg.delta.new_element.WhichOneof("type") == "plotly_chart":
            if newest:
                self._charts_now += 1
        elif kind == "script_finished":
            if msg.script_finished == ForwardMsg.FINISHED_EARLY_FOR_RERUN:
                # Stopped part-way for a rerun (a component answering during the page's first run, a button's
                # st.rerun()): the page holds only what it drew so far, and the next run is already coming.
                # Not a finished run: a test that looked then found a page without its last elements (a
                # page's "Reveal the answer" missing right after it opened, 2026-12-03).
                self._charts_now = 0
                self.changed_at = time.perf_counter()
                return
            if newest:
                self.charts = self._charts_now
            # Counted per run: a run stopped early for a rerun is followed by the next one's charts, which
            # must not add to its own (more charts expected than the page has would wait for ever).
            self._charts_now = 0
            self.finished += 1
            self.running = False
            self.changed_at = time.perf_counter()
            if socket == self.sockets:
                self.finished_on_latest += 1

    def wait(self, after: int, timeout_ms: int = 180_000, *, charts: bool = True) -> None:
        """Wait until more than ``after`` runs have finished, then (with ``charts``) until every chart has drawn.

        Generous by default: a page's first run may load a model, on a machine shared with other work.
        """
        self._until(lambda: self.finished > after, timeout_ms, "no script run finished")
        if charts:
            self.charts_drawn(timeout_ms)

    def settle(self, quiet_ms: int = 1500, timeout_ms: int = 60_000) -> None:
        """Wait until no run is going and none has started or finished for ``quiet_ms``.

        A page reruns by itself after it opens (the progress and URL components report back), and while a
        run goes Streamlit fades the elements it has not yet redrawn: a check of what the page looks like
        (colour contrast, sizes) must not look during one.

        Not a wait for a click's run: right after a click, the page may have been quiet for long enough
        already, before the browser has even sent the rerun. Wait for that run first (``wait``).
        """
        self._until(lambda: not self.running and time.perf_counter() - self.changed_at >= quiet_ms / 1000,
                    timeout_ms, f"the page did not stay quiet for {quiet_ms} ms")
        self.charts_drawn(timeout_ms)

    def open(self, url: str, timeout_ms: int = 180_000, *, runs: int = 1) -> None:
        """Load ``url`` and wait for the new page's first ``runs`` runs and its charts. A run of the page being
        left can still finish after the navigation starts (a reveal's, say): it must not count, nor its charts."""
        self._load(lambda: self.page.goto(url), runs, timeout_ms)

    def reload(self, timeout_ms: int = 180_000, *, runs: int = 1) -> None:
        """Reload the page (a new session in the same browser) and wait as open() does."""
        self._load(self.page.reload, runs, timeout_ms)

    def _load(self, navigate, runs: int, timeout_ms: int) -> None:
        sockets = self.sockets
        navigate()
        self._until(lambda: self.sockets != sockets and self.finished_on_latest >= runs, timeout_ms,
                    f"the new page's first {runs} run(s) did not finish")
        self.charts_drawn(timeout_ms)

    def charts_drawn(self, timeout_ms: int) -> None:
        """Wait until the page shows its title and every chart the last run sent, drawn; on a timeout, say
        which of those was missing (seen once in a full run, not yet explained: docs/RELIABILITY.md)."""
        try:
            self.page.wait_for_function(CHARTS_DRAWN_JS, arg=self.charts, timeout=timeout_ms)
        except Exception as err:
            seen = self.page.evaluate(CHARTS_SEEN_JS)
            raise TimeoutError(f"charts not drawn within {timeout_ms} ms: expected {self.charts} from the last "
                               f"run (of {self.finished}); the page had {seen}") from err

    def _until(self, done, timeout_ms: int, what: str) -> None:
        """Let the page's events arrive (they count runs) until ``done()``; TimeoutError("<what> within …")."""
        until(done, timeout_ms / 1000, what, every_s=0.025, pause=self.page.wait_for_timeout)


# --- Waiting on events ---------------------------------------------------------------------------------
# One function per kind of wait; a test waits on the event a pause would stand for, never on the clock:
#   the app connected and idle ............ Runs.settle (no run going, none started or finished for a while)
#   a script run finished ................. Runs.wait, Runs.open, Runs.reload
#   an element present with its value ..... Playwright's wait_for / wait_for_function; still() for "in place"
#   a chart redrawn ....................... Runs.wait (charts drawn), chart_data() compared, layout.resize
#   anything else the test can poll ....... until() (server metrics, a store that answers again)
# tests/test_waits.py fails on a fixed pause longer than 0.5 s that carries no "# no event:" comment.

def until(done, timeout_s: float, what: str, *, every_s: float = 0.05, pause=None) -> None:
    """Poll ``done()`` every ``every_s`` until it is true; TimeoutError("<what> within <timeout_s> s").

    ``pause(ms)`` replaces time.sleep where the waiting must let events in (a Playwright page's
    wait_for_timeout delivers its websocket frames)."""
    deadline = time.perf_counter() + timeout_s
    while not done():
        if time.perf_counter() > deadline:
            raise TimeoutError(f"{what} within {timeout_s * 1000:.0f} ms")
        if pause is None:
            time.sleep(every_s)
        else:
            pause(every_s * 1000)


# An element's box, rounded to whole pixels (null while it is missing).
_BOX_JS = """el => { const r = el && el.getBoundingClientRect();
  return r ? [Math.round(r.left), Math.round(r.top), Math.round(r.width), Math.round(r.height)] : null; }"""


def still(page, locator, *, polls: int = 3, every_ms: int = 150, timeout_ms: int = 20_000) -> None:
    """Wait until ``locator``'s element is present and its box has not moved or resized over ``polls``
    looks ``every_ms`` apart: what grows above it (charts drawing in) has stopped growing."""
    locator.wait_for(state="attached", timeout=timeout_ms)
    seen: list = []

    def steady() -> bool:
        seen.append(locator.evaluate(_BOX_JS))
        return len(seen) > polls and seen[-1] is not None and all(box == seen[-1] for box in seen[-polls - 1:])

    until(steady, timeout_ms / 1000, "the element did not keep still", every_s=every_ms / 1000,
          pause=page.wait_for_timeout)


# The page shows its title and as many chart containers as the run sent, and every visible one holds
# a Plotly div with its data (plotly.js loads lazily, after the script has finished).
CHARTS_DRAWN_JS = """expected => {
  const boxes = [...document.querySelectorAll('[data-testid=stMain] [data-testid=stPlotlyChart]')];
  return !!document.querySelector('[data-testid=stMain] h1') && boxes.length >= expected
    && boxes.filter(c => c.offsetParent !== null).every(c => {
         const el = c.querySelector('.js-plotly-plot'); return el && el.data; });
}"""


CHARTS_SEEN_JS = """() => {
  const boxes = [...document.querySelectorAll('[data-testid=stMain] [data-testid=stPlotlyChart]')];
  const shown = boxes.filter(c => c.offsetParent !== null);
  return {title: !!document.querySelector('[data-testid=stMain] h1'), boxes: boxes.length, visible: shown.length,
          undrawn: shown.filter(c => !(c.querySelector('.js-plotly-plot') || {}).data).length,
          exceptions: document.querySelectorAll('[data-testid=stException]').length};
}"""


def chart_data(page) -> str:
    return page.evaluate(CHART_DATA_JS)


# Streamlit 1.67's slider is a react-aria range input (no role="slider" thumb): focus it, press an arrow.
SLIDER_INPUT = '[data-testid="stMain"] [data-testid="stSlider"] input[type="range"]'


def move_first_control(page) -> str | None:
    """Move the page's first slider one step (keyboard), or else flip its first toggle/checkbox.

    A slider already at its maximum steps left instead, so the move always changes the value.
    Returns what was moved ("slider", "toggle"), or None when the page has neither.
    """
    controls = f'{SLIDER_INPUT}, [data-testid="stMain"] [data-testid="stCheckbox"] label'
    try:                                                  # the DOM can trail the finished script on a busy machine
        page.wait_for_selector(controls, timeout=30_000)
    except Exception:
        return None
    slider = page.locator(SLIDER_INPUT)
    if slider.count():
        thumb = slider.first
        at_max = float(thumb.input_value()) >= float(thumb.get_attribute("max"))
        thumb.focus()
        page.keyboard.press("ArrowLeft" if at_max else "ArrowRight")
        return "slider"
    toggle = page.locator('[data-testid="stMain"] [data-testid="stCheckbox"] label')
    if toggle.count():
        toggle.first.click()
        return "toggle"
    return None


# Nothing still loading or moving: no skeleton, no run indicator, the fonts in, no finite CSS transition or
# animation playing (Streamlit fades stale elements in and out; infinite ones, like a spinner, never end).
SETTLED_JS = """() => !document.querySelector('[data-testid=stSkeleton], [data-testid=stStatusWidget]')
  && document.fonts.status === 'loaded'
  && document.getAnimations().every(a => a.playState !== 'running'
                                      || a.effect.getComputedTiming().endTime === Infinity)"""


def settle(page, timeout_ms: int = 90000) -> None:
    """Wait until the script run is over, nothing in view is still a loading skeleton or mid-transition
    (Streamlit renders elements below the fold lazily, so only the grown viewport shows them all), and the
    content's box has stopped growing (charts drawing in)."""
    page.wait_for_function(SETTLED_JS, timeout=timeout_ms)
    still(page, page.locator("[data-testid=stMainBlockContainer]"), timeout_ms=timeout_ms)
    page.wait_for_function(SETTLED_JS, timeout=timeout_ms)


def content_height(page) -> int:
    """Bottom edge of the page's content block, in CSS pixels."""
    return int(page.evaluate(
        "() => document.querySelector('[data-testid=stMainBlockContainer]').getBoundingClientRect().bottom"
    ))


def save_full(page, path: Path, width: int) -> None:
    """Streamlit scrolls inside its main block and renders below-the-fold elements lazily, so the page
    is opened in a very tall viewport; the shot is clipped to the content's height."""
    settle(page)
    height = min(content_height(page) + 40, TALL)
    page.screenshot(path=str(path), clip={"x": 0, "y": 0, "width": width, "height": height})


def rss_kb(pid: int) -> dict[str, int]:
    """VmRSS and VmHWM (peak) of a process, in kB, from /proc (psutil is not available here)."""
    out = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            out[key] = int(value.split()[0])
    return out


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process so far, in seconds (/proc/<pid>/stat)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def click_until(button, expected, tries: int = 3, each_ms: int = 20_000) -> None:
    """Click ``button`` until ``expected`` (a locator) shows, at most ``tries`` times.

    A click that lands while the page's first runs are still settling (the progress component reports
    the browser's saved progress with a rerun of its own just after load) can be coalesced away by
    Streamlit; a person would click again, and so does this.
    """
    for attempt in range(tries):
        button.click()
        try:
            expected.wait_for(timeout=each_ms)
            return
        except Exception:
            if attempt == tries - 1:
                raise
