"""Shared layout: small, template-free figures that Streamlit's theme styles for light and dark.

Build a figure once: ``figure([trace dicts], title, ...)``. Plotly's object API (go.Scatter(...),
add_trace, update_layout, update_yaxes, add_vline) walks and validates its property tree on every call;
one go.Figure({"data": [...], "layout": {...}}) validates the same JSON in one pass.
"""

from __future__ import annotations

import math
import re
import textwrap

import numpy as np
import plotly.graph_objects as go
import plotly.io as pio

from figures import palette

# Smallest type on any chart, in px: tick, token and word labels read from the back row and on a phone.
# Presenter mode (ui/charts.py) scales every size by PRESENTER_SCALE, so 14 becomes at least 18.
FONT = 14
TITLE_FONT = 17
PRESENTER_SCALE = 18 / 14

# Room, in px, for numeric tick labels plus an axis title (left, bottom), a title (top), one legend row;
# on the right, for half of a last x tick label such as "100" that falls on the axis's end.
MARGIN = {"l": 90, "r": 30, "t": 56, "b": 78}
LEGEND_ROW = 46
LEGEND_DROP = 76           # px from the plot area's bottom to the legend's top: under 14 px ticks and the axis title
# Beyond its longest label, what a text axis needs: ticks and padding, plus a title if it has one.
LABEL_PAD, TITLED_LABEL_PAD = 56, 64
# A chart title's longest line, in characters: at TITLE_FONT it fits the narrowest chart (about 270 px,
# one of two columns at 1024 px with the sidebar open; 358 px on a phone). The top margin grows a line's
# height for each line the title wraps to.
TITLE_CHARS, TITLE_LINE = 28, 24
# Numbers written in a heatmap's cells: the common size (Plotly would shrink them to fit, to 4 px in a
# narrow column).
CELL_FONT = FONT


# Most tick labels on a log axis: whole decades only, every k-th of them past this many.
LOG_TICKS = 6


def log_axis(*series) -> dict:
    """A log axis for these values (those above 0) labelled at powers of ten only, every k-th decade when
    they span more than LOG_TICKS: Plotly's own choice adds 2 and 5 between close decades, which crowd into
    each other at presenter sizes, and labels all 30 of a long span."""
    values = np.concatenate([np.ravel(np.asarray(s, dtype=float)) for s in series]) if series else np.zeros(0)
    values = values[np.isfinite(values) & (values > 0)]
    decades = float(np.ptp(np.log10(values))) if values.size else 1.0
    return {"type": "log", "exponentformat": "power", "dtick": max(1, math.ceil(decades / LOG_TICKS))}


_TAG = re.compile(r"<[^>]*>")


def text_px(labels, size: int = FONT) -> int:
    """About how wide the longest label (its longest line) draws at this font size, in px: for a margin
    that holds text labels (a learner's tokens, a list of titles) without making Plotly grow it."""
    longest = max((len(_TAG.sub("", line)) for t in labels for line in str(t).split("<br>")), default=0)
    return int(0.55 * size * longest) + 6


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


_NBSP = "\u00a0"
_MATHS = re.compile(r"[_ᵀₖⱼ√·=\ue000]|^[A-Za-z]$")   # a symbol, not a word: W<sub>Q</sub>ᵀ, dₖ, X, "="
# While a title is wrapped, <sub> and </sub> stand in as one private-use character each: a subscript takes
# about a letter's width, not the eleven characters of its tags.
_SUB, _UNSUB = "\ue000", "\ue001"
_STEP = re.compile(r"[①-⑳]")                      # a stage's number belongs with the words it numbers


def _glued(text: str) -> str:
    """``text`` with the spaces inside parentheses, between two symbols and after a circled stage number made
    non-breaking, so a wrapped title never splits a formula: "(X W<sub>Q</sub>ᵀ)" or "M = W<sub>Q</sub>ᵀ W<sub>K</sub>"
    stays on one line, and "②" never ends one."""
    depth, out = 0, []
    for ch in text:
        depth += (ch == "(") - (ch == ")")
        out.append(_NBSP if ch == " " and depth > 0 else ch)
    words = "".join(out).split(" ")
    joined = words[:1]
    for word in words[1:]:
        last = joined[-1].split(_NBSP)[-1]
        glue = (_MATHS.search(last) and _MATHS.search(word.split(_NBSP)[0])) or _STEP.fullmatch(last)
        joined[-1:] = [joined[-1] + _NBSP + word] if glue else [joined[-1], word]
    return " ".join(joined)


