"""Blending on the simplex: z = Σ αⱼ xⱼ stays in the hull of the tokens while the weights stay on the simplex."""

import numpy as np
import pandas as pd
import streamlit as st

import attention_core as core
from figures.convex_blending import hull_figure, simplex_figure, weight_bars
from ui.charts import built, chart
from ui.frame import lesson
from ui.inputs import literal, matrix_input, text_box
from ui.steps import Steps

SEED_X = np.array([[0.10, 0.90], [0.45, 0.70], [0.20, 0.80]])     # river, bank, muddy
SEED_LABELS = "river, bank, muddy"
SEED_FREE = [0.60, 0.30, 0.0, 0.0, 0.0]                            # the last token takes the remainder: 0.10
SEED_LOGITS = [-0.51, -1.20, -2.30, -2.30, -2.30, -2.30]           # ≈ ln 0.6, ln 0.3, ln 0.1
SEED_FREE_WEIGHTS = [0.60, 0.30, 0.10, 0.0, 0.0, 0.0]
MAX_TOKENS = 6
MODES = ["Sliders (the last weight is the remainder)", "Logits through softmax"]


class Step(Steps):
    """The presenter steps, in order (the step bar shows each label)."""

    WEIGHTS = "Set the weights on the simplex"
    PREDICT = "Predict where the blend z lands"


frame = lesson("convex_blending")


def tokens() -> tuple[np.ndarray, list[str]] | None:
    """The token editor: the tokens' points and names, or None (with the message) when they cannot be blended."""
    with st.expander("Edit the tokens (up to 6, each a point x, y)"):
        c1, c2 = st.columns(2)
        with c1:
            X = frame.control(matrix_input, "X", "Token vectors", SEED_X, cols=2, height=160,
                              help="One token per line: two numbers, x and y.")
        with c2:
            label_text = frame.control(text_box, "labels", "Token names, separated by commas", SEED_LABELS,
                                       max_chars=200)
    if X is not None and X.shape[0] > MAX_TOKENS:
        st.error(f"This page blends at most {MAX_TOKENS} tokens; you typed {X.shape[0]}. Remove some lines.",
                 icon=":material/error:")
        X = None
    if X is None:
        st.info("Fix the token vectors above to see the blend.", icon=":material/info:")
        return None
    labels, label_msg = core.parse_labels(label_text, X.shape[0], prefix="x")
    if label_msg:
        st.warning(literal(label_msg, 300), icon=":material/warning:")
    return X, labels


def predict_where(b: core.Blend, labels: list[str]) -> bool:
    """Where will z land? The options name every token; the right one is read off the blend itself."""
    names = [literal(name, 30) for name in labels]
    options = [f"Inside the hull, nearest to {name}" for name in names] + ["Outside the hull"]
    answer = b.nearest if b.inside_hull else len(names)
    dist = b.distances
    by_distance = ", ".join(f"{dist[j]:.3f} from {names[j]}" for j in np.argsort(dist, kind="stable"))
    where = "inside" if b.inside_hull else "outside"
    biggest = int(np.argmax(b.weights))
    if biggest == b.nearest:
        size = (f"Here {names[biggest]} has the biggest weight ({b.weights[biggest]:.2f}) and z does land nearest "
                "to it, but that is not a rule.")
    else:
        size = (f"Here {names[biggest]} has the biggest weight ({b.weights[biggest]:.2f}), yet z lands nearest to "
                f"{names[b.nearest]}, whose weight is only {b.weights[b.nearest]:.2f}.")
    return frame.predict("where_z", options=options, answer=answer, weights=", ".join(f"{w:.2f}" for w in b.weights),
                         names=", ".join(names), z=f"[{b.z[0]:.3f}, {b.z[1]:.3f}]", where=where,
                         distances=by_distance, biggest_weight=size)


