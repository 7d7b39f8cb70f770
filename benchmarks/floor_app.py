"""The floor page for benchmarks/run.py: one slider and one 100-point Plotly chart, under a title (which the
browser harness waits for as its sign that the page has drawn).

Every lesson page's rerun time is reported as a multiple of this page's, measured in the same run,
so the ratio holds still on a noisy shared machine where absolute milliseconds do not.
"""

import numpy as np
import plotly.graph_objects as go
import streamlit as st

st.title("Floor")
frequency = st.slider("Frequency", 1, 10, 3, key="frequency")
x = np.linspace(0.0, 1.0, 100)
st.plotly_chart(go.Figure(go.Scatter(x=x, y=np.sin(2 * np.pi * frequency * x), mode="lines")), key="floor")
