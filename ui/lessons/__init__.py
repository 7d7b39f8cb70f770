"""Each lesson's cached computations, in one module named after its page: ``ui/lessons/<slug>.py``.

They live in modules rather than in the page scripts: a page script runs top to bottom on every rerun, so a
``@st.cache_data`` written in it is applied anew each time, and Streamlit reads and tokenizes the function's
source to key its cache. Defined here, each is decorated once per process. Every cache is bounded in entries
(``max_entries``) and in bytes: either its entries have a small largest size (so entries × that size is the
bound; tests/test_memory_bounds.py measures each), or, where one entry can be 100 times another (the lab's
model runs, in ui/models.py), it is a ``ui.lru.ByteLRU`` with a byte budget. None returns a figure
(cache_data would pickle it and rebuild it, validation and all, on every hit: figures go through
``ui.charts.built``). Each returns a small frozen dataclass, as the core does, never a dict read by string.

Data files are named here, next to the function that reads them; a page calls ``polysemy.vocab()``,
never passes a path back in.
"""
