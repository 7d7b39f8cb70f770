"""The lab: the learner's own sentence through a real pretrained transformer (all-MiniLM-L6-v2 in NumPy)."""

import numpy as np
import pandas as pd
import streamlit as st

import attention_core as core
from figures.real_model_lab import attention_bars, attention_heatmap, cosine_layers_figure, neighbours_figure
from ui.charts import built, chart
from ui.frame import lesson
from ui.inputs import literal, message, text_box
from ui.lessons import real_model_lab
from ui.models import encode, glove_nearest, minilm
from ui.steps import Steps

PRESETS, EXPERIMENT = real_model_lab.PRESETS, real_model_lab.EXPERIMENT
MAX_SENTENCES = 6


def fit_choice(key: str, options: list[str], default: str) -> None:
    """Keep a selectbox's value among its options when they change with the sentence."""
    if st.session_state.get(key) not in options:
        st.session_state[key] = default


def use_preset(preset: str, text: str) -> None:
    """An example picked in the chips keyed ``preset``: it becomes the sentence in the box keyed ``text``, and the
    chips clear so the same one can be picked again."""
    if st.session_state.get(preset):
        st.session_state[text] = st.session_state[preset]
    st.session_state[preset] = None


class Step(Steps):
    """The presenter steps, in order (the step bar shows each label)."""

    SENTENCE = "Your sentence, as the model sees it"
    HEATMAP = "The attention heatmap"
    WHO = "Who attends to whom"
    LAYERS = "One word, layer by layer"
    NEIGHBOURS = "Static against contextual neighbours"


frame = lesson("real_model_lab")


def sentence() -> str:
    """Section ①: the sentence box and the example chips; the sentence typed."""
    st.subheader("① Your sentence")
    text = frame.control(text_box, "text", "Type a sentence", PRESETS[0], max_chars=10_000)
    # One widget for the examples, not a button each: every widget costs the server a little on every run.
    frame.control(st.pills, "preset", "Or start from an example", PRESETS, on_change=use_preset,
                  args=(frame.key("preset"), frame.key("text")))
    return text or ""


def read_sentence(text: str) -> bool:
    """The tokens the model reads, or why it reads none; True when there is a run to draw.

    The run stays in ui.models.LAB_RUNS and out of this page's globals: the fragments below keep the
    page's globals, and Streamlit keeps a session for minutes after its browser has gone, so a run held
    here would stay as long (docs/RELIABILITY.md, memory soak). Each fragment looks its run up again."""
    try:
        r = encode(text)
    except ValueError as err:
        st.info(f"{message(err)} Type a sentence above or pick one of the examples.", icon=":material/edit:")
        return False
    frame.note("tokens")
    T, unk = len(r.tokens), r.tokens.count("[UNK]")
    st.caption(f"The {T} tokens the model reads, [CLS] and [SEP] included, as plain text (markup is never run)."
               + (f" {unk} became [UNK]: pieces the vocabulary cannot spell (emoji and many symbols)." if unk else ""))
    st.code("  ".join(r.tokens), language=None, wrap_lines=True)
    if r.truncated:
        st.warning(f"Truncated: the model reads at most {minilm().max_tokens} tokens (and 10,000 characters), so "
                   "the rest of your text was cut off.", icon=":material/content_cut:")
    return True



# ③ reads ②'s weights: its own fragment (a new token here reruns ③ only), nested in ②'s below.
@frame.fragment
def who_attends(text: str, layer: int, head: int | None, view: str) -> None:
    r = encode(text)                                 # the shared run (see read_sentence), not a copy kept here
    W = core.attention_map(r.attentions, layer, head)                                    # [T, T]
    T = len(r.tokens)
    st.subheader("③ Who attends to whom")
    frame.note("who")
    labels = [f"{i}: {t}" for i, t in enumerate(r.tokens)]              # plain text in the selectbox
    hit = core.find_word(r.tokens, EXPERIMENT["word"])
    fit_choice(frame.key("token"), labels, labels[hit.start if hit else 1])
    q = labels.index(frame.control(st.selectbox, "token", "Token that attends", labels))
    top = core.top_keys(W[q], 1)[0][0]
    picks = sorted({top, 0, T - 1, q, max(q - 1, 0), min(q + 1, T - 1)})
    if frame.predict("top_key", options=[literal(labels[j]) for j in picks], answer=picks.index(top),   # Markdown
                     token=literal(r.tokens[q]), weight=f"{W[q, top]:.1%}"):
        best = core.top_keys(W[q], 3)
        chart(built(attention_bars, W[q], r.tokens, q, f"Where token {q} looks ({view})"),
              f"Token {q}'s row of the heatmap: its weight on every token. Top three: "
              + ", ".join(f"{literal(r.tokens[j], 20)} {w:.1%}" for j, w in best) + ".",
              lambda: pd.DataFrame({"token": r.tokens, "weight": W[q].round(4)}), key=frame.key("fig_bars"))


