"""Figures for masks and cross-attention: masked weights, the patches' weights over the prompt's words,
and the picture with each patch's pull toward one word laid over it.

Words may come from what a learner typed, so every label is HTML-escaped here.
"""

from __future__ import annotations

from html import escape

import numpy as np
import plotly.graph_objects as go

from . import palette
from ._layout import FONT, TITLED_LABEL_PAD, figure, text_px

# Right margin for a vertical colour bar with its title beside it (Plotly grew 72 px to 90–103 px, which lays
# the figure out twice on every draw); bottom margin for rotated word ticks, the axis title and a colour bar.
COLOUR_BAR_R, CROSS_BOTTOM = 108, 164
# The scene: its height and margins in px; the colour bar sits SCENE_BAR_DROP below the lower panel's bottom
# edge (under its axis title).
SCENE_HEIGHT, SCENE_TOP, SCENE_BOTTOM, SCENE_BAR_DROP = 900, 50, 110, 44
SCENE_PLOT_H = SCENE_HEIGHT - SCENE_TOP - SCENE_BOTTOM
BLOCKED = "#bdbdbd"          # a masked cell: light grey, 11:1 under its black "×"


def masked_weights_figure(weights: np.ndarray, mask: np.ndarray | None, row_labels: list[str],
                          col_labels: list[str], title: str) -> go.Figure:
    """weights: [n_q, n_k]; a blocked cell (mask False) shows "×" instead of its 0, so a zero that the mask
    forced reads differently from a weight that merely came out small."""
    weights = np.asarray(weights, dtype=float)
    blocked = np.zeros(weights.shape, dtype=bool) if mask is None else ~np.asarray(mask, dtype=bool)
    text = np.where(blocked, "×", np.char.mod("%.2f", weights))
    rows, cols = [escape(r) for r in row_labels], [escape(c) for c in col_labels]
    heat = {"type": "heatmap", "z": np.where(blocked, np.nan, weights), "x": cols, "y": rows, "zmin": 0.0,
            "zmax": 1.0, "colorscale": palette.WEIGHT_SCALE, "text": text, "texttemplate": "%{text}",
            "colorbar": {"title": {"text": "weight"}, "thickness": 10}, "hoverongaps": False,
            "hovertemplate": "%{y} → %{x}: %{z:.4f}<extra></extra>"}
    # Ranges that end at the cells' edges and no grid lines: the grey behind a blocked cell shows only there.
    n_q, n_k = weights.shape
    return figure([heat], title, "key: the token looked at", "query: the token looking", height=340,
                  xaxis={"range": [-0.5, n_k - 0.5], "showgrid": False, "zeroline": False},
                  yaxis={"range": [n_q - 0.5, -0.5], "showgrid": False, "zeroline": False},
                  # A blocked cell has no colour of its own: the plot's grey shows through, the same in both
                  # themes, so its "×" can be drawn in black (see _layout._cell_text).
                  override={"margin": {"l": text_px(rows) + TITLED_LABEL_PAD, "r": COLOUR_BAR_R, "b": 80},
                            "plot_bgcolor": BLOCKED})


def cross_weights_figure(weights: np.ndarray, patch_labels: list[str], words: list[str]) -> go.Figure:
    """weights: [n_patches, n_words], one row per patch over the prompt's words: not square.

    Sized for a phone: six columns of two-decimal numbers at 14 px need about 240 px, so the patch labels
    stay short (the page passes "r1c1 sky") and the colour bar lies under the plot instead of beside it."""
    weights = np.asarray(weights, dtype=float)
    cols = [f"{j + 1}: {escape(w)}" for j, w in enumerate(words)]
    rows = [escape(p) for p in patch_labels]
    height = max(360, 26 * len(rows) + 160)
    top, ticks = 80, 70 + 24                              # tick labels at −60° (up to "6: yellow") and the title
    plot_h = height - top - CROSS_BOTTOM
    heat = {"type": "heatmap", "z": weights, "x": cols, "y": rows, "zmin": 0.0, "zmax": 1.0,
            "colorscale": palette.WEIGHT_SCALE, "text": np.round(weights, 2), "texttemplate": "%{text}",
            "colorbar": {"title": {"text": "weight", "side": "right"}, "thickness": 10, "orientation": "h",
                         "len": 0.6, "x": 0.0, "xanchor": "left", "y": -ticks / plot_h, "yanchor": "top"},
            "hovertemplate": "%{y} → %{x}: %{z:.4f}<extra></extra>"}
    return figure([heat], f"Patch weights ({weights.shape[0]} × {weights.shape[1]})",
                  "key: a word of the prompt", "query: a patch", height=height,
                  yaxis={"autorange": "reversed"}, xaxis={"tickangle": -60},
                  override={"margin": {"l": text_px(rows) + TITLED_LABEL_PAD, "r": 24, "t": top,
                                       "b": CROSS_BOTTOM}})


