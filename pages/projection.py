"""The dot product as a projection: q's shadow on the runway k, and why the score ignores the sideways part."""

import numpy as np
import pandas as pd
import streamlit as st

import attention_core as core
from figures import palette
from figures.projection import projection_figure
from ui.charts import built, chart
from ui.frame import lesson
from ui.numbers import fixed, written
from ui.steps import Steps

LIMIT = 1000.0                                            # coordinates beyond this make an unreadable plot
frame = lesson("projection")


def fmt(x: float, scale: float = 1.0) -> str:
    """x to three decimals, or, below 0.1 (where three decimals keep two figures or fewer), to three significant
    figures (0.0005, 1 × 10⁻⁵), so that "100.000 × 1 × 10⁻⁵ = 0.001" reads true where "100.000 × 0.000" would
    not. Zero (and rounding noise next to ``scale``) is 0.000."""
    x = core.tidy_zero(x, scale)
    return written(x, 3) if x != 0 and abs(x) < 0.1 else fixed(x, 3)


def vectors_table(p: core.Projection) -> pd.DataFrame:
    rows = {"q": p.q, "k": p.k, "k̂": p.k_hat, "q∥ (shadow)": p.parallel, "q⊥ (sideways)": p.perpendicular}
    return pd.DataFrame([[n, *np.round(v, 6), round(float(np.linalg.norm(v)), 6)] for n, v in rows.items()],
                        columns=["vector", "x", "y", "length"]).set_index("vector")


# The two shadows in inline KaTeX, for Markdown and captions.
PROJ_K, PROJ_Q = r"$\operatorname{proj}_k(q)$", r"$\operatorname{proj}_q(k)$"


def shadows_compared(p: core.Projection, back: core.Projection, scale: float) -> str:
    """Do the two shadows coincide, and why: read off the two projections, never assumed."""
    if np.allclose(p.parallel, back.parallel, rtol=0, atol=1e-9 * max(scale, 1.0)):
        if core.tidy_zero(p.score, scale) == 0.0:
            return "The two shadows coincide here, because q and k are at right angles: both shadows are (0, 0)."
        return "The two shadows coincide here, because q and k are the same vector: each is the other's shadow."
    said = (f"The two shadows are **different vectors**: {PROJ_K} = ({fmt(p.parallel[0])}, {fmt(p.parallel[1])}) "
            f"lies along k, {PROJ_Q} = ({fmt(back.parallel[0])}, {fmt(back.parallel[1])}) along q.")
    if core.tidy_zero(abs(p.score) - np.linalg.norm(p.q) * np.linalg.norm(p.k), scale) == 0.0:
        said += " q and k are parallel, so each one's shadow on the other is itself: equal only if q = k."
    return said


def predict_swap(p: core.Projection, back: core.Projection, scale: float) -> bool:
    """Swap plane and runway: the score never changes; the shadow does, except when q ⊥ k or q = k."""
    same = np.allclose(p.parallel, back.parallel, rtol=0, atol=1e-9 * max(scale, 1.0))
    options = [c.text for c in frame.text.predictions["swap"].choices]
    return frame.predict("swap", options=options, answer=0 if same else 1, why=shadows_compared(p, back, scale),
                         score=fmt(p.score, scale))


class Step(Steps):
    """The presenter steps, in order (the step bar shows each label)."""

    SHADOW = "The shadow on the runway"
    SWAP = "Swap the plane and the runway"




def set_vectors() -> tuple[np.ndarray, np.ndarray]:
    """The controls: q and k by angle and length, or by their coordinates. Returns (q, k), each [2]."""
    how = frame.control(st.radio, "input", "Set the vectors by", ["angle and length", "coordinates"], horizontal=True)
    left, right = st.columns(2)
    if how == "angle and length":
        square = frame.control(st.toggle, "perp", "Fly q at right angles to the runway", False,
                               help="Locks q's direction a quarter turn from k's.")
        with right:
            k_len = frame.control(st.slider, "k_len", "Length of k", 0.0, 5.0, 3.0, 0.1)
            k_angle = frame.control(st.slider, "k_angle", "Direction of k (degrees)", -180, 180, 0)
        with left:
            q_len = frame.control(st.slider, "q_len", "Length of q", 0.0, 5.0, 2.0, 0.1)
            locked_by = "Set by the right-angle toggle: q points a quarter turn from k." if square else None
            q_angle = frame.control(st.slider, "q_angle", "Direction of q (degrees)", -180, 180, 50, idle=locked_by)
        if square:
            q_angle = k_angle + 90
        return core.from_polar(q_len, q_angle), core.from_polar(k_len, k_angle)
    box = {"min_value": -LIMIT, "max_value": LIMIT, "step": 0.5}
    with left:
        q = np.array([frame.control(st.number_input, "qx", "q, x", value=2.0, **box),
                      frame.control(st.number_input, "qy", "q, y", value=1.0, **box)])
    with right:
        k = np.array([frame.control(st.number_input, "kx", "k, x", value=3.0, **box),
                      frame.control(st.number_input, "ky", "k, y", value=0.0, **box)])
    return q, k


