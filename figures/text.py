"""Text a learner typed, made literal for a Plotly label (axis ticks, legends, hover, annotations).

Plotly draws a small subset of HTML in any label (<b>, <i>, <a href>, <br>, <span style>…) and decodes
a few entities (&lt; &gt; &amp; and numeric ones such as &#36;), but not &quot; or &#x27;, which it shows
as typed: so html.escape, which makes those, is the wrong escape. Here only what Plotly would read as
markup changes: & < > become &amp; &lt; &gt;, and $ becomes &#36; (a label that starts and ends with $
is handed to MathJax as LaTeX). Quotes, backticks, asterisks and underscores mean nothing to Plotly and
stay as they are. tests/browser/test_inert_text.py checks in Chromium that each shows as typed.
"""

from __future__ import annotations

_PLOTLY = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;", "$": "&#36;"})


def plotly_literal(text: str) -> str:
    """``text`` as Plotly will show it literally: &, <, > and $ as entities, everything else unchanged."""
    return str(text).translate(_PLOTLY)
