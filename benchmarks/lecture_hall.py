"""Benchmark (h): a lecture hall: followers as websocket clients through HAProxy, on one or two replicas.

Three set-ups, each started fresh: 1 replica with the in-process store, 1 replica with Redis, and
2 replicas with Redis, always behind Debian's haproxy running deploy/haproxy.cfg (with one replica both
of its server lines point at the same process). Every participant is devtools/ws_client.py's
websocket client; like a browser it first loads the page over HTTP, so HAProxy's SERVERID cookie pins
its websocket to a replica. The presenter (on `sqrt_dk`) moves the dₖ slider every 2 s.

Measured per set-up and class size (default 60 and 120 followers):
- follow: for each student and each move, from the presenter sending the move to the end of the first
  run of that student's in which the slider shows the new value (p50, p95); a move a student never
  showed (a later one overtook it, or none came within 15 s) is counted as missed;
- errors: exception elements, dropped connections, runs that did not finish;
- Redis: commands processed per second (INFO stats) over the moves, and its memory;
- CPU: each process's share of one core over the moves (/proc/<pid>/stat): replicas, redis, haproxy, and this
  process (the clients), which shares the machine with them;
- per follower: the replicas' CPU over the moves, per student, as a share of one core.

Run:  python -m benchmarks.lecture_hall [--students 60 120] [--moves 10]
Prints a Markdown block for docs/PERFORMANCE.md (and writes artifacts/lecture_hall.json).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import time
import urllib.request
from contextlib import ExitStack, contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path

from benchmarks import where_time_goes
from benchmarks.report import machine, pct
from devtools import harness, services, ws_client
from devtools.harness import ROOT, cpu_seconds
from devtools.targets import Target, table
from devtools.ws_client import Client, widget_state

SETUPS = {"1 replica, in-process store": (1, False), "1 replica, Redis": (1, True), "2 replicas, Redis": (2, True)}
EVERY_S = 2.0                      # the presenter's pace (--every)
SOURCES = 8                        # the students' loopback addresses
GRACE_S = 15.0                     # after the last move, how long a student may take to show it


def _sticky_cookie(url: str) -> str | None:
    """Load the page as a browser would; HAProxy answers with the replica this client sticks to."""
    with urllib.request.urlopen(url, timeout=120) as r:
        for header in r.headers.get_all("Set-Cookie") or []:
            if header.startswith("SERVERID="):
                return header.split(";")[0].split("=", 1)[1]
    return None


@dataclass
class HallClient(Client):
    replica: str | None = None

    async def open(self) -> None:
        import websockets

        page = self.ws_url.replace("ws://", "http://").rsplit("/_stcore/stream", 1)[0] + "/"
        self.replica = await asyncio.to_thread(_sticky_cookie, page)
        headers = {"Cookie": f"SERVERID={self.replica}"} if self.replica else None
        self.ws = await websockets.connect(self.ws_url, subprotocols=["streamlit"], max_size=None,
                                           open_timeout=120, ping_interval=None, additional_headers=headers,
                                           **({"local_addr": (self.source, 0)} if self.source else {}))
        self.timers: dict[str, asyncio.Task] = {}
        self.reader = asyncio.create_task(self._read())


@dataclass
class Result:
    setup: str
    students: int
    follow: list[float]
    missed: int
    moves: int
    presenter: list[float]                   # each move: the presenter's own run showing it
    errors: list[str]
    replicas: dict[str, int]                 # students per replica (by sticky cookie)
    cpu: dict[str, float]                    # process -> share of one core over the moves
    redis_ops: float | None
    redis_mb: float | None
    join_s: float
    profile: dict[str, float] = field(default_factory=dict)   # busy samples' share per kind, over the moves


async def lecture(base: str, pids: dict[str, int], redis: services.RedisServer | None, setup: str, n: int,
                  moves: int, profiles: tuple[Path, ...] = (), every: float = EVERY_S) -> Result:
    ws_url = harness.stream_url(base)
    presenter = HallClient(ws_url, "presenter")
    code = await ws_client.start_class(presenter, "sqrt_dk", timeout=120)
    slider = presenter.widgets["sd_dk"]

    # From SOURCES loopback addresses: HAProxy forwards each one's (X-Forwarded-For, believed from 127.0.0.1), so the
    # limits per address (docs/SECURITY.md: 200 new students a minute) see several networks, as a hall's are.
    students = [HallClient(ws_url, f"student {i}", query=f"room={code}", source=f"127.0.0.{10 + i % SOURCES}")
                for i in range(n)]
    t_join = time.perf_counter()
    for s in students:                         # one after another: leastconn sees each open websocket
        await s.open()
    await asyncio.gather(*(s.run(timeout=300) for s in students))
    # As a browser answers the page's storage read: its follower id (benchmarks/classroom.py, the same).
    await asyncio.gather(*(ws_client.browser_says(s, f"{i:032x}", 300) for i, s in enumerate(students)))
    await asyncio.gather(*(s.until(lambda s=s: s.page_hash == presenter.page_hash and "sd_dk" in s.widgets, 300)
                           for s in students))
    join_s = time.perf_counter() - t_join
    await asyncio.sleep(5)

    sampled0 = _sampled(profiles)
    ops0 = redis.info("stats")["total_commands_processed"] if redis else 0
    cpu0, t0 = {name: cpu_seconds(pid) for name, pid in pids.items()}, time.perf_counter()
    values = [64.0 + 8 * (k + 1) for k in range(moves)]
    sent: list[float] = []
    for value in values:
        t_move = time.perf_counter()
        sent.append(t_move)
        await presenter.send([widget_state(slider, double_array_value=[value])], fragment_id=slider.fragment_id)
        await asyncio.sleep(max(0.0, t_move + every - time.perf_counter()))
    seconds = time.perf_counter() - t0
    cpu = {name: (cpu_seconds(pid) - cpu0[name]) / seconds for name, pid in pids.items()}
    redis_ops = (redis.info("stats")["total_commands_processed"] - ops0) / seconds if redis else None
    last = values[-1]
    await asyncio.gather(*(s.until(lambda s=s: s.showed("sd_dk", (last,), sent[-1]) is not None, GRACE_S)
                           for s in students), return_exceptions=True)
    await asyncio.sleep(1.0)
    profile = where_time_goes.shares(sampled0, _sampled(profiles))

    own = [presenter.showed("sd_dk", None, t) for t in sent]
    own_s = [o[0] - t if o is not None else float("inf") for o, t in zip(own, sent, strict=True)]
    follow, missed = [], 0
    for s in students:
        for value, t_move in zip(values, sent, strict=True):
            run = s.showed("sd_dk", (value,), t_move)
            if run is not None:
                follow.append(run[0] - t_move)
            else:
                missed += 1
    replicas: dict[str, int] = {}
    for s in students:
        replicas[s.replica or "?"] = replicas.get(s.replica or "?", 0) + 1
    redis_mb = redis.info("memory")["used_memory"] / 1e6 if redis else None
    errors = [e for c in (presenter, *students) for e in c.errors]
    for c in (presenter, *students):
        await c.close()
    return Result(setup, n, follow, missed, moves * n, own_s, errors, replicas, cpu, redis_ops, redis_mb, join_s,
                  profile)


def _sampled(profiles: tuple[Path, ...]) -> dict[str, int]:
    """The replicas' samples so far, summed (benchmarks/where_time_goes.py)."""
    total: dict[str, int] = {}
    for path in profiles:
        for k, v in where_time_goes.read(path).items():
            total[k] = total.get(k, 0) + v
    return total


