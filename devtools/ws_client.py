"""One browser tab as far as the server can tell: a websocket client that speaks Streamlit's protocol the
way the frontend does (keeps the page, the query string and the widget ids the server sends, and fires each
fragment's run_every timer). Shared by benchmarks/classroom.py, benchmarks/lecture_hall.py,
tests/browser/test_follow_sections.py and tests/test_classroom_crowd.py.
"""

from __future__ import annotations

import asyncio
import json
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

FINISHED = ForwardMsg.FINISHED_SUCCESSFULLY
FINISHED_FRAGMENT = ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY


@dataclass
class Widget:
    id: str
    fragment_id: str
    proto: object


@dataclass
class Client:
    """One browser tab, as far as the server can tell."""

    ws_url: str
    name: str
    query: str = ""
    page_hash: str = ""
    widgets: dict[str, Widget] = field(default_factory=dict)      # user key → widget
    markdown: list[str] = field(default_factory=list)             # every markdown body seen
    alerts: list[str] = field(default_factory=list)               # every st.warning/info/success/error body seen
    finished: list[tuple[float, int]] = field(default_factory=list)  # (time, status) of each finished run
    drawn: list[tuple[float, str, tuple]] = field(default_factory=list)  # (time, key, value) of each widget drawn
    errors: list[str] = field(default_factory=list)
    navigated: list[tuple[float, str]] = field(default_factory=list)  # (time, page hash) of each navigation
    running: bool = False
    news: asyncio.Event = field(default_factory=asyncio.Event)    # set at each message: what ``until`` waits on
    headers: dict[str, str] = field(default_factory=dict)          # sent with the websocket's upgrade request
    registered: set[str] = field(default_factory=set)   # run_every fragments the running full run registered
    source: str | None = None                           # a loopback source address (e.g. "127.0.0.7"): one client
                                                        # address per tab, as the server sees it (TCP peer)

    async def open(self) -> None:
        import websockets

        self.ws = await websockets.connect(self.ws_url, subprotocols=["streamlit"], max_size=None,
                                           open_timeout=60, ping_interval=None,
                                           additional_headers=self.headers or None,
                                           **({"local_addr": (self.source, 0)} if self.source else {}))
        self.timers: dict[str, asyncio.Task] = {}
        self.reader = asyncio.create_task(self._read())

    async def close(self) -> None:
        for task in [*self.timers.values(), self.reader]:
            task.cancel()
        await self.ws.close()

    async def send(self, states: list | None = None, fragment_id: str = "", page_name: str | None = None,
                   auto: bool = False) -> None:
        if page_name is not None:
            # A page change: the frontend stops every fragment timer first (App.onPageChange, cleanupAutoReruns).
            # A tick sent after it with the old page's hash would be folded by the server into the pending run
            # (ScriptRequests keeps the newer request's page) and take the tab back to the page it left.
            for task in self.timers.values():
                task.cancel()
            self.timers.clear()
        msg = BackMsg()
        rerun = msg.rerun_script
        rerun.query_string = self.query
        rerun.page_script_hash = "" if page_name is not None else self.page_hash
        rerun.page_name = page_name or ""
        rerun.fragment_id = fragment_id
        rerun.is_auto_rerun = auto
        for state in states or []:
            rerun.widget_states.widgets.append(state)
        # A timer's tick is not waited on: the server drops a tick for a fragment that a run it is still sending
        # has just removed, without a reply, and the tab would be "running" for ever.
        self.running = self.running or not auto
        await self.ws.send(msg.SerializeToString())

    async def run(self, *args, timeout: float = 60, **kwargs) -> float:
        """Send a rerun and wait for its script_finished; returns the seconds it took."""
        before = len(self.finished)
        t0 = time.perf_counter()
        await self.send(*args, **kwargs)
        await self.until(lambda: len(self.finished) > before, timeout)
        return time.perf_counter() - t0

    async def until(self, condition, timeout: float = 60) -> None:
        """Wait until ``condition()`` holds, looking again at each message this tab receives (and at least
        every 0.25 s), so that hundreds of tabs waiting cost nothing between messages."""
        deadline = time.perf_counter() + timeout
        while True:
            self.news.clear()
            if condition():
                return
            left = deadline - time.perf_counter()
            if left <= 0:
                raise TimeoutError(f"{self.name}: timed out ({self.state()})")
            try:
                await asyncio.wait_for(self.news.wait(), min(left, 0.25))
            except TimeoutError:
                pass

    def state(self) -> str:
        """What this tab holds, for a timeout's message: its page, whether it thinks a run is going, its last
        runs' statuses, its timers and how many widgets it has."""
        last = [status for _, status in self.finished[-3:]]
        timers = sorted(getattr(self, "timers", {}))
        return (f"page {self.page_hash[:8] or '(none)'}, running {self.running}, {len(self.finished)} runs "
                f"finished (last statuses {last}), timers {[t[:8] for t in timers]}, {len(self.widgets)} widgets, "
                f"last alerts {[a[:60] for a in self.alerts[-2:]]}")

    def _element(self, delta) -> None:
        el = delta.new_element
        kind = el.WhichOneof("type")
        if kind == "exception":
            self.errors.append(f"{self.name}: exception: {el.exception.message[:120]}")
        elif kind == "markdown":
            self.markdown.append(el.markdown.body)
        elif kind == "alert":
            self.alerts.append(el.alert.body)
        elif kind is not None:
            proto = getattr(el, kind)
            wid = getattr(proto, "id", "")
            if isinstance(wid, str) and wid.startswith("$$ID-"):
                key = wid.split("-", 2)[2] if wid.count("-") >= 2 else wid
                self.widgets[key] = Widget(wid, delta.fragment_id, proto)
                value = getattr(proto, "value", None)
                self.drawn.append((time.perf_counter(), key, tuple(value) if hasattr(value, "__len__")
                                   and not isinstance(value, str) else (value,)))

    def showed(self, key: str, value: tuple | None, since: float) -> tuple[float, int] | None:
        """The first run (time, status) that finished after widget ``key`` was drawn at ``value`` (drawn
        after ``since``): when this tab shows it, whether a full run or a fragment's drew it. With ``value``
        None, at any value (the tab's own move: the server draws its widget without echoing the value)."""
        drawn = next((t for t, k, v in self.drawn if t >= since and k == key and value in (None, v)), None)
        if drawn is None:
            return None
        return next(((t, status) for t, status in self.finished if t >= drawn
                     and status in (FINISHED, FINISHED_FRAGMENT)), None)

    async def _tick(self, fragment_id: str, interval: float) -> None:
        while True:
            # no event: a fragment's run_every is the frontend's own clock, and this client plays that clock
            await asyncio.sleep(interval)
            if not self.running:                         # the frontend does not stack ticks on a running script
                await self.send(fragment_id=fragment_id, auto=True)

    def _drop_stale_timers(self) -> None:
        """After a full run, stop the timers of fragments that run did not register again, as the frontend
        does: the server drops a rerun of a fragment it no longer has without a word (no script_finished,
        AppSession.request_rerun), so a stale tick would leave this tab "running" for ever.
        A fragment's own run keeps the set: only a full run says which fragments exist."""
        for fid in [f for f in self.timers if f not in self.registered]:
            self.timers.pop(fid).cancel()
        self.registered = set()

    async def _read(self) -> None:
        try:
            while True:
                msg = ForwardMsg.FromString(await self.ws.recv())
                self.news.set()
                kind = msg.WhichOneof("type")
                if kind == "delta":
                    self._element(msg.delta)
                elif kind == "navigation":
                    self.page_hash = msg.navigation.page_script_hash
                    self.navigated.append((time.perf_counter(), self.page_hash))
                elif kind == "page_info_changed":
                    self.query = msg.page_info_changed.query_string
                elif kind == "auto_rerun":
                    fid, interval = msg.auto_rerun.fragment_id, msg.auto_rerun.interval
                    self.registered.add(fid)
                    if fid not in self.timers:
                        self.timers[fid] = asyncio.create_task(self._tick(fid, interval))
                elif kind == "script_finished":
                    self.running = False
                    if msg.script_finished == FINISHED:
                        self._drop_stale_timers()
                    self.finished.append((time.perf_counter(), msg.script_finished))
                    if msg.script_finished == ForwardMsg.FINISHED_WITH_COMPILE_ERROR:
                        self.errors.append(f"{self.name}: compile error")
        except asyncio.CancelledError:
            raise
        except Exception as err:                        # a dropped connection is an error too
            self.errors.append(f"{self.name}: {type(err).__name__}: {err}"[:200])


