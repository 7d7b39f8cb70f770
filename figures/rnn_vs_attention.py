"""Figures for RNN versus attention: the shrinking bound, measured influence against distance, path lengths."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from . import palette
from ._layout import figure, hline, log_axis, vline

MARKED = 40                                               # tokens up to which each gets its own marker
FLOOR = 1e-300                                            # log axes cannot show 0; values below are drawn here


def _line(x, y, name: str, line: dict) -> dict:
    """A plain line trace."""
    return {"type": "scatter", "x": x, "y": y, "mode": "lines", "name": name, "line": line}


def bound_figure(distance: np.ndarray, rnn_bound: np.ndarray, attention_bound: float) -> go.Figure:
    """‖J‖ᵈ against distance d (log y) for the chain, and the one-step bound ‖J‖¹ for attention at every d."""
    traces = [
        _line(distance, np.maximum(rnn_bound, FLOOR), "RNN: ‖J‖<sup>d</sup> (d steps)",
              {"color": palette.SCORES, "width": 3}),
        _line(distance, np.full(len(distance), max(attention_bound, FLOOR)), "attention: ‖J‖¹ (one step)",
              {"color": palette.WEIGHTS, "width": 3, "dash": "dash"}),
    ]
    return figure(traces, "The chain's upper bound", "distance d (tokens apart)", "bound", height=340,
                  yaxis=log_axis(*(t["y"] for t in traces)))


def influence_figure(distance: np.ndarray, rnn: np.ndarray, attention: np.ndarray, ceiling: np.ndarray
                     ) -> go.Figure:
    """Measured ‖∂h_T/∂x_j‖ (RNN) and ‖∂z_T/∂x_j‖ (attention) against distance T − j, with the RNN's bound.

    One marker per token up to MARKED tokens; beyond that a line through them (Plotly draws each marker as
    its own SVG element, and hundreds of them cost more to draw than they show)."""
    mode = "markers" if len(distance) <= MARKED else "lines"
    traces = [
        {"type": "scatter", "x": distance, "y": np.maximum(rnn, FLOOR), "mode": mode,
         "name": "RNN ‖∂h<sub>T</sub>/∂x<sub>j</sub>‖",
         "marker": {"color": palette.SCORES, "size": 5}, "line": {"width": 2}},
        {"type": "scatter", "x": distance, "y": np.maximum(attention, FLOOR), "mode": mode,
         "name": "attention ‖∂z<sub>T</sub>/∂x<sub>j</sub>‖",
         "marker": {"color": palette.WEIGHTS, "size": 5, "symbol": "diamond"},
         "line": {"width": 2}},
        _line(distance, np.maximum(ceiling, FLOOR), "RNN bound ‖W<sub>xh</sub>‖·‖J‖<sup>d</sup>",
              {"color": palette.NEUTRAL, "dash": "dot"}),
    ]
    return figure(traces, "Reach of each token", "distance T − j", "gradient norm",
                  height=360, yaxis=log_axis(*(t["y"] for t in traces)), override={"margin": {"l": 92, "b": 120}})


def path_figure(lengths: np.ndarray, rnn_path: np.ndarray, attention_path: np.ndarray) -> go.Figure:
    """Steps from the first token to the last against sequence length: N − 1 for the chain, 1 for attention.

    It does not mark the page's current length: the same figure for every T means the browser keeps the
    chart drawn while the slider moves (a changed figure is a new chart to Streamlit)."""
    traces = [
        _line(lengths, rnn_path, "RNN: O(N)", {"color": palette.SCORES, "width": 3}),
        _line(lengths, attention_path, "attention: O(1)", {"color": palette.WEIGHTS, "width": 3}),
    ]
    return figure(traces, "Steps from token 1 to N", "sequence length N", "steps", height=320)


def lstm_figure(distance: np.ndarray, rnn: np.ndarray, lstm: np.ndarray, attention: np.ndarray) -> go.Figure:
    """Measured gradient norm from each token to the last position against distance (log y): the tanh RNN,
    the LSTM (its whole state, h and the cell c) and one attention head, on the same sequence length."""
    mode = "markers" if len(distance) <= MARKED else "lines"
    traces = [
        {"type": "scatter", "x": distance, "y": np.maximum(rnn, FLOOR), "mode": mode, "name": "RNN (tanh)",
         "marker": {"color": palette.SCORES, "size": 5}, "line": {"width": 2}},
        {"type": "scatter", "x": distance, "y": np.maximum(lstm, FLOOR), "mode": mode, "name": "LSTM",
         "marker": {"color": palette.KEY, "size": 5, "symbol": "square"}, "line": {"width": 3, "dash": "dash"}},
        {"type": "scatter", "x": distance, "y": np.maximum(attention, FLOOR), "mode": mode, "name": "attention",
         "marker": {"color": palette.WEIGHTS, "size": 5, "symbol": "diamond"}, "line": {"width": 2}},
    ]
    return figure(traces, "Reach of each token", "distance T − j", "gradient norm",
                  height=360, yaxis=log_axis(*(t["y"] for t in traces)), override={"margin": {"l": 92, "b": 120}})


def recall_figure(pairs: np.ndarray, additive: np.ndarray, least_squares: np.ndarray, attention: np.ndarray, d: int,
                  k: int | None = None, at_k: tuple[float, float, float] | None = None) -> go.Figure:
    """Recall accuracy against the number of stored pairs k (log x): a state of d numbers written by addition
    (as an LSTM cell does), the least-squares state of d numbers (``least_squares``: one good state, not a bound on
    every state), and attention over every stored pair; k = d marked, and the learner's own k (with the three
    recalls there, ``at_k``: additive, least-squares, attention) when given."""
    traces = [
        _line(pairs, additive, "LSTM cell: k pairs added into d numbers", {"color": palette.KEY, "width": 3}),
        _line(pairs, least_squares, "least-squares state of d numbers",
              {"color": palette.SCORES, "width": 2, "dash": "dot"}),
        _line(pairs, attention, "attention: all k pairs kept", {"color": palette.WEIGHTS, "width": 3,
                                                                  "dash": "dash"}),
    ]
    marks = []
    if k is not None:
        marks.append(vline(k, {"color": palette.QUERY, "width": 2}))
        if at_k is not None:
            traces.append({"type": "scatter", "x": [k] * 3, "y": list(at_k), "mode": "markers",
                           "name": f"your k = {k}", "showlegend": False,
                           "marker": {"color": [palette.KEY, palette.SCORES, palette.WEIGHTS], "size": 11,
                                      "line": {"color": palette.QUERY, "width": 2}},
                           "customdata": ["LSTM cell", "least-squares state", "attention"],
                           "hovertemplate": "%{customdata} at k = %{x}: %{y:.0%}<extra></extra>"})
    return figure(traces, f"Recall, d = {d} numbers", "stored pairs k",
                  "fraction recalled", height=340, yaxis={"range": [0.4, 1.03]},
                  xaxis={"type": "log", "tickvals": [2 ** p for p in range(12) if 2 ** p <= max(pairs[-1], d)]},
                  shapes=[vline(d, {"color": palette.NEUTRAL, "dash": "dot"}),
                          hline(0.5, {"color": palette.NEUTRAL, "width": 1}), *marks],
                  # Both labels sit beside their line, and the learner's above the plot, clear of the curves; in
                  # the theme's text colour (the line's blue as text reads poorly on a dark background).
                  annotations=[{"x": np.log10(d), "y": 0.45, "xref": "x", "yref": "y", "text": "k = d",
                                "showarrow": False, "xanchor": "left", "xshift": 4},
                               *([{"x": np.log10(k), "y": 1.0, "xref": "x", "yref": "y domain",
                                   "text": f"your k = {k}", "showarrow": False,
                                   "xanchor": "right" if k > d else "left", "xshift": -4 if k > d else 4,
                                   "yanchor": "bottom"}] if k is not None else []),
                               {"x": 0, "y": 0.5, "xref": "x domain", "yref": "y", "text": "guessing",
                                "showarrow": False, "yanchor": "bottom", "xanchor": "left"}],
                  override={"margin": {"b": 138}})        # three legend entries may take two rows
