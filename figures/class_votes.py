"""A class question's votes, one round or two ("First vote" / "After discussion"), counts only.

Peer instruction asks a question, lets neighbours discuss, then asks it again: the two rounds side by side
show how the class moved. Once the answer is revealed its option is marked in its label and its bars (a
tick, the value colour, an outline), so the mark shows even when no one chose it.
"""

from __future__ import annotations

from dataclasses import dataclass
from html import escape

import plotly.graph_objects as go

from figures import palette
from figures._layout import FONT, figure, wrapped

ROUND_NAMES = ("First vote", "After discussion")
RIGHT_MARK = "✓ "
LABEL_CHARS = 36        # an option's line: 36 characters at 14 px (bold) fit a 390 px phone's chart


def _label(option: str, right: bool) -> str:
    # Options may hold a learner's words (the lab's tokens): each line is HTML-escaped after wrapping, since
    # Plotly renders a subset of HTML in text.
    lines = [escape(line) for line in wrapped(option, LABEL_CHARS).split("<br>")]
    if right:
        lines[0] = f"<b>{RIGHT_MARK}{lines[0]}"
        lines[-1] += " (the answer)</b>"
    return "<br>".join(lines)


LINE, BAR, BAR_GAP, ROW_GAP = 19, 22, 3, 14      # px: a label's line, a bar, between a row's bars, between rows


@dataclass(frozen=True)
class Bands:
    """Rows of labelled bars, each label above its own bars across the chart's whole width (a label beside its
    bar left a phone's bars a few px wide). Each row is one category of the y axis, the same height in px:
    its label's lines, then one bar per round. ``offsets[j]``/``width``: round j's bars, in the axis's units."""

    row: int                 # px per row
    offsets: tuple[float, ...]
    width: float
    layout: dict             # the y axis (no tick labels) and the labels as annotations

    def height(self, count: int) -> int:
        return count * self.row


def bands(labels: list[str], rounds: int, *, size: int = FONT) -> Bands:
    """Where each label and bar goes (``labels``: escaped, wrapped; the first at the top)."""
    lines = max((label.count("<br>") + 1 for label in labels), default=1)
    head = lines * LINE + 4
    row = head + rounds * (BAR + BAR_GAP) + ROW_GAP
    offsets = tuple(-0.5 + (head + j * (BAR + BAR_GAP)) / row for j in range(rounds))
    notes = [{"text": label, "x": 0, "xref": "paper", "xanchor": "left", "y": i - 0.5 + (head - 2) / row,
              "yref": "y", "yanchor": "bottom", "align": "left", "showarrow": False, "font": {"size": size}}
             for i, label in enumerate(labels)]
    # Hidden, title and all: the labels stand above the bars (its title stays, for a screen reader's summary).
    axis = {"range": [len(labels) - 0.5, -0.5], "visible": False, "fixedrange": True}
    return Bands(row, offsets, BAR / row, {"yaxis": axis, "annotations": notes})


def votes_figure(options: tuple[str, ...], rounds: tuple[dict[str, int], ...],
                 correct: int | None = None) -> go.Figure:
    """One row per option, in the question's order (first at the top): its text above one horizontal bar per
    round, each count at its bar's end. ``rounds``: the counts of the first vote and, after a discussion, of
    the second (one or two). ``correct``: the index of the right option once revealed; None while hidden (no
    bar is hinted). The bars take the chart's whole width, and the x axis has no numbers (each bar carries
    its own), so nothing crowds on a phone."""
    if correct is not None and not 0 <= correct < len(options):
        raise ValueError(f"correct must index one of the {len(options)} options, got {correct}")
    if not 1 <= len(rounds) <= len(ROUND_NAMES):
        raise ValueError(f"a question has 1 to {len(ROUND_NAMES)} rounds, got {len(rounds)}")
    labels = [_label(o, i == correct) for i, o in enumerate(options)]
    two = len(rounds) == 2
    shades = (palette.NEUTRAL, palette.QUERY) if two else (palette.QUERY,)
    rows = bands(labels, len(rounds))
    traces, totals = [], []
    for j, (name, counts, shade) in enumerate(zip(ROUND_NAMES, rounds, shades, strict=False)):
        values = [int(counts.get(o, 0)) for o in options]
        totals.append(sum(values))
        colours = [palette.VALUE if i == correct and not two else shade for i in range(len(options))]
        outline = [3 if i == correct else 0 for i in range(len(options))]
        traces.append({"type": "bar", "orientation": "h", "x": values, "y": labels, "name": name,
                       "offset": rows.offsets[j], "width": rows.width,
                       "marker": {"color": colours, "line": {"color": palette.VALUE, "width": outline}},
                       "text": [f"{v} ✓" if i == correct else str(v) for i, v in enumerate(values)],
                       "textposition": "outside", "cliponaxis": False, "textfont": {"size": FONT},
                       "constraintext": "none", "hovertemplate": f"{name}: %{{x}} chose this<extra></extra>"})
    if two:
        title = f"The class's answers: first vote {totals[0]}, after discussion {totals[1]}"
    else:
        title = f"The class's answers ({totals[0]} in all)"
    top = max([*(v for t in traces for v in t["x"]), 1])
    return figure(traces, title, "students", "answer", height=rows.height(len(labels)) + 50 + 40,
                  legend=two, override={"margin": {"l": 8, "r": 48, "b": 40}},
                  xaxis={"range": [0, top * 1.25], "showticklabels": False, "fixedrange": True},
                  barmode="overlay", **rows.layout)
