"""Figures for the step-by-step formula: one builder per stage, data in, Figure out."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from . import palette
from ._layout import LEGEND_ROW, MARGIN, figure
from .labels import place_labels, views

STAGE_TITLES = {
    "scores": "① Scores  Q Kᵀ",
    "scaled": "② Scaled  Q Kᵀ / √dₖ",
    "weights": "③ Weights  softmax(·)",
    "output": "④ Output  weights · V",
}
UNSCALED_TITLE = "② Not scaled  Q Kᵀ"      # stage ② with the scaling switched off: the raw scores pass on


# What each stage's numbers are, for the axis that shows them.
STAGE_VALUES = {"scores": "score q·k", "scaled": "scaled score", "weights": "weight α", "output": "output component"}


def stage_figure(matrix: np.ndarray, stage: str, row_labels: list[str], col_labels: list[str],
                 scaled: bool = True) -> go.Figure:
    """One stage of the formula: grouped bars per query row when there are few queries, a heatmap otherwise.

    matrix: [n_rows, n_cols]; stage: one of "scores", "scaled", "weights", "output"; ``scaled`` False titles
    stage ② Q Kᵀ, not Q Kᵀ / √dₖ (the scaling is off, so that is what it holds).
    """
    matrix = np.atleast_2d(np.asarray(matrix, dtype=float))
    title = UNSCALED_TITLE if stage == "scaled" and not scaled else STAGE_TITLES[stage]
    colour = palette.STAGE_COLOURS[stage]
    if matrix.shape[0] <= 2:
        traces = [{"type": "bar", "x": col_labels, "y": row, "name": row_labels[r],
                   "marker": {"color": colour, "opacity": 1.0 if r == 0 else 0.55},
                   "text": [f"{v:.4f}" for v in row], "textposition": "outside", "cliponaxis": False}
                  for r, row in enumerate(matrix)]
        y_max = float(np.max(matrix))
        y_min = float(np.min(matrix))
        pad = 0.18 * max(abs(y_max), abs(y_min), 1e-9)
        yaxis = {"range": [min(0.0, y_min) - (pad if y_min < 0 else 0), max(0.0, y_max) + pad]}
        columns = "dimension of the output" if stage == "output" else "key"
        return figure(traces, title, columns, STAGE_VALUES[stage], yaxis=yaxis)
    scale = palette.WEIGHT_SCALE if stage == "weights" else palette.DIVERGING_SCALE
    heatmap = {"type": "heatmap", "z": matrix, "x": col_labels, "y": row_labels, "colorscale": scale,
               "zmid": None if stage == "weights" else 0.0, "text": np.round(matrix, 3), "texttemplate": "%{text}",
               "hovertemplate": f"%{{y}} → %{{x}}: {STAGE_VALUES[stage]} %{{z:.6f}}<extra></extra>"}
    columns = "dimension of the output" if stage == "output" else "key"
    return figure([heatmap], title, columns, "query", yaxis={"autorange": "reversed"})


OUTPUT_STAR, OUTPUT_PLOT = 14, 300          # the output's star, px across; the plot area's height, px
# The plot area's width: from the page's right-hand column at 1024 px (or a phone's whole width) to presenter
# mode on a wide screen. Its height is fixed, so labels clear at both ends are clear between.
OUTPUT_VIEWS = views((230, 1400), OUTPUT_PLOT, presenter=(400, 1400))


def output_figure(V: np.ndarray, output: np.ndarray, weights: np.ndarray, value_labels: list[str]) -> go.Figure:
    """The output as a blend of the values.

    V: [n_k, d_v]; output: [n_q, d_v]; weights: [n_q, n_k]. In 2-D, the values are points and each
    output lands inside their hull, marker size showing the first query's weight on each value.
    In other dimensions, bars of each output component.
    """
    V = np.asarray(V, dtype=float)
    output = np.atleast_2d(np.asarray(output, dtype=float))
    if V.shape[1] == 2:
        sizes = 14 + 30 * np.asarray(weights, dtype=float)[0]
        # Every label placed clear of the others and of every point at any width the chart is drawn at (two
        # outputs' labels, or an output's and a value's, ran into each other), inside axes padded for them; not
        # clipped at the plot's edge, so that where two outputs nearly coincide a label can use the margin.
        out_text = [f"({o[0]:.4f}, {o[1]:.4f})" for o in output]
        points = np.vstack([V, output])
        lo, hi = points.min(axis=0), points.max(axis=0)
        span = np.maximum(hi - lo, 1e-9)
        x_range = [float(lo[0] - 0.5 * span[0]), float(hi[0] + 0.5 * span[0])]
        y_range = [float(lo[1] - 0.3 * span[1]), float(hi[1] + 0.3 * span[1])]
        places = place_labels(points[:, 0], points[:, 1], [*value_labels, *out_text],
                              [*sizes, *[OUTPUT_STAR] * len(output)], x_range, y_range, OUTPUT_VIEWS)
        traces = [
            {"type": "scatter", "x": V[:, 0], "y": V[:, 1], "mode": "markers+text", "name": "values vⱼ",
             "text": value_labels, "textposition": places[:len(V)], "cliponaxis": False,
             "customdata": np.asarray(weights)[0],
             "hovertemplate": "%{text}: (%{x:.4f}, %{y:.4f})<br>q1's weight on it: %{customdata:.4f}<extra></extra>",
             "marker": {"color": palette.VALUE, "size": sizes, "opacity": 0.55,
                        "line": {"color": palette.VALUE, "width": 2}}},
            {"type": "scatter", "x": output[:, 0], "y": output[:, 1], "mode": "markers+text", "name": "output",
             "text": out_text, "textposition": places[len(V):], "cliponaxis": False,
             "hovertemplate": "output: %{text}<extra></extra>",
             "marker": {"color": palette.SCORES, "size": OUTPUT_STAR, "symbol": "star"}},
        ]
        return figure(traces, STAGE_TITLES["output"], "component 1", "component 2",
                      height=OUTPUT_PLOT + MARGIN["t"] + MARGIN["b"] + LEGEND_ROW - 30,
                      xaxis={"range": x_range}, yaxis={"range": y_range})
    return stage_figure(output, "output", [f"output {i + 1}" for i in range(output.shape[0])],
                        [f"dim {j + 1}" for j in range(output.shape[1])])


def formula_latex(upto: int = 5, focus: int | None = None) -> str:
    """softmax(QKᵀ/√dₖ)V in LaTeX, each term in its stage colour; terms past step ``upto`` are greyed, and
    the term of step ``focus`` (if any) is boxed.

    Steps, read left to right as in the lesson: 1 QKᵀ, 2 the transpose, 3 ÷√dₖ, 4 softmax, 5 ·V.
    """
    def colour(step: int, hex_colour: str, tex: str) -> str:
        shade = palette.TEXT_SHADES.get(hex_colour, hex_colour) if step <= upto else palette.NEUTRAL
        return rf"\textcolor{{{shade}}}{{{tex}}}"

    def box(step: int, tex: str) -> str:
        return rf"\boxed{{{tex}}}" if step == focus else tex

    transpose = "^{" + colour(2, palette.KEY, r"\top") + "}"
    qk = box(1, colour(1, palette.SCORES, "Q") + box(2, colour(1, palette.SCORES, "K") + transpose))
    softmax = box(4, colour(4, palette.WEIGHTS, r"\operatorname{softmax}"))
    root = box(3, colour(3, palette.SCALED, r"\sqrt{d_k}"))
    v = box(5, colour(5, palette.VALUE, "V"))
    return r"\operatorname{Attention}(Q,K,V)=" + softmax + r"\!\left(\frac{" + qk + "}{" + root + r"}\right)" + v
