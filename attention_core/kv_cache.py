"""Generating one token at a time: a small causal decoder with a key–value cache, and what the cache costs.

At step t a decoder needs the new token's query and the keys and values of every token so far. The keys
and values of the earlier tokens do not change when a later token arrives (the causal mask hides the
future from them), so they are kept (the cache) instead of recomputed: each step then projects one
token, not t, and scores one query against t keys, not t queries against t keys.

The toy decoder: token embeddings plus position embeddings, then ``n_layers`` layers of multi-head causal
attention with a residual connection (no feed-forward, no normalisation: they act on each token alone and
would not change what the cache keeps).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from ._validate import as_vector
from .attention import scaled_dot_product_attention
from .masks import causal_mask


@dataclass(frozen=True)
class DecoderWeights:
    """A toy decoder's weights. Per layer ℓ: W_Q[ℓ], W_K[ℓ], W_V[ℓ]: [d_model, n_heads·d_head], W_O[ℓ]:
    [n_heads·d_head, d_model]. embeddings: [vocab, d_model], positions: [max_tokens, d_model]."""

    W_Q: np.ndarray                      # [n_layers, d_model, n_heads·d_head]
    W_K: np.ndarray
    W_V: np.ndarray
    W_O: np.ndarray                      # [n_layers, n_heads·d_head, d_model]
    embeddings: np.ndarray               # [vocab, d_model]
    positions: np.ndarray                # [max_tokens, d_model]
    n_heads: int

    @property
    def n_layers(self) -> int:
        return self.W_Q.shape[0]

    @property
    def d_model(self) -> int:
        return self.W_Q.shape[1]

    @property
    def d_head(self) -> int:
        return self.W_Q.shape[2] // self.n_heads


def random_decoder(rng: np.random.Generator, *, n_layers: int = 2, n_heads: int = 2, d_head: int = 4,
                   vocab: int = 8, max_tokens: int = 32) -> DecoderWeights:
    """Toy weights drawn from ``rng``, scaled by 1/√fan-in so the hidden states stay of order 1;
    d_model = n_heads · d_head."""
    for name, n in (("n_layers", n_layers), ("n_heads", n_heads), ("d_head", d_head), ("vocab", vocab),
                    ("max_tokens", max_tokens)):
        if isinstance(n, bool) or not isinstance(n, int | np.integer) or n < 1:
            raise ValueError(f"{name} must be a whole number ≥ 1, got {n!r}.")
    d_model = n_heads * d_head

    def draw(*shape: int) -> np.ndarray:
        return rng.standard_normal(shape) / np.sqrt(shape[-2])

    return DecoderWeights(W_Q=draw(n_layers, d_model, d_model), W_K=draw(n_layers, d_model, d_model),
                          W_V=draw(n_layers, d_model, d_model), W_O=draw(n_layers, d_model, d_model),
                          embeddings=rng.standard_normal((vocab, d_model)),
                          positions=0.5 * rng.standard_normal((max_tokens, d_model)), n_heads=int(n_heads))


@dataclass(frozen=True)
class KVCache:
    """The keys and values of every token so far, per layer: keys[ℓ], values[ℓ]: [t, n_heads, d_head]."""

    keys: tuple[np.ndarray, ...]
    values: tuple[np.ndarray, ...]

    @property
    def n_tokens(self) -> int:
        return self.keys[0].shape[0]


def empty_cache(weights: DecoderWeights) -> KVCache:
    """A cache holding no token yet: [0, n_heads, d_head] per layer."""
    empty = tuple(np.zeros((0, weights.n_heads, weights.d_head)) for _ in range(weights.n_layers))
    return KVCache(keys=empty, values=empty)


def _heads(x: np.ndarray, n_heads: int) -> np.ndarray:
    """[T, n_heads·d_head] → [T, n_heads, d_head]."""
    return x.reshape(x.shape[0], n_heads, -1)


def _madds(a: np.ndarray, b: np.ndarray) -> int:
    """Multiply-adds of the product a @ b: [m, k] @ [k, n] → m·k·n."""
    return int(a.shape[0] * a.shape[1] * b.shape[1])


@dataclass(frozen=True)
class LayerStep:
    """One layer's work for the new token: its query, key and value ([n_heads, d_head] each), its scores and
    weights over the t tokens so far ([n_heads, t]), the heads' outputs [n_heads, d_head] and the new hidden
    state [d_model] (input plus the attention's output)."""

    q: np.ndarray
    k: np.ndarray
    v: np.ndarray
    scores: np.ndarray
    weights: np.ndarray
    heads: np.ndarray
    hidden: np.ndarray


class DecodeStep(NamedTuple):
    """decode_step's result: the new token's last hidden state [d_model], the cache with its keys and values
    appended, and every layer's intermediates with the step's multiply-add count."""

    output: np.ndarray
    cache: KVCache
    layers: tuple[LayerStep, ...]
    multiply_adds: int


def decode_step(x_t: object, cache: KVCache, weights: DecoderWeights) -> DecodeStep:
    """One generation step with a cache: x_t [d_model] (the new token's embedding plus its position's) attends
    over the cached keys and values and its own; nothing about an earlier token is recomputed.

    Per layer: q, k, v = x W_Q, x W_K, x W_V (one token); K = [K_cache; k], V = [V_cache; v]; each head's
    output softmax(q Kᵀ/√d_head) V; x ← x + concat(heads) W_O.
    """
    x = as_vector(x_t, "x_t", weights.d_model)[None, :]                     # [1, d_model]
    if len(cache.keys) != weights.n_layers:
        raise ValueError(f"the cache has {len(cache.keys)} layers, the decoder {weights.n_layers}.")
    h, layers, keys, values, madds = weights.n_heads, [], [], [], 0
    for layer in range(weights.n_layers):
        W_Q, W_K, W_V, W_O = (w[layer] for w in (weights.W_Q, weights.W_K, weights.W_V, weights.W_O))
        q, k, v = (_heads(x @ W, h)[0] for W in (W_Q, W_K, W_V))          # [n_heads, d_head] each
        madds += 3 * _madds(x, W_Q)
        K = np.concatenate([cache.keys[layer], k[None]])                   # [t, n_heads, d_head]
        V = np.concatenate([cache.values[layer], v[None]])
        traces = [scaled_dot_product_attention(q[i][None], K[:, i], V[:, i]) for i in range(h)]
        madds += sum(_madds(q[i][None], K[:, i].T) + _madds(t.weights, V[:, i]) for i, t in enumerate(traces))
        heads = np.stack([t.output[0] for t in traces])                    # [n_heads, d_head]
        concat = heads.reshape(1, -1)                                      # [1, n_heads·d_head]
        x = x + concat @ W_O
        madds += _madds(concat, W_O)
        keys.append(K)
        values.append(V)
        layers.append(LayerStep(q=q, k=k, v=v, scores=np.stack([t.scaled[0] for t in traces]),
                                weights=np.stack([t.weights[0] for t in traces]), heads=heads, hidden=x[0]))
    return DecodeStep(output=x[0], cache=KVCache(tuple(keys), tuple(values)), layers=tuple(layers),
                      multiply_adds=madds)


@dataclass(frozen=True)
class UncachedRun:
    """Every token recomputed at once: outputs [T, d_model] (each token's last hidden state), per layer the
    keys and values [T, n_heads, d_head] and the masked weights [n_heads, T, T], and the multiply-adds."""

    outputs: np.ndarray
    keys: tuple[np.ndarray, ...]
    values: tuple[np.ndarray, ...]
    weights: tuple[np.ndarray, ...]
    multiply_adds: int


def decode_all_uncached(X: object, weights: DecoderWeights) -> UncachedRun:
    """The same decoder with no cache: all T tokens X [T, d_model] through every layer, causal mask on.

    Per layer: Q, K, V = X W_Q, X W_K, X W_V; each head's softmax(Q Kᵀ/√d_head + causal mask) V;
    X ← X + concat(heads) W_O. The full T × T scores are computed, then the future is masked out.
    """
    X = np.atleast_2d(np.asarray(X, dtype=np.float64))
    if X.ndim != 2 or X.shape[1] != weights.d_model or X.shape[0] < 1:
        raise ValueError(f"X must be [T, {weights.d_model}] with T ≥ 1, got shape {X.shape}.")
    if not np.all(np.isfinite(X)):
        raise ValueError("X contains NaN or infinity; every entry must be a finite number.")
    T, h = X.shape[0], weights.n_heads
    mask, keys, values, all_weights, madds = causal_mask(T), [], [], [], 0
    for layer in range(weights.n_layers):
        W_Q, W_K, W_V, W_O = (w[layer] for w in (weights.W_Q, weights.W_K, weights.W_V, weights.W_O))
        Q, K, V = (_heads(X @ W, h) for W in (W_Q, W_K, W_V))               # [T, n_heads, d_head] each
        madds += 3 * _madds(X, W_Q)
        traces = [scaled_dot_product_attention(Q[:, i], K[:, i], V[:, i], mask=mask) for i in range(h)]
        madds += sum(_madds(Q[:, i], K[:, i].T) + _madds(t.weights, V[:, i]) for i, t in enumerate(traces))
        concat = np.concatenate([t.output for t in traces], axis=1)        # [T, n_heads·d_head]
        X = X + concat @ W_O
        madds += _madds(concat, W_O)
        keys.append(K)
        values.append(V)
        all_weights.append(np.stack([t.weights for t in traces]))
    return UncachedRun(outputs=X, keys=tuple(keys), values=tuple(values), weights=tuple(all_weights),
                       multiply_adds=madds)


def token_input(weights: DecoderWeights, token: int, position: int) -> np.ndarray:
    """A token's input vector [d_model]: its embedding plus its position's embedding."""
    if not 0 <= position < weights.positions.shape[0]:
        raise ValueError(f"position {position} is past the decoder's {weights.positions.shape[0]} positions.")
    return weights.embeddings[token] + weights.positions[position]


def decode_cached(X: object, weights: DecoderWeights) -> tuple[DecodeStep, ...]:
    """Feed the rows of X [T, d_model] one at a time through decode_step, each step starting from the cache
    the step before it left: T steps, the cache one row longer after each."""
    X = np.atleast_2d(np.asarray(X, dtype=np.float64))
    cache, steps = empty_cache(weights), []
    for x in X:
        steps.append(decode_step(x, cache, weights))
        cache = steps[-1].cache
    return tuple(steps)


# --- What the cache costs on a real model ---

def kv_cache_bytes(*, n_layers: int, n_kv_heads: int, d_head: int, n_tokens: int, batch: int = 1,
                   bytes_per_value: int = 2) -> int:
    """2 × layers × kv_heads × d_head × tokens × batch × bytes: a key and a value vector of d_head numbers,
    per key–value head, per layer, for every token of every sequence in the batch."""
    sizes = {"n_layers": n_layers, "n_kv_heads": n_kv_heads, "d_head": d_head, "n_tokens": n_tokens,
             "batch": batch, "bytes_per_value": bytes_per_value}
    for name, n in sizes.items():
        if isinstance(n, bool) or not isinstance(n, int | np.integer) or n < 0:
            raise ValueError(f"{name} must be a whole number ≥ 0, got {n!r}.")
    return 2 * int(n_layers) * int(n_kv_heads) * int(d_head) * int(n_tokens) * int(batch) * int(bytes_per_value)


@dataclass(frozen=True)
class ModelShape:
    """A decoder's published shape: layers, query heads, key–value heads (fewer under grouped-query
    attention), head size, parameter count, and its context window (the most tokens it was trained to read;
    0 for a shape no model was published with)."""

    name: str
    n_layers: int
    n_heads: int
    n_kv_heads: int
    d_head: int
    n_params: int
    source: str
    context: int = 0


GPT2_SMALL = ModelShape("GPT-2 small", n_layers=12, n_heads=12, n_kv_heads=12, d_head=64, n_params=124_439_808,
                        source="Radford et al. (2019); 124,439,808 parameters with the output layer tied to the "
                               "token embeddings", context=1024)
LLAMA2_7B = ModelShape("Llama-2-7B, one key–value head per query head", n_layers=32, n_heads=32, n_kv_heads=32,
                       d_head=128, n_params=6_738_415_616, source="Touvron et al. (2023), Llama 2", context=4096)
# A hypothetical shape, not a published model: the Llama-2-7B shape with grouped-query attention, 8 key–value
# heads (W_K and W_V shrink from 4096 × 4096 to 4096 × 1024 in each of the 32 layers). Kept for the core's
# tests; the page shows LLAMA3_8B, a published model with that attention.
LLAMA2_7B_GQA = ModelShape("7B with grouped-query attention (8 key–value heads), hypothetical", n_layers=32,
                           n_heads=32, n_kv_heads=8, d_head=128, n_params=6_738_415_616 - 2 * 32 * 4096 * 3072,
                           source="Ainslie et al. (2023), GQA, applied to the Llama-2-7B shape")
# Meta-Llama-3-8B's published configuration: 32 layers, 32 query heads sharing 8 key–value heads of 128 numbers,
# d_model 4,096, feed-forward 14,336, a 128,256-token vocabulary with an untied output layer, 8,192 tokens.
LLAMA3_8B = ModelShape("Llama-3-8B, grouped-query attention (8 key–value heads)", n_layers=32, n_heads=32,
                       n_kv_heads=8, d_head=128, n_params=8_030_261_248,
                       source="Meta (2024), Llama 3 (config of Meta-Llama-3-8B)", context=8192)
MODEL_SHAPES = (GPT2_SMALL, LLAMA2_7B, LLAMA3_8B)


def cache_bytes_per_token(shape: ModelShape, batch: int = 1, bytes_per_value: int = 2) -> int:
    """The cache's growth for each token of context: kv_cache_bytes at one token."""
    return kv_cache_bytes(n_layers=shape.n_layers, n_kv_heads=shape.n_kv_heads, d_head=shape.d_head, n_tokens=1,
                          batch=batch, bytes_per_value=bytes_per_value)


def cache_outgrows_weights(shape: ModelShape, weight_bytes: int, batch: int = 1, bytes_per_value: int = 2) -> int:
    """The fewest tokens of context at which the cache holds more bytes than the weights:
    ⌊weight_bytes / bytes per token⌋ + 1."""
    return weight_bytes // cache_bytes_per_token(shape, batch, bytes_per_value) + 1


def decode_token_flops(shape: ModelShape, n_tokens: int, batch: int = 1) -> int:
    """FLOPs to generate one token per sequence at n_tokens of context: about 2 per weight (a multiply and an
    add) plus, in each layer and query head, 2 × d_head × n_tokens for the scores and as many for the
    weighted sum of values."""
    return batch * (2 * shape.n_params + 4 * shape.n_layers * shape.n_heads * shape.d_head * n_tokens)
