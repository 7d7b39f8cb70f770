"""Figures for the polysemy lesson: the sense map, the map with a context and its weights, the dimension experiment,
and real GloVe words on a 2-D PCA map."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from . import palette
from ._layout import arrow, figure, label_places, vline
from .text import plotly_literal as escape

# Sky blue for the river words (water), orange for the finance words (gold); the static vector is a
# grey reference and the contextual one wears the output colour, as attention's output does everywhere.
GROUP_COLOURS = {"river": palette.WEIGHTS, "finance": palette.KEY, "sense": palette.NEUTRAL}
GROUP_NAMES = {"river": "river words", "finance": "finance words", "sense": "senses of bank"}


STAR_RADIUS = 0.03                                  # z's star marker, in the map's data units (about 8 px)


def _map_traces(words: list[str], X: np.ndarray, groups: list[str], static: np.ndarray,
                z: np.ndarray | None, highlight: tuple[str, ...], label_positions: list[str] | None) -> list[dict]:
    """The sense map's traces: one per group, the static point, then z and the arrow to it (if z is given)."""
    X = np.asarray(X, dtype=float)
    traces = []
    for group in dict.fromkeys(groups):
        idx = [i for i, g in enumerate(groups) if g == group]
        big = [words[i] in highlight for i in idx]
        traces.append({
            "type": "scatter", "x": X[idx, 0], "y": X[idx, 1], "mode": "markers+text",
            "name": GROUP_NAMES.get(group, group),
            "text": [f"<b>{words[i]}</b>" if b else words[i] for i, b in zip(idx, big, strict=True)],
            "textposition": [label_positions[i] for i in idx] if label_positions else "top center",
            "marker": {"color": GROUP_COLOURS.get(group, palette.NEUTRAL), "size": [15 if b else 9 for b in big],
                       "symbol": "diamond" if group == "sense" else "circle",
                       "line": {"color": "#333333", "width": [1.5 if b else 0 for b in big]}},
        })
    # With z on the map, the two labels go to opposite sides, each away from the other point, so the
    # arrow between them never carries one label into the other.
    right = z is not None and float(z[0]) >= float(static[0])
    static_place = "bottom center" if z is None else "middle left" if right else "middle right"
    z_place = "middle right" if right else "middle left"
    if z is not None:
        # Every label placed again with z among the points: z moves with the sentence, and its label
        # ran into the label of the word it landed by ("muddy").
        pts = np.vstack([X, [static], [z]])
        places = label_places(pts[:, 0], pts[:, 1], [*words, "static bank", "z"], plot_px=(330, 300))
        label_positions, static_place, z_place = places[:len(words)], places[-2], places[-1]
    traces.append({"type": "scatter", "x": [static[0]], "y": [static[1]], "mode": "markers+text",
                   "name": "static bank", "text": ["static bank"], "textposition": static_place,
                   "marker": {"color": palette.NEUTRAL, "size": 14, "symbol": "x"}})
    if z is not None:
        traces.append({"type": "scatter", "x": [z[0]], "y": [z[1]], "mode": "markers+text",
                       "name": "contextual bank z", "text": ["z"],
                       "textposition": z_place,
                       "marker": {"color": palette.OUTPUT, "size": 16, "symbol": "star"}})
        # Drawn last, not a legend entry of its own; its head stops a star's radius short of z so it shows.
        step = np.asarray(z, dtype=float) - static
        length = float(np.hypot(*step))
        tip = z - step / length * STAR_RADIUS if length > 2 * STAR_RADIUS else z
        traces.append(arrow(static, tip, "static → z", palette.OUTPUT, width=2) | {"showlegend": False})
    return traces


MAP_AXES = {"xaxis": {"range": [-0.12, 1.12]}, "yaxis": {"range": [0.2, 1.06], "scaleanchor": "x", "scaleratio": 1}}


def sense_map(words: list[str], X: np.ndarray, groups: list[str], static: np.ndarray,
              label_positions: list[str] | None = None) -> go.Figure:
    """Words as points in 2-D, coloured by group, with the static bank vector (the last trace).

    X: [n, 2]; static: [2]. ``label_positions``: a Plotly text position per word (default "top center").
    """
    traces = _map_traces(words, X, groups, static, None, (), label_positions)
    # The legend wraps to three rows in the page's column.
    return figure(traces, "Where the words sit", "finance-ish →", "nature-ish →", height=470, **MAP_AXES,
                  override={"margin": {"b": 152}})


