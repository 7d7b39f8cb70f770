"""A class's results: the share of the class that chose the right option, per question and round."""

from __future__ import annotations

from html import escape

import plotly.graph_objects as go

from figures import palette
from figures._layout import FONT, figure, wrapped
from figures.class_votes import LABEL_CHARS, bands

# One colour per round, in order: the first vote (or the pre-class check), then after discussion (or the exit).
ROUND_COLOURS = (palette.NEUTRAL, palette.VALUE)


SHORT_CHARS = 80       # a question's short text on the chart (the whole on hover)


def short(text: str, limit: int = SHORT_CHARS) -> str:
    """``text`` cut at a word near ``limit`` characters, with an ellipsis when cut."""
    if len(text) <= limit:
        return text
    cut = text[:limit].rsplit(" ", 1)[0] if " " in text[:limit] else text[:limit]
    return cut.rstrip(" ,;:.") + "…"


def question_label(number: int, text: str, chars: int = LABEL_CHARS) -> str:
    """"3. Why divide by √dₖ?": the question's number in the results table and its short text, wrapped and
    escaped for Plotly (a question may hold a learner's words; Plotly renders HTML)."""
    return "<br>".join(escape(line) for line in wrapped(f"{number}. {short(text)}", chars).split("<br>"))


def share_right_figure(questions: list[str], rounds: dict[str, list[float | None]],
                       title: str = "Share of the class right", *, label_chars: int = LABEL_CHARS) -> go.Figure:
    """One row per question (the first at the top): its number and short text above one horizontal bar per
    round, the percent of that round's answers that were right (the whole question on hover). ``rounds`` maps
    a round's label to a share (0..1) per question, None where the round was not asked or had no answers (no
    bar, and "–" at its place, never a 0 % it did not score). The bars take the chart's whole width; a label's
    lines hold ``label_chars`` characters (the default fits a phone; a projector's full screen holds more)."""
    if any(len(shares) != len(questions) for shares in rounds.values()):
        raise ValueError("each round needs one share per question")
    labels = [question_label(n, q, label_chars) for n, q in enumerate(questions, 1)]
    texts = ["<br>".join(escape(line) for line in wrapped(q, 40).split("<br>")) for q in questions]
    rows = bands(labels, max(len(rounds), 1))
    traces = []
    for i, (label, shares) in enumerate(rounds.items()):
        percents = [None if s is None else 100.0 * s for s in shares]
        traces.append({"type": "bar", "orientation": "h", "name": label, "y": labels,
                       "x": [0 if p is None else p for p in percents],
                       "offset": rows.offsets[i], "width": rows.width,
                       "marker": {"color": ROUND_COLOURS[i % len(ROUND_COLOURS)]},
                       "text": ["–" if p is None else f"{p:.0f} %" for p in percents], "textposition": "outside",
                       "textfont": {"size": FONT}, "constraintext": "none",     # never shrunk to the bar
                       "customdata": texts, "cliponaxis": False,
                       "hovertemplate": f"%{{customdata}}<br>{escape(label)}: %{{text}}<extra></extra>"})
    return figure(traces, title, "percent right", "question", height=rows.height(len(labels)) + 50 + 56,
                  legend=len(rounds) > 1, override={"margin": {"l": 8, "r": 56, "b": 56}},
                  xaxis={"range": [0, 118], "tickvals": [0, 50, 100], "fixedrange": True},
                  barmode="overlay", **rows.layout)


def counts_table_figure(header: list[str], columns: list[list[object]], title: str = "Answers per option") -> go.Figure:
    """The results table as a figure, for the full-screen view (presented: every cell at least 18 px): one column
    per ``header``, cells as given (None: "–"), text escaped and long text wrapped."""
    if any(len(c) != len(columns[0]) for c in columns):
        raise ValueError("every column needs one cell per row")
    cells = [["–" if v is None else "<br>".join(escape(line) for line in wrapped(str(v), 56).split("<br>"))
              for v in column] for column in columns]
    lines = [max((c[i].count("<br>") + 1 for c in cells), default=1) for i in range(len(columns[0]))]
    widths = [max([len(h), *(min(len(str(v)), 56) for v in column)]) + 2 for h, column in zip(header, columns,
                                                                                               strict=True)]
    line = int(FONT * 1.6)
    table = {"type": "table", "columnwidth": widths,
             "header": {"values": [f"<b>{escape(h)}</b>" for h in header], "align": "left",
                        "font": {"size": FONT}, "height": line + 8},
             "cells": {"values": cells, "align": "left", "font": {"size": FONT}, "height": line + 6},
             "hoverinfo": "skip"}
    height = sum(n * line + 6 for n in lines) + line + 8
    return figure([table], title, height=height + 40, legend=False, override={"margin": {"l": 8, "r": 8, "b": 8}})
