"""The lookup figures: bars of scores, weights and outputs, and the self-attention heatmap."""

import numpy as np

from figures import palette
from figures.queries_keys_values import output_bars, scores_and_weights, self_attention_heatmap

TITLES = ["chain", "tap", "bread"]


def test_scores_are_horizontal_in_table_order_with_room_for_negatives():
    fig = scores_and_weights(TITLES, np.array([2.0, -1.0, 0.0]), np.array([0.7, 0.2, 0.1]))
    bar = fig.data[0]
    assert bar.type == "bar" and bar.orientation == "h" and bar.xaxis == "x"
    assert list(bar.y) == TITLES and list(bar.x) == [2.0, -1.0, 0.0]
    assert bar.marker.color == palette.SCORES
    assert fig.layout.xaxis.range[0] < -1.0 < 2.0 < fig.layout.xaxis.range[1]
    assert fig.layout.yaxis.autorange == "reversed" and "score" in fig.layout.xaxis.title.text


def test_weights_share_the_rows_on_their_own_unit_axis_beside_the_scores():
    fig = scores_and_weights(TITLES, np.array([2.0, -1.0, 0.0]), np.array([0.7, 0.2, 0.1]))
    bar = fig.data[1]
    assert bar.marker.color == palette.WEIGHTS and list(bar.x) == [0.7, 0.2, 0.1] and bar.xaxis == "x2"
    assert list(bar.y) == list(fig.data[0].y)                      # one row per key, labelled once
    assert fig.layout.xaxis2.range[0] == 0 and "weight" in fig.layout.xaxis2.title.text
    assert fig.layout.xaxis.domain[1] < fig.layout.xaxis2.domain[0]   # side by side, not overlapping
    assert fig.layout.showlegend is False


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


def test_each_row_has_room_for_its_wrapped_title_at_the_tick_font():
    """Five two-line titles at 14 px overlapped each other in a fixed 166 px plot: the plot grows with the
    rows and the lines of their titles (a line of type takes about 1.3 times its size)."""
    from figures._layout import FONT

    titles = ["Replace a bicycle chain", "Fix a dripping tap", "Sourdough for beginners", "Cycling playlist",
              "Cooking with jazz", "Knots for sailors", "Tuning a guitar"]
    for n in (1, 3, 5, 7):
        fig = scores_and_weights(titles[:n], np.linspace(0.0, 2.0, n), np.full(n, 1.0 / n))
        lines = max(str(y).count("<br>") + 1 for y in fig.data[0].y)
        m = fig.layout.margin
        plot = fig.layout.height - m.t - m.b
        assert fig.layout.yaxis.tickfont.size >= FONT
        assert plot / n >= lines * 1.3 * fig.layout.yaxis.tickfont.size, (n, plot)


def test_output_legend_hangs_below_the_axis_title_not_a_fraction_of_the_plot():
    from figures._layout import LEGEND_DROP

    fig = output_bars(["fixing", "cooking", "listening"], np.array([0.5, 0.1, 0.2]), np.array([0.9, 0.0, 0.1]))
    m = fig.layout.margin
    plot = fig.layout.height - m.t - m.b
    assert -fig.layout.legend.y * plot >= LEGEND_DROP - 1e-9       # its top sits under ticks and the axis title
    assert m.b >= LEGEND_DROP + 2 * 1.3 * fig.layout.legend.font.size  # and its two rows fit in the margin
