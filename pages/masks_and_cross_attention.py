"""Masks and cross-attention: who may look at whom, with the one scaled_dot_product_attention."""

import numpy as np
import streamlit as st

import attention_core as core
from figures.masks_and_cross_attention import cross_weights_figure, masked_weights_figure, scene_figure
from ui.charts import built, chart
from ui.content import data_file
from ui.frame import lesson
from ui.inputs import literal, matrix_input, table
from ui.steps import Steps

PROMPT = data_file("prompt_words")
PARTS = {k: np.array(v, dtype=float) for k, v in PROMPT["parts"].items()}
VOCAB = {k: np.array(v, dtype=float) for k, v in PROMPT["words"].items()}
GRID, BALL, D = PROMPT["grid"], PROMPT["ball_size"], len(PROMPT["features"])
W_Q, W_K = PROMPT["strength"] * np.eye(D), np.eye(D)
SENTENCE = ["the", "cat", "sat", "down"]
SEED_SCORES = np.array([[2.0, 0.5, 1.0, 0.0], [1.0, 2.0, 0.5, 1.5], [0.5, 1.5, 1.0, 2.0], [0.0, 1.0, 2.0, 1.0]])
MAX_T = 8
MAX_PAD = 4                               # [PAD] tokens the padding slider can add after the sentence
CIRCLED = "①②③④⑤⑥"
BALL_COLOURS, GROUND_COLOURS = ["red", "blue", "yellow", "green"], ["green", "brown", "yellow"]


class Step(Steps):
    """The presenter steps, in order (the step bar shows each label)."""

    CAUSAL = "The causal mask on your scores"
    DECODER = "Why a decoder needs it"
    PADDING = "Padding"
    CROSS = "Cross-attention: patches ask words"
    WIRINGS = "One function, three wirings"


frame = lesson("masks_and_cross_attention")


def decoder(free: np.ndarray, masked: np.ndarray, labels: list[str], causal: bool) -> None:
    """Section ②: how much weight each token put on later tokens, without the mask and with it ([T, T] each)."""
    st.subheader(f"{CIRCLED[1]} Why a decoder needs it")
    frame.note("decoder")
    T = len(labels)
    future = np.triu(free, k=1).sum(axis=1)
    st.markdown("Without the mask, the share of each token's weight on tokens *after* it: "
                + ", ".join(f"{labels[i]} **{future[i]:.2f}**" for i in range(T))
                + f". With the mask: **{np.triu(masked, k=1).sum():.2f}** in total."
                if causal else "Turn the causal mask on to compare.")


# Its own fragment inside the masks': the padding slider changes this chart alone, so a move of it does not
# redraw the unmasked and masked weights above.
@frame.fragment
def padding(S: np.ndarray, mask: np.ndarray, labels: list[str], causal: bool) -> None:
    """Section ③ below its heading: [PAD] tokens appended after the typed scores S [T, T], their keys at weight 0,
    on top of the causal mask when it is on. A [PAD]'s scores are 0: the mask makes any value irrelevant."""
    T = len(labels)
    pad = frame.control(st.slider, "pad", "Padding tokens added at the end", 0, MAX_PAD, 1,
                        help="Short sentences in a batch are filled up to the longest with [PAD] tokens.")
    n = T + pad
    real = np.arange(n) < T
    pad_labels = [*labels, *(["[PAD]"] * pad)]
    padded_scores = np.zeros((n, n))
    padded_scores[:T, :T] = S
    full = core.padding_mask(real) & (core.causal_mask(n) if causal else np.ones((n, n), dtype=bool))
    eye = np.eye(n)
    padded = core.scaled_dot_product_attention(padded_scores, eye, eye, mask=full, scale=False)
    chart(built(masked_weights_figure, padded.weights, full, pad_labels, pad_labels,
                "Padding" + (" + causal mask" if causal else " mask")),
          ("No padding: every key keeps its weight." if pad == 0 else
           f"{pad} padding key{'s get' if pad > 1 else ' gets'} weight 0 in every row, so the sentence's rows "
           "keep the weights above. The [PAD] rows are still computed, and their outputs are simply never used."),
          lambda: table(padded.weights, pad_labels, pad_labels),
          key=frame.key("fig_pad"))


# One fragment: the scores, the causal switch and the padding drive every chart of ①–③ (under ①'s heading).
def causal_section(step: int) -> None:
    """Section ① under its heading (outside the scores' fragment: the heading never changes there)."""
    st.subheader(f"{CIRCLED[0]} The causal mask on your scores")
    frame.note("causal")
    masks(step)


