"""Scaled dot-product attention, keeping every stage so charts and text share the numbers."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._validate import as_array, as_matrix, check_simplex, read_only
from .softmax import masked_softmax, softmax


def _frozen(a: np.ndarray) -> np.ndarray:
    """A float64 (or bool) read-only copy of a stage, so a trace cannot be changed through its arrays."""
    return read_only(np.array(a, dtype=np.float64 if a.dtype != bool else bool))


@dataclass(frozen=True)
class AttentionTrace:
    """Every stage of softmax(Q Kᵀ / √d_k) V.

    Q: [n_q, d_k], K: [n_k, d_k], V: [n_k, d_v]
    scores = Q Kᵀ: [n_q, n_k]; scaled = scores / √d_k (or scores when unscaled): [n_q, n_k]
    weights = row softmax of scaled: [n_q, n_k]; output = weights V: [n_q, d_v]
    mask: [n_q, n_k] bool or None (False blocks a key).
    """

    Q: np.ndarray
    K: np.ndarray
    V: np.ndarray
    scores: np.ndarray
    scaled: np.ndarray
    weights: np.ndarray
    output: np.ndarray
    mask: np.ndarray | None
    scale_factor: float                                   # √d_k when scaled, else 1

    @property
    def d_k(self) -> int:
        return int(self.K.shape[1])

    @property
    def d_v(self) -> int:
        return int(self.V.shape[1])


def scaled_dot_product_attention(
    Q: object, K: object, V: object, mask: object | None = None, scale: bool = True
) -> AttentionTrace:
    """softmax(Q Kᵀ / √d_k) V, keeping every stage.

    Q: [n_q, d_k], K: [n_k, d_k], V: [n_k, d_v], mask: [n_q, n_k] bool (False blocks a key).
    Raises ValueError for bad shapes, non-finite entries, or a query row with every key blocked.
    """
    Q = as_matrix(Q, "Q")
    K = as_matrix(K, "K", cols=Q.shape[1])
    V = as_matrix(V, "V", rows=K.shape[0])
    scores = Q @ K.T                                      # [n_q, n_k]
    scale_factor = float(np.sqrt(K.shape[1])) if scale else 1.0
    scaled = scores / scale_factor                        # [n_q, n_k]
    if mask is None:
        weights = softmax(scaled, axis=-1)                # [n_q, n_k]
        mask_arr = None
    else:
        mask_arr = np.asarray(mask)
        if mask_arr.dtype != bool:
            raise ValueError("mask must be boolean: True lets a key through, False blocks it.")
        if mask_arr.shape != scores.shape:
            raise ValueError(f"mask must have shape {scores.shape} (queries × keys), got {mask_arr.shape}.")
        weights = masked_softmax(scaled, mask_arr)
    output = weights @ V                                  # [n_q, d_v]
    return AttentionTrace(
        Q=_frozen(Q), K=_frozen(K), V=_frozen(V),
        scores=_frozen(scores), scaled=_frozen(scaled), weights=_frozen(weights), output=_frozen(output),
        mask=None if mask_arr is None else _frozen(mask_arr), scale_factor=scale_factor,
    )


def attention_heads(Q: np.ndarray, K: np.ndarray, V: np.ndarray,
                    out: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """softmax(Q_h K_hᵀ / √d_k) V_h for every head h at once, without a trace: for a model's forward pass.

    Q, K: [H, T, d_k], V: [H, T, d_v] (float32 stays float32) → (weights [H, T, T], output [H, T, d_v]).
    ``out`` [H, T, T], if given, receives the weights. The same formula as scaled_dot_product_attention
    (a test holds them equal head by head), only batched: the 1/√d_k goes onto Q (T·d_k numbers, not
    T·T), and the softmax runs in place. Unvalidated: the model's own arrays, never a learner's.
    """
    Q, K, V = np.asarray(Q), np.asarray(K), np.asarray(V)
    scaled = np.matmul(Q * Q.dtype.type(1 / np.sqrt(Q.shape[-1])), K.swapaxes(-1, -2), out=out)  # [H, T, T]
    scaled -= scaled.max(axis=-1, keepdims=True)                  # ≤ 0: exp cannot overflow
    weights = np.exp(scaled, out=scaled)
    weights /= weights.sum(axis=-1, keepdims=True)
    return weights, weights @ V                                   # [H, T, T], [H, T, d_v]


def convex_combination(weights: object, X: object) -> np.ndarray:
    """z = Σ_j α_j x_j for weights on the simplex.

    weights: [n] or [m, n]; X: [n, d]. Returns [d] or [m, d].
    Raises ValueError unless every weight row is non-negative and sums to 1.
    """
    w = as_array(weights, "weights")
    if w.ndim not in (1, 2):
        raise ValueError(f"weights must be a vector or a matrix, got shape {w.shape}.")
    X = as_matrix(X, "X", rows=w.shape[-1])
    check_simplex(w)
    return w @ X


def linear_combination(weights: object, X: object) -> np.ndarray:
    """z = Σ_j w_j x_j with no simplex check: what happens when weights leave the simplex.

    weights: [n]; X: [n, d]. Returns [d].
    """
    w = as_array(weights, "weights")
    if w.ndim != 1:
        raise ValueError(f"weights must be a vector, got shape {w.shape}.")
    X = as_matrix(X, "X", rows=w.shape[0])
    return w @ X


def output_with_rounded_weights(weights: object, V: object, decimals: int = 4) -> np.ndarray:
    """The hand-calculation path: round each weight to ``decimals`` places, then blend.

    weights: [n] (not re-validated: rounded weights may miss 1 by a hair); V: [n, d_v]. Returns [d_v].
    """
    w = np.round(as_array(weights, "weights"), decimals)
    return linear_combination(w, V)
