"""Figures for the query/key/value lesson: scores, weights and output of a soft lookup; self-attention."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from . import palette
from ._layout import LABEL_PAD, TITLED_LABEL_PAD, figure, text_px, wrapped


def _hbars(labels: list[str], values: np.ndarray, colour: str, title: str, x_title: str,
           x_range: list[float] | None = None) -> go.Figure:
    """Horizontal bars, one per key, top to bottom in table order (long titles wrap onto two lines)."""
    values = np.asarray(values, dtype=float)
    labels = [wrapped(t) for t in labels]
    bars = {"type": "bar", "y": labels, "x": values, "orientation": "h", "marker": {"color": colour},
            "text": [f"{v:.3f}" for v in values], "textposition": "outside", "cliponaxis": False}
    xaxis = {} if x_range is None else {"range": x_range}
    return figure([bars], title, x_title, "", height=300, xaxis=xaxis, yaxis={"autorange": "reversed"},
                  override={"margin": {"l": text_px(labels) + LABEL_PAD}})


def score_bars(labels: list[str], scores: np.ndarray) -> go.Figure:
    """① The score q · kⱼ of the query against each key."""
    s = np.asarray(scores, dtype=float)
    lo, hi = min(0.0, float(s.min())), max(0.0, float(s.max()))
    pad = 0.25 * max(hi - lo, 1e-9)
    return _hbars(labels, s, palette.SCORES, "① Scores  q · kⱼ", "score", [lo - pad * (lo < 0), hi + pad])


def weight_bars(labels: list[str], weights: np.ndarray) -> go.Figure:
    """② The softmax weights αⱼ: the share of attention each key's value receives."""
    return _hbars(labels, weights, palette.WEIGHTS, "② Weights  softmax(scores / T)", "weight α", [0, 1.15])


def output_bars(dims: list[str], soft: np.ndarray, hard: np.ndarray | None) -> go.Figure:
    """③ The soft output Σ αⱼ vⱼ beside the hard lookup's single value (absent when it returned null)."""
    traces = [{"type": "bar", "x": dims, "y": np.asarray(soft, dtype=float), "name": "soft lookup Σ αⱼ vⱼ",
               "marker": {"color": palette.OUTPUT}, "text": [f"{v:.3f}" for v in soft],
               "textposition": "outside", "cliponaxis": False}]
    if hard is not None:
        traces.append({"type": "bar", "x": dims, "y": np.asarray(hard, dtype=float), "name": "hard lookup value",
                       "marker": {"color": palette.NEUTRAL}, "text": [f"{v:.3f}" for v in hard],
                       "textposition": "outside", "cliponaxis": False})
    return figure(traces, "③ Output: what the query takes away", "value component", "amount", height=340,
                  barmode="group", yaxis={"range": [0, 1.15]},
                  override={"legend": {"orientation": "h", "y": -0.42, "x": 0}, "margin": {"b": 140}})


def self_attention_heatmap(tokens: list[str], weights: np.ndarray) -> go.Figure:
    """Self-attention weights [n, n]: row i is where token i's query sends its attention; the diagonal is 'itself'."""
    w = np.asarray(weights, dtype=float)
    heatmap = {"type": "heatmap", "z": w, "x": tokens, "y": tokens, "colorscale": palette.WEIGHT_SCALE,
               "zmin": 0, "zmax": 1, "text": np.round(w, 3), "texttemplate": "%{text}",
               "hovertemplate": "%{y} → %{x}: %{z:.4f}<extra></extra>"}
    return figure([heatmap], "Who attends to whom", "key of token (attended to)", "query of token (attending)",
                  height=320, yaxis={"autorange": "reversed"},
                  # r: the colour bar
                  override={"margin": {"l": text_px(tokens) + TITLED_LABEL_PAD, "r": 88, "b": 80}})
