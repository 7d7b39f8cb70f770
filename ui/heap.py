"""The server process's heap: what it holds after the first run is frozen out of later full collections,
and how glibc's malloc holds what is freed."""

from __future__ import annotations

import ctypes
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


# glibc's mallopt parameters (malloc.h), and the values tune_malloc gives them.
_M_MMAP_THRESHOLD, _M_ARENA_MAX = -3, -8
MMAP_THRESHOLD, ARENAS = 1 << 18, 2


@functools.cache
def _glibc() -> ctypes.CDLL | None:
    """The C library, if it is glibc (has mallopt and malloc_trim); None elsewhere (musl, macOS)."""
    try:
        lib = ctypes.CDLL("libc.so.6")
    except OSError:
        return None
    if not (hasattr(lib, "mallopt") and hasattr(lib, "malloc_trim")):
        return None
    lib.mallopt.argtypes, lib.mallopt.restype = [ctypes.c_int, ctypes.c_int], ctypes.c_int
    lib.malloc_trim.argtypes, lib.malloc_trim.restype = [ctypes.c_size_t], ctypes.c_int
    return lib


@functools.cache
def tune_malloc() -> bool:
    """Once per process: blocks of MMAP_THRESHOLD bytes (256 KB) or more get their own mapping, and script
    threads share ARENAS malloc arenas. True if glibc took both settings.

    Why (docs/RELIABILITY.md, memory soak): a lab run's weights are megabytes, and a 128-token pass makes
    temporaries of hundreds of KB ([128, 1536] float32 is 768 KB). glibc maps such a block on its own at
    first, but after one is freed it raises its threshold to that size, and from then on puts them in its
    heaps, one heap per thread up to 8 × cores; the server runs every session's script on a thread of its
    own. Freed blocks then left holes the heaps kept, and the server's memory stayed up after a class had
    left. A fixed threshold turns the dynamic one off: big blocks go back to the system when freed
    (256 KB against 1 MB: docs/RELIABILITY.md). The same as MALLOC_MMAP_THRESHOLD_ and MALLOC_ARENA_MAX in
    the environment, which a hosted app cannot set before its process starts.
    """
    lib = _glibc()
    if lib is None:
        return False
    return bool(lib.mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD)) & bool(lib.mallopt(_M_ARENA_MAX, ARENAS))


def release_memory() -> None:
    """Collect cyclic garbage and give the heaps' free pages back to the system (glibc's malloc_trim).

    For after a cache has dropped a lot: with runner.postScriptGC off, a dropped figure (Plotly objects
    point at their parents, so they form cycles) waits for Python's next full collection, and glibc keeps
    freed pages inside its heaps until asked. Costs a full collection of what is not frozen (see
    settle_heap); malloc_trim itself runs without the GIL.
    """
    gc.collect()
    trim()


def trim() -> None:
    """Give the free pages inside glibc's heaps back to the system (malloc_trim; nothing elsewhere).

    Between runs of many sessions, freed blocks leave whole free pages inside the heaps that glibc keeps
    until asked. Runs without the GIL (ctypes releases it)."""
    lib = _glibc()
    if lib is not None:
        lib.malloc_trim(0)
