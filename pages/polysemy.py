"""One word, many meanings: a static vector for “bank” sits between its senses; context moves it."""

import numpy as np
import pandas as pd
import streamlit as st

import attention_core as core
from figures.polysemy import context_map, dimension_lines, sense_map
from ui import controls
from ui.charts import built, chart
from ui.frame import lesson
from ui.inputs import literal
from ui.lessons import polysemy
from ui.numbers import counted, fixed
from ui.real_vectors import render_real_vectors
from ui.steps import Steps

DIMS = list(polysemy.DIMS)
WORD = "bank"
MAX_CONTEXT, MAX_WORD = 8, 24                    # words around bank, and characters in a word typed there


def cut_flag(key: str) -> str:
    """Where trim_context notes, for this run, that it cut the words of the control ``key``."""
    return controls.private_key("cut", key)


def trim_context(key: str) -> None:
    """A change that leaves more than MAX_CONTEXT words, or a word over MAX_WORD characters, is cut back
    before the page runs (so the URL, which mirrors the widget, never carries the excess either)."""
    picked = st.session_state.get(key) or []
    kept = [w for w in picked if len(w) <= MAX_WORD][:MAX_CONTEXT]
    if len(kept) != len(picked):
        st.session_state[key] = kept
        st.session_state[cut_flag(key)] = True                # the page says so on this run


# The vocabulary's dot products with bank differ by a few hundredths, so the temperature must be about that
# small for the weights to differ visibly (at 0.5 they were 0.35, 0.32, 0.33: plain averaging).
DEFAULT_TEMPERATURE = 0.05
SOFTMAX_EXAMPLE = [12.0, 8.0, 2.0]                               # raw scores, as in the classic worked example


def lean_words(d_river: float, d_finance: float) -> str:
    """Which sense z leans to, from its two distances; a tie (equal to the digits shown) is said as one."""
    if fixed(d_river, 4) == fixed(d_finance, 4):
        return "both senses pull equally, so it leans **neither** way."
    return f"it leans **{'river' if d_river < d_finance else 'finance'}**."


def top_share_words(weights: np.ndarray, tokens: list[str], temperature: float) -> str:
    """Bank's largest share of attention and who gets it, every token of a tie named."""
    if len(tokens) == 1:
        return f"With only one token to attend to, **{literal(tokens[0])}**, bank gives it all of its attention."
    top = float(weights.max())
    winners = [t for t, w in zip(tokens, weights, strict=True) if np.isclose(w, top, rtol=0, atol=1e-9)]
    who = (f"**{literal(winners[0])}**" if len(winners) == 1 else
           ", ".join(f"**{literal(t)}**" for t in winners[:-1]) + f" and **{literal(winners[-1])}** (a tie)")
    return (f"At T = {temperature:g}, over {counted(len(tokens), 'token')}, bank's largest share of attention, "
            f"{top:.1%}{' each' if len(winners) > 1 else ''}, goes to {who}.")


