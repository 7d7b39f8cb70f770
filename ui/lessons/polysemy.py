"""The polysemy page's cached computations: its 2-D vocabulary and the high-dimension sense experiment."""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType

import numpy as np
import pandas as pd

import attention_core as core
from ui.lru import shared
from ui.models import glove, glove_nearest

VOCAB_FILE = Path(__file__).resolve().parents[2] / "assets" / "vocab" / "polysemy_2d.csv"
DIMS = (2, 4, 8, 16, 32, 64, 128, 256, 300, 512, 1024, 2048, 4096)   # the sense experiment's d
SEED = 0                                                  # the page's default seed
REAL_VECTORS_FILE = Path(__file__).resolve().parents[2] / "assets" / "vocab" / "real_vectors.toml"


@dataclass(frozen=True)
class Vocab:
    """The 2-D vocabulary: every word (senses included) with its point and group."""

    all: tuple[str, ...]                # every row's word, in file order
    X: np.ndarray                       # [n, 2] their points
    groups: tuple[str, ...]             # each row's group ("river", "finance", "sense", …)
    coords: Mapping[str, np.ndarray]    # word → [2]
    group_of: Mapping[str, str]         # word → group
    senses: np.ndarray                  # [2, 2] the two senses' points
    words: tuple[str, ...]              # the words a learner can pick (no senses)


@shared(max_entries=1)
def vocab() -> Vocab:
    """The vocabulary as the page uses it: plain lists and arrays taken out of the CSV once, so a rerun
    neither unpickles a DataFrame nor indexes one word at a time."""
    table = pd.read_csv(VOCAB_FILE, comment="#", skipinitialspace=True).set_index("word")
    X, groups = table[["x", "y"]].to_numpy(dtype=float), tuple(table["group"])
    return Vocab(all=tuple(table.index), X=X, groups=groups,
                 coords=MappingProxyType(dict(zip(table.index, X, strict=True))),
                 group_of=MappingProxyType(dict(zip(table.index, groups, strict=True))),
                 senses=X[[g == "sense" for g in groups]],
                 words=tuple(w for w, g in zip(table.index, groups, strict=True) if g != "sense"))


@shared(max_entries=64)
def sense_experiment(d: int, seed: int) -> core.SenseExperiment:
    """One cached run per (d, seed); the seed and d together fix the random draw."""
    return core.sense_experiment(d, np.random.default_rng([seed, d]))


def load_word_groups(path: Path = REAL_VECTORS_FILE) -> tuple[str, str, dict[str, list[str]]]:
    """(title, ambiguous group's word, {group: words}) from the asset file."""
    raw = tomllib.loads(path.read_text(encoding="utf-8"))
    return raw["title"], raw["ambiguous"], {g: list(ws) for g, ws in raw["groups"].items()}


@dataclass(frozen=True)
class RealVectors:
    """The "with real vectors" section's map: GloVe words on their first two principal axes."""

    title: str
    ambiguous: str                      # the word with two senses, drawn as a star
    words: tuple[str, ...]              # the listed words GloVe has
    coords: np.ndarray                  # [len(words), 2] their PCA coordinates
    missing: tuple[str, ...]            # the listed words GloVe lacks
    groups: tuple[str, ...]             # each found word's group
    neighbours: tuple[tuple[str, float], ...]  # the ambiguous word's ten nearest GloVe words, with cosines


@shared(max_entries=1)
def real_vectors() -> RealVectors:
    """The word list of assets/vocab/real_vectors.toml placed by GloVe's PCA, once per process."""
    title, ambiguous, groups = load_word_groups()
    words = [w for ws in groups.values() for w in ws]
    group_of = {w: g for g, ws in groups.items() for w in ws}
    found, coords, missing = core.static_map(glove(), words)
    return RealVectors(title=title, ambiguous=ambiguous, words=tuple(found), coords=coords, missing=tuple(missing),
                       groups=tuple(group_of[w] for w in found),
                       neighbours=tuple(glove_nearest(ambiguous, 10)) if ambiguous in glove() else ())
