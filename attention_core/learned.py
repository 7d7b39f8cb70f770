"""Learned projections: token tables, random W_Q and W_K, and the rank of M = W_Qᵀ W_K."""

from __future__ import annotations

import numpy as np

from ._validate import as_matrix, as_vector


def token_table(tokens: object) -> tuple[list[str], np.ndarray]:
    """[{"text": str, "embedding": [d_model]}, …] → (labels, X: [n, d_model]), refusing ragged or bad rows."""
    if not isinstance(tokens, list) or not tokens:
        raise ValueError("the sentence needs at least one token.")
    labels, rows = [], []
    for i, tok in enumerate(tokens, start=1):
        if not isinstance(tok, dict) or "text" not in tok or "embedding" not in tok:
            raise ValueError(f"token {i} needs a 'text' and an 'embedding'.")
        labels.append(str(tok["text"]))
        rows.append(as_vector(tok["embedding"], f"embedding of '{tok['text']}'",
                              length=len(rows[0]) if rows else None))
    return labels, np.vstack(rows)


def random_projections(d_k: int, d_model: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """W_Q, W_K: [d_k, d_model] with N(0, 1/d_model) entries, drawn from rng (W_Q first)."""
    if not isinstance(rng, np.random.Generator):
        raise ValueError("rng must be a numpy.random.Generator (no global random state).")
    if d_k < 1 or d_model < 1:
        raise ValueError("d_k and d_model must be at least 1.")
    scale = 1.0 / np.sqrt(d_model)
    W_Q = rng.standard_normal((d_k, d_model)) * scale
    W_K = rng.standard_normal((d_k, d_model)) * scale
    return W_Q, W_K


def singular_values(M: object) -> np.ndarray:
    """The singular values of M, largest first; exactly as many non-zero ones as rank(M).

    A value an SVD returns for a direction M does not have is rounding noise (1e-16 next to a largest
    value of 1), so every value under numpy.linalg.matrix_rank's own tolerance, σ_max · max(shape) · ε,
    is set to exactly 0: the count of non-zero values and the rank are then the same number.
    """
    M = as_matrix(M, "M")
    sv = np.linalg.svd(M, compute_uv=False)                                   # [min(shape)]
    tol = (sv.max() if sv.size else 0.0) * max(M.shape) * np.finfo(float).eps
    return np.where(sv > tol, sv, 0.0)


def strongest_target(scores: object) -> np.ndarray:
    """For each query row i, the key j with the largest score. scores: [n, n] → [n] indices."""
    return np.argmax(as_matrix(scores, "scores"), axis=1)


def rank_sweep(d_model: int, d_ks: object, rng: np.random.Generator) -> np.ndarray:
    """rank(W_Qᵀ W_K) for random W_Q, W_K: [d_k, d_model] at each d_k in d_ks. Returns [len(d_ks)] ints."""
    ranks = []
    for d_k in np.asarray(d_ks, dtype=int):
        W_Q, W_K = random_projections(int(d_k), d_model, rng)
        ranks.append(int(np.linalg.matrix_rank(W_Q.T @ W_K)))   # [d_model, d_model], rank ≤ d_k
    return np.array(ranks)
