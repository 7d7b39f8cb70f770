"""Why divide by √d_k: random dot products, their spread, and what it does to softmax.

Randomness only through a Generator; every sweep returns the measured numbers it plots.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._validate import as_vector
from .softmax import entropy, softmax

_CHUNK = 1 << 20                                          # floats per draw, to bound memory


def dot_product_samples(d_k: int, n: int, rng: np.random.Generator) -> np.ndarray:
    """n dot products q·k of independent q, k ~ N(0, I_{d_k}). Returns [n].

    Each product q_i k_i has mean 0 and variance 1, so Var(q·k) = d_k. The vectors are drawn
    for real, in chunks so a large d_k × n never holds more than about 16 MB at once.
    """
    if not isinstance(rng, np.random.Generator):
        raise ValueError("rng must be a numpy.random.Generator (no global random state).")
    d_k, n = int(d_k), int(n)
    if d_k < 1 or n < 1:
        raise ValueError(f"d_k and n must be at least 1, got d_k={d_k}, n={n}.")
    out = np.empty(n)
    rows = max(1, _CHUNK // d_k)
    for start in range(0, n, rows):
        m = min(rows, n - start)
        q = rng.standard_normal((m, d_k))                 # [m, d_k]
        k = rng.standard_normal((m, d_k))                 # [m, d_k]
        out[start:start + m] = np.einsum("md,md->m", q, k)
    return out


def random_score_rows(d_k: int, n_keys: int, n_rows: int, rng: np.random.Generator) -> np.ndarray:
    """n_rows rows of raw scores, each row one query q against n_keys keys k_j (one row of Q Kᵀ), every
    component N(0, 1). Returns [n_rows, n_keys]; drawn in chunks of about 16 MB, as dot_product_samples."""
    if not isinstance(rng, np.random.Generator):
        raise ValueError("rng must be a numpy.random.Generator (no global random state).")
    d_k, n_keys, n_rows = int(d_k), int(n_keys), int(n_rows)
    if min(d_k, n_keys, n_rows) < 1:
        raise ValueError(f"d_k, n_keys and n_rows must be at least 1, got {d_k}, {n_keys}, {n_rows}.")
    out = np.empty((n_rows, n_keys))
    rows = max(1, _CHUNK // (d_k * (n_keys + 1)))
    for start in range(0, n_rows, rows):
        m = min(rows, n_rows - start)
        q = rng.standard_normal((m, d_k))                  # [m, d_k]: one query per row
        K = rng.standard_normal((m, n_keys, d_k))          # [m, n_keys, d_k]: that row's keys
        out[start:start + m] = np.einsum("md,mkd->mk", q, K)
    return out


def dot_product_prefix_sums(max_d_k: int, n: int, rng: np.random.Generator) -> np.ndarray:
    """n pairs q, k ~ N(0, I_{max_d_k}) drawn once; column d − 1 holds q·k over their first d components.

    Returns [n, max_d_k]. Each column is a set of n real dot products at d_k = d (the columns share
    draws, nested like prefixes), so a d_k slider reads its samples with no new sampling at all.
    """
    if not isinstance(rng, np.random.Generator):
        raise ValueError("rng must be a numpy.random.Generator (no global random state).")
    max_d_k, n = int(max_d_k), int(n)
    if max_d_k < 1 or n < 1:
        raise ValueError(f"max_d_k and n must be at least 1, got max_d_k={max_d_k}, n={n}.")
    out = np.empty((n, max_d_k))
    rows = max(1, _CHUNK // max_d_k)
    for start in range(0, n, rows):
        m = min(rows, n - start)
        q = rng.standard_normal((m, max_d_k))             # [m, max_d_k]
        k = rng.standard_normal((m, max_d_k))
        np.cumsum(q * k, axis=1, out=out[start:start + m])
    return out



def normal_pdf(x: object, variance: float) -> np.ndarray:
    """The N(0, variance) density at x (any shape)."""
    var = float(variance)
    if not np.isfinite(var) or var <= 0:
        raise ValueError(f"variance must be a positive finite number, got {variance}.")
    x = np.asarray(x, dtype=float)
    return np.exp(-0.5 * x**2 / var) / np.sqrt(2 * np.pi * var)


@dataclass(frozen=True)
class Histogram:
    """Pre-binned samples: centres [b], density [b] (integrates to 1 over the range), width, count [b]."""

    centres: np.ndarray
    density: np.ndarray
    count: np.ndarray
    width: float


def excess_kurtosis(samples: object) -> float:
    """E[(x − μ)⁴] / σ⁴ − 3 of the samples: 0 for a bell curve, above 0 when the shape is a spike with long tails."""
    x = as_vector(samples, "samples")
    centred = x - x.mean()
    return float((centred ** 4).mean() / (centred ** 2).mean() ** 2 - 3.0)


def dot_product_excess_kurtosis(d_k: int) -> float:
    """The exact excess kurtosis of q·k for q, k with d_k independent N(0, 1) components: 6 / d_k.

    Each product q_i k_i has E[(qk)⁴] = E[q⁴] E[k⁴] = 9 against a variance of 1 (excess 6); a sum of d_k
    independent terms divides the excess by d_k. Scaling by √d_k leaves it unchanged.
    """
    return 6.0 / int(d_k)


def histogram_density(samples: object, bins: int, half_width: float) -> Histogram:
    """Bin samples: [n] into ``bins`` equal bins on [−half_width, half_width], as a density.

    Samples outside the range still count in n, so the bars show the true share per unit length.
    """
    samples = as_vector(samples, "samples")
    if bins < 1 or not half_width > 0:
        raise ValueError("bins must be ≥ 1 and half_width > 0.")
    count, edges = np.histogram(samples, bins=int(bins), range=(-half_width, half_width))
    width = float(edges[1] - edges[0])
    return Histogram(centres=(edges[:-1] + edges[1:]) / 2, density=count / (samples.size * width),
                     count=count, width=width)


def max_eigenvalue_of_softmax_jacobian(P: np.ndarray) -> np.ndarray:
    """Spectral norm of diag(p) − p pᵀ for each row p of P: [m, n]. Returns [m].

    The Jacobian is symmetric positive semi-definite, so its spectral norm is its largest eigenvalue.
    """
    J = P[:, :, None] * np.eye(P.shape[1]) - P[:, :, None] * P[:, None, :]   # [m, n, n]
    return np.linalg.eigvalsh(J)[:, -1]


@dataclass(frozen=True)
class SoftmaxSweep:
    """For each d_k: the median over score rows of the entropy, the largest weight and the Jacobian norm.

    d_k: [s]; every other field: [s], for unscaled (raw) and scaled (÷√d_k) scores.
    """

    d_k: np.ndarray
    n_keys: int
    entropy_raw: np.ndarray
    entropy_scaled: np.ndarray
    max_weight_raw: np.ndarray
    max_weight_scaled: np.ndarray
    grad_norm_raw: np.ndarray
    grad_norm_scaled: np.ndarray


def row_summary(scores: np.ndarray) -> tuple[float, float, float]:
    """Median (typical row) entropy, largest weight and Jacobian norm of softmax over the rows of scores: [m, n]."""
    P = softmax(scores, axis=-1)                          # [m, n]
    return (float(np.median(entropy(P))), float(np.median(P.max(axis=-1))),
            float(np.median(max_eigenvalue_of_softmax_jacobian(P))))


def softmax_sweep(d_ks: object, n_keys: int, n_rows: int, rng: np.random.Generator) -> SoftmaxSweep:
    """Draw n_rows rows of n_keys random scores q·k_j at each d_k, and summarise softmax with and without ÷√d_k."""
    d_ks = np.asarray(d_ks, dtype=int)
    if d_ks.ndim != 1 or d_ks.size == 0 or np.any(d_ks < 1):
        raise ValueError("d_ks must be a non-empty list of dimensions ≥ 1.")
    raw, scaled = [], []
    for d_k in d_ks:
        scores = random_score_rows(int(d_k), n_keys, n_rows, rng)   # [n_rows, n_keys]
        raw.append(row_summary(scores))
        scaled.append(row_summary(scores / np.sqrt(d_k)))
    raw_a, scaled_a = np.array(raw), np.array(scaled)                # [s, 3]
    return SoftmaxSweep(d_k=d_ks, n_keys=int(n_keys),
                        entropy_raw=raw_a[:, 0], entropy_scaled=scaled_a[:, 0],
                        max_weight_raw=raw_a[:, 1], max_weight_scaled=scaled_a[:, 1],
                        grad_norm_raw=raw_a[:, 2], grad_norm_scaled=scaled_a[:, 2])
