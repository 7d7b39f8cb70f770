"""Who may look at whom: the causal and padding masks, and cross-attention from image patches to words.

A mask is [n_q, n_k] bool: True lets query i see key j, False blocks it. scaled_dot_product_attention
gives a blocked key weight exactly 0 and shares each row among the keys left, so every row still sums
to 1; a row with every key blocked has no distribution and raises ValueError.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from ._validate import as_matrix
from .attention import AttentionTrace, scaled_dot_product_attention


def causal_mask(T: int, n_k: int | None = None) -> np.ndarray:
    """[T, T] lower triangle: token i sees tokens 0 … i (itself and the past), never a later one.

    With ``n_k`` keys ([T, n_k], T ≤ n_k), the T queries are the last T tokens: query i sees key j
    when j ≤ i + (n_k − T), as when new tokens attend over a cache of earlier ones.
    """
    n_k = T if n_k is None else n_k
    for name, n in (("token", T), ("key", n_k)):
        if isinstance(n, bool) or not isinstance(n, int | np.integer) or n < 1:
            raise ValueError(f"a causal mask needs at least one {name}, got {n!r}.")
    if T > n_k:
        raise ValueError(f"a causal mask needs no more queries than keys, got {T} queries and {n_k} keys.")
    return np.arange(n_k)[None, :] <= np.arange(T)[:, None] + (n_k - T)


def padding_mask(real: object, n_q: int | None = None) -> np.ndarray:
    """[n_q, n_k]: every query sees the real keys (True in ``real``: [n_k] bool) and none of the padding.

    n_q defaults to n_k (self-attention over one padded sequence). Raises when no key is real.
    """
    real = np.asarray(real)
    if real.dtype != bool or real.ndim != 1 or real.size == 0:
        raise ValueError("real must be a non-empty 1-D boolean vector: True for a real token, False for padding.")
    if not real.any():
        raise ValueError("every position is padding; at least one real token is needed.")
    n_q = real.size if n_q is None else int(n_q)
    return np.broadcast_to(real, (n_q, real.size)).copy()


def renormalised_rows(weights: object, mask: object) -> np.ndarray:
    """What a mask does to rows of weights already computed: zero the blocked ones, rescale the rest to sum 1.

    weights: [n_q, n_k] on the simplex; mask: [n_q, n_k] bool. Equal to softmax over the visible keys only,
    which is why masking before the softmax and renormalising after agree.
    """
    w = as_matrix(weights, "weights")
    m = np.asarray(mask, dtype=bool)
    if m.shape != w.shape:
        raise ValueError(f"mask must have shape {w.shape}, got {m.shape}.")
    if not m.any(axis=-1).all():
        raise ValueError("a row has every key blocked; a row needs at least one visible key.")
    kept = np.where(m, w, 0.0)
    return kept / kept.sum(axis=-1, keepdims=True)


# --- cross-attention: image patches ask, the prompt's words answer --------------------------------

@dataclass(frozen=True)
class CrossAttention:
    """Patches querying words. patches: [n_q, d]; words: [n_k, d]; trace: softmax(Q Kᵀ/√d) V with
    Q = patches W_Q, K = words W_K, V = words (weights [n_q, n_k], not square)."""

    words: tuple[str, ...]
    trace: AttentionTrace

    @property
    def weights(self) -> np.ndarray:
        return self.trace.weights

    def top_words(self, tol: float = 1e-9) -> list[list[int]]:
        """For each patch, the indices of the words it draws on most (several when they tie within ``tol``)."""
        w = self.trace.weights
        return [np.flatnonzero(row >= row.max() - tol).tolist() for row in w]

    def top_label(self, patch: int, tol: float = 1e-9) -> str:
        """The word a patch draws on most, "a / b" for a tie, or "(even)" when every word gets the same share."""
        top = self.top_words(tol)[patch]
        if len(top) == len(self.words) and len(top) > 1:
            return "(even)"
        return " / ".join(dict.fromkeys(self.words[j] for j in top))


def cross_attention(patches: object, word_vectors: object, words: list[str], W_Q: object,
                    W_K: object) -> CrossAttention:
    """Each patch's weights over the prompt's words: the same scaled_dot_product_attention, with Q from the
    patches and K, V from the words. patches: [n_q, d]; word_vectors: [n_k, d]; W_Q, W_K: [d, d]."""
    P = as_matrix(patches, "patches")
    Wv = as_matrix(word_vectors, "word vectors", cols=P.shape[1])
    if len(words) != Wv.shape[0]:
        raise ValueError(f"need one word per row of word vectors, got {len(words)} words and {Wv.shape[0]} rows.")
    d = P.shape[1]
    W_Q, W_K = as_matrix(W_Q, "W_Q", rows=d, cols=d), as_matrix(W_K, "W_K", rows=d, cols=d)
    return CrossAttention(words=tuple(words), trace=scaled_dot_product_attention(P @ W_Q, Wv @ W_K, Wv))


def scene_patches(grid: int, ball: tuple[int, int], ball_size: int, colours: dict[str, np.ndarray],
                  ball_colour: str, ground_colour: str, horizon: int) -> tuple[np.ndarray, list[str]]:
    """A grid × grid picture as patch feature rows [grid², d], row by row from the top left, and a short
    label per patch. Sky above row ``horizon``, ground from it down, a square ball of ``ball_size`` patches
    a side with its top-left corner at ``ball`` (row, col), drawn over both.

    colours maps a name ("red", "sky", "ground", "round", …) to its feature vector [d]; a patch's features
    are the sum of what it shows.
    """
    if not 1 <= ball_size <= grid or not (0 <= ball[0] <= grid - ball_size and 0 <= ball[1] <= grid - ball_size):
        raise ValueError(f"the ball must fit inside the {grid}×{grid} grid.")
    rows, labels = [], []
    for r in range(grid):
        for c in range(grid):
            inside = ball[0] <= r < ball[0] + ball_size and ball[1] <= c < ball[1] + ball_size
            if inside:
                parts = [ball_colour, "round"]
            elif r >= horizon:
                parts = [ground_colour, "ground"]
            else:
                parts = ["sky"]
            rows.append(sum(colours[p] for p in parts))
            labels.append(" ".join(dict.fromkeys(parts)))
    return np.vstack(rows), labels


def prompt_words(text: str, vocabulary: object, max_words: int) -> tuple[list[str], list[str]]:
    """The prompt's words, lowercased and split at anything but letters: (those ``vocabulary`` knows, in order;
    those it does not, each once). Raises ValueError for a prompt with no words or more than ``max_words``."""
    found = re.findall(r"[^\W\d_]+", str(text).lower())
    if not found:
        raise ValueError("The prompt has no words; type a few, such as “a red ball on green grass”.")
    if len(found) > max_words:
        raise ValueError(f"The prompt has {len(found)} words; at most {max_words} fit on this page.")
    known = [w for w in found if w in vocabulary]
    unknown = list(dict.fromkeys(w for w in found if w not in vocabulary))
    return known, unknown
