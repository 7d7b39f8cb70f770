"""Where is word order? Attention without positions only moves rows; tables and rotations put order back."""

import numpy as np
import pandas as pd
import streamlit as st

import attention_core as core
from figures.positional_encoding import (
    FLOOR,
    frequency_figure,
    gap_figure,
    offset_figure,
    rotary_figure,
    similarity_figure,
)
from figures.real_model_lab import attention_heatmap
from ui.charts import built, chart
from ui.frame import lesson
from ui.inputs import message, text_box
from ui.lessons import positional_encoding as pe
from ui.numbers import written
from ui.steps import Steps

ROUNDING = 1e-4          # a float32 encoder's outputs that agree this closely differ by rounding alone


class Step(Steps):
    """The presenter steps, in order (the step bar shows each label)."""

    SHUFFLE = "Shuffle the words"
    TABLES = "Two tables of positions"
    ROTARY = "Rotary: turn q and k"


frame = lesson("positional_encoding")


def gap_words(gap: float) -> str:
    """A largest difference as a sentence's number: "exactly 0" when the floats are equal, else written out."""
    return "exactly 0" if gap == 0 else written(gap)


def numbered(weights: np.ndarray, words: tuple[str, ...]) -> pd.DataFrame:
    """A weight table labelled "1: the", "4: the": a repeated word keeps its own row and column."""
    labels = [f"{i + 1}: {w}" for i, w in enumerate(words)]
    return pd.DataFrame(weights.round(4), index=labels, columns=labels)


def toy_result(s: pe.ShuffleNumbers) -> None:
    """After the prediction: the toy head's weights in the shuffled order, and how far each output moved."""
    chart(built(attention_heatmap, s.toy_shuffled_weights, list(s.shuffled_words), "Toy head, shuffled order"),
          "The same head on the shuffled words: the same weights as above, with rows and columns moved with "
          "their words.", lambda: numbered(s.toy_shuffled_weights, s.shuffled_words), key=frame.key("fig_toy_shuffled"))
    on = s.toy_with_positions
    st.markdown(f"**Toy head.** The largest difference between a word's output in the shuffled order and the same "
                f"word's output in the typed order: **{gap_words(s.toy_gap)}**. Add the sinusoidal table "
                f"first, each row scaled to a word vector's length (slot 1 gets position 1's row, whichever word sits "
                f"there), and it is **{gap_words(on)}**"
                + (": the outputs now depend on where each word sits." if on >= ROUNDING else
                   ": no bigger, since this order reads as typed." if not s.moved else
                   ", still small: the words moved, but hardly any weight moved with them."))


def real_verdict(off: float, on: float, size: float, moved: bool) -> str:
    """What MiniLM's largest changes say, positions off then on, from the numbers themselves."""
    said = ("Without positions the outputs match exactly, moved with their tokens: the largest difference is "
            "exactly 0." if off == 0 else
            f"Without positions the outputs match, moved with their tokens: the largest difference, {written(off)}, "
            "is float32 rounding (the order of additions changed)." if off < ROUNDING else
            f"Without positions the largest difference is {written(off)}, more than rounding explains.")
    if on >= ROUNDING:
        return said + (f" With MiniLM's learned positions they do not: up to {written(on)}, against a typical output "
                       f"number of {size:.2f}.")
    if not moved:
        return said + f" With positions on it is {gap_words(on)}: this order reads as typed."
    return said + f" With positions on it is {gap_words(on)}, still small: the words moved, but the outputs hardly did."


def real_result(s: pe.ShuffleNumbers) -> None:
    """After the prediction: MiniLM's last layer on both orders, positions off and on."""
    st.subheader("The real model: MiniLM, positions off and on")
    frame.note("real")
    off, on, size = s.off_gap, s.on_gap, s.output_size
    row = st.container(horizontal=True)
    row.metric("largest change, positions off", written(off), help="Over every token and all 384 numbers.")
    row.metric("largest change, positions on", written(on), help="Over every token and all 384 numbers.")
    row.metric("typical output number", f"{size:.2f}", help="The mean size of the outputs' numbers.")
    st.markdown(real_verdict(off, on, size, s.moved))
    chart(built(gap_figure, list(s.shuffled_tokens), s.off_rows, s.on_rows),
          "For each token of the shuffled sentence, the largest change among its 384 last-layer numbers against the "
          f"same token in the typed order (log scale; a change of exactly 0 is drawn at {written(FLOOR)}).",
          lambda: pd.DataFrame({"token": s.shuffled_tokens, "positions off": s.off_rows,
                                "positions on": s.on_rows}), key=frame.key("fig_gaps"))


