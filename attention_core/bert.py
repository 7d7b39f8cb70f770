"""A real BERT encoder (all-MiniLM-L6-v2: 6 layers × 12 heads, d_model 384) in plain NumPy.

Every head's attention is softmax(Q Kᵀ / √d_k) V, the formula the lessons teach: all twelve heads at
once through `attention_heads`, which a test holds equal to `scaled_dot_product_attention` head by head
(and `head_trace` replays one head through the latter, every stage kept). Weights are stored float16 in
assets/model/ and upcast once to float32 at load, but for the word embeddings, whose few rows a sentence
reads are upcast as they are read; the whole pass stays in float32.

    x = LayerNorm(word[id] + position[i] + token_type[0])          # [T, 384]
    6 × { x = LayerNorm(x + MultiHead(x))                           # [T, 384]
          x = LayerNorm(x + W₂ GELU(W₁ x)) }                        # [T, 1536] inside
    sentence embedding = normalise(mean over tokens of x)           # [384]
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ._blas import single_threaded_blas
from ._validate import read_only
from .attention import AttentionTrace, attention_heads, scaled_dot_product_attention
from .special import erf, gelu  # noqa: F401  (bert.erf: the tests hold it to math.erf)
from .wordpiece import MAX_TOKENS, WordPieceTokenizer, load_vocab

ASSETS = Path(__file__).resolve().parent.parent / "assets" / "model"
WEIGHTS_FILE = ASSETS / "minilm_l6_fp16.npz"
VOCAB_FILE = ASSETS / "vocab.txt"

N_LAYERS, N_HEADS, D_MODEL, D_FF = 6, 12, 384, 1536
LN_EPS = 1e-12


# --- the layers -----------------------------------------------------------------------------------

def layer_norm(x: np.ndarray, g: np.ndarray, b: np.ndarray, eps: float = LN_EPS) -> np.ndarray:
    """(x − mean) / √(var + ε) · g + b over the last axis. x: [T, d] → [T, d], in x's precision."""
    centred = x - x.mean(axis=-1, keepdims=True)
    var = np.einsum("td,td->t", centred, centred)[:, None] / x.dtype.type(x.shape[-1])  # no squares array
    centred *= (1.0 / np.sqrt(var + x.dtype.type(eps))).astype(x.dtype)
    centred *= g
    centred += b
    return centred


def linear(x: np.ndarray, w: np.ndarray, b: np.ndarray) -> np.ndarray:
    """x W + b. x: [T, d_in], w: [d_in, d_out], b: [d_out] → [T, d_out]."""
    out = x @ w
    out += b
    return out


def embed(token_ids: np.ndarray, p: dict, positions: bool = True) -> np.ndarray:
    """LayerNorm(word + position + token type 0); without the position rows when ``positions`` is False.
    token_ids: [T] → [T, d_model]."""
    T = len(token_ids)
    x = p["wte"][token_ids].astype(np.float32)                                 # [T, d]
    if positions:
        x += p["wpe"][:T]
    x += p["wtt"][0]
    return layer_norm(x, p["ln_emb.g"], p["ln_emb.b"])


