"""A real BERT encoder (all-MiniLM-L6-v2: 6 layers × 12 heads, d_model 384) in plain NumPy.

Every head's attention goes through `scaled_dot_product_attention`, the same function the lessons
teach, so the lab shows the very weights that formula produces. Weights are stored float16 in
assets/model/ and upcast once to float32 at load.

    x = LayerNorm(word[id] + position[i] + token_type[0])          # [T, 384]
    6 × { x = LayerNorm(x + MultiHead(x))                           # [T, 384]
          x = LayerNorm(x + W₂ GELU(W₁ x)) }                        # [T, 1536] inside
    sentence embedding = normalise(mean over tokens of x)           # [384]
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from ._blas import single_threaded_blas
from ._validate import read_only
from .attention import AttentionTrace, scaled_dot_product_attention
from .wordpiece import MAX_TOKENS, WordPieceTokenizer, load_vocab

ASSETS = Path(__file__).resolve().parent.parent / "assets" / "model"
WEIGHTS_FILE = ASSETS / "minilm_l6_fp16.npz"
VOCAB_FILE = ASSETS / "vocab.txt"

N_LAYERS, N_HEADS, D_MODEL, D_FF = 6, 12, 384, 1536
LN_EPS = 1e-12


# --- erf and GELU ---------------------------------------------------------------------------------
# W. J. Cody, "Rational Chebyshev approximations for the error function", Math. Comp. 23 (1969),
# the coefficients used by most libms: about 1e-16 relative error on three intervals of |x|.
_ERF_A = (3.16112374387056560e00, 1.13864154151050156e02, 3.77485237685302021e02,
          3.20937758913846947e03, 1.85777706184603153e-1)
_ERF_B = (2.36012909523441209e01, 2.44024637934444173e02, 1.28261652607737228e03, 2.84423683343917062e03)
_ERFC_C = (5.64188496988670089e-1, 8.88314979438837594e00, 6.61191906371416295e01, 2.98635138197400131e02,
           8.81952221241769090e02, 1.71204761263407058e03, 2.05107837782607147e03, 1.23033935479799725e03,
           2.15311535474403846e-8)
_ERFC_D = (1.57449261107098347e01, 1.17693950891312499e02, 5.37181101862009858e02, 1.62138957456669019e03,
           3.29079923573345963e03, 4.36261909014324716e03, 3.43936767414372164e03, 1.23033935480374942e03)
_ERFC_P = (3.05326634961232344e-1, 3.60344899949804439e-1, 1.25781726111229246e-1, 1.60837851487422766e-2,
           6.58749161529837803e-4, 1.63153871373020978e-2)
_ERFC_Q = (2.56852019228982242e00, 1.87295284992346047e00, 5.27905102951428412e-1, 6.05183413124413191e-2,
           2.33520497626869185e-3)
_INV_SQRT_PI = 0.56418958354775628695


def _ratio(num: tuple, den: tuple, t: np.ndarray) -> np.ndarray:
    """Cody's nested evaluation: (((n_last·t + n_0)·t + n_1)·t … + n_{k-1}) / ((t + d_0)·t … + d_{k-1})."""
    xnum, xden = num[-1] * t, t
    for a, b in zip(num[:-2], den[:-1], strict=True):
        xnum, xden = (xnum + a) * t, (xden + b) * t
    return (xnum + num[-2]) / (xden + den[-1])


