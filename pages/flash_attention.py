"""Attention, block by block: the online softmax gives the plain formula's answer, and moves far fewer bytes."""

import numpy as np
import pandas as pd
import streamlit as st

import attention_core as core
from figures.flash_attention import block_figure, running_figure, tile_grid_figure, traffic_figure
from ui import controls
from ui.charts import built, chart
from ui.frame import lesson
from ui.lessons import flash_attention
from ui.numbers import counted, written
from ui.steps import Steps

GPU = core.A100_SXM_40GB
LENGTHS = flash_attention.LENGTHS
BLOCKS = flash_attention.BLOCKS
STEP_SHOWN = controls.private_key("fa", "step_shown")   # the block the last run showed


class Step(Steps):
    """The presenter steps, in order (the step bar shows each label)."""

    BLOCKS = "One block of keys at a time"
    SAME_ANSWER = "Tiled against plain"
    TRAFFIC = "Memory traffic, counted"
    WHY = "Why it exists: memory, not arithmetic"


frame = lesson("flash_attention")


def mb(n_bytes: float) -> str:
    """Bytes in decimal megabytes (10⁶ bytes), the one unit of size on this page: 21.2 MB."""
    return f"{n_bytes / 1e6:,.1f} MB"


def block_shown(n_blocks: int, length: int, block: int) -> int:
    """The block the learner steps to (1 when one block holds every key)."""
    if n_blocks == 1:
        st.caption(f"B = {block} is at least T = {length}, so one block holds all {counted(length, 'key')}: there is "
                   "nothing to rescale. Make B smaller than T to see the blocks.")
        return 1
    if st.session_state.get(frame.key("step"), 1) > n_blocks:         # a link's step past the last block
        st.session_state[frame.key("step")] = n_blocks
    shown = frame.control(st.slider, "step", "Block shown", 1, n_blocks,
                          help="Step through the blocks of keys, as the algorithm does.")
    st.session_state[STEP_SHOWN] = shown
    return shown


def restart_walk() -> None:
    """The learner changed T or B: new tiles, so the walk starts again at block 1. A callback runs only for a
    move sent by the browser, not when a link or a presenter's view sets the controls; and a step sent in
    the same message as the new tiles is kept."""
    if st.session_state.get(frame.key("step"), 1) == st.session_state.get(STEP_SHOWN, 1):
        st.session_state[frame.key("step")] = 1


def block_numbers(step: core.FlashStep, step_no: int, n_blocks: int, q: int) -> None:
    """Query q's running max, rescale factor and running sum after this block, and what the block did."""
    name = f"q{q + 1}"
    rescaled = step_no > 1 and step.m_new[q] > step.m_old[q]
    row = st.container(horizontal=True)                # wraps where a column is narrow
    row.metric(f"keys in block {step_no} of {n_blocks}", f"{step.start + 1}–{step.stop}")
    m_old, m, block_max, factor, ell = (written(v[q], 4) for v in (step.m_old, step.m_new, step.block_max,
                                                                    step.rescale, step.l))
    row.metric(f"{name}: running max m", m,
               f"{step.m_new[q] - step.m_old[q]:+.3g}" if rescaled else None, delta_color="off")
    row.metric("rescale factor", factor if step_no > 1 else "—",
               help="e to the power (old max − new max): what the sum and output kept so far are multiplied by.")
    row.metric(f"{name}: running sum ℓ", ell)
    if step_no == 1:
        st.markdown(f"**Block 1.** For {name} the running max starts at this block's largest score, "
                    f"m = {m}, and ℓ = Σ exp(s − m) = {ell} over its {counted(step.stop, 'key')}.")
    elif rescaled:
        st.markdown(f"**Block {step_no} raised {name}'s max** from {m_old} to {m}, so the sum and output kept so "
                    f"far are first multiplied by exp({m_old} − {m}) = **{factor}**, then this block's terms are "
                    f"added: ℓ = {ell}.")
    else:
        st.markdown(f"**Block {step_no} did not raise {name}'s max** (its largest score is {block_max}, below "
                    f"m = {m}), so the factor is e⁰ = 1: its terms are simply added, ℓ = {ell}.")


def block_charts(run: flash_attention.Run, step_no: int, length: int, causal: bool) -> None:
    """The scores seen so far, the last query's running max and sum, and every query's numbers on demand."""
    trace, step, q = run.trace, run.trace.steps[step_no - 1], length - 1
    q_labels, k_labels = [f"q{i + 1}" for i in range(length)], [f"k{j + 1}" for j in range(length)]
    left, right = st.columns(2)
    with left:
        chart(built(tile_grid_figure, core.scores_seen(trace, step_no), step.start, step.stop, q_labels, k_labels),
              f"Scores of the blocks done so far (blank: not reached yet{', or masked' if causal else ''}). "
              "Only the outlined block is in the algorithm's hands now.", None, key=frame.key("fig_grid"))
    with right:
        chart(built(running_figure, run.m[:, q], run.l[:, q], step_no, f"q{length}"),
              f"q{length}'s running max and running sum after each block; the dotted line is block {step_no}.",
              lambda: pd.DataFrame({"block": np.arange(1, trace.n_blocks + 1), "m": run.m[:, q], "ℓ": run.l[:, q],
                                    "rescale": run.rescale[:, q]}), key=frame.key("fig_running"))
    # Made and sent only while open (on_change="rerun" makes the expander report it), like "Show the numbers".
    with st.expander(f"Every query after block {step_no}", key=frame.key("queries__open"), on_change="rerun") as box:
        if box.open:
            st.dataframe(pd.DataFrame({"query": q_labels, "block max": step.block_max, "m before": step.m_old,
                                       "m after": step.m_new, "rescale": step.rescale, "ℓ": step.l}
                                      ).set_index("query"), width="stretch")


