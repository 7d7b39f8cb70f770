"""The key–value cache: decoding one token at a time gives what recomputing everything gives, the causal mask
holds, the multiply-adds are counted right, and the byte formula matches real models' shapes."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from attention_core import (
    GPT2_SMALL,
    LLAMA2_7B,
    LLAMA2_7B_GQA,
    cache_bytes_per_token,
    cache_outgrows_weights,
    decode_all_uncached,
    decode_cached,
    decode_step,
    decode_token_flops,
    empty_cache,
    kv_cache_bytes,
    random_decoder,
    token_input,
)


def _inputs(weights, rng, T):
    return np.array([token_input(weights, int(rng.integers(0, weights.embeddings.shape[0])), t) for t in range(T)])


@settings(max_examples=40, deadline=None)
@given(layers=st.integers(1, 3), heads=st.integers(1, 4), d_head=st.integers(1, 6), T=st.integers(1, 12),
       seed=st.integers(0, 2**32 - 1))
def test_the_cached_decoder_gives_the_recomputed_outputs(layers, heads, d_head, T, seed):
    rng = np.random.default_rng(seed)
    w = random_decoder(rng, n_layers=layers, n_heads=heads, d_head=d_head, max_tokens=12)
    X = _inputs(w, rng, T)
    steps = decode_cached(X, w)
    full = decode_all_uncached(X, w)
    assert np.abs(np.array([s.output for s in steps]) - full.outputs).max() <= 1e-12
    for layer in range(layers):                          # the cache holds exactly the recomputed keys and values
        assert np.abs(steps[-1].cache.keys[layer] - full.keys[layer]).max() <= 1e-12
        assert np.abs(steps[-1].cache.values[layer] - full.values[layer]).max() <= 1e-12
        for t, step in enumerate(steps):                 # step t's weights are row t of the masked weights
            assert np.abs(step.layers[layer].weights - full.weights[layer][:, t, : t + 1]).max() <= 1e-12
    assert [s.cache.n_tokens for s in steps] == list(range(1, T + 1))


def test_a_later_token_never_changes_an_earlier_output():
    rng = np.random.default_rng(7)
    w = random_decoder(rng, n_layers=2, n_heads=3, d_head=4)
    X = _inputs(w, rng, 9)
    full = decode_all_uncached(X, w)
    changed = X.copy()
    changed[5:] = rng.standard_normal(changed[5:].shape)
    again = decode_all_uncached(changed, w)
    assert np.array_equal(full.outputs[:5], again.outputs[:5])
    assert not np.allclose(full.outputs[5:], again.outputs[5:])
    for weights in full.weights:                         # no weight above the diagonal, each row sums to 1
        assert np.all(np.triu(weights, 1) == 0)
        assert np.allclose(weights.sum(-1), 1)


def test_one_step_projects_one_token_and_reads_the_cache():
    rng = np.random.default_rng(3)
    w = random_decoder(rng, n_layers=1, n_heads=2, d_head=3)
    X = _inputs(w, rng, 4)
    cache = decode_cached(X[:3], w)[-1].cache
    step = decode_step(X[3], cache, w)
    assert np.array_equal(step.cache.keys[0][:3], cache.keys[0])   # the old rows are kept, not recomputed
    k_new = (X[3] @ w.W_K[0]).reshape(2, 3)
    assert np.allclose(step.cache.keys[0][3], k_new)
    assert step.layers[0].weights.shape == (2, 4)
    with pytest.raises(ValueError):
        decode_step(X[3], empty_cache(random_decoder(rng, n_layers=2, n_heads=2, d_head=3)), w)


def test_multiply_adds_are_counted_as_the_loops_would():
    w = random_decoder(np.random.default_rng(0), n_layers=2, n_heads=3, d_head=4)
    d, hd, L = w.d_model, w.n_heads * w.d_head, w.n_layers
    X = _inputs(w, np.random.default_rng(1), 10)
    for t, step in enumerate(decode_cached(X, w), start=1):
        per_layer = 3 * d * hd + w.n_heads * (t * w.d_head + t * w.d_head) + hd * d
        assert step.multiply_adds == L * per_layer
        full = decode_all_uncached(X[:t], w)
        per_layer = 3 * t * d * hd + w.n_heads * 2 * t * t * w.d_head + t * hd * d
        assert full.multiply_adds == L * per_layer


def test_the_byte_formula_for_gpt2_small_at_1024_tokens():
    # Per token: a key and a value of 12 heads × 64 numbers = 768 each (d_model), in 12 layers, 2 bytes each.
    d_model = 768
    per_token = 12 * (d_model + d_model) * 2
    assert kv_cache_bytes(n_layers=12, n_kv_heads=12, d_head=64, n_tokens=1024) == per_token * 1024
    assert per_token * 1024 == 36 * 2**20                    # 36 MiB
    assert cache_bytes_per_token(GPT2_SMALL) == per_token


def test_the_byte_formula_for_the_7b_shapes():
    # One layer's K and V for one token are each 4,096 numbers (32 heads × 128); with 8 groups, a quarter.
    for shape, width in ((LLAMA2_7B, 4096), (LLAMA2_7B_GQA, 1024)):
        for tokens, batch, size in ((4096, 1, 2), (1, 8, 1), (32_768, 2, 4)):
            expected = sum(2 * width * size for _layer in range(32)) * tokens * batch
            got = kv_cache_bytes(n_layers=32, n_kv_heads=shape.n_kv_heads, d_head=128, n_tokens=tokens,
                                 batch=batch, bytes_per_value=size)
            assert got == expected
    assert kv_cache_bytes(n_layers=32, n_kv_heads=32, d_head=128, n_tokens=4096) == 2 * 2**30    # 2 GiB
    for bad in (-1, 1.5, True, "3"):
        with pytest.raises(ValueError):
            kv_cache_bytes(n_layers=bad, n_kv_heads=1, d_head=1, n_tokens=1)


def test_parameter_counts_follow_the_architectures():
    vocab, ctx, d = 50_257, 1024, 768                     # GPT-2 small, output layer tied to the embeddings
    layer = 2 * 2 * d + (d * 3 * d + 3 * d) + (d * d + d) + (d * 4 * d + 4 * d) + (4 * d * d + d)
    assert GPT2_SMALL.n_params == vocab * d + ctx * d + 12 * layer + 2 * d
    vocab, d, d_ff = 32_000, 4096, 11_008                 # Llama 2 7B: untied output, RMSNorm, SwiGLU

    def llama(kv_width):
        return 2 * vocab * d + 32 * (2 * d * d + 2 * d * kv_width + 3 * d * d_ff + 2 * d) + d

    assert LLAMA2_7B.n_params == llama(4096)
    assert LLAMA2_7B_GQA.n_params == llama(1024)


@pytest.mark.parametrize("shape", [GPT2_SMALL, LLAMA2_7B, LLAMA2_7B_GQA])
@pytest.mark.parametrize("batch, size", [(1, 2), (1, 1), (4, 4), (64, 2)])
def test_the_cache_outgrows_the_weights_exactly_there(shape, batch, size):
    weights = shape.n_params * 2
    n = cache_outgrows_weights(shape, weights, batch, size)

    def cache(tokens):
        return kv_cache_bytes(n_layers=shape.n_layers, n_kv_heads=shape.n_kv_heads, d_head=shape.d_head,
                              n_tokens=tokens, batch=batch, bytes_per_value=size)

    assert cache(n) > weights >= cache(n - 1)


def test_decode_flops_count_two_per_weight_and_the_attention():
    flops = decode_token_flops(GPT2_SMALL, 1000, batch=2)
    assert flops == 2 * (2 * GPT2_SMALL.n_params + 2 * 12 * 12 * (64 * 1000 * 2))


def test_llama3_8b_is_its_published_configuration():
    """The page's grouped-query model is Meta-Llama-3-8B as published: 32 layers, 32 query heads sharing 8
    key–value heads of 128, d_model 4,096, feed-forward 14,336, an untied 128,256-token vocabulary, 8,192 tokens."""
    from attention_core.kv_cache import LLAMA3_8B, MODEL_SHAPES

    vocab, d, d_ff, kv_width = 128_256, 4096, 14_336, 8 * 128
    layer = 2 * d * d + 2 * d * kv_width + 3 * d * d_ff + 2 * d       # W_Q, W_O; W_K, W_V; SwiGLU; two RMSNorms
    assert LLAMA3_8B.n_params == 2 * vocab * d + 32 * layer + d
    assert (LLAMA3_8B.n_layers, LLAMA3_8B.n_heads, LLAMA3_8B.n_kv_heads, LLAMA3_8B.d_head) == (32, 32, 8, 128)
    assert LLAMA3_8B.context == 8192 and LLAMA3_8B in MODEL_SHAPES
    assert (GPT2_SMALL.context, LLAMA2_7B.context) == (1024, 4096)
    assert LLAMA2_7B_GQA not in MODEL_SHAPES and "hypothetical" in LLAMA2_7B_GQA.name
