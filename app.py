"""Entry point: the navigation, grouped in sections, built from assets/lessons/index.toml."""

import streamlit as st

from ui import entry, heap, navigation

entry.use_navigation_only()
st.set_page_config(page_title="Attention, made tangible", page_icon=navigation.ICON, layout="wide")
sections = navigation.navigation_pages()
st.navigation(sections).run()
heap.settle_heap()