async def press_start(client: Client, timeout: float = 60) -> None:
    """Open the app in ``client`` and press "Start a class" once the button is there; whatever the press led to
    (a room, or a refusal) is in the client's markdown and alerts. The button is waited for, not taken from
    the first run: a first run can end early for a rerun before the sidebar is drawn (CI, 2026-12-04: a
    flood's session had no "Start a class" after its first run)."""
    await client.open()
    await client.run(timeout=timeout)
    try:
        await client.until(lambda: "_class_start" in client.widgets, timeout)
    except TimeoutError as err:
        raise TimeoutError(f"{err}; no 'Start a class' button; errors {client.errors[-2:]}") from err
    await client.run([widget_state(client.widgets["_class_start"], trigger_value=True)], timeout=timeout)


async def start_class(presenter: Client, page: str | None = None, timeout: float = 60) -> str:
    """Open the app in ``presenter``, press "Start a class", and open ``page`` (None: stay on the home page);
    returns the room code the presenter's panel shows."""
    await press_start(presenter, timeout)

    def said() -> str | None:
        return next((m for m in presenter.markdown if m.startswith("### Room code:")), None)

    await presenter.until(lambda: said() is not None, timeout)
    code = said().split(": ")[1].strip()
    if page is not None:
        await presenter.run(page_name=page, timeout=timeout)
    return code


async def browser_says(client: Client, follower: str, timeout: float = 60) -> None:
    """Answer as the page's storage script does in a browser: this browser's follower id, no presenter entry
    (a join waits for it, so a websocket client must send it as a real tab would)."""
    await client.until(lambda: "_class_browser_read" in client.widgets, timeout)
    answer = json.dumps({"follower": follower, "presenter": None})
    state = widget_state(client.widgets["_class_browser_read"], json_value=json.dumps(answer))
    await client.run([state], timeout=timeout)


def run(coro):
    """Run ``coro`` to the end on a fresh event loop in its own thread: the calling thread may already run one
    (Playwright's sync API keeps a loop in the thread of any test that used a browser before)."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coro).result()


def widget_state(widget: Widget, **value):
    from streamlit.proto.WidgetStates_pb2 import WidgetState

    state = WidgetState(id=widget.id)
    for name, v in value.items():
        if name == "double_array_value":
            state.double_array_value.data.extend(v)
        else:
            setattr(state, name, v)
    return state
