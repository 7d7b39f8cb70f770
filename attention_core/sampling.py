"""Random dot products, for the √d_k variance lab. Randomness only through a Generator."""

from __future__ import annotations

import numpy as np

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
    """n_rows rows of n_keys raw scores q·k_j with unit-variance components. Returns [n_rows, n_keys]."""
    return dot_product_samples(d_k, n_rows * n_keys, rng).reshape(n_rows, n_keys)


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
