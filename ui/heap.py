"""The server process's heap: what it holds after the first run is frozen out of later full collections."""

from __future__ import annotations

import functools
import gc


# Once per process, remembered by the cache: asking gc.get_freeze_count() instead walks every frozen object,
# on every rerun.
@functools.cache
def settle_heap() -> None:
    """Called by app.py after every run: the first time in this process, collect once and freeze what is left.

    With runner.postScriptGC off (.streamlit/config.toml), Python's own collector still runs now and then,
    and a full (generation 2) pass walks every object the server holds: NumPy, pandas, Plotly and
    Streamlit's modules, over a hundred thousand objects after a tour of the pages, holding the GIL, so
    every session waits. Frozen objects are left out of later passes, which then take a small fraction of
    the time (docs/PERFORMANCE.md). What the server makes afterwards (sessions, cached figures) is
    collected as usual.
    """
    gc.collect()
    gc.freeze()
