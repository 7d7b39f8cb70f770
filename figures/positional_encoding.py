"""Figures for where word order comes from: how far each word's output moved after a shuffle, how alike two
positions are in each table, one sin/cos pair, and q and k turned by rotary embeddings.

Word labels come from what a learner typed: every one goes through figures.text.plotly_literal here.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from . import palette
from ._layout import (
    FONT,
    LEGEND_ROW,
    MARGIN,
    TITLED_LABEL_PAD,
    arrow,
    figure,
    log_axis,
    text_px,
    vline,
)
from .text import plotly_literal as escape

X_LABELS = 24                          # tokens labelled under the bars at most (the hover names every one)
FLOOR = 1e-12                          # a log axis cannot show 0: gaps below are drawn here (the caption says so)
SIMILARITY_SCALE = palette.DIVERGING_SCALE


def gap_figure(tokens: list[str], gap_off: np.ndarray, gap_on: np.ndarray) -> go.Figure:
    """Per token of the shuffled sentence: the largest change of its output row against the same token's row in
    the typed order, without and with position embeddings (log y, floored at FLOOR)."""
    if not (len(tokens) == len(gap_off) == len(gap_on)):
        raise ValueError(f"Need one gap per token, got {len(tokens)} tokens, {len(gap_off)} and {len(gap_on)} gaps.")
    cats = [f"{i}: {escape(t)}" for i, t in enumerate(tokens)]                    # unique, even for "the … the"
    off, on = np.maximum(gap_off, FLOOR), np.maximum(gap_on, FLOOR)
    bars = [
        {"type": "bar", "x": cats, "y": off, "name": "positions off", "marker": {"color": palette.QUERY}},
        {"type": "bar", "x": cats, "y": on, "name": "positions on", "marker": {"color": palette.SCORES}},
    ]
    title, height = "How far each word's output moved", 400
    # Upright labels under the axis, then its title, then the legend: the legend hangs below both.
    below = text_px(cats) + 62
    plot = height + 30 - MARGIN["t"] - (below + LEGEND_ROW)       # a wrapped title grows the figure and its top alike
    every = -(-len(cats) // X_LABELS)                               # past X_LABELS tokens, every n-th is labelled
    return figure(bars, title, "token of the shuffled sentence", "largest change", height=height, barmode="group",
                  yaxis=log_axis(off, on),
                  override={"xaxis": {"tickangle": -90, "type": "category", "tickvals": cats[::every]},
                            "margin": {"b": below + LEGEND_ROW},
                            "legend": {"y": -below / max(plot, 60)}})


def similarity_figure(similarity: np.ndarray, title: str, offset: int) -> go.Figure:
    """cos(P_a, P_b) for every pair of positions [n, n], from −1 to 1, with the diagonal ``offset`` apart marked."""
    n = similarity.shape[0]
    heatmap = {"type": "heatmap", "z": np.asarray(similarity, dtype=np.float32), "zmin": -1.0, "zmax": 1.0,
               "colorscale": SIMILARITY_SCALE, "colorbar": {"title": {"text": "cosine"}, "thickness": 10, "xpad": 2},
               "hovertemplate": "positions %{y} and %{x}: cosine %{z:.3f}<extra></extra>"}
    k = min(max(offset, 0), n - 1)
    marked = {"type": "scatter", "x": [k, n - 1], "y": [0, n - 1 - k], "mode": "lines", "name": f"{k} apart",
              "line": {"color": palette.KEY, "width": 3, "dash": "dot"},
              "hovertemplate": f"positions {k} apart<extra></extra>"}
    return figure([heatmap, marked], title, "position b", "position a", height=380, legend=False, validate=False,
                  override={"yaxis": {"autorange": "reversed"}, "margin": {"r": 96}})


def frequency_figure(positions: np.ndarray, sin: np.ndarray, cos: np.ndarray, index: int) -> go.Figure:
    """Columns 2i and 2i + 1 of the sinusoidal table over positions: one sin/cos pair of frequency index i."""
    lines = [
        {"type": "scatter", "x": positions, "y": sin, "mode": "lines+markers", "name": f"sin (column {2 * index})",
         "line": {"color": palette.QUERY, "width": 2}, "marker": {"size": 4}},
        {"type": "scatter", "x": positions, "y": cos, "mode": "lines+markers", "name": f"cos (column {2 * index + 1})",
         "line": {"color": palette.KEY, "width": 2, "dash": "dash"}, "marker": {"size": 4}},
    ]
    return figure(lines, f"Frequency index {index}: one sin/cos pair", "position", "table entry", height=320,
                  yaxis={"range": [-1.1, 1.1]})


def offset_figure(offsets: np.ndarray, sinusoidal: np.ndarray, learned: np.ndarray, offset: int) -> go.Figure:
    """Mean cosine of two positions against how far apart they are, for both tables, with ``offset`` marked."""
    lines = [
        {"type": "scatter", "x": offsets, "y": sinusoidal, "mode": "lines", "name": "sinusoidal",
         "line": {"color": palette.QUERY, "width": 3}},
        {"type": "scatter", "x": offsets, "y": learned, "mode": "lines", "name": "learned (MiniLM)",
         "line": {"color": palette.SCORES, "width": 3, "dash": "dash"}},
    ]
    return figure(lines, "How alike two positions are, by distance", "offset k (positions apart)", "mean cosine",
                  height=320, shapes=[vline(offset, {"color": palette.NEUTRAL, "dash": "dot", "width": 2})])


def rotary_figure(q: np.ndarray, k: np.ndarray, q_m: np.ndarray, k_n: np.ndarray, m: int, n: int) -> go.Figure:
    """q and k in the plane before (thin, dotted) and after turning to positions m and n (arrows)."""
    reach = 1.15 * max(float(np.linalg.norm(q)), float(np.linalg.norm(k)), 1e-9)
    theta = np.linspace(0, 2 * np.pi, 91)
    circle = {"type": "scatter", "x": reach / 1.15 * np.cos(theta), "y": reach / 1.15 * np.sin(theta),
              "mode": "lines", "name": "circle", "line": {"color": palette.NEUTRAL, "width": 1}, "hoverinfo": "skip",
              "showlegend": False}
    traces = [circle,
              arrow((0, 0), q, "q at position 0", palette.QUERY, width=1.5, dash="dot"),
              arrow((0, 0), k, "k at position 0", palette.KEY, width=1.5, dash="dot"),
              arrow((0, 0), q_m, f"q at position {m}", palette.QUERY),
              arrow((0, 0), k_n, f"k at position {n}", palette.KEY)]
    axis = {"range": [-reach, reach], "zeroline": True, "dtick": 0.5, "constrain": "domain"}
    return figure(traces, "Rotary: q and k turned by their positions", "first component", "second component",
                  height=420, xaxis=axis, yaxis=axis | {"scaleanchor": "x", "scaleratio": 1},
                  override={"margin": {"l": max(90, TITLED_LABEL_PAD + text_px(["-1.0"], FONT))}})
