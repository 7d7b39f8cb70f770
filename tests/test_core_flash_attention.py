"""Tiled attention (the online softmax) against the plain formula, and the traffic counts against Dao et al."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra.numpy import arrays

from attention_core import (
    attention_flops,
    causal_mask,
    fits_in_sram,
    flash_attention,
    flash_attention_traffic,
    roofline,
    scaled_dot_product_attention,
    standard_attention_traffic,
)


@st.composite
def problems(draw):
    n_q, n_k, d_k, d_v = (draw(st.integers(1, 9)) for _ in range(4))
    scale = draw(st.floats(0.01, 30))
    entries = st.floats(-1, 1, allow_nan=False)
    Q = draw(arrays(np.float64, (n_q, d_k), elements=entries)) * scale
    K = draw(arrays(np.float64, (n_k, d_k), elements=entries)) * scale
    V = draw(arrays(np.float64, (n_k, d_v), elements=st.floats(-30, 30, allow_nan=False)))
    return Q, K, V, draw(st.integers(1, n_k + 3))


def close(a, b, V):
    """Equal to floating-point precision: a few ulps of the largest value blended."""
    np.testing.assert_allclose(a, b, rtol=0, atol=1e-12 * max(1.0, np.abs(V).max()))


@settings(max_examples=200, deadline=None)
@given(problems())
def test_tiled_output_equals_plain_attention_for_every_block_size(problem):
    Q, K, V, B = problem
    close(flash_attention(Q, K, V, B).output, scaled_dot_product_attention(Q, K, V).output, V)


@settings(max_examples=200, deadline=None)
@given(problems())
def test_causal_tiled_output_equals_masked_attention(problem):
    Q, K, V, B = problem
    Q = Q[: K.shape[0]]                                   # causal: queries are the last n_q tokens
    mask = causal_mask(Q.shape[0], K.shape[0])
    plain = scaled_dot_product_attention(Q, K, V, mask=mask).output
    close(flash_attention(Q, K, V, B, causal=True).output, plain, V)


@settings(max_examples=100, deadline=None)
@given(problems())
def test_running_statistics_are_the_softmax_of_the_keys_seen_so_far(problem):
    """After each block, m is the max of the scores seen, ℓ = Σ e^(s − m) over them, and the partial output
    is plain attention over those keys alone; the rescale factor is e^(m_old − m_new) ≤ 1."""
    Q, K, V, B = problem
    trace = flash_attention(Q, K, V, B)
    full = Q @ K.T / np.sqrt(K.shape[1])                  # the reference, formed here only
    assert trace.n_blocks == -(-K.shape[0] // B)
    for step in trace.steps:
        seen = full[:, : step.stop]
        # a block's product may round differently from the full one's (BLAS picks its own order): ulps apart
        np.testing.assert_allclose(step.m_new, seen.max(axis=1), rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(step.l, np.exp(seen - step.m_new[:, None]).sum(axis=1), rtol=1e-9)
        close(step.partial, scaled_dot_product_attention(Q, K[: step.stop], V[: step.stop]).output, V)
        assert np.all((step.rescale >= 0) & (step.rescale <= 1))          # e^(m_old − m_new), m_new ≥ m_old
        if step.start > 0:
            np.testing.assert_allclose(step.rescale, np.exp(step.m_old - step.m_new), rtol=1e-15)
        assert step.scores.shape == (Q.shape[0], step.stop - step.start)   # never wider than one block


def test_last_partial_block_and_one_block_are_covered():
    rng = np.random.default_rng(1)
    Q, K, V = rng.standard_normal((3, 4)), rng.standard_normal((10, 4)), rng.standard_normal((10, 2))
    trace = flash_attention(Q, K, V, 4)
    assert [(s.start, s.stop) for s in trace.steps] == [(0, 4), (4, 8), (8, 10)]
    assert flash_attention(Q, K, V, 50).n_blocks == 1
    close(trace.output, scaled_dot_product_attention(Q, K, V).output, V)


def test_a_block_that_raises_the_max_rescales_what_came_before():
    Q = np.array([[1.0]])
    K = np.array([[0.0], [5.0]])                          # the second key's score is 5 higher
    V = np.array([[1.0], [0.0]])
    first, second = flash_attention(Q, K, V, 1).steps
    assert first.l[0] == 1.0 and first.partial[0, 0] == 1.0
    assert second.rescale[0] == pytest.approx(np.exp(-5.0))
    assert second.l[0] == pytest.approx(np.exp(-5.0) + 1.0)


def test_bad_inputs_give_readable_errors():
    Q = np.ones((2, 2))
    with pytest.raises(ValueError, match="block size"):
        flash_attention(Q, Q, Q, 0)
    with pytest.raises(ValueError, match="causal"):
        flash_attention(np.ones((3, 2)), Q, Q, 1, causal=True)
    with pytest.raises(ValueError, match="columns"):
        flash_attention(Q, np.ones((2, 3)), Q, 1)


def test_the_trace_cannot_be_changed():
    trace = flash_attention(np.ones((2, 2)), np.ones((3, 2)), np.ones((3, 2)), 2)
    with pytest.raises(ValueError):
        trace.output[0, 0] = 5.0


@pytest.mark.parametrize("n, d", [(1, 1), (1024, 64), (8192, 64), (16384, 128)])
def test_standard_traffic_counts_algorithm_zero_term_by_term(n, d):
    t = standard_attention_traffic(n, d)
    # reads Q, K, S, P, V; writes S, P, O (each S or P is N × N, each of Q, K, V, O is N × d)
    assert t.reads == n * d + n * d + n * n + n * n + n * d
    assert t.writes == n * n + n * n + n * d
    assert t.bytes == 2 * (t.reads + t.writes)


def test_tiled_traffic_is_the_loop_of_algorithm_one():
    n, d, b = 1000, 64, 300                               # 4 key blocks, the last one partial
    t = flash_attention_traffic(n, d, b)
    kv = 2 * n * d                                        # each K_j, V_j read once
    per_block_reads, per_block_writes = 2 * n * d + 2 * n, n * d + 2 * n      # Q_i, O_i, ℓ_i, m_i in; O_i, ℓ_i, m_i out
    assert t.reads == kv + 4 * per_block_reads
    assert t.writes == (n * d + 2 * n) + 4 * per_block_writes                 # + initialising O, ℓ, m


def test_tiled_traffic_follows_the_papers_order_of_growth():
    """Θ(N²d²/M) with B_c = M/(4d): doubling N about quadruples it; the standard count's N² term dominates."""
    M, d = 98_304, 64
    b = M // (4 * d)
    ratio = flash_attention_traffic(32_768, d, b).elements / flash_attention_traffic(16_384, d, b).elements
    assert 3.8 < ratio < 4.05
    n = 16_384
    model = n * n * d * d / M
    assert 1 < flash_attention_traffic(n, d, b).elements / model < 20
    assert standard_attention_traffic(n, d).elements / flash_attention_traffic(n, d, b).elements > 5
    assert fits_in_sram(b, d, M) and not fits_in_sram(b + 1, d, M)


def test_roofline_of_plain_attention_at_8k_is_memory_bound_on_an_a100():
    n, d = 8192, 64
    r = roofline(attention_flops(n, d), standard_attention_traffic(n, d).bytes, 312e12, 1555e9)
    assert r.flops == 4 * n * n * d
    assert r.ridge == pytest.approx(312e12 / 1555e9)
    assert r.intensity == pytest.approx(r.flops / r.bytes) and r.intensity < r.ridge
    assert r.memory_bound and r.memory_seconds == pytest.approx(r.bytes / 1555e9)