@frame.fragment
def masks(step: int) -> None:
    left, right = st.columns([2, 1])
    with left:
        S = frame.control(matrix_input, "scores", "Scaled scores (row = query, column = key)", SEED_SCORES, height=140,
                          help=f"A square grid, up to {MAX_T} × {MAX_T}: row i holds token i's scores for every key.")
    # Before the reveal nothing on the page follows the switch (the masked weights are the prediction's answer).
    causal = frame.control(right.toggle, "causal", "Causal mask", True,
                           **({"help": "On: token i may look at tokens 1 … i only."} if frame.revealed("causal_rows")
                              else {"idle": "Reveal your prediction below first: the masked weights this switch "
                                            "shows are its answer."}))
    if S is None:
        return
    T = S.shape[0]
    if S.shape[1] != T or T > MAX_T:
        left.error(f"The scores must be square (one column per token) and at most {MAX_T} × {MAX_T}; "
                   f"these are {S.shape[0]} × {S.shape[1]}.", icon=":material/error:")   # under the grid itself
        return
    labels = SENTENCE if T == len(SENTENCE) else [f"t{i + 1}" for i in range(T)]
    eye = np.eye(T)                       # K = I makes the typed grid Q Kᵀ itself; V = I shows the weights
    free = core.scaled_dot_product_attention(S, eye, eye, scale=False)
    mask = core.causal_mask(T) if causal else np.ones((T, T), dtype=bool)
    masked = core.scaled_dot_product_attention(S, eye, eye, mask=mask, scale=False)
    # One above the other: side by side, a 1024 px screen gave each cell 21 px, too narrow for its number.
    chart(built(masked_weights_figure, free.weights, None, labels, labels, "Weights with no mask"),
          "Every token shares its weight among all the tokens, later ones included.",
          lambda: table(free.weights, labels, labels), key=frame.key("fig_free"))
    revealed = frame.predict("causal_rows")
    if revealed:
        chart(built(masked_weights_figure, masked.weights, mask, labels, labels,
                    "With the causal mask" if causal else "Mask off: same weights"),
              "× marks a blocked key: its weight is exactly 0. Each row still sums to 1: "
              + ", ".join(f"{s:.4f}" for s in masked.weights.sum(axis=1)) + ".",
              lambda: table(masked.weights, labels, labels), key=frame.key("fig_masked"))
    if not revealed:
        st.caption("Make your prediction to see the masked weights and padding.")
        return
    seen = np.where(mask, free.weights, 0).sum(axis=1)    # what the visible keys held before masking
    st.markdown("**How each row renormalises.** " + "  \n".join(
        f"{labels[i]}: its visible keys held {seen[i]:.4f} of the unmasked weight; divided by {seen[i]:.4f} they "
        f"become [" + ", ".join(f"{w:.4f}" for w in masked.weights[i, : i + 1 if causal else T]) + "]."
        for i in range(T)))
    if step >= Step.DECODER:
        decoder(free.weights, masked.weights, labels, causal)
    if step >= Step.PADDING:
        st.subheader(f"{CIRCLED[2]} Padding")          # outside the slider's fragment: it never changes
        frame.note("padding")
        padding(S, mask, labels, causal)


def wirings(n_words: int, number: int) -> None:
    """The last section: where Q, K and V come from, for each use of the one function."""
    st.subheader(f"{CIRCLED[number - 1]} One function, three wirings")
    frame.note("one_function")
    # A Markdown table, not st.dataframe: words only, and a data grid is re-rendered on every move of the
    # ball or the prompt, which rerun this section.
    st.markdown(
        "| | queries from | keys and values from | weights |\n| :--- | :--- | :--- | :--- |\n"
        "| self-attention | the sentence | the same sentence | T × T |\n"
        "| masked self-attention | the sentence | the same sentence, up to each token | T × T, upper triangle 0 |\n"
        f"| cross-attention (this picture) | the image patches | the prompt's words "
        f"| {GRID * GRID} × {n_words} |\n"
        "| cross-attention (translation) | the sentence being written | the encoded source sentence "
        "| target length × source length |\n")


# One fragment: the prompt and the picture drive the cross-attention charts (under ④'s heading).
def cross_section(step: int, number: int) -> None:
    """Cross-attention under its heading (outside the prompt's fragment: the heading never changes there)."""
    st.subheader(f"{CIRCLED[number - 1]} Cross-attention: image patches ask the prompt")
    frame.note("cross")
    cross(step, number)