def context_map(words: list[str], X: np.ndarray, groups: list[str], static: np.ndarray, z: np.ndarray,
                tokens: list[str], weights: np.ndarray, token_groups: list[str], highlight: tuple[str, ...] = (),
                label_positions: list[str] | None = None) -> go.Figure:
    """The sense map with the contextual vector z and an arrow to it from the static point (axes x, y),
    beside bank's attention weight αⱼ on each token of its sentence (axes x2, y2, the last trace): one
    chart, so a move of the temperature redraws one figure, not two.

    X: [n, 2]; static, z: [2]; weights: [m], one per token, coloured by ``token_groups``. Words in
    ``highlight`` (the context) are drawn larger and labelled in bold.
    """
    weights = np.asarray(weights, dtype=float)
    bars = {"type": "bar", "orientation": "h", "y": tokens, "x": weights, "xaxis": "x2", "yaxis": "y2",
            "name": "weight αⱼ", "showlegend": False,
            "marker": {"color": [GROUP_COLOURS.get(g, palette.NEUTRAL) for g in token_groups]},
            "text": [f"{w:.3f}" for w in weights], "textposition": "outside", "cliponaxis": False,
            "hovertemplate": "%{y}: α = %{x:.4f}<extra></extra>"}
    traces = [*_map_traces(words, X, groups, static, z, highlight, label_positions), bars]
    return figure(traces, "Where bank lands, and how it shares its attention", "finance-ish →", "nature-ish →",
                  height=440, xaxis={"domain": [0.0, 0.6]} | MAP_AXES["xaxis"], yaxis=MAP_AXES["yaxis"],
                  # The bars' token labels sit in the gap between the two plots.
                  xaxis2={"domain": [0.74, 1.0], "range": [0, 1.2], "anchor": "y2", "automargin": True,
                          "title": {"text": "weight αⱼ of each token"}},
                  yaxis2={"anchor": "x2", "autorange": "reversed", "automargin": True, "title": {"text": "token"}},
                  override={"margin": {"b": 120}})


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
    ticks = [d for d in dims if d & (d - 1) == 0]             # powers of two only, so labels never collide
    return figure(traces, "A bigger space does not move the static point off the fence", "dimensions d",
                  "distance (sense length ≈ 1)", height=420,
                  # No annotation on this line: on a log axis Plotly would place its text at 10^current.
                  shapes=[vline(current, {"color": palette.NEUTRAL, "dash": "dot"})],
                  xaxis={"type": "log", "tickvals": ticks, "ticktext": [str(d) for d in ticks]},
                  yaxis={"rangemode": "tozero"},
                  override={"legend": {"orientation": "h", "y": -0.3, "x": 0}, "margin": {"b": 140}})


# Groups keep one colour each; an ambiguous word wears the neutral grey of static vectors.
GLOVE_COLOURS = [palette.VALUE, palette.QUERY, palette.KEY, palette.SCALED, palette.SCORES]


def glove_pca_figure(words: list[str], coords: np.ndarray, groups: list[str],
                     title: str = "Real GloVe vectors on a 2-D map", ambiguous: str = "ambiguous") -> go.Figure:
    """One labelled point per word at coords [n, 2], one trace (colour) per group, in first-seen order.

    Labels are HTML-escaped: plotly renders a subset of HTML in text.
    """
    coords = np.asarray(coords, dtype=float)
    if coords.shape != (len(words), 2) or len(groups) != len(words):
        raise ValueError(f"Need one (x, y) and one group per word, got {coords.shape} for {len(words)} words.")
    colours = iter(GLOVE_COLOURS * 4)
    places = label_places(coords[:, 0], coords[:, 1], list(words))
    traces = []
    for group in dict.fromkeys(groups):
        idx = [i for i, g in enumerate(groups) if g == group]
        colour = palette.NEUTRAL if group == ambiguous else next(colours)
        traces.append({
            "type": "scatter", "x": coords[idx, 0], "y": coords[idx, 1], "mode": "markers+text", "name": escape(group),
            "text": [escape(words[i]) for i in idx], "textposition": [places[i] for i in idx],
            "marker": {"color": colour, "size": 14 if group == ambiguous else 10,
                       "symbol": "star" if group == ambiguous else "circle"},
            "hovertemplate": "%{text}<br>(%{x:.2f}, %{y:.2f})<extra></extra>",
        })
    return figure(traces, title, "principal axis 1", "principal axis 2", height=420,
                  override={"margin": {"b": 128}})                 # two legend rows