# The sections' headings and notes sit outside their fragments: a move resends only what it can change.
def shuffle_section() -> None:
    st.subheader("① Shuffle the words")
    frame.note("shuffle")
    shuffled()


@frame.fragment
def shuffled() -> None:
    a, b = st.columns([3, 1])
    text = frame.control(text_box, "text", "Type a sentence", pe.TEXT, max_chars=pe.MAX_CHARS, where=a)
    shuffle = frame.control(b.slider, "shuffle", "Shuffle", 0, pe.MAX_SHUFFLE, pe.SHUFFLE,
                            help="0 keeps the order you typed; every other value is another random order.")
    try:
        s = pe.shuffle_numbers(text or "", shuffle)
    except ValueError as err:
        st.info(f"{message(err)} Type a sentence of a few words.", icon=":material/edit:")
        return
    st.caption("The words as typed, and shuffled (plain text, as the model reads them):")
    st.code("typed:     " + " ".join(s.words) + "\nshuffled:  " + " ".join(s.shuffled_words), language=None,
            wrap_lines=True)
    if s.truncated:
        st.warning("The model reads at most 128 tokens, so the end of the sentence was cut off.",
                   icon=":material/content_cut:")
    if not s.moved:
        st.info("This order is the one you typed" + (": a single word has no other order." if len(s.words) == 1
                else ". Pick a shuffle above 0 to move the words." if shuffle == 0
                else ": this shuffle only swaps words that are the same.") , icon=":material/info:")
    chart(built(attention_heatmap, s.toy_weights, list(s.words), "Toy head, typed order"),
          f"A toy attention head on the {len(s.words)} words as typed: row = the word attending, column = the word "
          "attended to; rows sum to 1. Nothing in it says where a word sits.",
          lambda: numbered(s.toy_weights, s.words),
          key=frame.key("fig_toy"))
    if frame.predict("shuffle"):
        toy_result(s)
        real_result(s)


def offset_sentence(t: pe.PositionTables, k: int, n: int) -> str:
    """What the two tables say about pairs k apart: their mean cosines, and how much they vary along the diagonal."""
    said = (f"Pairs {k} apart have a mean cosine of {t.sinusoidal_by_offset[k]:.3f} in the sinusoidal table and "
            f"{t.learned_by_offset[k]:.3f} in the learned one.")
    if n - k < 2:
        return said + (f" Among the first {n} positions only one pair is {k} apart, so neither table has a spread "
                       "to compare: pick a smaller offset.")
    return said + (f" Along that diagonal ({n - k} pairs) the sinusoidal cosines spread by "
                   f"{gap_words(t.sinusoidal_spread[k])} (standard deviation): they depend on the offset alone. The "
                   f"learned ones spread by {written(t.learned_spread[k])}: training only made them roughly so.")


# Two fragments, one per slider: the frequency index drives its curve and sentence alone, the offset the two
# heatmaps' lines, the metrics and the offset curve; a move of one does not resend the other's charts.
@frame.fragment
def frequency_part(t: pe.PositionTables) -> None:
    n, d = t.sinusoidal.shape
    i = frame.control(st.slider, "freq", "Frequency index i", 0, d // 2 - 1, pe.FREQUENCY,
                      help="Columns 2i and 2i + 1 of the sinusoidal table: one sine and one cosine.")
    omega = float(core.frequencies(d)[i])
    wavelength = 2 * np.pi / omega
    positions = np.arange(n)
    st.markdown(f"Pair {i} turns by {np.degrees(omega):.3g}° per position and repeats every "
                f"{written(wavelength)} positions"
                + (f": more than the {n} shown, so over them it moves only a little." if wavelength > n else "."))
    chart(built(frequency_figure, positions, t.sinusoidal[:, 2 * i], t.sinusoidal[:, 2 * i + 1], i),
          f"Columns {2 * i} and {2 * i + 1} of the sinusoidal table over the first {n} positions.",
          lambda: pd.DataFrame({"position": positions, "sin": t.sinusoidal[:, 2 * i],
                                "cos": t.sinusoidal[:, 2 * i + 1]}), key=frame.key("fig_freq"))