def same_answer(run: flash_attention.Run, length: int, causal: bool) -> None:
    """Step 2: after the prediction, how far the tiled output is from the plain one."""
    st.subheader("Tiled against plain: any difference?")
    if frame.predict("same"):
        delta = run.delta
        row = st.container(horizontal=True)                # wraps where a column is narrow
        row.metric("max |Δ|, this block size", written(delta, 2))
        row.metric(f"max |Δ| over B = 1 … {length}", written(run.delta_all, 2))
        row.metric("largest output entry", written(run.largest, 3))
        eps = np.finfo(float).eps
        if delta == 0:
            gap = "**exactly 0**: every entry came out identical"
        elif delta == eps:
            gap = f"**{written(delta, 2)}**, exactly the spacing of 64-bit numbers near 1"
        else:
            gap = (f"**{written(delta, 2)}**, which is {written(delta / eps, 3)} times the spacing of 64-bit numbers "
                   f"near 1 ({written(eps, 2)})")
        st.markdown(f"Tiled against plain, every output entry of every query: the largest difference is {gap}. "
                    f"Over every block size from 1 to {length} it is at most "
                    f"{written(run.delta_all, 2)}" + (" with the causal mask on both sides." if causal else "."))


# One fragment per section: the tile controls rerun the first two, the traffic controls the last two.
@frame.fragment
def tiles(shown: int) -> None:
    st.subheader("One block of keys at a time")
    a, b, c = st.columns(3)
    length = frame.control(a.slider, "tokens", "Tokens T", 2, 24, 12, on_change=restart_walk)
    block = frame.control(b.slider, "block", "Block size B", 1, 24, 4, on_change=restart_walk,
                          help="How many keys (and values) are loaded and scored together.")
    spread = frame.control(c.slider, "spread", "Score spread", 0.1, 30.0, 1.5, 0.1,
                           help="Multiplies every query and key entry: larger means larger, more uneven scores.")
    d, e = st.columns([3, 1])
    causal = frame.control(d.toggle, "causal", "Causal mask", False,
                           help="Each query sees only its own key and the keys before it, as in a text generator.")
    seed = frame.control(e.number_input, "seed", "Seed", 0, 10_000, 0)
    run = flash_attention.flash_run(length, block, spread, causal, seed)
    walk(run, length, block, causal)
    if shown >= Step.SAME_ANSWER:
        same_answer(run, length, causal)


# Its own fragment inside the tiles': stepping to another block changes the numbers and the two charts of
# this block alone, so a step does not rerun the controls above or the prediction below.
@frame.fragment
def walk(run: flash_attention.Run, length: int, block: int, causal: bool) -> None:
    n_blocks = run.trace.n_blocks
    step_no = block_shown(n_blocks, length, block)
    frame.note("tiles")
    block_numbers(run.trace.steps[step_no - 1], step_no, n_blocks, length - 1)   # the last query sees every key
    block_charts(run, step_no, length, causal)


