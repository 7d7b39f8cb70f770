"""The share right per question and round (figures/class_results.py): values, order, gaps, escaping."""

from __future__ import annotations

import pytest

from figures.class_results import ROUND_COLOURS, SHORT_CHARS, share_right_figure
from figures.class_votes import LABEL_CHARS


def test_one_bar_per_question_and_round_in_percent():
    fig = share_right_figure(["Why √dₖ?", "What does softmax do?"],
                             {"First vote": [0.3, 0.9], "After discussion": [0.8, None]})
    first, second = fig.data
    assert (first.name, second.name) == ("First vote", "After discussion")
    assert list(first.x) == pytest.approx([30.0, 90.0]) and list(first.text) == ["30 %", "90 %"]
    assert list(second.x) == [80.0, 0] and list(second.text) == ["80 %", "–"]   # not asked: no 0 % claimed
    assert fig.layout.yaxis.range[0] > fig.layout.yaxis.range[1]           # the first question on top
    assert first.offset < second.offset and first.offset + first.width <= second.offset   # side by side
    assert first.marker.color == ROUND_COLOURS[0] and second.marker.color == ROUND_COLOURS[1]
    assert fig.layout.showlegend and first.textfont.size >= 14            # read from the back of the room


def test_a_single_round_has_no_legend_and_the_question_on_hover_is_escaped():
    fig = share_right_figure(["<b>x</b> or y?", "Second?"], {"First vote": [0.5, 1.0]})
    assert not fig.layout.showlegend
    assert "<b>" not in fig.data[0].customdata[0] and "&lt;b&gt;" in fig.data[0].customdata[0]
    assert fig.data[0].customdata[1] == "Second?"


def test_a_round_of_the_wrong_length_is_refused():
    with pytest.raises(ValueError):
        share_right_figure(["a", "b"], {"First vote": [0.5]})


def test_each_question_is_named_by_its_number_and_short_text_escaped():
    long = "Why does the spread of q·k grow with dₖ when every component has variance one, " * 3
    questions = ["<b>x</b> or y?", long, "<b>x</b> or y?"]
    fig = share_right_figure(questions, {"First vote": [0.5, 1.0, None]})
    labels = [a.text for a in fig.layout.annotations]
    assert list(fig.data[0].y) == labels and len(set(labels)) == 3          # one row each, even for a repeat
    plain = [label.replace("<br>", " ") for label in labels]
    assert plain[0] == "1. &lt;b&gt;x&lt;/b&gt; or y?" and plain[2].startswith("3. ")
    assert plain[1].startswith("2. Why does the spread") and plain[1].endswith("…")
    assert len(plain[1]) <= len("2. ") + SHORT_CHARS + 1
    assert all(len(line) <= LABEL_CHARS for label in labels for line in label.split("<br>"))
    assert not any("<b>" in label for label in labels)
    assert fig.data[0].customdata[1].replace("<br>", " ").startswith("Why does")   # the whole text on hover


def test_the_counts_table_keeps_each_count_in_its_own_cell_escaped():
    from figures._layout import presented
    from figures.class_results import counts_table_figure

    fig = counts_table_figure(["#", "First vote", "After discussion", "Option"],
                              [[1, 1], [3, 0], [None, 2], ["<i>a</i>", "b"]])
    (table,) = fig.data
    assert [list(c) for c in table.cells.values] == [["1", "1"], ["3", "0"], ["–", "2"], ["&lt;i&gt;a&lt;/i&gt;", "b"]]
    assert presented(fig).data[0].cells.font.size >= 18 and presented(fig).data[0].header.font.size >= 18
    with pytest.raises(ValueError):
        counts_table_figure(["#", "Option"], [[1, 2], ["a"]])