# One fragment for ② and ③: a layer, a head or the average changes the weights both draw, so moving one reruns
# these two sections only (not the model run of the sentence above, the header or the footer).
@frame.fragment
def where_tokens_look(text: str, shown: int) -> None:
    r = encode(text)                                 # the shared run (see read_sentence), not a copy kept here
    st.subheader("② Where each token looks")
    frame.note("heatmap")
    a, b, c = st.columns([2, 2, 1])
    model = minilm()
    layer = frame.control(a.slider, "layer", "Layer", 1, model.n_layers, 1)
    avg = frame.control(c.toggle, "avg", "Head average", False)
    head = frame.control(b.slider, "head", "Head", 1, model.n_heads, 1,
                         idle=f"“Head average” is on: the map is the mean of all {model.n_heads} heads, whichever "
                              "head is picked here." if avg else None)
    W = core.attention_map(r.attentions, layer - 1, None if avg else head - 1)        # [T, T]
    view = f"layer {layer}, " + (f"mean of the {model.n_heads} heads" if avg else f"head {head}")
    chart(built(attention_heatmap, W, r.tokens, f"Attention weights, {view}"),
          f"Attention weights in {view}: row = the token attending, column = the token attended to; rows sum to 1. "
          f"The colour scale tops out at the largest weight, {W.max():.2f}.",
          lambda: pd.DataFrame(W.round(4), index=[f"{i}: {t}" for i, t in enumerate(r.tokens)],
                               columns=[f"{j}: {t}" for j, t in enumerate(r.tokens)]), key=frame.key("fig_heatmap"))
    if shown >= Step.WHO:
        who_attends(text, layer - 1, None if avg else head - 1, view)


# ⑤ reads ④'s word and experiment: its own fragment (a new sentence or layer here reruns ⑤ only), nested in ④'s.
@frame.fragment
def contextual_neighbours(word: str, ex: dict | None) -> None:
    st.subheader("⑤ Static against contextual neighbours")
    frame.note("neighbours")
    # One above the other (the reference sentences need the width for their labels): GloVe's list first.
    try:
        near = glove_nearest(word, 10)
        chart(built(neighbours_figure, [w for w, _ in near], np.array([c for _, c in near]),
                    "GloVe: one vector, one list", "cosine"),
              f"The ten GloVe words nearest to '{literal(word, 30)}' out of 50,000, the same in every sentence.",
              lambda: pd.DataFrame(near, columns=["word", "cosine"]), key=frame.key("fig_glove"))
    except ValueError as err:
        st.info(message(err), icon=":material/info:")
    # Only the sentences that exist and use the word; a link or an edit that removed the chosen one falls
    # back to the first that does.
    a, b = st.columns(2)
    usable = [f"Sentence {n + 1}" for n in sorted(ex.stacks)] if ex is not None else []
    if usable:
        fit_choice(frame.key("pick"), usable, usable[0])
        pick = int(frame.control(a.selectbox, "pick", "Sentence", usable).split()[-1]) - 1
    else:
        pick = None
    last = minilm().n_layers
    nl = frame.control(b.slider, "nlayer", "Layer to compare at", 0, last, last)
    if ex is None or ex.ref_stacks is None:
        st.info("Contextual neighbours need reference sentences for this word; the lab has them for: "
                + ", ".join(sorted({x["word"] for x in real_model_lab.REFERENCES})) + ".", icon=":material/info:")
    elif pick is None:
        st.info("None of the sentences above uses the word, so there is nothing to compare.", icon=":material/info:")
    else:
        _, cos = core.rank_by_cosine(ex.stacks[pick][nl + 1], ex.ref_stacks[:, nl + 1])
        senses = [s for s, _ in ex.refs]
        chart(built(neighbours_figure, [s for _, s in ex.refs], cos, f"MiniLM, layer {nl}: nearest usages",
                    "cosine", senses, "reference sentence"),
              f"The word in sentence {pick + 1} against the same word in reference sentences, layer {nl}. "
              "Mean per sense: " + ", ".join(f"{k} {v:.3f}" for k, v in core.sense_means(cos, senses).items())
              + ".", lambda: pd.DataFrame({"reference": [s for _, s in ex.refs], "sense": senses,
                                           "cosine": cos.round(4)}), key=frame.key("fig_context"))


