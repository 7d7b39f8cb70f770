"""The pretrained models, each loaded once per process and shared read-only by every session.

The lab (pages/real_model_lab.py) and the multi-head page read the NumPy MiniLM through ``encode``;
the polysemy page's real vectors and the lab's neighbour lists read GloVe through ``glove``.
``attention_core.load_model`` and ``load_glove`` only load: this module is the one cache of each.
"""

from __future__ import annotations

import threading

import streamlit as st

import attention_core as core
from ui.lru import ByteLRU


@st.cache_resource(max_entries=1, show_spinner="Loading GloVe vectors…")
def glove() -> core.glove.Glove:
    """The 50,000-word GloVe table, once per process (no arguments: bounded by construction). Read-only:
    the polysemy page's map and the lab's neighbour lists share it."""
    return core.load_glove()


@st.cache_data(max_entries=64, show_spinner=False)
def glove_nearest(word: str, k: int) -> list[tuple[str, float]]:
    """The word's k nearest GloVe words: 50,000 cosines and an argsort, so once per word, not per rerun."""
    return glove().nearest(word, k)


@st.cache_resource(max_entries=1, show_spinner="Loading the model (45 MB, once)…")
def minilm() -> core.bert.MiniLM:
    """The NumPy MiniLM, once per process: no arguments, so one entry at most."""
    return core.load_model()


# The lab sentence's runs, shared read-only by every session (no copy per session, as cache_data would make).
# A 128-token run (6 layers × 12 heads × 128² float32 weights) is about a hundred times a 12-token one; the
# budget holds eight of the longest and hundreds of short ones (tests/test_memory_bounds.py checks it).
LAB_RUNS_MAX_BYTES, LAB_RUNS_MAX_ENTRIES = 40 * 2**20, 512
LAB_RUNS: ByteLRU[core.bert.AttentionRun] = ByteLRU(LAB_RUNS_MAX_BYTES, LAB_RUNS_MAX_ENTRIES, lambda r: r.nbytes)


# At most two model runs at once (the machine's cores): each long run allocates sizeable temporaries, and
# many sessions running at once drove the server's memory up (docs/RELIABILITY.md, soak).
MODEL_RUNS = threading.BoundedSemaphore(2)


def run_model(text: str) -> core.bert.BertRun:
    """``minilm().run(text)``, waiting for a free slot among MODEL_RUNS."""
    with MODEL_RUNS:
        return minilm().run(text)


def encode(text: str) -> core.bert.AttentionRun:
    """The sentence's tokens and every head's attention weights (what the lab draws; no hidden states).
    Raises ValueError for text with nothing to read."""
    def make() -> core.bert.AttentionRun:
        with MODEL_RUNS:
            return minilm().attention_run(text)
    return LAB_RUNS.get(text, make)
