"""Run NumPy's matrix products on one BLAS thread while a small model runs.

Why: MiniLM's products are small (T ≤ 128 rows). On this project's 2-core machines, OpenBLAS's
second thread costs more than it gives, and the more the machine is loaded, the worse (docs/PERFORMANCE.md,
"Timings moved out of the code"). NumPy has no switch for this; threadpoolctl finds the BLAS NumPy loaded
(OpenBLAS, MKL, BLIS or FlexiBLAS, on Linux, macOS and Windows) and calls its own thread setter.

The thread count is one per process, whoever's session asked, and sessions run on threads of their own, so
the setting is reference-counted under a lock: set by the first run in, restored when the last run leaves
(threadpoolctl's ``limit`` restores per call, which would put a run still inside back on every thread).
threadpoolctl ≥ 3.8 also lets only the first Python thread that set OpenBLAS's count set it again (others
are ignored, silently); here the lock decides, so each change first releases that hold (``_take_over``).

A BLAS threadpoolctl cannot set (Apple's Accelerate, or none found) is left as it is: results are the
same, only timing differs. Against the ctypes calls this module made before (OpenBLAS on Linux only, found
through /proc/self/maps), the Lab's 128-token forward pass costs the same (2026-12-06, AMD EPYC, 2 cores, load
11–17; the two alternating in one process, 80 passes each): median CPU time 39 ms for both, ratio 1.004 and
1.001 in two runs; wall-time ratios 0.93–1.04, the load's noise. Entering and leaving takes about 50 µs
(threadpoolctl reads each library's settings), against 2–14 µs before: nothing beside a pass.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from functools import lru_cache


class _Users:
    """How many runs are inside single_threaded_blas, and what restores the thread count after the last.

    Process-wide on purpose (the BLAS thread count is one per process, whoever's session asked), and only
    ever changed under its lock; it holds no learner's data.
    """

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.count = 0
        self.limiter = None                     # threadpoolctl's limit while count > 0: it knows the count before


_USERS = _Users()


@lru_cache(maxsize=1)
def _blas():
    """threadpoolctl's controller of the BLAS libraries NumPy loaded, or None (none it can set)."""
    try:
        import numpy  # noqa: F401  (make sure NumPy's BLAS is loaded before threadpoolctl looks for it)
        from threadpoolctl import ThreadpoolController

        blas = ThreadpoolController().select(user_api="blas")
    except Exception:                           # threadpoolctl missing, or its look-up failed: nothing to set
        return None
    return blas if blas.lib_controllers else None


def threads() -> int | None:
    """The BLAS's thread count now (the smallest, if NumPy loaded several), or None if none can be set."""
    blas = _blas()
    return min(lib.get_num_threads() for lib in blas.lib_controllers) if blas is not None else None


def _take_over() -> None:
    """Let this thread set OpenBLAS's count: threadpoolctl (≥ 3.8) ignores every thread but the first that set
    it while that one lives, and a session's run thread may outlive its run. Called with _USERS.lock held."""
    from threadpoolctl import OpenBLASController

    OpenBLASController.clear_controlling_thread(force=True)


@contextmanager
def single_threaded_blas() -> Iterator[None]:
    """Inside the block, the BLAS uses one thread; the previous count comes back after the last exit."""
    blas = _blas()
    if blas is None:
        yield
        return
    with _USERS.lock:
        if _USERS.count == 0:
            _take_over()
            _USERS.limiter = blas.limit(limits=1)
        _USERS.count += 1
    try:
        yield
    finally:
        with _USERS.lock:
            _USERS.count -= 1
            if _USERS.count == 0:
                _take_over()
                _USERS.limiter.restore_original_limits()
                _USERS.limiter = None
