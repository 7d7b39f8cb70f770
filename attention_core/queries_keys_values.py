"""A database lookup, hard and soft: exact key match versus softmax-weighted blend of all values."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._validate import as_matrix, as_vector
from .softmax import softmax


def hard_lookup(q: object, K: object, atol: float = 1e-9) -> int | None:
    """The index of the first key equal to q: [d] among K: [n, d] (within ``atol``), or None (null)."""
    K = as_matrix(K, "keys")
    q = as_vector(q, "query", length=K.shape[1])
    matches = np.flatnonzero(np.all(np.abs(K - q) <= atol, axis=1))
    return int(matches[0]) if matches.size else None


@dataclass(frozen=True)
class SoftLookup:
    """scores = K q: [n]; weights = softmax(scores / T): [n]; output = weights V: [d_v]."""

    scores: np.ndarray
    weights: np.ndarray
    output: np.ndarray


def soft_lookup(q: object, K: object, V: object, temperature: float = 1.0) -> SoftLookup:
    """Score q: [d] against every key K: [n, d], share out with softmax at ``temperature``, blend V: [n, d_v]."""
    K = as_matrix(K, "keys")
    q = as_vector(q, "query", length=K.shape[1])
    V = as_matrix(V, "values", rows=K.shape[0])
    scores = K @ q                                        # [n]
    weights = softmax(scores, temperature=temperature)    # [n]
    return SoftLookup(scores=scores, weights=weights, output=weights @ V)


def self_alignment(Q: object, K: object) -> np.ndarray:
    """cos(q_i, k_i) for each token: Q, K: [n, d] → [n]; 0 where a token's query is orthogonal to its key."""
    Q = as_matrix(Q, "Q")
    K = as_matrix(K, "K", rows=Q.shape[0], cols=Q.shape[1])
    norms = np.linalg.norm(Q, axis=1) * np.linalg.norm(K, axis=1)
    dots = np.einsum("nd,nd->n", Q, K)
    return np.divide(dots, norms, out=np.zeros_like(dots), where=norms > 0)
