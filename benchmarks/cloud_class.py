"""Benchmark (j): a school's morning on Community Cloud's smallest machine: one app process on one core (issue 48).

One app process, pinned to core 0 as ``taskset -c 0`` would (the child inherits this process's affinity, set
for its start alone), the clients on the other core. A morning compressed: ``--classes`` classes at once, each
a presenter starting on the home page and stepping through ``--lessons`` lessons (sqrt_dk, projection,
convex_blending: the students follow it there; on each, ``--moves`` moves of a slider in a section, ``--every`` s
apart; in the first ``--polls`` lessons a prediction asked and answered by everyone at once), followed by
``--students`` websocket students each (benchmarks/class_steps.py: they answer the page's storage read as a
browser does; the server beats their presence for them); and ``--lab`` Lab learners on 128-token sentences at
the same time (benchmarks/lab_class.py's learner, moving the layer or the head once a second). Then the same
morning again in the same process, once Streamlit has let the first morning's closed sessions go (it keeps each
for server.disconnectedSessionTTL, 120 s, for a reconnect), the Lab learners typing the same sentences
(``--new-sentences``: others, which the Lab's caches, bounded in bytes, then also keep): its memory must not grow.

Measured from outside: the server's RSS (VmRSS of it and any child, sampled every 0.25 s; VmHWM at the end).
Targets (issue 48): followers see a move p95 ≤ 1.5 s; the presenter's own update p95 ≤ 300 ms; every answer
counted; every follower on the presenter's page at the end; peak RSS ≤ 690 MB; the second morning's peak
≤ 5% over the first's.

Run:  python -m benchmarks.cloud_class       (3 classes × 60, 10 Lab learners: at most about 16 minutes; a morning
                                              past --budget, 270 s, skips its steps left and says so)
      python -m benchmarks.cloud_class --classes 1 --students 10 --lab 2 --lessons 1   (a small check)
Prints each target with its figure (PASS/MISS), then a Markdown block for docs/PERFORMANCE.md.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from streamlit import config as streamlit_config

from benchmarks import class_steps, lab_class
from benchmarks.class_steps import Steps
from benchmarks.lab_frames import capture_ws, long_sentences
from benchmarks.report import machine
from devtools import harness
from devtools.harness import ROOT
from devtools.targets import Target, growth, pct, table
from devtools.ws_client import Client, start_class

LESSONS = ("sqrt_dk", "projection", "convex_blending")   # each: a slider in a section, a prediction to ask
SERVER_CORE, CLIENT_CORES = {0}, None                     # None: every other core
RSS_LIMIT_MB, GROWTH_LIMIT = 690.0, 0.05
STEP_WAIT_S = 120.0                                       # a step (a page change, a poll, a start) at most


@dataclass
class Morning:
    """One morning's figures: the classes' steps pooled, the Lab's, who was where at the end, the RSS."""

    steps: Steps
    lab: dict
    on_page: int                 # followers on their presenter's page at the end
    students: int
    join_s: list[float]
    errors: list[str]
    rss_peak_mb: float = 0.0
    rss_after_mb: float = 0.0    # settled, every client gone
    seconds: float = 0.0
    lab_errors: list[str] = field(default_factory=list)


def pinned_start(log) -> tuple:
    """harness.start with the server on SERVER_CORE (inherited from this thread, as taskset does), this process
    on the other cores after; returns (process, base URL, the server's allowed CPUs as /proc says)."""
    everything = os.sched_getaffinity(0)
    os.sched_setaffinity(0, SERVER_CORE)
    try:
        proc, base, _ = harness.start(log=log)
    finally:
        os.sched_setaffinity(0, CLIENT_CORES or (everything - SERVER_CORE) or everything)
    allowed = next(line.split(":", 1)[1].strip() for line in Path(f"/proc/{proc.pid}/status").read_text().splitlines()
                   if line.startswith("Cpus_allowed_list"))
    return proc, base, allowed


