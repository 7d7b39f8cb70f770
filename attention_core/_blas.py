"""Run NumPy's matrix products on one BLAS thread while a small model runs.

Why: MiniLM's products are small (T ≤ 128 rows). On this project's 2-core machines, OpenBLAS's
second thread costs more than it gives, and the more the machine is loaded, the worse (docs/PERFORMANCE.md,
"Timings moved out of the code"). NumPy has no switch for
this, so, like threadpoolctl, we call OpenBLAS's own setter through ctypes. Process-wide, so the
setting is reference-counted under a lock and restored when the last user leaves. If no OpenBLAS is
found (another BLAS, another OS), this does nothing and results are the same, only timing differs.
"""

from __future__ import annotations

import ctypes
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path

# (setter, getter) names: NumPy ≥ 2 wheels ship scipy-openblas (64- or 32-bit ints); others plain OpenBLAS.
_SYMBOLS = (
    ("scipy_openblas_set_num_threads64_", "scipy_openblas_get_num_threads64_"),
    ("scipy_openblas_set_num_threads", "scipy_openblas_get_num_threads"),
    ("openblas_set_num_threads64_", "openblas_get_num_threads64_"),
    ("openblas_set_num_threads", "openblas_get_num_threads"),
)

class _Users:
    """How many runs are inside single_threaded_blas, and the thread count to restore after the last.

    Process-wide on purpose (OpenBLAS's thread count is one per process, whoever's session asked), and
    only ever changed under its lock; it holds no learner's data.
    """

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.count = 0
        self.saved_threads: int | None = None


_USERS = _Users()


@lru_cache(maxsize=1)
def _openblas() -> tuple | None:
    """(set_num_threads, get_num_threads) of the OpenBLAS NumPy loaded, or None."""
    try:
        import numpy  # noqa: F401  (make sure NumPy's BLAS is loaded before we look for it)

        maps = Path("/proc/self/maps").read_text()
        paths = sorted({p for p in re.findall(r"(/\S+\.so[.\d]*)", maps) if "openblas" in p.lower()})
        for path in paths:
            lib = ctypes.CDLL(path)
            for set_name, get_name in _SYMBOLS:
                if hasattr(lib, set_name) and hasattr(lib, get_name):
                    setter, getter = getattr(lib, set_name), getattr(lib, get_name)
                    setter.argtypes, setter.restype = [ctypes.c_int], None
                    getter.argtypes, getter.restype = [], ctypes.c_int
                    return setter, getter
    except (OSError, AttributeError, ValueError):
        pass
    return None


@contextmanager
def single_threaded_blas() -> Iterator[None]:
    """Inside the block, OpenBLAS uses one thread; the previous count comes back after the last exit."""
    api = _openblas()
    if api is None:
        yield
        return
    setter, getter = api
    with _USERS.lock:
        if _USERS.count == 0:
            _USERS.saved_threads = getter()
            setter(1)
        _USERS.count += 1
    try:
        yield
    finally:
        with _USERS.lock:
            _USERS.count -= 1
            if _USERS.count == 0 and _USERS.saved_threads is not None:
                setter(_USERS.saved_threads)