@contextmanager
def lecture_hall(replicas: int, use_redis: bool, log, profiles: tuple[Path, ...] = ()):
    """(haproxy URL, {process name: pid}, redis server or None) for one set-up; everything stopped after. With
    ``profiles`` (one path per replica), each replica samples where its time goes into its path."""
    with ExitStack() as stack:
        pids: dict[str, int] = {}
        redis = stack.enter_context(services.redis_server()) if use_redis else None
        env = {"ATTENTION_REDIS_URL": redis.url} if redis else {}
        env["ATTENTION_TRUSTED_PROXIES"] = "127.0.0.1"  # HAProxy, as the shipped set-up trusts it
        if redis:
            pids["redis"] = redis.proc.pid
        ports = []
        for i in range(replicas):
            sampled = where_time_goes.env(profiles[i]) if profiles else {}
            proc, base, _ = harness.start(log=log, env={**env, **sampled})
            stack.callback(harness.stop, proc)
            pids[f"app{i + 1}"] = proc.pid
            ports.append(int(base.rsplit(":", 1)[1]))
        url, hap = stack.enter_context(services.haproxy(ports))
        pids["haproxy"] = hap.pid
        pids["clients"] = os.getpid()               # this process: the presenter's and every student's websocket
        yield url, pids, redis


def replicas_of(setup: str) -> int:
    return int(setup.split()[0])


