"""The first look's animation: one sentence through one layer, stage by stage, as Plotly animation frames.

One figure, two panels side by side on one row per token: the token's numbers as colours (left) and one
number per token as a bar (right), then one row for the same word in the other sentence. Each stage is a
frame; Play / Pause and a slider run in the browser, so playing or scrubbing never reruns the page.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from . import palette
from ._layout import FONT, LABEL_PAD, MARGIN, TITLE_FONT, figure, text_px, title_lines, wrapped
from .real_model_lab import labels

ROW_PX = 26                        # px per token row
AXIS_CHARS = 18                    # an axis title's longest line: each panel is about 130 px wide on a phone
COLOUR_SHARE = 98                  # the colours span this percentile of |number|: a few huge numbers (the
                                   # model has some) would otherwise leave every other cell white
CAPTION_CHARS = 34                 # a caption's longest line: fits a 390 px phone at the title's size
CAPTION_LINE = 22                  # px per caption line
CONTROLS_PX = 220                  # under the plot: the x-axis titles, the Play / Pause buttons and the slider
AXES_PX = 76                       # under a still plot: the x-axis titles alone
FRAME_MS = 1600                    # how long Play shows each stage


def _caption(text: str) -> dict:
    """A stage's caption as the chart's title (Plotly's own vertical place keeps every line in the top margin)."""
    return {"text": title_lines(text, CAPTION_CHARS), "x": 0.0, "xanchor": "left", "font": {"size": TITLE_FONT}}


def _bar_range(values: np.ndarray) -> list[float]:
    """The bar axis: from 0 (or the lowest value, when below 0) to a little past the largest."""
    finite = values[np.isfinite(values)]
    lo = min(0.0, float(finite.min())) if finite.size else 0.0
    hi = max(float(finite.max()), 0.0) if finite.size else 1.0
    span = max(hi - lo, 1e-9)
    return [lo - 0.08 * span * (lo < 0), hi + 0.08 * span]


def _traces(heat: np.ndarray, bars: np.ndarray, word_row: int) -> list[dict]:
    """The stage's heatmap (axes x, y) and bars (x2, y), the followed word's bar in the query colour."""
    limit = max(float(np.nanpercentile(np.abs(heat), COLOUR_SHARE)), 1e-9)
    rows = list(range(len(bars)))
    colours = [palette.QUERY if r in (word_row, len(bars) - 1) else palette.WEIGHTS for r in rows]
    return [
        {"type": "heatmap", "z": heat, "x": list(range(heat.shape[1])), "y": rows, "xaxis": "x", "yaxis": "y",
         "colorscale": palette.DIVERGING_SCALE, "zmin": -limit, "zmax": limit, "showscale": False,
         "hovertemplate": "row %{y}, number %{x}: %{z:.3f}<extra></extra>"},
        {"type": "bar", "orientation": "h", "x": bars, "y": rows, "xaxis": "x2", "yaxis": "y",
         "marker": {"color": colours}, "showlegend": False,
         "hovertemplate": "row %{y}: %{x:.3f}<extra></extra>"},
    ]


def _player(labels: list[str], plot: int) -> dict:
    """Play / Pause buttons and a slider with one step per stage, under a plot ``plot`` px tall: every one an
    ``animate`` the browser runs on the figure's own frames."""
    below = -(70 / plot)                                    # buttons 70 px under the plot, the slider under them
    play = {"frame": {"duration": FRAME_MS, "redraw": True}, "fromcurrent": True, "transition": {"duration": 0},
            "mode": "immediate"}
    pause = {"frame": {"duration": 0, "redraw": False}, "mode": "immediate", "transition": {"duration": 0}}
    jump = {"frame": {"duration": 0, "redraw": True}, "mode": "immediate", "transition": {"duration": 0}}
    return {
        "updatemenus": [{"type": "buttons", "direction": "left", "showactive": False, "x": 0.0, "xanchor": "left",
                         "y": below, "yanchor": "top", "pad": {"t": 0, "r": 8}, "font": {"size": FONT},
                         "buttons": [{"label": "▶ Play", "method": "animate", "args": [None, play]},
                                     {"label": "❚❚ Pause", "method": "animate", "args": [[None], pause]}]}],
        "sliders": [{"active": 0, "x": 0.0, "len": 1.0, "y": below - 40 / plot, "yanchor": "top", "pad": {"t": 0},
                     "font": {"size": FONT}, "currentvalue": {"prefix": "Stage ", "suffix": f" of {len(labels)}",
                                                              "font": {"size": FONT}},
                     "steps": [{"label": str(i + 1), "method": "animate", "args": [[name], jump]}
                               for i, name in enumerate(labels)]}],
    }


def pass_figure(rows: list[str], word_row: int, heats: list[np.ndarray], bars: list[np.ndarray],
                labels: list[str], captions: list[str], heat_titles: list[str], bar_titles: list[str],
                animated: bool = True) -> go.Figure:
    """The animation: one frame per stage, named by its label, titled by its caption; with ``animated`` False,
    the first stage alone, drawn still (no frames, no buttons, no slider).

    rows: [R] row labels (the tokens, then the other sentence's word, drawn under a line); heats: per stage
    [R, C]; bars: per stage [R] (NaN draws no bar); the other lists: one entry per stage.
    """
    R = len(rows)
    lines = max(title_lines(c, CAPTION_CHARS).count("<br>") + 1 for c in captions)
    plot, top, bottom = ROW_PX * R, 24 + CAPTION_LINE * lines, CONTROLS_PX if animated else AXES_PX

    def axes(i: int) -> dict:
        titled = {"font": {"size": FONT}, "standoff": 4}
        return {"xaxis": {"title": titled | {"text": wrapped(heat_titles[i], AXIS_CHARS)}},
                "xaxis2": {"title": titled | {"text": wrapped(bar_titles[i], AXIS_CHARS)},
                           "range": _bar_range(bars[i])}}

    fig = figure(
        _traces(heats[0], bars[0], word_row), captions[0], wrapped(heat_titles[0], AXIS_CHARS), "token",
        height=plot + top + bottom, legend=False,
        override={"title": _caption(captions[0]), "margin": {"l": text_px(rows) + 28, "r": 12, "t": top,
                                                              "b": bottom}},
        xaxis={"domain": [0.0, 0.56], "showticklabels": False, "showgrid": False, "zeroline": False,
               "fixedrange": True, "title": {"text": wrapped(heat_titles[0], AXIS_CHARS), "standoff": 4}},
        xaxis2={"domain": [0.62, 1.0], "anchor": "y", "range": _bar_range(bars[0]), "fixedrange": True,
                "nticks": 3, "title": {"text": wrapped(bar_titles[0], AXIS_CHARS), "standoff": 4}},
        yaxis={"tickvals": list(range(R)), "ticktext": rows, "range": [R - 0.5, -0.5], "fixedrange": True,
               "showgrid": False, "zeroline": False, "title": {"text": "token", "standoff": 2}},
        shapes=[{"type": "rect", "xref": "x domain", "yref": "y", "x0": 0, "x1": 1, "y0": word_row - 0.5,
                 "y1": word_row + 0.5, "line": {"color": palette.QUERY, "width": 2}},
                {"type": "line", "xref": "paper", "yref": "y", "x0": 0, "x1": 1, "y0": R - 1.5, "y1": R - 1.5,
                 "line": {"color": palette.NEUTRAL, "width": 2, "dash": "dot"}}],
        **(_player(labels, plot) if animated else {}),
    )
    if animated:
        fig.frames = [go.Frame(name=labels[i], data=_traces(heats[i], bars[i], word_row), traces=[0, 1],
                               layout={"title": _caption(captions[i]), **axes(i)}) for i in range(len(labels))]
    return fig


def head_row_figure(row: np.ndarray, tokens: list[str], query: int, title: str) -> go.Figure:
    """One token's weights in one head over every token of its sentence, a row per token (so a phone has the
    width for every label and number), the token's own row in the key colour. row: [T], summing to 1."""
    row = np.asarray(row, dtype=float)
    names = [f"{i}: {t}" for i, t in enumerate(labels(tokens))]     # numbered: two "the"s stay two rows
    bars = {"type": "bar", "orientation": "h", "y": names, "x": row, "showlegend": False,
            "marker": {"color": [palette.KEY if j == query else palette.WEIGHTS for j in range(len(row))]},
            "text": [f"{w:.2f}" for w in row], "textposition": "outside", "cliponaxis": False,
            "hovertemplate": "%{y}: %{x:.3f}<extra></extra>"}
    return figure([bars], title, "weight", "token", height=ROW_PX * len(names) + MARGIN["t"] + MARGIN["b"],
                  legend=False,
                  xaxis={"range": [0, max(float(row.max()), 1e-9) * 1.3], "nticks": 4},
                  yaxis={"autorange": "reversed"}, override={"margin": {"l": text_px(names) + LABEL_PAD, "r": 12}})
