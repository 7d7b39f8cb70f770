"""Every chart on the site goes out through here: the figure, a caption saying what it shows, and
the numbers behind it in a table, for screen readers and for anyone who wants the exact values."""

from __future__ import annotations

from collections.abc import Callable

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from ui import present


def built(builder: Callable[..., go.Figure], *args: object, **kwargs: object) -> go.Figure:
    """``builder(*args, **kwargs)``, built once per distinct input and shared by every session.

    For a figure whose inputs do not change on every rerun (a section other than the one whose control
    moved, a fixed reference plot): Plotly validates a whole figure on construction (a few ms to tens of
    ms), while hashing the inputs takes well under one. Shared, so never mutated: chart() copies before
    it changes anything.
    """
    return _built(f"{builder.__module__}.{builder.__qualname__}", builder, *args, **kwargs)


# A resource, not data: cache_data would pickle the figure and rebuild it, validation and all, on every hit.
@st.cache_resource(max_entries=128, show_spinner=False)
def _built(name: str, _builder: Callable[..., go.Figure], *args: object, **kwargs: object) -> go.Figure:
    return _builder(*args, **kwargs)


def chart(fig: go.Figure, caption: str, numbers: pd.DataFrame | None, key: str) -> None:
    """Render ``fig`` with its caption and a collapsed "Show the numbers" table (enlarged when presenting)."""
    if present.active():                                  # a copy: the figure may be shared through built()
        fig = go.Figure(fig).update_layout(height=int((fig.layout.height or 320) * 1.4), font={"size": 18})
    st.plotly_chart(fig, key=key, config={"displaylogo": False})
    st.caption(caption)
    if numbers is not None:
        with st.expander("Show the numbers"):
            st.dataframe(numbers, width="stretch")
