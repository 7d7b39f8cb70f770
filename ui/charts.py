"""Every chart on the site goes out through here: the figure, a caption saying what it shows, and
the numbers behind it in a table, for screen readers and for anyone who wants the exact values."""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Callable

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from figures._layout import presented
from ui import present
from ui.lru import ByteLRU, deep_size
from ui.numbers import written

# A figure counts twice its JSON-ready dict: Plotly's own validated copy plus the sealed dict (see sealed()).
# The budget holds every lesson's default figures many times over (all twelve lessons' take about 1.2 MB)
# and about a hundred of the Lab's 128-token heatmaps with their bars (0.23 + 0.06 MB a pair): a class of 30
# in the Lab keeps each student's current pair (docs/RELIABILITY.md). A figure nobody has drawn for
# FIGURES_MAX_IDLE seconds is dropped by ui.sweeper: the budget is spent while a class is there, not after.
FIGURES_MAX_BYTES, FIGURES_MAX_ENTRIES, FIGURES_MAX_IDLE = 32 * 2**20, 256, 60.0
FIGURES: ByteLRU[go.Figure] = ByteLRU(FIGURES_MAX_BYTES, FIGURES_MAX_ENTRIES, lambda fig: 2 * deep_size(fig.to_dict()),
                                      max_idle=FIGURES_MAX_IDLE)

# No mode bar: on a touch screen a tap shows it over the chart's title, and the site's own "Show the
# numbers" table, not a PNG download or zoom box, is the way to the exact values.
CONFIG = {"displaylogo": False, "displayModeBar": False}


def built(builder: Callable[..., go.Figure], *args: object, **kwargs: object) -> go.Figure:
    """``builder(*args, **kwargs)``, built once per distinct input and shared by every session.

    For a figure whose inputs do not change on every rerun (a section other than the one whose control
    moved, a fixed reference plot): Plotly validates a whole figure on construction (a few ms to tens of
    ms), while fingerprinting the inputs takes microseconds. Shared, so never mutated: chart() copies
    before it changes anything. Kept in FIGURES, bounded in bytes (a shared object, not cache_data, which
    would pickle the figure and rebuild it, validation and all, on every hit).
    """
    name = f"{builder.__module__}.{builder.__qualname__}"
    return FIGURES.get(fingerprint((name, args, sorted(kwargs.items()))), lambda: sealed(builder(*args, **kwargs)))


def fingerprint(value: object) -> str:
    """A digest of ``value`` that changes whenever any number, string or shape in it does.

    Arrays by dtype, shape and bytes; numbers by their exact repr; containers and dataclasses by their
    parts, tagged with the type, so (1,) and [1] or two dataclasses with equal fields differ. Streamlit's
    own hasher walks a list item by item through its generic machinery; this hashes arrays as bytes, many
    times faster (docs/PERFORMANCE.md). Any other type is refused rather than guessed at.
    """
    h = hashlib.blake2b(digest_size=16)
    _feed(h, value)
    return h.hexdigest()


def _feed(h, value: object) -> None:
    if isinstance(value, np.ndarray):
        h.update(f"a{value.dtype.str}{value.shape}".encode())
        h.update(np.ascontiguousarray(value).tobytes())
    elif value is None or isinstance(value, str | bool | int | float | complex | np.generic):
        h.update(f"{type(value).__name__}:{value!r};".encode())
    elif isinstance(value, list | tuple):
        h.update(f"{type(value).__name__}[{len(value)}".encode())
        for item in value:
            _feed(h, item)
        h.update(b"]")
    elif isinstance(value, dict):
        h.update(f"dict{{{len(value)}".encode())
        for key in sorted(value, key=repr):
            _feed(h, key)
            _feed(h, value[key])
        h.update(b"}")
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        h.update(f"{type(value).__qualname__}(".encode())
        for field in dataclasses.fields(value):
            _feed(h, field.name)
            _feed(h, getattr(value, field.name))
        h.update(b")")
    else:
        raise TypeError(f"built(): cannot fingerprint a {type(value).__name__}; pass arrays, numbers, "
                        "strings, containers or dataclasses of them")


def sealed(fig: go.Figure) -> go.Figure:
    """``fig``, with its JSON-ready dict made now and handed out from then on.

    st.plotly_chart asks the figure for ``to_dict()`` on every rerun: a deep copy of every trace and a
    base64 pass over its arrays, on every chart. A figure shared through built() never changes, so
    the dict is made once. Plotly's own methods still work on the figure; a change made after sealing
    would not reach the page, which is why shared figures are copied, never changed (see chart()).
    """
    frozen = fig.to_dict()
    fig.to_dict = lambda: frozen                          # plotly lets a known attribute be replaced
    return fig


def chart(fig: go.Figure, caption: str, numbers: pd.DataFrame | Callable[[], pd.DataFrame] | None, key: str) -> None:
    """Render ``fig`` with its caption and a collapsed "Show the numbers" table (enlarged when presenting).

    ``numbers`` is the table, or a function that makes it. The table is made and sent only while its
    expander is open (``on_change="rerun"`` makes the expander report its state, key ``{key}__numbers``):
    a closed one costs nothing on the reruns a slider makes.
    """
    if present.active():                                  # a copy: the figure may be shared through built()
        fig = presented(fig)
    st.plotly_chart(fig, key=key, config=CONFIG)
    st.caption(caption)
    if numbers is not None:
        with st.expander("Show the numbers", key=f"{key}__numbers", on_change="rerun") as box:
            if box.open:
                st.dataframe(readable(numbers() if callable(numbers) else numbers), width="stretch")


# Sizes outside which fixed decimals stop being readable: the data grid shows 10⁻⁵⁹ as a run of zeros.
PLAIN_FROM, PLAIN_BELOW = 1e-4, 1e9


def readable(data: pd.DataFrame) -> pd.DataFrame:
    """``data`` with every numeric column that holds a number too small or too large for fixed decimals (a
    nonzero below 10⁻⁴ in size, or 10⁹ and above) written as a reader would, 2.9 × 10⁻⁵⁹, in every cell."""
    out = data
    for name in data.select_dtypes("number").columns:
        values = data[name].to_numpy(dtype=float)
        size = np.abs(values[np.isfinite(values) & (values != 0)])
        if size.size and (size.min() < PLAIN_FROM or size.max() >= PLAIN_BELOW):
            out = out.copy() if out is data else out
            out[name] = [written(v, 4) for v in values]
    return out
