"""The dot product as a projection, and learned bilinear scores.

Convention (as in the lesson): a token is a row x: [d_model]; q = W_Q x and k = W_K x with
W_Q, W_K: [d_k, d_model]. For a stack of tokens X: [n, d_model], Q = X W_Qᵀ and K = X W_Kᵀ.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._validate import as_matrix, as_vector


@dataclass(frozen=True)
class Projection:
    """q split along k: q = parallel + perpendicular.

    comp = (q·k)/‖k‖ (the signed shadow length); score = q·k = ‖k‖·comp.
    k_hat, parallel, perpendicular: [d].
    """

    q: np.ndarray
    k: np.ndarray
    k_hat: np.ndarray
    comp: float
    parallel: np.ndarray
    perpendicular: np.ndarray
    score: float


def project(q: object, k: object) -> Projection:
    """Decompose q: [d] along k: [d] (k must be non-zero)."""
    q = as_vector(q, "q")
    k = as_vector(k, "k", length=q.shape[0])
    k_norm = float(np.linalg.norm(k))
    if k_norm == 0.0:
        raise ValueError("k is the zero vector, so it has no direction to project onto.")
    k_hat = k / k_norm                                    # [d]
    score = float(q @ k)
    comp = score / k_norm
    parallel = comp * k_hat                               # [d]
    return Projection(q=q, k=k, k_hat=k_hat, comp=comp, parallel=parallel,
                      perpendicular=q - parallel, score=score)


def interaction_matrix(W_Q: object, W_K: object) -> np.ndarray:
    """M = W_Qᵀ W_K: [d_model, d_model], so that score(i, j) = x_iᵀ M x_j.

    W_Q, W_K: [d_k, d_model]. rank(M) ≤ min(d_k, d_model).
    """
    W_Q = as_matrix(W_Q, "W_Q")
    W_K = as_matrix(W_K, "W_K", rows=W_Q.shape[0], cols=W_Q.shape[1])
    return W_Q.T @ W_K


@dataclass(frozen=True)
class BilinearScores:
    """Q = X W_Qᵀ: [n, d_k]; K = X W_Kᵀ: [n, d_k]; scores = Q Kᵀ = X M Xᵀ: [n, n]; M: [d_model, d_model]."""

    Q: np.ndarray
    K: np.ndarray
    scores: np.ndarray
    M: np.ndarray

    @property
    def asymmetry(self) -> float:
        """‖A − Aᵀ‖_F: zero exactly when token i scores j as j scores i, for all pairs."""
        return float(np.linalg.norm(self.scores - self.scores.T))

    @property
    def rank(self) -> int:
        return int(np.linalg.matrix_rank(self.M))


def bilinear_scores(X: object, W_Q: object, W_K: object) -> BilinearScores:
    """Learned scores A = (X W_Qᵀ)(X W_Kᵀ)ᵀ for tokens X: [n, d_model], W_Q, W_K: [d_k, d_model]."""
    X = as_matrix(X, "X")
    W_Q = as_matrix(W_Q, "W_Q", cols=X.shape[1])
    W_K = as_matrix(W_K, "W_K", rows=W_Q.shape[0], cols=X.shape[1])
    Q = X @ W_Q.T                                         # [n, d_k]
    K = X @ W_K.T                                         # [n, d_k]
    return BilinearScores(Q=Q, K=K, scores=Q @ K.T, M=interaction_matrix(W_Q, W_K))


def centroid(X: object) -> np.ndarray:
    """The mean of the rows of X: [n, d]. Returns [d]: a static vector that splits the difference."""
    return as_matrix(X, "X").mean(axis=0)
