"""The attention equation, step by step: QKᵀ → ÷√dₖ → softmax → ·V on numbers the learner can edit."""

import functools

import numpy as np
import streamlit as st

import attention_core as core
from figures.scaled_formula import formula_latex, output_figure, stage_figure
from ui import controls
from ui.charts import built, chart
from ui.frame import lesson
from ui.inputs import matrix_input, message, table
from ui.steps import Steps
from ui.tables import numbers

SEED_Q = np.array([[1.0, 0.0, 1.0, 0.0]])
SEED_K = np.array([[1.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, 1.0], [1.0, 0.0, 1.0, 1.0]])
SEED_V = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
LAST_FIT = controls.private_key("sf", "fit")             # (dₖ, keys) of the last Q, K, V that fitted together
TERMS = ["Q Kᵀ", "Kᵀ", "÷ √dₖ", "softmax", "· V"]        # read left to right; term i is formula step i + 1


class Step(Steps):
    """The presenter steps, in order (the step bar shows each label)."""

    SCORES = "Q Kᵀ compares the query with every key"
    TRANSPOSE = "Kᵀ lines the keys up as columns"
    SCALE = "÷ √dₖ keeps the scores in range"
    SOFTMAX = "softmax turns scores into shares"
    BLEND = "· V blends the values"


frame = lesson("scaled_formula")


def input_area():
    """The box above the steps where the formula's fragment draws Q, K, V and the toggle (returned)."""
    st.subheader("Your query, keys and values")
    inputs = st.container()
    inputs.caption("One row per line, numbers separated by commas. Add a line to add a key (and its value).")
    st.subheader("The formula, read left to right")
    return inputs


def anatomy(trace: core.AttentionTrace, term: str, scale: bool) -> str:
    """What one term of the formula does, its shape with the current inputs, and the stage that computes it."""
    n_q, n_k, d_k, d_v = trace.Q.shape[0], trace.K.shape[0], trace.d_k, trace.d_v
    root = f"√dₖ = √{d_k} = {np.sqrt(d_k):.4g}"
    what, shape, where = {
        "Q Kᵀ": ("Dots every query with every key: entry (i, j) is qᵢ · kⱼ, how well query i matches key j.",
                 f"({n_q}×{d_k}) · ({d_k}×{n_k}) → ({n_q}×{n_k})", "① Scores"),
        "Kᵀ": ("Stands the keys up as columns, so that one matrix product dots every query with every key. "
               "No number changes.", f"({n_k}×{d_k}) → ({d_k}×{n_k})", "the note “Why Kᵀ?” under ①"),
        "÷ √dₖ": ((f"Divides every score by {root}, so the scores keep about the same spread however long the "
                   "vectors are." if scale else f"Switched off above: the scores pass on unchanged ({root} would "
                   "divide them)."), f"({n_q}×{n_k}) ÷ one number → ({n_q}×{n_k})", "② Scaled"),
        "softmax": ("Row by row, raises e to each scaled score and divides by the row's total: every weight lies "
                    "between 0 and 1, and each query's weights add up to 1.",
                    f"({n_q}×{n_k}) → ({n_q}×{n_k}), each row summing to 1", "③ Weights"),
        "· V": ("Blends the value rows with each query's weights: output i is Σⱼ αᵢⱼ vⱼ.",
                f"({n_q}×{n_k}) · ({n_k}×{d_v}) → ({n_q}×{d_v})", "④ Output"),
    }[term]
    return f"**{term}.** {what}  \n**Shape now:** {shape}.  \n**Computed in:** {where}."


def predict_top(trace: core.AttentionTrace, k_labels: list[str]) -> bool:
    """Which key gets the first query's biggest weight? Read off the scaled scores (softmax keeps their order)."""
    row = trace.scaled[0]
    tops = [j for j in range(len(row)) if np.isclose(row[j], row.max(), rtol=1e-12, atol=1e-12)]
    if len(tops) > 1:
        why = (", ".join(k_labels[j] for j in tops[:-1]) + f" and {k_labels[tops[-1]]} share the largest scaled "
               f"score, {row.max():.4g}, so softmax gives them the same weight: a tie for the top.")
    else:
        why = (f"{k_labels[tops[0]]} has the largest scaled score, {row.max():.4g}, and softmax never changes the "
               "order of the scores.")
    return frame.predict("top_key", options=[*k_labels, "A tie for the top"],
                         answer=len(k_labels) if len(tops) > 1 else tops[0], why=why,
                         weight=f"{trace.weights[0].max():.6f}")


def show_stage(q_labels: list[str], number: str, name: str, matrix: np.ndarray, cols: list[str], how: str,
               scaled: bool = True) -> None:
    """One stage of the formula: its numbers as a table beside its heatmap, one row per query."""
    left, right = st.columns([2, 3])
    with left:
        st.markdown(f"**{number} {name.capitalize()}**")
        st.caption(how)
        numbers(table(matrix, q_labels, cols))
    with right:
        chart(built(stage_figure, matrix, name, q_labels, cols, scaled), f"{name.capitalize()}: one row per query, "
              "one column per key." if name != "output" else "Output: one row per query.", None,
              key=frame.key(f"fig_{name}"))


def exact_result(trace: core.AttentionTrace) -> None:
    """The first query's weights and output to six places, and what rounding the weights first would give."""
    w, out = trace.weights[0], trace.output[0]
    st.subheader("The exact result for q1")
    st.markdown("Weights: " + ", ".join(f"α{j + 1} = **{a:.6f}**" for j, a in enumerate(w))
                + f" (sum {w.sum():.6f}).  \nOutput: **[" + ", ".join(f"{o:.6f}" for o in out) + "]**.")
    rounded = core.output_with_rounded_weights(w, trace.V, decimals=4)
    st.caption("Rounding each weight to four places before blending would give ["
               + ", ".join(f"{r:.4f}" for r in rounded) + "] instead.")
    frame.note("rounding")