def power(x: float) -> str:
    """e to the power x, written e¹² (for the small whole numbers of the softmax example)."""
    return "e" + f"{x:g}".translate(str.maketrans("-0123456789.", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹·"))


class Step(Steps):
    """The presenter steps, in order (the step bar shows each label)."""

    ONE_VECTOR = "One vector for two meanings"
    STEER = "Let the sentence steer"
    DIMENSIONS = "Would more dimensions help?"


frame = lesson("polysemy")


# ── 1. The static point ────────────────────────────────────────────────────────────────────────────
def static_point(vocab: polysemy.Vocab, static: np.ndarray) -> None:
    """Step 1: the vocabulary's map with bank's one static point, and how it scores against water and money."""
    coords, (sense_river, sense_finance) = vocab.coords, vocab.senses
    all_X, all_groups = vocab.X, vocab.groups
    st.subheader("1 · One vector for two meanings")
    frame.note("static")
    left, right = st.columns([3, 2])
    with left:
        chart(built(sense_map, vocab.all, all_X, all_groups, static),
              "River words (sky blue) and finance words (orange); diamonds are the two senses of bank, "
              "the grey cross is the static bank vector, their centroid.",
              lambda: pd.DataFrame({"x": all_X[:, 0], "y": all_X[:, 1], "group": all_groups},
                                   index=pd.Index(vocab.all, name="word")), key=frame.key("fig_static"))
    with right:
        dot_water, dot_money = float(static @ coords["water"]), float(static @ coords["money"])
        st.markdown(f"Static **bank** = centroid of [{sense_river[0]:g}, {sense_river[1]:g}] and "
                    f"[{sense_finance[0]:g}, {sense_finance[1]:g}] = **[{static[0]:.4g}, {static[1]:.4g}]**.")
        # One above the other: half this column is too narrow for a label on a projector at 1024 px, and a
        # metric's label never wraps.
        st.metric("bank · water", f"{dot_water:.4f}")
        st.metric("bank · money", f"{dot_money:.4f}")
        st.markdown(f"The two scores differ by only **{abs(dot_water - dot_money):.4f}**: from its static vector "
                    "alone, bank looks as related to water as to money. Its distance to each sense is "
                    f"{np.linalg.norm(static - sense_river):.4f} and {np.linalg.norm(static - sense_finance):.4f}.")


# ── 2. Context in motion ───────────────────────────────────────────────────────────────────────────
# One fragment: the words, the temperature and the self toggle drive only this section's map, bars and metrics.
@frame.fragment
def context(vocab: polysemy.Vocab, static: np.ndarray) -> None:
    words, coords, group_of = vocab.words, vocab.coords, vocab.group_of
    sense_river, sense_finance = vocab.senses
    all_X, all_groups = vocab.X, vocab.groups
    picked = frame.control(st.multiselect, "ctx", "Words around bank (pick, or type one and press Enter)", words,
                           default=["muddy", "river"], accept_new_options=True, max_selections=MAX_CONTEXT,
                           on_change=trim_context, args=(frame.key("ctx"),),
                           help=f"Only words in the vocabulary above have vectors; others are left out. At most "
                                f"{MAX_CONTEXT} words.")
    # A value from a link (or a client that ignores max_selections) is cut back here too.
    over = st.session_state.pop(cut_flag(frame.key("ctx")), False) or len(picked) > MAX_CONTEXT or any(
        len(w) > MAX_WORD for w in picked)
    picked = [w for w in picked if len(w) <= MAX_WORD][:MAX_CONTEXT]
    if over:
        st.warning(f"At most {MAX_CONTEXT} words of at most {MAX_WORD} characters each; the rest were left out.",
                   icon=":material/warning:")
    known = [w for w in picked if w in words]
    unknown = [core.clean_label(w) for w in picked if w not in words]
    if unknown:
        st.warning("Not in this page's vocabulary, so left out: " + ", ".join(f"“{literal(w)}”" for w in unknown)
                   + ". Pick from the words listed above.", icon=":material/warning:")
    c1, c2 = st.columns([3, 2], vertical_alignment="center")
    temperature = frame.control(c1.slider, "temp", "Temperature T", 0.02, 2.0, DEFAULT_TEMPERATURE, 0.01,
                                help="Divides the scores before softmax: low = sharp, high = even.")
    with_self = frame.control(c2.toggle, "self", "bank also attends to itself", value=True,
                              help="In self-attention a word is part of its own sentence. "
                                   "Off: blend the neighbours only.")

    tokens = ([WORD] if with_self else []) + known
    if not tokens:
        st.warning("Pick at least one word for bank to attend to (or let it attend to itself).",
                   icon=":material/warning:")
    else:
        X = np.vstack(([static] if with_self else []) + [coords[w] for w in known])
        groups = (["sense"] if with_self else []) + [group_of[w] for w in known]
        trace = core.contextualize(static, X, temperature=temperature)
        d_river, d_finance = np.linalg.norm(trace.z - sense_river), np.linalg.norm(trace.z - sense_finance)
        chart(built(context_map, vocab.all, all_X, all_groups, static, trace.z, tokens, trace.weights, groups,
                    highlight=tuple(known)),
              "Top: the arrow runs from the static bank (grey cross) to the contextual bank z (green star); the "
              "sentence's words are drawn larger. Below: bank's share αⱼ of attention on each token; the shares "
              "add up to 1.",
              lambda: pd.DataFrame({"score bank·xⱼ": trace.scores, "weight αⱼ": trace.weights,
                                    "αⱼ xⱼ (finance-ish)": trace.contributions[:, 0],
                                    "αⱼ xⱼ (nature-ish)": trace.contributions[:, 1]},
                                   index=pd.Index(tokens, name="token")), key=frame.key("fig_context"))
        st.markdown(f"z = Σ αⱼ xⱼ = **[{fixed(trace.z[0], 4)}, {fixed(trace.z[1], 4)}]**, moved "
                    f"{fixed(np.linalg.norm(trace.shift), 4)} from the static point. It is now **{fixed(d_river, 4)}** "
                    f"from the river sense and **{fixed(d_finance, 4)}** from the finance sense: "
                    + lean_words(d_river, d_finance))
        st.markdown(top_share_words(trace.weights, tokens, temperature))
        context_metrics(trace, static, vocab.senses, len(tokens))


def signed(x: float, decimals: int = 4) -> str:
    """A change with its sign, never "-0.0000" ("+0.0000" for a change that rounds to zero)."""
    text = fixed(x, decimals)
    return text if text.startswith("-") else "+" + text


def context_metrics(trace: core.ContextTrace, static: np.ndarray, senses: np.ndarray, n_tokens: int) -> None:
    """z's distance to each sense (and the change from the static point), and the weights' entropy."""
    c1, c2, c3 = st.columns(3)
    # Short labels: a metric's label never wraps, and three share a row on a projector at 1024 px.
    for column, name, sense in ((c1, "river", senses[0]), (c2, "finance", senses[1])):
        d = np.linalg.norm(trace.z - sense)
        column.metric(f"z → {name}", f"{d:.4f}", signed(d - np.linalg.norm(static - sense)), delta_color="inverse",
                      help=f"From z to the {name} sense of bank; the change is from the static point.")
    c3.metric("weights' entropy", f"{fixed(trace.entropy, 3)} nats",
              help=f"How evenly bank spreads its attention, in nats (entropy with the natural log): an even "
                   f"share over these tokens gives {np.log(n_tokens):.3f} nats; all on one token, 0.")


def steer(vocab: polysemy.Vocab, static: np.ndarray) -> None:
    """Step 2: softmax met on three numbers, the temperature, then the sentence that moves bank."""
    # The section's fixed text stays outside the fragment: every element inside is sent again on each move
    # and redrawn by the browser before the chart is (docs/PERFORMANCE.md, "Timings moved out of the code").
    st.subheader("2 · Let the sentence steer")
    frame.note("context")
    w = core.softmax(SOFTMAX_EXAMPLE)
    st.markdown("**Softmax, first met.** Suppose three words score " + ", ".join(f"{x:g}" for x in SOFTMAX_EXAMPLE)
                + f". Softmax raises e to each score and divides by the total: {power(SOFTMAX_EXAMPLE[0])} / ("
                + " + ".join(power(x) for x in SOFTMAX_EXAMPLE) + ") = "
                f"**{w[0]:.4f}**, then **{w[1]:.4f}** and **{w[2]:.6f}**. Every weight is between 0 and 1, they add "
                f"up to {w.sum():g}, and the order of the scores is kept, but a lead of "
                f"{SOFTMAX_EXAMPLE[0] - SOFTMAX_EXAMPLE[1]:g} points becomes a "
                f"{w[0] / w[1]:.1f}-fold share: softmax exaggerates gaps.")
    frame.note("temperature")
    listed = {g: ", ".join(w for w in vocab.words if vocab.group_of[w] == g) for g in ("river", "finance")}
    st.caption(f"Vocabulary. River words: {listed['river']}. Finance words: {listed['finance']}.")
    context(vocab, static)


# ── 3. The trap, tested ────────────────────────────────────────────────────────────────────────────
# One fragment: d and the seed drive only this section's chart and metrics (its prediction reruns it alone too).
@frame.fragment
def dimensions() -> None:
    st.subheader("3 · Would more dimensions help?")
    frame.note("dimension")
    c1, c2 = st.columns([3, 1])
    # Before the reveal nothing on the page follows d (its distances are the prediction's answer): held back.
    wait = None if frame.revealed("bigger_d") else "Reveal your prediction below first: what d changes is its answer."
    d = frame.control(c1.select_slider, "dim", "Dimensions d", options=DIMS, value=300, idle=wait)
    seed = int(frame.control(c2.number_input, "seed", "Random seed", 0, 9999, polysemy.SEED, 1, idle=wait))
    dims = DIMS
    runs = [polysemy.sense_experiment(k, seed) for k in dims]       # the whole sweep, so the chart has a shape at any d
    now = runs[dims.index(d)]
    if frame.predict("bigger_d", d=d, near=f"{now.dist_a:.3f}", far=f"{now.dist_b:.3f}",
                     half=f"{now.dist_senses / 2:.2f}", apart=f"{now.dist_senses:.2f}"):
        frame.trap(after=("bigger_d",))
        left, right = st.columns([3, 2])
        with left:
            chart(built(dimension_lines, dims, [r.dist_a for r in runs], [r.dist_b for r in runs],
                        [r.dist_context for r in runs], current=d),
                  f"Average distances over 8 random draws at each d from {dims[0]} to {dims[-1]}; the dotted line "
                  f"marks d = {d}.",
                  lambda: pd.DataFrame({"static → river": [r.dist_a for r in runs],
                                "static → finance": [r.dist_b for r in runs],
                                "between senses": [r.dist_senses for r in runs],
                                "context → river": [r.dist_context for r in runs]}, index=pd.Index(dims, name="d")),
                  key=frame.key("fig_dims"))
        with right:
            st.markdown(f"**At d = {d}**")
            # One column, short labels: a metric's label never wraps, and this column is narrow on a projector.
            st.metric("static → river", f"{now.dist_a:.3f}", help="From the static point to the river sense.")
            st.metric("static → finance", f"{now.dist_b:.3f}", help="From the static point to the finance sense.")
            st.metric("gap ÷ sense distance", f"{now.relative_gap:.1%}",
                      help="The difference between the two distances above, as a share of the distance between "
                           "the two senses.")
            st.metric("in context → river", f"{now.dist_context:.3f}",
                      help="From a vector built from a river sentence's context to the river sense.")
            gaps = [r.relative_gap for r in runs]
            st.markdown(f"From d = {dims[0]} to {dims[-1]} the static point's two distances differ by "
                        f"{min(gaps):.1%} to {max(gaps):.1%} of the distance between the senses, while the "
                        f"context-built vector sits {now.dist_context:.3f} from its sense here, against "
                        f"{now.dist_a:.3f} for the static point.")


frame.header()
shown = frame.steps(Step.labels())
vocab = polysemy.vocab()
static = core.centroid(vocab.senses)                          # the one point a static model keeps
static_point(vocab, static)
render_real_vectors(frame.text.notes["real_vectors"])
if shown >= Step.STEER:
    steer(vocab, static)
if shown >= Step.DIMENSIONS:
    dimensions()
frame.check("more_dims", after=("bigger_d",))
frame.footer()
