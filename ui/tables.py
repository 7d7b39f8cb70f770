"""Tables that never change while the app runs, made once per process and kept as Arrow."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd
import pyarrow as pa
import streamlit as st

from ui import present
from ui.numbers import written


@st.cache_resource(max_entries=16)
def fixed_table(name: str, _make: Callable[[], pd.DataFrame]) -> pa.Table:
    """A table that never changes while the app runs, made by ``_make`` once per process and kept as Arrow.

    ``st.dataframe`` converts a pandas table to Arrow on every rerun; an Arrow table it sends as it is.
    ``name`` alone keys the cache: one name, one table. (pyarrow is Streamlit's own dependency, already
    installed and pinned.)
    """
    return pa.Table.from_pandas(_make())


# Cells past which a table stays a scrolling grid even on a projector: a static table shows every cell at once.
PRESENTED_CELLS = 120
# Rows a grid shows whole, with no scroll bar of its own (Streamlit's default shows ten).
ROWS_SHOWN = 16


def numbers(data: pd.DataFrame | pa.Table) -> None:
    """A table of numbers: the scrolling data grid, or, in presenter mode and when small, a static table.

    The grid draws on a canvas at a fixed small size that presenter mode's larger type cannot reach; a static
    table's text grows with it, so a projector shows the numbers as large as the prose around them.
    """
    rows, cols = data.shape if isinstance(data, pd.DataFrame) else (data.num_rows, data.num_columns)
    if present.active() and rows * cols <= PRESENTED_CELLS:
        frame = data if isinstance(data, pd.DataFrame) else data.to_pandas()
        st.table(frame.style.format(_short, subset=list(frame.select_dtypes("number").columns)))
    else:                                               # every row on screen up to ROWS_SHOWN, then a scroll
        st.dataframe(data, width="stretch", height="content" if rows <= ROWS_SHOWN else "auto")


def _short(value: float) -> str:
    """A number as the data grid shows it: at most four decimals, no trailing zeros (0.9, not 0.9000); one that
    four decimals would show as 0 is written 2.9 × 10⁻⁵⁹."""
    if np.isfinite(value) and value != 0 and abs(value) < 5e-5:      # would round to 0: written as it is
        return written(value, 3)
    shown = f"{value:.4f}".rstrip("0").rstrip(".") if np.isfinite(value) else str(value)
    return "0" if shown == "-0" else shown
