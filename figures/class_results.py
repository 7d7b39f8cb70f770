"""A class's results: the share of the class that chose the right option, per question and round."""

from __future__ import annotations

from html import escape

import plotly.graph_objects as go

from figures import palette
from figures._layout import FONT, figure, text_px, wrapped

# One colour per round, in order: the first vote (or the pre-class check), then after discussion (or the exit).
ROUND_COLOURS = (palette.NEUTRAL, palette.VALUE)


def share_right_figure(questions: list[str], rounds: dict[str, list[float | None]],
                       title: str = "Share of the class right") -> go.Figure:
    """One row per question (the first at the top, labelled Q1, Q2… as the results table numbers them, its text
    on hover), one bar per round: the percent of that round's answers that were right. ``rounds`` maps a round's
    label to a share (0..1) per question, None where the round was not asked or had no answers (no bar, and "–"
    at its place, never a 0 % it did not score). Short labels leave the bars the width of a phone."""
    if any(len(shares) != len(questions) for shares in rounds.values()):
        raise ValueError("each round needs one share per question")
    labels = [f"Q{n}" for n in range(1, len(questions) + 1)]
    # Questions may hold a learner's words (the lab's tokens): escaped after wrapping (Plotly renders HTML).
    texts = ["<br>".join(escape(line) for line in wrapped(q, 40).split("<br>")) for q in questions]
    traces = []
    for i, (label, shares) in enumerate(rounds.items()):
        percents = [None if s is None else 100.0 * s for s in shares]
        traces.append({"type": "bar", "orientation": "h", "name": label, "y": labels,
                       "x": [0 if p is None else p for p in percents],
                       "marker": {"color": ROUND_COLOURS[i % len(ROUND_COLOURS)]},
                       "text": ["–" if p is None else f"{p:.0f} %" for p in percents], "textposition": "outside",
                       "textfont": {"size": FONT}, "constraintext": "none",     # never shrunk to the bar
                       "customdata": texts, "cliponaxis": False,
                       "hovertemplate": f"%{{customdata}}<br>{escape(label)}: %{{text}}<extra></extra>"})
    row = 26 * max(len(rounds), 1) + 14
    left = text_px(labels) + 28
    return figure(traces, title, "percent right", "question", height=max(len(labels), 1) * row + 110,
                  legend=len(rounds) > 1, override={"margin": {"l": left, "r": 56}},
                  xaxis={"range": [0, 115], "tickvals": [0, 25, 50, 75, 100]},
                  yaxis={"autorange": "reversed"}, barmode="group", bargap=0.25)
