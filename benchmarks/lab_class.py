"""A class in the Lab on long sentences, against one real server: load (p95) and a memory soak (RSS).

    python benchmarks/lab_class.py load   [--sessions 30] [--seconds 20]
    python benchmarks/lab_class.py soak   [--sessions 30] [--sentences 100]
    python benchmarks/lab_class.py bytes                       # what one layer/head move sends, at 128 tokens

Not a test: it prints figures for docs/PERFORMANCE.md (load, bytes) and docs/RELIABILITY.md (soak).

How: Chromium opens the lab once, a sentence is typed and the layer slider moved, and the websocket frames
it sent are kept (benchmarks/run.py's replay idea). Every later message is one of those frames with the
widget values rewritten (the sentence, the layer, the head), sent by plain websocket clients: one asyncio
process, N sessions, each its own connection, as N browsers would be. Each session gets sentences of its own,
long enough to be cut at the model's 128 tokens and different within those 128.

load: each session arrives with its own 128-token sentence, then moves the layer or the head once a
      second (alternating) for --seconds; latency from sending the move to the server's script_finished.
soak: each session runs --sentences distinct 128-token sentences, moving the layer and the head after
      each; the server's RSS is sampled every 0.5 s throughout and for 60 s after every session has left.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import statistics
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from soak_lab import sentences  # noqa: E402

from tests.browser import harness  # noqa: E402

SLUG = "real_model_lab"


def long_sentences(n: int, offset: int = 0) -> list[str]:
    """n texts, each at least 128 tokens long and different from the others in its first sentence."""
    pool = sentences(n + 20, offset)
    return [" ".join(pool[i:i + 20]) if i + 20 <= len(pool) else " ".join(pool[i - 20:i]) for i in range(n)]


def capture(base: str) -> dict:
    """The frames a real Chromium sends: a full rerun with a typed sentence, and a layer move (a fragment
    rerun); and the widget ids of the sentence, layer and head."""
    from playwright.sync_api import sync_playwright
    from streamlit.proto.BackMsg_pb2 import BackMsg

    sent: list[bytes] = []
    with sync_playwright() as p:
        browser = harness.launch(p)
        page = browser.new_page(viewport={"width": 1400, "height": 3000})
        runs = harness.Runs(page)
        page.on("websocket", lambda ws: ws.on("framesent", lambda f: sent.append(f) if isinstance(f, bytes) else None))
        runs.open(harness.page_url(base, SLUG))
        done = runs.finished
        page.wait_for_selector('[data-testid="stMain"] [data-testid="stTextInput"] input', timeout=600_000)
        box = page.locator('[data-testid="stMain"] [data-testid="stTextInput"] input').first
        box.fill(long_sentences(1, 6100)[0])
        box.press("Enter")
        runs.wait(done)
        page.wait_for_selector(harness.SLIDER_INPUT, timeout=600_000)
        for key in ("ArrowRight", "ArrowLeft", "ArrowRight"):        # until the browser has sent a fragment run
            done = runs.finished
            page.locator(harness.SLIDER_INPUT).first.focus()
            page.keyboard.press(key)
            runs.wait(done)
            if any(BackMsg.FromString(f).rerun_script.fragment_id for f in sent):
                break
        browser.close()
    reruns = [BackMsg.FromString(f) for f in sent]
    reruns = [m for m in reruns if m.WhichOneof("type") == "rerun_script"]
    full = next(m for m in reversed(reruns) if not m.rerun_script.fragment_id)
    fragment = next(m for m in reversed(reruns) if m.rerun_script.fragment_id)
    ids = {}
    for w in fragment.rerun_script.widget_states.widgets:
        for key in ("lab_text", "lab_layer", "lab_head"):
            if w.id.endswith(f"-{key}") or w.id == key:
                ids[key] = w.id
    missing = {"lab_text", "lab_layer", "lab_head"} - set(ids)
    if missing:
        raise SystemExit(f"could not find the widgets {missing} in the captured frames")
    return {"full": full, "fragment": fragment, "ids": ids}


def capture_ws(base: str) -> dict:
    """The same as capture(), without a browser: one websocket run of the lab gives the widgets' ids and
    the fragment's id (from the deltas), and the frames are built from them. (On a machine too loaded for
    Chromium to draw the lab within minutes, this still works.)"""
    from streamlit.proto.BackMsg_pb2 import BackMsg

    async def first_run() -> list:
        got = []
        async with _connect(base) as ws:
            msg = BackMsg()
            msg.rerun_script.page_name = SLUG
            await ws.send(msg.SerializeToString())
            from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
            finished = 0
            while True:                     # a fresh session's first run only sets up the navigation; the
                m = ForwardMsg.FromString(await asyncio.wait_for(ws.recv(), timeout=600))   # page runs next
                got.append(m)
                finished += m.WhichOneof("type") == "script_finished"
                if finished == 2:
                    return got

    ids, fragment_id = {}, ""
    for m in asyncio.run(first_run()):
        if m.WhichOneof("type") != "delta" or m.delta.WhichOneof("type") != "new_element":
            continue
        element = m.delta.new_element
        widget = getattr(element, element.WhichOneof("type"))
        wid = getattr(widget, "id", "")
        for key in ("lab_text", "lab_layer", "lab_head"):
            if wid.endswith(f"-{key}"):
                ids[key] = wid
                if key == "lab_layer":
                    fragment_id = m.delta.fragment_id
    if set(ids) != {"lab_text", "lab_layer", "lab_head"} or not fragment_id:
        raise SystemExit(f"the lab's widgets or fragment were not found: {ids}, {fragment_id!r}")
    full = BackMsg()
    full.rerun_script.page_name = SLUG
    for key, wid in ids.items():
        w = full.rerun_script.widget_states.widgets.add()
        w.id = wid
        if key == "lab_text":
            w.string_value = ""
        else:
            w.double_array_value.data.append(1.0)
    fragment = BackMsg()
    fragment.CopyFrom(full)
    fragment.rerun_script.fragment_id = fragment_id
    return {"full": full, "fragment": fragment, "ids": ids}


def frame(template, ids: dict, text: str | None = None, layer: int | None = None, head: int | None = None) -> bytes:
    """``template`` (a captured BackMsg) with the sentence, layer and head set; serialised."""
    from streamlit.proto.BackMsg_pb2 import BackMsg

    msg = BackMsg()
    msg.CopyFrom(template)
    for w in msg.rerun_script.widget_states.widgets:
        if w.id == ids["lab_text"] and text is not None:
            w.string_value = text
        elif w.id == ids["lab_layer"] and layer is not None:
            del w.double_array_value.data[:]
            w.double_array_value.data.append(float(layer))
        elif w.id == ids["lab_head"] and head is not None:
            del w.double_array_value.data[:]
            w.double_array_value.data.append(float(head))
    msg.rerun_script.query_string = ""
    return msg.SerializeToString()


async def _run(ws, data: bytes, errors: list[str], finishes: int = 1) -> tuple[float, int]:
    """Send one frame; wait for script_finished; (seconds, bytes received). ``finishes=2`` for a session's
    first frame: that run may set up the navigation only and the page run follow, so after the first
    script_finished, messages are read until the server has been quiet for 3 s."""
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


def _connect(base: str):
    import websockets

    return websockets.connect(base.replace("http://", "ws://") + "/_stcore/stream", subprotocols=["streamlit"],
                              max_size=None, open_timeout=120, ping_interval=None)


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of the server process so far (/proc/<pid>/stat)."""
    import os

    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def load(base: str, pid: int, cap: dict, n: int, seconds: float) -> dict:
    texts = long_sentences(n)
    latencies, arrivals, errors, moved = [], [], [], []
    cpu = {}

    async def session(i: int, ready: asyncio.Barrier) -> None:
        try:
            async with _connect(base) as ws:
                arrivals.append((await _run(ws, frame(cap["full"], cap["ids"], texts[i], 1, 1), errors, 2))[0])
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
                    took, size = await _run(ws, frame(cap["fragment"], cap["ids"], texts[i], layer, head), errors)
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
        try:
            async with _connect(base) as ws:
                for k, text in enumerate(texts):
                    await _run(ws, frame(cap["full"], cap["ids"], text, 1, 1), errors, 2 if k == 0 else 1)
                    await _run(ws, frame(cap["fragment"], cap["ids"], text, 2 + k % 5, 1), errors)
                    await _run(ws, frame(cap["fragment"], cap["ids"], text, 2 + k % 5, 2 + k % 11), errors)
                    runs[0] += 3
        except Exception as err:
            errors.append(f"{type(err).__name__}: {err}"[:200])

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
        async with _connect(base) as ws:
            text = long_sentences(1, 5800)[0]
            await _run(ws, frame(cap["full"], cap["ids"], text, 1, 1), errors, 2)
            return [(await _run(ws, frame(cap["fragment"], cap["ids"], text, layer, head), errors))[1]
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
    import os

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
