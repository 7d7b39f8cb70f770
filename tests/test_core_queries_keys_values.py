"""Hard and soft lookup and the query/key alignment of a token, against naive references."""

import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import attention_core as core

K = np.array([[1, 1, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [1, 0, 0, 1]], float)
V = np.array([[0.9, 0, 0.1], [0.8, 0, 0], [0, 0.9, 0], [0, 0, 0.9]])


def test_hard_lookup_exact_match_or_null():
    assert core.hard_lookup([1, 1, 0, 0], K) == 0
    assert core.hard_lookup([0, 1, 0, 0], K) == 1
    assert core.hard_lookup([1, 1, 0.25, 0], K) is None
    assert core.hard_lookup([1, 0, 0, 0], np.vstack([K[[3]], [[1, 0, 0, 0]], [[1, 0, 0, 0]]])) == 1


def test_hard_lookup_rejects_a_query_of_the_wrong_length():
    with pytest.raises(ValueError, match="4 entries"):
        core.hard_lookup([1, 1], K)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.floats(-2, 2), min_size=4, max_size=4), st.floats(0.05, 10))
def test_soft_lookup_matches_a_naive_loop(q, T):
    out = core.soft_lookup(q, K, V, temperature=T)
    scores = [sum(a * b for a, b in zip(q, k, strict=True)) for k in K]
    e = [math.exp((s - max(scores)) / T) for s in scores]
    w = [x / sum(e) for x in e]
    np.testing.assert_allclose(out.scores, scores, atol=1e-12)
    np.testing.assert_allclose(out.weights, w, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(out.output, np.sum([w[j] * V[j] for j in range(len(V))], axis=0), atol=1e-12)


def test_soft_lookup_runs_from_hard_to_uniform():
    q = K[0]
    np.testing.assert_allclose(core.soft_lookup(q, K, V, 1e-3).output, V[core.hard_lookup(q, K)], atol=1e-9)
    np.testing.assert_allclose(core.soft_lookup(q, K, V, 1e6).output, V.mean(axis=0), atol=1e-5)


def test_self_alignment():
    Q = np.array([[0, 2], [2, 0], [1, 1], [0, 0]], float)
    Kx = np.array([[3, 0], [2, 0], [-1, -1], [1, 0]], float)
    np.testing.assert_allclose(core.self_alignment(Q, Kx), [0, 1, -1, 0], atol=1e-12)
