"""Validated input widgets: they return numbers or None, and show their own message on bad input."""

from __future__ import annotations

import numpy as np
import streamlit as st

from attention_core import format_matrix, parse_matrix


def matrix_input(label: str, default: np.ndarray, key: str, *, help: str | None = None,
                 cols: int | None = None, rows: int | None = None, height: int | None = None) -> np.ndarray | None:
    """A text area holding a matrix, one row per line; mirrored in the URL under ``key``.

    Returns the parsed matrix [rows, cols], or None after showing what is wrong with the entry.
    """
    text = st.text_area(label, value=format_matrix(default), key=key, help=help, height=height,
                        bind="query-params")
    try:
        return parse_matrix(text, label, cols=cols, rows=rows)
    except ValueError as err:
        st.error(str(err), icon=":material/error:")
        return None


def table(matrix: np.ndarray, row_labels: list[str], col_labels: list[str], digits: int = 6):
    """A pandas table of a matrix with labelled rows and columns, rounded for display only."""
    import pandas as pd

    return pd.DataFrame(np.round(np.atleast_2d(matrix), digits), index=row_labels, columns=col_labels)
