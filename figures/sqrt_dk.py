"""Figures for the √d_k lab: pre-binned histograms against bell curves, softmax rows, sweeps over d_k, saturation."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from attention_core import Histogram

from . import palette
from ._layout import figure, log_axis, vrect


def histogram_figure(hist: Histogram, curve_x: np.ndarray, curve_y: np.ndarray, curve_name: str, title: str,
                     x_title: str, colour: str = palette.SCORES) -> go.Figure:
    """Bars of a pre-binned density (never the raw samples) with the reference density drawn over them."""
    traces = [
        {"type": "bar", "x": hist.centres, "y": hist.density, "width": hist.width, "name": "measured",
         "marker": {"color": colour}, "opacity": 0.75, "hovertemplate": "%{x:.3g}: %{y:.3g}<extra></extra>"},
        {"type": "scatter", "x": curve_x, "y": curve_y, "mode": "lines", "name": curve_name,
         "line": {"color": palette.NEUTRAL, "width": 2}},
    ]
    return figure(traces, title, x_title, "density", height=320, bargap=0)


def weights_figure(raw: np.ndarray, scaled: np.ndarray) -> go.Figure:
    """One row of softmax weights over the keys, from unscaled and from scaled scores, side by side."""
    keys = [f"k{j + 1}" for j in range(len(raw))]
    traces = [
        {"type": "bar", "x": keys, "y": raw, "name": "softmax(q·k)", "marker": {"color": palette.SCORES}},
        {"type": "bar", "x": keys, "y": scaled, "name": "softmax(q·k / √dₖ)", "marker": {"color": palette.SCALED}},
    ]
    return figure(traces, "One query's weights over its keys", "key", "weight", height=320, yaxis={"range": [0, 1.05]})


def sweep_figure(d_ks: np.ndarray, raw: np.ndarray, scaled: np.ndarray, title: str, y_title: str,
                 log_y: bool = False) -> go.Figure:
    """A quantity against d_k (log scale), unscaled and scaled. It does not depend on the slider, so a page
    can build it once per seed."""
    traces = [
        {"type": "scatter", "x": d_ks, "y": raw, "mode": "lines+markers", "name": "unscaled",
         "line": {"color": palette.SCORES}},
        {"type": "scatter", "x": d_ks, "y": scaled, "mode": "lines+markers", "name": "÷ √dₖ",
         "line": {"color": palette.SCALED}},
    ]
    yaxis = log_axis(raw, scaled) if log_y else {}
    return figure(traces, title, "dₖ (log scale)", y_title, height=320,
                  xaxis={"type": "log", "dtick": np.log10(4)}, yaxis=yaxis)


def saturation_figure(x: np.ndarray, s: np.ndarray, slope: np.ndarray, spread_raw: float, spread_scaled: float
                      ) -> go.Figure:
    """S(x) and its slope S(1 − S), with the typical spread of a score gap shaded, unscaled and scaled."""
    traces = [
        {"type": "scatter", "x": x, "y": s, "mode": "lines", "name": "S(x)",
         "line": {"color": palette.WEIGHTS, "width": 3}},
        {"type": "scatter", "x": x, "y": slope, "mode": "lines", "name": "slope S(1 − S)",
         "line": {"color": palette.SCORES, "width": 3}},
    ]
    bands = [vrect(-spread_raw, spread_raw, palette.SCORES, 0.14),
             vrect(-spread_scaled, spread_scaled, palette.SCALED, 0.35)]
    return figure(traces, "Saturation: where the slope of S dies", "score gap x", "S(x) and its slope", height=340,
                  shapes=bands, yaxis={"range": [-0.02, 1.05]})