def tree_rss_mb(pid: int) -> float:
    """VmRSS of ``pid`` and its descendants, in MB (0 for a process gone)."""
    total, todo = 0.0, [pid]
    while todo:
        p = todo.pop()
        try:
            total += harness.rss_kb(p)["VmRSS"] / 1024
            for task in Path(f"/proc/{p}/task").iterdir():
                todo += [int(c) for c in (task / "children").read_text().split()]
        except (OSError, KeyError):
            continue
    return total


class Sampler:
    """The server's RSS every 0.25 s on a daemon thread; ``peak(since)`` over a window."""

    def __init__(self, pid: int) -> None:
        self.pid, self.samples, self.stop = pid, [], threading.Event()
        threading.Thread(target=self._run, daemon=True).start()

    def _run(self) -> None:
        while not self.stop.wait(0.25):
            self.samples.append((time.perf_counter(), tree_rss_mb(self.pid)))

    def peak(self, since: float) -> float:
        return max((mb for t, mb in self.samples if t >= since), default=float("nan"))


def address(morning: int, c: int) -> str:
    """Class ``c``'s own loopback address in morning ``morning``: each class comes from its own network, as classes
    of different schools do. From one address, the server paces new students past NEW_STUDENTS_PER_ADDRESS (200)
    a minute and classes past CLASSES_PER_HOUR_PER_ADDRESS (10) an hour (docs/SECURITY.md): a second morning's
    three classes from the same addresses would meet the hourly limit, not the server."""
    return f"127.0.{morning + 1}.{c + 10}"


async def lesson(presenter: Client, students: list[Client], slug: str, args: argparse.Namespace, ask: bool,
                 out: Steps, deadline: float) -> None:
    """The presenter opens ``slug`` (the students follow), moves its first slider in a section ``args.moves``
    times, ``args.every`` s apart, and with ``ask`` asks its first prediction, reveals it and stops asking. Past
    ``deadline`` the moves and the question left are skipped, and said."""
    t_page = time.perf_counter()
    out.add(await class_steps.open_page(presenter, students, slug, STEP_WAIT_S))
    await presenter.until(lambda: any(t >= t_page for t, k, _ in presenter.drawn if k.startswith("_class_ask__")),
                          STEP_WAIT_S)
    await class_steps.settled(presenter)
    shown = class_steps.arrived(presenter, slug, t_page) or t_page     # its widgets, not the page left's
    fresh = {k for t, k, _ in presenter.drawn if t >= shown}
    key = class_steps.slider(presenter, keys=fresh)
    for value in class_steps.values(presenter, key, args.moves):
        if time.perf_counter() > deadline:
            presenter.errors.append(f"{presenter.name}: {slug}'s moves left skipped: past the budget")
            return
        t_move = time.perf_counter()
        out.add(await class_steps.move(presenter, students, key, value, max(15.0, args.every)))
        await asyncio.sleep(max(0.0, t_move + args.every - time.perf_counter()))
    if ask and time.perf_counter() > deadline:
        presenter.errors.append(f"{presenter.name}: {slug}'s question skipped: past the budget")
    elif ask:
        asked = sorted(k for k in fresh if k.startswith(f"_class_ask__{slug}:predict:"))
        out.add(await class_steps.poll(presenter, students, asked[0].removeprefix("_class_ask__"), STEP_WAIT_S,
                                       close=True))


async def one_class(ws_url: str, c: int, args: argparse.Namespace, source: str,
                    deadline: float) -> tuple[Steps, list[Client], Client, float]:
    """Class ``c``: its presenter starts a room on the home page, its students join, and the presenter steps
    through the lessons (``lesson``); a lesson that would start past ``deadline`` is skipped, and said."""
    presenter = Client(ws_url, f"class {c} presenter", source=source)
    code = await start_class(presenter, None, timeout=STEP_WAIT_S)
    students = [Client(ws_url, f"class {c} student {i}", query=f"room={code}", source=source)
                for i in range(args.students)]
    joined = await class_steps.join(presenter, students, 2 * STEP_WAIT_S)
    out = Steps()
    for i, slug in enumerate(LESSONS[:args.lessons]):
        if time.perf_counter() > deadline:
            presenter.errors.append(f"{presenter.name}: {slug} and the lessons after it skipped: past the budget")
            break
        try:
            await lesson(presenter, students, slug, args, i < args.polls, out, deadline)
        except (TimeoutError, LookupError, IndexError) as err:   # said with the rest; the next lesson goes on
            presenter.errors.append(f"{presenter.name}, {slug}: {type(err).__name__}: {err}"[:300])
    return out, students, presenter, joined


