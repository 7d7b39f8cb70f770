"""Entry point: the navigation, grouped in sections, built from assets/lessons/index.toml."""

from pathlib import Path

import streamlit as st

from ui import entry, heap, navigation

# A local image, served by the app itself: a Material icon name would make every browser fetch it from
# Google's font server, which fails offline (a classroom behind a firewall) and logs a console error.
ICON = Path(__file__).resolve().parent / "assets" / "icon.png"

entry.use_navigation_only()
st.set_page_config(page_title="Attention, made tangible", page_icon=str(ICON), layout="wide")
sections = navigation.navigation_pages()
st.navigation(sections).run()
heap.settle_heap()
