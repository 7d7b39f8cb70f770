"""Learned projections: score grids for the sentence, the interaction matrix's spectrum, and rank against d_k."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from . import palette
from ._layout import TITLED_LABEL_PAD, figure, text_px


def score_heatmap(scores: np.ndarray, labels: list[str], title: str, height: int = 380) -> go.Figure:
    """scores: [n, n], row i = the token asking (query), column j = the token answering (key); centred at 0."""
    scores = np.asarray(scores, dtype=float)
    top = float(np.abs(scores).max()) or 1.0
    heatmap = {"type": "heatmap", "z": scores, "x": labels, "y": labels, "colorscale": palette.DIVERGING_SCALE,
               "zmin": -top, "zmax": top, "text": np.round(scores, 2), "texttemplate": "%{text}",
               # No colour bar: every cell carries its number, and the bar's 72 px went from the cells.
               "showscale": False, "hovertemplate": "query %{y} → key %{x}: score %{z:.4f}<extra></extra>"}
    # Short axis titles: a long one ran past the ends of a short axis and was cut off.
    return figure([heatmap], title, "key (looked at)", "query (looking)", height=height,
                  yaxis={"autorange": "reversed"},
                  override={"margin": {"l": text_px(labels) + TITLED_LABEL_PAD, "r": 16, "b": 80}})


def singular_values_figure(values: np.ndarray, d_k: int) -> go.Figure:
    """Bars of the singular values of M (largest first); the ones past d_k are zero."""
    values = np.asarray(values, dtype=float)
    idx = np.arange(1, values.size + 1)
    colours = [palette.SCORES if i <= d_k else palette.NEUTRAL for i in idx]
    bars = {"type": "bar", "x": [f"σ{i}" for i in idx], "y": values, "marker": {"color": colours},
            "text": [f"{v:.3g}" for v in values], "textposition": "outside", "cliponaxis": False}
    return figure([bars], "Singular values of M", "singular value", "size",
                  height=300,
                  yaxis={"range": [0, max(float(values.max()), 1e-9) * 1.25]})


def rank_figure(d_ks: np.ndarray, ranks: np.ndarray, d_model: int, current: int) -> go.Figure:
    """Measured rank(M) at each d_k (bars, the current one highlighted) against the ceiling min(d_k, d_model)."""
    d_ks = np.asarray(d_ks, dtype=int)
    colours = [palette.SCORES if d == current else palette.WEIGHTS for d in d_ks]
    traces = [
        {"type": "bar", "x": d_ks, "y": ranks, "name": "rank of M (measured)", "marker": {"color": colours}},
        {"type": "scatter", "x": d_ks, "y": np.minimum(d_ks, d_model), "mode": "lines+markers",
         "name": "ceiling min(dₖ, d<sub>model</sub>)", "line": {"color": palette.NEUTRAL, "dash": "dash"}},
    ]
    return figure(traces, "Rank of M against dₖ",
                  "dₖ (rows of W<sub>Q</sub> and W<sub>K</sub>)", "rank", height=300,
                  override={"margin": {"b": 150}},
                  xaxis={"dtick": 1}, yaxis={"range": [0, d_model + 0.5], "dtick": 1})
