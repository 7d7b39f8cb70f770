"""RNN versus attention: a chain of T − 1 multiplications against one direct step."""

from contextlib import nullcontext

import numpy as np
import pandas as pd
import streamlit as st

import attention_core as core
from figures.rnn_vs_attention import bound_figure, influence_figure, lstm_figure, path_figure, recall_figure
from ui import present
from ui.charts import built, chart
from ui.frame import lesson
from ui.lessons import rnn_vs_attention
from ui.numbers import counted, from_log10, power, written
from ui.steps import Steps


class Step(Steps):
    """The presenter steps, in order (the step bar shows each label)."""

    BOUND = "How much survives the chain"
    RACE = "A real RNN against attention"
    PATH = "Path length and parallel steps"
    LSTM = "The LSTM: what its gates change"


frame = lesson("rnn_vs_attention")
EFFECTIVELY_ZERO = -6            # log₁₀: a number below 10⁻⁶ in running text says what it means


def said(log10: float) -> str:
    """A number from its log₁₀, in a sentence: below 10⁻⁶ it says so ("… (effectively zero)")."""
    return from_log10(log10) + (" (effectively zero)" if log10 < EFFECTIVELY_ZERO else "")


def folded(label: str):
    """Where a note's detail waits: an expander off the main line. In presenter mode the note folds itself
    (frame.note makes its own expander there, and expanders do not nest)."""
    return nullcontext() if present.active() else st.expander(label)


def predict_decay(rho: float, steps: int, length: int) -> bool:
    """How much survives the chain? The options are the learner's likely answers for these very numbers."""
    right = from_log10(core.log10_gradient_bound(rho, steps), 2)
    one, added = from_log10(core.log10_gradient_bound(rho, 1), 2), 1 - steps * (1 - rho)
    wrong = [f"About {one}: that is what one step keeps"]
    if added > 0:
        adds = "adds" if steps == 1 else "add"
        wrong.append(f"About {from_log10(float(np.log10(added)), 2)}: the {counted(steps, 'small change')} {adds} up")
    # A wrong answer that comes out at the same number as the right one (‖J‖ = 1, one step) is left out.
    wrong = [w for w in wrong if not w.startswith(f"About {right}:")]
    options = [*wrong, f"About {right}", "Exactly 0: after enough steps nothing is left"]
    return frame.predict("decay", options=options, answer=len(wrong), rho=f"{rho:.2f}", steps=steps,
                         steps_said=counted(steps, "step"),
                         length=length, compound=said(core.log10_gradient_bound(rho, steps)), one=one,
                         added=f"{added:.3g}")


def why_it_fades(r: rnn_vs_attention.Race, rho: float, steps: int) -> str:
    """The real chain against its bound, in numbers: tanh's slopes and the norm of a product. Every number is
    read in log space, so a gradient far below the smallest double (10⁻³⁷¹ at T = 500) is still written out."""
    f: core.ChainFactors = r.factors
    if steps < 1:
        return "With one token there is no chain to cross."
    log_rate = (r.rnn_log10[0] - r.rnn_log10[-1]) / steps        # log₁₀ of the factor per step
    factor = from_log10(log_rate)
    change = (f"its gradient {'shrinks' if log_rate < 0 else 'grows'} by about ×{factor} per step"
              if factor != "1" else "its gradient keeps about the same size from step to step")
    return (f"**Why the real RNN {'fades' if log_rate < 0 else 'grows'} at ‖J‖ = {rho:.2f}.** The bound lets every "
            f"step stretch by the full ‖Wₕₕ‖ = {rho:.2f}. A real step multiplies by Jₜ = diag(1 − hₜ²) Wₕₕ (the "
            f"step's Jacobian: how a small change in one state moves the next), and tanh's "
            f"slope 1 − hₜ² is at most 1: along this sequence it averages {f.mean_slope:.2f}, so a typical step has "
            f"norm {f.typical_step:.3f}, not {rho:.2f}, and the product of its {counted(steps, 'step norm')} is "
            f"{from_log10(f.log10_product)}. Even that is only a ceiling: successive Jacobians stretch different "
            f"directions, so the norm of their product is at most, and usually far below, the product of their norms. "
            f"Measured, token 1 reaches the last state at {said(r.rnn_log10[0])}: {change}.")


