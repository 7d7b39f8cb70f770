"""Multi-head attention: split d_model into heads, attend in each subspace, concatenate, mix with W_O."""

from contextlib import nullcontext

import numpy as np
import pandas as pd
import streamlit as st

import attention_core as core
from figures.multi_head import blocks_figure, cost_figure, head_weights_figure, real_heads_figure
from ui import present
from ui.charts import built, chart
from ui.content import data_file
from ui.frame import lesson
from ui.inputs import literal, matrix_input, table, text_box
from ui.lessons import multi_head
from ui.models import encode
from ui.numbers import counted
from ui.steps import Steps
from ui.tables import fixed_table, numbers

DATA = data_file("multi_head")
LABELS, X = core.token_table(DATA["tokens"])
D_MODEL, FEATURES = X.shape[1], DATA["features"]
D_MODEL_TEX = r"$d_{\text{model}}$"                # the model's width, in inline KaTeX
W_Q, W_K = np.array(DATA["weights"]["W_Q"], dtype=float), np.array(DATA["weights"]["W_K"], dtype=float)
MIX = DATA["weights"]["W_O_mixing"]
SWAP = np.roll(np.eye(D_MODEL), D_MODEL // 2, axis=1)        # column j ↔ column j + d_model/2
W_O_MIXING = (1 - MIX) * np.eye(D_MODEL) + MIX * SWAP
IT = LABELS.index("it")
ROLE_SHARE = 0.8                  # a head "looks at X" when X is the top key of at least this share of its rows
MAX_CHARS, MAX_TOKENS = 120, 40
MATRICES = [f"{w}{n}" for w in ("wq", "wv") for n in (1, 2, 4)]     # the names of the edited weights


def folded(label: str):
    """Where a note's detail waits: an expander off the main line. In presenter mode the note folds itself
    (frame.note makes its own expander there, and expanders do not nest)."""
    return nullcontext() if present.active() else st.expander(label)


def fit_choice(key: str, options: list[str], default: str) -> None:
    """Keep a selectbox's value among its options when they change with the sentence."""
    if st.session_state.get(key) not in options:
        st.session_state[key] = default


def heads_list(cells: list[tuple[int, int]]) -> str:
    return ", ".join(f"L{layer + 1} H{head + 1}" for layer, head in cells) or "none"


class Step(Steps):
    """The presenter steps, in order (the step bar shows each label)."""

    SPLIT = "Split the model into heads"
    SUBSPACE = "Each head compares in its own subspace"
    VALUES = "The values: what a token gives"
    CONCAT = "Concatenate, then mix the heads"
    REAL_HEADS = "All 12 heads of a real layer"
    COST = "What it costs"


frame = lesson("multi_head")


def embeddings() -> None:
    """Section ①'s heading and the five words' numbers (outside the heads' fragment: they never change)."""
    st.subheader("① Five words, eight numbers each")
    frame.note("sentence")
    with st.expander("The embeddings X (one row per word)"):
        if not present.active():                      # there frame.note is an expander, and they do not nest
            frame.note("sentence_more")
        numbers(fixed_table(frame.key("embeddings"), lambda: table(X, LABELS, FEATURES)))


def split(n: int) -> core.MultiHeadTrace:
    """Section ①: d_model cut into n heads, shown on Q with the preset weights. Returns that trace."""
    d_k = D_MODEL // n
    rest = ("" if n == 1 else f"; head 2 reads columns {d_k + 1}–{2 * d_k}"
            + ("" if n == 2 else f", and so on up to head {n}, columns {D_MODEL - d_k + 1}–{D_MODEL}"))
    st.markdown(f"**{D_MODEL_TEX} = {D_MODEL} split {counted(n, 'way')}: dₖ = {D_MODEL} / {n} = {d_k}.** "
                f"Head 1 reads columns 1–{d_k} of $Q = XW_Q$, $K = XW_K$ and $V = XW_V${rest}.")
    base = core.multi_head_attention(X, W_Q, W_K, np.eye(D_MODEL), np.eye(D_MODEL), n)
    chart(built(blocks_figure, base.Q, LABELS, [f"q{j + 1}" for j in range(D_MODEL)], n,
                "Q = X·W<sub>Q</sub>, cut into heads"),
          f"Each row is one word's query: {D_MODEL} numbers, {counted(n, 'block')} of {d_k}. "
          "A head sees only its block.",
          lambda: table(base.Q, LABELS, [f"q{j + 1}" for j in range(D_MODEL)]), key=frame.key("fig_q"))
    return base


def subspace(n: int, base: core.MultiHeadTrace) -> tuple[np.ndarray, core.MultiHeadTrace] | None:
    """Section ②: head 1's columns of W_Q, edited, and where each head's "it" looks. Returns (W_Q, trace), or
    None until the input is valid and the prediction made."""
    st.subheader("② Each head compares in its own subspace")
    frame.note("subspace")
    with folded("What each head looks for here"):
        frame.note("subspace_more")
    d_k, cols = D_MODEL // n, core.head_columns(D_MODEL, n, 0)
    wq_head = frame.control(matrix_input, f"wq{n}", f"Head 1's columns of the query weights ({D_MODEL} rows × {d_k})",
                            W_Q[:, cols],
                            rows=D_MODEL, cols=d_k, height=230,
                            help="Row m says how feature m feeds each number of head 1's query.")
    if wq_head is None:
        return None
    wq = W_Q.copy()
    wq[:, cols] = wq_head
    trace = core.multi_head_attention(X, wq, W_K, np.eye(D_MODEL), np.eye(D_MODEL), n)
    tops = [int(np.argmax(trace.weights[h, IT])) for h in range(n)]
    if not frame.predict("heads_agree", options=["The same word in every head", "Different words in different heads"],
                         answer=int(len(set(tops)) > 1)):
        return None
    chart(built(head_weights_figure, trace.weights, LABELS, f"Weights, {counted(n, 'head')}"),
          "“it” looks most at: " + "; ".join(
              f"head {h + 1} → " + " / ".join(LABELS[j] for j in np.flatnonzero(row >= row.max() - 1e-9))
              + f" ({row.max():.2f})" for h, row in enumerate(trace.weights[:, IT])) + ".",
          lambda: pd.DataFrame(trace.weights.reshape(n * len(LABELS), -1), columns=LABELS,
                               index=[f"head {h + 1}: {w}" for h in range(n) for w in LABELS]),
          key=frame.key("fig_heads"))
    moved = np.abs(trace.weights - base.weights).max(axis=(1, 2))
    if not np.array_equal(wq, W_Q):
        st.markdown(f"Against the preset $W_Q$, head 1's weights moved by up to **{moved[0]:.4f}**"
                    + (f"; the other heads' by **{moved[1:].max():.4f}**: their columns of $W_Q$ and $W_K$ are not "
                       "head 1's." if n > 1 else "."))
    elif n > 1:
        st.caption("Edit head 1's columns above to see which heads' weights move.")
    return wq, trace


def values(n: int, wq: np.ndarray, trace: core.MultiHeadTrace) -> np.ndarray | None:
    """Section ③: head 1's columns of W_V, edited: the weights stay, the outputs move. Returns W_V, or None
    until the input is valid."""
    st.subheader("③ $W_V$: what a word gives, apart from what it is matched on")
    frame.note("values")
    with folded("The values, in detail"):
        frame.note("values_more")
    d_k, cols = D_MODEL // n, core.head_columns(D_MODEL, n, 0)
    wv_head = frame.control(matrix_input, f"wv{n}", f"Head 1's columns of the value weights ({D_MODEL} rows × {d_k})",
                            np.eye(D_MODEL)[:, cols], rows=D_MODEL, cols=d_k, height=230,
                            help="What head 1 hands on from each word. The default copies its own features.")
    if wv_head is None:
        return None
    wv = np.eye(D_MODEL)
    wv[:, cols] = wv_head
    valued = core.multi_head_attention(X, wq, W_K, wv, np.eye(D_MODEL), n)
    d_out = np.abs(valued.head_outputs - trace.head_outputs).max(axis=(1, 2))
    d_w = float(np.abs(valued.weights - trace.weights).max())
    if np.array_equal(wv, np.eye(D_MODEL)):
        st.caption("$W_V$ is the identity: each head hands on its own columns of the features.")
    else:
        st.markdown(f"Your $W_V$ against the identity: the **weights** of every head moved by **{d_w:.4f}** (W_V "
                    f"is not in softmax(Qₕ Kₕᵀ/√dₖ)); head 1's **output** moved by up to **{d_out[0]:.4f}**"
                    + (f"; the other heads' outputs by **{d_out[1:].max():.4f}**." if n > 1 else "."))
    col_names = [f"c{j + 1}" for j in range(D_MODEL)]
    chart(built(blocks_figure, valued.concat, LABELS, col_names, n, "Concat(head₁, …)"),
          f"Each block is one head's output ({counted(d_k, 'number')}): its V rows blended by its weights.",
          lambda: table(valued.concat, LABELS, col_names), key=frame.key("fig_concat"))
    return wv


# Its own fragment inside the small heads': the W_O switch changes the output chart alone, so flipping it does
# not redraw the query blocks, the heads' weights and the concatenation above.
@frame.fragment
def mixing(n: int, wq: np.ndarray, wv: np.ndarray) -> None:
    """Section ④ below its heading: the heads' outputs side by side, passed through W_O or mixed by it."""
    mix = frame.control(st.toggle, "mix", "Let the output weights mix the heads", False,
                        help=f"Off: the output weights are the identity and pass the concatenation through. On: each "
                             f"output number takes "
                             f"{MIX:g} of the matching number in the other half.")
    mixed = core.multi_head_attention(X, wq, W_K, wv, W_O_MIXING if mix else np.eye(D_MODEL), n)
    chart(built(blocks_figure, mixed.output, LABELS, [f"o{j + 1}" for j in range(D_MODEL)], n,
                "Output = Concat(…)·W<sub>O</sub>"),
          (f"$W_O$ mixes: output column j = {1 - MIX:g}·$c_j$ + {MIX:g}·$c_{{j \\pm {D_MODEL // 2}}}$." if mix else
           "$W_O = I$: the output is the concatenation, each block still one head's alone."),
          lambda: table(mixed.output, LABELS, [f"o{j + 1}" for j in range(D_MODEL)]), key=frame.key("fig_output"))
    st.markdown("Output row of **it**: [" + ", ".join(f"{v:.4f}" for v in mixed.output[IT]) + "].")


# One fragment: the number of heads and the edited weights drive every small-number chart below.
@frame.fragment
def small_heads(step: int) -> None:
    # Keep an edit while its field is hidden (another head count, an earlier step).
    for key in map(frame.key, MATRICES):
        if key in st.session_state:
            st.session_state[key] = st.session_state[key]
    n = int(frame.control(st.radio, "heads", "Number of heads", ["1", "2", "4"], index=1, horizontal=True,
                          help=f"The model's width, {D_MODEL} numbers, must split evenly, so 1, 2 or 4 heads."))
    base = split(n)
    if step < Step.SUBSPACE or (edited := subspace(n, base)) is None:
        return
    wq, trace = edited
    if step < Step.VALUES or (wv := values(n, wq, trace)) is None:
        return
    if step >= Step.CONCAT:
        st.subheader("④ Concatenate, then $W_O$ mixes")      # outside the switch's fragment: it never changes
        frame.note("mixing")
        with folded("What the output weights do"):
            frame.note("mixing_more")
        mixing(n, wq, wv)


# The real model: its own fragment (the sentence, layer and words rerun this part only), under its heading.
def real_section(step: int) -> None:
    st.subheader("⑤ All 12 heads of a real layer")
    frame.note("real")
    with folded("What the page counts"):
        frame.note("real_more")
    real_layer(step)


@frame.fragment
def real_layer(step: int) -> None:
    text = frame.control(text_box, "text", "Your sentence", DATA["real_sentence"], max_chars=MAX_CHARS,
                         help=f"At most {MAX_CHARS} characters; the model is the Lab's MiniLM.")
    try:
        r = encode(text or "")
    except ValueError as err:
        st.info(f"{err} Type a sentence above.", icon=":material/edit:")
        return
    if len(r.tokens) > MAX_TOKENS:
        st.warning(f"{len(r.tokens)} tokens: this page draws at most {MAX_TOKENS}. Shorten the sentence.",
                   icon=":material/content_cut:")
        return
    spans = {}                                            # each word's first occurrence (a "##" piece joins its word)
    for w in core.words_of(r.tokens):
        spans.setdefault(w.text, w)
    words = list(spans)
    if not words:
        st.info("This sentence has no words the model can show. Type a sentence above.", icon=":material/edit:")
        return
    fit_choice(frame.key("word"), words, DATA["real_word"] if DATA["real_word"] in words else words[0])
    fit_choice(frame.key("target"), words, DATA["real_target"] if DATA["real_target"] in words else words[-1])
    b, c = st.columns(2)
    word = frame.control(b.selectbox, "word", "Word that looks", words)
    target = frame.control(c.selectbox, "target", "Word it might look at", words)
    q, t_pos = spans[word].start, spans[target]
    roles = multi_head.head_roles(text)
    hits = roles.linking(q, t_pos.start, t_pos.stop)
    n_hit = len(hits)
    layer_panels(r.attentions, r.tokens, word, target, q, (t_pos.start, t_pos.stop))
    if frame.predict("real_heads", options=["None of the 72", "1 to 6 of them", "7 to 36", "More than 36"],
                     answer=0 if n_hit == 0 else 1 if n_hit <= 6 else 2 if n_hit <= 36 else 3,
                     token=literal(word, 30), key=literal(target, 30), value=n_hit):
        measured(r, roles, q, word, target, hits)
    if step >= Step.COST:
        cost(len(r.tokens))


# Its own fragment inside the real layer's: the layer changes this figure and nothing else, so a move of the
# slider redraws the 12 panels alone, not the prediction, the counts, the table and the cost below them.
@frame.fragment
def layer_panels(attentions: np.ndarray, tokens: list[str], word: str, target: str, q: int,
                 span: tuple[int, int]) -> None:
    layer = frame.control(st.slider, "layer", "Layer", 1, 6, 4)
    chart(built(real_heads_figure, attentions[layer - 1], tokens, f"Layer {layer}: all 12 heads", q, span),
          f"Each panel: one head's weights, rows looking at columns, on its own colour scale; outlined, the row of "
          f"“{literal(word, 30)}”; dotted, the column of “{literal(target, 30)}”.",
          lambda: pd.DataFrame(attentions[layer - 1][:, q, :].round(4), index=[f"head {h + 1}" for h in range(12)],
                               columns=[f"{j}: {t}" for j, t in enumerate(tokens)]), key=frame.key("fig_real"))


def measured(r, roles: core.HeadRoles, q: int, word: str, target: str, hits: list[tuple[int, int]]) -> None:
    """What the heads do on this sentence, counted: the claim made testable."""
    best = r.attentions[:, :, q, :]                                            # [6, 12, T]
    st.markdown(f"**Heads whose top target for “{literal(word, 30)}” is “{literal(target, 30)}”** "
                f"({len(hits)} of 72): " + (", ".join(f"L{L + 1} H{H + 1} ({best[L, H, roles.top[L, H, q]]:.0%})"
                                                    for L, H in hits) or "none") + ".")
    with st.expander("Every head's favourite, layer by layer"):
        st.markdown(f"**Over every token of this sentence** (a head counts when at least {ROLE_SHARE:.0%} of its rows "
                    f"share the favourite): previous token, {heads_list(roles.at_least(roles.previous, ROLE_SHARE))}; "
                    f"[SEP], {heads_list(roles.at_least(roles.to_sep, ROLE_SHARE))}; "
                    f"[CLS], {len(roles.at_least(roles.to_cls, ROLE_SHARE))} of 72 heads.")
        # One row per head, one column per layer: six columns fit a laptop's column, twelve scrolled sideways.
        top_table = pd.DataFrame([[f"{r.tokens[roles.top[L, H, q]]} {best[L, H, roles.top[L, H, q]]:.0%}"
                                   for L in range(6)] for H in range(12)],
                                 index=[f"head {H + 1}" for H in range(12)],
                                 columns=[f"layer {L + 1}" for L in range(6)])
        st.caption(f"Each head's top target for “{literal(word, 30)}”, with its weight: a row per head, a column per "
                   "layer.")
        numbers(top_table)


def cost(T: int) -> None:
    st.subheader("⑥ What it costs")
    frame.note("cost")
    one, many = core.attention_cost(T, 384, 1), core.attention_cost(T, 384, 12)
    stages = ["X·W<sub>Q</sub>, X·W<sub>K</sub>, X·W<sub>V</sub>", "Q<sub>h</sub> K<sub>h</sub>ᵀ",
              "weights · V<sub>h</sub>", "Concat · W<sub>O</sub>"]
    row = st.container(horizontal=True)                # wraps where a column is narrow
    row.metric("weights, 1 head of 384", f"{one.params:,}")
    row.metric("weights, 12 heads of 32", f"{many.params:,}")
    row.metric(f"multiply-adds at T = {T}", f"{many.multiply_adds:,}",
                help=f"One head of width 384: {one.multiply_adds:,}.")
    chart(built(cost_figure, stages, [one.projections, one.scores, one.blend, one.mixing],
                [many.projections, many.scores, many.blend, many.mixing], 12),
          f"The only extra: 12 softmaxes of {T}² scores ({many.exps:,} exponentials) instead of one ({one.exps:,}).",
          None, key=frame.key("fig_cost"))


frame.header()
step = frame.steps(Step.labels())
embeddings()
small_heads(step)
if step >= Step.REAL_HEADS:
    real_section(step)
frame.trap()
frame.check("w_v")
frame.footer()
