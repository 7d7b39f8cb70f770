"""Shared layout: small, template-free figures that Streamlit's theme styles for light and dark.

Build a figure once: ``figure([trace dicts], title, ...)``. Plotly's object API (go.Scatter(...),
add_trace, update_layout, update_yaxes, add_vline) walks and validates its property tree on every call,
1–15 ms each; one go.Figure({"data": [...], "layout": {...}}) validates the same JSON in one pass.
"""

from __future__ import annotations

import textwrap

import plotly.graph_objects as go

# Room, in px, for numeric tick labels plus an axis title (left, bottom), a title (top), one legend row;
# on the right, for half of a last x tick label such as "100" that falls on the axis's end.
MARGIN = {"l": 82, "r": 28, "t": 50, "b": 72}
LEGEND_ROW = 36
# Beyond its longest label, what a text axis needs: ticks and padding, plus a title if it has one.
LABEL_PAD, TITLED_LABEL_PAD = 56, 64


def text_px(labels, size: int = 12) -> int:
    """About how wide the longest label (its longest line) draws at this font size, in px: for a margin
    that holds text labels (a learner's tokens, a list of titles) without making Plotly grow it."""
    longest = max((len(line) for t in labels for line in str(t).split("<br>")), default=0)
    return int(0.5 * size * longest) + 6


def wrapped(label: str, width: int = 14) -> str:
    """A label broken between words into lines of at most ``width`` characters (Plotly's <br>; a longer
    word keeps its own line), so a long title takes less of a narrow chart's width."""
    return "<br>".join(textwrap.wrap(label, width, break_long_words=False)) or label


def _merge(base: dict, extra: dict) -> dict:
    """extra over base, recursing into nested dicts (so an axis keeps its range when it gains a title)."""
    out = dict(base)
    for key, value in extra.items():
        out[key] = _merge(out[key], value) if isinstance(value, dict) and isinstance(out.get(key), dict) else value
    return out


def _common(title: str, x_title: str, y_title: str, height: int, legend: bool) -> dict:
    """Title, axis titles, compact margins and a clear background: what every figure on the site shares."""
    return {
        "title": {"text": title, "x": 0.0, "xanchor": "left", "font": {"size": 15}},
        "height": height + (30 if legend else 0),
        # A horizontal legend hangs under the x-axis title, with the bottom margin to hold both. The margins
        # already hold the tick labels and axis titles: when automargin has to grow one, Plotly lays the
        # whole figure out a second time, on every redraw (36 of 37 charts did, at 50/85 px).
        "margin": MARGIN | {"b": MARGIN["b"] + LEGEND_ROW if legend else MARGIN["b"]},
        "showlegend": legend,
        "legend": {"orientation": "h", "y": -0.3, "yanchor": "top", "x": 0.0},
        "paper_bgcolor": "rgba(0,0,0,0)",
        "plot_bgcolor": "rgba(0,0,0,0)",
        "xaxis": {"title": {"text": x_title}, "automargin": True},
        "yaxis": {"title": {"text": y_title}, "automargin": True},
        "template": "none",                               # no template, so the JSON stays small
    }


def figure(traces: list[dict], title: str, x_title: str = "", y_title: str = "", height: int = 320, *,
           legend: bool | None = None, override: dict | None = None, **layout: object) -> go.Figure:
    """One go.Figure from plain trace dicts (each with its "type") and layout keywords, built once.

    ``layout`` is the figure's own layout (axis ranges, shapes, barmode); the common title, margins and
    legend go over it. ``legend``: whether to show one (with its row of height and margin); by default,
    when there is more than one trace. ``override`` goes over all that in turn, for a figure that needs,
    say, a wider margin than the common one.
    """
    legend = len(traces) > 1 if legend is None else legend
    merged = _merge(layout, _common(title, x_title, y_title, height, legend=legend))
    if override:
        merged = _merge(merged, override)
    return go.Figure({"data": traces, "layout": merged})


def arrow(start, end, name: str, colour: str, width: float = 3, dash: str = "solid") -> dict:
    """A segment with an arrowhead at ``end`` that turns with the segment: one scatter trace. (A layout
    annotation arrow draws the same but costs Plotly a path-length measurement per draw, ~10 ms.)"""
    return {
        "type": "scatter", "x": [float(start[0]), float(end[0])], "y": [float(start[1]), float(end[1])],
        "mode": "lines+markers", "name": name, "line": {"color": colour, "width": width, "dash": dash},
        "marker": {"symbol": ["circle", "arrow"], "size": [1, 13], "angleref": "previous", "color": colour},
        "hovertemplate": f"{name}: (%{{x:.3f}}, %{{y:.3f}})<extra></extra>",
    }


def vline(x: float, line: dict) -> dict:
    """A vertical line across the whole plot at data x: what fig.add_vline adds, as a layout shape."""
    return {"type": "line", "x0": x, "x1": x, "xref": "x", "y0": 0, "y1": 1, "yref": "y domain", "line": line}


def hline(y: float, line: dict) -> dict:
    """A horizontal line across the whole plot at data y: what fig.add_hline adds."""
    return {"type": "line", "x0": 0, "x1": 1, "xref": "x domain", "y0": y, "y1": y, "yref": "y", "line": line}


def vrect(x0: float, x1: float, fillcolor: str, opacity: float) -> dict:
    """A borderless band from x0 to x1, full height: what fig.add_vrect(..., line_width=0) adds."""
    return {"type": "rect", "x0": x0, "x1": x1, "xref": "x", "y0": 0, "y1": 1, "yref": "y domain",
            "fillcolor": fillcolor, "opacity": opacity, "line": {"width": 0}}
