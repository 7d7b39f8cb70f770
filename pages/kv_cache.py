"""Generating one token at a time: a step needs only the new query and the cached keys and values, gives the
recomputed outputs exactly, and the cache's bytes are paid in memory."""

import numpy as np
import pandas as pd
import streamlit as st

import attention_core as core
from figures import palette
from figures.kv_cache import cache_figure, cost_figure, step_weights_figure, work_figure
from ui import navigation
from ui.charts import built, chart
from ui.frame import lesson
from ui.lessons import kv_cache
from ui.lessons.kv_cache import GPU, LENGTHS, WORDS
from ui.numbers import counted, written
from ui.steps import Steps

MODELS = {m.name: m for m in core.MODEL_SHAPES}
PRECISIONS = {"fp32, 4 bytes": 4, "fp16, 2 bytes": 2, "fp8, 1 byte": 1}
TOKENS = [f"{i + 1} {w}" for i, w in enumerate(WORDS)]            # numbered: "the" comes twice
COLUMNS = [f"h{h + 1}·{i + 1}" for h in range(kv_cache.N_HEADS) for i in range(kv_cache.D_HEAD)]


class Step(Steps):
    """The presenter steps, in order (the step bar shows each label)."""

    CACHE = "One new row per token"
    SAME = "Cached against recomputed"
    COST = "What the cache costs"
    MEMORY = "Why long contexts are memory-bound"


frame = lesson("kv_cache")


