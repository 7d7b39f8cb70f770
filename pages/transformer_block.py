"""Attention inside the block: one real MiniLM block stage by stage, and what each part is for."""

import numpy as np
import pandas as pd
import streamlit as st

import attention_core as core
from figures.transformer_block import by_layer_figure, stage_norms_figure, stage_vectors_figure
from ui.charts import built, chart
from ui.frame import lesson
from ui.inputs import message, text_box
from ui.lessons import transformer_block as tb
from ui.steps import Steps

STAGES = ("input", "attention out", "after residual 1", "after LayerNorm 1", "feed-forward out",
          "after residual 2", "after LayerNorm 2")
SHORT = ("input", "attn", "+res 1", "LN 1", "FF", "+res 2", "LN 2")       # the norms chart's columns
DIMS = 24                                              # numbers of each vector drawn in the stage heatmap
VERDICTS = ("collapsed", "more", "same", "less")
OPTIONS = ("Nearly one vector: a mean cosine of 0.95 or more, well above the full model's",
           "More alike than in the full model, but still apart",
           "About as alike as in the full model (within 0.05)",
           "Less alike than in the full model")


class Step(Steps):
    """The presenter steps, in order (the step bar shows each label)."""

    SENTENCE = "Your sentence and the block's parts"
    BLOCK = "One block, stage by stage"
    ALIKE = "Do the tokens become alike?"
    BANK = "“Bank” by the river and at the till"


frame = lesson("transformer_block")


def sentence_and_parts() -> tuple[str, core.BlockParts]:
    """Section ①: the sentence box and the three switches, read."""
    st.subheader("① Your sentence and the block's parts")
    text = frame.control(text_box, "text", "Type a sentence", tb.SENTENCE, max_chars=tb.MAX_CHARS)
    frame.note("parts")
    a, b, c = st.columns(3)
    parts = core.BlockParts(frame.control(a.toggle, "residual", "Residual connections", False),
                            frame.control(b.toggle, "layer_norm", "LayerNorms", True),
                            frame.control(c.toggle, "feed_forward", "Feed-forward", True))
    return text, parts


def read_sentence(text: str, parts: core.BlockParts) -> bool:
    """The tokens the model reads, or why it reads none; True when there is a run to draw."""
    off = tb.switched_off(parts)
    try:
        run = tb.staged_run(text, parts.residual, parts.layer_norm, parts.feed_forward)
    except ValueError as err:
        st.info(f"{message(err)} Type a sentence above.", icon=":material/edit:")
        return False
    st.caption(f"The {len(run.tokens)} tokens the model reads, [CLS] and [SEP] included, as plain text. "
               f"Switched off in every block: {off}.")
    st.code("  ".join(run.tokens), language=None, wrap_lines=True)
    if run.truncated:
        st.warning("Truncated: the model reads at most 128 tokens, so the rest of your text was cut off.",
                   icon=":material/content_cut:")
    return True


def skipped_columns(parts: core.BlockParts) -> str:
    """Which columns of the lengths chart repeat another one, for the parts switched off."""
    said = []
    if not parts.residual:
        said.append("without the residual, each sum (+res) is its sublayer's output alone")
    if not parts.layer_norm:
        said.append("without LayerNorm, each LN column repeats the sum before it")
    if not parts.feed_forward:
        said.append("without the feed-forward its sublayer is skipped: FF is 0 and the last two columns repeat LN 1")
    return (" Here " + "; ".join(said) + ".") if said else ""


