"""How fast and how big the NumPy MiniLM is: load time, a 12-token forward pass, process memory, and
the 128-token pass against the floor of its own matrix products.

    python -m benchmarks.bench_model [--runs 200]

The floor ("bare") is the same matrix products the model does, with its own weights, done bare in NumPy
float32 on one BLAS thread, as the model runs them: per layer x·[W_Q|W_K|W_V], the 12 heads' Q Kᵀ and
weights·V, heads·W_O, x·W₁ and GELU(…)·W₂. Model and bare alternate in one loop, so the ratio compares
the two under the same load (the machine is shared); FLOPs count 2·m·k·n per product, so GFLOP/s says
how close each comes to what this CPU's BLAS can do.

Load time is the first `load_model()` in a fresh process (npz read + float16 → float32 upcast);
the forward pass is `model.run(text)` (tokenise + 6 layers + stacking the outputs), the median
after warm-up, as wall time and as this process's CPU time (less sensitive to other load on the
machine; the load average is printed too); RSS is VmRSS from /proc/self/status with the model loaded.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from pathlib import Path

SENTENCE_12 = "The cat sat on the mat because it was warm"         # 10 pieces + [CLS] + [SEP]


def rss_mb() -> float:
    """This process's resident memory in MB (VmRSS); shared with benchmarks/soak_lab.py, which must not get a NaN."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS in /proc/self/status")


def flops(T: int) -> int:
    """Multiply-adds ×2 in one forward pass at T tokens (matrix products only; elementwise work is small)."""
    from attention_core import bert

    d, ff, H = bert.D_MODEL, bert.D_FF, bert.N_HEADS
    per_layer = 2 * T * d * 3 * d + 2 * 2 * H * T * T * (d // H) + 2 * T * d * d + 2 * 2 * T * d * ff
    return bert.N_LAYERS * per_layer


def bare_products(model, T: int):
    """A function doing the forward pass's matrix products at T tokens, bare, on the model's own weights."""
    import numpy as np

    from attention_core import bert
    from attention_core._blas import single_threaded_blas

    rng = np.random.default_rng(0)
    p, d, H = model.params, bert.D_MODEL, bert.N_HEADS
    x = rng.standard_normal((T, d), dtype=np.float32)
    h = rng.standard_normal((T, bert.D_FF), dtype=np.float32)
    q = rng.standard_normal((H, T, d // H), dtype=np.float32)
    w = rng.random((H, T, T), dtype=np.float32)

    def run() -> None:
        with single_threaded_blas():
            for layer in range(bert.N_LAYERS):
                x @ p[f"layer{layer}.qkv.w"]
                q @ q.swapaxes(-1, -2)
                w @ q
                x @ p[f"layer{layer}.attn_out.w"]
                x @ p[f"layer{layer}.ffn_in.w"]
                h @ p[f"layer{layer}.ffn_out.w"]
    return run


def model_vs_bare(model, text: str, rounds: int) -> dict:
    """Median model pass and median bare products at the same T, alternating, in seconds; and T."""
    T = len(model.run(text).tokens)
    bare = bare_products(model, T)
    model_t, bare_t = [], []
    for _ in range(rounds):
        t0 = time.perf_counter()
        model.run(text)
        t1 = time.perf_counter()
        bare()
        model_t.append(t1 - t0)
        bare_t.append(time.perf_counter() - t1)
    return {"T": T, "model": statistics.median(model_t), "bare": statistics.median(bare_t)}


def stages(model, text: str, rounds: int) -> dict[str, float]:
    """Where a pass's time goes, stage by stage, summed over the six layers: median seconds of each stage,
    each run on the layer's own input from a real pass (so GELU, softmax and LayerNorm see real numbers)."""
    from attention_core import bert
    from attention_core._blas import single_threaded_blas

    p = model.params
    hidden = model.run(text).hidden_states
    T = hidden.shape[1]
    rounds_of: dict[str, list[float]] = {}

    def layer_once(layer: int, spent: dict[str, float]) -> None:
        def timed(name: str, f, *args):
            t0 = time.perf_counter()
            value = f(*args)
            spent[name] = spent.get(name, 0.0) + time.perf_counter() - t0
            return value

        w = {name: p[f"layer{layer}.{name}"] for name in ("qkv.w", "qkv.b", "attn_out.w", "attn_out.b",
                                                           "ffn_in.w", "ffn_in.b", "ffn_out.w", "ffn_out.b")}
        x = hidden[layer]
        fused = timed("x·[W_Q|W_K|W_V] + b", bert.linear, x, w["qkv.w"], w["qkv.b"])
        Q, K, V = fused.reshape(T, 3, bert.N_HEADS, -1).transpose(1, 2, 0, 3)
        heads = timed("12 heads: softmax(QKᵀ/√d)·V", bert.attention_heads, Q, K, V)[1]
        concat = timed("concat heads (a copy)", lambda h: h.transpose(1, 0, 2).reshape(T, -1), heads)
        attn = timed("concat·W_O + b", bert.linear, concat, w["attn_out.w"], w["attn_out.b"])
        attn += x
        x1 = timed("LayerNorm 1", bert.layer_norm_of, attn, p, layer, "ln_attn")
        h = timed("x·W₁ + b₁", bert.linear, x1, w["ffn_in.w"], w["ffn_in.b"])
        g = timed("GELU", bert.gelu, h)
        f = timed("GELU(…)·W₂ + b₂", bert.linear, g, w["ffn_out.w"], w["ffn_out.b"])
        f += x1
        timed("LayerNorm 2", bert.layer_norm_of, f, p, layer, "ln_ffn")

    with single_threaded_blas():
        for _ in range(rounds):
            spent: dict[str, float] = {}
            for layer in range(bert.N_LAYERS):
                layer_once(layer, spent)
            for name, secs in spent.items():
                rounds_of.setdefault(name, []).append(secs)
    return {name: statistics.median(v) for name, v in rounds_of.items()}


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
    short = model_vs_bare(model, SENTENCE_12, 100)
    long = model_vs_bare(model, "word " * 200, 40)                # cut to 128 tokens
    split = stages(model, "word " * 200, 30)
    rss_after = rss_mb()

    rows = [
        ("import + load_model()", f"{load_s * 1000:.0f} ms"),
        (f"forward, T={len(tokens)} (median of {args.runs})", f"{statistics.median(times) * 1000:.1f} ms"),
        (f"forward, T={len(tokens)} (p90)", f"{sorted(times)[int(0.9 * len(times))] * 1000:.1f} ms"),
        (f"forward, T={len(tokens)} CPU time (median)", f"{statistics.median(cpu_times) * 1000:.1f} ms"),
    ]
    for m in (short, long):
        gflop = flops(m["T"]) / 1e9
        rows += [
            (f"T={m['T']}: FLOPs of the matrix products", f"{gflop:.3f} GFLOP"),
            (f"T={m['T']}: model pass (median, alternating)", f"{m['model'] * 1000:.1f} ms = "
                                                                f"{gflop / m['model']:.1f} GFLOP/s"),
            (f"T={m['T']}: bare products (median, alternating)", f"{m['bare'] * 1000:.1f} ms = "
                                                                  f"{gflop / m['bare']:.1f} GFLOP/s"),
            (f"T={m['T']}: model / bare", f"{m['model'] / m['bare']:.2f}×"),
        ]
    total = sum(split.values())
    rows += [(f"T=128, stage by stage (6 layers, median of 30): {name}",
              f"{secs * 1000:.2f} ms ({100 * secs / total:.0f}%)") for name, secs in split.items()]
    rows += [
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