def title_lines(title: str, width: int = TITLE_CHARS) -> str:
    """``title`` broken between words into lines of at most ``width`` characters (its own <br>s kept),
    never inside a formula."""
    title = title.replace("<sub>", _SUB).replace("</sub>", _UNSUB)
    lines = "<br>".join(wrapped(_glued(part), width) for part in title.split("<br>")).replace(_NBSP, " ")
    return lines.replace(_SUB, "<sub>").replace(_UNSUB, "</sub>")


def _common(title: str, x_title: str, y_title: str, height: int, legend: bool) -> dict:
    """Title, axis titles, compact margins and a clear background: what every figure on the site shares."""
    title = title_lines(title)
    extra = TITLE_LINE * title.count("<br>")
    return {
        # Plotly's own vertical place: it keeps a wrapped title inside the top margin (anchored at the top
        # or bottom, it pushed a second line off the chart or onto the plot).
        "title": {"text": title, "x": 0.0, "xanchor": "left", "font": {"size": TITLE_FONT}},
        "font": {"size": FONT},
        "hoverlabel": {"font": {"size": FONT}},
        "height": height + (30 if legend else 0) + extra,
        # A horizontal legend hangs under the x-axis title, with the bottom margin to hold both. The margins
        # already hold the tick labels and axis titles: when automargin has to grow one, Plotly lays the
        # whole figure out a second time, on every redraw (36 of 37 charts did, at 50/85 px).
        "margin": MARGIN | {"t": MARGIN["t"] + extra, "b": MARGIN["b"] + LEGEND_ROW if legend else MARGIN["b"]},
        "showlegend": legend,
        "legend": {"orientation": "h", "y": -0.3, "yanchor": "top", "x": 0.0},
        "paper_bgcolor": "rgba(0,0,0,0)",
        "plot_bgcolor": "rgba(0,0,0,0)",
        "xaxis": {"title": {"text": x_title}, "automargin": True},
        "yaxis": {"title": {"text": y_title}, "automargin": True},
        "template": "none",                               # no template, so the JSON stays small
    }


def figure(traces: list[dict], title: str, x_title: str = "", y_title: str = "", height: int = 320, *,
           legend: bool | None = None, override: dict | None = None, validate: bool = True,
           **layout: object) -> go.Figure:
    """One go.Figure from plain trace dicts (each with its "type") and layout keywords, built once.

    ``layout`` is the figure's own layout (axis ranges, shapes, barmode); the common title, margins and
    legend go over it. ``legend``: whether to show one (with its row of height and margin); by default,
    when there is more than one trace. ``override`` goes over all that in turn, for a figure that needs,
    say, a wider margin than the common one.

    ``validate=False`` skips Plotly's validation pass (most of the build's time), for a figure made anew on
    nearly every slider move whose structure is fixed: its tests hold its JSON equal to the validated
    figure's, so a property Plotly would refuse still fails there. The template is given resolved, as
    validation would resolve it.
    """
    legend = len(traces) > 1 if legend is None else legend
    merged = _merge(layout, _common(title, x_title, y_title, height, legend=legend))
    if override:
        if "t" in override.get("margin", {}):      # a figure's own top margin, plus the title's extra lines
            extra = merged["margin"]["t"] - MARGIN["t"]
            override = _merge(override, {"margin": {"t": override["margin"]["t"] + extra}})
        merged = _merge(merged, override)
    own_y = "y" in layout.get("legend", {}) or "y" in (override or {}).get("legend", {})
    if legend and not own_y:
        # A fixed distance in px under the plot area, below its tick labels and x-axis title, whatever the
        # figure's height (a fraction of the plot's height put a short plot's legend on its axis title).
        m = merged["margin"]
        merged["legend"] = merged["legend"] | {"y": -LEGEND_DROP / max(merged["height"] - m["t"] - m["b"], 60)}
    merged = _explicit_fonts(merged)
    data = [_with_hover(_readable_heatmap(t, merged), merged) for t in traces]
    if validate:
        return go.Figure({"data": data, "layout": merged})
    merged["template"] = pio.templates[merged["template"]].to_plotly_json()
    return go.Figure({"data": data, "layout": merged}, _validate=False)


_AXIS = re.compile(r"^[xy]axis\d*$")


