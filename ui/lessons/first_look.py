"""The first look's cached computations: the pass of two sentences through the Lab model's first layer, and
the small numbers each move shows.

The model is the Lab's, cached once in ui/models.py; the real-head move reads the Lab's cached run of its
sentence (ui.models.encode), so nothing here holds a second copy of either.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass

import numpy as np
import streamlit as st

import attention_core as core
from ui.content import LESSONS_DIR
from ui.lessons import polysemy, rnn_vs_attention
from ui.lru import shared
from ui.models import MODEL_RUNS, encode, minilm

TEXT = tomllib.loads((LESSONS_DIR / "first_look.toml").read_text(encoding="utf-8"))
SENTENCES, TITLES, STAGES = TEXT["sentences"], TEXT["titles"], tuple(TEXT["stages"])
RIVER, TILL, WORD, FAR = SENTENCES["river"], SENTENCES["till"], SENTENCES["word"], SENTENCES["far"]
COLUMNS, PER_PART = 24, 8                # numbers of each vector the heatmap shows; of each of q, k, v


@st.cache_resource(max_entries=1, show_spinner="Sending the two sentences through the model's first layer…")
def passes() -> tuple[core.FirstPass, core.FirstPass]:
    """The river sentence (its head: the one that looks hardest from the word to the far word) and the till
    sentence (the same head), through the first block. No arguments: one entry, a few hundred kB, shared
    read-only by every session."""
    with MODEL_RUNS:
        river = core.first_pass(minilm(), RIVER, WORD, toward=FAR)
        return river, core.first_pass(minilm(), TILL, WORD, head=river.head)


@dataclass(frozen=True)
class PassFrames:
    """What each stage of the animation draws: rows are the river sentence's tokens, then the till's word.

    heat: per stage [T + 1, COLUMNS]; bars: per stage [T + 1] (NaN where the stage has no bar for a row)."""

    rows: tuple[str, ...]
    word_row: int
    heat: tuple[np.ndarray, ...]
    bars: tuple[np.ndarray, ...]
    head: int                            # 0-based
    weight_far: float                    # the word's weight on the far word, in that head
    same: core.SameWord


def _with_till(stage_river: np.ndarray, row_till: np.ndarray) -> np.ndarray:
    """A river stage's first COLUMNS numbers per token, with the till word's row under them: [T + 1, COLUMNS]."""
    return np.vstack([stage_river[:, :COLUMNS], row_till[None, :COLUMNS]]).astype(np.float64)


def _norms(stage: np.ndarray, row_till: np.ndarray) -> np.ndarray:
    """|x| of each token's vector and of the till word's: [T + 1]."""
    return np.append(np.linalg.norm(stage, axis=-1), np.linalg.norm(row_till)).astype(np.float64)


def _qkv(p: core.FirstPass) -> np.ndarray:
    """[q | k | v], PER_PART numbers of each, for every token of a pass: [T, 3 · PER_PART]."""
    t = p.trace
    return np.hstack([t.Q[:, :PER_PART], t.K[:, :PER_PART], t.V[:, :PER_PART]])


@shared(max_entries=1)
def pass_frames() -> PassFrames:
    """Every stage's heatmap rows and bars (ten stages of [T + 1, 24] and [T + 1]: a few kB)."""
    river, till = passes()
    T = len(river.tokens)
    b, tb = river.block, till.block
    qkv_r, qkv_t = _qkv(river), till.vector(_qkv(till))
    vectors = {"tokens": (river.lookup, till.vector(till.lookup)), "positions": (b.x, till.vector(tb.x)),
               "blend": (b.attention, till.vector(tb.attention)), "residual": (b.attn_norm, till.vector(tb.attn_norm)),
               "ffn": (b.ffn, till.vector(tb.ffn)), "output": (b.output, till.vector(tb.output))}
    same = core.same_word(river, till)
    heat, bars = [], []
    for stage in STAGES:
        sid = stage["id"]
        if sid in vectors:
            heat.append(_with_till(*vectors[sid]))
            bars.append(_norms(*vectors[sid]))
            continue
        if sid == "compare":
            heat.append(_with_till(b.output, till.vector(tb.output)))
            cos = np.full(T + 1, np.nan)
            cos[river.word.start:river.word.stop] = same.output
            end = till.vector(tb.output)
            cos[-1] = core.cosine(end, end)                  # the till's word against itself: 1, the scale's end
            bars.append(cos)
            continue
        heat.append(np.vstack([qkv_r, qkv_t[None]]).astype(np.float64))
        row = {"qkv": np.linalg.norm(river.trace.Q, axis=-1), "scores": river.scaled, "weights": river.weights}[sid]
        bars.append(np.append(row, np.nan if sid != "qkv" else np.linalg.norm(till.vector(till.trace.Q))))
    far = core.find_word(list(river.tokens), FAR)
    return PassFrames(rows=(*river.tokens, f"{WORD} (till)"), word_row=river.word.start, heat=tuple(heat),
                      bars=tuple(bars), head=river.head, weight_far=float(river.weights[far.start:far.stop].sum()),
                      same=same)


# --- move 1: one word, many meanings (the polysemy lesson's 2-D vocabulary) -----------------------------

CONTEXTS = {"river words": ("river",), "money words": ("finance",), "river and money words": ("river", "finance")}
TEMPERATURE = 0.05            # the polysemy page's default: the vocabulary's scores differ by hundredths


