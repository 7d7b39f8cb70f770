"""Shared layout: small, template-free figures that Streamlit's theme styles for light and dark."""

from __future__ import annotations

import plotly.graph_objects as go


def tidy(fig: go.Figure, title: str, x_title: str = "", y_title: str = "", height: int = 320) -> go.Figure:
    """Give a figure its title, axis titles and compact margins; no template, so the JSON stays small."""
    legend = len(fig.data) > 1
    fig.update_layout(
        template="none",
        title={"text": title, "x": 0.0, "xanchor": "left", "font": {"size": 15}},
        height=height + (30 if legend else 0),
        # A horizontal legend hangs under the x-axis title, with the bottom margin to hold both.
        margin={"l": 50, "r": 20, "t": 50, "b": 85 if legend else 45},
        showlegend=legend,
        legend={"orientation": "h", "y": -0.3, "yanchor": "top", "x": 0.0},
        paper_bgcolor="rgba(0,0,0,0)",
        plot_bgcolor="rgba(0,0,0,0)",
    )
    fig.update_xaxes(title_text=x_title, automargin=True)
    fig.update_yaxes(title_text=y_title, automargin=True)
    return fig
