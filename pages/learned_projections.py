"""Learned projections: W_Q and W_K turn one vector per word into an asking and an offering role."""

import numpy as np
import pandas as pd
import streamlit as st

import attention_core as core
from figures.learned_projections import rank_figure, score_heatmap, singular_values_figure
from ui import present
from ui.charts import built, chart
from ui.content import data_file, fill
from ui.frame import lesson
from ui.inputs import matrix_input, message, table
from ui.steps import Steps
from ui.tables import fixed_table, numbers

DATA = data_file("pronoun_sentence")
LABELS, X = core.token_table(DATA["tokens"])
D_MODEL = X.shape[1]
MODES = ["pronoun → antecedent (preset)", "random, from a seed", "type your own"]
frame = lesson("learned_projections")

def predict_mutual(A: np.ndarray, i: int, j: int, mode: str) -> bool:
    """Does the pair score each other equally? Read off the learned grid A, whatever the weights are."""
    a, b = LABELS[i], LABELS[j]
    forward, back = float(A[i, j]), float(A[j, i])
    if np.isclose(forward, back, rtol=1e-9, atol=1e-12):
        answer, how = 0, "the two scores are equal"
    else:
        answer, how = (1, "the grid is lopsided") if forward > back else (2, "the grid is lopsided the other way")
    why = f"With these weights “{a}” → “{b}” scores {forward:.3f} and “{b}” → “{a}” scores {back:.3f}: {how}."
    if mode == MODES[0]:
        why += (" The preset's $W_Q$ makes pronouns ask for things and its $W_K$ makes nouns offer themselves, so the "
                "pronoun looks at its noun, not the other way round.")
    options = [fill(c.text, a=a, b=b) for c in frame.text.predictions["mutual"].choices]
    return frame.predict("mutual", options=options, answer=answer, why=why, a=a, b=b)


class Step(Steps):
    """The presenter steps, in order (the step bar shows each label)."""

    SENTENCE = "The sentence and its embeddings"
    SCORES = "Raw against learned scores"
    RANK = "The rank bottleneck"


def the_sentence() -> None:
    """Step 1: the sentence and its hand-made embeddings."""
    st.subheader("The sentence: " + " ".join(LABELS))
    frame.note("sentence")
    with st.expander("The embeddings X (one row per word)"):
        numbers(fixed_table(frame.key("embeddings"), lambda: table(X, LABELS, DATA["features"])))


def choose_weights(mode: str) -> tuple[np.ndarray | None, np.ndarray | None, int]:
    """W_Q and W_K: the preset, a random pair, or typed in (None where a typed one is not valid yet); and the
    seed of the random draws (the rank sweep uses it too)."""
    if mode == MODES[0]:
        return np.array(DATA["preset"]["W_Q"]), np.array(DATA["preset"]["W_K"]), 0
    if mode == MODES[1]:
        a, b = st.columns(2)
        seed = frame.control(a.slider, "seed", "Seed", 0, 99, 0)
        d_k = frame.control(b.slider, "dk", "dₖ (rows of the query and key weights)", 1, D_MODEL, 2,
                            help=f"Each word has {D_MODEL} numbers; a smaller dₖ squeezes every comparison "
                                 "through fewer numbers.")
        return *core.random_projections(d_k, D_MODEL, np.random.default_rng(seed)), seed
    preset = DATA["preset"]
    a, b = st.columns(2)
    with a:
        W_Q = frame.control(matrix_input, "wq", "Query weights (dₖ rows × 4)", np.array(preset["W_Q"]), cols=D_MODEL,
                            help="Each row turns a word's 4 numbers into one number of its query.")
    with b:
        W_K = frame.control(matrix_input, "wk", "Key weights (dₖ rows × 4)", np.array(preset["W_K"]), cols=D_MODEL,
                            help="Same shape as the query weights: each row makes one number of a key.")
    return W_Q, W_K, 0


# A score grid's width: its 6 × 6 cells hold "-0.09" at 14 px; presenting, at 18 px (then the two stand one above
# the other at 1280 px with the sidebar open).
HEATMAP_PX, PRESENTED_HEATMAP_PX = 380, 460


