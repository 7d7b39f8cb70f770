"""Figures for the query/key/value lesson: scores and weights, and output, of a soft lookup; self-attention."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from . import palette
from ._layout import LABEL_PAD, MARGIN, TITLED_LABEL_PAD, figure, text_px, wrapped

ROW_PX = 44            # one key's row: room for its title on two lines of 14 px type (18 presenting)


def scores_and_weights(labels: list[str], scores: np.ndarray, weights: np.ndarray) -> go.Figure:
    """① The score q · kⱼ of the query against each key and ② its softmax weight αⱼ, side by side on one row
    per key: the titles are written once (wrapped onto two lines), and one chart redraws instead of two.

    Traces: scores (x axis ``x``), weights (``x2``); both on the one reversed y axis, in table order."""
    s, w = np.asarray(scores, dtype=float), np.asarray(weights, dtype=float)
    lo, hi = min(0.0, float(s.min())), max(0.0, float(s.max()))
    # All scores 0 (a query of zeros) give no span: a 1-wide axis then, not one 10⁻⁹ wide ticked "100p".
    pad = 0.25 * (hi - lo if hi - lo >= 1e-3 else 1.0)
    rows = [wrapped(t) for t in labels]

    def bars(values: np.ndarray, colour: str, name: str, axis: str) -> dict:
        return {"type": "bar", "y": rows, "x": values, "orientation": "h", "name": name, "xaxis": axis,
                "marker": {"color": colour}, "text": [f"{v:.3f}" for v in values], "textposition": "outside",
                "cliponaxis": False, "hovertemplate": f"%{{y}}: %{{x:.4f}}<extra>{name}</extra>"}

    traces = [bars(s, palette.SCORES, "score", "x"), bars(w, palette.WEIGHTS, "weight", "x2")]
    return figure(traces, "① Scores q · kⱼ → ② weights softmax(scores/T)", "① score", "item",
                  height=ROW_PX * len(rows) + MARGIN["t"] + MARGIN["b"],
                  xaxis={"domain": [0.0, 0.44], "range": [lo - pad * (lo < 0), hi + pad]},
                  xaxis2={"domain": [0.56, 1.0], "range": [0, 1.15], "anchor": "y", "automargin": True,
                          "title": {"text": "② weight α"}},
                  yaxis={"autorange": "reversed"},
                  legend=False, override={"margin": {"l": text_px(rows) + LABEL_PAD}})


def output_bars(dims: list[str], soft: np.ndarray, hard: np.ndarray | None) -> go.Figure:
    """③ The soft output Σ αⱼ vⱼ beside the hard lookup's single value (absent when it returned null): one row
    per value component, its bars side by side in that row, each number to the right of its bar. Upright bars
    in three groups put two numbers of five characters side by side over bars 25 px wide on a phone, where they
    ran into each other ("0.0200.000"); in rows, every number has the plot's width to itself."""
    def bars(values: np.ndarray, colour: str, name: str) -> dict:
        v = np.asarray(values, dtype=float)
        return {"type": "bar", "y": dims, "x": v, "orientation": "h", "name": name, "marker": {"color": colour},
                "text": [f"{x:.3f}" for x in v], "textposition": "outside", "cliponaxis": False,
                "hovertemplate": f"%{{y}}: %{{x:.4f}}<extra>{name}</extra>"}

    traces = [bars(soft, palette.OUTPUT, "soft lookup Σ αⱼ vⱼ")]
    if hard is not None:
        traces.append(bars(hard, palette.NEUTRAL, "hard lookup value"))
    return figure(traces, "③ Output: what the query takes away", "amount", "value component",
                  height=ROW_PX * 2 * len(dims) + 140,
                  barmode="group", xaxis={"range": [0, 1.2], "tickvals": [0, 0.25, 0.5, 0.75, 1]},
                  yaxis={"autorange": "reversed"},
                  override={"margin": {"l": text_px(dims) + TITLED_LABEL_PAD}})


def self_attention_heatmap(tokens: list[str], weights: np.ndarray) -> go.Figure:
    """Self-attention weights [n, n]: row i is where token i's query sends its attention; the diagonal is 'itself'."""
    w = np.asarray(weights, dtype=float)
    heatmap = {"type": "heatmap", "z": w, "x": tokens, "y": tokens, "colorscale": palette.WEIGHT_SCALE,
               "zmin": 0, "zmax": 1, "text": np.round(w, 2), "texttemplate": "%{text}",
               # No colour bar, two decimals: every cell carries its number, and in the narrow column of a
               # projector at 1024 px the bar's room and a third decimal left cells too small for "0.029".
               "showscale": False, "hovertemplate": "%{y} → %{x}: %{z:.4f}<extra></extra>"}
    return figure([heatmap], "Who attends to whom", "key of token (attended to)", "query of token (attending)",
                  height=320, yaxis={"autorange": "reversed"},
                  override={"margin": {"l": text_px(tokens) + TITLED_LABEL_PAD, "r": 16, "b": 80}})
