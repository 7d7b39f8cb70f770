"""The class's answers as bars (figures/classroom.py, and the live chart of figures/class_votes.py): counts,
order, no hint before the reveal, escaping, and readable on a phone (labels above full-width bars)."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, strategies as hs

from figures import palette
from figures._layout import presented
from figures.class_votes import votes_figure
from figures.classroom import poll_figure

OPTIONS = ("It stays about the same: the components have variance 1 whatever dₖ is.", "It doubles", "<b>bold</b>")


def test_one_bar_per_option_in_order_with_its_count():
    fig = poll_figure(OPTIONS, {OPTIONS[0]: 2, OPTIONS[2]: 5})
    bar = fig.data[0]
    assert list(bar.x) == [2, 0, 5] and [t for t in bar.text] == ["2", "0", "5"]
    assert len(bar.y) == 3 and fig.layout.yaxis.range[0] > fig.layout.yaxis.range[1]   # first option on top
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


# --- the live chart on a 390 px phone and on the projector ---------------------------------------------------------

PHONE_PLOT = 390 - 2 * 16                    # a phone's chart: the page's width less Streamlit's padding


def _charts():
    counts = {OPTIONS[0]: 12, OPTIONS[1]: 3}
    return [votes_figure(OPTIONS, (counts,)), votes_figure(OPTIONS, (counts, {OPTIONS[2]: 17}), 0),
            poll_figure(OPTIONS, counts, 1)]


def _sizes(node):
    if isinstance(node, dict):
        for k, v in node.items():
            if k.endswith("font") and isinstance(v, dict) and "size" in v:
                yield v["size"]
            yield from _sizes(v)
    elif isinstance(node, list):
        for v in node:
            yield from _sizes(v)


@pytest.mark.parametrize("fig", _charts())
def test_horizontal_bars_with_their_labels_above_across_the_whole_width(fig):
    assert {t.orientation for t in fig.data} == {"h"}
    notes = fig.layout.annotations
    assert [n.text for n in notes] == list(fig.data[0].y)                  # one label per option, its own text
    assert not fig.layout.yaxis.visible                                     # no label squeezing the bars aside
    margin = fig.layout.margin
    assert PHONE_PLOT - margin.l - margin.r >= 0.75 * PHONE_PLOT
    assert all(n.xref == "paper" and n.x == 0 and n.xanchor == "left" for n in notes)
    for i, note in enumerate(notes):                                        # above its bars, below the row before
        bars_top = min(i + t.offset for t in fig.data)
        assert i - 0.5 < note.y <= bars_top and note.yanchor == "bottom"
        lines = note.text.count("<br>") + 1
        room = (note.y - (i - 0.5)) * (fig.layout.height - margin.t - margin.b) / len(notes)
        assert room >= 1.2 * note.font.size * lines                         # the label's lines fit its row
    for t in fig.data:                                                       # the rounds' bars do not overlap
        assert t.width > 0
    offsets = sorted(t.offset for t in fig.data)
    assert all(b - a >= fig.data[0].width for a, b in itertools.pairwise(offsets))


@pytest.mark.parametrize("fig", _charts())
def test_no_axis_numbers_to_overlap_and_every_label_12_px_on_a_phone_18_on_the_projector(fig):
    assert fig.layout.xaxis.showticklabels is False                       # each bar carries its own count
    assert all(t.textposition == "outside" and t.constraintext == "none" for t in fig.data)
    assert min(_sizes(fig.to_dict()["layout"])) >= 12 and min(_sizes(fig.to_dict()["data"])) >= 12
    shown = presented(fig).to_dict()
    assert min(_sizes(shown["layout"])) >= 18 and min(_sizes(shown["data"])) >= 18
    top = max(v for t in fig.data for v in t.x)
    assert fig.layout.xaxis.range[1] >= 1.15 * max(top, 1)                # room for the count beyond the bar
