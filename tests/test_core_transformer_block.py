"""The block with a part switched off: the staged run against the model's own forward pass, each ablation
against the layer formula written out here in float64, and the alikeness measures against naive loops."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import attention_core as core
from attention_core import bert

SENTENCE = "I sat on the muddy river bank"
ALL_PARTS = [bert.BlockParts(*flags) for flags in itertools.product((True, False), repeat=3)]


@pytest.fixture(scope="module")
def model():
    return core.load_model()


def reference_layer(x, p, layer, residual, layer_norm, feed_forward):
    """One post-LN BERT block, written out from the formula in float64, head by head, no shared code."""
    x = x.astype(np.float64)
    d = x.shape[1]
    H, dk = bert.N_HEADS, d // bert.N_HEADS
    W, b = p[f"layer{layer}.qkv.w"].astype(np.float64), p[f"layer{layer}.qkv.b"].astype(np.float64)
    Q, K, V = (x @ W[:, i * d:(i + 1) * d] + b[i * d:(i + 1) * d] for i in range(3))
    heads = []
    for h in range(H):
        cols = slice(h * dk, (h + 1) * dk)
        s = Q[:, cols] @ K[:, cols].T / math.sqrt(dk)
        e = np.exp(s - s.max(axis=1, keepdims=True))
        heads.append((e / e.sum(axis=1, keepdims=True)) @ V[:, cols])
    attn = np.hstack(heads) @ p[f"layer{layer}.attn_out.w"] + p[f"layer{layer}.attn_out.b"]

    def ln(v, name):
        mu, var = v.mean(axis=1, keepdims=True), v.var(axis=1, keepdims=True)
        return (v - mu) / np.sqrt(var + 1e-12) * p[f"layer{layer}.{name}.g"] + p[f"layer{layer}.{name}.b"]

    h1 = attn + x if residual else attn
    h1 = ln(h1, "ln_attn") if layer_norm else h1
    if not feed_forward:
        return h1
    pre = h1 @ p[f"layer{layer}.ffn_in.w"] + p[f"layer{layer}.ffn_in.b"]
    gelu = 0.5 * pre * (1 + np.vectorize(math.erf)(pre / math.sqrt(2)))
    f = gelu @ p[f"layer{layer}.ffn_out.w"] + p[f"layer{layer}.ffn_out.b"]
    h2 = f + h1 if residual else f
    return ln(h2, "ln_ffn") if layer_norm else h2


def float32_close(got: np.ndarray, want: np.ndarray) -> bool:
    """Equal up to float32 rounding: the same products summed in another order (OpenBLAS splits them by CPU
    kind and thread count) differ by about √n ulps of the largest value, for n terms per sum (n ≤ d_ff here);
    a part switched off changes the output by more than 10⁻², over 10⁴ times this bound."""
    assert got.shape == want.shape and got.dtype == want.dtype == np.float32
    bound = math.sqrt(bert.D_FF) * np.finfo(np.float32).eps * max(1.0, float(np.abs(want).max()))
    return float(np.abs(got.astype(np.float64) - want).max()) <= bound


def test_with_every_part_on_the_staged_run_equals_the_model_to_float32_rounding(model):
    run, staged = model.run(SENTENCE), model.run_stages(SENTENCE)
    assert float32_close(staged.hidden_states, run.hidden_states)
    assert list(staged.tokens) == run.tokens and list(staged.token_ids) == run.token_ids
    for layer in range(bert.N_LAYERS):
        x = run.hidden_states[layer]
        out, weights = bert.encoder_layer(x, model.params, layer)           # on any number of BLAS threads
        stages = bert.encoder_layer_stages(x, model.params, layer)
        assert float32_close(stages.output, out) and float32_close(stages.weights, weights), layer


def _name(p: bert.BlockParts) -> str:
    return f"res{p.residual:d}-ln{p.layer_norm:d}-ffn{p.feed_forward:d}"


@pytest.mark.parametrize("parts", ALL_PARTS, ids=_name)
def test_each_ablation_matches_the_layer_formula_written_out(model, parts):
    x = model.run(SENTENCE).hidden_states[2]
    for layer in (0, 3, 5):
        got = bert.encoder_layer_stages(x, model.params, layer, residual=parts.residual,
                                        layer_norm=parts.layer_norm, feed_forward=parts.feed_forward)
        want = reference_layer(x, model.params, layer, parts.residual, parts.layer_norm, parts.feed_forward)
        scale = max(1.0, float(np.abs(want).max()))
        assert np.abs(got.output - want).max() < 2e-4 * scale, (layer, parts)


@pytest.mark.parametrize("parts", ALL_PARTS[1:], ids=_name)
def test_a_staged_run_chains_its_layers_and_differs_from_the_full_model(model, parts):
    r = model.run_stages(SENTENCE, parts)
    assert r.parts == parts and not r.hidden_states.flags.writeable
    assert np.array_equal(r.hidden_states[0], model.run(SENTENCE).hidden_states[0]), "the embedding is untouched"
    for layer in range(bert.N_LAYERS):
        want = reference_layer(r.hidden_states[layer], model.params, layer, parts.residual, parts.layer_norm,
                               parts.feed_forward)
        assert np.abs(r.hidden_states[layer + 1] - want).max() < 2e-4 * max(1.0, float(np.abs(want).max()))
    assert not np.allclose(r.hidden_states[-1], model.run(SENTENCE).hidden_states[-1], atol=1e-2)


def test_the_stages_follow_the_block(model):
    x = model.run(SENTENCE).hidden_states[1]
    s = bert.encoder_layer_stages(x, model.params, 1)
    assert np.array_equal(s.x, x) and len(s.stages()) == len(bert.STAGE_LABELS)
    assert np.allclose(s.attn_sum, s.x + s.attention) and np.allclose(s.ffn_sum, s.attn_norm + s.ffn)
    assert np.allclose(s.weights.sum(axis=-1), 1, atol=1e-5)
    off = bert.encoder_layer_stages(x, model.params, 1, residual=False, layer_norm=False, feed_forward=False)
    assert np.array_equal(off.attn_sum, off.attention) and np.array_equal(off.attn_norm, off.attn_sum)
    assert not off.ffn.any() and np.array_equal(off.output, off.attention)


def test_layer_norm_gives_each_token_mean_0_and_variance_1_before_its_gain_and_bias(model):
    x = model.run(SENTENCE).hidden_states[3]
    s = bert.encoder_layer_stages(x, model.params, 3)
    for stage, name in ((s.attn_norm, "ln_attn"), (s.output, "ln_ffn")):
        g, b = model.params[f"layer3.{name}.g"], model.params[f"layer3.{name}.b"]
        z = (stage.astype(np.float64) - b) / g                               # undo the learned gain and bias
        assert np.allclose(z.mean(axis=1), 0, atol=1e-4) and np.allclose(z.var(axis=1), 1, atol=1e-3)
    plain = bert.layer_norm(s.attn_sum, np.ones(384, np.float32), np.zeros(384, np.float32))
    assert np.allclose(plain.mean(axis=1), 0, atol=1e-5) and np.allclose(plain.var(axis=1), 1, atol=1e-4)


def naive_mean_pairwise(X):
    total, n = 0.0, 0
    for i in range(len(X)):
        for j in range(i + 1, len(X)):
            total += float(X[i] @ X[j]) / (np.linalg.norm(X[i]) * np.linalg.norm(X[j]))
            n += 1
    return total / n


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 9), st.integers(1, 6), st.integers(0, 10_000))
def test_mean_pairwise_cosine_matches_a_loop_over_pairs(T, d, seed):
    X = np.random.default_rng(seed).standard_normal((T, d)) + 0.1
    assert core.mean_pairwise_cosine(X) == pytest.approx(naive_mean_pairwise(X), abs=1e-12)


def test_alikeness_is_1_for_one_direction_and_nan_without_pairs():
    X = np.outer([1.0, 2.0, 5.0], [3.0, -1.0, 2.0])
    assert core.mean_pairwise_cosine(X) == pytest.approx(1.0)
    assert math.isnan(core.mean_pairwise_cosine(np.ones((1, 3))))
    assert core.mean_pairwise_cosine(np.eye(4)) == pytest.approx(0.0)
    stack = np.stack([np.eye(4), np.eye(4) + 10])
    assert np.allclose(core.alikeness_by_layer(stack), [naive_mean_pairwise(s) for s in stack])


def test_cosine_to_others_and_token_norms_against_loops():
    X = np.random.default_rng(3).standard_normal((5, 4))
    want = np.mean([X[2] @ X[j] / np.linalg.norm(X[2]) / np.linalg.norm(X[j]) for j in (0, 1, 3, 4)])
    assert core.cosine_to_others(X, 2) == pytest.approx(want)
    norms = core.token_norms((X, 2 * X))
    assert norms.shape == (5, 2) and np.allclose(norms[:, 1], 2 * np.sqrt((X ** 2).sum(axis=1)))


@pytest.mark.parametrize(("full", "ablated", "verdict"), [
    (0.3, 1.0, "collapsed"), (0.3, 0.6, "more"), (0.3, 0.32, "same"), (0.3, 0.1, "less"), (0.97, 0.99, "same")])
def test_compare_alikeness(full, ablated, verdict):
    assert core.compare_alikeness(full, ablated) == verdict


def test_first_layer_at():
    assert core.first_layer_at(np.array([0.1, 0.5, 0.96, 0.99]), 0.95) == 2
    assert core.first_layer_at(np.array([0.1, 0.5]), 0.95) is None


def test_without_residuals_the_tokens_collapse_and_with_them_they_do_not(model):
    full = core.alikeness_by_layer(model.run_stages(SENTENCE).hidden_states)
    off = core.alikeness_by_layer(model.run_stages(SENTENCE, bert.BlockParts(residual=False)).hidden_states)
    assert off[-1] > core.transformer_block.COLLAPSED > full[-1]