def length_sentence(norms: np.ndarray, layer: int, parts: core.BlockParts) -> str:
    """How the tokens' mean length moves through block ``layer``, from the chart's own numbers."""
    mean = norms.mean(axis=0)                          # [S]
    said = (f"In block {layer} the tokens' mean length is {mean[0]:.3g} at the input, {mean[1]:.3g} out of "
            f"attention and {mean[-1]:.3g} at the block's output")
    if parts.layer_norm:
        lo, hi = norms[:, 3].min(), norms[:, 3].max()
        return said + (f". After the first LayerNorm the lengths lie between {lo:.3g} and {hi:.3g}: each token is "
                       "first brought to mean 0 and variance 1 (length √384 ≈ 19.6), then stretched by the learned "
                       "gain and shifted by the bias, the same for every token.")
    ratio = mean[-1] / mean[0]
    if f"{ratio:.3g}" == "1":
        return said + ": without the LayerNorms nothing rescales them, yet here the mean length ends where it began."
    return said + (": without the LayerNorms nothing rescales them, so in this block the mean length "
                   + ("grows" if ratio > 1 else "shrinks") + f" by ×{ratio:.3g}.")


# Its heading and note sit outside the fragment: a move resends only what it can change.
def one_block(text: str, parts: core.BlockParts) -> None:
    st.subheader("② One block, stage by stage")
    frame.note("block")
    block_stages(text, parts)


@frame.fragment
def block_stages(text: str, parts: core.BlockParts) -> None:
    left, right = st.columns(2)
    layer = frame.control(left.slider, "layer", "Layer (block)", 1, core.bert.N_LAYERS, 1)
    stage = frame.control(right.selectbox, "stage", "Stage for the vector heatmap", STAGES, index=len(STAGES) - 1)
    run = tb.staged_run(text, parts.residual, parts.layer_norm, parts.feed_forward)
    stages = tb.layer_stages(text, parts, layer).stages()
    norms = core.token_norms(stages)                                          # [T, 7]
    tokens = list(run.tokens)
    rows = [f"{i}: {t}" for i, t in enumerate(tokens)]
    chart(built(stage_norms_figure, norms, tokens, list(SHORT), f"Vector lengths in block {layer}"),
          "Columns: the input, attention's output (attn), the sum with the residual (+res 1), the LayerNorm (LN 1), "
          "the feed-forward output (FF), the second sum and the second LayerNorm." + skipped_columns(parts) + " "
          + length_sentence(norms, layer, parts),
          lambda: pd.DataFrame(norms.round(4), index=rows, columns=list(STAGES)), key=frame.key("fig_norms"))
    X = np.asarray(stages[STAGES.index(stage)], dtype=np.float64)[:, :DIMS]
    chart(built(stage_vectors_figure, X, tokens, f"Block {layer}, {stage}: the first {DIMS} numbers"),
          f"The first {DIMS} of the 384 numbers of every token at this stage; values from {X.min():.3g} to "
          f"{X.max():.3g}.", lambda: pd.DataFrame(X.round(4), index=rows), key=frame.key("fig_vectors"))


def alike_sentence(full: np.ndarray, ablated: np.ndarray, verdict: str, off: str) -> str:
    """What the alikeness chart shows, computed from its two lines."""
    said = (f"With every part on, the mean cosine between tokens goes from {full[0]:.3f} after the embedding to "
            f"{full[-1]:.3f} after layer 6.")
    if off == "nothing":
        return said + " Nothing is switched off, so the two lines are the same model: switch a part off above."
    said += f" Without {off} it reaches {ablated[-1]:.3f}: "
    if verdict == "collapsed":
        at = core.first_layer_at(ablated, core.transformer_block.COLLAPSED)
        return said + (f"the tokens become alike much faster and are nearly one vector (0.95 first reached at "
                       f"{tb.LAYER_LABELS[at]}), so the blocks after that can hardly tell them apart.")
    if verdict == "more":
        return said + f"the tokens become alike faster, {ablated[-1] - full[-1]:.3f} above the full model."
    if verdict == "same":
        return said + "within 0.05 of the full model: this part barely changes how alike the tokens become."
    return said + f"the tokens end {full[-1] - ablated[-1]:.3f} less alike than in the full model."