# One fragment for ④ and ⑤: the word and the sentences typed here (not the lab's sentence) drive both, so
# editing them reruns these two sections only.
@frame.fragment
def layer_by_layer(shown: int) -> None:
    st.subheader("④ One word, layer by layer")
    frame.note("polysemy")
    a, b = st.columns([1, 3])
    word = frame.control(text_box, "word", "Word", EXPERIMENT["word"], max_chars=60, where=a)
    raw = frame.control(text_box, "sentences", "Sentences that use it, one per line",
                        "\n".join(EXPERIMENT["sentences"]), max_chars=3000, area=True, where=b)
    sentences = tuple(s.strip() for s in (raw or "").splitlines() if s.strip())[:MAX_SENTENCES]
    try:
        ex = real_model_lab.layer_experiment(word or "", sentences)
    except ValueError as err:
        ex = None
        st.error(message(err), icon=":material/error:")
    if ex is not None and ex.missing:
        st.warning("These sentences do not contain the word, so they are left out: "
                   + ", ".join(f"sentence {n}" for n in ex.missing) + ".", icon=":material/search_off:")
    ok = ex is not None and len(ex.stacks) >= 2
    if not ok:
        st.info("The experiment needs the word in at least two sentences.", icon=":material/edit:")
    if frame.predict("drift") and ok:
        ids = list(ex.stacks)
        def cut(text: str, n: int = 28) -> str:          # a sentence cut short says so, not "river ban"
            return text if len(text) <= n else text[: n - 1].rstrip() + "…"

        curves = {f"{i + 1} vs {j + 1}: {cut(sentences[i])} / {cut(sentences[j])}":         # Plotly escapes
                  core.cosine_by_layer(ex.stacks[i], ex.stacks[j]) for i, j in
                  ((ids[x], ids[y]) for x in range(len(ids)) for y in range(x + 1, len(ids)))}
        first = next(iter(curves.values()))
        m = st.columns(3)
        m[0].metric("cosine at the lookup", f"{first[0]:.4f}",
                    help="These three are for the first pair of sentences; the chart below has every pair.")
        m[1].metric("at layer 0 (+ position)", f"{first[1]:.4f}")
        m[2].metric(f"after layer {minilm().n_layers}", f"{first[-1]:.4f}")
        chart(built(cosine_layers_figure, list(core.LAYER_LABELS), curves, "The same word in two sentences"),
              "Cosine of the word's vectors in each pair of sentences, from the lookup (identical: 1) through "
              "layer 0 (position added) to each layer's output.",
              lambda: pd.DataFrame({k: v.round(4) for k, v in curves.items()}, index=core.LAYER_LABELS),
              key=frame.key("fig_layers"))
    if shown >= Step.NEIGHBOURS:
        contextual_neighbours(word, ex)


frame.header()
shown = frame.steps(Step.labels())
text = sentence()
if read_sentence(text) and shown >= Step.HEATMAP:
    where_tokens_look(text, shown)
frame.trap(after=("top_key",))
frame.check("one_head", after=("top_key",))
if shown >= Step.LAYERS:
    layer_by_layer(shown)
frame.footer()