@frame.fragment
def cross(step: int, number: int) -> None:
    prompt = frame.control(st.text_input, "prompt", "Prompt", PROMPT["prompt"], max_chars=PROMPT["max_chars"],
                           help=f"At most {PROMPT['max_words']} words from the page's little vocabulary.")
    a, b, c, d = st.columns(4)
    row = frame.control(a.slider, "ball_row", "Ball: row", 1, GRID - BALL + 1, GRID - BALL)
    col = frame.control(b.slider, "ball_col", "Ball: column", 1, GRID - BALL + 1, 2)
    ball = frame.control(c.selectbox, "ball_colour", "Ball colour", BALL_COLOURS)
    ground = frame.control(d.selectbox, "ground", "Ground colour", GROUND_COLOURS)
    try:
        words, unknown = core.prompt_words(prompt or "", VOCAB, PROMPT["max_words"])
    except ValueError as err:
        st.info(str(err), icon=":material/edit:")
        return
    if unknown:
        st.warning("Not in this page's vocabulary, so left out: " + ", ".join(literal(w, 20) for w in unknown[:8])
                   + ". Known words: " + ", ".join(sorted(VOCAB)) + ".", icon=":material/spellcheck:")
    if not words:
        st.info("None of the prompt's words is in the vocabulary, so there is nothing to attend to.",
                icon=":material/edit:")
        return
    P, names = core.scene_patches(GRID, (row - 1, col - 1), BALL, PARTS, ball, ground, horizon=GRID // 2)
    ca = core.cross_attention(P, np.vstack([VOCAB[w] for w in words]), words, W_Q, W_K)
    patch_labels = [f"r{i // GRID + 1}c{i % GRID + 1} {n}" for i, n in enumerate(names)]
    # On the chart a patch's kind in one word, so six columns of numbers fit a phone (the table: full labels).
    short = [f"{lab.split()[0]} {'ball' if lab.split()[-1] == 'round' else lab.split()[-1]}" for lab in patch_labels]
    top = [ca.top_label(i) for i in range(GRID * GRID)]
    chart(built(cross_weights_figure, ca.weights, short, words),
          f"Queries: {GRID * GRID} patches; keys and values: {len(words)} words. The weights are "
          f"{ca.weights.shape[0]} × {ca.weights.shape[1]}, not square; each row sums to 1.",
          lambda: table(ca.weights, patch_labels, [f"{j + 1}: {w}" for j, w in enumerate(words)]),
          key=frame.key("fig_cross"))
    if st.session_state.get(frame.key("word")) not in words:         # the prompt changed under the chosen word
        st.session_state[frame.key("word")] = PROMPT["word"] if PROMPT["word"] in words else words[0]
    choice = frame.control(st.selectbox, "word", "Show each patch's weight on the word", list(dict.fromkeys(words)))
    j = words.index(choice)
    colours = [PROMPT["colours"][n.split()[0]] for n in names]
    kind = [n.split()[-1] for n in names]                 # "round" (the ball), "ground" or "sky"
    chart(built(scene_figure, GRID, colours, [k == "round" for k in kind], ca.weights[:, j], choice,
                top),
          "Top: the picture, each patch labelled with the word it draws on most. Below: every patch's weight on "
          f"“{literal(choice, 20)}”.", None, key=frame.key("fig_scene"))
    first = {k: kind.index(k) for k in ("round", "ground", "sky")}
    st.markdown("Where the patches draw most: " + "; ".join(
        f"a {what} patch on **{literal(top[i], 40)}** ({ca.weights[i].max():.2f}"
        + (" each)" if " / " in top[i] else ")") if top[i] != "(even)" else
        f"a {what} patch spreads evenly over the words ({ca.weights[i].max():.2f} each)"
        for what, i in (("ball", first["round"]), ("ground", first["ground"]), ("sky", first["sky"]))) + ".")
    if step >= Step.WIRINGS:
        wirings(len(words), number + 1)


def cross_number(step: int) -> int:
    """Cross-attention's section number: after ①, and after ② and ③ once they show (after the reveal), so the
    numbers on the page never jump."""
    revealed = frame.revealed("causal_rows")
    return 2 + (revealed and step >= Step.DECODER) + (revealed and step >= Step.PADDING)


frame.header()
step = frame.steps(Step.labels())
causal_section(step)
if step >= Step.CROSS:
    cross_section(step, cross_number(step))
frame.trap()
frame.check("masking_deletes")
frame.footer()
