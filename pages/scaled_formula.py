"""The attention equation, step by step: QKᵀ → ÷√dₖ → softmax → ·V on numbers the learner can edit."""

import numpy as np
import streamlit as st

import attention_core as core
from figures import palette
from figures.formula import output_figure, stage_figure
from ui.charts import chart
from ui.frame import lesson
from ui.inputs import matrix_input, table

SEED_Q = np.array([[1.0, 0.0, 1.0, 0.0]])
SEED_K = np.array([[1.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, 1.0], [1.0, 0.0, 1.0, 1.0]])
SEED_V = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])

frame = lesson("scaled_formula")
frame.header()

st.subheader("Your query, keys and values")
st.caption("One row per line, numbers separated by commas. Add a line to add a key (and its value).")
c1, c2, c3 = st.columns(3)
with c1:
    Q = matrix_input("Queries Q", SEED_Q, key="Q", help="Each row is one query qᵢ of length dₖ.")
with c2:
    K = matrix_input("Keys K", SEED_K, key="K", help="Each row is one key kⱼ; it must have as many numbers as a query.")
with c3:
    V = matrix_input("Values V", SEED_V, key="V", help="One value row per key.")
scale = st.toggle("Divide by √dₖ", value=True, key="scale", bind="query-params",
                  help="Turn off to see the weights sharpen when the scores are not scaled.")

trace = None
if Q is not None and K is not None and V is not None:
    try:
        trace = core.scaled_dot_product_attention(Q, K, V, scale=scale)
    except ValueError as err:
        st.error(f"These inputs do not fit together: {err}", icon=":material/error:")

st.subheader("The formula, read left to right")
st.latex(
    rf"\operatorname{{Attention}}(Q,K,V)=\textcolor{{{palette.WEIGHTS}}}{{\operatorname{{softmax}}}}\!\left("
    rf"\frac{{\textcolor{{{palette.SCORES}}}{{Q K^{{\top}}}}}}{{\textcolor{{{palette.SCALED}}}{{\sqrt{{d_k}}}}}}"
    rf"\right)\textcolor{{{palette.VALUE}}}{{V}}"
)

if trace is not None:
    n_q, n_k, d_k, d_v = trace.Q.shape[0], trace.K.shape[0], trace.d_k, trace.d_v
    q_labels = [f"q{i + 1}" for i in range(n_q)]
    k_labels = [f"k{j + 1}" for j in range(n_k)]
    v_labels = [f"v{j + 1}" for j in range(n_k)]
    st.markdown(
        f"**Shapes right now.** ({n_q}×{d_k}) · ({d_k}×{n_k}) → ({n_q}×{n_k}) scores; "
        f"then ({n_q}×{n_k}) · ({n_k}×{d_v}) → ({n_q}×{d_v}) outputs. "
        f"dₖ = {d_k}, so √dₖ = {np.sqrt(d_k):.6g}" + ("" if scale else " (not applied)") + "."
    )
    frame.note("transpose")

    stages = [
        ("scores", trace.scores, k_labels, "Each entry is qᵢ · kⱼ: the sum of matching components multiplied."),
        ("scaled", trace.scaled, k_labels, f"Every score divided by {trace.scale_factor:.6g}."
         if scale else "Scaling is off: these equal the raw scores."),
        ("weights", trace.weights, k_labels, "exp of each scaled score over the row's total: each row sums to 1."),
    ]
    for number, (stage, matrix, cols, how) in zip("①②③", stages, strict=False):
        left, right = st.columns([2, 3])
        with left:
            st.markdown(f"**{number} {stage.capitalize()}**")
            st.caption(how)
            st.dataframe(table(matrix, q_labels, cols), width="stretch")
        with right:
            chart(stage_figure(matrix, stage, q_labels, cols), f"{stage.capitalize()} for each query (rows) and key.",
                  None, key=f"fig_{stage}")
    left, right = st.columns([2, 3])
    with left:
        st.markdown("**④ Output**")
        st.caption("Each output row is the weighted sum Σⱼ αⱼ vⱼ of the value rows.")
        st.dataframe(table(trace.output, q_labels, [f"d{j + 1}" for j in range(d_v)]), width="stretch")
    with right:
        chart(output_figure(trace.V, trace.output, trace.weights, v_labels),
              "The value vectors (circles sized by q1's weight on each) and the output (star) that blends them.",
              table(trace.V, v_labels, [f"d{j + 1}" for j in range(d_v)]), key="fig_output")

    st.subheader("The exact result for q1")
    w, out = trace.weights[0], trace.output[0]
    st.markdown("Weights: " + ", ".join(f"α{j + 1} = **{a:.6f}**" for j, a in enumerate(w))
                + f" (sum {w.sum():.6f}).  \nOutput: **[" + ", ".join(f"{o:.6f}" for o in out) + "]**.")
    rounded = core.output_with_rounded_weights(w, trace.V, decimals=4)
    st.caption("Rounding each weight to four places before blending would give ["
               + ", ".join(f"{r:.4f}" for r in rounded) + "] instead.")
    frame.note("rounding")

frame.trap()
frame.check("softmax_needed")
frame.footer()
