"""Every chart on the site goes out through here: the figure, a caption saying what it shows, and
the numbers behind it in a table, for screen readers and for anyone who wants the exact values."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from ui import present


def chart(fig: go.Figure, caption: str, numbers: pd.DataFrame | None, key: str) -> None:
    """Render ``fig`` with its caption and a collapsed "Show the numbers" table (enlarged when presenting)."""
    if present.active():
        fig.update_layout(height=int((fig.layout.height or 320) * 1.4), font={"size": 18})
    st.plotly_chart(fig, key=key, config={"displaylogo": False})
    st.caption(caption)
    if numbers is not None:
        with st.expander("Show the numbers"):
            st.dataframe(numbers, width="stretch")
