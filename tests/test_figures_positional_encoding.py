"""The word-order figures, checked on the figures they return."""

from __future__ import annotations

import numpy as np
import pytest

import attention_core as core
from figures import palette
from figures.positional_encoding import (
    FLOOR,
    frequency_figure,
    gap_figure,
    offset_figure,
    rotary_figure,
    similarity_figure,
)


def test_gap_figure_draws_one_bar_per_token_floored_and_escaped():
    tokens = ["[CLS]", "<b>x</b>", "the", "the"]
    off, on = np.array([0.0, 1e-7, 2e-6, 0.0]), np.array([0.5, 0.9, 0.0, 1.2])
    fig = gap_figure(tokens, off, on)
    bars = [t for t in fig.data if t.type == "bar"]
    assert [b.name for b in bars] == ["positions off", "positions on"]
    np.testing.assert_allclose(bars[0].y, np.maximum(off, FLOOR))
    np.testing.assert_allclose(bars[1].y, np.maximum(on, FLOOR))
    assert len(set(bars[0].x)) == 4                                  # the two "the" stay apart
    assert not any("<b>" in x for x in bars[0].x)
    assert fig.layout.yaxis.type == "log"
    with pytest.raises(ValueError):
        gap_figure(tokens, off[:2], on)


def test_similarity_figure_spans_minus_one_to_one_and_marks_the_offset():
    S = core.cosine_similarities(core.sinusoidal_positions(10, 8))
    fig = similarity_figure(S, "Sinusoidal", 3)
    heat = next(t for t in fig.data if t.type == "heatmap")
    assert (heat.zmin, heat.zmax) == (-1.0, 1.0)
    np.testing.assert_allclose(np.asarray(heat.z, dtype=float), S, atol=1e-6)
    line = next(t for t in fig.data if t.type == "scatter")
    assert list(line.x) == [3, 9] and list(line.y) == [0, 6]         # the pairs (p, p + 3)


def test_frequency_figure_draws_the_two_columns_of_the_pair():
    table = core.sinusoidal_positions(20, 16)
    fig = frequency_figure(np.arange(20), table[:, 6], table[:, 7], 3)
    sin, cos = fig.data
    np.testing.assert_allclose(sin.y, np.sin(np.arange(20) * 10_000 ** (-6 / 16)))
    np.testing.assert_allclose(cos.y, np.cos(np.arange(20) * 10_000 ** (-6 / 16)))
    assert "column 6" in sin.name and "column 7" in cos.name


def test_offset_figure_has_both_tables_and_a_line_at_the_offset():
    fig = offset_figure(np.arange(5), np.linspace(1, 0, 5), np.linspace(1, 0.5, 5), 2)
    assert [t.name for t in fig.data] == ["sinusoidal", "learned (MiniLM)"]
    assert fig.layout.shapes[0].x0 == 2


def test_rotary_figure_draws_the_turned_vectors_on_equal_axes():
    q, k = np.array([1.0, 0.3]), np.array([0.6, 0.8])
    r = core.rotary_pair(q, k, 2, 5, np.pi / 12)
    fig = rotary_figure(q, k, r.q_m, r.k_n, 2, 5)
    by_name = {t.name: t for t in fig.data}
    np.testing.assert_allclose([by_name["q at position 2"].x[1], by_name["q at position 2"].y[1]], r.q_m)
    np.testing.assert_allclose([by_name["k at position 5"].x[1], by_name["k at position 5"].y[1]], r.k_n)
    assert by_name["q at position 0"].line.color == palette.QUERY
    assert fig.layout.yaxis.scaleanchor == "x"


def test_gap_figure_labels_at_most_24_tokens_and_hangs_its_legend_below_them():
    tokens = [f"w{i}" for i in range(60)]
    fig = gap_figure(tokens, np.zeros(60), np.ones(60))
    assert list(fig.layout.xaxis.tickvals) == [f"{i}: w{i}" for i in range(0, 60, 3)]
    assert len(fig.data[0].x) == 60
    assert fig.layout.legend.y < -0.3
