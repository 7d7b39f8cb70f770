"""Figures for tiled attention: the score grid filled block by block, the running max and sum, the traffic."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from . import palette
from ._layout import figure, log_axis, vline


def tile_grid_figure(seen: np.ndarray, start: int, stop: int, q_labels: list[str], k_labels: list[str]
                     ) -> go.Figure:
    """The scores computed so far ([n_q, n_k], NaN where no block has reached yet or a key is masked),
    with the current block of keys [start, stop) outlined."""
    n_q = seen.shape[0]
    finite = seen[np.isfinite(seen)]
    reach = float(np.abs(finite).max()) if finite.size else 1.0
    # The hover says what a blank cell is, never "NaN": a key past the current block is not computed yet; a blank
    # one before it is masked.
    reached = np.arange(seen.shape[1])[None, :] < stop                                  # [1, n_k]
    said = np.where(np.isfinite(seen), np.char.mod("%.4g", np.where(np.isfinite(seen), seen, 0.0)),
                    np.where(reached, "masked, never computed", "not computed yet"))
    traces = [{
        "type": "heatmap", "z": np.where(np.isfinite(seen), seen, np.nan), "x": k_labels, "y": q_labels,
        "customdata": said, "colorscale": palette.DIVERGING_SCALE, "zmin": -reach, "zmax": reach, "xgap": 1,
        "ygap": 1, "colorbar": {"title": {"text": "score"}, "thickness": 12},
        "hovertemplate": "%{y}, %{x}: %{customdata}<extra></extra>",
    }]
    box = {"type": "rect", "x0": start - 0.5, "x1": stop - 0.5, "y0": -0.5, "y1": n_q - 0.5, "xref": "x",
           "yref": "y", "line": {"color": palette.KEY, "width": 4}}
    return figure(traces, f"Scores; block k{start + 1}–k{stop}", "keys",
                  "queries", height=300, legend=False, shapes=[box],
                  yaxis={"autorange": "reversed", "type": "category"}, xaxis={"type": "category"},
                  # room for the colour bar, so Plotly need not grow the margin (a second layout per draw)
                  override={"margin": {"r": 110, "b": 90}})


def running_figure(m: np.ndarray, l: np.ndarray, current: int, query: str) -> go.Figure:
    """One query's running max m and running sum ℓ after each block (1 … n), the current block marked."""
    blocks = np.arange(1, len(m) + 1)
    traces = [
        {"type": "scatter", "x": blocks, "y": m, "mode": "lines+markers", "name": "running max m",
         "line": {"color": palette.SCORES, "width": 3, "shape": "hv"}},
        {"type": "scatter", "x": blocks, "y": l, "mode": "lines+markers", "name": "running sum ℓ", "yaxis": "y2",
         "line": {"color": palette.WEIGHTS, "width": 3, "dash": "dash"}, "marker": {"symbol": "diamond"}},
    ]
    for trace in traces:                # a marker on the top or bottom edge is drawn whole, not cut in half
        trace["cliponaxis"] = False
    return figure(traces, f"{query}: running m and ℓ", "block", "m", height=300,
                  shapes=[vline(current, {"color": palette.KEY, "width": 2, "dash": "dot"})],
                  xaxis={"dtick": 1 if len(m) <= 12 else None},
                  # Ticks of its own (Plotly lined them up with m's, at 0.141, 0.86, 1.579 …), no second grid, and
                  # a title that reads as ℓ (turned on its side, "ℓ" alone looked like "~").
                  yaxis2={"title": {"text": "sum ℓ"}, "overlaying": "y", "side": "right", "rangemode": "tozero",
                          "tickmode": "auto", "nticks": 5, "showgrid": False},
                  override={"margin": {"r": 96, "b": 158}})  # the ℓ axis and the legend, without automargin


def _short(n: int) -> str:
    """A power-of-two length as context lengths are written: 256, 1K, 4K, 16K (K = 1,024)."""
    return f"{n // 1024}K" if n >= 1024 else str(n)


def traffic_figure(lengths: np.ndarray, standard: np.ndarray, tiled: np.ndarray, current: int) -> go.Figure:
    """Bytes moved to and from main memory against sequence length N (log–log), plain against tiled."""
    traces = [
        {"type": "scatter", "x": lengths, "y": standard, "mode": "lines+markers", "name": "plain attention",
         "line": {"color": palette.SCORES, "width": 3}},
        {"type": "scatter", "x": lengths, "y": tiled, "mode": "lines+markers", "name": "tiled (FlashAttention)",
         "line": {"color": palette.VALUE, "width": 3, "dash": "dash"}, "marker": {"symbol": "diamond"}},
    ]
    # Every other power of two on N, written as context lengths are (4K = 4,096): seven five-character labels
    # collided at presenter size, and "1,024 4,096 16,384" still did in a half-width column at 1024 px.
    ticks = [int(n) for n in lengths if int(n) & (int(n) - 1) == 0 and int(np.log2(n)) % 2 == 0]
    return figure(traces, "Main-memory traffic", "length N (1K = 1,024)",
                  "bytes", height=320,
                  xaxis={"type": "log", "tickvals": ticks, "ticktext": [_short(n) for n in ticks]},
                  yaxis=log_axis(standard, tiled),
                  shapes=[vline(current, {"color": palette.NEUTRAL, "width": 2, "dash": "dot"})],
                  override={"margin": {"b": 144}})     # the legend under the ticks, without automargin


def block_figure(blocks: np.ndarray, tiled: np.ndarray, standard: float, fits: np.ndarray) -> go.Figure:
    """Tiled traffic against the key block size B_c (bars; hatched where the blocks overflow on-chip memory),
    with the plain algorithm's traffic as a line."""
    labels = [str(int(b)) for b in blocks]
    traces = [
        {"type": "bar", "x": labels, "y": tiled, "name": "tiled (FlashAttention)",
         "marker": {"color": palette.VALUE, "pattern": {"shape": ["" if f else "/" for f in fits]}},
         "hovertemplate": "B<sub>c</sub> = %{x}: %{y:.3s}B<extra></extra>"},
        {"type": "scatter", "x": labels, "y": np.full(len(blocks), float(standard)), "mode": "lines",
         "name": "plain attention", "line": {"color": palette.SCORES, "width": 3}},
    ]
    return figure(traces, "Traffic by block size", "key block size B<sub>c</sub>", "bytes", height=320,
                  yaxis=log_axis(tiled, standard), xaxis={"type": "category"}, override={"margin": {"b": 144}})
