"""The lab's maths on a real model run: which weights to show, where a word sits, and how its vector
moves from layer to layer.

A word the tokenizer splits ("muddy" → "mud", "##dy") is one word to the learner, so its vector is the
mean of its pieces' rows, the usual way to read a word vector out of BERT.

    lookup     = mean of the word-embedding rows of its pieces     (the same in every sentence)
    layer 0    = LayerNorm(lookup + position + token type)          (differs only by where the word sits)
    layer ℓ    = the ℓ-th encoder block's output                    (attention has mixed in the context)
    cos(u, v)  = u·v / (|u| |v|)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._validate import excerpt
from .glove import Glove, pca_2d
from .wordpiece import CLS, SEP, basic_tokenize, wordpiece

LAYER_LABELS = ("lookup", "layer 0", "layer 1", "layer 2", "layer 3", "layer 4", "layer 5", "layer 6")


# --- words and their pieces -----------------------------------------------------------------------

@dataclass(frozen=True)
class Word:
    """One word of a run: its text (pieces joined, "##" dropped) and its token positions start … stop − 1."""

    text: str
    start: int
    stop: int


def words_of(tokens: list[str]) -> list[Word]:
    """Group wordpieces into words: a "##" piece continues the word before it. [CLS]/[SEP] are left out."""
    words: list[Word] = []
    for i, tok in enumerate(tokens):
        if tok in (CLS, SEP):
            continue
        if tok.startswith("##") and words and words[-1].stop == i:
            last = words[-1]
            words[-1] = Word(last.text + tok[2:], last.start, i + 1)
        else:
            words.append(Word(tok, i, i + 1))
    return words


def normalise_word(word: str) -> str:
    """The word as the tokenizer sees it: lowercase, accents stripped, one word. Raises ValueError otherwise."""
    parts = basic_tokenize(word or "")
    if len(parts) != 1:
        raise ValueError(f"Type a single word (no spaces or punctuation); got {len(parts)} pieces of text.")
    return parts[0]


def find_word(tokens: list[str], word: str) -> Word | None:
    """The first occurrence of ``word`` in a run's tokens (matched after the tokenizer's normalisation)."""
    target = normalise_word(word)
    return next((w for w in words_of(tokens) if w.text == target), None)


def word_pieces(word: str, vocab: dict[str, int]) -> list[str]:
    """The wordpieces BERT spells ``word`` with: "muddy" → ["mud", "##dy"]."""
    return wordpiece(normalise_word(word), vocab)


# --- vectors across layers ------------------------------------------------------------------------

def contextual_vector(run, word: str) -> np.ndarray:
    """The word's vector at every hidden layer, its pieces averaged. run.hidden_states: [7, T, d] → [7, d].

    Raises ValueError if the word is not in the run's tokens.
    """
    w = find_word(run.tokens, word)
    if w is None:
        raise ValueError(f"'{excerpt(word)}' is not among this sentence's words.")
    return run.hidden_states[:, w.start:w.stop].mean(axis=1)                  # [7, d]


def lookup_vector(word_embeddings: np.ndarray, token_ids: list[int]) -> np.ndarray:
    """Mean of the word-embedding rows of a word's pieces, before position or context. [V, d] → [d], in at
    least float32 (the model keeps its table float16)."""
    rows = np.asarray(word_embeddings)[np.asarray(token_ids)]
    return rows.mean(axis=0, dtype=np.result_type(rows.dtype, np.float32))


def layer_vectors(run, word: str, word_embeddings: np.ndarray) -> np.ndarray:
    """[lookup; layer 0; …; layer 6] for one word in one run: [8, d], rows labelled by LAYER_LABELS."""
    w = find_word(run.tokens, word)
    if w is None:
        raise ValueError(f"'{excerpt(word)}' is not among this sentence's words.")
    lookup = lookup_vector(word_embeddings, run.token_ids[w.start:w.stop])   # [d]
    return np.vstack([lookup, run.hidden_states[:, w.start:w.stop].mean(axis=1)])   # [8, d]


def cosine(u: np.ndarray, v: np.ndarray) -> np.ndarray:
    """cos(u, v) = u·v / (|u| |v|) over the last axis; [..., d] × [..., d] → [...]."""
    u, v = np.asarray(u, dtype=np.float64), np.asarray(v, dtype=np.float64)
    norms = np.linalg.norm(u, axis=-1) * np.linalg.norm(v, axis=-1)
    return np.sum(u * v, axis=-1) / np.maximum(norms, 1e-12)


def cosine_by_layer(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """Row-by-row cosine of two stacks of one word's vectors. A, B: [L, d] → [L]."""
    A, B = np.asarray(A), np.asarray(B)
    if A.ndim != 2 or A.shape != B.shape:
        raise ValueError(f"Both stacks must be [layers, d] of one shape, got {A.shape} and {B.shape}.")
    return cosine(A, B)


# --- attention views ------------------------------------------------------------------------------

def attention_map(attentions: np.ndarray, layer: int, head: int | None) -> np.ndarray:
    """One head's weights, or the mean over heads (head=None). attentions: [layers, H, T, T] → [T, T].

    Rows are the queries (who attends), columns the keys (attended to); every row sums to 1.
    """
    attentions = np.asarray(attentions)
    n_layers, n_heads = attentions.shape[:2]
    if not 0 <= layer < n_layers:
        raise ValueError(f"layer must be 0–{n_layers - 1}, got {layer}.")
    if head is None:
        return attentions[layer].mean(axis=0)                                 # [T, T]
    if not 0 <= head < n_heads:
        raise ValueError(f"head must be 0–{n_heads - 1}, got {head}.")
    return attentions[layer, head]


def top_keys(weights_row: np.ndarray, k: int = 3) -> list[tuple[int, float]]:
    """The k key positions with the largest weight in one query's row, largest first (ties: earlier first)."""
    row = np.asarray(weights_row)
    order = np.argsort(-row, kind="stable")[: max(0, int(k))]
    return [(int(j), float(row[j])) for j in order]


# --- neighbours -----------------------------------------------------------------------------------

def rank_by_cosine(query: np.ndarray, candidates: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Candidates [n, d] ranked by cosine with query [d]: (order [n] best first, cosines [n] in input order)."""
    cos = cosine(np.asarray(candidates), np.asarray(query)[None, :])         # [n]
    return np.argsort(-cos, kind="stable"), cos


def sense_means(cosines: np.ndarray, senses: list[str]) -> dict[str, float]:
    """Mean cosine to each sense's reference usages: {sense: mean}, in first-seen order."""
    cosines = np.asarray(cosines)
    out: dict[str, float] = {}
    for s in dict.fromkeys(senses):
        out[s] = float(cosines[[i for i, t in enumerate(senses) if t == s]].mean())
    return out


def static_map(glove: Glove, words: list[str]) -> tuple[list[str], np.ndarray, list[str]]:
    """2-D PCA coordinates of the GloVe vectors of ``words``: (words found, coords [n, 2], words missing)."""
    found = [w for w in words if w in glove]
    missing = [w for w in words if w not in glove]
    if len(found) < 2:
        raise ValueError("A map needs at least two words that GloVe knows.")
    X = np.stack([glove.vector(w) for w in found])                            # [n, 50]
    return found, pca_2d(X), missing
