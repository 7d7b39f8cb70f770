"""Entry point: the navigation, grouped in sections, built from assets/lessons/index.toml."""

import streamlit as st

from ui import entry

entry.use_navigation_only()
st.set_page_config(page_title="Attention, made tangible", page_icon=":material/visibility:", layout="wide")
sections = entry.navigation_pages()
st.navigation(sections).run()
entry.settle_heap()
