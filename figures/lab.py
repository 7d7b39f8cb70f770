"""Figures for the real-model lab: attention heatmaps, one token's weights, a word's cosine across
layers, and static against contextual neighbours.

Token labels come from what a learner typed, and plotly renders a subset of HTML in labels, so every
label goes through figures.text.plotly_literal here. Axis values are unique ("3: bank"), never the bare
token: a sentence may repeat a token ("the … the"), and a categorical axis would merge the two.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from . import palette
from ._layout import LABEL_PAD, TITLED_LABEL_PAD, figure, text_px, vrect
from .text import plotly_literal as escape

SENSE_COLOURS = [palette.VALUE, palette.KEY, palette.QUERY, palette.SCALED]
PAIR_COLOURS = [palette.SCORES, palette.QUERY, palette.KEY, palette.VALUE, palette.SCALED, palette.WEIGHTS]


def labels(tokens: list[str]) -> list[str]:
    """Escaped token labels for an axis."""
    return [escape(t) for t in tokens]


def short(text: str, n: int = 32) -> str:
    """Escaped, shortened text for a legend or axis label."""
    text = " ".join(text.split())
    return escape(text if len(text) <= n else text[: n - 1] + "…")


def attention_heatmap(weights: np.ndarray, tokens: list[str], title: str) -> go.Figure:
    """weights [T, T] (rows: the token attending, columns: the token attended to) with tokens on both axes.

    The colour scale runs from 0 to the largest weight shown: over 128 tokens a weight of 0.1 is a lot,
    and a fixed 0–1 scale would wash it out.

    Compact for the wire (at 128 tokens the whole figure is about 90 KB, not 360): the weights go as one
    float32 array (Plotly sends it as binary), and the hover reads each cell's token pair from the axes'
    own categories ("3: bank") rather than from a per-cell copy of both labels."""
    weights = np.asarray(weights, dtype=np.float32)
    T = len(tokens)
    if weights.shape != (T, T):
        raise ValueError(f"Need a [{T}, {T}] weight matrix for {T} tokens, got {weights.shape}.")
    text = labels(tokens)
    cats = [f"{i}: {t}" for i, t in enumerate(text)]               # unique, so repeated tokens stay apart
    heatmap = {"type": "heatmap", "z": weights, "x": cats, "y": cats, "zmin": 0.0,
               "zmax": max(float(weights.max()), 1e-6), "colorscale": palette.WEIGHT_SCALE,
               "hovertemplate": "%{y} → %{x}: %{z:.3f}<extra></extra>",
               "colorbar": {"title": {"text": "weight"}, "thickness": 12}}
    font = 12 if T <= 24 else 10 if T <= 48 else 7
    height = int(min(max(380, 18 * T + 140), 1400))
    ticks = {"type": "category", "tickmode": "array", "tickvals": cats, "ticktext": text, "tickfont": {"size": font}}
    return figure([heatmap], title, "attended to (key)", "attending (query)", height=height, override={
        "xaxis": {**ticks, "tickangle": -60, "side": "bottom"},
        "yaxis": {**ticks, "autorange": "reversed"},
        # Room for the longest token, upright on the left and at 60° below; r holds the colour bar.
        "margin": {"l": text_px(text, font) + TITLED_LABEL_PAD, "r": 88, "t": 50,
                   "b": int(0.87 * text_px(text, font)) + 70},
    })


def attention_bars(row: np.ndarray, tokens: list[str], query: int, title: str) -> go.Figure:
    """One query token's weights over every key token, as bars (the query's own column outlined)."""
    row = np.asarray(row)
    pos = list(range(len(tokens)))
    colours = [palette.KEY if j == query else palette.WEIGHTS for j in pos]
    bars = {"type": "bar", "x": pos, "y": row, "marker": {"color": colours}, "customdata": labels(tokens),
            "hovertemplate": "%{customdata}: %{y:.3f}<extra></extra>"}
    longest = text_px(labels(tokens), 12 if len(tokens) <= 30 else 8)
    return figure([bars], title, "attended to (key)", "weight", height=340, override={
        "margin": {"b": int(0.87 * longest) + 62},
        "xaxis": {"tickvals": pos, "ticktext": labels(tokens), "tickangle": -60,
                  "tickfont": {"size": 12 if len(tokens) <= 30 else 8}},
        "yaxis": {"range": [0, max(1e-6, float(row.max())) * 1.1]},
    })


def cosine_layers_figure(layer_labels: list[str], curves: dict[str, np.ndarray], title: str) -> go.Figure:
    """One line per sentence pair: the cosine of the word's two vectors at each layer."""
    traces = [{"type": "scatter", "x": list(layer_labels), "y": np.asarray(values), "mode": "lines+markers",
               "name": short(name, 60), "line": {"color": PAIR_COLOURS[n % len(PAIR_COLOURS)], "width": 3},
               "hovertemplate": "%{x}: %{y:.3f}<extra></extra>"}
              for n, (name, values) in enumerate(curves.items())]
    before = vrect(-0.5, 1.5, palette.NEUTRAL, 0.12)
    label = {"text": "before attention", "showarrow": False, "x": -0.5, "xref": "x", "xanchor": "left",
             "y": 0, "yref": "y domain", "yanchor": "bottom"}                 # add_vrect's "bottom left"
    return figure(traces, title, "", "cosine similarity", height=380, shapes=[before], annotations=[label],
                  override={"margin": {"b": 132}})


def neighbours_figure(names: list[str], scores: np.ndarray, title: str, x_title: str,
                      groups: list[str] | None = None) -> go.Figure:
    """Horizontal bars, best at the top; one colour per group (e.g. a reference's sense), grey without groups."""
    scores = np.asarray(scores)
    groups = groups or [""] * len(names)
    traces = []
    for n, g in enumerate(dict.fromkeys(groups)):
        idx = [i for i, x in enumerate(groups) if x == g]
        traces.append({"type": "bar", "y": [short(names[i], 48) for i in idx], "x": scores[idx], "orientation": "h",
                       "name": escape(g) or "neighbour",
                       "marker": {"color": SENSE_COLOURS[n % len(SENSE_COLOURS)] if g else palette.NEUTRAL},
                       "hovertemplate": "%{y}: %{x:.3f}<extra></extra>"})
    order = [short(names[i], 48) for i in np.argsort(-scores, kind="stable")]
    return figure(traces, title, x_title, "", height=max(300, 26 * len(names) + 120), barmode="overlay", override={
        "margin": {"l": text_px(order) + LABEL_PAD},
        "yaxis": {"categoryorder": "array", "categoryarray": order[::-1]},
        "xaxis": {"range": [min(0.0, float(scores.min())), 1.0]},
    })
