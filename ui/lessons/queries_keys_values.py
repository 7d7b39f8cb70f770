"""The queries-keys-values page's cached computations: the video library it searches."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import streamlit as st

import attention_core as core

LIBRARY_FILE = Path(__file__).resolve().parents[2] / "assets" / "vocab" / "video_library.csv"


@dataclass(frozen=True)
class Library:
    """The library: its display table and its key and value matrices (read-only)."""

    shown: pa.Table                     # the display table, sent as it is
    K: np.ndarray                       # [n, tags] one key row per title
    V: np.ndarray                       # [n, values] one value row per title
    titles: list[str]
    tags: list[str]                     # the keys' column names
    value_names: list[str]              # the values' column names


@st.cache_resource(max_entries=1)
def video_library() -> Library:
    """The library as the page uses it: the display table (Arrow, sent as it is), and the key and value
    matrices as plain read-only arrays (taken out once here rather than by pandas indexing on every rerun).
    One shared copy for every session: the arrays cannot be written, and the page only reads the rest."""
    library = pd.read_csv(LIBRARY_FILE, comment="#", skipinitialspace=True).set_index("title")
    key_cols = [c for c in library.columns if c.startswith("k_")]
    value_cols = [c for c in library.columns if c.startswith("v_")]
    shown = library.rename(columns=lambda c: ("key · " if c.startswith("k_") else "value · ") + c[2:])
    return Library(shown=pa.Table.from_pandas(shown),
                   K=core.read_only(library[key_cols].to_numpy(float)),
                   V=core.read_only(library[value_cols].to_numpy(float)),
                   titles=list(library.index), tags=[c[2:] for c in key_cols],
                   value_names=[c[2:] for c in value_cols])
