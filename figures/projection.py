"""The runway shadow: a vector, the direction it is projected onto, and the pieces of the split."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from attention_core import Projection

from . import palette
from ._layout import arrow, figure


def projection_figure(p: Projection, vec: str = "q", onto: str = "k", vec_colour: str = palette.QUERY,
                      onto_colour: str = palette.KEY, title: str | None = None, height: int = 480,
                      legend: bool = True) -> go.Figure:
    """``vec`` (p.q) split along ``onto`` (p.k): the runway line, the unit direction, the shadow and the drop.

    Traces, in drawing order (later on top): runway line, onto, shadow (parallel part), drop (perpendicular
    part), vec, unit direction. The thick shadow lies along onto and, at 0° or 180°, over vec: drawn under
    both, it can hide neither q nor the thin unit arrow. ``legend=False`` for a small copy beside another.
    """
    q, k = p.q, p.k
    reach = max(float(np.abs(np.concatenate([q, k, p.parallel])).max()), 1.0) * 1.15
    line = np.vstack([-2 * reach * p.k_hat, 2 * reach * p.k_hat])          # the runway's centre line
    zero = np.zeros(2)
    traces = [
        {"type": "scatter", "x": line[:, 0], "y": line[:, 1], "mode": "lines", "name": f"runway (the line of {onto})",
         "line": {"color": palette.NEUTRAL, "width": 1, "dash": "dot"}, "hoverinfo": "skip", "showlegend": False},
        arrow(zero, k, onto, onto_colour, width=5),
        arrow(zero, p.parallel, f"{vec}∥ (shadow)", palette.SCORES, width=9),
        {"type": "scatter", "x": [p.parallel[0], q[0]], "y": [p.parallel[1], q[1]], "mode": "lines",
         "name": f"{vec}⊥ (drops out)", "line": {"color": palette.NEUTRAL, "width": 2, "dash": "dash"},
         "hoverinfo": "skip"},
        arrow(zero, q, vec, vec_colour),
        arrow(zero, p.k_hat, f"{onto}̂ (unit length)", onto_colour, width=3, dash="dot"),
    ]
    # constrain="domain": keep equal units by narrowing the plot, not by widening the range around tiny arrows.
    axis = {"range": [-reach, reach], "zeroline": True, "zerolinecolor": "#bbbbbb", "constrain": "domain"}
    return figure(traces, title or f"{vec}'s shadow on runway {onto}", "x", "y", height=height, legend=legend,
                  xaxis=axis, yaxis={**axis, "scaleanchor": "x", "scaleratio": 1},
                  override={"margin": {"b": 170}} if legend else None)   # the legend takes up to three rows
