"""Vectors in the plane, set the way a learner thinks of them: a length and a direction."""

from __future__ import annotations

import numpy as np

_SNAP = 1e-12                                             # relative size below which a coordinate is rounding noise


def from_polar(length: float, angle_deg: float) -> np.ndarray:
    """[length·cos θ, length·sin θ] for θ in degrees. Returns [2].

    cos 90° is 6e-17 in floating point, not 0; coordinates that small relative to the length are
    snapped to 0 so that a vector set at a right angle to the x-axis really lies on the y-axis.
    """
    length, angle = float(length), float(angle_deg)
    if not (np.isfinite(length) and np.isfinite(angle)):
        raise ValueError("length and angle must be finite numbers.")
    if length < 0:
        raise ValueError(f"length must be ≥ 0, got {length}.")
    theta = np.deg2rad(angle)
    xy = length * np.array([np.cos(theta), np.sin(theta)])
    xy[np.abs(xy) < _SNAP * length] = 0.0                 # relative to the length, as the docstring says
    return xy


def angle_between(q: object, k: object) -> float:
    """The angle between q and k in degrees, in [0, 180]; both must be non-zero."""
    q, k = np.asarray(q, dtype=float), np.asarray(k, dtype=float)
    nq, nk = np.linalg.norm(q), np.linalg.norm(k)
    if nq == 0 or nk == 0:
        raise ValueError("the angle is undefined when a vector has length 0.")
    return float(np.degrees(np.arccos(np.clip(q @ k / (nq * nk), -1.0, 1.0))))


def tidy_zero(x: float, scale: float = 1.0) -> float:
    """x, or exactly 0.0 when |x| is rounding noise next to ``scale`` (so it never prints as −0.000)."""
    return 0.0 if abs(x) < 1e-12 * max(abs(scale), 1.0) else float(x)
