"""Entry point: the navigation, grouped in sections, built from assets/lessons/index.toml."""

import streamlit as st

from ui import entry
from ui.content import page_index

entry.use_navigation_only()
st.set_page_config(page_title="Attention, made tangible", page_icon=":material/visibility:", layout="wide")

sections: dict[str, list] = {}
for item in page_index():
    sections.setdefault(item.section, []).append(
        st.Page(f"pages/{item.slug}.py", title=item.title, icon=item.icon, default=item.slug == "home")
    )
st.navigation(sections).run()
entry.settle_heap()