def shadow(p: core.Projection, q: np.ndarray, k: np.ndarray, scale: float) -> None:
    """Step 1: the angle, the runway, the shadow and the score, and the picture of q split along k."""
    score, comp = fmt(p.score, scale), fmt(p.comp, scale)
    angle = "—" if np.linalg.norm(q) == 0 else f"{core.angle_between(q, k):.1f}°"
    cols = st.columns(4)
    cols[0].metric("angle q to k", angle)
    cols[1].metric("‖k‖ (runway length)", fmt(np.linalg.norm(k)))
    cols[2].metric("shadow (q·k)/‖k‖", comp)
    cols[3].metric("score q·k", score)
    st.markdown(f"**Score = runway length × shadow:** q·k = {fmt(np.linalg.norm(k))} × {comp} = **{score}**.")
    if core.tidy_zero(p.score, scale) == 0.0 and np.linalg.norm(q) > 0:
        st.success("q crosses the runway at a right angle: its shadow has length 0, so the score is exactly 0.",
                   icon=":material/check_circle:")
    plot, words = st.columns([3, 2])
    with plot:
        chart(built(projection_figure, p),
              "The query q split into its shadow q∥ along the key k and the sideways part q⊥.",
              lambda: vectors_table(p), key=frame.key("fig_main"))
    with words:
        frame.note("reading")


def swap(p: core.Projection, q: np.ndarray, k: np.ndarray, scale: float) -> None:
    """Step 2: k's shadow on q beside q's shadow on k, after the prediction; the scores agree."""
    st.subheader("Swap the plane and the runway")
    if np.linalg.norm(q) == 0:
        st.info("Give q some length to compare the two shadows.", icon=":material/info:")
    elif predict_swap(p, back := core.project(k, q), scale):
        score = fmt(p.score, scale)
        a, b = st.columns(2)
        with a:
            chart(built(projection_figure, p, title="q's shadow on k", height=380, legend=False),
                  f"{PROJ_K} = ({fmt(p.parallel[0])}, {fmt(p.parallel[1])}); score q·k = {score}.",
                  None, key=frame.key("fig_qk"))
        with b:
            chart(built(projection_figure, back, "k", "q", palette.KEY, palette.QUERY,
                        "k's shadow on q", 380, legend=False),
                  f"{PROJ_Q} = ({fmt(back.parallel[0])}, {fmt(back.parallel[1])}); "
                  f"score k·q = {fmt(back.score, scale)}.", None, key=frame.key("fig_kq"))
        st.markdown(f"q·k = **{score}** and k·q = **{fmt(back.score, scale)}**: the same number. "
                    + shadows_compared(p, back, scale))
        frame.note("swap")


# One fragment: the vectors set here drive the metrics, the chart and the swap section below, so all of it reruns
# together, and nothing else does.
@frame.fragment
def flight(shown: int) -> None:
    st.subheader("Fly the plane, lay the runway")
    q, k = set_vectors()
    try:
        p = core.project(q, k)
    except ValueError:
        st.warning("k has length 0, so there is no runway: no direction to cast a shadow on. Give k some length "
                   "(the score q·k is 0 here, but the shadow is undefined).", icon=":material/warning:")
        return
    scale = float(np.linalg.norm(q) * np.linalg.norm(k))
    shadow(p, q, k, scale)
    if shown >= Step.SWAP:
        swap(p, q, k, scale)


frame.header()
shown = frame.steps(Step.labels())
flight(shown)
frame.trap()
frame.check("commutative")
frame.footer()
