"""The KV-cache page's cached computations: a toy decoder fed a sentence token by token, with and without
a cache, and the cache's bytes for real model shapes."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

import attention_core as core
from ui.lru import shared

WORDS = ("the", "cat", "sat", "on", "the", "mat", "because", "it", "was", "warm", "and", "soft")
N_LAYERS, N_HEADS, D_HEAD = 2, 2, 4
LENGTHS = (128, 256, 512, 1024, 2048, 4096, 8192, 16_384, 32_768, 65_536, 131_072)
CONTEXT = 1024                            # the page's default: within every model's window (GPT-2 small's is 1,024)
WEIGHT_BYTES = 2                          # the weights are kept in 16-bit numbers throughout
GPU = core.A100_SXM_40GB


@dataclass(frozen=True)
class ToyRun:
    """The sentence through the toy decoder, one token at a time with a cache, and recomputed at every step.

    keys[ℓ], values[ℓ]: [T, n_heads·d_head] the final cache of layer ℓ, heads side by side; weights[ℓ]:
    [T, n_heads, T] step t's attention weights (zero past t); cached, uncached: [T] multiply-adds of step t
    with the cache and recomputing all t tokens; delta: [T] the largest |cached − recomputed| entry of
    every output up to step t; largest: the largest |output| entry, for scale."""

    keys: tuple[np.ndarray, ...]
    values: tuple[np.ndarray, ...]
    weights: tuple[np.ndarray, ...]
    cached: np.ndarray
    uncached: np.ndarray
    delta: np.ndarray
    largest: float


@shared(max_entries=64)
def toy_run(seed: int) -> ToyRun:
    """WORDS through a decoder drawn from ``seed``: every step cached, and every prefix recomputed."""
    rng = np.random.default_rng(seed)
    vocab = sorted(set(WORDS))
    weights = core.random_decoder(rng, n_layers=N_LAYERS, n_heads=N_HEADS, d_head=D_HEAD, vocab=len(vocab),
                                  max_tokens=len(WORDS))
    X = np.array([core.token_input(weights, vocab.index(w), t) for t, w in enumerate(WORDS)])
    steps = core.decode_cached(X, weights)
    outputs = np.array([s.output for s in steps])
    T = len(WORDS)
    recomputed = [core.decode_all_uncached(X[:t], weights) for t in range(1, T + 1)]
    delta = np.array([float(np.abs(outputs[:t] - r.outputs).max()) for t, r in enumerate(recomputed, start=1)])
    step_weights = []
    for layer in range(N_LAYERS):
        grid = np.zeros((T, N_HEADS, T))
        for t, s in enumerate(steps):
            grid[t, :, : t + 1] = s.layers[layer].weights
        step_weights.append(grid)
    last = steps[-1].cache
    return ToyRun(keys=tuple(k.reshape(T, -1) for k in last.keys), values=tuple(v.reshape(T, -1) for v in last.values),
                  weights=tuple(step_weights), cached=np.array([s.multiply_adds for s in steps]),
                  uncached=np.array([r.multiply_adds for r in recomputed]), delta=np.maximum.accumulate(delta),
                  largest=float(np.abs(outputs).max()))


@dataclass(frozen=True)
class CacheCost:
    """One model's cache at one setting: bytes now, per token, along LENGTHS, the weights' bytes, where the
    cache outgrows them, and one generated token's roofline (weights and whole cache read once)."""

    shape: core.ModelShape
    cache: int
    per_token: int
    curve: np.ndarray                     # [len(LENGTHS)] cache bytes against context length
    weights: int
    outgrows_at: int
    roof: core.Roofline


def cache_cost(shape: core.ModelShape, n_tokens: int, batch: int, bytes_per_value: int) -> CacheCost:
    """The cache of ``shape`` at this context, batch and precision, against its 16-bit weights."""
    def cache(tokens: int) -> int:
        return core.kv_cache_bytes(n_layers=shape.n_layers, n_kv_heads=shape.n_kv_heads, d_head=shape.d_head,
                                   n_tokens=tokens, batch=batch, bytes_per_value=bytes_per_value)

    weights = shape.n_params * WEIGHT_BYTES
    now = cache(n_tokens)
    roof = core.roofline(core.decode_token_flops(shape, n_tokens, batch), weights + now, GPU.peak_flops,
                         GPU.bandwidth)
    return CacheCost(shape=shape, cache=now, per_token=core.cache_bytes_per_token(shape, batch, bytes_per_value),
                     curve=np.array([cache(n) for n in LENGTHS], dtype=float), weights=weights,
                     outgrows_at=core.cache_outgrows_weights(shape, weights, batch, bytes_per_value), roof=roof)
