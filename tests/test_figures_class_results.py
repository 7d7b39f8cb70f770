"""The share right per question and round (figures/class_results.py): values, order, gaps, escaping."""

from __future__ import annotations

import pytest

from figures.class_results import ROUND_COLOURS, share_right_figure


def test_one_bar_per_question_and_round_in_percent():
    fig = share_right_figure(["Why √dₖ?", "What does softmax do?"],
                             {"First vote": [0.3, 0.9], "After discussion": [0.8, None]})
    first, second = fig.data
    assert (first.name, second.name) == ("First vote", "After discussion")
    assert list(first.x) == pytest.approx([30.0, 90.0]) and list(first.text) == ["30 %", "90 %"]
    assert list(second.x) == [80.0, 0] and list(second.text) == ["80 %", "–"]   # not asked: no 0 % claimed
    assert fig.layout.yaxis.autorange == "reversed" and fig.layout.barmode == "group"
    assert first.marker.color == ROUND_COLOURS[0] and second.marker.color == ROUND_COLOURS[1]
    assert fig.layout.showlegend and first.textfont.size >= 14            # read from the back of the room


def test_a_single_round_has_no_legend_and_the_question_on_hover_is_escaped():
    fig = share_right_figure(["<b>x</b> or y?", "Second?"], {"First vote": [0.5, 1.0]})
    assert not fig.layout.showlegend and list(fig.data[0].y) == ["Q1", "Q2"]
    assert "<b>" not in fig.data[0].customdata[0] and "&lt;b&gt;" in fig.data[0].customdata[0]
    assert fig.data[0].customdata[1] == "Second?"


def test_a_round_of_the_wrong_length_is_refused():
    with pytest.raises(ValueError):
        share_right_figure(["a", "b"], {"First vote": [0.5]})
