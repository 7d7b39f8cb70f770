"""How fast and how big the NumPy MiniLM is: load time, a 12-token forward pass, process memory.

    python benchmarks/bench_model.py [--runs 200]

Load time is the first `load_model()` in a fresh process (npz read + float16 → float32 upcast);
the forward pass is `model.run(text)` (tokenise + 6 layers + stacking the outputs), the median
after warm-up, as wall time and as this process's CPU time (less sensitive to other load on the
machine; the load average is printed too); RSS is VmRSS from /proc/self/status with the model loaded.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

SENTENCE_12 = "The cat sat on the mat because it was warm"         # 10 pieces + [CLS] + [SEP]


def rss_mb() -> float:
    """This process's resident memory in MB (VmRSS); shared with soak_lab.py, which must not get a NaN."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS in /proc/self/status")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=200)
    args = parser.parse_args()

    rss_before = rss_mb()
    start = time.perf_counter()
    import attention_core

    model = attention_core.load_model()
    load_s = time.perf_counter() - start
    rss_loaded = rss_mb()

    tokens = model.run(SENTENCE_12).tokens
    for _ in range(20):                                             # warm-up
        model.run(SENTENCE_12)
    times, cpu_times = [], []
    for _ in range(args.runs):
        t0, c0 = time.perf_counter(), time.process_time()
        model.run(SENTENCE_12)
        times.append(time.perf_counter() - t0)
        cpu_times.append(time.process_time() - c0)
    long_times = []
    long_text = "word " * 200                                       # cut to 128 tokens
    for _ in range(20):
        t0 = time.perf_counter()
        model.run(long_text)
        long_times.append(time.perf_counter() - t0)
    rss_after = rss_mb()

    rows = [
        ("import + load_model()", f"{load_s * 1000:.0f} ms"),
        (f"forward, T={len(tokens)} (median of {args.runs})", f"{statistics.median(times) * 1000:.1f} ms"),
        (f"forward, T={len(tokens)} (p90)", f"{sorted(times)[int(0.9 * len(times))] * 1000:.1f} ms"),
        (f"forward, T={len(tokens)} CPU time (median)", f"{statistics.median(cpu_times) * 1000:.1f} ms"),
        ("forward, T=128 (median of 20)", f"{statistics.median(long_times) * 1000:.1f} ms"),
        ("RSS before import", f"{rss_before:.0f} MB"),
        ("RSS with model loaded", f"{rss_loaded:.0f} MB"),
        ("RSS after the runs", f"{rss_after:.0f} MB"),
    ]
    rows.append(("load average (1 min) at the end", f"{os.getloadavg()[0]:.2f} on {os.cpu_count()} cores"))
    width = max(len(name) for name, _ in rows)
    print(f"{'measure':<{width}}  value")
    print(f"{'-' * width}  -------")
    for name, value in rows:
        print(f"{name:<{width}}  {value}")


if __name__ == "__main__":
    main()