def targets(r: Result) -> list[Target]:
    """Issue 48's lecture-hall targets for one result: followers' p95 ≤ 5 s on one process, ≤ 2 s on replicas
    behind HAProxy with Redis; the presenter's own update p95 ≤ 300 ms. A move never shown counts as slower
    than any limit."""
    follow = r.follow + [float("inf")] * r.missed
    name = f"{r.setup}, {r.students} followers"
    return [Target(f"{name}: follow p95", pct(follow, 0.95), 5 if replicas_of(r.setup) == 1 else 2, "s"),
            Target(f"{name}: presenter's own update p95", pct(r.presenter, 0.95) * 1000, 300, "ms")]


def report(results: list[Result], machine: str) -> str:
    lines = [f"Machine: {machine}.", "",
             "| Set-up | Followers | Follow p50 | p95 | Presenter p95 | Missed | Errors | Students per replica | "
             "Replicas' CPU (share of one core, each) | Per follower | Redis commands/s | Redis CPU | HAProxy CPU | "
             "The clients' CPU | Join, all |",
             "| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for r in results:
        apps = {k: v for k, v in r.cpu.items() if k.startswith("app")}
        per = sum(apps.values()) / r.students
        target = " ✅" if all(t.met for t in targets(r)) and not r.errors else ""
        lines.append(
            f"| {r.setup} | {r.students} | {pct(r.follow, 0.5) * 1000:.0f} ms | {pct(r.follow, 0.95) * 1000:.0f} ms"
            f"{target} | {pct(r.presenter, 0.95) * 1000:.0f} ms | {r.missed} of {r.moves} | {len(r.errors)} | "
            f"{', '.join(f'{k} {v}' for k, v in sorted(r.replicas.items()))} | "
            f"{', '.join(f'{k} {v * 100:.0f}%' for k, v in apps.items())} | {per * 100:.2f}% | "
            f"{'—' if r.redis_ops is None else f'{r.redis_ops:.0f}'} | "
            f"{'—' if 'redis' not in r.cpu else format(r.cpu['redis'], '.1%')} | {r.cpu['haproxy'] * 100:.1f}% | "
            f"{r.cpu['clients'] * 100:.0f}% | {r.join_s:.0f} s |")
    lines += ["", *table([t for r in results for t in targets(r)])]
    if any(r.profile for r in results):
        lines += ["", "Where the replicas' busy threads were during the moves (benchmarks/where_time_goes.py):"]
        lines += [where_time_goes.line(f"{r.setup}, {r.students}", r.profile) for r in results]
    for r in results:
        for e in r.errors[:3]:
            lines.append(f"\n- {r.setup}, {r.students}: `{e}`")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, nargs="+", default=[60, 120])
    parser.add_argument("--moves", type=int, default=10)
    parser.add_argument("--every", type=float, default=EVERY_S, help="seconds between the presenter's moves")
    parser.add_argument("--setups", nargs="+", default=list(SETUPS), choices=list(SETUPS))
    parser.add_argument("--replicas", type=int, nargs="+", default=None,
                        help="replica counts sharing Redis, in place of --setups (e.g. 4: deploy/haproxy.cfg's copy "
                             "with a server line per replica, devtools/services.haproxy_cfg)")
    parser.add_argument("--profile", action="store_true",
                        help="sample where each replica's time goes (benchmarks/where_time_goes.py)")
    args = parser.parse_args()
    if args.replicas:
        for n in args.replicas:
            SETUPS[f"{n} replica{'s' if n > 1 else ''}, Redis"] = (n, True)
        args.setups = [f"{n} replica{'s' if n > 1 else ''}, Redis" for n in args.replicas]
    (ROOT / "artifacts").mkdir(exist_ok=True)
    load0, results = os.getloadavg()[0], []
    for setup in args.setups:
        replicas, use_redis = SETUPS[setup]
        profiles = tuple(ROOT / "artifacts" / f"where-time-goes-app{i + 1}.json" for i in range(replicas)) \
            if args.profile else ()
        with open(ROOT / "artifacts" / "lecture-hall-bench.log", "a") as log, \
                lecture_hall(replicas, use_redis, log, profiles) as (url, pids, redis):
            for n in args.students:
                results.append(asyncio.run(lecture(url, pids, redis, setup, n, args.moves, profiles, args.every)))
                print(f"{setup}, {n}: p95 {pct(results[-1].follow, 0.95):.2f} s", file=sys.stderr)
                (ROOT / "artifacts" / "lecture_hall.json").write_text(json.dumps([asdict(r) for r in results]))
                time.sleep(5)
    print(report(results, f"{machine(load0)}, moves every {args.every:g} s × {args.moves}"))


if __name__ == "__main__":
    main()
