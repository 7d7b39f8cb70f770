"""Each lesson's cached computations, in one module named after its page: ``ui/lessons/<slug>.py``.

They live in modules rather than in the page scripts: a page script runs top to bottom on every rerun, so a
cache decorator written in it would be applied anew each time. Each computation is ``@shared`` (``ui.lru``):
its results kept once per process in a cache bounded in entries and in bytes (tests/test_memory_bounds.py
checks each largest entry against its budget, and all the budgets together), frozen and handed to every
session as they are, so a hit is a dictionary look-up (``st.cache_data`` hashed the arguments and unpickled a
copy on every hit). A few loaded-once tables with a spinner stay ``st.cache_resource``. None returns a figure
(figures go through ``ui.charts.built``). Each returns a small frozen dataclass of read-only arrays and
tuples, as the core does, never a dict read by string.

Data files are named here, next to the function that reads them; a page calls ``polysemy.vocab()``,
never passes a path back in.
"""