@frame.fragment
def offset_part(t: pe.PositionTables) -> None:
    n = t.sinusoidal.shape[0]
    k = frame.control(st.slider, "offset", "Offset k (positions apart)", 1, n - 1, pe.OFFSET)
    left, right = st.columns(2)
    with left:
        chart(built(similarity_figure, t.sinusoidal_similarity, "Sinusoidal: cosine of two positions", k),
              f"Every pair of the first {n} positions; the dotted line marks the pairs {k} apart.",
              lambda: pd.DataFrame(t.sinusoidal_similarity.round(4)), key=frame.key("fig_sin_heat"))
    with right:
        chart(built(similarity_figure, t.learned_similarity, "Learned (MiniLM): cosine of two positions", k),
              f"The same for MiniLM's learned table; the dotted line marks the pairs {k} apart.",
              lambda: pd.DataFrame(t.learned_similarity.round(4)), key=frame.key("fig_learned_heat"))
    row = st.container(horizontal=True)
    row.metric(f"sinusoidal, {k} apart", f"{t.sinusoidal_by_offset[k]:.3f}", help="Mean cosine over every pair.")
    row.metric(f"learned, {k} apart", f"{t.learned_by_offset[k]:.3f}", help="Mean cosine over every pair.")
    st.markdown(offset_sentence(t, k, n))
    offsets = np.arange(n)
    chart(built(offset_figure, offsets, t.sinusoidal_by_offset, t.learned_by_offset, k),
          f"Mean cosine of two positions against how far apart they are; the dotted line is at k = {k}.",
          lambda: pd.DataFrame({"offset": offsets, "sinusoidal": t.sinusoidal_by_offset,
                                "learned": t.learned_by_offset}), key=frame.key("fig_offset"))


def tables_section() -> None:
    st.subheader("② Two tables of positions")
    frame.note("tables")
    t = pe.position_tables()
    frequency_part(t)
    offset_part(t)


def rotary_section() -> None:
    st.subheader("③ Rotary: turn q and k")
    frame.note("rotary")
    rotated()


@frame.fragment
def rotated() -> None:
    a, b = st.columns(2)
    m = frame.control(a.slider, "m", "Position m of the query", 0, pe.MAX_POSITION, pe.M)
    n = frame.control(b.slider, "n", "Position n of the key", 0, pe.MAX_POSITION, pe.N)
    q, k = np.array(pe.ROTARY_Q), np.array(pe.ROTARY_K)
    here = core.rotary_pair(q, k, m, n, pe.ROTARY_STEP)
    s = min(m, n)
    back = core.rotary_pair(q, k, m - s, n - s, pe.ROTARY_STEP)
    step = np.degrees(pe.ROTARY_STEP)
    row = st.container(horizontal=True)
    row.metric("offset n − m", n - m)
    row.metric("q·k at m and n", f"{here.score:.4f}")
    row.metric(f"q·k at {m - s} and {n - s}", f"{back.score:.4f}", help="Both positions moved back by the same amount.")
    st.markdown(f"q turns by {m} × {step:.0f}° and k by {n} × {step:.0f}°, so the angle between them changes by "
                f"({n} − {m}) × {step:.0f}° = {(n - m) * step:.0f}°, whatever m and n are. Their score is "
                f"{here.score:.4f}; "
                + (f"moved back by {s} to positions {m - s} and {n - s}, the same gap gives {back.score:.4f} "
                   f"(difference {gap_words(abs(here.score - back.score))})." if s else
                   "move both sliders by the same amount and it stays the same."))
    chart(built(rotary_figure, q, k, here.q_m, here.k_n, m, n),
          f"q and k at position 0 (dotted) and turned to positions {m} and {n} (arrows), {step:.0f}° per position.",
          lambda: pd.DataFrame({"q": q, "k": k, f"q at {m}": here.q_m, f"k at {n}": here.k_n},
                               index=["first", "second"]), key=frame.key("fig_rotary"))


frame.header()
shown = frame.steps(Step.labels())
shuffle_section()
if shown >= Step.TABLES:
    tables_section()
if shown >= Step.ROTARY:
    rotary_section()

frame.trap()
frame.check("dog_bites_man")
frame.footer()
