"""A class in the Lab on long sentences, against one real server: load (p95) and a memory soak (RSS).

    python -m benchmarks.lab_class load   [--sessions 30] [--seconds 20]
    python -m benchmarks.lab_class soak   [--sessions 30] [--sentences 100]
    python -m benchmarks.lab_class bytes                       # what one layer/head move sends, at 128 tokens

Not a test: it prints figures for docs/PERFORMANCE.md (load, bytes) and docs/RELIABILITY.md (soak).

How (benchmarks/lab_frames.py): Chromium opens the lab once, a sentence is typed and the layer slider moved,
and the websocket frames it sent are kept (the replay idea of benchmarks/sessions.py). Every later message is
one of those frames with the widget values rewritten (the sentence, the layer, the head), sent by plain
websocket clients: one asyncio process, N sessions, each its own connection, as N browsers would be. Each
session gets sentences of its own, long enough to be cut at the model's 128 tokens and different within those.

load: each session arrives with its own 128-token sentence, then moves the layer or the head once a
      second (alternating) for --seconds; latency from sending the move to the server's script_finished.
soak: each session runs --sentences distinct 128-token sentences, moving the layer and the head after
      each; the server's RSS is sampled every 0.5 s throughout and for 60 s after every session has left.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import os
import statistics
import sys
import threading
import time

from benchmarks.lab_frames import capture, capture_ws, connect, frame, long_sentences
from devtools import harness
from devtools.harness import cpu_seconds


async def _run(ws, data: bytes, errors: list[str], finishes: int = 1, seen: dict | None = None) -> tuple[float, int]:
    """Send one frame; wait for script_finished; (seconds, bytes received). ``finishes=2`` for a session's
    first frame: that run may set up the navigation only and the page run follow, so after the first
    script_finished, messages are read until the server has been quiet for 3 s. ``seen`` receives the id
    of the fragment that draws the layer slider, as this session's run shows it (session_fragment)."""
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

    t0, received = time.perf_counter(), 0
    await ws.send(data)
    while True:
        raw = await asyncio.wait_for(ws.recv(), timeout=120)
        received += len(raw)
        msg = ForwardMsg.FromString(raw)
        kind = msg.WhichOneof("type")
        if kind == "delta" and msg.delta.new_element.WhichOneof("type") == "exception":
            errors.append("exception element: " + msg.delta.new_element.exception.message[:100])
        elif seen is not None and kind == "delta" and msg.delta.fragment_id:
            session_fragment(msg, seen)
        elif kind == "script_finished":
            took = time.perf_counter() - t0
            if finishes > 1:
                try:
                    while True:
                        raw = await asyncio.wait_for(ws.recv(), timeout=3)
                        received += len(raw)
                        if ForwardMsg.FromString(raw).WhichOneof("type") == "script_finished":
                            took = time.perf_counter() - t0
                except TimeoutError:
                    pass
            return took, received


def session_fragment(msg, seen: dict) -> None:
    """Note the fragment id of the delta that draws the lab's layer slider. The captured fragment frame
    carries the id the capturing browser's session saw; a fragment run naming an id the session does not
    have is never finished, so each session sends the id its own page showed. (A whole soak once timed out
    at its first three messages, every session; a stale id is one way that happens.)"""
    element = msg.delta.new_element
    kind = element.WhichOneof("type")
    if kind and getattr(getattr(element, kind), "id", "").endswith("-lab_layer"):
        seen["fragment"] = msg.delta.fragment_id


async def learner(base: str, cap: dict, text: str, stop: asyncio.Event, out: dict) -> None:
    """One Lab learner beside a class (benchmarks/cloud_class.py): arrives with its 128-token ``text``, then moves
    the layer or the head once a second (alternating) until ``stop`` is set. Appends to ``out``'s lists:
    "arrivals" and "moves" (seconds to script_finished), "bytes" (received per move), "errors"."""
    seen: dict = {}
    try:
        async with connect(base) as ws:
            took, _ = await _run(ws, frame(cap["full"], cap["ids"], text, 1, 1), out["errors"], 2, seen)
            out["arrivals"].append(took)
            step, layer, head = 0, 1, 1
            while not stop.is_set():
                tick = time.perf_counter()
                if step % 2:
                    head = head % 12 + 1
                else:
                    layer = layer % 6 + 1
                took, size = await _run(ws, frame(cap["fragment"], cap["ids"], text, layer, head,
                                                  seen.get("fragment")), out["errors"])
                out["moves"].append(took)
                out["bytes"].append(size)
                step += 1
                try:
                    await asyncio.wait_for(stop.wait(), max(0.0, 1.0 - (time.perf_counter() - tick)))
                except TimeoutError:
                    pass
    except Exception as err:                              # every failure counts
        out["errors"].append(f"lab: {type(err).__name__}: {err}"[:200])


