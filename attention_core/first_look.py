"""One pass of a sentence through the first block of the Lab's model, every stage kept: the first look's animation.

    lookup    = the word-embedding rows of the tokens                         [T, d]
    embedded  = LayerNorm(lookup + position + token type)                     [T, d]   (the Lab's hidden_states[0])
    Q, K, V   = one head's columns of embedded [W_Q | W_K | W_V] + bias         [T, d_k] each
    scaled    = Q Kᵀ / √d_k,  weights = row softmax of scaled                   [T, T]
    block     = every stage of the first encoder block on embedded              (blend, + residual and LayerNorm,
                                                                                 feed-forward, output)

The block is ``encoder_layer_stages``, the same operations in the same order as the Lab's run, so its weights
and output are the Lab's ``attentions[0]`` and ``hidden_states[1]``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._blas import single_threaded_blas
from .attention import AttentionTrace, scaled_dot_product_attention
from .bert import LayerStages, MiniLM, embed, encoder_layer_stages, qkv
from .lab import Word, cosine, find_word

FIRST = 0                                      # the block the first look follows: the model's first


@dataclass(frozen=True)
class FirstPass:
    """One sentence through the first block. tokens: [T] incl. [CLS]/[SEP]; word: where the followed word sits;
    head: the head whose weights the pass shows; lookup: [T, d] float32; trace: that head's stages
    (Q, K, V [T, d_k], scaled and weights [T, T]); block: the block's stages (weights [H, T, T])."""

    tokens: tuple[str, ...]
    word: Word
    head: int
    lookup: np.ndarray
    trace: AttentionTrace
    block: LayerStages

    def vector(self, stage: np.ndarray) -> np.ndarray:
        """The followed word's row of a [T, d] stage, its pieces averaged (as the Lab reads a word): [d]."""
        return stage[self.word.start:self.word.stop].mean(axis=0)

    @property
    def weights(self) -> np.ndarray:
        """The word's attention weights over every token in the shown head: [T], summing to 1."""
        return self.trace.weights[self.word.start:self.word.stop].mean(axis=0)

    @property
    def scaled(self) -> np.ndarray:
        """The word's scores q · kⱼ / √d_k in the shown head: [T]."""
        return self.trace.scaled[self.word.start:self.word.stop].mean(axis=0)


def strongest_head(weights: np.ndarray, query: Word, key: Word) -> int:
    """The head that puts the most weight from ``query``'s pieces onto ``key``'s. weights: [H, T, T] → a head.
    On a tie, the first such head."""
    share = np.asarray(weights)[:, query.start:query.stop, key.start:key.stop].sum(axis=2).mean(axis=1)   # [H]
    return int(np.argmax(share))


def first_pass(model: MiniLM, text: str, word: str, head: int | None = None, toward: str | None = None) -> FirstPass:
    """``text`` through the model's first block, following ``word``. The head shown is ``head`` (0-based), or
    else the one that looks hardest from ``word`` to ``toward``, or else head 0.

    Raises ValueError for text with nothing to read, or without ``word`` (or ``toward``)."""
    enc = model.tokenizer.encode(text)
    tokens = tuple(enc.tokens)
    w = _found(tokens, word)
    ids = np.asarray(enc.token_ids)
    p = model.params
    with single_threaded_blas():
        lookup = p["wte"][ids].astype(np.float32)                             # [T, d]
        embedded = embed(ids, p)                                              # [T, d]
        block = encoder_layer_stages(embedded, p, FIRST)                      # weights [H, T, T]
        if head is None:
            head = strongest_head(block.weights, w, _found(tokens, toward)) if toward else 0
        if not 0 <= head < model.n_heads:
            raise ValueError(f"head must be 0–{model.n_heads - 1}, got {head}.")
        Q, K, V = qkv(embedded, p, FIRST)                                     # 3 × [H, T, d_k]
        trace = scaled_dot_product_attention(Q[head], K[head], V[head])
    return FirstPass(tokens=tokens, word=w, head=head, lookup=lookup, trace=trace, block=block)


def _found(tokens: tuple[str, ...], word: str) -> Word:
    hit = find_word(list(tokens), word)
    if hit is None:
        raise ValueError(f"'{word}' is not among this sentence's words.")
    return hit


@dataclass(frozen=True)
class SameWord:
    """cos(the word in one sentence, the word in the other) at the lookup, after the embedding (positions added)
    and at the first block's output: three numbers, the Lab's first three for the same pair."""

    lookup: float
    embedded: float
    output: float


def same_word(a: FirstPass, b: FirstPass) -> SameWord:
    """How alike the followed word comes out of the two passes, stage by stage."""
    return SameWord(lookup=float(cosine(a.vector(a.lookup), b.vector(b.lookup))),
                    embedded=float(cosine(a.vector(a.block.x), b.vector(b.block.x))),
                    output=float(cosine(a.vector(a.block.output), b.vector(b.block.output))))
