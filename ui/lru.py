"""Process-wide values that no client can drop: a cache bounded in bytes as well as in entries, ``shared``
(a function's results in one), and ``once``.

``st.cache_data`` and ``st.cache_resource`` bound a cache by its number of entries only, and one lab run
at 128 tokens holds about a hundred times one at 12: no entry count fits both. This cache is given a
byte budget and a ``size`` function, and drops the least recently used entries until both bounds hold.
Shared like ``st.cache_resource``: values are handed out as they are, never copied, so everything stored
must be immutable (frozen dataclasses of read-only arrays and tuples, sealed figures). It also sits outside
Streamlit's caches, so a client's ``clear_cache`` message does not empty it (docs/SECURITY.md).
"""

from __future__ import annotations

import dataclasses
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable
from functools import wraps
from types import MappingProxyType
from typing import Generic, TypeVar

import numpy as np
import streamlit as st

V = TypeVar("V")
MB = 2**20


def once(make: Callable[[], V]) -> Callable[[], V]:
    """``make()`` called once per process, under a lock, its value kept for the process's life.

    For what must outlive a client's ``clear_cache`` message (Streamlit honours it from any client and empties
    every ``st.cache_resource``, docs/SECURITY.md): the classroom's rooms, its followers and its threads. A
    first call that raises keeps nothing, so the next call tries again.
    """
    lock = threading.Lock()
    kept: list[V] = []

    @wraps(make)
    def get() -> V:
        if not kept:
            with lock:
                if not kept:
                    kept.append(make())
        return kept[0]

    return get


class ByteLRU(Generic[V]):
    """Least recently used first out, once the entries' bytes pass ``max_bytes`` or their count ``max_entries``.

    A value larger than the whole budget is returned but not kept. Thread-safe: the server runs each
    session's script on its own thread. Two sessions asking for the same missing key at once may both
    compute it; the second result replaces the first, which costs time, never correctness.

    With ``max_idle`` (seconds), ``sweep()`` also drops every entry nobody has read for that long: a cache
    sized for a class in session need not hold its budget after the class has left. ``clock`` is for tests.
    """

    def __init__(self, max_bytes: int, max_entries: int, size: Callable[[V], int], max_idle: float | None = None,
                 clock: Callable[[], float] = time.monotonic):
        self.max_bytes, self.max_entries, self._size = int(max_bytes), int(max_entries), size
        self.max_idle, self._clock = max_idle, clock
        self._lock = threading.Lock()
        # key -> (value, bytes, last read); in least recently used order, so the idle ones come first
        self._entries: OrderedDict[Hashable, tuple[V, int, float]] = OrderedDict()
        self._bytes = 0

    def get(self, key: Hashable, make: Callable[[], V]) -> V:
        """The value under ``key``, made by ``make()`` (outside the lock) when it is not held."""
        with self._lock:
            hit = self._entries.get(key)
            if hit is not None:
                self._entries[key] = (hit[0], hit[1], self._clock())
                self._entries.move_to_end(key)
                return hit[0]
        value = make()
        n = int(self._size(value)) + deep_size(key)
        if n > self.max_bytes:
            return value
        with self._lock:
            old = self._entries.pop(key, None)
            if old is not None:
                self._bytes -= old[1]
            self._entries[key] = (value, n, self._clock())
            self._bytes += n
            while self._bytes > self.max_bytes or len(self._entries) > self.max_entries:
                self._bytes -= self._entries.popitem(last=False)[1][1]
        return value

    def sweep(self) -> int:
        """Drop the entries not read for ``max_idle`` seconds (none without it); the number dropped."""
        if self.max_idle is None:
            return 0
        oldest = self._clock() - self.max_idle
        dropped = 0
        with self._lock:
            while self._entries and next(iter(self._entries.values()))[2] <= oldest:
                self._bytes -= self._entries.popitem(last=False)[1][1]
                dropped += 1
        return dropped

    @property
    def nbytes(self) -> int:
        """Bytes held now, as the ``size`` function counts them."""
        with self._lock:
            return self._bytes

    def __len__(self) -> int:
        with self._lock:
            return len(self._entries)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self._bytes = 0


