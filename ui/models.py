"""The pretrained models, each loaded once per process and shared read-only by every session.

The lab (pages/real_model_lab.py) and the multi-head page read the NumPy MiniLM through ``encode``;
the polysemy page's real vectors and the lab's neighbour lists read GloVe through ``glove``.
``attention_core.load_model`` and ``load_glove`` only load: this module is the one cache of each.
"""

from __future__ import annotations

import threading

import streamlit as st

import attention_core as core
from ui import heap
from ui.lru import ByteLRU

heap.tune_malloc()                     # before the first run's weights: see its docstring


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


# The lab sentence's runs, shared read-only by every session, and the only place a run is kept: a session
# holds its sentence, never its run (pages/real_model_lab.py), since Streamlit keeps a session for minutes
# after its browser has gone. A 128-token run (6 layers × 12 heads × 128² float32 weights, 4.7 MB) is about
# a hundred times a 12-token one. The budget holds a class of 30 on the longest sentences (each student
# moving through their own run); fewer would make every move rerun the model once the class cycles through
# more runs than it holds. A run nobody has read for LAB_RUNS_MAX_IDLE seconds is dropped by ui.sweeper,
# so the budget is spent only while a class is there (tests/test_memory_bounds.py checks the figures).
LAB_RUNS_MAX_BYTES, LAB_RUNS_MAX_ENTRIES, LAB_RUNS_MAX_IDLE = 150 * 2**20, 512, 30.0
LAB_RUNS: ByteLRU[core.bert.AttentionRun] = ByteLRU(LAB_RUNS_MAX_BYTES, LAB_RUNS_MAX_ENTRIES, lambda r: r.nbytes,
                                                    max_idle=LAB_RUNS_MAX_IDLE)


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
