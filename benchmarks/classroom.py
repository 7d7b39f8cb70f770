"""Benchmark (g): a live class on one server process: one presenter and N following students.

Every participant is a websocket client that speaks Streamlit's protocol the way the browser does:
it runs the app (students with ?room=CODE in the URL), keeps the page, the query string and the
widget ids the server sends, and fires each fragment's run_every timer (the follower's version check,
the presenter's publish check and live chart) as the frontend would, skipping a tick while a run of
its own is still going. No Chromium: a browser per student would measure the browsers, not the server.

Measured, for N = 30 and 60 students:
- follow: the presenter moves the dₖ slider on `sqrt_dk` (a fragment rerun, as in the browser); for
  each student, the time from the presenter sending the move to that student's next full run finishing
  (the run that applied the new snapshot). Moves are 4 s apart, so each starts from a quiet room.
- idle: server CPU over 20 s while every student follows and nothing changes, less the same window
  with the presenter alone, as a share of one core (from /proc/<pid>/stat).
- poll: the presenter asks the class; every student answers at once; each answer's round trip, and
  the time until the presenter's live panel reads "N of N answered".
- errors: exception elements, runs that never finished, students that did not follow, lost answers.

Run:  python benchmarks/classroom.py [--students 30 60] [--moves 8]
Prints a Markdown block for docs/PERFORMANCE.md.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from streamlit.proto.BackMsg_pb2 import BackMsg  # noqa: E402
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg  # noqa: E402

from tests.browser import harness  # noqa: E402

POLL_ID = "sqrt_dk:predict:spread"
FINISHED = ForwardMsg.FINISHED_SUCCESSFULLY
FRAGMENT_FINISHED = ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q / 100 * (len(ordered) - 1)))]


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")     # utime + stime


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
    finished: list[tuple[float, int]] = field(default_factory=list)  # (time, status) of each finished run
    errors: list[str] = field(default_factory=list)
    running: bool = False

    async def open(self) -> None:
        import websockets

        self.ws = await websockets.connect(self.ws_url, subprotocols=["streamlit"], max_size=None,
                                           open_timeout=60, ping_interval=None)
        self.timers: dict[str, asyncio.Task] = {}
        self.reader = asyncio.create_task(self._read())

    async def close(self) -> None:
        for task in [*self.timers.values(), self.reader]:
            task.cancel()
        await self.ws.close()

    async def send(self, states: list | None = None, fragment_id: str = "", page_name: str | None = None,
                   auto: bool = False) -> None:
        msg = BackMsg()
        rerun = msg.rerun_script
        rerun.query_string = self.query
        rerun.page_script_hash = "" if page_name is not None else self.page_hash
        rerun.page_name = page_name or ""
        rerun.fragment_id = fragment_id
        rerun.is_auto_rerun = auto
        for state in states or []:
            rerun.widget_states.widgets.append(state)
        self.running = True
        await self.ws.send(msg.SerializeToString())

    async def run(self, *args, timeout: float = 60, **kwargs) -> float:
        """Send a rerun and wait for its script_finished; returns the seconds it took."""
        before = len(self.finished)
        t0 = time.perf_counter()
        await self.send(*args, **kwargs)
        await self.until(lambda: len(self.finished) > before, timeout)
        return time.perf_counter() - t0

    async def until(self, condition, timeout: float = 60) -> None:
        deadline = time.perf_counter() + timeout
        while not condition():
            if time.perf_counter() > deadline:
                raise TimeoutError(f"{self.name}: timed out")
            await asyncio.sleep(0.01)

    def _element(self, delta) -> None:
        el = delta.new_element
        kind = el.WhichOneof("type")
        if kind == "exception":
            self.errors.append(f"{self.name}: exception: {el.exception.message[:120]}")
        elif kind == "markdown":
            self.markdown.append(el.markdown.body)
        elif kind is not None:
            proto = getattr(el, kind)
            wid = getattr(proto, "id", "")
            if isinstance(wid, str) and wid.startswith("$$ID-"):
                key = wid.split("-", 2)[2] if wid.count("-") >= 2 else wid
                self.widgets[key] = Widget(wid, delta.fragment_id, proto)

    async def _tick(self, fragment_id: str, interval: float) -> None:
        while True:
            await asyncio.sleep(interval)
            if not self.running:                         # the frontend does not stack ticks on a running script
                await self.send(fragment_id=fragment_id, auto=True)

    async def _read(self) -> None:
        try:
            while True:
                msg = ForwardMsg.FromString(await self.ws.recv())
                kind = msg.WhichOneof("type")
                if kind == "delta":
                    self._element(msg.delta)
                elif kind == "navigation":
                    self.page_hash = msg.navigation.page_script_hash
                elif kind == "page_info_changed":
                    self.query = msg.page_info_changed.query_string
                elif kind == "auto_rerun":
                    fid, interval = msg.auto_rerun.fragment_id, msg.auto_rerun.interval
                    if fid not in self.timers:
                        self.timers[fid] = asyncio.create_task(self._tick(fid, interval))
                elif kind == "script_finished":
                    self.running = False
                    self.finished.append((time.perf_counter(), msg.script_finished))
                    if msg.script_finished == ForwardMsg.FINISHED_WITH_COMPILE_ERROR:
                        self.errors.append(f"{self.name}: compile error")
        except asyncio.CancelledError:
            raise
        except Exception as err:                        # a dropped connection is an error too
            self.errors.append(f"{self.name}: {type(err).__name__}: {err}"[:200])


def widget_state(widget: Widget, **value):
    from streamlit.proto.WidgetStates_pb2 import WidgetState

    state = WidgetState(id=widget.id)
    for name, v in value.items():
        if name == "double_array_value":
            state.double_array_value.data.extend(v)
        else:
            setattr(state, name, v)
    return state


@dataclass
class Result:
    students: int
    follow: list[float]
    missed: int
    idle_cpu: float            # share of one core, the students' ticks only
    presenter_cpu: float       # share of one core, the presenter alone (its publish check and count)
    answer_rtt: list[float]
    all_answered: float
    counted: int
    errors: list[str]


async def classroom(base: str, pid: int, n: int, moves: int) -> Result:
    ws_url = base.replace("http://", "ws://") + "/_stcore/stream"
    presenter = Client(ws_url, "presenter")
    await presenter.open()
    await presenter.run()
    await presenter.run([widget_state(presenter.widgets["_class_start"], trigger_value=True)])
    code = next(m for m in presenter.markdown if m.startswith("### Room code:")).split(": ")[1].strip()
    await presenter.run(page_name="sqrt_dk")
    slider = presenter.widgets["sd_dk"]

    await asyncio.sleep(3)                               # presenter alone: its own ticks only
    c0, t0 = cpu_seconds(pid), time.perf_counter()
    await asyncio.sleep(20)
    presenter_cpu = (cpu_seconds(pid) - c0) / (time.perf_counter() - t0)

    students = [Client(ws_url, f"student {i}", query=f"room={code}") for i in range(n)]
    for s in students:
        await s.open()
    await asyncio.gather(*(s.run(timeout=180) for s in students))     # all join at once
    await asyncio.gather(*(s.until(lambda s=s: s.page_hash == presenter.page_hash
                                   and "sd_dk" in s.widgets, 120) for s in students))

    await asyncio.sleep(5)                               # joined, followed, quiet
    c0, t0 = cpu_seconds(pid), time.perf_counter()
    await asyncio.sleep(20)
    idle_cpu = (cpu_seconds(pid) - c0) / (time.perf_counter() - t0) - presenter_cpu

    follow, missed = [], 0
    values = [64 + 16 * (i + 1) for i in range(moves)]
    for value in values:
        before = [len(s.finished) for s in students]
        t_move = time.perf_counter()
        await presenter.send([widget_state(slider, double_array_value=[value])], fragment_id=slider.fragment_id)
        deadline = t_move + 15
        pending = set(range(n))
        while pending and time.perf_counter() < deadline:
            for i in list(pending):
                runs = [t for t, status in students[i].finished[before[i]:] if status == FINISHED]
                if runs:
                    follow.append(runs[0] - t_move)
                    pending.discard(i)
            await asyncio.sleep(0.005)
        missed += len(pending)
        await asyncio.sleep(max(0.0, t_move + 4 - time.perf_counter()))

    ask = presenter.widgets[f"_class_ask__{POLL_ID}"]
    await presenter.run([widget_state(ask, trigger_value=True)], fragment_id=ask.fragment_id)
    key = f"_class_answer__{POLL_ID}"
    await asyncio.gather(*(s.until(lambda s=s: key in s.widgets, 60) for s in students))
    options = list(students[0].widgets[key].proto.options)

    async def answer(i: int, s: Client) -> float:
        radio = s.widgets[key]
        return await s.run([widget_state(radio, string_value=options[i % len(options)])],
                           fragment_id=radio.fragment_id)

    t_poll = time.perf_counter()
    answer_rtt = list(await asyncio.gather(*(answer(i, s) for i, s in enumerate(students))))
    pattern = re.compile(rf"\*\*{n} of \d+ answered\*\*")
    try:
        await presenter.until(lambda: any(pattern.fullmatch(m) for m in presenter.markdown[-20:]), 60)
        all_answered = time.perf_counter() - t_poll
    except TimeoutError:
        all_answered = float("nan")
    seen = [int(m.split(" of ")[0].strip("*")) for m in presenter.markdown if m.endswith("answered**")]
    counted = max(seen, default=0)

    errors = [e for c in (presenter, *students) for e in c.errors]
    for c in (presenter, *students):
        await c.close()
    return Result(n, follow, missed, idle_cpu, presenter_cpu, answer_rtt, all_answered, counted, errors)


def report(results: list[Result], moves: int, machine: str) -> str:
    lines = [
        f"Machine: {machine}. Shared with other work while measured (other helpers' tests and servers ran "
        "on the same 2 cores), so treat single figures as upper bounds.",
        "",
        "| Students | Follow: presenter's move → student's run finished, p50 | p95 | Missed | Idle students' "
        "server CPU (share of one core) | per student | Presenter alone | Poll: answer round trip p50 / p95 | "
        "All answers on the presenter's screen | Counted | Errors |",
        "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for r in results:
        lines.append(
            f"| {r.students} | {pct(r.follow, 50) * 1000:.0f} ms | {pct(r.follow, 95) * 1000:.0f} ms "
            f"{'✅' if pct(r.follow, 95) <= 1.5 else '❌'} | {r.missed} of {r.students * moves} | "
            f"{r.idle_cpu * 100:.1f}% {'✅' if r.idle_cpu < 0.10 else '❌'} | {r.idle_cpu * 100 / r.students:.2f}% | "
            f"{r.presenter_cpu * 100:.1f}% | "
            f"{pct(r.answer_rtt, 50) * 1000:.0f} / {pct(r.answer_rtt, 95) * 1000:.0f} ms | "
            f"{r.all_answered:.1f} s | {r.counted} of {r.students} | {len(r.errors)} |")
    for r in results:
        for e in r.errors[:5]:
            lines.append(f"\n- {r.students} students: `{e}`")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, nargs="+", default=[30, 60])
    parser.add_argument("--moves", type=int, default=8)
    args = parser.parse_args()
    import platform

    import streamlit

    cpu = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                if line.startswith("model name")), "unknown")
    results = []
    start_load = os.getloadavg()[0]
    for n in args.students:
        log = open(ROOT / "artifacts" / f"classroom-bench-{n}.log", "w")
        with harness.serve(log=log) as (proc, base, _):           # a fresh server per class size
            results.append(asyncio.run(classroom(base, proc.pid, n, args.moves)))
        log.close()
        print(f"{n} students done", file=sys.stderr)
    machine = (f"{os.cpu_count()} cores ({cpu}), load average {start_load:.1f} at the start and "
               f"{os.getloadavg()[0]:.1f} at the end, Python {platform.python_version()}, "
               f"Streamlit {streamlit.__version__}")
    print(report(results, args.moves, machine))


if __name__ == "__main__":
    main()
