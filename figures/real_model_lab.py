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
from ._layout import FONT, TITLED_LABEL_PAD, figure, text_px, vrect, wrapped
from .text import plotly_literal as escape

# Token labels stand upright under the x-axis (never slanted) and at FONT px on both axes; past these
# counts only every n-th token is labelled, so the labels never overlap (the hover names every cell).
X_LABELS, ROW_PX = 24, 20

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

    Compact for the wire (a quarter of the naive figure's size; docs/PERFORMANCE.md): the weights go as one
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
               "colorbar": {"title": {"text": "weight"}, "thickness": 10, "xpad": 2}}   # fits r = 96
    height = int(min(max(380, ROW_PX * T + 160), 1400))
    rows = -(-T * ROW_PX // (height - 160))                  # label every rows-th token on the y-axis
    cols = -(-T // X_LABELS)
    return figure([heatmap], title, "attended to (key)", "attending (query)", height=height, validate=False, override={
        "xaxis": {**_ticks(text, cols, cats), "tickangle": -90, "side": "bottom"},
        "yaxis": {**_ticks(text, rows, cats), "autorange": "reversed"},
        # Room for the longest token, across on the left and upright below; r holds the colour bar.
        "margin": {"l": text_px(text) + TITLED_LABEL_PAD, "r": 96, "t": 56, "b": text_px(text) + 76},
    })


def _ticks(text: list[str], every: int, categories: list[str] | None = None) -> dict:
    """Tick labels for every ``every``-th token position (or its category, on a category axis), at the common
    size."""
    pos = list(range(0, len(text), max(every, 1)))
    values = pos if categories is None else [categories[i] for i in pos]
    return {"tickvals": values, "ticktext": [text[i] for i in pos], "tickfont": {"size": FONT}}


def attention_bars(row: np.ndarray, tokens: list[str], query: int, title: str) -> go.Figure:
    """One query token's weights over every key token, as bars (the query's own column outlined)."""
    row = np.asarray(row)
    pos = list(range(len(tokens)))
    colours = [palette.KEY if j == query else palette.WEIGHTS for j in pos]
    bars = {"type": "bar", "x": pos, "y": row, "marker": {"color": colours}, "customdata": labels(tokens),
            "hovertemplate": "%{customdata}: %{y:.3f}<extra></extra>"}
    text = labels(tokens)
    return figure([bars], title, "attended to (key)", "weight", height=360, validate=False, override={
        "margin": {"b": text_px(text) + 70},
        "xaxis": {**_ticks(text, -(-len(tokens) // X_LABELS)), "tickangle": -90},
        "yaxis": {"range": [0, max(1e-6, float(row.max())) * 1.1]},
    })


def cosine_layers_figure(layer_labels: list[str], curves: dict[str, np.ndarray], title: str) -> go.Figure:
    """One line per sentence pair: the cosine of the word's two vectors at each layer."""
    # One legend entry a row, each wrapped to a phone's width: a long pair's name ran off the chart.
    names = [wrapped(short(name, 72), 32) for name in curves]
    traces = [{"type": "scatter", "x": list(layer_labels), "y": np.asarray(values), "mode": "lines+markers",
               "name": names[n], "line": {"color": PAIR_COLOURS[n % len(PAIR_COLOURS)], "width": 3},
               "hovertemplate": f"{names[n]}<br>%{{x}}: cosine %{{y:.3f}}<extra></extra>"}
              for n, values in enumerate(curves.values())]
    legend_px = 24 * sum(name.count("<br>") + 1 for name in names)
    before = vrect(-0.5, 1.5, palette.NEUTRAL, 0.12)
    label = {"text": "before attention", "showarrow": False, "x": -0.5, "xref": "x", "xanchor": "left",
             "y": 0, "yref": "y domain", "yanchor": "bottom"}                 # add_vrect's "bottom left"
    return figure(traces, title, "layer", "cosine similarity", height=320 + legend_px, shapes=[before],
                  annotations=[label], override={"margin": {"b": 110 + legend_px}, "legend": {"orientation": "v"}})


# A neighbour's name on the y-axis: at most this many characters (48 took a phone's whole chart), on lines this long.
NAME_CHARS, NAME_LINE = 30, 16


def row_label(name: str) -> str:
    """A neighbour's name as its row label: cut to NAME_CHARS and broken onto lines of NAME_LINE characters,
    so the labels leave the bars room on a phone (one 30-character line took 300 of its 358 px)."""
    return wrapped(short(name, NAME_CHARS), NAME_LINE)


def neighbours_figure(names: list[str], scores: np.ndarray, title: str, x_title: str,
                      groups: list[str] | None = None, y_title: str = "word") -> go.Figure:
    """Horizontal bars, best at the top; one colour per group (e.g. a reference's sense), grey without groups."""
    scores = np.asarray(scores)
    groups = groups or [""] * len(names)
    traces = []
    for n, g in enumerate(dict.fromkeys(groups)):
        idx = [i for i, x in enumerate(groups) if x == g]
        traces.append({"type": "bar", "y": [row_label(names[i]) for i in idx], "x": scores[idx],
                       "orientation": "h",
                       "name": escape(g) or "neighbour",
                       "marker": {"color": SENSE_COLOURS[n % len(SENSE_COLOURS)] if g else palette.NEUTRAL},
                       "hovertemplate": "%{y}: %{x:.3f}<extra></extra>"})
    order = [row_label(names[i]) for i in np.argsort(-scores, kind="stable")]
    lines = max((t.count("<br>") + 1 for t in order), default=1)
    return figure(traces, title, x_title, y_title, height=max(300, (18 * lines + 10) * len(names) + 120),
                  barmode="overlay", override={
        "margin": {"l": text_px(order) + TITLED_LABEL_PAD},
        "yaxis": {"categoryorder": "array", "categoryarray": order[::-1]},
        "xaxis": {"range": [min(0.0, float(scores.min())), 1.0]},
    })