def load(base: str, pid: int, cap: dict, n: int, seconds: float) -> dict:
    texts = long_sentences(n)
    latencies, arrivals, errors, moved = [], [], [], []
    cpu = {}

    async def session(i: int, ready: asyncio.Barrier) -> None:
        seen: dict = {}
        try:
            async with connect(base) as ws:
                arrivals.append((await _run(ws, frame(cap["full"], cap["ids"], texts[i], 1, 1), errors, 2, seen))[0])
                await ready.wait()
                cpu.setdefault("start", cpu_seconds(pid))
                await asyncio.sleep(i / n)                  # spread over the second
                until, step, layer, head = time.perf_counter() + seconds, 0, 1, 1
                while time.perf_counter() < until:               # every move changes one value (a no-op
                    tick = time.perf_counter()                   # move is not a learner's move)
                    if step % 2:
                        head = head % 12 + 1
                    else:
                        layer = layer % 6 + 1
                    took, size = await _run(ws, frame(cap["fragment"], cap["ids"], texts[i], layer, head,
                                                      seen.get("fragment")), errors)
                    latencies.append(took)
                    moved.append(size)
                    step += 1
                    await asyncio.sleep(max(0.0, 1.0 - (time.perf_counter() - tick)))
        except Exception as err:                              # every failure counts
            errors.append(f"{type(err).__name__}: {err}"[:200])
            if not ready.broken:
                await ready.abort()

    async def main() -> None:
        ready = asyncio.Barrier(n)
        await asyncio.gather(*(session(i, ready) for i in range(n)))

    asyncio.run(main())
    cpu_steady = cpu_seconds(pid) - cpu.get("start", cpu_seconds(pid))

    def p95(xs: list[float]) -> float:
        return (statistics.quantiles(xs, n=20)[18] if len(xs) >= 20 else max(xs or [0])) * 1000

    return {"sessions": n, "moves": len(latencies), "p50_ms": statistics.median(latencies or [0]) * 1000,
            "p95_ms": p95(latencies), "max_ms": max(latencies or [0]) * 1000, "arrival_p95_ms": p95(arrivals),
            "errors": errors, "bytes_per_move_median": statistics.median(moved) if moved else 0,
            "server_cpu_per_move_ms": cpu_steady / max(len(latencies), 1) * 1000}


def soak(base: str, pid: int, cap: dict, n: int, per_session: int) -> dict:
    rss, stop = [], threading.Event()

    def sample() -> None:
        while not stop.is_set():
            rss.append((time.perf_counter(), harness.rss_kb(pid)["VmRSS"] / 1024))
            time.sleep(0.5)

    errors, runs = [], [0]
    start_rss = harness.rss_kb(pid)["VmRSS"] / 1024

    async def session(i: int) -> None:
        texts = long_sentences(per_session, offset=i * (per_session + 25))
        seen: dict = {}
        step = "connect"
        try:
            async with connect(base) as ws:
                for k, text in enumerate(texts):
                    step = f"sentence {k + 1}"
                    await _run(ws, frame(cap["full"], cap["ids"], text, 1, 1), errors, 2 if k == 0 else 1, seen)
                    step = f"sentence {k + 1}, layer move"
                    await _run(ws, frame(cap["fragment"], cap["ids"], text, 2 + k % 5, 1, seen.get("fragment")),
                               errors)
                    step = f"sentence {k + 1}, head move"
                    await _run(ws, frame(cap["fragment"], cap["ids"], text, 2 + k % 5, 2 + k % 11,
                                         seen.get("fragment")), errors)
                    runs[0] += 3
        except Exception as err:
            errors.append(f"{type(err).__name__} at {step}: {err}"[:200])

    async def main() -> None:
        await asyncio.gather(*(session(i) for i in range(n)))

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    t0 = time.perf_counter()
    asyncio.run(main())
    left = time.perf_counter()
    time.sleep(60)
    stop.set()
    sampler.join()
    during = [mb for t, mb in rss if t <= left]
    after = [(t - left, mb) for t, mb in rss if t > left]
    under_450 = next((t for t, mb in after if mb < 450), None)
    return {"sessions": n, "sentences_each": per_session, "runs": runs[0], "seconds": round(left - t0),
            "rss_start_mb": round(start_rss), "rss_peak_mb": round(max(during)), "rss_at_leave_mb": round(during[-1]),
            "rss_after_60s_mb": round(after[-1][1]), "first_under_450_after_s": under_450,
            "vmhwm_mb": round(harness.rss_kb(pid)["VmHWM"] / 1024), "errors": errors[:5], "n_errors": len(errors)}


def bytes_per_move(base: str, cap: dict) -> dict:
    errors = []

    async def main() -> list[int]:
        async with connect(base) as ws:
            text, seen = long_sentences(1, 5800)[0], {}
            await _run(ws, frame(cap["full"], cap["ids"], text, 1, 1), errors, 2, seen)
            return [(await _run(ws, frame(cap["fragment"], cap["ids"], text, layer, head, seen.get("fragment")),
                                errors))[1]
                    for layer, head in itertools.islice(itertools.product(range(1, 7), range(1, 13)), 1, 13)]

    sizes = asyncio.run(main())
    return {"moves": len(sizes), "median_bytes": statistics.median(sizes), "max_bytes": max(sizes), "errors": errors}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("what", choices=("load", "soak", "bytes"))
    parser.add_argument("--sessions", type=int, default=30)
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--sentences", type=int, default=100)
    parser.add_argument("--no-browser", action="store_true", help="capture without Chromium (experimental)")
    args = parser.parse_args()
    with harness.serve() as (proc, base, _):
        cap = capture_ws(base) if args.no_browser else capture(base)
        if args.what == "load":
            result = load(base, proc.pid, cap, args.sessions, args.seconds)
        elif args.what == "soak":
            result = soak(base, proc.pid, cap, args.sessions, args.sentences)
        else:
            result = bytes_per_move(base, cap)
    result["load_average_at_end"] = round(os.getloadavg()[0], 2)
    for k, v in result.items():
        print(f"{k}: {v}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