def erf(x: np.ndarray) -> np.ndarray:
    """The error function erf(x) = 2/√π ∫₀ˣ e^(−t²) dt, elementwise (NumPy has none).

    float32 in → float32 out (about 1e-7 absolute error, what GELU needs, at half the cost);
    anything else is computed in float64 (about 1e-16).
    """
    x = np.asarray(x)
    if x.dtype != np.float32:
        x = x.astype(np.float64)
    # Every interval is evaluated on the whole array with its argument clipped into range, then the
    # right one is picked per element: cheaper than boolean indexing, and nothing overflows.
    y = np.abs(x)
    xs = np.clip(x, -0.46875, 0.46875)
    small = xs * _ratio(_ERF_A, _ERF_B, xs * xs)                               # |x| ≤ 0.46875: erf directly
    ym = np.clip(y, 0.46875, 4.0)
    erfc_mid = _ratio(_ERFC_C, _ERFC_D, ym) * np.exp(-ym * ym)                 # 0.46875 < |x| ≤ 4
    yb = np.clip(y, 4.0, 1e8)
    inv_y2 = 1.0 / (yb * yb)
    erfc_big = (_INV_SQRT_PI - inv_y2 * _ratio(_ERFC_P, _ERFC_Q, inv_y2)) / yb * np.exp(-yb * yb)  # |x| > 4
    erfc = np.where(y <= 4.0, erfc_mid, erfc_big)                              # erfc(|x|); NaN stays NaN
    return np.where(y <= 0.46875, small, np.copysign(1.0 - erfc, x))


def gelu(x: np.ndarray) -> np.ndarray:
    """Exact GELU: x·Φ(x) = ½ x (1 + erf(x/√2)), the one BERT was trained with (not the tanh variant)."""
    x = np.asarray(x)
    x = x if x.dtype == np.float32 else x.astype(np.float64)
    return 0.5 * x * (1.0 + erf(x * x.dtype.type(np.sqrt(0.5))))


# --- the layers -----------------------------------------------------------------------------------

