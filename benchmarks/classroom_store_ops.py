"""What one room-store call costs: milliseconds and round trips, in-process store against Redis.

    python -m benchmarks.classroom_store_ops [--n 2000]

Starts its own redis-server (Debian's, no persistence) on a free port, times each call N times from
one client in this process (p50, p95 in ms), and counts the client's sends to Redis per call (one send
is one round trip: a pipeline or a script is one). Prints a Markdown table for docs/PERFORMANCE.md.
"""

from __future__ import annotations

import argparse
import statistics
import time

import redis

from classroom.memory import MemoryRoomStore
from classroom.redis_store import RedisRoomStore
from devtools import services

OPTIONS = ("It doubles", "It halves", "It stays the same")
CONTROLS = {"sd_dk": ["64"], "sd_seed": ["0"], "present": ["1"]}     # a typical lesson view


class Sends:
    """Counts Connection.send_packed_command calls: the client's round trips to Redis."""

    def __init__(self) -> None:
        self.n = 0
        original = redis.connection.Connection.send_packed_command

        def counting(conn, command, check_health=True):
            self.n += 1
            return original(conn, command, check_health)

        redis.connection.Connection.send_packed_command = counting


def calls(store, code, key, now):
    views = iter(range(10**9))
    return {
        "version check (a follower's poll)": lambda: store.version(code, now),
        "snapshot (a follower catching up)": lambda: store.snapshot(code, now),
        "heartbeat": lambda: store.heartbeat(code, "follower-1", now),
        "update (the presenter's publish)": lambda: store.publish(
            code, key, "sqrt_dk", 1, {**CONTROLS, "sd_dk": [str(next(views) % 1000 + 1)]}, now),
        "answer": lambda: store.answer(code, "p", "follower-1", OPTIONS[next(views) % 3], now),
        "poll counts": lambda: store.poll_counts(code, "p"),
        "follower count (60 present)": lambda: store.follower_count(code, now),
    }


def measure(store, n: int, sends: Sends | None) -> dict[str, tuple[float, float, float]]:
    now = time.time()
    code, key = store.create_room(now)
    for i in range(60):
        store.heartbeat(code, f"f{i}", now)
    store.open_poll(code, key, "p", OPTIONS, now)
    out = {}
    for name, call in calls(store, code, key, now).items():
        call()                                        # scripts loaded, connection open
        before = sends.n if sends else 0
        times = []
        for _ in range(n):
            t0 = time.perf_counter()
            call()
            times.append((time.perf_counter() - t0) * 1000)
        trips = ((sends.n - before) / n) if sends else 0.0
        times.sort()
        out[name] = (statistics.median(times), times[int(0.95 * (n - 1))], trips)
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=2000)
    args = ap.parse_args()
    memory = measure(MemoryRoomStore(), args.n, None)
    sends = Sends()
    with services.redis_server() as server:
        red = measure(RedisRoomStore.from_url(server.url), args.n, sends)
        info = server.info("memory")
    print("| call | in-process p50 / p95 ms | Redis p50 / p95 ms | Redis round trips |")
    print("|---|---|---|---|")
    for name in memory:
        m, r = memory[name], red[name]
        print(f"| {name} | {m[0]:.3f} / {m[1]:.3f} | {r[0]:.3f} / {r[1]:.3f} | {r[2]:.2f} |")
    print(f"\nRedis used_memory after the run: {int(info['used_memory']) / 1e6:.2f} MB "
          f"(one room, 60 followers, one poll)")


if __name__ == "__main__":
    main()
