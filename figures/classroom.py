"""The class's answers to a question: how many chose each option, counts only."""

from __future__ import annotations

from html import escape

import plotly.graph_objects as go

from figures import palette
from figures._layout import FONT, figure, wrapped
from figures.class_votes import LABEL_CHARS, bands


def poll_figure(options: tuple[str, ...], counts: dict[str, int], correct: int | None = None) -> go.Figure:
    """One horizontal bar per option, in the question's order (first at the top), its count at its end.

    ``correct``: the index of the right option once revealed (its bar in the value colour, the others
    grey); None while the class is still answering (every bar the same colour, so none is hinted).
    """
    if correct is not None and not 0 <= correct < len(options):
        raise ValueError(f"correct must index one of the {len(options)} options, got {correct}")
    # Options may hold a learner's words (the lab's tokens): each line is HTML-escaped after wrapping,
    # since Plotly renders a subset of HTML in text.
    labels = ["<br>".join(escape(line) for line in wrapped(o, LABEL_CHARS).split("<br>")) for o in options]
    values = [int(counts.get(o, 0)) for o in options]
    if correct is None:
        colours = [palette.QUERY] * len(options)
    else:
        colours = [palette.VALUE if i == correct else palette.NEUTRAL for i in range(len(options))]
    answered = sum(values)
    rows = bands(labels, 1)                       # each label above its bar, as the class's live chart
    bars = {"type": "bar", "orientation": "h", "x": values, "y": labels, "marker": {"color": colours},
            "offset": rows.offsets[0], "width": rows.width, "textfont": {"size": FONT}, "constraintext": "none",
            "text": [str(v) for v in values], "textposition": "outside", "cliponaxis": False,
            "hovertemplate": "%{x} chose this<extra></extra>"}
    top = max([*values, 1])
    return figure([bars], f"The class's answers ({answered} in all)", "students", "answer",
                  height=rows.height(len(labels)) + 50 + 40, legend=False,
                  override={"margin": {"l": 8, "r": 40, "b": 40}},
                  xaxis={"range": [0, top * 1.15], "showticklabels": False, "fixedrange": True},
                  barmode="overlay", **rows.layout)
