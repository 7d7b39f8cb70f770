"""The contextual vector of a word and the static-point experiment, against naive loops and closed forms."""

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings, strategies as st

import attention_core as core

VOCAB = pd.read_csv("assets/vocab/polysemy_2d.csv", comment="#").set_index("word")


def naive_context(x, X, T):
    scores = [sum(a * b for a, b in zip(x, row, strict=True)) for row in X]
    e = [math.exp((s - max(scores)) / T) for s in scores]
    w = [v / sum(e) for v in e]
    z = [sum(w[j] * X[j][c] for j in range(len(X))) for c in range(len(x))]
    return scores, w, z


def test_static_bank_is_the_centroid_of_the_seed_pair():
    senses = VOCAB[VOCAB["group"] == "sense"][["x", "y"]].to_numpy()
    np.testing.assert_allclose(senses, [[0.20, 0.90], [0.70, 0.50]])
    np.testing.assert_allclose(core.centroid(senses), [0.45, 0.70])   # the seed's 0.72 was a slip


def test_static_bank_scores_water_and_money_almost_equally():
    static = core.centroid(VOCAB[VOCAB["group"] == "sense"][["x", "y"]].to_numpy())
    water, money = VOCAB.loc["water", ["x", "y"]].to_numpy(float), VOCAB.loc["money", ["x", "y"]].to_numpy(float)
    assert abs(static @ water - static @ money) < 0.05
    assert static @ water == pytest.approx(0.45 * water[0] + 0.70 * water[1])


def test_vocabulary_has_both_clusters_and_two_senses():
    assert set(VOCAB["group"]) == {"sense", "river", "finance"}
    assert (VOCAB["group"] == "sense").sum() == 2
    assert VOCAB[["x", "y"]].notna().all().all() and VOCAB.index.is_unique


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 6).flatmap(lambda n: st.lists(st.tuples(st.floats(-3, 3), st.floats(-3, 3)),
                                                      min_size=n, max_size=n)),
       st.tuples(st.floats(-3, 3), st.floats(-3, 3)), st.floats(0.05, 5.0))
def test_contextualize_matches_a_naive_loop(X, x, T):
    trace = core.contextualize(x, X, temperature=T)
    scores, w, z = naive_context(x, X, T)
    np.testing.assert_allclose(trace.scores, scores, atol=1e-12)
    np.testing.assert_allclose(trace.weights, w, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(trace.z, z, rtol=1e-9, atol=1e-9)
    parts = [[w[j] * X[j][c] for c in range(len(x))] for j in range(len(X))]      # α_j x_j, token by token
    np.testing.assert_allclose(trace.contributions, parts, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(trace.contributions.sum(axis=0), trace.z, rtol=1e-9, atol=1e-9)


def test_river_context_pulls_bank_towards_the_river_sense_and_finance_the_other_way():
    senses = VOCAB[VOCAB["group"] == "sense"][["x", "y"]].to_numpy()
    static = core.centroid(senses)
    for group, sense in (("river", senses[0]), ("finance", senses[1])):
        X = np.vstack([static, VOCAB[VOCAB["group"] == group][["x", "y"]].to_numpy()])
        z = core.contextualize(static, X, temperature=0.5).z
        assert np.linalg.norm(z - sense) < np.linalg.norm(static - sense)


def test_temperature_limits():
    X = np.array([[0.1, 0.9], [0.45, 0.7], [0.9, 0.45]])
    x = np.array([0.45, 0.70])
    np.testing.assert_allclose(core.contextualize(x, X, 1e6).z, X.mean(axis=0), atol=1e-6)
    np.testing.assert_allclose(core.contextualize(x, X, 0.0).z, X[np.argmax(X @ x)])
    assert core.contextualize(x, X, 0.05).entropy < core.contextualize(x, X, 2.0).entropy


@pytest.mark.parametrize("d", [64, 1024, 4096])
def test_static_point_stays_halfway_at_any_dimension(d):
    run = core.sense_experiment(d, np.random.default_rng(7))
    assert run.relative_gap < 0.05                      # equally far from both senses
    assert run.dist_a == pytest.approx(run.dist_senses / 2, rel=0.1)
    assert run.dist_context < 0.5 * run.dist_a          # a context-built vector picks a side


def test_sense_experiment_is_reproducible_and_needs_a_generator():
    a = core.sense_experiment(32, np.random.default_rng(3))
    b = core.sense_experiment(32, np.random.default_rng(3))
    assert a == b
    with pytest.raises(ValueError, match="Generator"):
        core.sense_experiment(32, 3)
    with pytest.raises(ValueError, match="at least 1"):
        core.sense_experiment(0, np.random.default_rng(0))