def layer_norm(x: np.ndarray, g: np.ndarray, b: np.ndarray, eps: float = LN_EPS) -> np.ndarray:
    """(x − mean) / √(var + ε) · g + b over the last axis. x: [T, d] → [T, d]."""
    mean = x.mean(axis=-1, keepdims=True)
    var = x.var(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * g + b


def linear(x: np.ndarray, w: np.ndarray, b: np.ndarray) -> np.ndarray:
    """x W + b. x: [T, d_in], w: [d_in, d_out], b: [d_out] → [T, d_out]."""
    return x @ w + b


def embed(token_ids: np.ndarray, p: dict) -> np.ndarray:
    """LayerNorm(word + position + token type 0). token_ids: [T] → [T, d_model]."""
    T = len(token_ids)
    x = p["wte"][token_ids] + p["wpe"][:T] + p["wtt"][0]                      # [T, d]
    return layer_norm(x, p["ln_emb.g"], p["ln_emb.b"])


def split_heads(x: np.ndarray, n_heads: int) -> np.ndarray:
    """[T, d] → [n_heads, T, d/n_heads]: head h reads columns h·d_k … (h+1)·d_k − 1."""
    T, d = x.shape
    return x.reshape(T, n_heads, d // n_heads).transpose(1, 0, 2)


def multi_head_attention(x: np.ndarray, p: dict, layer: int, n_heads: int = N_HEADS):
    """Concat_h(softmax(Q_h K_hᵀ / √d_k) V_h) W_O + b_O, each head through scaled_dot_product_attention.

    x: [T, d] → (output [T, d], weights [n_heads, T, T], traces: one AttentionTrace per head).
    """
    Q = split_heads(linear(x, p[f"layer{layer}.q.w"], p[f"layer{layer}.q.b"]), n_heads)   # [H, T, d_k]
    K = split_heads(linear(x, p[f"layer{layer}.k.w"], p[f"layer{layer}.k.b"]), n_heads)   # [H, T, d_k]
    V = split_heads(linear(x, p[f"layer{layer}.v.w"], p[f"layer{layer}.v.b"]), n_heads)   # [H, T, d_k]
    traces = [scaled_dot_product_attention(Q[h], K[h], V[h]) for h in range(n_heads)]
    heads = np.concatenate([t.output for t in traces], axis=-1).astype(x.dtype)          # [T, d]
    weights = np.stack([t.weights for t in traces])                                      # [H, T, T]
    out = linear(heads, p[f"layer{layer}.attn_out.w"], p[f"layer{layer}.attn_out.b"])   # [T, d]
    return out, weights, traces


def ffn(x: np.ndarray, p: dict, layer: int) -> np.ndarray:
    """W₂ GELU(W₁ x + b₁) + b₂. x: [T, d] → [T, 4d] → [T, d]."""
    h = gelu(linear(x, p[f"layer{layer}.ffn_in.w"], p[f"layer{layer}.ffn_in.b"]))        # [T, d_ff]
    return linear(h, p[f"layer{layer}.ffn_out.w"], p[f"layer{layer}.ffn_out.b"])         # [T, d]


def encoder_layer(x: np.ndarray, p: dict, layer: int):
    """Post-LN BERT block. x: [T, d] → (x' [T, d], weights [n_heads, T, T], traces)."""
    attn, weights, traces = multi_head_attention(x, p, layer)
    x = layer_norm(x + attn, p[f"layer{layer}.ln_attn.g"], p[f"layer{layer}.ln_attn.b"])
    x = layer_norm(x + ffn(x, p, layer), p[f"layer{layer}.ln_ffn.g"], p[f"layer{layer}.ln_ffn.b"])
    return x, weights, traces


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


class MiniLM:
    """all-MiniLM-L6-v2 with a WordPiece tokenizer; `run` keeps every layer's states and weights."""

    n_layers, n_heads, d_model, max_tokens = N_LAYERS, N_HEADS, D_MODEL, MAX_TOKENS

    def __init__(self, params: dict[str, np.ndarray], vocab: dict[str, int]):
        self.params = params
        self.tokenizer = WordPieceTokenizer(vocab)

    def run(self, text: str) -> BertRun:
        """Tokenise and encode one sentence. Raises ValueError for empty text."""
        enc = self.tokenizer.encode(text)
        with single_threaded_blas():                                          # small products: see _blas.py
            x = embed(np.asarray(enc.token_ids), self.params)                 # [T, d]
            hidden, attentions = [x], []
            for layer in range(N_LAYERS):
                x, weights, _ = encoder_layer(x, self.params, layer)
                hidden.append(x)
                attentions.append(weights)
        return BertRun(
            tokens=enc.tokens, token_ids=enc.token_ids,
            hidden_states=read_only(np.stack(hidden).astype(np.float32)),       # [7, T, d]
            attentions=read_only(np.stack(attentions).astype(np.float32)),      # [6, H, T, T]
            truncated=enc.truncated,
        )

    def sentence_embedding(self, text: str) -> np.ndarray:
        """Mean-pooled, L2-normalised last hidden state: [384]."""
        return mean_pool(self.run(text).hidden_states[-1])

    def head_trace(self, run: BertRun, layer: int, head: int) -> AttentionTrace:
        """Every stage (Q, K, V, scores, scaled, weights, output) of one head, for a lesson chart."""
        if not (0 <= layer < N_LAYERS and 0 <= head < N_HEADS):
            raise ValueError(f"layer must be 0–{N_LAYERS - 1} and head 0–{N_HEADS - 1}, got {layer}, {head}.")
        with single_threaded_blas():
            _, _, traces = multi_head_attention(run.hidden_states[layer], self.params, layer)
        return traces[head]


def load_params(path: str | Path = WEIGHTS_FILE) -> dict[str, np.ndarray]:
    """The float16 npz, upcast once to float32."""
    with np.load(path) as npz:
        return {name: npz[name].astype(np.float32) for name in npz.files}


@lru_cache(maxsize=1)
def load_model() -> MiniLM:
    """all-MiniLM-L6-v2 from the committed assets (cached: one copy per process)."""
    return MiniLM(load_params(WEIGHTS_FILE), load_vocab(VOCAB_FILE))
