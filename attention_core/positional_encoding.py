"""Where word order comes from: attention alone ignores it, position tables and rotations put it back.

    shuffle:     attention(P X) = P attention(X)        for any permutation matrix P (no positions)
    sinusoidal:  PE[p, 2i] = sin(p / base^(2i/d)),  PE[p, 2i+1] = cos(p / base^(2i/d))
    rotary:      θ[p, i] = p / base^(2i/d);  pair i of x at position p is turned by θ[p, i]
                 ⟨R(θm) q, R(θn) k⟩ = ⟨q, R(θ(n − m)) k⟩: it depends on the offset n − m only
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._blas import single_threaded_blas
from ._validate import as_matrix, read_only
from .attention import AttentionTrace, scaled_dot_product_attention
from .bert import N_LAYERS, MiniLM, embed, encoder_layer

BASE = 10_000.0


# --- shuffling the words ---------------------------------------------------------------------------

def shuffled_order(n: int, rng: np.random.Generator | None) -> np.ndarray:
    """A permutation of 0 … n − 1 drawn from ``rng``; the identity (the order as typed) when rng is None.
    Returns order [n]: row i of the shuffled sequence is row order[i] of the original."""
    if n < 0:
        raise ValueError(f"n must be ≥ 0, got {n}.")
    return np.arange(n) if rng is None else rng.permutation(n)


def word_blocks_order(starts: list[int], stops: list[int], word_order: np.ndarray, n_tokens: int) -> np.ndarray:
    """Token order that moves whole words: word w covers tokens starts[w] … stops[w] − 1, and the words are
    put in ``word_order``; tokens before the first word and after the last stay where they are.
    Returns order [n_tokens] (as ``shuffled_order``)."""
    if len(starts) != len(stops) or sorted(word_order.tolist()) != list(range(len(starts))):
        raise ValueError("word_order must be a permutation of the words.")
    if not starts:
        return np.arange(n_tokens)
    inner = [t for w in word_order for t in range(starts[w], stops[w])]
    return np.array([*range(starts[0]), *inner, *range(stops[-1], n_tokens)], dtype=int)


@dataclass(frozen=True)
class Equivariance:
    """Outputs of the original and of the shuffled sequence, put side by side.

    order: [T]; original: [T, d] outputs in the typed order; shuffled: [T, d] outputs of the shuffled input;
    realigned = original[order]: [T, d], what the shuffled outputs are if attention only moves rows;
    gap = |shuffled − realigned|: [T, d]; row_gap: [T] its largest entry per row; max_gap: its largest entry.
    """

    order: np.ndarray
    original: np.ndarray
    shuffled: np.ndarray
    realigned: np.ndarray
    gap: np.ndarray
    row_gap: np.ndarray
    max_gap: float


def permutation_equivariance(original: object, shuffled: object, order: object) -> Equivariance:
    """How far ``shuffled`` (outputs of the input rows taken in ``order``) is from ``original[order]``."""
    original = as_matrix(original, "original")
    shuffled = as_matrix(shuffled, "shuffled", cols=original.shape[1], rows=original.shape[0])
    order = np.asarray(order, dtype=int)
    if sorted(order.tolist()) != list(range(original.shape[0])):
        raise ValueError("order must be a permutation of the rows.")
    realigned = original[order]                                                   # [T, d]
    gap = np.abs(shuffled - realigned)                                            # [T, d]
    row_gap = gap.max(axis=1) if gap.size else np.zeros(len(order))
    return Equivariance(order=read_only(order), original=read_only(original), shuffled=read_only(shuffled),
                        realigned=read_only(realigned), gap=read_only(gap), row_gap=read_only(row_gap),
                        max_gap=float(gap.max()) if gap.size else 0.0)


def random_head_weights(d_model: int, d_k: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """W_Q, W_K, W_V: [d_model, d_k] each, entries N(0, 1/d_model), drawn from rng in that order."""
    if d_model < 1 or d_k < 1:
        raise ValueError(f"d_model and d_k must be at least 1, got {d_model} and {d_k}.")
    W_Q, W_K, W_V = rng.standard_normal((3, d_model, d_k)) / np.sqrt(d_model)
    return W_Q, W_K, W_V


@dataclass(frozen=True)
class ShuffledAttention:
    """Self-attention of X and of its shuffled rows, Q = X W_Q, K = X W_K, V = X W_V, each with the
    position table (when there is one) added by slot: slot t gets positions[t] whichever word sits there.

    X: [T, d_model]; original, shuffled: AttentionTrace of X + positions and of X[order] + positions;
    check: their Equivariance.
    """

    X: np.ndarray
    original: AttentionTrace
    shuffled: AttentionTrace
    check: Equivariance


def shuffled_self_attention(X: object, W_Q: object, W_K: object, W_V: object, order: object,
                            positions: object | None = None) -> ShuffledAttention:
    """softmax(Q Kᵀ / √d_k) V for X and for X[order], with ``positions`` [T, d_model] (or none) added to each.
    X: [T, d_model]; W_*: [d_model, d_k]."""
    X = as_matrix(X, "X")
    order = np.asarray(order, dtype=int)
    table = np.zeros_like(X) if positions is None else as_matrix(positions, "positions", cols=X.shape[1],
                                                                   rows=X.shape[0])

    def attend(rows: np.ndarray) -> AttentionTrace:
        rows = rows + table                                                       # [T, d_model]
        return scaled_dot_product_attention(rows @ W_Q, rows @ W_K, rows @ W_V)

    original, shuffled = attend(X), attend(X[order])
    return ShuffledAttention(X=read_only(X), original=original, shuffled=shuffled,
                             check=permutation_equivariance(original.output, shuffled.output, order))


def encoder_output(model: MiniLM, token_ids: object, positions: bool = True) -> np.ndarray:
    """A MiniLM's last hidden state for these token ids (no tokenizer: a shuffled id list is run as it is).
    The same layers as ``MiniLM.run``. token_ids: [T] → [T, d_model] float32."""
    x = np.asarray(token_ids, dtype=int)
    with single_threaded_blas():
        x = embed(x, model.params, positions=positions)                           # [T, d]
        for layer in range(N_LAYERS):
            x = encoder_layer(x, model.params, layer)[0]
    return x


# --- position tables -------------------------------------------------------------------------------

def frequencies(d_model: int, base: float = BASE) -> np.ndarray:
    """ω_i = base^(−2i/d_model) for i = 0 … d_model/2 − 1 (radians per position). Returns [d_model // 2]."""
    if d_model < 2 or d_model % 2:
        raise ValueError(f"d_model must be even and at least 2, got {d_model}.")
    return base ** (-np.arange(d_model // 2) * 2.0 / d_model)


def sinusoidal_positions(n_positions: int, d_model: int, base: float = BASE) -> np.ndarray:
    """The original transformer's table: PE[p, 2i] = sin(p ω_i), PE[p, 2i+1] = cos(p ω_i).

    Returns [n_positions, d_model]."""
    if n_positions < 0:
        raise ValueError(f"n_positions must be ≥ 0, got {n_positions}.")
    angles = np.arange(n_positions)[:, None] * frequencies(d_model, base)[None, :]   # [n, d/2]
    table = np.empty((n_positions, d_model))
    table[:, 0::2] = np.sin(angles)
    table[:, 1::2] = np.cos(angles)
    return table


def cosine_similarities(table: object) -> np.ndarray:
    """cos(P_a, P_b) for every pair of rows of a position table. table: [n, d] → [n, n]."""
    table = as_matrix(table, "table")
    norms = np.linalg.norm(table, axis=1)
    if np.any(norms == 0):
        raise ValueError("every position vector must be non-zero for a cosine.")
    unit = table / norms[:, None]
    return np.clip(unit @ unit.T, -1.0, 1.0)


def similarity_by_offset(similarities: object) -> np.ndarray:
    """The mean of S[p, p + k] over every p, for offsets k = 0 … n − 1: how alike two positions k apart
    are on average. similarities: [n, n] → [n]."""
    S = as_matrix(similarities, "similarities")
    return np.array([np.diagonal(S, k).mean() for k in range(S.shape[0])])


def similarity_spread_by_offset(similarities: object) -> np.ndarray:
    """The standard deviation of S[p, p + k] over every p, for k = 0 … n − 1: 0 when the similarity of two
    positions depends on their offset alone. similarities: [n, n] → [n]."""
    S = as_matrix(similarities, "similarities")
    return np.array([np.diagonal(S, k).std() for k in range(S.shape[0])])


# --- rotary --------------------------------------------------------------------------------------

def rotation_angles(positions: object, d: int, base: float = BASE) -> np.ndarray:
    """θ[p, i] = position_p · ω_i. positions: [n], d even → [n, d/2] radians."""
    positions = np.asarray(positions, dtype=float)
    return positions[:, None] * frequencies(d, base)[None, :]


def rotate_pairs(x: object, angles: object) -> np.ndarray:
    """Turn each pair (x[2i], x[2i+1]) of each row by angles[:, i]:
    (a, b) → (a cos θ − b sin θ, a sin θ + b cos θ). x: [n, d], angles: [n, d/2] → [n, d]."""
    x = as_matrix(x, "x")
    angles = np.asarray(angles, dtype=float)
    if angles.shape != (x.shape[0], x.shape[1] // 2) or x.shape[1] % 2:
        raise ValueError(f"x must have an even number of columns and angles shape [n, d/2], got {x.shape} and "
                         f"{angles.shape}.")
    a, b = x[:, 0::2], x[:, 1::2]
    cos, sin = np.cos(angles), np.sin(angles)
    out = np.empty_like(x)
    out[:, 0::2] = a * cos - b * sin
    out[:, 1::2] = a * sin + b * cos
    return out


@dataclass(frozen=True)
class Rotary:
    """x turned by its positions: angles [n, d/2] (θ[p, i]), rotated [n, d]."""

    angles: np.ndarray
    rotated: np.ndarray


def rotary(x: object, positions: object, base: float = BASE) -> Rotary:
    """Rotary position embedding: pair i of row p of x turned by positions[p] · base^(−2i/d). x: [n, d]."""
    x = as_matrix(x, "x")
    angles = rotation_angles(positions, x.shape[1], base)
    return Rotary(angles=read_only(angles), rotated=read_only(rotate_pairs(x, angles)))


@dataclass(frozen=True)
class RotaryPair:
    """q turned to position m and k to position n (2-D, one angle per position step).

    q_m, k_n: [2]; score = q_m · k_n; angle_q, angle_k: their directions in degrees."""

    q_m: np.ndarray
    k_n: np.ndarray
    score: float
    angle_q: float
    angle_k: float


def rotary_pair(q: object, k: object, m: int, n: int, step: float) -> RotaryPair:
    """q at position m and k at position n, each turned by position × ``step`` radians (d = 2)."""
    both = as_matrix(np.stack([np.asarray(q, float), np.asarray(k, float)]), "q and k", cols=2)
    turned = rotate_pairs(both, np.array([[m * step], [n * step]]))                  # [2, 2]
    q_m, k_n = turned
    return RotaryPair(q_m=read_only(q_m), k_n=read_only(k_n), score=float(q_m @ k_n),
                      angle_q=float(np.degrees(np.arctan2(q_m[1], q_m[0]))),
                      angle_k=float(np.degrees(np.arctan2(k_n[1], k_n[0]))))