def the_bound(rho: float, steps: int, length: int) -> None:
    """Step 1, after the prediction: ‖J‖ᵀ⁻¹, what it means, and the bound against distance."""
    bound = float(core.gradient_bound(rho, steps))
    shown = from_log10(core.log10_gradient_bound(rho, steps))     # written out even where bound underflows to 0
    row = st.container(horizontal=True)                # wraps where a column is narrow
    row.metric("steps from token 1 to token T", steps)
    row.metric("bound ‖J‖ᵀ⁻¹", shown)
    row.metric("attention's bound ‖J‖¹", written(float(core.gradient_bound(rho, 1))))
    st.markdown(f"**{power(rho, steps)} = {said(core.log10_gradient_bound(rho, steps))}**: the most that token 1's "
                f"gradient can be multiplied by on its way through the chain to token {length}.")
    if bound == 0.0:
        st.info("So small it underflows to 0 in a computer's 64-bit numbers (they stop near 10⁻³²³), so its size "
                "is worked out from its logarithm; the plot floors it at 10⁻³⁰⁰.",
                icon=":material/info:")
    if rho > 1:
        st.warning(f"Above 1 the bound grows instead: {power(rho, steps)} = {shown}. It no longer promises "
                   "that anything fades, and a chain that kept stretching by that much would explode, which is "
                   "just as bad for training. Whether a real tanh RNN does is measured below.",
                   icon=":material/warning:")
    distance = np.arange(1, max(steps, 1) + 1)
    chart(built(bound_figure, distance, core.gradient_bound(rho, distance), float(core.gradient_bound(rho, 1))),
          f"The chain's bound ‖J‖ᵈ for d = 1 … {max(steps, 1)} (log scale) against attention's single step.",
          lambda: pd.DataFrame({"distance": distance, "RNN bound": core.gradient_bound(rho, distance)}),
          key=frame.key("fig_bound"))


def the_race(r: rnn_vs_attention.Race, rho: float, steps: int) -> None:
    """Step 2: a real RNN's and a real attention head's gradients from every token to the last position."""
    st.subheader("A real RNN and a real attention head")
    frame.note("chain")
    with folded("What is measured, exactly"):
        frame.note("chain_more")
    row = st.container(horizontal=True)                # wraps where a column is narrow
    row.metric("token 1 → last RNN state", from_log10(r.rnn_log10[0]))
    row.metric("token 1 → attention out", written(r.attention[0]),
                   help="The gradient from token 1 to the last attention output.")
    row.metric("last token → last RNN state", from_log10(r.rnn_log10[-1]))
    chart(built(influence_figure, r.distance, r.rnn, r.attention, r.ceiling),
          "Gradient norm from each token to the last position, against distance (log scale).",
          lambda: pd.DataFrame({"distance": r.distance, "RNN": r.rnn, "attention": r.attention,
                                "RNN bound": r.ceiling}), key=frame.key("fig_infl"))
    st.markdown(f"Measured: token 1's gradient at the last RNN state is **{said(r.rnn_log10[0])}**; at the "
                f"attention output, **{written(r.attention[0])}**.")
    with st.expander("Why the real RNN fades faster than its bound"):
        st.markdown(why_it_fades(r, rho, steps))


def path_length(length: int, steps: int) -> None:
    """Step 3: path length and sequential steps, at this T and for N = 2 … 500."""
    st.subheader("Path length and parallel steps")
    seq = core.sequential_steps(length)
    row = st.container(horizontal=True)                # wraps where a column is narrow
    row.metric("RNN path, token 1 → T", f"{steps} step" + ("" if steps == 1 else "s"))
    row.metric("attention path", f"{core.path_lengths(length)['attention']} step")
    row.metric("RNN: in sequence", seq["rnn"], help="Steps that must run one after another.")
    row.metric("attention: in sequence", seq["attention"], help="Steps that must run one after another.")
    paths = rnn_vs_attention.path_curves()
    chart(built(path_figure, paths.lengths, paths.rnn, paths.attention),
          "Steps to cross N tokens: N − 1 through the chain, 1 through attention.",
          None, key=frame.key("fig_path"))
    frame.note("comparison")


