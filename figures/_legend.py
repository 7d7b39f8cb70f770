"""Legend placement for figures that have an x-axis title.

tidy() puts a horizontal legend at y = −0.2, where it lands on top of the x-axis title; these figures
hang it lower, under the title, and give the margin room for it.
"""

from __future__ import annotations

import plotly.graph_objects as go


def legend_below(fig: go.Figure) -> go.Figure:
    fig.update_layout(legend={"orientation": "h", "y": -0.3, "yanchor": "top", "x": 0.0},
                      margin={"b": 85}, height=fig.layout.height + 30)
    return fig