def split_heads(x: np.ndarray, n_heads: int) -> np.ndarray:
    """[T, d] → [n_heads, T, d/n_heads]: head h reads columns h·d_k … (h+1)·d_k − 1."""
    T, d = x.shape
    return x.reshape(T, n_heads, d // n_heads).transpose(1, 0, 2)


def qkv(x: np.ndarray, p: dict, layer: int, n_heads: int = N_HEADS):
    """Q, K, V of every head, from one product with [W_Q | W_K | W_V]. x: [T, d] → 3 × [H, T, d_k]."""
    T, d = x.shape
    fused = linear(x, p[f"layer{layer}.qkv.w"], p[f"layer{layer}.qkv.b"])                # [T, 3d]
    Q, K, V = fused.reshape(T, 3, n_heads, d // n_heads).transpose(1, 2, 0, 3)          # 3 × [H, T, d_k]
    return Q, K, V


def multi_head_attention(x: np.ndarray, p: dict, layer: int, n_heads: int = N_HEADS,
                         weights_out: np.ndarray | None = None):
    """Concat_h(softmax(Q_h K_hᵀ / √d_k) V_h) W_O + b_O, every head at once through attention_heads.

    x: [T, d] → (output [T, d], weights [n_heads, T, T]); ``weights_out`` [H, T, T] receives the weights.
    """
    T, d = x.shape
    weights, heads = attention_heads(*qkv(x, p, layer, n_heads), out=weights_out)      # [H, T, T], [H, T, d_k]
    heads = heads.transpose(1, 0, 2).reshape(T, d)                                      # concat: [T, d]
    return linear(heads, p[f"layer{layer}.attn_out.w"], p[f"layer{layer}.attn_out.b"]), weights


def ffn(x: np.ndarray, p: dict, layer: int) -> np.ndarray:
    """W₂ GELU(W₁ x + b₁) + b₂. x: [T, d] → [T, 4d] → [T, d]."""
    h = gelu(linear(x, p[f"layer{layer}.ffn_in.w"], p[f"layer{layer}.ffn_in.b"]))        # [T, d_ff]
    return linear(h, p[f"layer{layer}.ffn_out.w"], p[f"layer{layer}.ffn_out.b"])         # [T, d]


def encoder_layer(x: np.ndarray, p: dict, layer: int, weights_out: np.ndarray | None = None):
    """Post-LN BERT block. x: [T, d] → (x' [T, d], weights [n_heads, T, T])."""
    attn, weights = multi_head_attention(x, p, layer, weights_out=weights_out)
    attn += x
    x = layer_norm(attn, p[f"layer{layer}.ln_attn.g"], p[f"layer{layer}.ln_attn.b"])
    out = ffn(x, p, layer)
    out += x
    return layer_norm(out, p[f"layer{layer}.ln_ffn.g"], p[f"layer{layer}.ln_ffn.b"]), weights


# --- the block with a part switched off (the transformer_block lesson) -------------------------------

@dataclass(frozen=True)
class BlockParts:
    """Which parts of every encoder block run: the residual connections, the LayerNorms, the feed-forward.
    All on is the real model."""

    residual: bool = True
    layer_norm: bool = True
    feed_forward: bool = True

    @property
    def full(self) -> bool:
        return self.residual and self.layer_norm and self.feed_forward


STAGE_LABELS = ("input", "attention", "+ residual", "LayerNorm", "feed-forward", "+ residual", "LayerNorm")


@dataclass(frozen=True)
class LayerStages:
    """One encoder block on [T, d] vectors, every stage kept (each [T, d]; weights [n_heads, T, T]).

    A part switched off passes its input through: without the residual a sum is its sublayer's output
    alone, without LayerNorm a normalised stage is the sum itself, and without the feed-forward its
    whole sublayer (the LayerNorm after it too) is skipped, so ``ffn`` is 0 and the output is ``attn_norm``.
    """

    x: np.ndarray               # the block's input
    attention: np.ndarray       # MultiHead(x), W_O applied
    attn_sum: np.ndarray        # x + attention
    attn_norm: np.ndarray       # LayerNorm(attn_sum)
    ffn: np.ndarray             # W₂ GELU(W₁ attn_norm + b₁) + b₂
    ffn_sum: np.ndarray         # attn_norm + ffn
    output: np.ndarray          # LayerNorm(ffn_sum): the block's output
    weights: np.ndarray         # every head's attention weights

    def stages(self) -> tuple[np.ndarray, ...]:
        """The seven [T, d] stages in STAGE_LABELS order."""
        return self.x, self.attention, self.attn_sum, self.attn_norm, self.ffn, self.ffn_sum, self.output


def encoder_layer_stages(x: np.ndarray, p: dict, layer: int, *, residual: bool = True, layer_norm: bool = True,
                         feed_forward: bool = True) -> LayerStages:
    """``encoder_layer`` keeping every stage, with any of its parts switched off. x: [T, d] → LayerStages.

    All on, ``output`` is ``encoder_layer(x, p, layer)[0]``: the same operations in the same order, so equal
    bit for bit on one BLAS thread, and to float32 rounding on more (OpenBLAS splits sums by thread count).
    On one BLAS thread, as every pass of the model (a page calls this for one block on its own: see _blas.py).
    """
    with single_threaded_blas():
        return _layer_stages(x, p, layer, residual, layer_norm, feed_forward)


def _layer_stages(x: np.ndarray, p: dict, layer: int, residual: bool, layer_norm: bool,
                  feed_forward: bool) -> LayerStages:
    attention, weights = multi_head_attention(x, p, layer)                     # [T, d], [H, T, T]
    attn_sum = attention + x if residual else attention.copy()
    attn_norm = (layer_norm_of(attn_sum, p, layer, "ln_attn") if layer_norm else attn_sum)
    if not feed_forward:                                                       # the sublayer skipped
        return LayerStages(x, attention, attn_sum, attn_norm, np.zeros_like(attn_norm), attn_norm, attn_norm, weights)
    ffn_out = ffn(attn_norm, p, layer)                                         # [T, d]
    ffn_sum = ffn_out + attn_norm if residual else ffn_out.copy()
    output = layer_norm_of(ffn_sum, p, layer, "ln_ffn") if layer_norm else ffn_sum
    return LayerStages(x, attention, attn_sum, attn_norm, ffn_out, ffn_sum, output, weights)


def layer_norm_of(x: np.ndarray, p: dict, layer: int, name: str) -> np.ndarray:
    """The block's LayerNorm ``name`` ("ln_attn" or "ln_ffn") with its learned gain and bias. [T, d] → [T, d]."""
    return layer_norm(x, p[f"layer{layer}.{name}.g"], p[f"layer{layer}.{name}.b"])


def staged_hidden_states(token_ids: np.ndarray, p: dict, parts: BlockParts) -> np.ndarray:
    """The embeddings, then each block's output with ``parts`` switched as given: [7, T, d] float32.

    The embedding (and its LayerNorm) is the model's own in every setting: the parts switched are the blocks'.
    """
    x = embed(np.asarray(token_ids), p)                                       # [T, d]
    hidden = np.empty((N_LAYERS + 1, *x.shape), np.float32)                  # [7, T, d]
    hidden[0] = x
    with np.errstate(over="ignore", invalid="ignore"):                       # unnormalised, a block may overflow
        for layer in range(N_LAYERS):
            hidden[layer + 1] = x = encoder_layer_stages(
                x, p, layer, residual=parts.residual, layer_norm=parts.layer_norm,
                feed_forward=parts.feed_forward).output
    return hidden


@dataclass(frozen=True)
class StagedRun:
    """One sentence through the encoder with some block parts switched off.

    tokens: [T] incl. [CLS]/[SEP]; token_ids: [T]; hidden_states: [7, T, 384] float32, read-only (the
    embeddings, then each block's output); parts: what ran; truncated: the text or its tokens were cut.
    """

    tokens: tuple[str, ...]
    token_ids: tuple[int, ...]
    hidden_states: np.ndarray
    parts: BlockParts
    truncated: bool


def mean_pool(hidden: np.ndarray) -> np.ndarray:
    """Mean over tokens, then unit length: the sentence-transformers embedding. [T, d] → [d]."""
    v = hidden.mean(axis=0)
    return v / max(float(np.linalg.norm(v)), 1e-12)


# --- the model ------------------------------------------------------------------------------------

@dataclass(frozen=True)
class BertRun:
    """One sentence through the encoder.

    tokens: [T] incl. [CLS]/[SEP]; token_ids: [T];
    hidden_states: [7, T, 384] float32 (embeddings after LN, then each layer's output);
    attentions: [6, 12, T, T] float32, rows sum to 1; truncated: the text or its tokens were cut.
    """

    tokens: list[str]
    token_ids: list[int]
    hidden_states: np.ndarray
    attentions: np.ndarray
    truncated: bool


@dataclass(frozen=True)
class AttentionRun:
    """What the lab's heatmap and bars draw from a run, and nothing else (hidden states left out).

    tokens: (T,) incl. [CLS]/[SEP]; attentions: [6, 12, T, T] float32, read-only; truncated as in BertRun.
    Immutable all through, so one copy can be shared by every session.
    """

    tokens: tuple[str, ...]
    attentions: np.ndarray
    truncated: bool

    @property
    def nbytes(self) -> int:
        """Bytes held: the weights plus the token strings (about 60 bytes each with their tuple slot)."""
        return int(self.attentions.nbytes) + sum(60 + len(t) for t in self.tokens)


class MiniLM:
    """all-MiniLM-L6-v2 with a WordPiece tokenizer; `run` keeps every layer's states and weights."""

    n_layers, n_heads, d_model, max_tokens = N_LAYERS, N_HEADS, D_MODEL, MAX_TOKENS

    def __init__(self, params: dict[str, np.ndarray], vocab: dict[str, int]):
        self.params = with_fused_qkv(params)
        self.tokenizer = WordPieceTokenizer(vocab)

    def run(self, text: str, *, positions: bool = True) -> BertRun:
        """Tokenise and encode one sentence (without position embeddings when ``positions`` is False).
        Raises ValueError for empty text."""
        enc = self.tokenizer.encode(text)
        T = len(enc.token_ids)
        hidden = np.empty((N_LAYERS + 1, T, D_MODEL), np.float32)                # [7, T, d]
        attentions = np.empty((N_LAYERS, N_HEADS, T, T), np.float32)             # [6, H, T, T]
        with single_threaded_blas():                                          # small products: see _blas.py
            hidden[0] = x = embed(np.asarray(enc.token_ids), self.params, positions)  # [T, d]
            for layer in range(N_LAYERS):                                     # weights written in place
                hidden[layer + 1] = x = encoder_layer(x, self.params, layer, weights_out=attentions[layer])[0]
        return BertRun(tokens=enc.tokens, token_ids=enc.token_ids, hidden_states=read_only(hidden),
                       attentions=read_only(attentions), truncated=enc.truncated)

    def attention_run(self, text: str) -> AttentionRun:
        """The tokens and every head's weights of one sentence (``run`` without the hidden states)."""
        r = self.run(text)
        return AttentionRun(tokens=tuple(r.tokens), attentions=r.attentions, truncated=r.truncated)

    def sentence_embedding(self, text: str) -> np.ndarray:
        """Mean-pooled, L2-normalised last hidden state: [384]."""
        return mean_pool(self.run(text).hidden_states[-1])

    def run_stages(self, text: str, parts: BlockParts | None = None) -> StagedRun:
        """Tokenise and encode one sentence with ``parts`` of every block switched as given (all on by default;
        each layer's stages: ``encoder_layer_stages(run.hidden_states[layer], ...)``). Raises ValueError for
        empty text."""
        parts = parts or BlockParts()
        enc = self.tokenizer.encode(text)
        with single_threaded_blas():                                          # small products: see _blas.py
            hidden = staged_hidden_states(np.asarray(enc.token_ids), self.params, parts)
        return StagedRun(tokens=tuple(enc.tokens), token_ids=tuple(enc.token_ids), hidden_states=read_only(hidden),
                         parts=parts, truncated=enc.truncated)

    def head_trace(self, run: BertRun, layer: int, head: int) -> AttentionTrace:
        """Every stage (Q, K, V, scores, scaled, weights, output) of one head, for a lesson chart."""
        if not (0 <= layer < N_LAYERS and 0 <= head < N_HEADS):
            raise ValueError(f"layer must be 0–{N_LAYERS - 1} and head 0–{N_HEADS - 1}, got {layer}, {head}.")
        with single_threaded_blas():
            Q, K, V = qkv(run.hidden_states[layer], self.params, layer)
        return scaled_dot_product_attention(Q[head], K[head], V[head])


# Left float16 at load: 30,522 rows × 384, of which a sentence reads at most 128. Upcasting the rows read
# gives the same float32 values as upcasting the table (float16 → float32 is exact), for half the memory.
KEPT_FLOAT16 = ("wte",)


def load_params(path: str | Path = WEIGHTS_FILE) -> dict[str, np.ndarray]:
    """The float16 npz, upcast once to float32 (but KEPT_FLOAT16, read a few rows at a time)."""
    with np.load(path) as npz:
        return {name: npz[name] if name in KEPT_FLOAT16 else npz[name].astype(np.float32) for name in npz.files}


def with_fused_qkv(params: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """``params`` with each layer's W_Q, W_K, W_V held as one [d, 3d] matrix [W_Q | W_K | W_V] (and its
    bias), under ``layer{i}.qkv``: one product instead of three small ones."""
    fused = dict(params)
    for layer in range(N_LAYERS):
        ws = [params[f"layer{layer}.{n}.w"] for n in "qkv"]
        bs = [params[f"layer{layer}.{n}.b"] for n in "qkv"]
        fused[f"layer{layer}.qkv.w"] = np.ascontiguousarray(np.concatenate(ws, axis=1))
        fused[f"layer{layer}.qkv.b"] = np.concatenate(bs)
        for n in "qkv":                                    # the fused copy replaces them, not a second copy
            del fused[f"layer{layer}.{n}.w"], fused[f"layer{layer}.{n}.b"]
    return fused


def load_model() -> MiniLM:
    """all-MiniLM-L6-v2 from the committed assets. Each call loads a new copy: the app caches it once
    (ui/models.py)."""
    return MiniLM(load_params(WEIGHTS_FILE), load_vocab(VOCAB_FILE))
