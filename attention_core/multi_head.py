"""Multi-head attention: split d_model into heads, attend in each, concatenate, mix with W_O.

Row convention, as in the paper and in bert.py: a token is a row x of X, and a weight matrix meets it
on the right, q = x W_Q, so Q = X W_Q with W_Q: [d_model, d_model].

    Q, K, V  = X W_Q, X W_K, X W_V                       # [T, d_model]
    head h   = softmax(Q_h K_hᵀ / √d_k) V_h              # Q_h = columns h·d_k … (h+1)·d_k − 1 of Q
    output   = Concat(head 1, …, head H) W_O             # [T, d_model]
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._validate import as_matrix, read_only
from .attention import AttentionTrace, scaled_dot_product_attention
from .wordpiece import CLS, SEP


def _frozen(a: np.ndarray) -> np.ndarray:
    return read_only(np.array(a, dtype=np.float64))


@dataclass(frozen=True)
class MultiHeadTrace:
    """Every stage of multi-head self-attention on X: [T, d_model] with n_heads heads of d_k = d_model / n_heads.

    Q, K, V: [T, d_model]; Q_heads, K_heads, V_heads: [n_heads, T, d_k];
    scores, scaled, weights: [n_heads, T, T]; head_outputs: [n_heads, T, d_k];
    concat: [T, d_model] (the head outputs side by side); output = concat W_O: [T, d_model].
    heads: one AttentionTrace per head, from scaled_dot_product_attention.
    """

    X: np.ndarray
    W_Q: np.ndarray
    W_K: np.ndarray
    W_V: np.ndarray
    W_O: np.ndarray
    n_heads: int
    Q: np.ndarray
    K: np.ndarray
    V: np.ndarray
    Q_heads: np.ndarray
    K_heads: np.ndarray
    V_heads: np.ndarray
    scores: np.ndarray
    scaled: np.ndarray
    weights: np.ndarray
    head_outputs: np.ndarray
    concat: np.ndarray
    output: np.ndarray
    mask: np.ndarray | None
    heads: tuple[AttentionTrace, ...]

    @property
    def d_model(self) -> int:
        return int(self.X.shape[1])

    @property
    def d_k(self) -> int:
        return self.d_model // self.n_heads

    def columns(self, head: int) -> slice:
        """The columns of Q, K, V (and rows of W_O) that belong to ``head`` (0-based)."""
        return head_columns(self.d_model, self.n_heads, head)


def head_columns(d_model: int, n_heads: int, head: int) -> slice:
    """Head ``head`` (0-based) owns columns head·d_k … (head+1)·d_k − 1, with d_k = d_model / n_heads."""
    d_k = d_model // n_heads
    return slice(head * d_k, (head + 1) * d_k)


def split_heads(M: np.ndarray, n_heads: int) -> np.ndarray:
    """[T, d_model] → [n_heads, T, d_k]: head h gets its own block of d_k columns."""
    T, d = M.shape
    return M.reshape(T, n_heads, d // n_heads).transpose(1, 0, 2)


def multi_head_attention(X: object, W_Q: object, W_K: object, W_V: object, W_O: object, n_heads: int,
                         mask: object | None = None) -> MultiHeadTrace:
    """Concat_h(softmax(Q_h K_hᵀ / √d_k) V_h) W_O with Q = X W_Q, K = X W_K, V = X W_V.

    X: [T, d_model]; W_Q, W_K, W_V, W_O: [d_model, d_model]; n_heads must divide d_model;
    mask: [T, T] bool (False blocks a key), shared by every head. Raises ValueError on bad shapes,
    non-finite entries or a query row with every key blocked.
    """
    X = as_matrix(X, "X")
    d_model = X.shape[1]
    W = {name: as_matrix(w, name, rows=d_model, cols=d_model)
         for name, w in (("W_Q", W_Q), ("W_K", W_K), ("W_V", W_V), ("W_O", W_O))}
    if isinstance(n_heads, bool) or not isinstance(n_heads, int | np.integer) or n_heads < 1:
        raise ValueError(f"n_heads must be a whole number of at least 1, got {n_heads!r}.")
    if d_model % n_heads:
        raise ValueError(f"n_heads must divide d_model = {d_model} evenly, got {n_heads}.")
    Q, K, V = X @ W["W_Q"], X @ W["W_K"], X @ W["W_V"]                    # [T, d_model] each
    Qh, Kh, Vh = split_heads(Q, n_heads), split_heads(K, n_heads), split_heads(V, n_heads)   # [H, T, d_k]
    heads = tuple(scaled_dot_product_attention(Qh[h], Kh[h], Vh[h], mask=mask) for h in range(n_heads))
    head_outputs = np.stack([t.output for t in heads])                    # [H, T, d_k]
    concat = np.concatenate(list(head_outputs), axis=-1)                  # [T, d_model]
    output = concat @ W["W_O"]                                            # [T, d_model]
    return MultiHeadTrace(
        X=_frozen(X), W_Q=_frozen(W["W_Q"]), W_K=_frozen(W["W_K"]), W_V=_frozen(W["W_V"]), W_O=_frozen(W["W_O"]),
        n_heads=int(n_heads), Q=_frozen(Q), K=_frozen(K), V=_frozen(V),
        Q_heads=_frozen(Qh), K_heads=_frozen(Kh), V_heads=_frozen(Vh),
        scores=_frozen(np.stack([t.scores for t in heads])), scaled=_frozen(np.stack([t.scaled for t in heads])),
        weights=_frozen(np.stack([t.weights for t in heads])), head_outputs=_frozen(head_outputs),
        concat=_frozen(concat), output=_frozen(output),
        mask=heads[0].mask, heads=heads,
    )


# --- cost -----------------------------------------------------------------------------------------

@dataclass(frozen=True)
class AttentionCost:
    """What one attention layer costs on T tokens, counted as multiply-adds (one × and one +).

    params: entries of W_Q, W_K, W_V, W_O (4 d_model²). projections: X W_Q, X W_K, X W_V (3 T d_model²);
    scores: every head's Q_h K_hᵀ (n_heads · T² · d_k = T² d_model); blend: every head's weights V_h
    (T² d_model again); mixing: concat W_O (T d_model²). exps: the softmax's exponentials (n_heads · T²).
    """

    T: int
    d_model: int
    n_heads: int
    params: int
    projections: int
    scores: int
    blend: int
    mixing: int
    exps: int

    @property
    def multiply_adds(self) -> int:
        return self.projections + self.scores + self.blend + self.mixing


def attention_cost(T: int, d_model: int, n_heads: int) -> AttentionCost:
    """The cost of multi-head self-attention (see AttentionCost); n_heads must divide d_model."""
    if T < 1 or d_model < 1 or n_heads < 1 or d_model % n_heads:
        raise ValueError(f"need T ≥ 1 and n_heads dividing d_model, got T={T}, d_model={d_model}, n_heads={n_heads}.")
    d_k = d_model // n_heads
    return AttentionCost(T=T, d_model=d_model, n_heads=n_heads, params=4 * d_model * d_model,
                         projections=3 * T * d_model * d_model, scores=n_heads * T * T * d_k,
                         blend=n_heads * T * T * d_k, mixing=T * d_model * d_model, exps=n_heads * T * T)


# --- reading a real model's heads -----------------------------------------------------------------

@dataclass(frozen=True)
class HeadRoles:
    """What each head of a run does, measured over the rows of its weights. attentions: [L, H, T, T].

    top: [L, H, T] the key each query puts the most weight on; previous / to_sep / to_cls: [L, H] the share
    of query rows whose top key is the previous token (rows 1 … T−1), [SEP] or [CLS] (all T rows).
    """

    top: np.ndarray
    previous: np.ndarray
    to_sep: np.ndarray
    to_cls: np.ndarray

    def linking(self, query: int, start: int, stop: int) -> list[tuple[int, int]]:
        """(layer, head) pairs, 0-based, whose top key for ``query`` lies in positions start … stop − 1."""
        hit = (self.top[:, :, query] >= start) & (self.top[:, :, query] < stop)
        return [(int(L), int(H)) for L, H in np.argwhere(hit)]

    @staticmethod
    def at_least(share: np.ndarray, threshold: float) -> list[tuple[int, int]]:
        """(layer, head) pairs, 0-based, whose share (previous, to_sep or to_cls) is ≥ threshold."""
        return [(int(L), int(H)) for L, H in np.argwhere(np.asarray(share) >= threshold)]


def head_roles(attentions: object, tokens: list[str]) -> HeadRoles:
    """Each head's favourite key per query, and how often that favourite is the previous token, [SEP] or [CLS]."""
    A = np.asarray(attentions, dtype=np.float64)
    if A.ndim != 4 or A.shape[2] != A.shape[3] or A.shape[3] != len(tokens):
        raise ValueError(f"attentions must be [layers, heads, T, T] for {len(tokens)} tokens, got {A.shape}.")
    T = len(tokens)
    top = A.argmax(axis=-1)                                              # [L, H, T]
    previous = ((top[..., 1:] == np.arange(T - 1)).mean(axis=-1) if T > 1
                else np.zeros(A.shape[:2]))                              # [L, H]
    is_sep = np.array([t == SEP for t in tokens])
    is_cls = np.array([t == CLS for t in tokens])
    return HeadRoles(top=read_only(top), previous=read_only(previous),
                     to_sep=read_only(is_sep[top].mean(axis=-1)), to_cls=read_only(is_cls[top].mean(axis=-1)))