# Fragments, so a move reruns only what it changes: T and ‖J‖ feed the chain's sections and the LSTM's gradient
# (chain_against_attention); the forget-gate bias, the LSTM's gradient alone (lstm_gates, nested); d and k, the
# recall section alone (fixed_state, a sibling: it depends on the seed, not on T). The seed feeds both, so it
# sits outside them: changing it reruns the page.
@frame.fragment
def chain_against_attention(shown: int, seed: int) -> None:
    a, b = st.columns(2)
    length = frame.control(a.slider, "len", "Sequence length T", 2, 500, rnn_vs_attention.LENGTH)
    rho = frame.control(b.slider, "rho", "Spectral norm ‖J‖ of each step", 0.1, 1.5, rnn_vs_attention.RHO, 0.05,
                        format="%.2f", help="The largest factor by which one recurrent step can stretch a signal.")
    steps = core.path_lengths(length)["rnn"]
    if predict_decay(rho, steps, length):
        the_bound(rho, steps, length)
    race = rnn_vs_attention.rnn_race(length, rho, seed) if shown >= Step.RACE else None
    if race is not None:
        the_race(race, rho, steps)
    if shown >= Step.PATH:
        path_length(length, steps)
    if shown >= Step.LSTM:
        st.subheader("Go further: the LSTM's gates slow the fade")   # outside the bias slider's fragment
        frame.note("lstm_gates")
        with folded("How the gates keep a signal"):
            frame.note("lstm_gates_more")
        lstm_gates(length, seed, race)


def lstm_verdict(lstm_log10: float, rnn_log10: float) -> str:
    """What the LSTM did with token 1's gradient (kept a part of it, or grew it), against the tanh RNN."""
    ratio = lstm_log10 - rnn_log10                          # log₁₀ of LSTM ÷ RNN
    if lstm_log10 > 0:
        said = (f"Measured, token 1's gradient grows to {from_log10(lstm_log10)} in the LSTM (above 1: gates this "
                "near 1 let the paths through h stretch it on the way rather than fade it): ")
    else:
        said = f"Measured, the LSTM keeps {from_log10(lstm_log10)} of token 1's gradient: "
    if ratio >= 0:
        return said + f"**{from_log10(ratio)} times** the tanh RNN's."
    return said + (f"**less** than the tanh RNN's {from_log10(rnn_log10)}, since forget gates this far below 1 "
                   "fade faster than the chain.")


@frame.fragment
def lstm_gates(length: int, seed: int, race: rnn_vs_attention.Race) -> None:
    """The LSTM beside the RNN on the same sequence: the forget-gate bias against the fade."""
    bias = frame.control(st.slider, "fbias", "LSTM forget-gate bias", -2.0, 6.0, rnn_vs_attention.FORGET_BIAS,
                         0.5, help="The forget gate is f = σ(bias + …): a larger bias holds it nearer 1, "
                                   "so the cell keeps more.")
    lstm = rnn_vs_attention.lstm_race(length, bias, seed)
    keep = float(1 / (1 + np.exp(-bias)))
    row = st.container(horizontal=True)                # wraps where a column is narrow
    row.metric("RNN: token 1 → last state", from_log10(race.rnn_log10[0]))
    row.metric("LSTM: token 1 → last state", from_log10(lstm.log10[0]))
    row.metric("attention: token 1 → out", written(race.attention[0]),
                   help="The gradient from token 1 to the last attention output.")
    with st.expander("What the LSTM kept here"):
        st.markdown(f"With $b_f$ = {bias:g}, a forget gate sits near σ({bias:g}) = {keep:.3f}. Along the cell path "
                    f"alone, the {counted(length - 1, 'step')} from token 1 multiply to about "
                    f"{power(keep, length - 1, 3)} = "
                    f"{said((length - 1) * np.log10(keep))}; the paths through h add to that. "
                    + lstm_verdict(lstm.log10[0], race.rnn_log10[0])
                    + f" Attention's one step carries {written(race.attention[0])}.")
    chart(built(lstm_figure, race.distance, race.rnn, lstm.influence, race.attention),
          "The same sequence through the RNN, the LSTM (h and c) and one attention head (log scale).",
          lambda: pd.DataFrame({"distance": race.distance, "RNN": race.rnn, "LSTM": lstm.influence,
                                "attention": race.attention}), key=frame.key("fig_lstm"))


