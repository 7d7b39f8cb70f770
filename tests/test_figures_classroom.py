"""The class's answers as bars (figures/classroom.py): counts, order, no hint before the reveal, escaping."""

from __future__ import annotations

import pytest
from hypothesis import given, strategies as hs

from figures import palette
from figures.classroom import poll_figure

OPTIONS = ("It stays about the same: the components have variance 1 whatever dₖ is.", "It doubles", "<b>bold</b>")


def test_one_bar_per_option_in_order_with_its_count():
    fig = poll_figure(OPTIONS, {OPTIONS[0]: 2, OPTIONS[2]: 5})
    bar = fig.data[0]
    assert list(bar.x) == [2, 0, 5] and [t for t in bar.text] == ["2", "0", "5"]
    assert len(bar.y) == 3 and fig.layout.yaxis.autorange == "reversed"      # first option on top
    assert "7 in all" in fig.layout.title.text.replace("<br>", " ")


def test_no_bar_is_marked_until_the_reveal():
    before = poll_figure(OPTIONS, {OPTIONS[1]: 3})
    assert len(set(before.data[0].marker.color)) == 1
    after = poll_figure(OPTIONS, {OPTIONS[1]: 3}, correct=1)
    colours = list(after.data[0].marker.color)
    assert colours[1] == palette.VALUE and colours[0] == colours[2] == palette.NEUTRAL


def test_option_text_is_escaped_for_plotly():
    fig = poll_figure(OPTIONS, {})
    assert "&lt;b&gt;bold&lt;/b&gt;" in fig.data[0].y[2] and "<b>" not in "".join(fig.data[0].y)


def test_every_row_is_tall_enough_for_its_longest_label():
    fig = poll_figure(OPTIONS, {})
    lines = max(label.count("<br>") + 1 for label in fig.data[0].y)
    plot = fig.layout.height - fig.layout.margin.t - fig.layout.margin.b
    assert plot / len(OPTIONS) >= 18 * lines


def test_a_correct_index_outside_the_options_is_refused():
    with pytest.raises(ValueError):
        poll_figure(OPTIONS, {}, correct=3)


@given(counts=hs.lists(hs.integers(0, 500), min_size=2, max_size=12))
def test_the_axis_always_holds_the_tallest_bar(counts):
    options = tuple(f"option {i}" for i in range(len(counts)))
    fig = poll_figure(options, dict(zip(options, counts, strict=True)))
    assert fig.layout.xaxis.range[1] > max(counts) and list(fig.data[0].x) == counts