def scene_figure(grid: int, colours: list[str], round_: list[bool], weight_on_word: np.ndarray, word: str,
                 top_words: list[str]) -> go.Figure:
    """The picture (left: each patch's colour, a circle where the ball is, and the word it draws on most: tied
    words one per line, "even" for a patch that shares its weight equally)
    and the same grid shaded by every patch's weight on ``word`` (right). Patches run row by row."""
    w = np.asarray(weight_on_word, dtype=float).reshape(grid, grid)
    shapes, notes = [], []
    for i, colour in enumerate(colours):
        r, c = divmod(i, grid)
        shapes.append({"type": "rect", "xref": "x", "yref": "y", "x0": c, "x1": c + 1, "y0": r, "y1": r + 1,
                       "fillcolor": colour, "line": {"color": "#ffffff", "width": 1}, "layer": "below"})
        if round_[i]:
            shapes.append({"type": "circle", "xref": "x", "yref": "y", "x0": c + 0.15, "x1": c + 0.85,
                           "y0": r + 0.15, "y1": r + 0.85, "line": {"color": "#ffffff", "width": 2}})
        label = "even" if top_words[i] == "(even)" else "<br>".join(escape(w) for w in top_words[i].split(" / "))
        notes.append({"text": label, "x": c + 0.5, "y": r + 0.5, "xref": "x", "yref": "y",
                      "showarrow": False, "font": {"color": "#000000", "size": FONT},
                      "bgcolor": "rgba(255,255,255,0.7)"})
    centres = [k + 0.5 for k in range(grid)]
    heat = {"type": "heatmap", "z": w, "x": centres, "y": centres, "xaxis": "x2", "yaxis": "y2", "zmin": 0.0,
            "zmax": 1.0, "colorscale": palette.WEIGHT_SCALE, "text": np.round(w, 2), "texttemplate": "%{text}",
            # Under the lower panel, not beside it: a bar at the side took 108 px of a phone's width from both.
            "colorbar": {"title": {"text": "weight", "side": "right"}, "thickness": 10, "orientation": "h",
                         "len": 0.6, "x": 0.0, "xanchor": "left", "y": -SCENE_BAR_DROP / SCENE_PLOT_H,
                         "yanchor": "top"},
            "hovertemplate": "patch weight on the word: %{z:.4f}<extra></extra>"}
    axis = {"range": [0, grid], "showticklabels": False, "showgrid": False, "zeroline": False, "ticks": "",
            "fixedrange": True, "constrain": "domain"}           # square patches: the panel narrows, not the grid
    across, down = {"text": "patch column", "standoff": 4}, {"text": "patch row", "standoff": 4}
    # The picture above its weights, not beside them: side by side, a phone gave each patch 35 px, too narrow
    # for its word. Each panel is square (scaleanchor): tall enough that on a desktop a panel is about 340 px
    # wide (85 px a patch, room for "red ball"), while on a phone the width decides and little height is left over.
    return figure([heat], f"Weight on “{escape(word)}”", height=SCENE_HEIGHT,
                  legend=False,
                  shapes=shapes, annotations=notes,
                  xaxis2={**axis, "anchor": "y2", "title": across},
                  yaxis2={**axis, "range": [grid, 0], "anchor": "x2", "scaleanchor": "x2", "title": down,
                          "domain": [0.0, 0.46]},
                  override={"xaxis": {**axis, "title": across},
                            "yaxis": {**axis, "range": [grid, 0], "scaleanchor": "x", "title": down,
                                      "domain": [0.54, 1.0]},
                            "margin": {"l": 36, "r": 24, "t": SCENE_TOP, "b": SCENE_BOTTOM}})
