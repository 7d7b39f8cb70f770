"""How much of an early token reaches the last position: one attention layer, for comparison with an RNN.

One head, z_T = Σ_j α_j v_j with α = softmax(q_T · k_j / √d_k), q = W_Q x, k = W_K x, v = W_V x.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._validate import as_matrix
from .softmax import softmax, softmax_jacobian


@dataclass(frozen=True)
class AttentionHead:
    """W_Q, W_K: [d_k, d_in]; W_V: [d_v, d_in]."""

    W_Q: np.ndarray
    W_K: np.ndarray
    W_V: np.ndarray


def random_head(d_in: int, d_k: int, rng: np.random.Generator) -> AttentionHead:
    """A random head with N(0, 1/d_in) weights and d_v = d_k."""
    if not isinstance(rng, np.random.Generator):
        raise ValueError("rng must be a numpy.random.Generator (no global random state).")
    s = 1.0 / np.sqrt(d_in)
    return AttentionHead(*(rng.standard_normal((d_k, d_in)) * s for _ in range(3)))


def last_output(head: AttentionHead, X: object) -> np.ndarray:
    """z_T for inputs X: [T, d_in]. Returns [d_v]."""
    X = as_matrix(X, "X", cols=head.W_Q.shape[1])
    Q, K, V = X @ head.W_Q.T, X @ head.W_K.T, X @ head.W_V.T    # [T, d_k], [T, d_k], [T, d_v]
    alpha = softmax(K @ Q[-1] / np.sqrt(K.shape[1]))            # [T]
    return alpha @ V


def attention_input_influence(head: AttentionHead, X: object) -> np.ndarray:
    """‖∂z_T/∂x_j‖₂ for j = 1 … T: every input is one step from the output. Returns [T].

    ∂z_T/∂x_j = α_j W_V + (Vᵀ J e_j)(W_Kᵀ q_T)ᵀ/√d_k, plus, for j = T only, Vᵀ J K W_Q/√d_k
    (the query also comes from x_T). J = diag(α) − α αᵀ is the softmax Jacobian.
    """
    X = as_matrix(X, "X", cols=head.W_Q.shape[1])
    Q, K, V = X @ head.W_Q.T, X @ head.W_K.T, X @ head.W_V.T
    root = np.sqrt(K.shape[1])
    alpha = softmax(K @ Q[-1] / root)                           # [T]
    J = softmax_jacobian(alpha)                                 # [T, T]
    through_weights = V.T @ J                                   # [d_v, T]: ∂z_T/∂s_j
    key_grad = head.W_K.T @ Q[-1] / root                        # [d_in]: ∂s_j/∂x_j
    T = X.shape[0]
    influence = np.empty(T)
    for j in range(T):
        D = alpha[j] * head.W_V + np.outer(through_weights[:, j], key_grad)   # [d_v, d_in]
        if j == T - 1:
            D = D + through_weights @ K @ head.W_Q / root
        influence[j] = np.linalg.norm(D, ord=2)
    return influence


def sequential_steps(n: int) -> dict[str, int]:
    """Steps that must run one after another to process n tokens: n for a recurrence (h_t needs h_{t−1}),
    1 for an attention layer (every position is computed from the inputs at once)."""
    n = int(n)
    if n < 1:
        raise ValueError("sequence length must be at least 1.")
    return {"rnn": n, "attention": 1}
