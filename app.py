"""Entry point: the navigation, grouped in sections, built from assets/lessons/index.toml."""

import streamlit as st

from ui import entry, heap, navigation, streamlit_private, sweeper

entry.use_navigation_only()
# A timer's tick tagged with a page the server has switched this session away from is dropped (once per process).
streamlit_private.drop_stale_ticks()
# What a class that has left still holds (idle lab runs and figures, closed sessions) is given back (once per process).
sweeper.start()
# No page_title: set here it would name every tab; without it each tab takes its page's title (the lesson's).
st.set_page_config(page_icon=navigation.ICON, layout="wide")
sections = navigation.navigation_pages()
# The theme picked in Settings kept for every page; links to the app's own pages followed in this tab.
streamlit_private.keep_in_browser(navigation.url_paths())
# Expanded: with more than twelve pages a collapsed menu hides some behind "View more"; every lesson shows.
st.navigation(sections, expanded=True).run()
heap.settle_heap()
