"""Turning what a learner typed into numbers, or into a message saying what is wrong."""

from __future__ import annotations

import re

import numpy as np

from ._validate import excerpt

MAX_CHARS = 4000
MAX_ROWS = 32
MAX_COLS = 32
# Large enough for any lesson, small enough that 32-wide products (and products of those) stay finite:
# a row of 1e308 would otherwise overflow Q Kᵀ to inf and surface as NaN weights.
MAX_ABS = 1e6
_SEP = re.compile(r"[,\s]+")


_short = excerpt


def parse_matrix(text: str, name: str, cols: int | None = None, rows: int | None = None) -> np.ndarray:
    """One row per line (or separated by ';'), entries by commas or spaces → [rows, cols].

    Raises ValueError naming the row and entry that could not be read.
    """
    if not isinstance(text, str):
        raise ValueError(f"{name} must be typed as text.")
    if len(text) > MAX_CHARS:
        raise ValueError(f"{name} is too long ({len(text):,} characters; at most {MAX_CHARS:,}).")
    lines = [ln.strip(" \t,") for ln in re.split(r"[\n;]+", text)]
    lines = [ln for ln in lines if ln]
    if not lines:
        raise ValueError(f"{name} is empty: type numbers separated by commas, one row per line.")
    if len(lines) > MAX_ROWS:
        raise ValueError(f"{name} has {len(lines)} rows; at most {MAX_ROWS} are allowed here.")
    parsed: list[list[float]] = []
    for r, line in enumerate(lines, start=1):
        row = []
        for c, token in enumerate(_SEP.split(line), start=1):
            try:
                value = float(token)
            except ValueError:
                raise ValueError(f"{name}, row {r}, entry {c}: '{_short(token)}' is not a number.") from None
            if not np.isfinite(value):
                raise ValueError(f"{name}, row {r}, entry {c}: {_short(token)} is not a finite number.")
            if abs(value) > MAX_ABS:
                raise ValueError(f"{name}, row {r}, entry {c}: {_short(token)} is too large; "
                                 f"use numbers between -{MAX_ABS:,.0f} and {MAX_ABS:,.0f}.")
            row.append(value)
        if len(row) > MAX_COLS:
            raise ValueError(f"{name}, row {r} has {len(row)} entries; at most {MAX_COLS} are allowed here.")
        parsed.append(row)
    widths = {len(row) for row in parsed}
    if len(widths) > 1:
        raise ValueError(f"{name}: every row needs the same number of entries, got {sorted(widths)}.")
    M = np.array(parsed, dtype=np.float64)
    if cols is not None and M.shape[1] != cols:
        raise ValueError(f"{name} needs {cols} numbers per row to match, got {M.shape[1]}.")
    if rows is not None and M.shape[0] != rows:
        raise ValueError(f"{name} needs {rows} rows to match, got {M.shape[0]}.")
    return M


def format_matrix(M: np.ndarray) -> str:
    """The inverse of parse_matrix, with the shortest repr that reads back exactly."""
    M = np.atleast_2d(np.asarray(M, dtype=np.float64))
    return "\n".join(", ".join(f"{v:g}" if float(f"{v:g}") == v else repr(float(v)) for v in row) for row in M)
