"""The word-order page's cached computations: a shuffled sentence through toy attention and through MiniLM,
and the two position tables."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import streamlit as st

import attention_core as core
from ui.lru import MB, shared
from ui.models import MODEL_RUNS, minilm

TEXT, SHUFFLE = "the bank of the river", 1          # the page's defaults: the sentence, and which shuffle
MAX_CHARS, MAX_SHUFFLE = 200, 20
TOY_D_K, TOY_SEED = 4, 0                             # the toy head: 4-component queries, keys and values
# Word vectors scaled to this length (√384): its projections' entries are N(0, 1/384), so each query, key and
# value component has variance about 1 and the weights differ from word to word (MiniLM's own rows, about
# 1.4 long, gave nearly uniform rows).
TOY_LENGTH = float(np.sqrt(384))
N_POSITIONS = 64                                     # positions drawn in the tables
FREQUENCY, OFFSET = 8, 4                             # the tables' defaults
# Rotary in the plane: q and k, and the turn per position step (15°).
ROTARY_Q, ROTARY_K, ROTARY_STEP = (1.0, 0.3), (0.6, 0.8), np.pi / 12
M, N, MAX_POSITION = 2, 5, 24


@dataclass(frozen=True)
class ShuffleNumbers:
    """One sentence, one shuffle: what the page shows of the toy head and of MiniLM on both orders.

    words / shuffled_words: the sentence's words in the typed and the shuffled order; moved: False when the
    shuffled words read as typed; toy_weights / toy_shuffled_weights: [n_words, n_words] the toy head's weights
    on each order; toy_gap: its largest output change after realigning; toy_with_positions: the same with the
    sinusoidal table added by slot; tokens / shuffled_tokens: what MiniLM reads ([CLS] … [SEP]);
    off_rows / on_rows: [T] each shuffled token's largest last-layer change, positions off and on;
    off_gap / on_gap: their largest; output_size: the mean |number| of the typed order's last layer.
    Only these, not the traces: a cache entry stays under about 300 kB at the longest sentence."""

    words: tuple[str, ...]
    shuffled_words: tuple[str, ...]
    moved: bool
    toy_weights: np.ndarray
    toy_shuffled_weights: np.ndarray
    toy_gap: float
    toy_with_positions: float
    tokens: tuple[str, ...]
    shuffled_tokens: tuple[str, ...]
    off_rows: np.ndarray
    on_rows: np.ndarray
    off_gap: float
    on_gap: float
    output_size: float
    truncated: bool


def word_vectors(token_ids: list[int], words: list[core.Word]) -> np.ndarray:
    """Each word's MiniLM word embedding (the mean of its pieces' rows), scaled to length TOY_LENGTH: [n_words, 384]."""
    wte = minilm().params["wte"]
    X = np.stack([wte[token_ids[w.start:w.stop]].astype(np.float64).mean(axis=0) for w in words])
    return X * (TOY_LENGTH / np.maximum(np.linalg.norm(X, axis=1, keepdims=True), 1e-12))


def moved_order(n: int, shuffle: int) -> np.ndarray:
    """The words' order for a shuffle: as typed at 0; any other value draws random orders from its seed until
    one differs from the typed order (a draw may give the typed order back: 1 in 6 for three words)."""
    if shuffle == 0 or n < 2:
        return core.shuffled_order(n, None)
    rng = np.random.default_rng(shuffle)
    order = core.shuffled_order(n, rng)
    while (order == np.arange(n)).all():
        order = core.shuffled_order(n, rng)
    return order


@shared(max_entries=16, max_bytes=5 * MB, spinner="Running the model on both orders…")
def shuffle_numbers(text: str, shuffle: int) -> ShuffleNumbers:
    """The typed and the shuffled sentence through the toy head and MiniLM (positions off and on).

    Raises ValueError for text with nothing to read. At most 128 tokens (the text box holds MAX_CHARS
    characters), so an entry is at most a few hundred kilobytes."""
    model = minilm()
    enc = model.tokenizer.encode(text)
    ids = np.asarray(enc.token_ids)
    words = core.words_of(enc.tokens)
    if not words:
        raise ValueError("The sentence has no words to shuffle, only the model's own markers.")
    word_order = moved_order(len(words), shuffle)
    order = core.word_blocks_order([w.start for w in words], [w.stop for w in words], word_order, len(ids))
    X = word_vectors(enc.token_ids, words)                                           # [n_words, 384], unit rows
    W = core.random_head_weights(X.shape[1], TOY_D_K, np.random.default_rng(TOY_SEED))
    toy = core.shuffled_self_attention(X, *W, word_order)
    table = core.sinusoidal_positions(len(words), X.shape[1])
    table *= TOY_LENGTH / np.linalg.norm(table, axis=1, keepdims=True)                  # as long as a word vector
    toy_on = core.shuffled_self_attention(X, *W, word_order, table)
    with MODEL_RUNS:
        outputs = {p: (core.encoder_output(model, ids, p), core.encoder_output(model, ids[order], p))
                   for p in (False, True)}
    off, on = (core.permutation_equivariance(*outputs[p], order) for p in (False, True))
    text_of = [w.text for w in words]
    return ShuffleNumbers(
        words=tuple(text_of), shuffled_words=tuple(text_of[i] for i in word_order),
        moved=[text_of[i] for i in word_order] != text_of,
        toy_weights=toy.original.weights, toy_shuffled_weights=toy.shuffled.weights, toy_gap=toy.check.max_gap,
        toy_with_positions=toy_on.check.max_gap, tokens=tuple(enc.tokens),
        shuffled_tokens=tuple(enc.tokens[i] for i in order), off_rows=off.row_gap, on_rows=on.row_gap,
        off_gap=off.max_gap, on_gap=on.max_gap, output_size=float(np.abs(off.original).mean()),
        truncated=enc.truncated)


@dataclass(frozen=True)
class PositionTables:
    """The sinusoidal and the learned table over the first N_POSITIONS positions, and how alike their rows are.

    sinusoidal, learned: [N, 384]; *_similarity: [N, N] cosines; *_by_offset: [N] mean cosine k apart;
    *_spread: [N] their standard deviation."""

    sinusoidal: np.ndarray
    learned: np.ndarray
    sinusoidal_similarity: np.ndarray
    learned_similarity: np.ndarray
    sinusoidal_by_offset: np.ndarray
    learned_by_offset: np.ndarray
    sinusoidal_spread: np.ndarray       # [N] standard deviation of the cosines k apart
    learned_spread: np.ndarray


@st.cache_resource(max_entries=1, show_spinner="Reading the position tables…")
def position_tables() -> PositionTables:
    """Both tables, once per process (no arguments: one entry, about 0.3 MB). Read-only: shared."""
    learned = minilm().params["wpe"][:N_POSITIONS].astype(np.float64)
    sinusoidal = core.sinusoidal_positions(N_POSITIONS, learned.shape[1])
    s_sim, l_sim = core.cosine_similarities(sinusoidal), core.cosine_similarities(learned)
    arrays = (sinusoidal, learned, s_sim, l_sim, core.similarity_by_offset(s_sim), core.similarity_by_offset(l_sim),
              core.similarity_spread_by_offset(s_sim), core.similarity_spread_by_offset(l_sim))
    return PositionTables(*(core.read_only(a) for a in arrays))
