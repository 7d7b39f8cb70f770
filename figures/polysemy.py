"""Figures for the polysemy lesson: the sense map, the map with a context and its weights, the dimension experiment,
and real GloVe words on a 2-D PCA map."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from . import palette
from ._layout import MARGIN, arrow, figure, vline
from .labels import place_labels, views
from .text import plotly_literal as escape

# Sky blue for the river words (water), orange for the finance words (gold); the static vector is a
# grey reference and the contextual one wears the output colour, as attention's output does everywhere.
GROUP_COLOURS = {"river": palette.WEIGHTS, "finance": palette.KEY, "sense": palette.NEUTRAL}
GROUP_NAMES = {"river": "river words", "finance": "finance words", "sense": "senses of bank"}


STAR_RADIUS = 0.03                                  # z's star marker, in the map's data units (about 8 px)
WORD_SIZE, HIGHLIGHT_SIZE, STATIC_SIZE, Z_SIZE = 9, 15, 14, 16          # markers, px across
# The maps' plot areas, in px: as narrow as the sense map's column at 1024 px with the sidebar open (or a full
# phone-width chart, for the maps drawn across the page) and as wide as presenter mode draws them. No tick
# label needs more than the axis title's room on the left, so the maps keep narrow margins and a wide plot.
MAP_MARGIN = {"l": 74, "r": 16}
MAP_HEIGHT = 360
LEGEND_PX = 30                      # what figures._layout.figure adds to a figure's height for its legend
SENSE_VIEWS = views((250, 1400), MAP_HEIGHT, presenter=(260, 1400))   # 260: its column at 1024 px, presenting
WIDE_VIEWS = views((278, 1400), MAP_HEIGHT, presenter=(500, 1400))


def padded(X: np.ndarray, extra: np.ndarray | None = None, pad: tuple[float, float] = (0.3, 0.16)) -> dict:
    """Axis ranges around the points X [n, 2] (and ``extra`` points), padded by these shares of each span so
    that a label beside or above a point at the edge stays inside the plot."""
    pts = np.vstack([X, extra]) if extra is not None else X
    lo, hi = pts.min(axis=0), pts.max(axis=0)
    span = np.maximum(hi - lo, 1e-9)
    return {"xaxis": {"range": [float(lo[0] - pad[0] * span[0]), float(hi[0] + pad[0] * span[0])]},
            "yaxis": {"range": [float(lo[1] - pad[1] * span[1]), float(hi[1] + pad[1] * span[1])]}}


def _map_traces(words: list[str], X: np.ndarray, groups: list[str], static: np.ndarray, z: np.ndarray | None,
                highlight: tuple[str, ...], axes: dict, views_: tuple) -> list[dict]:
    """The sense map's traces: one per group, the static point, then z and the arrow to it (if z is given).
    Every label (words, static bank, z) is placed from the data, clear of the others at every width."""
    X = np.asarray(X, dtype=float)
    big = [w in highlight for w in words]
    texts = [f"<b>{w}</b>" if b else w for w, b in zip(words, big, strict=True)]
    pts, sizes = [*X, static], [HIGHLIGHT_SIZE if b else WORD_SIZE for b in big] + [STATIC_SIZE]
    names = [*texts, "static bank"]
    if z is not None:
        pts, sizes, names = [*pts, z], [*sizes, Z_SIZE], [*names, "z"]
    pts = np.asarray(pts, dtype=float)
    # The legend names static bank and z: their labels give way where the words crowd them.
    places = place_labels(pts[:, 0], pts[:, 1], names, sizes, axes["xaxis"]["range"], axes["yaxis"]["range"],
                          views_, optional=tuple(range(len(words), len(names))))
    traces = []
    for group in dict.fromkeys(groups):
        idx = [i for i, g in enumerate(groups) if g == group]
        traces.append({
            "type": "scatter", "x": X[idx, 0], "y": X[idx, 1], "mode": "markers+text",
            "name": GROUP_NAMES.get(group, group), "text": [texts[i] for i in idx],
            "textposition": [places[i] for i in idx],
            "marker": {"color": GROUP_COLOURS.get(group, palette.NEUTRAL), "size": [sizes[i] for i in idx],
                       "symbol": "diamond" if group == "sense" else "circle",
                       "line": {"color": "#333333", "width": [1.5 if big[i] else 0 for i in idx]}},
            "hovertemplate": "%{text}<br>finance-ish: %{x:.2f}<br>nature-ish: %{y:.2f}<extra></extra>",
        })
    traces.append({"type": "scatter", "x": [static[0]], "y": [static[1]], "mode": "markers+text",
                   "name": "static bank", "text": ["static bank" if places[len(words)] else ""],
                   "textposition": places[len(words)] or "top center",
                   "marker": {"color": palette.NEUTRAL, "size": STATIC_SIZE, "symbol": "x"},
                   "hovertemplate": "static bank<br>finance-ish: %{x:.3f}<br>nature-ish: %{y:.3f}<extra></extra>"})
    if z is not None:
        traces.append({"type": "scatter", "x": [z[0]], "y": [z[1]], "mode": "markers+text",
                       "name": "contextual bank z", "text": ["z" if places[-1] else ""],
                       "textposition": places[-1] or "top center",
                       "marker": {"color": palette.OUTPUT, "size": Z_SIZE, "symbol": "star"},
                       "hovertemplate": "contextual bank z<br>finance-ish: %{x:.3f}<br>nature-ish: %{y:.3f}"
                                        "<extra></extra>"})
        # Drawn last, not a legend entry of its own; its head stops a star's radius short of z so it shows.
        step = np.asarray(z, dtype=float) - static
        length = float(np.hypot(*step))
        tip = z - step / length * STAR_RADIUS if length > 2 * STAR_RADIUS else z
        traces.append(arrow(static, tip, "static → z", palette.OUTPUT, width=2) | {"showlegend": False})
    return traces


def sense_map(words: list[str], X: np.ndarray, groups: list[str], static: np.ndarray) -> go.Figure:
    """Words as points in 2-D, coloured by group, with the static bank vector (the last trace).

    X: [n, 2]; static: [2].
    """
    axes = padded(np.asarray(X, dtype=float))
    traces = _map_traces(words, X, groups, static, None, (), axes, SENSE_VIEWS)
    # The legend wraps to four rows in the page's column on a phone.
    bottom = 152
    return figure(traces, "Where the words sit", "finance-ish →", "nature-ish →",
                  height=MAP_HEIGHT + MARGIN["t"] - LEGEND_PX + bottom, **axes,
                  override={"margin": MAP_MARGIN | {"b": bottom}})


BAR_ROW, MAP_GAP = 30, 72            # px per token's bar; px between the map and the bars (ticks, axis title)


def context_map(words: list[str], X: np.ndarray, groups: list[str], static: np.ndarray, z: np.ndarray,
                tokens: list[str], weights: np.ndarray, token_groups: list[str], highlight: tuple[str, ...] = ()
                ) -> go.Figure:
    """The sense map with the contextual vector z and an arrow to it from the static point (axes x, y),
    above bank's attention weight αⱼ on each token of its sentence (axes x2, y2, the last trace): one
    chart, so a move of the temperature redraws one figure, not two. One above the other, so the map has
    the chart's whole width for its labels at any screen size.

    X: [n, 2]; static, z: [2]; weights: [m], one per token, coloured by ``token_groups``. Words in
    ``highlight`` (the context) are drawn larger and labelled in bold.
    """
    weights = np.asarray(weights, dtype=float)
    # Each bar names its token in its own text, so the left margin stays the map's and the map keeps its width.
    bars = {"type": "bar", "orientation": "h", "y": tokens, "x": weights, "xaxis": "x2", "yaxis": "y2",
            "name": "weight αⱼ", "showlegend": False,
            "marker": {"color": [GROUP_COLOURS.get(g, palette.NEUTRAL) for g in token_groups]},
            "text": [f"{t}: {w:.3f}" for t, w in zip(tokens, weights, strict=True)], "textposition": "outside",
            "cliponaxis": False, "hovertemplate": "token %{y}: weight α = %{x:.4f}<extra></extra>"}
    axes = padded(np.asarray(X, dtype=float), np.asarray([z], dtype=float))
    traces = [*_map_traces(words, X, groups, static, z, highlight, axes, WIDE_VIEWS), bars]
    bottom, bars_px = 150, BAR_ROW * len(tokens) + 10
    plot = MAP_HEIGHT + MAP_GAP + bars_px                        # both plot areas and the gap between them
    return figure(traces, "Where bank lands, and how it shares its attention", "finance-ish →", "nature-ish →",
                  height=plot + MARGIN["t"] - LEGEND_PX + bottom,
                  xaxis=axes["xaxis"], yaxis=axes["yaxis"] | {"domain": [1 - MAP_HEIGHT / plot, 1.0]},
                  # Room right of a bar of weight 1 for its text ("interest: 0.999") on a phone.
                  xaxis2={"range": [0, 1.7], "anchor": "y2", "title": {"text": "weight αⱼ of each token"},
                          "tickvals": [0, 0.5, 1]},
                  yaxis2={"anchor": "x2", "autorange": "reversed", "domain": [0.0, bars_px / plot],
                          "showticklabels": False, "title": {"text": "token"}},
                  override={"margin": MAP_MARGIN | {"b": bottom}})


def dimension_lines(dims: list[int], dist_a: list[float], dist_b: list[float], dist_context: list[float],
                    current: int) -> go.Figure:
    """Distances from the static vector to each sense, and from a contextual vector to its sense, against d."""
    traces = [
        {"type": "scatter", "x": dims, "y": dist_a, "mode": "lines+markers", "name": "static → river sense",
         "line": {"color": palette.WEIGHTS, "width": 3}},
        {"type": "scatter", "x": dims, "y": dist_b, "mode": "lines+markers", "name": "static → finance sense",
         "line": {"color": palette.KEY, "width": 2, "dash": "dash"}},
        {"type": "scatter", "x": dims, "y": dist_context, "mode": "lines+markers",
         "name": "river context → river sense", "line": {"color": palette.OUTPUT, "width": 2}},
    ]
    # Powers of two only, and every other one past six: twelve labels collide on a phone and presenting.
    ticks = [d for d in dims if d & (d - 1) == 0]
    ticks = ticks if len(ticks) <= 6 else ticks[::2]
    return figure(traces, "A bigger space does not move the static point off the fence", "dimensions d",
                  "distance (sense length ≈ 1)", height=420,
                  # No annotation on this line: on a log axis Plotly would place its text at 10^current.
                  shapes=[vline(current, {"color": palette.NEUTRAL, "dash": "dot"})],
                  xaxis={"type": "log", "tickvals": ticks, "ticktext": [str(d) for d in ticks]},
                  yaxis={"rangemode": "tozero"},
                  override={"margin": {"b": 166}})                  # up to three legend rows in one column


# Groups keep one colour each; an ambiguous word wears the neutral grey of static vectors.
GLOVE_DOT, GLOVE_STAR = 10, 14                    # markers, px across
GLOVE_COLOURS = [palette.VALUE, palette.QUERY, palette.SCALED, palette.SCORES]      # the map's own groups' colours
SAME_GROUP = {"money": "finance"}                 # the GloVe word list's name for a group of the 2-D map


def glove_pca_figure(words: list[str], coords: np.ndarray, groups: list[str],
                     title: str = "Real GloVe vectors on a 2-D map", ambiguous: str = "ambiguous") -> go.Figure:
    """One labelled point per word at coords [n, 2], one trace (colour) per group, in first-seen order.

    Labels are HTML-escaped: plotly renders a subset of HTML in text.
    """
    coords = np.asarray(coords, dtype=float)
    if coords.shape != (len(words), 2) or len(groups) != len(words):
        raise ValueError(f"Need one (x, y) and one group per word, got {coords.shape} for {len(words)} words.")
    colours = iter(GLOVE_COLOURS * 4)
    texts = [escape(w) for w in words]
    sizes = [GLOVE_STAR if g == ambiguous else GLOVE_DOT for g in groups]
    axes = padded(coords, pad=(0.25, 0.16))              # a little less sideways: 15 words across a phone
    places = place_labels(coords[:, 0], coords[:, 1], texts, sizes, axes["xaxis"]["range"], axes["yaxis"]["range"],
                          WIDE_VIEWS)
    traces = []
    for group in dict.fromkeys(groups):
        idx = [i for i, g in enumerate(groups) if g == group]
        # A group the 2-D map also draws (river; money, its finance) keeps that map's colour on this one too.
        colour = (palette.NEUTRAL if group == ambiguous else GROUP_COLOURS.get(SAME_GROUP.get(group, group))
                  or next(colours))
        traces.append({
            "type": "scatter", "x": coords[idx, 0], "y": coords[idx, 1], "mode": "markers+text", "name": escape(group),
            "text": [texts[i] for i in idx], "textposition": [places[i] for i in idx],
            "marker": {"color": colour, "size": [sizes[i] for i in idx],
                       "symbol": "star" if group == ambiguous else "circle"},
            "hovertemplate": "%{text}<br>principal axis 1: %{x:.2f}<br>principal axis 2: %{y:.2f}<extra></extra>",
        })
    bottom = 128                                                    # two legend rows
    return figure(traces, title, "principal axis 1", "principal axis 2", **axes,
                  height=MAP_HEIGHT + MARGIN["t"] - LEGEND_PX + bottom,
                  override={"margin": MAP_MARGIN | {"b": bottom}})