@frame.fragment
def traffic(shown: int) -> None:
    if shown < Step.TRAFFIC:
        return
    st.subheader("Memory traffic, counted rather than timed")
    a, b, c = st.columns(3)
    n = frame.control(a.select_slider, "n", "Sequence length N", LENGTHS, 8192)
    d = frame.control(b.select_slider, "d", "Head size d", (32, 64, 128), 64)
    bc = frame.control(c.select_slider, "bc", "Key block size (keys per block)", BLOCKS, 256)
    t = flash_attention.flash_traffic(n, d, bc)
    row = st.container(horizontal=True)                # wraps where a column is narrow
    row.metric("plain: bytes moved", mb(t.standard.bytes))
    row.metric("tiled: bytes moved", mb(t.tiled.bytes))
    fits = core.fits_in_sram(bc, d, GPU.sram_elements())
    row.metric("plain ÷ tiled" if fits else "plain ÷ tiled, if it could run",
               f"{t.standard.bytes / t.tiled.bytes:.1f}×",
               help=None if fits else "This block size does not fit in on-chip memory: the count is what it would "
                                      "move, not what a real run can do.")
    st.markdown(f"At N = {n:,} the plain algorithm writes the {n:,} × {n:,} scores and weights and reads them back: "
                f"{mb(4 * n * n * 2)} of its {mb(t.standard.bytes)}. "
                + (f"The tiled one reads each block of {bc} keys and values once and passes over the queries "
                   f"{t.passes} time{'s' if t.passes > 1 else ''}." if bc < n else
                   f"With $B_c$ = {bc} at least N, the tiled one loads all {n:,} keys and values as one block and "
                   "passes over the queries once.")
                + ("" if fits else f" **But {bc} × {d} blocks do not fit:** four of them need "
                   f"{4 * bc * d * 2 / 1e3:,.0f} kB, more than the {GPU.shared_per_sm / 1e3:,.0f} kB of shared "
                   f"memory one SM (streaming multiprocessor, one of the GPU's {GPU.sms} compute units) offers, "
                   "so this block size could not run as counted."))
    left, right = st.columns(2)
    with left:
        chart(built(traffic_figure, np.array(LENGTHS), t.standard_curve, t.tiled_curve, n),
              f"Bytes to and from main memory against N, for d = {d} and $B_c$ = {bc} (log–log): the plain count "
              "grows like N², the tiled one like N²d²/M, where M is how many numbers fit in on-chip memory.",
              lambda: pd.DataFrame({"N": LENGTHS, "plain bytes": t.standard_curve,
                                    "tiled bytes": t.tiled_curve}), key=frame.key("fig_traffic"))
    with right:
        chart(built(block_figure, np.array(BLOCKS), t.block_curve, float(t.standard.bytes), t.fits),
              f"Tiled bytes against the block size at N = {n:,}: bigger blocks mean fewer passes over the queries, "
              "until they no longer fit on chip (hatched bars).",
              lambda: pd.DataFrame({"key block size": BLOCKS, "tiled bytes": t.block_curve, "fits on chip": t.fits}),
              key=frame.key("fig_blocks"))
    frame.note("modelled")

    if shown >= Step.WHY:
        why_memory(t, n, d, bc, fits)


def why_memory(t: flash_attention.Traffic, n: int, d: int, bc: int, fits: bool) -> None:
    """Step 4: the GPU's two speeds, the ridge point, and where plain and tiled attention fall against it."""
    st.subheader("Why it exists: memory, not arithmetic")
    frame.note("why")
    plain, tiled = t.roof_standard, t.roof_tiled
    st.markdown(
        f"| {GPU.name} | |\n| :--- | ---: |\n"
        f"| main memory (HBM2: high-bandwidth memory, large and off-chip) bandwidth "
        f"| {GPU.bandwidth / 1e9:,.0f} GB/s |\n"
        f"| FP16 tensor-core arithmetic | {GPU.peak_flops / 1e12:,.0f} TFLOP/s |\n"
        f"| on-chip memory (SRAM: L1 + shared, small and fast) "
        f"| {GPU.sram_per_sm / 1e3:,.1f} kB per SM × {GPU.sms} SMs "
        f"= {mb(GPU.sram_per_sm * GPU.sms)} |\n"
        f"| ridge point: FLOP/s ÷ bytes/s | **{plain.ridge:.0f} FLOPs per byte** |\n\n"
        # Measures down, the two algorithms across: three columns fit a phone (six ran off its edge).
        f"| One head, N = {n:,}, d = {d} | plain | tiled, $B_c$ = {bc} |\n| :--- | ---: | ---: |\n"
        + "".join(f"| {what} | {show(plain)} | {show(tiled)} |\n" for what, show in (
            ("FLOPs (the two products)", lambda r: f"{r.flops / 1e9:,.2f} G"),
            ("bytes moved", lambda r: mb(r.bytes)), ("FLOPs per byte", lambda r: f"{r.intensity:.1f}"),
            ("time for the bytes", lambda r: f"{r.memory_seconds * 1e3:.3f} ms"),
            ("time for the FLOPs", lambda r: f"{r.compute_seconds * 1e3:.3f} ms"))))
    st.caption(f"Source: {GPU.source}. Times are lower bounds at full bandwidth or full arithmetic speed.")
    verdict = "memory-bound" if plain.memory_bound else "compute-bound"
    st.markdown(f"**Plain attention at N = {n:,} is {verdict}:** it does {plain.intensity:.1f} FLOPs per byte, "
                f"{'below' if plain.intensity < plain.ridge else 'above'} the ridge of {plain.ridge:.0f}, so "
                f"moving its bytes takes {plain.memory_seconds / plain.compute_seconds:.1f}× as long as its "
                f"arithmetic. Tiled, the same FLOPs come to {tiled.intensity:.0f} per byte moved "
                f"({'still below' if tiled.memory_bound else 'above'} the ridge)"
                + ("." if fits else f", but only on paper: blocks of {bc} × {d} could not run on this GPU (see "
                   "above), so no real run reaches that count."))


frame.header()
shown = frame.steps(Step.labels())
tiles(shown)
traffic(shown)
frame.trap()
frame.check("approximation")
frame.footer()
