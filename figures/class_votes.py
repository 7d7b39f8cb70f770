"""A class question's votes, one round or two ("First vote" / "After discussion"), counts only.

Peer instruction asks a question, lets neighbours discuss, then asks it again: the two rounds side by side
show how the class moved. Once the answer is revealed its option is marked in its label and its bars (a
tick, the value colour, an outline), so the mark shows even when no one chose it.
"""

from __future__ import annotations

from html import escape

import plotly.graph_objects as go

from figures import palette
from figures._layout import figure, text_px, wrapped

ROUND_NAMES = ("First vote", "After discussion")
RIGHT_MARK = "✓ "


def _label(option: str, right: bool) -> str:
    # Options may hold a learner's words (the lab's tokens): each line is HTML-escaped after wrapping, since
    # Plotly renders a subset of HTML in text.
    lines = [escape(line) for line in wrapped(option, 34).split("<br>")]
    if right:
        lines[0] = f"<b>{RIGHT_MARK}{lines[0]}"
        lines[-1] += " (the answer)</b>"
    return "<br>".join(lines)


def votes_figure(options: tuple[str, ...], rounds: tuple[dict[str, int], ...],
                 correct: int | None = None) -> go.Figure:
    """One horizontal bar per option and round, in the question's order (first at the top), each count at its
    bar's end. ``rounds``: the counts of the first vote and, after a discussion, of the second (one or two).
    ``correct``: the index of the right option once revealed; None while hidden (no bar is hinted)."""
    if correct is not None and not 0 <= correct < len(options):
        raise ValueError(f"correct must index one of the {len(options)} options, got {correct}")
    if not 1 <= len(rounds) <= len(ROUND_NAMES):
        raise ValueError(f"a question has 1 to {len(ROUND_NAMES)} rounds, got {len(rounds)}")
    labels = [_label(o, i == correct) for i, o in enumerate(options)]
    two = len(rounds) == 2
    shades = (palette.NEUTRAL, palette.QUERY) if two else (palette.QUERY,)
    traces, totals = [], []
    for name, counts, shade in zip(ROUND_NAMES, rounds, shades, strict=False):
        values = [int(counts.get(o, 0)) for o in options]
        totals.append(sum(values))
        colours = [palette.VALUE if i == correct and not two else shade for i in range(len(options))]
        outline = [3 if i == correct else 0 for i in range(len(options))]
        traces.append({"type": "bar", "orientation": "h", "x": values, "y": labels, "name": name,
                       "marker": {"color": colours, "line": {"color": palette.VALUE, "width": outline}},
                       "text": [f"{v} ✓" if i == correct else str(v) for i, v in enumerate(values)],
                       "textposition": "outside", "cliponaxis": False,
                       "hovertemplate": f"{name}: %{{x}} chose this<extra></extra>"})
    if two:
        title = f"The class's answers: first vote {totals[0]}, after discussion {totals[1]}"
    else:
        title = f"The class's answers ({totals[0]} in all)"
    top = max([*(v for t in traces for v in t["x"]), 1])
    left = min(text_px(labels) + 16, 300) + 28                 # and a line for the axis title
    # Every row gets the height of the tallest label (18 px a line) plus a gap, and room for each round's bar.
    row = max(18 * max(label.count("<br>") + 1 for label in labels), 22 * len(rounds)) + 16
    return figure(traces, title, "students", "answer",
                  height=len(labels) * row + 50 + 56, legend=two,
                  override={"margin": {"l": left, "r": 48, "b": 56}},
                  xaxis={"range": [0, top * 1.2], "dtick": max(1, -(-top // 5)), "rangemode": "tozero"},
                  yaxis={"autorange": "reversed"}, barmode="group", bargap=0.25)
