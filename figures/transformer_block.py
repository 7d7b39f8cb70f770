"""Figures for the transformer-block lesson: each stage's per-token norms, a few dimensions of one stage's
vectors, and a measure per layer for the full model against one with a part switched off.

Token labels come from what a learner typed, so every label goes through figures.text.plotly_literal.
Rows are unique ("3: bank"), never the bare token: a sentence may repeat one.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from . import palette
from ._layout import TITLED_LABEL_PAD, figure, text_px
from .real_model_lab import ROW_PX, labels

LINE_COLOURS = [palette.QUERY, palette.SCORES]                       # the full model, then the ablated one


def _rows(tokens: list[str]) -> list[str]:
    return [f"{i}: {t}" for i, t in enumerate(labels(tokens))]


def _height(T: int) -> int:
    return int(min(max(300, ROW_PX * T + 180), 1400))


FLOOR = 1e-3                        # lengths drawn on a log colour scale from here (a skipped stage is 0)


def stage_norms_figure(norms: np.ndarray, tokens: list[str], stage_labels: list[str], title: str) -> go.Figure:
    """norms [T, S]: each token's vector length (row) at each stage of the block (column), coloured by its log:
    one long vector ([CLS] after the feed-forward, or any vector without LayerNorm) would wash a linear scale
    out. The hover gives each exact length. ``stage_labels`` are short ("LN 1"): seven columns fit a phone."""
    norms = np.asarray(norms, dtype=np.float64)
    rows = _rows(tokens)
    if norms.shape != (len(tokens), len(stage_labels)):
        raise ValueError(f"Need [{len(tokens)}, {len(stage_labels)}] norms, got {norms.shape}.")
    logs = np.log10(np.maximum(np.nan_to_num(norms, nan=FLOOR, posinf=1e30), FLOOR))
    lo, hi = int(np.floor(logs.min())), int(np.ceil(logs.max()))
    hi = max(hi, lo + 1)
    ticks = list(range(lo, hi + 1, max(1, -(-(hi - lo) // 5))))
    heat = {"type": "heatmap", "z": logs, "x": list(stage_labels), "y": rows, "colorscale": palette.WEIGHT_SCALE,
            "zmin": float(lo), "zmax": float(hi), "customdata": norms,
            "hovertemplate": "%{y}, %{x}: length %{customdata:.3g}<extra></extra>",
            "colorbar": {"title": {"text": "length"}, "thickness": 10, "xpad": 2, "tickvals": ticks,
                         "ticktext": [_power(t) for t in ticks]}}
    return figure([heat], title, "stage of the block", "token", height=_height(len(tokens)), override={
        "yaxis": {"autorange": "reversed"},
        "margin": {"l": text_px(rows) + TITLED_LABEL_PAD, "r": 96},
    })


def _power(exponent: int) -> str:
    """10 to a whole power as a tick label: 0.01, 0.1, 1, 10, 100, 1000, then 10⁴."""
    if -2 <= exponent <= 3:
        return f"{10.0 ** exponent:g}"
    return "10" + str(exponent).translate(str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹"))


def stage_vectors_figure(X: np.ndarray, tokens: list[str], title: str) -> go.Figure:
    """X [T, k]: the first k numbers of every token's vector at one stage, blue above 0, red below."""
    X = np.asarray(X, dtype=np.float64)
    rows = _rows(tokens)
    if X.ndim != 2 or X.shape[0] != len(tokens):
        raise ValueError(f"Need [{len(tokens)}, k] values, got {X.shape}.")
    top = float(np.nanmax(np.abs(X))) if np.isfinite(X).any() else 1.0
    heat = {"type": "heatmap", "z": X, "x": list(range(X.shape[1])), "y": rows,
            "colorscale": palette.DIVERGING_SCALE, "zmid": 0.0, "zmin": -max(top, 1e-6), "zmax": max(top, 1e-6),
            "hovertemplate": "%{y}, dimension %{x}: %{z:.3g}<extra></extra>",
            "colorbar": {"title": {"text": "value"}, "thickness": 10, "xpad": 2}}
    return figure([heat], title, "dimension", "token", height=_height(len(tokens)), override={
        "yaxis": {"autorange": "reversed"},
        "xaxis": {"dtick": 5},
        "margin": {"l": text_px(rows) + TITLED_LABEL_PAD, "r": 96},
    })


def by_layer_figure(layer_labels: list[str], curves: dict[str, np.ndarray], title: str, y_title: str) -> go.Figure:
    """One line per model (the full one first): a measure at each layer, on a cosine axis from −1 or 0 to 1."""
    traces = [{"type": "scatter", "x": list(layer_labels), "y": np.asarray(v, dtype=np.float64),
               "mode": "lines+markers", "name": name,
               "line": {"color": LINE_COLOURS[n % len(LINE_COLOURS)], "width": 3,
                        "dash": "solid" if n == 0 else "dash"},
               "marker": {"symbol": "circle" if n == 0 else "square", "size": 8},
               "hovertemplate": f"{name}<br>%{{x}}: %{{y:.3f}}<extra></extra>"}
              for n, (name, v) in enumerate(curves.items())]
    values = np.concatenate([np.asarray(v, dtype=np.float64) for v in curves.values()])
    low = float(np.nanmin(values)) if np.isfinite(values).any() else 0.0
    return figure(traces, title, "layer", y_title, height=340, legend=True,
                  override={"yaxis": {"range": [min(0.0, low) - 0.05, 1.05]}})
