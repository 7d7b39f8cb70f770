"""Softmax, its Jacobian, and the saturation that makes unscaled scores hard to train."""

from __future__ import annotations

import numpy as np

from ._validate import as_array, as_vector, check_simplex


def softmax(x: object, axis: int = -1, temperature: float = 1.0) -> np.ndarray:
    """exp(x / T) / Σ exp(x / T) along ``axis``.

    x: any shape [..., n]. Returns the same shape; each slice along ``axis`` lies on the simplex.

    Stable for logits as large as ±1e308: the maximum is subtracted before dividing by the
    temperature, so nothing overflows. ``temperature=0`` is the limit T → 0: a one-hot on
    the arg-max, with ties sharing the weight equally.
    """
    x = as_array(x, "logits")
    if x.ndim == 0 or x.shape[axis] == 0:
        raise ValueError("softmax needs at least one logit along the chosen axis.")
    temperature = float(temperature)
    if not np.isfinite(temperature) or temperature < 0:
        raise ValueError(f"temperature must be a finite number ≥ 0, got {temperature}.")
    with np.errstate(over="ignore", invalid="ignore"):
        shifted = x - x.max(axis=axis, keepdims=True)      # ≤ 0; -inf only where the gap overflowed
    if temperature == 0:
        top = (shifted == 0).astype(np.float64)
        return top / top.sum(axis=axis, keepdims=True)
    with np.errstate(over="ignore", divide="ignore"):
        e = np.exp(shifted / temperature)                  # in [0, 1], the maxima give exactly 1
    return e / e.sum(axis=axis, keepdims=True)


def masked_softmax(x: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Row softmax of x: [n_q, n_k] where ``mask`` is True; blocked entries get weight 0.

    Raises when a row has every key blocked, since no distribution exists for it.
    """
    blocked_rows = ~mask.any(axis=-1)
    if np.any(blocked_rows):
        rows = ", ".join(str(i + 1) for i in np.flatnonzero(blocked_rows))
        raise ValueError(f"every key is blocked for query row {rows}; a row needs at least one visible key.")
    with np.errstate(over="ignore", invalid="ignore"):
        top = np.where(mask, x, -np.inf).max(axis=-1, keepdims=True)
        e = np.where(mask, np.exp(x - top), 0.0)           # [n_q, n_k]
    return e / e.sum(axis=-1, keepdims=True)


def entropy(p: object) -> np.ndarray:
    """Shannon entropy in nats along the last axis: -Σ p log p, with 0 log 0 = 0."""
    p = as_array(p, "p")
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(p > 0, p * np.log(p), 0.0)
    return -terms.sum(axis=-1)


def softmax_jacobian(p: object) -> np.ndarray:
    """∂softmax/∂x = diag(p) − p pᵀ for one distribution p: [n]. Returns [n, n]."""
    p = as_vector(p, "p")
    check_simplex(p, "p", tol=1e-6)
    return np.diag(p) - np.outer(p, p)


def softmax_gradient_norm(x: object) -> float:
    """Spectral norm of the softmax Jacobian at logits x: [n]; near 0 means saturated."""
    jac = softmax_jacobian(softmax(as_vector(x, "logits")))
    return float(np.linalg.norm(jac, ord=2))


def sigmoid(x: object) -> np.ndarray:
    """S(x) = 1 / (1 + e^(−x)), the two-logit softmax; any shape."""
    x = as_array(x, "x")
    return np.exp(-np.logaddexp(0.0, -x))


def sigmoid_slope(x: object) -> np.ndarray:
    """S'(x) = S(x)(1 − S(x)): at most 1/4 (at x = 0), and → 0 as |x| grows."""
    x = as_array(x, "x")
    return sigmoid(x) * sigmoid(-x)                       # 1 − S(x) = S(−x), exact even when S(x) rounds to 1
