"""The transformer-block page's cached computations: the sentence through MiniLM with block parts switched
off, how alike its tokens become, and the two "bank" vectors.

Cached per sentence and parts, so moving the layer slider reads the run (and computes one block), never
the six blocks again. The model itself is cached once in ui/models.py.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

import attention_core as core
from ui.lessons.real_model_lab import EXPERIMENT, PRESETS
from ui.lru import MB, shared
from ui.models import MODEL_RUNS, minilm

SENTENCE = PRESETS[0]                                  # the page's default: "I sat on the muddy river bank"
WORD, RIVER, TILL = EXPERIMENT["word"], EXPERIMENT["sentences"][0], EXPERIMENT["sentences"][1]
MAX_CHARS = 500                                        # the sentence box's limit
LAYER_LABELS = ("embedding", *(f"layer {n}" for n in range(1, core.bert.N_LAYERS + 1)))


def switched_off(parts: core.BlockParts) -> str:
    """The parts switched off, in words: "the residual connections and the LayerNorms", or "nothing"."""
    off = [name for name, on in (("the residual connections", parts.residual), ("the LayerNorms", parts.layer_norm),
                                 ("the feed-forward network", parts.feed_forward)) if not on]
    return " and ".join([", ".join(off[:-1]), off[-1]] if len(off) > 1 else off) or "nothing"


@shared(max_entries=8, max_bytes=12 * MB)
def staged_run(text: str, residual: bool, layer_norm: bool, feed_forward: bool) -> core.StagedRun:
    """The sentence through the six blocks with these parts (each layer's output: [7, T, 384] float32, at most
    1.4 MB for 128 tokens). Raises ValueError for text with nothing to read."""
    with MODEL_RUNS:
        return minilm().run_stages(text, core.BlockParts(residual, layer_norm, feed_forward))


@shared(max_entries=64)
def alikeness(text: str, residual: bool, layer_norm: bool, feed_forward: bool) -> np.ndarray:
    """Mean pairwise cosine of the sentence's tokens after the embedding and each block: [7]."""
    return core.alikeness_by_layer(staged_run(text, residual, layer_norm, feed_forward).hidden_states)


def layer_stages(text: str, parts: core.BlockParts, layer: int) -> core.LayerStages:
    """Every stage of block ``layer`` (1–6) on the cached run's input to it: one block, not six."""
    run = staged_run(text, parts.residual, parts.layer_norm, parts.feed_forward)
    with MODEL_RUNS, np.errstate(over="ignore", invalid="ignore"):
        return core.encoder_layer_stages(run.hidden_states[layer - 1], minilm().params, layer - 1,
                                         residual=parts.residual, layer_norm=parts.layer_norm,
                                         feed_forward=parts.feed_forward)


@dataclass(frozen=True)
class BankNumbers:
    """The word in the river sentence and in the till sentence, per layer (each [7]: embedding, layers 1–6)."""

    cosine: np.ndarray                  # cos(bank by the river, bank at the till)
    river_to_others: np.ndarray         # mean cosine of the river bank with the other tokens of its sentence
    till_to_others: np.ndarray          # the same at the till


@shared(max_entries=8)
def bank_numbers(residual: bool, layer_norm: bool, feed_forward: bool) -> BankNumbers:
    """The two "bank" vectors with these parts (8 settings in all, a few dozen numbers each)."""
    runs = [staged_run(s, residual, layer_norm, feed_forward) for s in (RIVER, TILL)]
    where = [core.find_word(list(r.tokens), WORD) for r in runs]
    vectors = [r.hidden_states[:, w.start:w.stop].mean(axis=1) for r, w in zip(runs, where, strict=True)]  # [7, d]
    others = [np.array([core.cosine_to_others(h, w.start) for h in r.hidden_states])
              for r, w in zip(runs, where, strict=True)]
    return BankNumbers(cosine=core.cosine_by_layer(*vectors), river_to_others=others[0], till_to_others=others[1])
