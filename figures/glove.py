"""Real static vectors on a map: GloVe words projected onto their first two principal axes."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from . import palette
from ._layout import figure, label_places
from .text import plotly_literal as escape

# Groups keep one colour each; an ambiguous word wears the neutral grey of static vectors.
GROUP_COLOURS = [palette.VALUE, palette.QUERY, palette.KEY, palette.SCALED, palette.SCORES]


def glove_pca_figure(words: list[str], coords: np.ndarray, groups: list[str],
                     title: str = "Real GloVe vectors on a 2-D map", ambiguous: str = "ambiguous") -> go.Figure:
    """One labelled point per word at coords [n, 2], one trace (colour) per group, in first-seen order.

    Labels are HTML-escaped: plotly renders a subset of HTML in text.
    """
    coords = np.asarray(coords, dtype=float)
    if coords.shape != (len(words), 2) or len(groups) != len(words):
        raise ValueError(f"Need one (x, y) and one group per word, got {coords.shape} for {len(words)} words.")
    colours = iter(GROUP_COLOURS * 4)
    places = label_places(coords[:, 0], coords[:, 1], list(words))
    traces = []
    for group in dict.fromkeys(groups):
        idx = [i for i, g in enumerate(groups) if g == group]
        colour = palette.NEUTRAL if group == ambiguous else next(colours)
        traces.append({
            "type": "scatter", "x": coords[idx, 0], "y": coords[idx, 1], "mode": "markers+text", "name": escape(group),
            "text": [escape(words[i]) for i in idx], "textposition": [places[i] for i in idx],
            "marker": {"color": colour, "size": 14 if group == ambiguous else 10,
                       "symbol": "star" if group == ambiguous else "circle"},
            "hovertemplate": "%{text}<br>(%{x:.2f}, %{y:.2f})<extra></extra>",
        })
    return figure(traces, title, "principal axis 1", "principal axis 2", height=420,
                  override={"margin": {"b": 128}})                 # two legend rows
