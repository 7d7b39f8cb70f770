"""Validation at the edge, so the maths below stays clean.

Every public function in the core passes its inputs through these helpers. They raise
``ValueError`` with a sentence a learner can read on the page.
"""

from __future__ import annotations

import numpy as np

SIMPLEX_TOL = 1e-9


def read_only(a: np.ndarray) -> np.ndarray:
    """``a`` itself, marked read-only: for results that are cached or shared, so no caller can change them."""
    a.flags.writeable = False
    return a


def excerpt(text: str, limit: int = 24) -> str:
    """At most ``limit`` characters of what a learner typed, for an error message to quote. Plain text:
    the page escapes the whole message for where it shows it (ui.inputs.message), the core never does."""
    text = " ".join(str(text).replace("\x00", "").split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def as_array(x: object, name: str) -> np.ndarray:
    """Any array-like as a float64 array, refusing text, NaN and ±inf."""
    try:
        arr = np.asarray(x, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must contain numbers only.") from None
    if arr.size and not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or infinity; every entry must be a finite number.")
    return arr


def as_vector(x: object, name: str, length: int | None = None) -> np.ndarray:
    """A finite 1-D float array, optionally of a given length."""
    arr = as_array(x, name)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be a vector (1-D), got shape {arr.shape}.")
    if arr.size == 0:
        raise ValueError(f"{name} is empty.")
    if length is not None and arr.shape[0] != length:
        raise ValueError(f"{name} must have {length} entries, got {arr.shape[0]}.")
    return arr


def as_matrix(x: object, name: str, cols: int | None = None, rows: int | None = None) -> np.ndarray:
    """A finite 2-D float array, optionally with a given number of rows or columns."""
    arr = as_array(x, name)
    if arr.ndim != 2:
        raise ValueError(f"{name} must be 2-D, got shape {arr.shape}.")
    if arr.shape[0] == 0 or arr.shape[1] == 0:
        raise ValueError(f"{name} is empty (shape {arr.shape}).")
    if cols is not None and arr.shape[1] != cols:
        raise ValueError(f"{name} must have {cols} columns, got {arr.shape[1]}.")
    if rows is not None and arr.shape[0] != rows:
        raise ValueError(f"{name} must have {rows} rows, got {arr.shape[0]}.")
    return arr


def check_simplex(weights: np.ndarray, name: str = "weights", tol: float = SIMPLEX_TOL) -> None:
    """Raise unless every row of ``weights`` is non-negative and sums to 1."""
    if np.any(weights < -tol):
        raise ValueError(f"{name} must be non-negative to lie on the simplex (smallest is {weights.min():.6g}).")
    sums = weights.sum(axis=-1)
    if np.any(np.abs(sums - 1.0) > tol * max(1, weights.shape[-1])):
        worst = float(np.atleast_1d(sums)[np.argmax(np.abs(np.atleast_1d(sums) - 1.0))])
        raise ValueError(f"{name} must sum to 1 to lie on the simplex (a row sums to {worst:.6g}).")


def is_on_simplex(weights: object, tol: float = SIMPLEX_TOL) -> bool:
    """True when every row is non-negative and sums to 1 (within ``tol``)."""
    try:
        check_simplex(as_array(weights, "weights"), tol=tol)
    except ValueError:
        return False
    return True
