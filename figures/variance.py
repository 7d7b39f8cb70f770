"""Figures for the √d_k lab: pre-binned histograms against bell curves, softmax rows, sweeps over d_k, saturation."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from attention_core import Histogram

from . import palette
from ._layout import tidy


def histogram_figure(hist: Histogram, curve_x: np.ndarray, curve_y: np.ndarray, curve_name: str, title: str,
                     x_title: str, colour: str = palette.SCORES) -> go.Figure:
    """Bars of a pre-binned density (never the raw samples) with the reference density drawn over them."""
    fig = go.Figure([
        go.Bar(x=hist.centres, y=hist.density, width=hist.width, name="measured", marker={"color": colour},
               opacity=0.75, hovertemplate="%{x:.3g}: %{y:.3g}<extra></extra>"),
        go.Scatter(x=curve_x, y=curve_y, mode="lines", name=curve_name, line={"color": palette.NEUTRAL, "width": 2}),
    ])
    fig.update_layout(bargap=0)
    return tidy(fig, title, x_title, "density", height=320)


def weights_figure(raw: np.ndarray, scaled: np.ndarray) -> go.Figure:
    """One row of softmax weights over the keys, from unscaled and from scaled scores, side by side."""
    keys = [f"k{j + 1}" for j in range(len(raw))]
    fig = go.Figure([
        go.Bar(x=keys, y=raw, name="softmax(q·k)", marker={"color": palette.SCORES}),
        go.Bar(x=keys, y=scaled, name="softmax(q·k / √dₖ)", marker={"color": palette.SCALED}),
    ])
    fig.update_yaxes(range=[0, 1.05])
    return tidy(fig, "One query's weights over its keys", "key", "weight", height=320)


def sweep_figure(d_ks: np.ndarray, raw: np.ndarray, scaled: np.ndarray, title: str, y_title: str,
                 log_y: bool = False) -> go.Figure:
    """A quantity against d_k (log scale), unscaled and scaled. It does not depend on the slider, so a page
    can build it once per seed."""
    fig = go.Figure([
        go.Scatter(x=d_ks, y=raw, mode="lines+markers", name="unscaled", line={"color": palette.SCORES}),
        go.Scatter(x=d_ks, y=scaled, mode="lines+markers", name="÷ √dₖ", line={"color": palette.SCALED}),
    ])
    fig.update_xaxes(type="log", dtick=np.log10(4))
    if log_y:
        fig.update_yaxes(type="log", exponentformat="power")
    return tidy(fig, title, "dₖ (log scale)", y_title, height=320)


def saturation_figure(x: np.ndarray, s: np.ndarray, slope: np.ndarray, spread_raw: float, spread_scaled: float
                      ) -> go.Figure:
    """S(x) and its slope S(1 − S), with the typical spread of a score gap shaded, unscaled and scaled."""
    fig = go.Figure([
        go.Scatter(x=x, y=s, mode="lines", name="S(x)", line={"color": palette.WEIGHTS, "width": 3}),
        go.Scatter(x=x, y=slope, mode="lines", name="slope S(1 − S)", line={"color": palette.SCORES, "width": 3}),
    ])
    fig.add_vrect(x0=-spread_raw, x1=spread_raw, fillcolor=palette.SCORES, opacity=0.08, line_width=0)
    fig.add_vrect(x0=-spread_scaled, x1=spread_scaled, fillcolor=palette.SCALED, opacity=0.18, line_width=0)
    fig.update_yaxes(range=[-0.02, 1.05])
    return tidy(fig, "Saturation: where the slope of S dies", "score gap x", "", height=340)
