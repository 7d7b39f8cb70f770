"""Entry point: the navigation, grouped in sections, built from assets/lessons/index.toml."""

import streamlit as st

from ui import present
from ui.content import page_index

st.set_page_config(page_title="Attention, made tangible", page_icon=":material/visibility:", layout="wide")

sections: dict[str, list] = {}
for entry in page_index():
    sections.setdefault(entry.section, []).append(
        st.Page(f"pages/{entry.slug}.py", title=entry.title, icon=entry.icon, default=entry.slug == "home")
    )
present.sidebar_toggle()
st.navigation(sections).run()
