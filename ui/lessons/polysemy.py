"""The polysemy page's cached computations: its 2-D vocabulary and the high-dimension sense experiment."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import streamlit as st

import attention_core as core

VOCAB_FILE = Path(__file__).resolve().parents[2] / "assets" / "vocab" / "polysemy_2d.csv"


@dataclass(frozen=True)
class Vocab:
    """The 2-D vocabulary: every word (senses included) with its point, group and label place."""

    all: list[str]                      # every row's word, in file order
    X: np.ndarray                       # [n, 2] their points
    groups: list[str]                   # each row's group ("river", "finance", "sense", …)
    places: list[str]                   # each row's label position
    coords: dict[str, np.ndarray]       # word → [2]
    group_of: dict[str, str]            # word → group
    senses: np.ndarray                  # [2, 2] the two senses' points
    words: list[str]                    # the words a learner can pick (no senses)


@st.cache_data(max_entries=1)
def vocab() -> Vocab:
    """The vocabulary as the page uses it: plain lists and arrays taken out of the CSV once, so a rerun
    neither unpickles a DataFrame nor indexes one word at a time."""
    table = pd.read_csv(VOCAB_FILE, comment="#", skipinitialspace=True).set_index("word")
    X, groups = table[["x", "y"]].to_numpy(dtype=float), list(table["group"])
    return Vocab(all=list(table.index), X=X, groups=groups, places=list(table["label"]),
                 coords=dict(zip(table.index, X, strict=True)),
                 group_of=dict(zip(table.index, groups, strict=True)),
                 senses=X[[g == "sense" for g in groups]],
                 words=[w for w, g in zip(table.index, groups, strict=True) if g != "sense"])


@st.cache_data(max_entries=64)
def sense_experiment(d: int, seed: int) -> core.SenseExperiment:
    """One cached run per (d, seed); the seed and d together fix the random draw."""
    return core.sense_experiment(d, np.random.default_rng([seed, d]))
