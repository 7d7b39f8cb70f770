"""Tables that never change while the app runs, made once per process and kept as Arrow."""

from __future__ import annotations

from collections.abc import Callable

import pandas as pd
import pyarrow as pa
import streamlit as st


@st.cache_resource(max_entries=16)
def fixed_table(name: str, _make: Callable[[], pd.DataFrame]) -> pa.Table:
    """A table that never changes while the app runs, made by ``_make`` once per process and kept as Arrow.

    ``st.dataframe`` converts a pandas table to Arrow on every rerun; an Arrow table it sends as it is.
    ``name`` alone keys the cache: one name, one table. (pyarrow is Streamlit's own dependency, already
    installed and pinned.)
    """
    return pa.Table.from_pandas(_make())