@dataclass(frozen=True)
class WordsMove:
    words: tuple[str, ...]               # the context words picked
    groups: tuple[str, ...]              # each one's group
    trace: core.polysemy.ContextTrace    # the static bank's blend of them
    static: np.ndarray                   # [2]
    to_river: float                      # |z − river sense|
    to_money: float                      # |z − money sense|

    @property
    def answer(self) -> int:
        """The right choice of the move's prediction: 0 nearer the river sense, 1 nearer the money sense, 2 exactly
        as far from both (a tie is a tie)."""
        return 2 if self.to_river == self.to_money else int(self.to_money < self.to_river)


@shared(max_entries=4)
def words_move(context: str) -> WordsMove:
    """Bank's blend of the picked context words, and how far it lands from each sense."""
    v = polysemy.vocab()
    words = tuple(w for w in v.words if v.group_of[w] in CONTEXTS[context])
    static = core.centroid(v.senses)
    trace = core.polysemy.contextualize(static, np.array([v.coords[w] for w in words]), TEMPERATURE)
    river, money = v.senses
    return WordsMove(words=words, groups=tuple(v.group_of[w] for w in words), trace=trace, static=static,
                     to_river=float(np.linalg.norm(trace.z - river)), to_money=float(np.linalg.norm(trace.z - money)))


# --- move 2: a blend stays among what it blends ----------------------------------------------------------

BLEND_LABELS = ["river", "bank", "money"]
BLEND_X = np.array([[0.10, 0.90], [0.45, 0.20], [0.90, 0.70]])        # three words as points: a triangle


def blend_move(on_first: float) -> core.Blend:
    """The blend with ``on_first`` on the first word and the rest shared equally by the other two."""
    rest = (1.0 - on_first) / 2
    return core.blend(np.array([on_first, rest, rest]), BLEND_X)


# --- move 3: a question meets labels ---------------------------------------------------------------------

QUERY_WORDS = ["animal", "didn't", "cross", "street", "because"]
# Each word's key: how well it fits "something that can be tired" and "something that can be wide" (toy labels).
QUERY_KEYS = np.array([[2.0, 0.2], [0.0, 0.0], [0.4, 0.6], [0.1, 2.0], [0.0, 0.0]])
WANTS = {"something that can be tired": np.array([2.0, 0.0]), "something that can be wide": np.array([0.0, 2.0])}


def query_move(want: str) -> core.queries_keys_values.SoftLookup:
    """The query for ``want`` scored against every word's key; the values are the keys themselves."""
    return core.queries_keys_values.soft_lookup(WANTS[want], QUERY_KEYS, QUERY_KEYS)


# --- move 4: why divide by √dₖ ---------------------------------------------------------------------------

SCALE_KEYS, SCALE_SEED = 8, 0


@dataclass(frozen=True)
class ScaleMove:
    raw: np.ndarray                      # [SCALE_KEYS] softmax of one row of unscaled scores
    scaled: np.ndarray                   # the same row divided by √dₖ


@shared(max_entries=64)
def scale_move(d_k: int) -> ScaleMove:
    """One query's weights over SCALE_KEYS random keys at this dₖ, unscaled and scaled (the same draws)."""
    scores = core.random_score_rows(d_k, SCALE_KEYS, 1, np.random.default_rng([SCALE_SEED, d_k]))[0]
    return ScaleMove(raw=core.softmax(scores), scaled=core.softmax(scores / np.sqrt(d_k)))


# --- move 5: many heads ----------------------------------------------------------------------------------

@dataclass(frozen=True)
class HeadsMove:
    tokens: tuple[str, ...]
    query: int                           # the position of "it"
    heads: tuple[int, int]               # two heads of the first layer, 0-based
    rows: tuple[np.ndarray, np.ndarray]  # "it"'s weights in each: [T] each
    tops: tuple[int, int]                # each one's favourite token


@shared(max_entries=1)
def heads_move() -> HeadsMove:
    """Two heads of the first layer that look from "it" differently: the first whose favourite from "it" is
    "animal", and the first that mostly looks at the previous token (from the Lab's cached run)."""
    r = encode(SENTENCES["heads"])
    roles = core.head_roles(r.attentions, list(r.tokens))
    it, animal = core.find_word(list(r.tokens), "it"), core.find_word(list(r.tokens), "animal")
    linking = [h for layer, h in roles.linking(it.start, animal.start, animal.stop) if layer == 0]
    previous = [h for layer, h in roles.at_least(roles.previous, 0.5) if layer == 0 and h not in linking[:1]]
    pair = ([*linking, 0][0], [*previous, 1][0])
    rows = tuple(core.attention_map(r.attentions, 0, h)[it.start] for h in pair)
    return HeadsMove(tokens=tuple(r.tokens), query=it.start, heads=pair, rows=rows,
                     tops=tuple(core.top_keys(row, 1)[0][0] for row in rows))


# --- move 6: every word at once --------------------------------------------------------------------------

def reach_move(length: int) -> rnn_vs_attention.Race:
    """The RNN-versus-attention lesson's race at this length, at its defaults (its own cache)."""
    return rnn_vs_attention.rnn_race(length, rnn_vs_attention.RHO, rnn_vs_attention.SEED)