async def morning(base: str, cap: dict, args: argparse.Namespace, k: int) -> Morning:
    """The classes and the Lab learners at once; every client closed at the end."""
    ws_url, stop = harness.stream_url(base), asyncio.Event()
    lab = {"arrivals": [], "moves": [], "bytes": [], "errors": []}
    texts = long_sentences(args.lab, offset=0 if args.same else k * (args.lab + 25))
    learners = [asyncio.create_task(lab_class.learner(base, cap, t, stop, lab)) for t in texts]
    t0 = time.perf_counter()
    done = await asyncio.gather(*(one_class(ws_url, c, args, address(k, c), t0 + args.budget)
                                  for c in range(args.classes)), return_exceptions=True)
    seconds = time.perf_counter() - t0
    stop.set()
    await asyncio.gather(*learners)
    steps, errors, on_page, joins = Steps(), [], 0, []
    for got in done:
        if isinstance(got, BaseException):
            errors.append(f"a class failed: {type(got).__name__}: {got}"[:300])
            continue
        s, students, presenter, joined = got
        steps.add(s)
        joins.append(joined)
        on_page += sum(st.page_hash == presenter.page_hash for st in students)
        errors += [e for cl in (presenter, *students) for e in cl.errors]
        for cl in (presenter, *students):
            await cl.close()
    return Morning(steps, lab, on_page, args.classes * args.students, joins, errors, seconds=seconds,
                   lab_errors=lab["errors"])


def targets(first: Morning, second: Morning) -> list[Target]:
    """Issue 48's targets over both mornings (the classes' figures pooled), the growth from the first to the second."""
    follow = first.steps.follow + second.steps.follow
    own = first.steps.presenter + second.steps.presenter
    lost = sum(m.steps.asked - m.steps.counted for m in (first, second))
    away = sum(m.students - m.on_page for m in (first, second))
    missed = sum(m.steps.missed + m.steps.pages_missed for m in (first, second))
    return [Target("Followers see a move, p95", pct(follow, 0.95), 1.5, "s"),
            Target("Presenter's own update, p95", pct(own, 0.95) * 1000, 300, "ms"),
            Target("Moves and page changes a follower never showed", missed, 0),
            Target("Poll answers lost (sent, not counted)", lost, 0),
            Target("Followers not on their presenter's page at the end", away, 0),
            Target("Errors (exceptions, dropped connections, steps skipped past --budget)",
                   sum(len(m.errors) + len(m.lab_errors) for m in (first, second)), 0),
            Target("Peak RSS", max(first.rss_peak_mb, second.rss_peak_mb), RSS_LIMIT_MB, "MB"),
            Target("Second morning's peak RSS over the first's", growth(first.rss_peak_mb, second.rss_peak_mb) * 100,
                   GROWTH_LIMIT * 100, "%")]


def details(m: Morning, name: str) -> str:
    s, lab = m.steps, m.lab
    return (f"| {name} | {m.seconds:.0f} s | {max(m.join_s, default=float('nan')):.1f} s | "
            f"{pct(s.follow, 0.5) * 1000:.0f} / {pct(s.follow, 0.95) * 1000:.0f} ms | {s.full} of {len(s.follow)} | "
            f"{pct(s.pages, 0.5):.1f} / {pct(s.pages, 0.95):.1f} s | "
            f"{pct(s.presenter, 0.5) * 1000:.0f} / {pct(s.presenter, 0.95) * 1000:.0f} ms | "
            f"{s.counted} of {s.asked} | {pct(lab['moves'], 0.5) * 1000:.0f} / {pct(lab['moves'], 0.95) * 1000:.0f} ms "
            f"({len(lab['moves'])}) | {m.rss_peak_mb:.0f} MB | {m.rss_after_mb:.0f} MB | "
            f"{len(m.errors) + len(m.lab_errors)} |")


