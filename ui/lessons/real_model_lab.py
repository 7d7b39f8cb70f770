"""The lab's cached computations: its presets and references, and one word's vectors layer by layer.

The model itself, and each sentence's run, are cached once in ui/models.py (the multi-head page reads them too).
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType

import numpy as np

import attention_core as core
from ui.lru import MB, shared
from ui.models import minilm, run_model

LAB = tomllib.loads((Path(__file__).resolve().parents[2] / "assets" / "data" / "lab.toml").read_text(encoding="utf-8"))
PRESETS, EXPERIMENT, REFERENCES = LAB["presets"], LAB["experiment"], LAB["references"]


@shared(max_entries=8)
def reference_stacks(word: str) -> tuple[tuple[tuple[str, str], ...], np.ndarray | None]:
    """((sense, sentence) per reference sentence of the normalised ``word``, their [n, 8, d] stacks or None).
    Only the lab's few reference words have any (at most 8 entries of about 12 × 8 × 384 floats)."""
    refs = tuple((r["sense"], s) for r in REFERENCES if r["word"] == word for s in r["sentences"])
    if not refs:
        return refs, None
    model = minilm()
    return refs, np.stack([core.layer_vectors(run_model(s), word, model.params["wte"]) for _, s in refs])


@dataclass(frozen=True)
class LayerExperiment:
    """One word's vectors, layer by layer, in the learner's sentences and in the references."""

    stacks: Mapping[int, np.ndarray]    # sentence index → [8, d]: the lookup vector, then layers 0–6
    missing: tuple[int, ...]            # 1-based numbers of the sentences without the word
    refs: tuple[tuple[str, str], ...]   # (sense, sentence) of each reference sentence
    ref_stacks: np.ndarray | None       # [n_refs, 8, d], or None when the word has no references


@shared(max_entries=32, max_bytes=6 * MB)
def layer_experiment(word: str, sentences: tuple[str, ...]) -> LayerExperiment:
    """The word's [8, d] stacks (lookup, layers 0–6) in each sentence that has it, and in the references.

    Runs the sentences itself and keeps only the word's rows (8 × 384 floats a sentence, not 7 × T × 384)."""
    wte = minilm().params["wte"]
    stacks, missing = {}, []
    for n, s in enumerate(sentences):
        try:
            stacks[n] = core.layer_vectors(run_model(s), word, wte)
        except ValueError:
            missing.append(n + 1)
    refs, ref_stacks = reference_stacks(core.normalise_word(word))
    return LayerExperiment(stacks=MappingProxyType(stacks), missing=tuple(missing), refs=refs, ref_stacks=ref_stacks)
