"""Where an app server's time goes during a class: a stack sampler started inside the server (issue 48's profile).

A benchmark starts the server with ``env()``: PYTHONPATH then leads to a ``sitecustomize`` that, in that
process alone (ATTENTION_SAMPLE_OUT set), starts one daemon thread which every ``INTERVAL_S`` reads every other
thread's stack (sys._current_frames) and counts it under the first kind below that the stack holds, innermost
frame first; a thread waiting (select, a lock, a sleep, a queue) counts as idle and is left out. The counts go
to a JSON file every 2 s. Wall-clock samples of busy threads, not CPU: on one core a thread waiting for the
interpreter lock counts where it waits, so the shares say where the threads are, in proportion.

Kinds: Redis round trips (redis-py's frames), the room's snapshot (classroom/ reading or decoding it), waking
followers (ui/wake*.py), a script rerun (Streamlit's script runner: the page's own Python), sending to browsers
(Streamlit's forward messages, protobuf, the websocket), anything else.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

from devtools.harness import ROOT

INTERVAL_S = 0.005
_IDLE = {"wait", "select", "poll", "epoll", "sleep", "_wait_for_tstate_lock", "acquire", "get", "accept",
         "_worker", "run_forever", "_run_once"}
# Threads that wait inside C (time.sleep, a socket read with a timeout), seen by the Python frame that called it:
# Streamlit's file watcher between looks, Redis's listener waiting for a change (can_read), and a run waiting
# for another to compute a cached value, and the memory sweeper between passes.
_IDLE_CALLS = {("polling_path_watcher.py", "task"), ("socket.py", "can_read"), ("base.py", "can_read"),
               ("cache_utils.py", "_hold_compute_lock"), ("sweeper.py", "sweep_forever")}


def _in(stack: list[tuple[str, str]], *parts: str) -> bool:
    return any(part in f for f, _ in stack for part in parts)


def _snapshot(stack: list[tuple[str, str]]) -> bool:
    """The room's snapshot or version read, or JSON encoded or decoded for the room store, outside Redis's own
    frames (counted as its round trips)."""
    return (any("/classroom/" in f and ("snapshot" in fn or fn == "version") for f, fn in stack)
            or (_in(stack, "/json/") and _in(stack, "/classroom/")))


# The event loop woken to take a run's messages (Streamlit's runtime queue) or a socket's bytes: sending's share.
_HANDING = {"_enqueued_some_message", "_read_from_self", "_write_to_self", "_read_ready__data_received"}

KINDS = (("Redis round trips", lambda st: _in(st, "/redis/")),
         ("room snapshot (read, encode, decode)", _snapshot),
         ("waking followers", lambda st: _in(st, "/ui/wake")),
         ("script reruns (the page's Python)", lambda st: _in(st, "/scriptrunner/")),
         ("sending to browsers (protobuf, websocket)",
          lambda st: _in(st, "forward_msg", "/tornado/", "websocket", "browser_websocket")
          or any(fn in _HANDING for _, fn in st[:3])))


def kind(stack: list[tuple[str, str]]) -> str | None:
    """The kind of one thread's stack, as (file, function) pairs innermost first; None for a waiting thread."""
    calls = {(Path(f).name, fn) for f, fn in stack[:3]}
    if stack and (stack[0][1] in _IDLE or calls & _IDLE_CALLS):
        return None
    for name, holds in KINDS:
        if holds(stack):
            return name
    return "other"


def _stack(frame) -> list[tuple[str, str]]:
    out = []
    while frame is not None:
        out.append((frame.f_code.co_filename, frame.f_code.co_name))
        frame = frame.f_back
    return out


def start(out: str) -> None:
    """Sample this process's threads until it exits, writing {kind: samples} to ``out`` every 2 s."""
    counts: Counter = Counter()
    tops: Counter = Counter()                # each kind's innermost frames: what the kinds hold, to check them

    def run() -> None:
        me, last = threading.get_ident(), time.monotonic()
        while True:
            time.sleep(INTERVAL_S)
            for ident, frame in sys._current_frames().items():
                if ident != me:
                    stack = _stack(frame)
                    counts[got := kind(stack) or "idle"] += 1
                    tops[f"{got} | " + " < ".join(f"{Path(f).name}:{fn}" for f, fn in stack[:3])] += 1
            if time.monotonic() - last >= 2:
                last = time.monotonic()
                Path(out).write_text(json.dumps(dict(counts)))
                Path(f"{out}.tops").write_text(json.dumps(dict(tops.most_common(60)), indent=0))

    threading.Thread(target=run, name="attention-bench-sampler", daemon=True).start()


def env(out: Path) -> dict[str, str]:
    """The environment that starts the sampler in a server (harness.start(env=...)), writing to ``out``."""
    site = Path(tempfile.mkdtemp(prefix="where-time-goes-"))
    (site / "sitecustomize.py").write_text(
        "import os\nif os.environ.get('ATTENTION_SAMPLE_OUT'):\n"
        "    from benchmarks import where_time_goes\n"
        "    where_time_goes.start(os.environ['ATTENTION_SAMPLE_OUT'])\n")
    path = os.pathsep.join([str(site), str(ROOT), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    return {"PYTHONPATH": path, "ATTENTION_SAMPLE_OUT": str(out)}


def read(out: Path) -> dict[str, int]:
    try:
        return json.loads(out.read_text())
    except (OSError, ValueError):
        return {}


def shares(before: dict[str, int], after: dict[str, int]) -> dict[str, float]:
    """Each busy kind's share of the busy samples between two reads (idle left out), largest first."""
    busy = {k: after.get(k, 0) - before.get(k, 0) for k in after if k != "idle"}
    total = sum(v for v in busy.values() if v > 0)
    return {k: v / total for k, v in sorted(busy.items(), key=lambda kv: -kv[1]) if total and v > 0}


def line(name: str, got: dict[str, float]) -> str:
    return f"- {name}: " + ", ".join(f"{k} {v:.0%}" for k, v in got.items()) if got else f"- {name}: no samples"
