"""Figures for generating with a KV cache: the cache's rows so far, the new query's weights, the work per
step with and without the cache, and the cache's bytes against context length."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from . import palette
from ._layout import TITLED_LABEL_PAD, figure, log_axis, text_px, vline

HEAD_COLOURS = (palette.QUERY, palette.KEY, palette.VALUE, palette.SCALED)


def cache_figure(rows: np.ndarray, step: int, tokens: list[str], columns: list[str], title: str,
                 colour: str) -> go.Figure:
    """The cached rows ([T, width]; rows past ``step`` are not computed yet, drawn blank), the newest row
    (``step``, 1-based) outlined in ``colour``."""
    T = rows.shape[0]
    shown = np.where(np.arange(T)[:, None] < step, rows, np.nan)
    reach = float(np.abs(rows).max()) or 1.0
    traces = [{
        "type": "heatmap", "z": shown, "x": columns, "y": tokens, "colorscale": palette.DIVERGING_SCALE,
        "zmin": -reach, "zmax": reach, "xgap": 1, "ygap": 1, "showscale": False,
        "hovertemplate": "%{y}, %{x}: %{z:.3f}<extra></extra>",
    }]
    box = {"type": "rect", "x0": -0.5, "x1": len(columns) - 0.5, "y0": step - 1.5, "y1": step - 0.5, "xref": "x",
           "yref": "y", "line": {"color": colour, "width": 4}}
    return figure(traces, title, "head · component", "token", height=380, legend=False, shapes=[box],
                  yaxis={"autorange": "reversed", "type": "category"}, xaxis={"type": "category", "tickangle": -90},
                  override={"margin": {"l": text_px(tokens) + TITLED_LABEL_PAD, "b": 96}})


def step_weights_figure(weights: np.ndarray, tokens: list[str]) -> go.Figure:
    """The new token's attention weights over the t tokens in the cache, one bar group per token, one bar per
    head (weights: [n_heads, t])."""
    traces = [{"type": "bar", "x": tokens, "y": w, "name": f"head {i + 1}",
               "marker": {"color": HEAD_COLOURS[i % len(HEAD_COLOURS)]},
               "hovertemplate": f"head {i + 1}, %{{x}}: %{{y:.3f}}<extra></extra>"}
              for i, w in enumerate(weights)]
    return figure(traces, f"Weights at step {weights.shape[1]}", "cached token",
                  "weight", height=320, barmode="group", yaxis={"range": [0, 1]},
                  xaxis={"type": "category", "tickangle": -45 if len(tokens) > 6 else 0},
                  override={"margin": {"b": 144 + (40 if len(tokens) > 6 else 0)}})


def work_figure(cached: np.ndarray, uncached: np.ndarray, step: int) -> go.Figure:
    """Multiply-adds of each step (1 … T): with the cache, and recomputing every token so far."""
    steps = np.arange(1, len(cached) + 1)
    traces = [
        {"type": "scatter", "x": steps, "y": uncached, "mode": "lines+markers", "name": "recompute everything",
         "line": {"color": palette.SCORES, "width": 3}},
        {"type": "scatter", "x": steps, "y": cached, "mode": "lines+markers", "name": "with the cache",
         "line": {"color": palette.VALUE, "width": 3, "dash": "dash"}, "marker": {"symbol": "diamond"}},
    ]
    return figure(traces, "Multiply-adds per step", "step t", "multiply-adds", height=320,
                  xaxis={"dtick": 1}, yaxis={"rangemode": "tozero"},
                  shapes=[vline(step, {"color": palette.NEUTRAL, "width": 2, "dash": "dot"})],
                  override={"margin": {"b": 144}})


def _short(n: int) -> str:
    """A power-of-two length as context lengths are written: 256, 1K, 128K (K = 1,024)."""
    return f"{n // 1024}K" if n >= 1024 else str(n)


def cost_figure(lengths: np.ndarray, curve: np.ndarray, weights: float, current: int, window: int = 0) -> go.Figure:
    """The cache's bytes against context length (log–log), the weights' bytes as a flat line, the current
    length marked, and the model's context ``window`` shaded beyond (what it was never trained to read)."""
    traces = [
        {"type": "scatter", "x": lengths, "y": curve, "mode": "lines+markers", "name": "KV cache",
         "line": {"color": palette.KEY, "width": 3}, "hovertemplate": "%{x:,} tokens: %{y:.3s}B<extra></extra>"},
        {"type": "scatter", "x": lengths, "y": np.full(len(lengths), float(weights)), "mode": "lines",
         "name": "weights (16-bit)", "line": {"color": palette.QUERY, "width": 3, "dash": "dash"},
         "hovertemplate": "weights: %{y:.3s}B<extra></extra>"},
    ]
    ticks = [int(n) for n in lengths if int(np.log2(n)) % 2 == 1]
    beyond = []
    if 0 < window < lengths[-1]:
        beyond = [{"type": "rect", "xref": "x", "yref": "paper", "x0": window, "x1": float(lengths[-1]), "y0": 0,
                   "y1": 1, "fillcolor": palette.NEUTRAL, "opacity": 0.12, "line": {"width": 0}, "layer": "below",
                   "name": "beyond the context window"}]
    return figure(traces, "Cache bytes by context", "tokens of context (1K = 1,024)", "bytes", height=340,
                  xaxis={"type": "log", "tickvals": ticks, "ticktext": [_short(n) for n in ticks]},
                  yaxis=log_axis(curve, [weights]),
                  shapes=[*beyond, vline(current, {"color": palette.NEUTRAL, "width": 2, "dash": "dot"})],
                  **({"annotations": [{"x": np.log10(window), "y": 1, "xref": "x", "yref": "paper",
                                       "showarrow": False, "text": "beyond the window", "xanchor": "left",
                                       "yanchor": "top", "xshift": 4}]} if beyond else {}),
                  override={"margin": {"b": 144}})
