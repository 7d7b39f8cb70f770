"""Figure builders: pure functions, data in, plotly Figure out. No Streamlit, no maths beyond layout."""