def report(first: Morning, second: Morning, args: argparse.Namespace, where: str, cpus: str) -> str:
    lines = [f"Machine: {where}; the app process on CPU {cpus}, the clients on the other. Scale: {args.classes} "
             f"classes × {args.students} students, {args.lessons} lessons each ({args.moves} moves {args.every:g} s "
             f"apart, {min(args.polls, args.lessons)} polls), {args.lab} Lab learners at 128 tokens; twice.", "",
             *table(targets(first, second)), "",
             "| Morning | Took | Join (slowest class) | Follow p50 / p95 | Whole-page follows | Page change p50 / p95 "
             "| Presenter p50 / p95 | Answers counted | Lab move p50 / p95 (moves) | Peak RSS | Settled RSS | Errors |",
             "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
             details(first, "first"), details(second, "second")]
    for e in (first.errors + first.lab_errors + second.errors + second.lab_errors)[:6]:
        lines.append(f"\n- `{e}`")
    return "\n".join(lines)


def arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--classes", type=int, default=3)
    parser.add_argument("--students", type=int, default=60, help="students per class")
    parser.add_argument("--lab", type=int, default=10, help="Lab learners at the same time")
    parser.add_argument("--lessons", type=int, default=3, choices=range(1, len(LESSONS) + 1))
    parser.add_argument("--moves", type=int, default=5, help="slider moves per lesson")
    parser.add_argument("--every", type=float, default=4.0, help="seconds between moves")
    parser.add_argument("--polls", type=int, default=2, help="lessons (the first ones) whose prediction is asked")
    parser.add_argument("--budget", type=float, default=270.0,
                        help="seconds a morning may take before a class skips its remaining lessons (said as an error)")
    parser.add_argument("--new-sentences", dest="same", action="store_false",
                        help="the second morning's Lab learners type other sentences than the first's")
    return parser.parse_args()


def main() -> int:
    args = arguments()
    (ROOT / "artifacts").mkdir(exist_ok=True)
    load0 = os.getloadavg()[0]
    with open(ROOT / "artifacts" / "cloud-class-bench.log", "w") as log:
        proc, base, cpus = pinned_start(log)
        try:
            sampler = Sampler(proc.pid)
            cap = capture_ws(base)
            runs = []
            for k in range(2):
                t0 = time.perf_counter()
                m = asyncio.run(morning(base, cap, args, k))
                m.rss_peak_mb = sampler.peak(t0)
                # Every client gone, and Streamlit's own wait for them passed: it keeps a closed tab's session
                # (its state, its page) server.disconnectedSessionTTL seconds for a reconnect. Without this
                # wait the second morning starts beside the first's 190 sessions and counts them as growth.
                time.sleep(float(streamlit_config.get_option("server.disconnectedSessionTTL")) + 10)
                m.rss_after_mb = tree_rss_mb(proc.pid)
                runs.append(m)
                print(f"morning {k + 1}: {m.seconds:.0f} s, peak {m.rss_peak_mb:.0f} MB", file=sys.stderr)
            hwm = harness.rss_kb(proc.pid)["VmHWM"] / 1024
            sampler.stop.set()
        finally:
            harness.stop(proc)
    for t in targets(*runs):
        print(t.line())
    print(f"(VmHWM of the server at the end: {hwm:.0f} MB)\n")
    print(report(*runs, args, machine(load0), cpus))
    return 0 if all(t.met for t in targets(*runs)) else 1


if __name__ == "__main__":
    sys.exit(main())