def raw_against_learned(raw: core.BilinearScores, learned: core.BilinearScores | None, mode: str) -> None:
    """Step 2: the symmetric raw scores beside the learned ones, which are shown after the prediction."""
    i, j = LABELS.index(DATA["pair"][0]), LABELS.index(DATA["pair"][1])
    # Side by side where both fit at a width that leaves each cell room for its number, else one above the
    # other: a row that wraps (two columns squeezed each grid to 94 px at 1024 px with the sidebar open).
    pair = st.container(horizontal=True, wrap=True, gap="medium")
    width = PRESENTED_HEATMAP_PX if present.active() else HEATMAP_PX
    left, right = pair.container(width=width), pair.container(width=width)
    with left:
        chart(built(score_heatmap, raw.scores, LABELS, "Raw scores X Xᵀ"),
              f"Word with word. ‖A − Aᵀ‖ = {raw.asymmetry:.3f}: the grid mirrors itself across the diagonal.",
              lambda: table(raw.scores, LABELS, LABELS), key=frame.key("fig_raw"))
        frame.note("raw")
    if learned is None:
        return
    with right:
        shown = predict_mutual(learned.scores, i, j, mode)
        if shown:
            chart(built(score_heatmap, learned.scores, LABELS, "Learned scores Q Kᵀ"),
                  f"Query of each row's word against the key of each column's word. "
                  f"‖A − Aᵀ‖ = {learned.asymmetry:.3f}.", lambda: table(learned.scores, LABELS, LABELS),
                  key=frame.key("fig_learned"))
    if shown:                                             # the numbers below would give the prediction away
        A = learned.scores
        cols = st.columns(3)
        cols[0].metric("‖A − Aᵀ‖, learned", f"{learned.asymmetry:.3f}",
                       help=f"Raw X Xᵀ: {raw.asymmetry:.3f}")
        cols[1].metric(f"{LABELS[i]} → {LABELS[j]}", f"{A[i, j]:.3f}")
        cols[2].metric(f"{LABELS[j]} → {LABELS[i]}", f"{A[j, i]:.3f}")
        top = core.strongest_target(A)
        st.markdown(f"With these weights, **{LABELS[i]}** scores **{LABELS[top[i]]}** highest; "
                    f"with raw scores it scores **{LABELS[core.strongest_target(raw.scores)[i]]}** highest.")


def rank_bottleneck(learned: core.BilinearScores, seed: int) -> None:
    """Step 3: the rank of M = W_Qᵀ W_K, its singular values, and the rank against dₖ for random weights."""
    st.subheader("The rank bottleneck")
    frame.note("rank")
    d_k_now = learned.Q.shape[1]
    c = st.columns(3)
    c[0].metric("dₖ", d_k_now)
    c[1].metric("numbers per word", D_MODEL)
    c[2].metric("rank of M", learned.rank, help="M is the matrix the scores compare words through.")
    left, right = st.columns(2)
    with left:
        sv = core.singular_values(learned.M)
        nonzero = int(np.count_nonzero(sv))
        chart(built(singular_values_figure, sv, d_k_now),
              f"M is {D_MODEL}×{D_MODEL} and has rank {learned.rank}: {nonzero} of its {sv.size} singular values "
              f"{'is' if nonzero == 1 else 'are'} non-zero (those under the largest × {D_MODEL} × 2.2 × 10⁻¹⁶ "
              "are rounding noise and print as 0).",
              lambda: table(learned.M, DATA["features"], DATA["features"]), key=frame.key("fig_sv"))
    with right:
        d_ks = np.arange(1, D_MODEL + 1)
        ranks = core.rank_sweep(D_MODEL, d_ks, np.random.default_rng(seed))
        chart(built(rank_figure, d_ks, ranks, D_MODEL, d_k_now),
              "Random $W_Q$, $W_K$ at each dₖ: the rank of M never passes dₖ.",
              lambda: pd.DataFrame({"dₖ": d_ks, "rank": ranks}), key=frame.key("fig_rank"))


# One fragment: the weights chosen here feed both comparisons below (steps 2 and 3), so changing them
# reruns this part of the page only (not the entry script, the header, the sentence or the footer).
@frame.fragment
def weights_and_scores(step: int) -> None:
    st.subheader("Two questions: the query and key weights")
    frame.note("projections")
    mode = frame.control(st.radio, "mode", "Weights", MODES, horizontal=True)
    W_Q, W_K, seed = choose_weights(mode)
    learned = None
    if W_Q is not None and W_K is not None:
        try:
            learned = core.bilinear_scores(X, W_Q, W_K)
        except ValueError as err:
            st.error(f"$W_Q$ and $W_K$ do not fit together: {message(err)}", icon=":material/error:")
    if step < Step.SCORES:
        return
    raw = core.bilinear_scores(X, np.eye(D_MODEL), np.eye(D_MODEL))     # W_Q = W_K = I gives X Xᵀ
    raw_against_learned(raw, learned, mode)
    if learned is not None and step >= Step.RANK:
        rank_bottleneck(learned, seed)


frame.header()
step = frame.steps(Step.labels())
the_sentence()
weights_and_scores(step)
frame.trap()
frame.check("symmetric")
frame.footer()