def shared(max_entries: int, max_bytes: int = 1 * MB,
           spinner: str | None = None) -> Callable[[Callable[..., V]], Callable[..., V]]:
    """A lesson's computation kept process-wide: its results in a ``ByteLRU`` keyed by its arguments (and their
    types, so 1 and 1.0 are two entries), each frozen (``frozen``) and handed to every session as it is.

    What ``st.cache_data`` did for the lessons, without its cost on every hit: Streamlit hashes the arguments
    with its own hasher and unpickles a fresh copy of the value, about 0.1 ms a call, several calls a rerun
    (docs/PERFORMANCE.md); this is a dictionary look-up. Bounded in bytes too, and a client's ``clear_cache``
    does not empty it. The arguments must be hashable (the lessons pass numbers, strings, booleans, tuples).
    ``spinner``: what the page says while a missing value is made. ``fn.cache`` is the ByteLRU (tests measure
    and clear it)."""
    def wrap(fn: Callable[..., V]) -> Callable[..., V]:
        cache: ByteLRU[V] = ByteLRU(max_bytes, max_entries, deep_size)

        @wraps(fn)
        def call(*args, **kwargs) -> V:
            key = tuple((type(a), a) for a in args) + tuple((k, type(v), v) for k, v in sorted(kwargs.items()))
            return cache.get(key, lambda: frozen(_made(fn, args, kwargs, spinner)))

        call.cache = cache                                    # type: ignore[attr-defined]
        return call

    return wrap


def _made(fn: Callable[..., V], args: tuple, kwargs: dict, spinner: str | None) -> V:
    if spinner is None:
        return fn(*args, **kwargs)
    with st.spinner(spinner):
        return fn(*args, **kwargs)


_PLAIN = (str, bytes, int, float, complex, bool, type(None), np.generic)


def frozen(value: V, where: str = "the value") -> V:
    """``value`` with every array in it made read-only; raises TypeError if anything in it could still be
    changed (a list, a dict, a dataclass that is not frozen): a shared value is every session's at once."""
    if isinstance(value, np.ndarray):
        if value.dtype == object:
            raise TypeError(f"{where} is an object array, which can hold mutable values")
        value.setflags(write=False)
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        if not value.__dataclass_params__.frozen:
            raise TypeError(f"{where} is a {type(value).__name__}, a dataclass that is not frozen")
        for f in dataclasses.fields(value):
            frozen(getattr(value, f.name), f"{type(value).__name__}.{f.name}")
    elif isinstance(value, tuple | frozenset):
        for i, item in enumerate(value):
            frozen(item, f"{where}[{i}]")
    elif isinstance(value, MappingProxyType):                 # a read-only view of a dict nobody else holds
        for k, item in value.items():
            frozen(item, f"{where}[{k!r}]")
    elif not isinstance(value, _PLAIN):
        raise TypeError(f"{where} is a {type(value).__name__}, which whoever holds it can change: make it a "
                        "tuple, or a frozen dataclass of read-only arrays")
    return value


def deep_size(value: object) -> int:
    """An estimate of the bytes ``value`` holds: arrays by ``nbytes``, strings by length (plus Python's
    object overhead), containers by their items. For figure dicts and cached results: a bound's input, so
    it errs high (every string counted in full, shared or not)."""
    if isinstance(value, np.ndarray):
        return int(value.nbytes) + 112
    if isinstance(value, str | bytes):
        return len(value) + 50
    if isinstance(value, dict | MappingProxyType):
        return 64 + sum(deep_size(k) + deep_size(v) + 16 for k, v in value.items())
    if isinstance(value, list | tuple | frozenset):
        return 56 + sum(deep_size(v) + 8 for v in value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return 56 + sum(deep_size(getattr(value, f.name)) + 8 for f in dataclasses.fields(value))
    return 32
