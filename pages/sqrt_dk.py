"""Why √dₖ: the variance of random dot products, live, and the softmax saturation it causes."""

import numpy as np
import pandas as pd
import streamlit as st

import attention_core as core
from figures import palette
from figures.sqrt_dk import histogram_figure, saturation_figure, sweep_figure, weights_figure
from ui.charts import built, chart
from ui.frame import lesson
from ui.lessons import sqrt_dk
from ui.lessons.sqrt_dk import DRAWS, N_KEYS
from ui.steps import Steps

BELL = 0.5          # excess kurtosis below which the histogram reads as a bell curve (its own is 0)


def scaled_caption(d_k: int, var_scaled: float, measured: float) -> str:
    """What the scaled histogram shows at this dₖ: variance 1 always; a bell curve only once dₖ is not tiny."""
    exact = core.dot_product_excess_kurtosis(d_k)
    said = f"Scaled dot products: measured variance {var_scaled:.3f}, "
    if exact <= BELL:
        return said + (f"close to the bell curve N(0, 1) (excess kurtosis {measured:.2f} measured, "
                       f"6/dₖ = {exact:.2f} exact, 0 for the curve).")
    return said + (f"but at dₖ = {d_k} the shape is not the bell curve yet: a sum of only {d_k} product"
                   + ("s" if d_k > 1 else "") + f" is a sharper spike with longer tails (excess kurtosis "
                   f"{measured:.2f} measured, 6/dₖ = {exact:.2f} exact, against 0). It becomes the bell curve as "
                   "dₖ grows.")


class Step(Steps):
    """The presenter steps, in order (the step bar shows each label)."""

    SPREAD = "How far q·k spreads"
    SOFTMAX = "What the spread does to softmax"
    SATURATION = "Saturation: the gradient dies"


frame = lesson("sqrt_dk")

def spread(d_k: int, L: sqrt_dk.SqrtDkNumbers) -> None:
    """Step 1: the measured variances and the two histograms, after the prediction."""
    hist_raw, hist_scaled = L.h_raw, L.h_scaled
    cols = st.columns(4)
    cols[0].metric("dₖ", d_k)
    cols[1].metric("measured Var(q·k)", f"{L.var_raw:.1f}")
    cols[2].metric("spread √dₖ", f"{np.sqrt(d_k):.2f}")
    cols[3].metric("Var(q·k / √dₖ)", f"{L.var_scaled:.3f}", help="Measured over the draws.")
    left, right = st.columns(2)
    with left:
        chart(built(histogram_figure, hist_raw, L.x_raw, core.normal_pdf(L.x_raw, d_k), f"N(0, {d_k})",
                    f"q·k over {DRAWS:,} draws", "q·k"),
              f"Unscaled dot products: measured variance {L.var_raw:.1f} against the proof's {d_k}.",
              lambda: pd.DataFrame({"bin centre": hist_raw.centres, "density": hist_raw.density,
                                    "count": hist_raw.count}), key=frame.key("fig_raw"))
    with right:
        chart(built(histogram_figure, hist_scaled, L.x_scaled, core.normal_pdf(L.x_scaled, 1.0), "N(0, 1)",
                    "q·k / √dₖ", "q·k / √dₖ", palette.SCALED),
              scaled_caption(d_k, L.var_scaled, L.kurtosis),
              lambda: pd.DataFrame({"bin centre": hist_scaled.centres, "density": hist_scaled.density}),
              key=frame.key("fig_scaled"))


