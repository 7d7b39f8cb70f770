"""Once per process, a thread that gives back what a class that has left still holds: every SWEEP_SECONDS it drops
the lab runs and the figures nobody has read for a while, and the closed sessions Streamlit no longer keeps for a
reconnect, then hands the memory back to the system.

Without it nothing would run once the last learner has gone, and a second class would start beside the first's
leftovers: up to 150 MB of lab runs, 32 MB of figures, 128 closed sessions (docs/RELIABILITY.md).
"""

from __future__ import annotations

import functools
import logging
import threading
import time

from ui import charts, heap, models, streamlit_private

_LOGGER = logging.getLogger(__name__)
SWEEP_SECONDS = 10.0
# A full collection holds the interpreter for up to a few hundred ms with a class on the server: worth it for a
# class's sessions or megabytes of runs and figures (Plotly figures form cycles), not for a few small figures.
COLLECT_BYTES = 4 * 2**20


def sweep() -> int:
    """One pass: what it dropped (runs, figures, sessions), then the memory handed back: with a collection when
    sessions or COLLECT_BYTES went (heap.release_memory), else the heaps' free pages only (heap.trim)."""
    held = models.LAB_RUNS.nbytes + charts.FIGURES.nbytes
    dropped = models.LAB_RUNS.sweep() + charts.FIGURES.sweep()
    sessions = streamlit_private.reap_closed_sessions() or 0
    if sessions or held - models.LAB_RUNS.nbytes - charts.FIGURES.nbytes >= COLLECT_BYTES:
        heap.release_memory()
    else:
        heap.trim()
    return dropped + sessions


@functools.cache
def start() -> threading.Thread:
    """The sweeping thread, started by the app's first run (app.py)."""
    def sweep_forever() -> None:
        while True:
            time.sleep(SWEEP_SECONDS)
            try:
                sweep()
            except Exception:                             # logged; the next pass tries again
                _LOGGER.exception("The memory sweep failed.")

    thread = threading.Thread(target=sweep_forever, name="memory-sweeper", daemon=True)
    thread.start()
    return thread
