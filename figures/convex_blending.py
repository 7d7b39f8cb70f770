"""Figures for convex blending: the weights on the simplex, and z among the tokens in the plane."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from . import palette
from ._layout import MARGIN, figure, hline
from .labels import place_labels, views


def simplex_figure(weights: np.ndarray, labels: list[str]) -> go.Figure:
    """The attention weights of three tokens as a point on the 2-simplex (a ternary plot).

    weights: [3] on the simplex; each corner of the triangle is all the weight on one token.
    """
    w = np.asarray(weights, dtype=float)
    # The numbers go in the title, not beside the dot: a label there ran into the triangle's edge (Plotly
    # clips it to the subplot) or into the tick labels, wherever the dot happened to be.
    shares = f"({w[0]:.2f}, {w[1]:.2f}, {w[2]:.2f})"
    point = {"type": "scatterternary", "a": [w[0]], "b": [w[1]], "c": [w[2]], "mode": "markers",
             "name": "weights α", "hovertemplate": f"α = {shares}<extra></extra>", "cliponaxis": False,
             "marker": {"color": palette.WEIGHTS, "size": 16, "line": {"color": "#333333", "width": 1}}}
    # Ticks inside the edges only: at each corner the 0 of one axis and the 1.0 of the next met and collided.
    axis = {"min": 0, "ticks": "outside", "tickvals": [0.2, 0.4, 0.6, 0.8], "tickformat": ".1f", "showgrid": True,
            "gridcolor": "#cccccc"}
    ternary = {
        "sum": 1, "bgcolor": "rgba(0,0,0,0)",
        "aaxis": {**axis, "title": {"text": f"α {labels[0]}"}},
        "baxis": {**axis, "title": {"text": f"α {labels[1]}"}},
        "caxis": {**axis, "title": {"text": f"α {labels[2]}"}},
    }
    return figure([point], f"Weights on the simplex<br>α = {shares}", height=380, ternary=ternary,
                  override={"margin": {"l": 60, "r": 60, "t": 85, "b": 50}})


def weight_bars(weights: np.ndarray, labels: list[str]) -> go.Figure:
    """The weights as bars, for more than three tokens or for weights off the simplex (negatives in vermillion)."""
    w = np.asarray(weights, dtype=float)
    bars = {"type": "bar", "x": labels, "y": w,
            "marker": {"color": [palette.WEIGHTS if v >= 0 else palette.SCORES for v in w]},
            "text": [f"{v:.2f}" for v in w], "textposition": "outside", "cliponaxis": False}
    lo, hi = min(0.0, float(w.min())), max(1.0, float(w.max()))
    return figure([bars], f"The weights (sum {w.sum():.2f})", "token", "weight", height=380,
                  shapes=[hline(0, {"color": palette.NEUTRAL, "width": 1})],
                  yaxis={"range": [lo - 0.15 * (hi - lo) * (lo < 0), hi + 0.12 * (hi - lo)]})


HULL_PLOT, TOKEN_DOT, Z_STAR = 240, 12, 18      # the plot area's height, px; markers, px across
HULL_MARGIN = {"l": 80, "r": 16, "b": 138}
# The plot area's width: from one of two columns at 1024 px with the sidebar open (274 px, less the margins) to
# presenter mode on a wide screen. Its height is fixed, so labels clear at both ends are clear between.
HULL_VIEWS = views((190, 1400), HULL_PLOT, presenter=(300, 1400))


def hull_figure(X: np.ndarray, labels: list[str], hull: np.ndarray, z: np.ndarray | None = None,
                inside: bool = True) -> go.Figure:
    """The tokens x_j: [n, 2], their convex hull (corner indices, counter-clockwise) and the blend z: [2].

    z is green inside the hull and vermillion when it has escaped.
    """
    X = np.asarray(X, dtype=float)
    ring = np.append(hull, hull[0]) if len(hull) > 2 else hull
    points = X if z is None else np.vstack([X, z])
    lo, hi = points.min(axis=0), points.max(axis=0)
    pad = 0.2 * max(float((hi - lo).max()), 0.1)
    # Twice the room sideways: a label beside the leftmost or rightmost token was cut in a narrow column.
    x_range, y_range = [lo[0] - 2 * pad, hi[0] + 2 * pad], [lo[1] - pad, hi[1] + pad]
    z_text = [] if z is None else ["z" if inside else "z (outside!)"]
    sizes = [TOKEN_DOT] * len(X) + [Z_STAR] * len(z_text)
    places = place_labels(points[:, 0], points[:, 1], [*labels, *z_text], sizes, x_range, y_range, HULL_VIEWS)
    traces = [
        {"type": "scatter", "x": X[ring, 0], "y": X[ring, 1], "mode": "lines", "name": "convex hull",
         "fill": "toself" if len(hull) > 2 else None, "fillcolor": "rgba(0,158,115,0.12)",
         "line": {"color": palette.VALUE, "width": 1, "dash": "dot"}, "hoverinfo": "skip"},
        # Not clipped at the plot's edge: a long typed token name that finds no clear place stays readable.
        {"type": "scatter", "x": X[:, 0], "y": X[:, 1], "mode": "markers+text", "name": "tokens xⱼ", "text": labels,
         "textposition": places[:len(X)], "cliponaxis": False, "marker": {"color": palette.VALUE, "size": TOKEN_DOT},
         "hovertemplate": "token %{text}<br>component 1: %{x:.3f}<br>component 2: %{y:.3f}<extra></extra>"},
    ]
    if z is not None:
        colour = palette.OUTPUT if inside else palette.SCORES
        traces.append({"type": "scatter", "x": [z[0]], "y": [z[1]], "mode": "markers+text", "name": "blend z",
                       "text": z_text, "textposition": places[-1], "cliponaxis": False,
                       "textfont": {"color": colour},
                       "hovertemplate": "blend z<br>component 1: %{x:.3f}<br>component 2: %{y:.3f}<extra></extra>",
                       "marker": {"color": colour, "size": Z_STAR, "symbol": "star",
                                  "line": {"color": "#333333", "width": 1}}})
    return figure(traces, "Where the blend lands", "component 1", "component 2",
                  height=HULL_PLOT + MARGIN["t"] - 30 + HULL_MARGIN["b"],
                  xaxis={"range": x_range}, yaxis={"range": y_range}, override={"margin": HULL_MARGIN})
