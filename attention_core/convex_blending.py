"""Convex hulls in the plane, and blends that stay inside them (or do not).

A weighted sum z = Σ_j w_j x_j lies in the convex hull of the x_j whenever the weights are on the
simplex; these helpers let a page say whether it does and check the bound ‖z‖ ≤ max_j ‖x_j‖.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._validate import SIMPLEX_TOL, as_matrix, as_vector, is_on_simplex
from .attention import linear_combination


def _cross(o: np.ndarray, a: np.ndarray, b: np.ndarray) -> float:
    """(a − o) × (b − o): positive when o → a → b turns counter-clockwise."""
    return float((a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]))


def convex_hull_2d(points: object) -> np.ndarray:
    """Indices of the hull's corners of points: [n, 2], counter-clockwise, starting at the lowest-x point.

    Andrew's monotone chain. Points on an edge and repeated points are not corners; collinear
    points give the two ends of their segment, a single (or repeated) point gives one index.
    """
    P = as_matrix(points, "points", cols=2)
    order = np.lexsort((P[:, 1], P[:, 0]))                # by x, then y
    unique: list[int] = []
    for i in order:
        if not unique or not np.array_equal(P[i], P[unique[-1]]):
            unique.append(int(i))
    if len(unique) <= 2:
        return np.array(unique, dtype=int)

    def chain(indices: list[int]) -> list[int]:
        out: list[int] = []
        for i in indices:
            while len(out) >= 2 and _cross(P[out[-2]], P[out[-1]], P[i]) <= 0:
                out.pop()
            out.append(i)
        return out

    lower, upper = chain(unique), chain(unique[::-1])
    return np.array(lower[:-1] + upper[:-1], dtype=int)


def in_convex_hull(point: object, points: object, tol: float = 1e-9) -> bool:
    """True when point: [2] lies in the convex hull of points: [n, 2] (boundary included, within ``tol``)."""
    P = as_matrix(points, "points", cols=2)
    p = as_vector(point, "point", length=2)
    H = P[convex_hull_2d(P)]                              # [h, 2], counter-clockwise
    scale = max(1.0, float(np.abs(P).max()), float(np.abs(p).max()))
    tol = tol * scale * scale
    if len(H) == 1 or (len(H) == 2 and np.abs(H[1] - H[0]).max() <= tol):    # a point, or a segment too short to tell
        return bool(np.abs(p - H[0]).max() <= tol)
    if len(H) == 2:
        a, b = H
        ab = b - a
        t = float((p - a) @ ab / (ab @ ab))
        return abs(_cross(a, b, p)) <= tol * np.linalg.norm(ab) and -tol <= t <= 1 + tol
    return all(_cross(H[i], H[(i + 1) % len(H)], p) >= -tol for i in range(len(H)))


def simplex_from_free(free: object) -> tuple[np.ndarray, bool]:
    """n − 1 free weights in [0, 1] → n weights on the simplex, the last being the remainder 1 − Σ free.

    When the free weights already sum past 1 they are scaled down to sum 1 and the last weight is 0;
    the second return value says whether that happened.
    """
    free = as_vector(free, "free weights")
    if np.any(free < 0):
        raise ValueError("the free weights must be non-negative.")
    total = float(free.sum())
    if total > 1.0:
        return np.append(free / total, 0.0), True
    return np.append(free, max(0.0, 1.0 - total)), False


@dataclass(frozen=True)
class Blend:
    """z = Σ_j w_j x_j for weights w: [n] and tokens X: [n, 2], with what the lesson checks about it."""

    weights: np.ndarray
    X: np.ndarray
    z: np.ndarray
    on_simplex: bool
    inside_hull: bool
    norm_z: float
    max_norm: float                                       # max_j ‖x_j‖

    @property
    def distances(self) -> np.ndarray:
        """‖z − x_j‖ for every token: [n]."""
        return np.linalg.norm(self.X - self.z, axis=1)

    @property
    def nearest(self) -> int:
        """The token z lands nearest to (the first, on a tie). Not always the one with the biggest weight."""
        return int(np.argmin(self.distances))

    @property
    def bound_holds(self) -> bool:
        """‖z‖ ≤ max_j ‖x_j‖: guaranteed on the simplex, by the triangle inequality."""
        return self.norm_z <= self.max_norm * (1 + 1e-12) + 1e-12


def blend(weights: object, X: object) -> Blend:
    """Blend tokens X: [n, 2] with any weights: [n] (on or off the simplex) and report where z lands."""
    X = as_matrix(X, "token vectors", cols=2)
    w = as_vector(weights, "weights", length=X.shape[0])
    z = linear_combination(w, X)                          # [2]
    return Blend(weights=w, X=X, z=z, on_simplex=is_on_simplex(w, tol=SIMPLEX_TOL * 10),
                 inside_hull=in_convex_hull(z, X), norm_z=float(np.linalg.norm(z)),
                 max_norm=float(np.linalg.norm(X, axis=1).max()))
