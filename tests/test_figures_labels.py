"""figures.labels: label places checked against the boxes Plotly draws, at every view, and the search's answers
checked against what a brute-force search over every combination finds."""

import itertools

import numpy as np
from hypothesis import example, given, settings, strategies as st

from figures.labels import GAP, POSITIONS, View, clashes, place_labels, text_width, views

NARROW = views((200, 900), 300)


def test_crowded_points_get_labels_on_different_sides():
    x, y = [0.0, 0.05, 0.1, 1.0], [0.0, 0.0, 0.0, 1.0]
    texts = ["alpha", "beta", "gamma", "far"]
    places = place_labels(x, y, texts, [9] * 4, (-0.5, 1.5), (-0.5, 1.5), NARROW)
    assert clashes(x, y, texts, [9] * 4, (-0.5, 1.5), (-0.5, 1.5), NARROW, places) == []
    assert place_labels([], [], [], [], (0, 1), (0, 1), NARROW) == []


def test_a_label_at_the_edge_turns_inward():
    x, y = [0.0, 1.0], [1.0, 0.0]                      # top-left and bottom-right corners of the data
    texts = ["a long word", "another long word"]
    places = place_labels(x, y, texts, [9, 9], (-0.05, 1.05), (-0.1, 1.1), NARROW)
    assert "left" not in places[0] and not places[0].startswith("top")
    assert "right" not in places[1] and not places[1].startswith("bottom")
    assert clashes(x, y, texts, [9, 9], (-0.05, 1.05), (-0.1, 1.1), NARROW, places) == []


def test_clashes_sees_a_meeting_a_cover_and_an_edge():
    x, y, texts = [0.5, 0.52], [0.5, 0.5], ["one", "two"]
    found = clashes(x, y, texts, [9, 9], (0, 1), (0, 1), (View(300, 300),), ["top center", "top center"])
    assert any("meets" in c for c in found)
    found = clashes([0.5, 0.6], [0.5, 0.5], texts, [9, 9], (0, 1), (0, 1), (View(300, 300),),
                    ["middle right", "top center"])
    assert any("covers the point of 'two'" in c for c in found)
    found = clashes([0.99], [0.5], ["edge"], [9], (0, 1), (0, 1), (View(300, 300),), ["middle right"])
    assert any("leaves the plot" in c for c in found)


def test_an_optional_label_gives_way_rather_than_overlap():
    x, y, texts = [0.5, 0.5, 0.5], [0.5, 0.46, 0.54], ["middle word", "under", "z"]
    places = place_labels(x, y, texts, [9, 9, 9], (0, 1), (0, 1), (View(200, 200),), optional=(2,))
    kept = [i for i, p in enumerate(places) if p]
    assert places[2] is None or not clashes([x[i] for i in kept], [y[i] for i in kept], [texts[i] for i in kept],
                                            [9] * len(kept), (0, 1), (0, 1), (View(200, 200),),
                                            [places[i] for i in kept])
    assert places[0] and places[1]                      # a word that is not optional keeps its label


def test_text_width_grows_with_length_font_and_bold():
    assert text_width("ab", 14) < text_width("abcd", 14) < text_width("abcd", 18)
    assert text_width("<b>abcd</b>", 14) > text_width("abcd", 14)


def test_a_gap_open_at_both_ends_of_the_width_range_is_open_between():
    # Why two views suffice: boxes move apart along x in proportion to the width, so clear at 200 and 900 px
    # means clear at every width in between.
    rng = np.random.default_rng(7)
    x, y = rng.uniform(0, 1, 8), rng.uniform(0, 1, 8)
    texts = [f"w{i}" * 3 for i in range(8)]
    places = place_labels(x, y, texts, [9] * 8, (-0.3, 1.3), (-0.2, 1.2), NARROW)
    ends = clashes(x, y, texts, [9] * 8, (-0.3, 1.3), (-0.2, 1.2), NARROW, places)
    between = clashes(x, y, texts, [9] * 8, (-0.3, 1.3), (-0.2, 1.2), views(tuple(range(200, 901, 50)), 300),
                      places)
    assert ends or not between


@settings(max_examples=25, deadline=None)
@given(st.lists(st.tuples(st.floats(0, 1), st.floats(0, 1)), min_size=2, max_size=4))
@example([(0.0, 0.0625), (0.0625, 0.0), (0.0625, 0.0), (0.0625, 0.0)])    # three on one point: greedy missed it
def test_the_search_finds_a_clear_placing_whenever_one_exists(points):
    x, y = [p[0] for p in points], [p[1] for p in points]
    texts = ["word"] * len(points)
    args = (x, y, texts, [9] * len(points), (-0.4, 1.4), (-0.3, 1.3), NARROW)
    # Clear with the room the search keeps around each label (GAP), by brute force over every combination.
    exists = any(not clashes(*args, list(c), slack=-GAP, point_slack=0)
                 for c in itertools.product(POSITIONS, repeat=len(points)))
    assert not exists or clashes(*args, place_labels(*args)) == []
