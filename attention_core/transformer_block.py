"""How alike a sentence's token vectors are, layer by layer: the transformer_block lesson's measures.

    alike(X)  = mean over pairs i < j of cos(x_i, x_j)       X: [T, d]   (1: every token the same direction)
    per layer = alike(hidden_states[ℓ]) for ℓ = 0 … 6        [7, T, d] → [7]
"""

from __future__ import annotations

import numpy as np

# Two measures closer than this read as "about the same" on the page.
SAME = 0.05
# Mean pairwise cosine at or above this reads as "one vector": the tokens can no longer be told apart.
COLLAPSED = 0.95


def unit_rows(X: np.ndarray) -> np.ndarray:
    """Each row of X divided by its length, in float64 (a zero or non-finite row gives NaN). [T, d] → [T, d]."""
    X = np.asarray(X, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        norms = np.linalg.norm(X, axis=-1, keepdims=True)
        return np.where(norms > 0, X / norms, np.nan)


def mean_pairwise_cosine(X: np.ndarray) -> float:
    """mean_{i<j} cos(x_i, x_j) of the rows of X: [T, d] → a number in [−1, 1] (NaN for fewer than 2 rows, or
    a row with no direction)."""
    U = unit_rows(X)                                                          # [T, d]
    T = len(U)
    if T < 2:
        return float("nan")
    C = U @ U.T                                                               # [T, T]
    return float((C.sum() - np.trace(C)) / (T * (T - 1)))


def alikeness_by_layer(hidden_states: np.ndarray) -> np.ndarray:
    """mean_pairwise_cosine of each layer's token vectors. hidden_states: [L, T, d] → [L]."""
    return np.array([mean_pairwise_cosine(X) for X in np.asarray(hidden_states)])


def cosine_to_others(X: np.ndarray, i: int) -> float:
    """Mean cosine of row i with every other row of X: how much token i still differs from its sentence.
    [T, d] → a number in [−1, 1]."""
    U = unit_rows(X)
    others = np.delete(np.arange(len(U)), i)
    return float((U[others] @ U[i]).mean())


def token_norms(stages: tuple[np.ndarray, ...]) -> np.ndarray:
    """|x_t| of every token at every stage: S stages of [T, d] → [T, S], in float64."""
    return np.stack([np.linalg.norm(np.asarray(s, dtype=np.float64), axis=-1) for s in stages], axis=1)


def compare_alikeness(full: float, ablated: float) -> str:
    """Where the ablated model's last-layer alikeness stands against the full model's: "collapsed" (at least
    COLLAPSED and above the full model's by more than SAME), "more", "same" (within SAME) or "less"."""
    if ablated > full + SAME:
        return "collapsed" if ablated >= COLLAPSED else "more"
    return "same" if ablated >= full - SAME else "less"


def first_layer_at(values: np.ndarray, level: float) -> int | None:
    """The first index whose value reaches ``level`` (None if none does): "alike by layer 2"."""
    hits = np.flatnonzero(np.asarray(values) >= level)
    return int(hits[0]) if hits.size else None
