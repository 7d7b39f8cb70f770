"""Figures for multi-head attention: each head's weights side by side, the head blocks of a matrix, the
12 heads of a real layer as small multiples, and what one layer costs.

Token labels may come from what a learner typed, and Plotly renders a subset of HTML in labels, so
every label is HTML-escaped here. Real-model axes use positions, not token strings, so a repeated
token ("the … the") keeps its own row.
"""

from __future__ import annotations

from html import escape

import numpy as np
import plotly.graph_objects as go

from . import palette
from ._layout import FONT, TITLED_LABEL_PAD, figure, text_px

HEAD_COLOURS = [palette.QUERY, palette.KEY, palette.VALUE, palette.SCALED]


def head_name(h: int) -> str:
    """Head h's label: a square in the head's colour, then "head h+1" in the theme's text colour (the colours
    alone, as text, fall to 3.5:1 and below on a dark background)."""
    return f'<span style="color:{HEAD_COLOURS[h % len(HEAD_COLOURS)]}">■</span> head {h + 1}'


def _axes(n: int, cols: int, gap: float = 0.04, vgap: float = 0.1) -> tuple[dict, list[tuple[str, str]]]:
    """Layout axes for an n-panel grid, ``cols`` to a row, filled row by row from the top left."""
    rows = -(-n // cols)
    width, height = (1 - gap * (cols - 1)) / cols, (1 - vgap * (rows - 1)) / rows
    layout, refs = {}, []
    for i in range(n):
        r, c = divmod(i, cols)
        x0, y1 = c * (width + gap), 1 - r * (height + vgap)
        suffix = "" if i == 0 else str(i + 1)
        # Rounded and clamped: a sum of float steps can land a hair outside [0, 1], which Plotly refuses.
        layout[f"xaxis{suffix}"] = {"domain": [max(0.0, round(x0, 6)), min(1.0, round(x0 + width, 6))],
                                    "anchor": f"y{suffix}"}
        layout[f"yaxis{suffix}"] = {"domain": [max(0.0, round(y1 - height, 6)), min(1.0, round(y1, 6))],
                                    "anchor": f"x{suffix}", "autorange": "reversed"}
        refs.append((f"x{suffix}", f"y{suffix}"))
    return layout, refs


def head_weights_figure(weights: np.ndarray, labels: list[str], title: str) -> go.Figure:
    """weights: [n_heads, T, T], one heatmap per head (row = the word looking, column = the word looked at),
    all on one 0–1 colour scale so the heads can be compared cell by cell.

    The heads stand one above the other, each as wide as the chart, and the colour bar lies under the last:
    side by side (or beside a colour bar), a phone gave a cell 19 px, too narrow for its two-decimal number."""
    weights = np.asarray(weights, dtype=float)
    H = weights.shape[0]
    if weights.shape != (H, len(labels), len(labels)):
        raise ValueError(f"Need [heads, {len(labels)}, {len(labels)}] weights, got {weights.shape}.")
    text = [escape(t) for t in labels]
    panel, gap, top, bottom = 36 * len(labels) + 20, 84, 90, 126     # px: a panel, between panels, margins
    plot_h = H * panel + (H - 1) * gap
    layout, refs = _axes(H, 1, vgap=gap / plot_h)
    traces, notes = [], []
    for h, (x, y) in enumerate(refs):
        layout[f"xaxis{x[1:]}"].update(title={"text": "key (looked at)", "standoff": 6},
                                       fixedrange=True, showgrid=False, zeroline=False)
        layout[f"yaxis{y[1:]}"].update(title={"text": "query", "standoff": 6}, fixedrange=True, showgrid=False,
                                       zeroline=False)
        traces.append({"type": "heatmap", "z": weights[h], "x": text, "y": text, "xaxis": x, "yaxis": y,
                       "zmin": 0.0, "zmax": 1.0, "colorscale": palette.WEIGHT_SCALE, "showscale": h == 0,
                       "colorbar": {"title": {"text": "weight", "side": "right"}, "thickness": 10,
                                    "orientation": "h", "len": 0.6, "x": 0.0, "xanchor": "left",
                                    "y": -60 / plot_h, "yanchor": "top"},
                       "text": np.round(weights[h], 2), "texttemplate": "%{text}",
                       "hovertemplate": f"head {h + 1}: " + "%{y} → %{x}: %{z:.4f}<extra></extra>"})
        dom_x, dom_y = layout[f"xaxis{x[1:]}"]["domain"], layout[f"yaxis{y[1:]}"]["domain"]
        notes.append({"text": f"<b>{head_name(h)}</b>", "xref": "paper", "yref": "paper", "x": dom_x[0],
                      "y": dom_y[1], "xanchor": "left", "yanchor": "bottom", "showarrow": False})
    return figure(traces, title, height=plot_h + top + bottom, legend=False, annotations=notes, **layout,
                  override={"xaxis": {"title": layout["xaxis"]["title"]}, "yaxis": {"title": layout["yaxis"]["title"]},
                            "margin": {"l": text_px(text) + TITLED_LABEL_PAD, "r": 24, "t": top, "b": bottom}})


def blocks_figure(matrix: np.ndarray, row_labels: list[str], col_labels: list[str], n_heads: int,
                  title: str) -> go.Figure:
    """matrix: [T, d_model] with a line between the column blocks of the heads (d_model / n_heads each)."""
    matrix = np.asarray(matrix, dtype=float)
    d = matrix.shape[1]
    top = float(np.abs(matrix).max()) or 1.0
    rows = [escape(t) for t in row_labels]
    heat = {"type": "heatmap", "z": matrix, "x": list(range(d)), "y": rows, "colorscale": palette.DIVERGING_SCALE,
            "zmin": -top, "zmax": top, "text": np.round(matrix, 2), "texttemplate": "%{text}",
            # No colour bar: every cell states its number, and on a phone the eight columns need its width.
            "showscale": False, "hovertemplate": "%{y}, column %{x}: %{z:.4f}<extra></extra>"}
    d_k = d // n_heads
    shapes = [{"type": "line", "x0": b * d_k - 0.5, "x1": b * d_k - 0.5, "xref": "x", "y0": 0, "y1": 1,
               "yref": "y domain", "line": {"color": palette.NEUTRAL, "width": 3}} for b in range(1, n_heads)]
    notes = [{"text": head_name(b), "x": b * d_k + (d_k - 1) / 2, "xref": "x", "y": 1.0, "yref": "y domain",
              "yanchor": "bottom", "showarrow": False} for b in range(n_heads)]
    return figure([heat], title, "dimension (column)", "token", height=300, legend=False, shapes=shapes,
                  annotations=notes,
                  xaxis={"tickvals": list(range(d)), "ticktext": [escape(c) for c in col_labels]},
                  yaxis={"autorange": "reversed"},
                  # The top margin holds the title and, under it, the row of head names: at 70 px a title on
                  # two lines touched "head 1" (Plotly centres the title in the margin).
                  override={"margin": {"l": text_px(rows) + TITLED_LABEL_PAD, "r": 24, "t": 90, "b": 80}})


def real_heads_figure(weights: np.ndarray, tokens: list[str], title: str, marked: int | None = None,
                      target: tuple[int, int] | None = None) -> go.Figure:
    """weights: [12, T, T] of one real layer, as 12 small heatmaps (3 rows of 4), each on its own 0–max scale.
    ``marked``: a query position whose row is outlined in every panel; ``target``: key positions
    start … stop − 1 whose columns are outlined.

    All 12 panels sit on one pair of category axes, side by side with a few blank categories between them:
    Plotly's time to draw the figure, which it does twice on every layer move, is mostly per subplot (axes,
    clip paths, drag layers), and one subplot draws in well under half the time of twelve
    (docs/archive/PERFORMANCE_HISTORY.md, session 11). Panel column c's labels end in c zero-width spaces
    and row r's in r, so each panel keeps its own categories while the hover still reads "3: it"."""
    weights = np.asarray(weights, dtype=np.float32)
    H, T = weights.shape[0], weights.shape[1]
    if weights.shape != (H, len(tokens), len(tokens)):
        raise ValueError(f"Need [heads, {len(tokens)}, {len(tokens)}] weights, got {weights.shape}.")
    cols = 4
    rows = -(-H // cols)
    gap = max(2, -(-T // 5))              # blank categories between panels: room for the panel names above a row
    step = T + gap                        # where panel column c (row r) starts: at category c·step (r·step)
    # Numbered labels keep a repeated token ("the … the") in its own row; T labels per axis instead of a T × T
    # grid of hover texts keeps the 12 panels' JSON small (it is sent again on every rerun).
    pos = [f"{i}: {escape(t)}" for i, t in enumerate(tokens)]
    labels = [[p + "\u200b" * k for p in pos] for k in range(max(cols, rows))]
    blank = iter("\u2009" * (n + 1) for n in range(2 * max(cols, rows) * gap))   # distinct, and never a label
    x_cats = [c for k in range(cols) for c in labels[k] + ([next(blank) for _ in range(gap)] if k < cols - 1 else [])]
    y_cats = [c for k in range(rows) for c in labels[k] + ([next(blank) for _ in range(gap)] if k < rows - 1 else [])]
    # No grid or zero line (the heatmaps cover them), no tick labels (T per panel would not fit), no zoom handles.
    bare = {"showticklabels": False, "ticks": "", "showgrid": False, "zeroline": False, "fixedrange": True,
            "categoryorder": "array"}
    layout = {"xaxis": bare | {"categoryarray": x_cats, "range": [-0.5, len(x_cats) - 0.5]},
              "yaxis": bare | {"categoryarray": y_cats, "range": [len(y_cats) - 0.5, -0.5]}}
    # One heatmap over the grid, not one per panel (twelve on shared axes answered every hover as "head 12"); each
    # panel scaled to its own 0–max, the hover reading head and weight from customdata; gaps NaN, not hovered.
    shade = np.full((len(y_cats), len(x_cats)), np.nan, dtype=np.float32)
    data = np.full((len(y_cats), len(x_cats), 2), np.nan, dtype=np.float32)        # (head number, weight)
    notes, shapes = [], []
    for h in range(H):
        r, c = divmod(h, cols)
        x0, y0 = c * step, r * step
        shade[y0:y0 + T, x0:x0 + T] = weights[h] / max(float(weights[h].max()), 1e-6)
        data[y0:y0 + T, x0:x0 + T, 0], data[y0:y0 + T, x0:x0 + T, 1] = h + 1, weights[h]
        # Positions on a category axis are category numbers: panel h's cell (i, j) is at (x0 + j, y0 + i).
        notes.append({"text": f"head {h + 1}", "xref": "x", "yref": "y", "x": x0 - 0.5, "y": y0 - 0.5,
                      "xanchor": "left", "yanchor": "bottom", "showarrow": False, "font": {"size": FONT}})
        if marked is not None and 0 <= marked < T:
            shapes.append({"type": "rect", "xref": "x", "yref": "y", "x0": x0 - 0.5, "x1": x0 + T - 0.5,
                           "y0": y0 + marked - 0.5, "y1": y0 + marked + 0.5,
                           "line": {"color": palette.SCORES, "width": 1.5}})
        if target is not None and 0 <= target[0] < target[1] <= T:
            shapes.append({"type": "rect", "xref": "x", "yref": "y", "x0": x0 + target[0] - 0.5,
                           "x1": x0 + target[1] - 0.5, "y0": y0 - 0.5, "y1": y0 + T - 0.5,
                           "line": {"color": palette.KEY, "width": 1.5, "dash": "dot"}})
    traces = [{"type": "heatmap", "z": shade, "x": x_cats, "y": y_cats, "customdata": data, "zmin": 0.0,
               "zmax": 1.0,
               "colorscale": palette.WEIGHT_SCALE, "showscale": False, "hoverongaps": False,
               "hovertemplate": "head %{customdata[0]}: %{y} → %{x}: %{customdata[1]:.3f}<extra></extra>"}]
    return figure(traces, title, "key", "query", height=760, legend=False, annotations=notes, shapes=shapes,
                  **layout, override={"xaxis": {"title": {"standoff": 4}}, "yaxis": {"title": {"standoff": 4}},
                                      # Room for the title's lines above the first row's panel names.
                                      "margin": {"l": 40, "r": 20, "t": 84, "b": 44}})


def cost_figure(stages: list[str], one_head: list[int], many_heads: list[int], n_heads: int) -> go.Figure:
    """Multiply-adds per stage for one head of full width against n_heads heads of width d_model / n_heads."""
    # Bars across, the stages down the left: under upright bars, the stage names wrapped into the legend on a
    # phone.
    bars = [{"type": "bar", "orientation": "h", "y": stages, "x": one_head, "name": "1 head, dₖ = d<sub>model</sub>",
             "marker": {"color": palette.NEUTRAL}},
            {"type": "bar", "orientation": "h", "y": stages, "x": many_heads,
             "name": f"{n_heads} heads, dₖ = d<sub>model</sub> / {n_heads}", "marker": {"color": palette.QUERY}}]
    return figure(bars, "Multiply-adds per stage", "multiply-adds", "stage", height=360,
                  barmode="group", yaxis={"autorange": "reversed"},
                  override={"margin": {"l": text_px(stages) + TITLED_LABEL_PAD}})
