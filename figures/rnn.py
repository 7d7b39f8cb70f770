"""Figures for RNN versus attention: the shrinking bound, measured influence against distance, path lengths."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from . import palette
from ._layout import tidy

FLOOR = 1e-300                                            # log axes cannot show 0; values below are drawn here


def bound_figure(distance: np.ndarray, rnn_bound: np.ndarray, attention_bound: float) -> go.Figure:
    """‖J‖^d against distance d (log y) for the chain, and the one-step bound ‖J‖¹ for attention at every d."""
    fig = go.Figure([
        go.Scatter(x=distance, y=np.maximum(rnn_bound, FLOOR), mode="lines", name="RNN: ‖J‖^d (d steps)",
                   line={"color": palette.SCORES, "width": 3}),
        go.Scatter(x=distance, y=np.full(len(distance), max(attention_bound, FLOOR)), mode="lines",
                   name="attention: ‖J‖¹ (one step)", line={"color": palette.WEIGHTS, "width": 3, "dash": "dash"}),
    ])
    fig.update_yaxes(type="log", exponentformat="power")
    fig = tidy(fig, "Upper bound on what survives the trip", "distance d (tokens apart)", "bound", height=340)
    return fig


def influence_figure(distance: np.ndarray, rnn: np.ndarray, attention: np.ndarray, ceiling: np.ndarray
                     ) -> go.Figure:
    """Measured ‖∂h_T/∂x_j‖ (RNN) and ‖∂z_T/∂x_j‖ (attention) against distance T − j, with the RNN's bound."""
    fig = go.Figure([
        go.Scatter(x=distance, y=np.maximum(rnn, FLOOR), mode="markers", name="RNN ‖∂h_T/∂x_j‖",
                   marker={"color": palette.SCORES, "size": 5}),
        go.Scatter(x=distance, y=np.maximum(attention, FLOOR), mode="markers", name="attention ‖∂z_T/∂x_j‖",
                   marker={"color": palette.WEIGHTS, "size": 5, "symbol": "diamond"}),
        go.Scatter(x=distance, y=np.maximum(ceiling, FLOOR), mode="lines", name="RNN bound ‖W_xh‖·‖J‖^d",
                   line={"color": palette.NEUTRAL, "dash": "dot"}),
    ])
    fig.update_yaxes(type="log", exponentformat="power")
    fig = tidy(fig, "How much each token still moves the last position", "distance T − j", "gradient norm", height=360)
    return fig


def path_figure(lengths: np.ndarray, rnn_path: np.ndarray, attention_path: np.ndarray, current: int) -> go.Figure:
    """Steps from the first token to the last against sequence length: N − 1 for the chain, 1 for attention."""
    fig = go.Figure([
        go.Scatter(x=lengths, y=rnn_path, mode="lines", name="RNN: O(N)", line={"color": palette.SCORES, "width": 3}),
        go.Scatter(x=lengths, y=attention_path, mode="lines", name="attention: O(1)",
                   line={"color": palette.WEIGHTS, "width": 3}),
    ])
    fig.add_vline(x=current, line={"color": palette.NEUTRAL, "dash": "dot"})
    return tidy(fig, "Path length from token 1 to token N", "sequence length N", "steps", height=320)