def state_sentence(d: int, k: int, here: core.RecallCurve) -> str:
    """What the recall section measured, said as what it is: a least-squares state, never "the best"."""
    facts = counted(k, "fact")
    if k <= d:
        return (f"{facts} into d = {d} numbers: with k ≤ d a least-squares state holds them all, and the additive "
                f"cell recalls {here.additive[0]:.0%}. Attention recalls {here.attention[0]:.0%}.")
    return (f"{facts} into d = {d} numbers, {k / d:.3g} times d: a least-squares state of {d} numbers recalls "
            f"{here.best_state[0]:.0%} and the additive cell {here.additive[0]:.0%} (guessing gives 50%). Attention "
            f"keeps every pair and recalls {here.attention[0]:.0%}, at the cost of {counted(k, 'comparison')} "
            "per recall.")


@frame.fragment
def fixed_state(seed: int) -> None:
    """What gates cannot fix: k pairs in a d-number state, against attention over every pair."""
    a, b = st.columns(2)
    d = frame.control(a.select_slider, "state_d", "State size d (numbers)", (16, 32, 64, 128), rnn_vs_attention.STATE_D)
    k = frame.control(b.slider, "pairs", "Stored pairs k", 1, rnn_vs_attention.RECALL_MAX, rnn_vs_attention.PAIRS,
                      help="How many key → fact pairs are written into the state (and kept by attention).")
    curve, here = rnn_vs_attention.recall(d, seed), rnn_vs_attention.recall_at(d, k, seed)
    row = st.container(horizontal=True)                # wraps where a column is narrow
    row.metric("LSTM cell: recalled", f"{here.additive[0]:.0%}", help="The LSTM's additive cell state.")
    row.metric("least-squares state: recalled", f"{here.best_state[0]:.0%}",
               help=f"The {d} numbers whose read-outs come closest to all k answers at once (least squares): exact "
                    "while k ≤ d, and one good state beyond, not the best possible.")
    row.metric("attention: recalled", f"{here.attention[0]:.0%}")
    row.metric("comparisons / recall", f"{int(here.comparisons[0]):,}",
               help="Query–key comparisons attention makes for one recall.")
    st.markdown(state_sentence(d, k, here))
    chart(built(recall_figure, curve.pairs, curve.additive, curve.best_state, curve.attention, d, k,
                (float(here.additive[0]), float(here.best_state[0]), float(here.attention[0]))),
          f"Facts recalled from d = {d} numbers against k (log scale); dotted: k = d.",
          lambda: pd.DataFrame({"k": curve.pairs, "LSTM cell (additive)": curve.additive,
                                "least-squares state": curve.best_state, "attention": curve.attention}),
          key=frame.key("fig_recall"))


def fixed_size_state(seed: int) -> None:
    """The last section: what gates cannot fix (outside the recall's fragment: the heading never changes)."""
    st.subheader("What gates cannot fix: one fixed-size state")
    frame.note("lstm_state")
    with folded("How the state is written, and what “least-squares” means"):
        frame.note("lstm_state_more")
    fixed_state(seed)


def lstm_afterword() -> None:
    """After the trap: what the LSTM changed and what it did not, folded."""
    with folded("What the LSTM changed, and what it did not"):
        frame.note("lstm")


def seed_row() -> int:
    """The first section's heading, beside the seed every section below draws from."""
    heading, seed_box = st.columns([4, 1], vertical_alignment="bottom")
    heading.subheader("Pass the message down the line")
    return frame.control(seed_box.number_input, "seed", "Seed", 0, 10_000, rnn_vs_attention.SEED,
                         help="The random RNN, attention head, LSTM and stored pairs of every section below.")


frame.header()
shown = frame.steps(Step.labels())
page_seed = seed_row()
chain_against_attention(shown, page_seed)
if shown >= Step.LSTM:
    fixed_size_state(page_seed)
frame.trap()
lstm_afterword()
frame.check("lstm")
frame.footer()