def tokens_alike(text: str, parts: core.BlockParts) -> bool:
    """Step 3: the prediction, then the alikeness chart; True once the prediction is revealed."""
    off = tb.switched_off(parts)
    st.subheader("③ Do the tokens become alike?")
    frame.note("alike")
    full = tb.alikeness(text, True, True, True)
    ablated = tb.alikeness(text, parts.residual, parts.layer_norm, parts.feed_forward)
    verdict = core.compare_alikeness(float(full[-1]), float(ablated[-1]))
    measured = alike_sentence(full, ablated, verdict, off)
    if not frame.predict("collapse", options=list(OPTIONS), answer=VERDICTS.index(verdict), off=off,
                         full=f"{full[-1]:.3f}", measured=measured):
        return False
    row = st.container(horizontal=True)
    row.metric("full model, after layer 6", f"{full[-1]:.3f}")
    row.metric(f"without {off}" if parts != core.BlockParts() else "the same model", f"{ablated[-1]:.3f}")
    names = {"full model": full, (f"without {off}" if off != "nothing" else "every part on (again)"): ablated}
    chart(built(by_layer_figure, list(tb.LAYER_LABELS), names, "How alike the tokens are", "mean cosine"),
          measured, lambda: pd.DataFrame({k: v.round(4) for k, v in names.items()}, index=tb.LAYER_LABELS),
          key=frame.key("fig_alike"))
    return True


def bank_sentence(full: tb.BankNumbers, ablated: tb.BankNumbers, off: str) -> str:
    """What the bank chart shows, computed from its numbers."""
    f, a = float(full.cosine[-1]), float(ablated.cosine[-1])
    said = f"After layer 6 the two banks' cosine is {f:.3f} with every part on"
    if off == "nothing":
        return said + ". Nothing is switched off, so the two lines coincide."
    said += f" and {a:.3f} without {off}: " + (
        "the two banks stay further apart" if a < f - core.transformer_block.SAME else
        "the two banks end closer together" if a > f + core.transformer_block.SAME else "about the same")
    r, t = float(ablated.river_to_others[-1]), float(ablated.till_to_others[-1])
    said += (f". Each bank's mean cosine with the other tokens of its own sentence: {full.river_to_others[-1]:.3f} "
             f"→ {r:.3f} by the river, {full.till_to_others[-1]:.3f} → {t:.3f} at the till")
    if min(r, t) >= core.transformer_block.COLLAPSED:
        return said + (", so each bank is now nearly the same vector as every word around it: what the two banks' "
                       "cosine compares is the two sentences, no longer the word.")
    return said + "."


def two_banks(parts: core.BlockParts) -> None:
    """Step 4: the two banks, full model against the one with the parts switched off."""
    off = tb.switched_off(parts)
    st.subheader("④ “Bank” by the river and at the till")
    frame.note("bank")
    st.caption(f"“{tb.RIVER}” against “{tb.TILL}”.")
    full, ablated = tb.bank_numbers(True, True, True), tb.bank_numbers(parts.residual, parts.layer_norm,
                                                                     parts.feed_forward)
    names = {"full model": full.cosine, (f"without {off}" if off != "nothing" else "every part on (again)"):
             ablated.cosine}
    chart(built(by_layer_figure, list(tb.LAYER_LABELS), names, "The two banks, layer by layer", "cosine"),
          bank_sentence(full, ablated, off),
          lambda: pd.DataFrame({**{k: v.round(4) for k, v in names.items()},
                                "river bank vs its sentence": ablated.river_to_others.round(4),
                                "till bank vs its sentence": ablated.till_to_others.round(4)},
                               index=tb.LAYER_LABELS), key=frame.key("fig_bank"))


frame.header()
shown = frame.steps(Step.labels())
text, parts = sentence_and_parts()
readable = read_sentence(text or "", parts)
if readable and shown >= Step.BLOCK:
    one_block(text, parts)
# A student answering a class poll has no reveal of their own: the prediction's return says it is revealed.
revealed = tokens_alike(text, parts) if readable and shown >= Step.ALIKE else frame.revealed("collapse")
if shown >= Step.BANK and revealed:
    two_banks(parts)

frame.trap(after=("collapse",))
frame.check("why_collapse", after=("collapse",))
frame.footer()
