"""The lookup figures: bars of scores, weights and outputs, and the self-attention heatmap."""

import numpy as np

from figures import palette
from figures.lookup import output_bars, score_bars, self_attention_heatmap, weight_bars

TITLES = ["chain", "tap", "bread"]


def test_score_bars_are_horizontal_in_table_order_with_room_for_negatives():
    fig = score_bars(TITLES, np.array([2.0, -1.0, 0.0]))
    bar = fig.data[0]
    assert bar.type == "bar" and bar.orientation == "h"
    assert list(bar.y) == TITLES and list(bar.x) == [2.0, -1.0, 0.0]
    assert bar.marker.color == palette.SCORES
    assert fig.layout.xaxis.range[0] < -1.0 < 2.0 < fig.layout.xaxis.range[1]
    assert fig.layout.yaxis.autorange == "reversed" and fig.layout.xaxis.title.text == "score"


def test_weight_bars_use_the_weights_colour_and_a_unit_axis():
    fig = weight_bars(TITLES, np.array([0.7, 0.2, 0.1]))
    assert fig.data[0].marker.color == palette.WEIGHTS and list(fig.data[0].x) == [0.7, 0.2, 0.1]
    assert fig.layout.xaxis.range[0] == 0 and fig.layout.xaxis.title.text == "weight α"


def test_output_bars_with_and_without_a_hard_match():
    soft = np.array([0.5, 0.1, 0.2])
    fig = output_bars(["fixing", "cooking", "listening"], soft, np.array([0.9, 0.0, 0.1]))
    assert [t.name for t in fig.data] == ["soft lookup Σ αⱼ vⱼ", "hard lookup value"]
    assert list(fig.data[0].y) == list(soft) and fig.data[0].marker.color == palette.OUTPUT
    assert fig.layout.barmode == "group"
    assert len(output_bars(["a", "b", "c"], soft, None).data) == 1


def test_self_attention_heatmap_rows_are_queries():
    w = np.array([[0.1, 0.8, 0.1], [0.9, 0.05, 0.05], [0.94, 0.03, 0.03]])
    fig = self_attention_heatmap(["robot", "repaired", "it"], w)
    hm = fig.data[0]
    assert hm.type == "heatmap" and np.allclose(np.array(hm.z), w)
    assert list(hm.x) == list(hm.y) == ["robot", "repaired", "it"]
    assert (hm.zmin, hm.zmax) == (0, 1)
    assert fig.layout.yaxis.title.text.startswith("query") and fig.layout.xaxis.title.text.startswith("key")