def entered(inputs) -> tuple[core.AttentionTrace | None, bool]:
    """The Q, K, V boxes and the scale switch, drawn in ``inputs`` (the box above the steps): the trace of what
    they hold and the switch's state, or None for the trace (its message shown) when the entries do not fit."""
    with inputs:
        c1, c2, c3 = st.columns(3)
        with c1:
            Q = frame.control(matrix_input, "q", "Queries Q", SEED_Q, help="Each row is one query qᵢ of length dₖ.")
        with c2:
            K = frame.control(matrix_input, "k", "Keys K", SEED_K, help="Each row is one key kⱼ, as long as a query.")
        with c3:
            V = frame.control(matrix_input, "v", "Values V", SEED_V, help="One value row per key.")
        scale = frame.control(st.toggle, "scale", "Divide by √dₖ", value=True,
                              help="Turn off to see the weights sharpen when the scores are not scaled.")
        if Q is None or K is None or V is None:
            return None, scale
        wrong = misfit(Q, K, V)
        if wrong is not None:                           # said under the box that does not fit the other two
            box, why = wrong
            (c1, c2, c3)[box].error(why, icon=":material/error:")
            return None, scale
        st.session_state[LAST_FIT] = (Q.shape[1], K.shape[0])
        try:
            return core.scaled_dot_product_attention(Q, K, V, scale=scale), scale
        except ValueError as err:
            st.error(f"These inputs do not fit together: {message(err)}", icon=":material/error:")
            return None, scale


def misfit(Q: np.ndarray, K: np.ndarray, V: np.ndarray) -> tuple[int, str] | None:
    """Which box (0 for Q, 1 for K, 2 for V) does not fit the other two, and a sentence naming it; None when
    they fit. The box blamed is the one whose shape moved away from the last inputs that fitted."""
    d_k, n_k = st.session_state.get(LAST_FIT, (Q.shape[1], K.shape[0]))
    if Q.shape[1] != K.shape[1]:
        if Q.shape[1] != d_k:
            return 0, (f"Each query in Q now has {Q.shape[1]} numbers, but each key in K has {K.shape[1]}: a query "
                       "and a key must be the same length, dₖ.")
        return 1, (f"Each key in K now has {K.shape[1]} numbers, but each query in Q has {Q.shape[1]}: a query "
                   "and a key must be the same length, dₖ.")
    if V.shape[0] != K.shape[0]:
        if K.shape[0] != n_k:
            return 1, (f"K now has {K.shape[0]} keys, but V has {V.shape[0]} value rows: every key needs exactly "
                       "one value row.")
        return 2, (f"V has {V.shape[0]} value rows, but K has {K.shape[0]} keys: every key needs exactly one "
                   "value row.")
    return None


# One fragment: Q, K, V and the scale toggle drive every stage of the formula, so editing one reruns this
# part of the page only (not the entry script, the header, the presenter's steps or the footer).
@frame.fragment
def formula(shown: int, inputs) -> None:
    trace, scale = entered(inputs)
    picked = frame.control(st.segmented_control, "term", "Pick a term of the formula to see what it does", TERMS,
                           default=TERMS[0])
    st.latex(formula_latex(upto=shown, focus=TERMS.index(picked) + 1 if picked else None))

    if trace is not None:
        n_q, n_k, d_v = trace.Q.shape[0], trace.K.shape[0], trace.d_v
        q_labels, k_labels = [f"q{i + 1}" for i in range(n_q)], [f"k{j + 1}" for j in range(n_k)]
        if picked:
            st.info(anatomy(trace, picked, scale), icon=":material/touch_app:")

        stage = functools.partial(show_stage, q_labels)

        stage("①", "scores", trace.scores, k_labels,
              "Each entry is qᵢ · kⱼ: matching components multiplied, then added.")
        if shown >= Step.TRANSPOSE:
            frame.note("transpose")
        if shown >= Step.SCALE:
            stage("②", "scaled", trace.scaled, k_labels, f"Every score divided by {trace.scale_factor:.6g}."
                  if scale else "Scaling is off: these equal the raw scores.", scaled=scale)
        if shown >= Step.SOFTMAX:
            # The exercise asks for the first key's weight: asking for the top key's would name the answer
            # to the prediction below it.
            frame.exercise("top_weight", answer=float(trace.weights[0][0]), key=k_labels[0],
                           scaled=", ".join(f"{s:.4g}" for s in trace.scaled[0]))
            revealed = predict_top(trace, k_labels)
            if not revealed:
                st.caption("Make your prediction to see the weights and the output.")
            else:
                stage("③", "weights", trace.weights, k_labels, "exp of each scaled score over the row's total.")
        if shown >= Step.BLEND and frame.revealed("top_key"):
            left, right = st.columns([2, 3])
            d_labels = [f"d{j + 1}" for j in range(d_v)]
            with left:
                st.markdown("**④ Output**")
                st.caption("Each output row is the weighted sum Σⱼ αⱼ vⱼ of the value rows.")
                numbers(table(trace.output, q_labels, d_labels))
            with right:
                chart(built(output_figure, trace.V, trace.output, trace.weights, [f"v{j + 1}" for j in range(n_k)]),
                      "The values (circles, sized by q1's weight on each) and the output (star) that blends them.",
                      lambda: table(trace.V, [f"v{j + 1}" for j in range(n_k)], d_labels), key=frame.key("fig_output"))
            exact_result(trace)


frame.header()
inputs = input_area()
shown = frame.steps(Step.labels())
formula(shown, inputs)
frame.trap()
frame.check("softmax_needed")
frame.footer()