def _explicit_fonts(layout: dict) -> dict:
    """``layout`` with a size on every axis's tick labels and title, and on the legend and the ternary axes,
    where it gives none of its own. Streamlit's chart theme brings a template that sets these to 12 px
    (titles 14), and a template's axis setting beats the layout's overall font: without these, every tick
    label drew at 12 px whatever FONT said, and presenter mode did not enlarge them."""
    sized = {"tickfont": {"size": FONT}, "title": {"font": {"size": FONT}}}
    out = dict(layout)
    for key, axis in layout.items():
        if _AXIS.match(key) and isinstance(axis, dict):
            out[key] = _merge(sized, axis)
    out["legend"] = _merge({"font": {"size": FONT}}, layout.get("legend", {}))
    if isinstance(layout.get("ternary"), dict):
        out["ternary"] = layout["ternary"] | {a: _merge(sized, layout["ternary"].get(a, {}))
                                              for a in ("aaxis", "baxis", "caxis")}
    return out


def _readable_heatmap(trace: dict, layout: dict) -> dict:
    """A heatmap with its cell numbers at CELL_FONT, each in black or white against its own cell (see
    _cell_text), and its colour bar's title beside the bar, not above its top tick label (where the two
    overlapped)."""
    if trace.get("type") != "heatmap":
        return trace
    out = dict(trace)
    if "texttemplate" in out:
        out["textfont"] = {"size": CELL_FONT} | out.get("textfont", {})
        if out["texttemplate"] == "%{text}" and out.get("text") is not None and isinstance(out.get("colorscale"), list):
            out["textfont"] = {"color": palette.BLACK} | out["textfont"]
            out["text"] = _cell_text(out, layout.get("plot_bgcolor", ""))
    bar = out.get("colorbar")
    if isinstance(bar, dict) and isinstance(bar.get("title"), dict):
        bar = bar | {"title": {"side": "right"} | bar["title"]}
    if out.get("showscale", True):                         # the theme's 12 px otherwise (see _explicit_fonts)
        out["colorbar"] = _merge({"tickfont": {"size": FONT}}, bar if isinstance(bar, dict) else {})
    return out


def _colour_range(z: np.ndarray, trace: dict) -> tuple[float, float]:
    """The values at the two ends of a heatmap's colour scale, as Plotly sets them: zmin and zmax when given,
    else the data's range, made symmetric about zmid when there is one."""
    if trace.get("zmin") is not None and trace.get("zmax") is not None:
        return float(trace["zmin"]), float(trace["zmax"])
    finite = z[np.isfinite(z)]
    lo, hi = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 1.0)
    if trace.get("zmid") is not None:
        mid = float(trace["zmid"])
        half = max(hi - mid, mid - lo)
        return mid - half, mid + half
    return lo, hi


def _shown(value: object) -> str:
    """A cell's text as Plotly's %{text} shows a number (1.0 as "1", -0.0 as "0"), or the text itself."""
    if isinstance(value, str | np.str_):
        return str(value)
    v = float(value)
    return str(int(v)) if v.is_integer() else repr(v)


def _cell_text(trace: dict, background: str) -> list[list[str]]:
    """Each cell's text, wrapped in white where white reads better than the trace's black on that cell's
    colour. Plotly's own choice (#444 or white, by brightness) left some numbers at about 3:1 on mid-blue
    cells; black or white is always at least 4.58:1. A gap (NaN) cell shows the plot's background, which
    must then be an opaque colour: on a transparent one the theme decides, and no single colour reads on both."""
    z = np.atleast_2d(np.asarray(trace["z"], dtype=float))
    text = np.atleast_2d(np.asarray(trace["text"], dtype=object))
    lo, hi = _colour_range(z, trace)
    opaque = background.startswith(("#", "rgb("))
    rows = []
    for z_row, t_row in zip(z, text, strict=True):
        row = []
        for value, label in zip(z_row, t_row, strict=True):
            shown = _shown(label)
            if np.isfinite(value):
                cell = palette.scale_colour(trace["colorscale"], 0.5 if hi == lo else (value - lo) / (hi - lo))
            else:
                cell = background if opaque else None
            white = cell is not None and palette.text_on(cell) == palette.WHITE
            row.append(f'<span style="color:{palette.WHITE}">{shown}</span>' if white else shown)
        rows.append(row)
    return rows


def _axis_title(layout: dict, ref: str) -> str:
    """The title of axis ``ref`` ("x", "y2"...) in a layout dict, without markup."""
    name = ("xaxis" if ref[0] == "x" else "yaxis") + ref[1:]
    title = layout.get(name, {}).get("title", {})
    return str(title.get("text", "") if isinstance(title, dict) else title or "").replace("<br>", " ")