def size(n_bytes: float) -> str:
    """Bytes in decimal units, as memory is sold: 36.9 MB, 13.5 GB."""
    for unit, scale in (("TB", 1e12), ("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if n_bytes >= scale:
            return f"{n_bytes / scale:,.1f} {unit}"
    return f"{n_bytes:,.0f} bytes"


def step_sentence(t: int) -> str:
    """What step t computes and what it only reads, in words that fit t = 1 (empty cache) and t = 2."""
    if t == 1:
        return (f"**Step 1** reads “{WORDS[0]}”: the cache is empty, so the token's own key and value become row 1, "
                "and its query attends to that row alone.")
    rows, old = ("both rows", "Row 1 is") if t == 2 else (f"all {t} rows", f"Rows 1 to {t - 1} are")
    return (f"**Step {t}** reads “{WORDS[t - 1]}”: it computes that one token's query, key and value in each layer, "
            f"appends the key and value as row {t} of the cache, and attends from the one query over {rows}. "
            f"{old} read, never recomputed.")


def cache_charts(run: kv_cache.ToyRun, t: int, layer: int) -> None:
    """The layer's cached keys and values after step t, and the new token's weights over them."""
    left, right = st.columns(2)
    for column, rows, name, colour, key in ((left, run.keys[layer], "keys K", palette.KEY, "fig_keys"),
                                            (right, run.values[layer], "values V", palette.VALUE, "fig_values")):
        with column:
            chart(built(cache_figure, rows, t, TOKENS, COLUMNS, f"Cached {name}, layer {layer + 1}", colour),
                  f"After step {t}: {t} row{'s' if t > 1 else ''} of {name.split()[0]}, the newest outlined; "
                  f"{len(WORDS) - t} token{'s' if len(WORDS) - t != 1 else ''} not read yet.",
                  lambda rows=rows: pd.DataFrame(rows[:t], index=TOKENS[:t], columns=COLUMNS), key=frame.key(key))
    weights = run.weights[layer][t - 1, :, :t]
    chart(built(step_weights_figure, weights, TOKENS[:t]),
          f"Step {t}: “{WORDS[t - 1]}” asks one query per head and weighs all {t} cached rows; each head's "
          "weights add up to 1.",
          lambda: pd.DataFrame(weights.T, index=TOKENS[:t], columns=[f"head {h + 1}" for h in range(len(weights))]),
          key=frame.key("fig_weights"))


def same_outputs(run: kv_cache.ToyRun, t: int) -> None:
    """Step 2: the largest difference from recomputing, and the multiply-adds of both ways."""
    st.subheader("Cached against recomputed")
    delta, cached, uncached = float(run.delta[t - 1]), int(run.cached[t - 1]), int(run.uncached[t - 1])
    row = st.container(horizontal=True)                # wraps where a column is narrow
    row.metric(f"max |Δ| up to step {t}", written(delta, 2))
    row.metric(f"multiply-adds, step {t}, cached", f"{cached:,}")
    row.metric(f"multiply-adds, step {t}, recomputed", f"{uncached:,}")
    said = ("no difference at all: every number is bit for bit the same" if delta == 0 else
            f"at most **{written(delta, 2)}**, against outputs as large as {written(run.largest, 3)}: rounding")
    st.markdown(f"Every output up to step {t}, cached against recomputed from scratch: {said}.")
    total_c, total_u = int(run.cached[:t].sum()), int(run.uncached[:t].sum())
    ratio = uncached / cached
    more = "the same work at the first step" if t == 1 else f"{ratio:.1f}× as many"
    st.markdown(f"Step {t} with the cache projects one token and scores one query against {counted(t, 'key')}: "
                f"**{cached:,}** multiply-adds. Recomputing projects {counted(t, 'token')} and scores "
                f"{counted(t, 'query', 'queries')} against {counted(t, 'key')}: **{uncached:,}**, {more}. "
                f"Over steps 1 to {t}: {total_c:,} against {total_u:,}.")
    chart(built(work_figure, run.cached, run.uncached, t),
          "Per step, the cached work grows by the same amount each step (like t); recomputing grows faster "
          "each step (like t²). The dotted line is the step shown.",
          lambda: pd.DataFrame({"step": np.arange(1, len(WORDS) + 1), "cached": run.cached,
                                "recomputed": run.uncached}).set_index("step"), key=frame.key("fig_work"))


# The sections' headings sit outside their fragments: a move resends only what it can change.
def decoder(shown: int) -> None:
    st.subheader("One new row per token")
    decoder_steps(shown)


@frame.fragment
def decoder_steps(shown: int) -> None:
    a, b, c = st.columns([3, 1, 1])
    t = frame.control(a.slider, "step", "Step t: tokens read so far", 1, len(WORDS), 4,
                      help="Feed the sentence to the decoder one token at a time.")
    layer = int(frame.control(b.radio, "layer", "Layer shown", ["1", "2"], horizontal=True)) - 1
    seed = frame.control(c.number_input, "seed", "Random seed", 0, 10_000, 0)
    frame.note("decoder")
    run = kv_cache.toy_run(seed)
    st.markdown(step_sentence(t))
    cache_charts(run, t, layer)
    if frame.predict("same") and shown >= Step.SAME:
        same_outputs(run, t)


def cost(shown: int) -> None:
    if shown < Step.COST:
        return
    st.subheader("What the cache costs")
    frame.note("cost")
    cost_settings(shown)


@frame.fragment
def cost_settings(shown: int) -> None:
    shape = MODELS[frame.control(st.radio, "model", "Model", list(MODELS))]
    a, b, c = st.columns(3)
    n = frame.control(a.select_slider, "tokens", "Tokens of context", LENGTHS, kv_cache.CONTEXT,
                      help="The most tokens each model reads (its context window): "
                           + ", ".join(f"{short(m)} {m.context:,}" for m in MODELS.values())
                           + ". Beyond it, the bytes are what a cache that long would take.")
    batch = frame.control(b.slider, "batch", "Sequences in the batch", 1, 64, 1)
    bytes_per = PRECISIONS[frame.control(c.radio, "bytes", "Cache precision", list(PRECISIONS), index=1,
                                         horizontal=True)]
    k = kv_cache.cache_cost(shape, n, batch, bytes_per)
    row = st.container(horizontal=True)
    row.metric("KV cache", size(k.cache))
    row.metric("weights (16-bit)", size(k.weights))
    ratio = k.cache / k.weights
    row.metric("cache ÷ weights", f"{ratio:,.0f}×" if ratio >= 100 else f"{written(ratio, 3)}×")
    st.markdown(f"2 × {shape.n_layers} layers × {shape.n_kv_heads} key–value heads × {shape.d_head} numbers × "
                f"{n:,} tokens × {batch} sequence{'s' if batch > 1 else ''} × {bytes_per} byte"
                f"{'s' if bytes_per > 1 else ''} = **{k.cache:,} bytes** ({size(k.cache)}), {size(k.per_token)} "
                "for each further token of context.")
    window(shape, n)
    st.markdown(outgrows(k, n))
    if shape.n_kv_heads < shape.n_heads:
        st.markdown(f"Grouped-query attention: {short(shape)}'s {shape.n_heads} query heads share "
                    f"{shape.n_kv_heads} key–value heads (its published configuration), so its cache is "
                    f"{shape.n_heads // shape.n_kv_heads}× smaller than with one key–value head per query head.")
    chart(built(cost_figure, np.array(LENGTHS), k.curve, float(k.weights), n, shape.context),
          f"{shape.name}: the cache grows in proportion to the context (a straight line on these log–log "
          f"axes); the dashed line is the weights. Batch {batch}, cache at {bytes_per} byte"
          f"{'s' if bytes_per > 1 else ''} a number.",
          lambda: pd.DataFrame({"tokens": LENGTHS, "cache bytes": k.curve, "weight bytes": k.weights}
                               ).set_index("tokens"), key=frame.key("fig_cost"))
    if shown >= Step.MEMORY:
        memory_bound(k, n, batch)


def short(shape: core.ModelShape) -> str:
    """The model's own name, without the description after its comma: "Llama-3-8B"."""
    return shape.name.split(",")[0]


def window(shape: core.ModelShape, n: int) -> None:
    """Whether this context is one the model can read: past its window the numbers are hypothetical."""
    if n > shape.context:
        st.info(f"{short(shape)} reads at most {shape.context:,} tokens (its context window): "
                f"{n:,} is beyond it, so these bytes are hypothetical, what a cache that long would take.",
                icon=":material/info:")
    else:
        st.caption(f"Within {short(shape)}'s context window of {shape.context:,} tokens.")


def outgrows(k: kv_cache.CacheCost, n: int) -> str:
    """Where the cache outgrows the weights, said for the setting shown (or that it never does in range)."""
    at = k.outgrows_at
    if at > LENGTHS[-1]:
        return (f"Up to {LENGTHS[-1]:,} tokens the cache never outgrows the weights here: it would take "
                f"{at:,} tokens.")
    where = "this context is past that point" if n >= at else f"this context, {n:,}, is still below it"
    return f"**The cache outgrows the weights at {at:,} tokens** of context: {where}."


def memory_bound(k: kv_cache.CacheCost, n: int, batch: int) -> None:
    """Step 4: one generated token's bytes and FLOPs against the GPU's ridge point."""
    st.subheader("Why long contexts are memory-bound")
    frame.note("memory")
    r = k.roof
    verdict = "memory-bound" if r.memory_bound else "compute-bound"
    who = f"each of the {batch} sequences" if batch > 1 else "the one sequence"
    st.markdown(f"Generating one more token for {who} at "
                f"{n:,} tokens of context reads **{size(r.bytes)}** (the weights once and the whole cache, "
                f"{written(100 * k.cache / r.bytes, 3)}% of it) and does {written(r.flops, 3)} FLOPs: "
                f"**{r.intensity:,.2f} FLOPs per byte**, {'below' if r.intensity < r.ridge else 'above'} the "
                f"{GPU.name}'s ridge point of {r.ridge:.0f}. The step is **{verdict}**: reading takes at least "
                f"{written(r.memory_seconds * 1e3, 3)} ms at {GPU.bandwidth / 1e9:,.0f} GB/s, the arithmetic "
                f"{written(r.compute_seconds * 1e3, 3)} ms.")
    st.caption(f"Source: {GPU.source}. Times are lower bounds at full bandwidth or full arithmetic speed.")
    st.page_link(navigation.page("flash_attention"), icon=":material/bolt:",
                 label="More on memory-bound attention: Attention, block by block")


frame.header()
shown = frame.steps(Step.labels())
decoder(shown)
cost(shown)
frame.trap()
frame.check("saves")
frame.footer()