def softmax_spread(d_k: int, L: sqrt_dk.SqrtDkNumbers, sw: core.SoftmaxSweep) -> None:
    """Step 2: one row of weights at this dₖ, and the entropy and top weight over every dₖ."""
    st.subheader("What the spread does to softmax")
    frame.note("softmax")
    w_raw, w_scaled = L.w_raw, L.w_scaled
    c = st.columns(4)
    c[0].metric("top weight, unscaled", f"{w_raw.max():.3f}")
    c[1].metric("top weight, scaled", f"{w_scaled.max():.3f}")
    c[2].metric("entropy, unscaled", f"{float(core.entropy(w_raw)):.3f} nats",
                help="How evenly the weights spread, in nats (entropy taken with the natural logarithm): 0 when "
                     "one key takes all the weight.")
    c[3].metric("entropy, scaled", f"{float(core.entropy(w_scaled)):.3f} nats",
                help=f"An even spread over {N_KEYS} keys has entropy ln {N_KEYS} = {np.log(N_KEYS):.3f} nats.")
    chart(built(weights_figure, w_raw, w_scaled), f"One query's weights over {N_KEYS} random keys at dₖ = {d_k}.",
          lambda: pd.DataFrame({"unscaled": w_raw, "scaled": w_scaled}, index=[f"k{j + 1}" for j in range(N_KEYS)]),
          key=frame.key("fig_row"))

    def sweep_table() -> pd.DataFrame:                # made only when its expander is open
        return pd.DataFrame({"dₖ": sw.d_k, "entropy unscaled": sw.entropy_raw,
                             "entropy scaled": sw.entropy_scaled, "top weight unscaled": sw.max_weight_raw,
                             "top weight scaled": sw.max_weight_scaled,
                             "gradient norm unscaled": sw.grad_norm_raw,
                             "gradient norm scaled": sw.grad_norm_scaled})

    left, right = st.columns(2)
    with left:
        chart(built(sweep_figure, sw.d_k, sw.entropy_raw, sw.entropy_scaled, "Entropy of the weights", "nats"),
              "Median entropy over 300 rows: unscaled it falls to 0 (all weight on one key).", sweep_table,
              key=frame.key("fig_entropy"))
    with right:
        chart(built(sweep_figure, sw.d_k, sw.max_weight_raw, sw.max_weight_scaled, "Largest weight", "weight"),
              "Median largest weight: unscaled it climbs to 1.", None, key=frame.key("fig_top"))


def saturation(d_k: int, L: sqrt_dk.SqrtDkNumbers, sw: core.SoftmaxSweep) -> None:
    """Step 3: where the sigmoid flattens, and the softmax gradient over every dₖ."""
    st.subheader("Saturation")
    frame.note("saturation")
    x = L.x
    left, right = st.columns(2)
    with left:
        chart(built(saturation_figure, x, core.sigmoid(x), core.sigmoid_slope(x), np.sqrt(2 * d_k), np.sqrt(2.0)),
              f"Bands: ± one standard deviation of a gap between two scores, √(2dₖ) = {np.sqrt(2 * d_k):.1f} "
              f"unscaled and √2 ≈ 1.41 scaled.", lambda: pd.DataFrame({"x": x[::20], "S": core.sigmoid(x[::20]),
                                                      "S(1-S)": core.sigmoid_slope(x[::20])}), key=frame.key("fig_sat"))
    with right:
        chart(built(sweep_figure, sw.d_k, np.maximum(sw.grad_norm_raw, 1e-16), sw.grad_norm_scaled,
                    "Size of softmax's gradient (Jacobian norm)", "‖diag(p) − ppᵀ‖", log_y=True),
              "Median spectral norm (the most a matrix can stretch a vector) of the softmax Jacobian "
              "diag(p) − ppᵀ (how the weights move when the scores move), floored at 10⁻¹⁶ for the log axis.", None,
              key=frame.key("fig_grad"))


# One fragment: every control below drives every chart below, so moving one reruns this part of the page
# only (not the entry script, the header or the footer).
@frame.fragment
def experiment(step: int) -> None:
    st.subheader("Draw random queries and keys")
    a, b = st.columns([3, 1])
    d_k = frame.control(a.slider, "dk", "dₖ: components in each query and key", 1, 1024, sqrt_dk.D_K)
    seed = frame.control(b.number_input, "seed", "Random seed", 0, 10_000, sqrt_dk.SEED)
    frame.note("draws")

    L, sw = sqrt_dk.sqrt_dk_numbers(d_k, seed), sqrt_dk.softmax_sweep_by_seed(seed)
    if frame.predict("spread"):
        spread(d_k, L)
    if step >= Step.SOFTMAX:
        softmax_spread(d_k, L, sw)
    if step >= Step.SATURATION:
        saturation(d_k, L, sw)


frame.header()
experiment(frame.steps(Step.labels()))

frame.trap()
frame.check("why_sqrt")
frame.footer()