def _numeric(values) -> bool:
    try:
        return len(values) > 0 and all(isinstance(v, int | float) and not isinstance(v, bool) for v in list(values))
    except TypeError:
        return False


def _with_hover(trace: dict, layout: dict) -> dict:
    """``trace`` with a hover that names what it shows (its name and its axes' titles), unless it has its
    own or skips hover: Plotly's default is a bare "(32, 2.397807)"."""
    if "hovertemplate" in trace or trace.get("hoverinfo") == "skip":
        return trace
    kind = trace.get("type", "scatter")
    name = str(trace.get("name") or "")
    if kind == "scatterternary":
        axes = layout.get("ternary", {})
        parts = [f"{axes.get(a + 'axis', {}).get('title', {}).get('text', a)}: %{{{a}:.3f}}" for a in "abc"]
        return trace | {"hovertemplate": "<br>".join(parts) + f"<extra>{name}</extra>"}
    x_title = _axis_title(layout, trace.get("xaxis", "x")) or "x"
    y_title = _axis_title(layout, trace.get("yaxis", "y")) or "y"
    if kind == "heatmap":
        return trace | {"hovertemplate": f"{y_title} %{{y}} → {x_title} %{{x}}: %{{z:.4g}}<extra></extra>"}
    fx = ":.4g" if _numeric(trace.get("x", ())) else ""
    fy = ":.4g" if _numeric(trace.get("y", ())) else ""
    head = "%{text}<br>" if "text" in str(trace.get("mode", "")) and trace.get("text") is not None else ""
    return trace | {"hovertemplate": f"{head}{x_title}: %{{x{fx}}}<br>{y_title}: %{{y{fy}}}<extra>{name}</extra>"}


def _scaled_fonts(node: object, factor: float, inside_font: bool = False) -> object:
    """A copy of a figure dict with every font size multiplied by ``factor`` (rounded up)."""
    if isinstance(node, dict):
        return {k: (max(int(v * factor + 0.999), 1) if inside_font and k == "size" and isinstance(v, int | float)
                    else _scaled_fonts(v, factor, inside_font or "font" in k))
                for k, v in node.items()}
    if isinstance(node, list):
        return [_scaled_fonts(v, factor, inside_font) for v in node]
    return node


def presented(fig: go.Figure, factor: float = PRESENTER_SCALE) -> go.Figure:
    """A copy of ``fig`` for a projector: every font size times ``factor`` (14 px becomes 18 px), and the
    figure and its margins that much taller and wider, so the larger labels keep their room."""
    data = fig.to_dict()
    layout = _scaled_fonts(data.get("layout", {}), factor)
    layout["font"] = {**layout.get("font", {}), "size": int(layout.get("font", {}).get("size", FONT) * factor + 0.999)}
    height = layout.get("height") or 320
    layout["height"] = int(height * 1.4)
    if "margin" in layout:
        before = layout["margin"]
        layout["margin"] = {k: int(v * factor) if isinstance(v, int | float) else v for k, v in before.items()}
        legend = layout.get("legend", {})
        if isinstance(legend.get("y"), int | float) and legend["y"] < 0:
            # A legend hangs a fraction of the plot's height under it: the plot grows by more than the
            # margins, so the same fraction would drop the legend past the bottom margin. Keep its drop in
            # px, scaled like the rest.
            plot, now = (height - before.get("t", 0) - before.get("b", 0),
                         layout["height"] - layout["margin"].get("t", 0) - layout["margin"].get("b", 0))
            if plot > 0 and now > 0:
                layout["legend"] = legend | {"y": legend["y"] * plot / now * factor}
    # An animation's frames (the first look's pass) carry their own captions and axis titles: scaled the same.
    frames = [f | {"data": _scaled_fonts(f.get("data", []), factor),
                   "layout": _scaled_fonts(f.get("layout", {}), factor)} for f in data.get("frames", [])]
    return go.Figure({"data": _scaled_fonts(data.get("data", []), factor), "layout": layout, "frames": frames})


def arrow(start, end, name: str, colour: str, width: float = 3, dash: str = "solid") -> dict:
    """A segment with an arrowhead at ``end`` that turns with the segment: one scatter trace. (A layout
    annotation arrow draws the same but costs Plotly a path-length measurement on every draw.)"""
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
