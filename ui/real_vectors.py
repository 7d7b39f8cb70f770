"""The polysemy page's "with real vectors" section: GloVe's one-vector-per-word on a 2-D PCA map.

pages/polysemy.py calls ``render_real_vectors()`` once; the word list is in assets/vocab/real_vectors.toml.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from figures.polysemy import glove_pca_figure
from ui.charts import built, chart
from ui.content import fill
from ui.lessons import polysemy


def render_real_vectors(intro: str, key: str = "pl_real") -> None:
    """Draw the section: the lesson's ``intro`` (``{ambiguous}`` is filled in), the map, its numbers, and
    the ambiguous word's ten nearest GloVe words."""
    m = polysemy.real_vectors()
    st.subheader("With real vectors")
    st.markdown(fill(intro.strip(), ambiguous=m.ambiguous))
    chart(built(glove_pca_figure, m.words, m.coords, m.groups, m.title, ambiguous="ambiguous"),
          f"GloVe 6B 50-d vectors of {len(m.words)} words projected on their first two principal axes; "
          f"the star is '{m.ambiguous}'.",
          lambda: pd.DataFrame({"word": m.words, "group": m.groups, "axis 1": m.coords[:, 0].round(3),
                        "axis 2": m.coords[:, 1].round(3)}), key=f"{key}_map")
    if m.neighbours:
        st.caption(f"The ten nearest of all 50,000 GloVe words to '{m.ambiguous}': "
                   + ", ".join(f"{w} ({c:.2f})" for w, c in m.neighbours)
                   + ". The single vector leans towards the sense the training text used most.")
    if m.missing:
        st.caption("Not in the GloVe vocabulary, so left off the map: " + ", ".join(m.missing) + ".")