def set_weights(labels: list[str]) -> np.ndarray:
    """The weight controls: free weights off the simplex, or sliders with a remainder, or logits through
    softmax. Returns the weights, [n]."""
    n = len(labels)
    if frame.control(st.toggle, "off", "Let the weights leave the simplex", value=False,
                     help="Allow negative weights and weights that do not add up to 1."):
        frame.note("off")
        cols = st.columns(n)
        return np.array([frame.control(cols[j].slider, f"w{j + 1}", f"w {literal(labels[j])}", -1.0, 2.0,
                                       SEED_FREE_WEIGHTS[j], 0.05)
                         for j in range(n)])
    mode = frame.control(st.radio, "mode", "Set the weights with", MODES, horizontal=True)
    frame.note("modes")
    if mode == MODES[0]:
        cols = st.columns(max(n - 1, 1))
        free = [frame.control(cols[j].slider, f"a{j + 1}", f"α {literal(labels[j])}", 0.0, 1.0, SEED_FREE[j],
                              0.01) for j in range(n - 1)]
        weights, rescaled = core.simplex_from_free(free) if n > 1 else (np.ones(1), False)
        if rescaled:
            st.warning("Those sliders add up to more than 1, so they were scaled down to add up to exactly 1 "
                       f"and α {literal(labels[-1])} is 0.", icon=":material/warning:")
        else:
            st.caption(f"α {literal(labels[-1])} = 1 − the others = {weights[-1]:.2f}")
        return weights
    cols = st.columns(n)
    logits = [frame.control(cols[j].slider, f"l{j + 1}", f"logit {literal(labels[j])}", -5.0, 5.0, SEED_LOGITS[j],
                            0.01) for j in range(n)]
    weights = core.softmax(logits)
    st.caption("softmax(logits) = (" + ", ".join(f"{w:.3f}" for w in weights) + ")")
    return weights


def blend_charts(X: np.ndarray, labels: list[str], b: core.Blend, revealed: bool) -> None:
    """The weights (on the simplex, or as bars) beside the tokens' hull, with z once it is revealed."""
    n = X.shape[0]

    # The charts' tables, made only when their expanders are open.
    def weights_table() -> pd.DataFrame:
        return pd.DataFrame({"weight": b.weights}, index=labels)

    def points_table() -> pd.DataFrame:
        table = pd.DataFrame(X, index=labels, columns=["x", "y"])
        if revealed:
            table.loc["z (blend)"] = b.z
        return table

    left, right = st.columns(2)
    with left:
        if n == 3 and b.on_simplex:
            chart(built(simplex_figure, b.weights, labels), "Each corner is all the weight on one token; the dot is "
                  "the current weights, and its distance from each side is that token's share.", weights_table,
                  key=frame.key("fig_simplex"))
        else:
            why = "off the simplex" if not b.on_simplex else f"{n} tokens"
            chart(built(weight_bars, b.weights, labels), f"The weights as bars ({why}); negative ones in vermillion.",
                  weights_table, key=frame.key("fig_bars"))
    with right:
        chart(built(hull_figure, X, labels, core.convex_hull_2d(X), b.z if revealed else None, b.inside_hull),
              "Tokens (green dots), their convex hull (shaded) and, once revealed, the blend z (star).",
              points_table, key=frame.key("fig_hull"))


def blend_numbers(X: np.ndarray, b: core.Blend) -> None:
    """z written out, its norm against the largest token's, and whether it stayed inside the hull."""
    terms = " + ".join(f"{w:.4g}·[{x[0]:g}, {x[1]:g}]" for w, x in zip(b.weights, X, strict=True))
    short = f"[{b.z[0]:.3f}, {b.z[1]:.3f}]"
    exact = "" if np.allclose(np.round(b.z, 3), b.z, atol=1e-12) else f" (to 6 digits [{b.z[0]:.6g}, {b.z[1]:.6g}])"
    st.markdown(f"**z = {terms} = {short}**{exact}")
    c1, c2, c3, c4 = st.columns(4)
    c1.metric("sum of weights", f"{b.weights.sum():.4f}")
    c2.metric("smallest weight", f"{b.weights.min():.4f}")
    c3.metric("‖z‖", f"{b.norm_z:.4f}")
    c4.metric("max ‖xⱼ‖", f"{b.max_norm:.4f}")
    where = "inside the hull" if b.inside_hull else "outside the hull"
    bound = "holds" if b.bound_holds else "is broken"
    (st.success if b.inside_hull and b.bound_holds else st.error)(
        f"z is **{where}**, and the bound ‖z‖ ≤ max‖xⱼ‖ **{bound}** "
        f"({b.norm_z:.4f} {'≤' if b.bound_holds else '>'} {b.max_norm:.4f})."
        + ("" if b.on_simplex else " These weights are off the simplex, so neither is guaranteed."))


# One fragment: the toggle, the mode and the weight sliders drive both charts and the blend's numbers below them;
# the token editor above stays outside (it changes which sliders exist, so it reruns the page).
@frame.fragment
def show_blend(X: np.ndarray, labels: list[str], shown: int) -> None:
    """Weights → blend → the simplex and the hull, side by side."""
    b = core.blend(set_weights(labels), X)
    revealed = shown >= Step.PREDICT and predict_where(b, labels)   # presenter mode asks at step 2
    blend_charts(X, labels, b, revealed)
    if revealed:
        blend_numbers(X, b)


frame.header()
shown = frame.steps(Step.labels())
frame.note("palette")
if (typed := tokens()) is not None:
    show_blend(*typed, shown)
frame.trap()
frame.check("new_direction")
frame.footer()
