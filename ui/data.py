"""What the lesson pages compute, cached and shared by every session.

These live in a module rather than in the page scripts: a page script runs top to bottom on every rerun,
so a ``@st.cache_data`` written in it is applied anew each time, and Streamlit reads and tokenizes the
function's source to key its cache (1–2 ms a function, every rerun). Defined here, each is decorated
once per process. Every cache is bounded in entries (``max_entries``) and in bytes: either its entries have
a small largest size (so entries × that size is the bound; tests/test_memory_bounds.py measures each),
or, where one entry can be 100 times another (the lab's model runs), it is a ``ui.lru.ByteLRU`` with a
byte budget. None returns a figure (cache_data would pickle it and rebuild it, validation and all, on
every hit: figures go through ``ui.charts.built``).
"""

from __future__ import annotations

import threading
import tomllib
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import streamlit as st

import attention_core as core
from ui.lru import ByteLRU

ASSETS = Path(__file__).resolve().parent.parent / "assets"

# ── shared ─────────────────────────────────────────────────────────────────────────────────────────────────────


@st.cache_resource(max_entries=1, show_spinner="Loading GloVe vectors…")
def glove() -> core.glove.Glove:
    """The 50,000-word GloVe table, once per process (no arguments: bounded by construction). Read-only:
    the polysemy page's map and the lab's neighbour lists share it."""
    return core.load_glove()


@st.cache_resource(max_entries=16)
def fixed_table(name: str, _make: Callable[[], pd.DataFrame]) -> pa.Table:
    """A table that never changes while the app runs, made by ``_make`` once per process and kept as Arrow.

    ``st.dataframe`` converts a pandas table to Arrow on every rerun (about 1 ms for a small one, more for
    building it); an Arrow table it sends as it is. ``name`` alone keys the cache: one name, one table.
    (pyarrow is Streamlit's own dependency, already installed and pinned.)
    """
    return pa.Table.from_pandas(_make())


# ── polysemy ──────────────────────────────────────────────────────────────────────────────────────────────────

POLYSEMY_VOCAB = ASSETS / "vocab" / "polysemy_2d.csv"


@st.cache_data(max_entries=4)
def polysemy_vocab(path: str) -> dict:
    """The vocabulary as the page uses it: plain lists and arrays taken out of the CSV once, so a rerun
    neither unpickles a DataFrame nor indexes one word at a time."""
    vocab = pd.read_csv(path, comment="#", skipinitialspace=True).set_index("word")
    X, groups = vocab[["x", "y"]].to_numpy(dtype=float), list(vocab["group"])
    return {"all": list(vocab.index), "X": X, "groups": groups,
            "places": list(vocab["label"]), "coords": dict(zip(vocab.index, X, strict=True)),
            "group_of": dict(zip(vocab.index, groups, strict=True)),
            "senses": X[[g == "sense" for g in groups]],
            "words": [w for w, g in zip(vocab.index, groups, strict=True) if g != "sense"]}


@st.cache_data(max_entries=64)
def sense_experiment(d: int, seed: int) -> core.SenseExperiment:
    """One cached run per (d, seed); the seed and d together fix the random draw."""
    return core.sense_experiment(d, np.random.default_rng([seed, d]))


# ── queries_keys_values ────────────────────────────────────────────────────────────────────────────────────────

VIDEO_LIBRARY = ASSETS / "vocab" / "video_library.csv"


@st.cache_resource(max_entries=4)
def video_library(path: str) -> dict:
    """The library as the page uses it: the display table (Arrow, sent as it is), and the key and value
    matrices as plain read-only arrays (taken out once here rather than by pandas indexing on every rerun).
    One shared copy for every session: the arrays cannot be written, and the page only reads the rest."""
    library = pd.read_csv(path, comment="#", skipinitialspace=True).set_index("title")
    key_cols = [c for c in library.columns if c.startswith("k_")]
    value_cols = [c for c in library.columns if c.startswith("v_")]
    shown = library.rename(columns=lambda c: ("key · " if c.startswith("k_") else "value · ") + c[2:])
    return {"shown": pa.Table.from_pandas(shown),
            "K": core.read_only(library[key_cols].to_numpy(float)),
            "V": core.read_only(library[value_cols].to_numpy(float)),
            "titles": list(library.index), "tags": [c[2:] for c in key_cols],
            "value_names": [c[2:] for c in value_cols]}


# ── rnn_vs_attention ───────────────────────────────────────────────────────────────────────────────────────────

HIDDEN, D_IN, D_K = 16, 4, 8                              # the race's RNN and attention head


@st.cache_data(max_entries=32, show_spinner=False)
def rnn_race(length: int, rho: float, seed: int) -> dict:
    """One random sequence read by a tanh RNN with ‖W_hh‖ = rho and by one attention head (data only: a cached
    figure would be pickled and rebuilt on every hit; the page builds it through ui.charts.built)."""
    rng = np.random.default_rng(seed)
    rnn = core.random_rnn(HIDDEN, D_IN, rho, rng)
    head = core.random_head(D_IN, D_K, rng)
    X = rng.standard_normal((length, D_IN))               # [T, d_in]
    distance = length - 1 - np.arange(length)             # token j is T − j steps from the end
    rnn_infl, att_infl = core.input_influence(rnn, X), core.attention_input_influence(head, X)
    ceiling = core.gradient_bound(rho, distance) * np.linalg.norm(rnn.W_xh, ord=2)
    return {"rnn": rnn_infl, "attention": att_infl, "distance": distance, "ceiling": ceiling,
            "factors": core.chain_factors(rnn, X)}


@st.cache_data(max_entries=32, show_spinner=False)
def lstm_race(length: int, forget_bias: float, seed: int) -> np.ndarray:
    """‖∂(h_T, c_T)/∂x_j‖ of a random LSTM (forget-gate bias ``forget_bias``) reading the race's sequence: [T].

    The same inputs as rnn_race (its generator is replayed to the point where it draws X)."""
    rng = np.random.default_rng(seed)
    core.random_rnn(HIDDEN, D_IN, 1.0, rng)               # replay rnn_race's draws (their sizes do not depend
    core.random_head(D_IN, D_K, rng)                      # on its spectral norm), so X is the same sequence
    X = rng.standard_normal((length, D_IN))
    lstm = core.random_lstm(HIDDEN, D_IN, forget_bias, np.random.default_rng([seed, 1]))
    return core.lstm_input_influence(lstm, X)


RECALL_MAX = 512                                          # pairs drawn once per (d, seed); every k uses the first k
RECALL_TRIALS = 6                                         # draws averaged, so one unlucky draw does not make a bump
RECALL_GRID = tuple(int(k) for k in np.unique(np.round(np.geomspace(1, RECALL_MAX, 28))))


@st.cache_data(max_entries=16, show_spinner=False)
def recall(d: int, seed: int) -> core.RecallCurve:
    """Recall accuracy against k on a fixed grid of k, for a state of d numbers and for attention."""
    return core.recall_curve(d, RECALL_GRID, np.random.default_rng([seed, d]), draw=RECALL_MAX,
                             trials=RECALL_TRIALS)


@st.cache_data(max_entries=64, show_spinner=False)
def recall_at(d: int, k: int, seed: int) -> core.RecallCurve:
    """The same draws as recall(d, seed), at one k."""
    return core.recall_curve(d, [k], np.random.default_rng([seed, d]), draw=RECALL_MAX, trials=RECALL_TRIALS)


@st.cache_data(max_entries=1, show_spinner=False)
def path_curves() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Path length from token 1 to token N through the chain and through attention, for N = 2 … 500."""
    lengths = np.arange(2, 501)
    paths = [core.path_lengths(n) for n in lengths]
    return lengths, np.array([p["rnn"] for p in paths]), np.array([p["attention"] for p in paths])


# ── flash_attention ────────────────────────────────────────────────────────────────────────────────────────────

FLASH_D_K, FLASH_D_V = 4, 3                               # the stepping example's query/key and value sizes
FLASH_LENGTHS = (256, 512, 1024, 2048, 4096, 8192, 16384)
FLASH_BLOCKS = (16, 32, 64, 128, 256, 512, 1024)


@st.cache_data(max_entries=64, show_spinner=False)
def flash_run(length: int, block: int, spread: float, causal: bool, seed: int) -> dict:
    """Random Q, K, V for T tokens, attended tile by tile and plainly: the trace, each block's m, ℓ and rescale
    factor ([n_blocks, T] each), and the largest |tiled − plain| at this block size and over B = 1 … T."""
    rng = np.random.default_rng([seed, length])
    Q, K = (rng.standard_normal((length, FLASH_D_K)) * spread for _ in range(2))
    V = rng.standard_normal((length, FLASH_D_V))
    mask = core.causal_mask(length, length) if causal else None
    plain = core.scaled_dot_product_attention(Q, K, V, mask=mask).output
    trace = core.flash_attention(Q, K, V, block, causal=causal)
    delta_all = max(float(np.abs(core.flash_attention(Q, K, V, b, causal=causal).output - plain).max())
                    for b in range(1, length + 1))
    return {"trace": trace, "m": np.array([s.m_new for s in trace.steps]), "l": np.array([s.l for s in trace.steps]),
            "rescale": np.array([s.rescale for s in trace.steps]),
            "delta": float(np.abs(trace.output - plain).max()), "delta_all": delta_all,
            "largest": float(np.abs(plain).max())}


@st.cache_data(max_entries=64, show_spinner=False)
def flash_traffic(n: int, d: int, block: int) -> dict:
    """Main-memory traffic of one head (Dao et al. 2022), plain and tiled, at (N, d, B_c), against N and
    against B_c, with the roofline of each on the page's GPU."""
    gpu = core.A100_SXM_40GB
    standard, tiled = core.standard_attention_traffic(n, d), core.flash_attention_traffic(n, d, block)
    flops = core.attention_flops(n, d)
    return {
        "standard": standard, "tiled": tiled, "passes": -(-n // block),
        "standard_curve": np.array([core.standard_attention_traffic(m, d).bytes for m in FLASH_LENGTHS], float),
        "tiled_curve": np.array([core.flash_attention_traffic(m, d, block).bytes for m in FLASH_LENGTHS], float),
        "block_curve": np.array([core.flash_attention_traffic(n, d, b).bytes for b in FLASH_BLOCKS], float),
        "fits": np.array([core.fits_in_sram(b, d, gpu.sram_elements()) for b in FLASH_BLOCKS]),
        "roof_standard": core.roofline(flops, standard.bytes, gpu.peak_flops, gpu.bandwidth),
        "roof_tiled": core.roofline(flops, tiled.bytes, gpu.peak_flops, gpu.bandwidth),
    }


# ── sqrt_dk ────────────────────────────────────────────────────────────────────────────────────────────────────

DRAWS = 4000                                              # q·k samples per histogram
BINS = 41
N_KEYS = 16
SWEEP_D_K = tuple(2 ** k for k in range(11))              # 1, 2, 4, … 1024


@st.cache_resource(max_entries=2, show_spinner="Drawing random queries and keys…")
def dot_product_draws(seed: int) -> np.ndarray:
    """[DRAWS, 1024] running sums of q·k, drawn once per seed; every dₖ reads one column. A resource, not
    data: 33 MB that cache_data would copy on every rerun. Frozen, since every session shares it."""
    prefix = core.dot_product_prefix_sums(SWEEP_D_K[-1], DRAWS, np.random.default_rng(seed))
    prefix.setflags(write=False)
    return prefix


@st.cache_data(max_entries=8, show_spinner=False)
def softmax_sweep_by_seed(seed: int) -> core.SoftmaxSweep:
    """The softmax sweep over dₖ = 1 … 1024; it depends on the seed only."""
    return core.softmax_sweep(SWEEP_D_K, N_KEYS, 300, np.random.default_rng(seed))


@st.cache_data(max_entries=64, show_spinner=False)
def sqrt_dk_numbers(d_k: int, seed: int) -> dict:
    """Every number that depends on (dₖ, seed). Samples are binned here, never sent to the browser. No figures:
    cache_data would pickle them and rebuild them, validation and all, on every hit; the page builds them
    through ui.charts.built instead."""
    s = dot_product_draws(seed)[:, d_k - 1]                           # [DRAWS] real dot products at this dₖ
    scaled = s / np.sqrt(d_k)
    h_raw, h_scaled = core.histogram_density(s, BINS, 4 * np.sqrt(d_k)), core.histogram_density(scaled, BINS, 4.0)
    x_raw, x_scaled = np.linspace(-4, 4, 161) * np.sqrt(d_k), np.linspace(-4, 4, 161)
    scores = core.random_score_rows(d_k, N_KEYS, 1, np.random.default_rng([seed, d_k, 1]))[0]
    w_raw, w_scaled = core.softmax(scores), core.softmax(scores / np.sqrt(d_k))
    reach = float(min(max(12.0, 1.2 * np.sqrt(2 * d_k)), 60.0))
    x = np.linspace(-reach, reach, 241)
    return {
        "var_raw": float(s.var()), "var_scaled": float(scaled.var()), "h_raw": h_raw, "h_scaled": h_scaled,
        "kurtosis": core.excess_kurtosis(scaled),
        "w_raw": w_raw, "w_scaled": w_scaled, "x": x, "x_raw": x_raw, "x_scaled": x_scaled,
    }


# ── real_model_lab ─────────────────────────────────────────────────────────────────────────────────────────────

LAB = tomllib.loads((ASSETS / "data" / "lab.toml").read_text(encoding="utf-8"))   # presets, references


@st.cache_resource(max_entries=1, show_spinner="Loading the model (45 MB, once)…")
def minilm():
    """The NumPy MiniLM, once per process: no arguments, so one entry at most."""
    return core.load_model()


# The lab sentence's runs, shared read-only by every session (no copy per session, as cache_data would make).
# 4.7 MB at 128 tokens (6 layers × 12 heads × 128² float32 weights), 42 KB at 12: 40 MB holds eight of the
# longest and hundreds of short ones.
LAB_RUNS_MAX_BYTES, LAB_RUNS_MAX_ENTRIES = 40 * 2**20, 512
LAB_RUNS: ByteLRU[core.bert.AttentionRun] = ByteLRU(LAB_RUNS_MAX_BYTES, LAB_RUNS_MAX_ENTRIES, lambda r: r.nbytes)


# At most two model runs at once (the machine's cores): each 128-token run allocates ~10 MB of temporaries,
# and thirty sessions running at once took the server's RSS to 880 MB (docs/RELIABILITY.md, soak).
MODEL_RUNS = threading.BoundedSemaphore(2)


def run_model(text: str) -> core.bert.BertRun:
    """``minilm().run(text)``, waiting for a free slot among MODEL_RUNS."""
    with MODEL_RUNS:
        return minilm().run(text)


def encode(text: str) -> core.bert.AttentionRun:
    """The sentence's tokens and every head's attention weights (what the lab draws; no hidden states).
    Raises ValueError for text with nothing to read."""
    def make() -> core.bert.AttentionRun:
        with MODEL_RUNS:
            return minilm().attention_run(text)
    return LAB_RUNS.get(text, make)


@st.cache_data(max_entries=8, show_spinner=False)
def reference_stacks(word: str) -> tuple[list[tuple[str, str]], np.ndarray | None]:
    """((sense, sentence) per reference sentence of the normalised ``word``, their [n, 8, d] stacks or None).
    Only the lab's few reference words have any (at most 8 entries of about 12 × 8 × 384 floats)."""
    refs = [(r["sense"], s) for r in LAB["references"] if r["word"] == word for s in r["sentences"]]
    if not refs:
        return refs, None
    model = minilm()
    return refs, np.stack([core.layer_vectors(run_model(s), word, model.params["wte"]) for _, s in refs])


@st.cache_data(max_entries=32, show_spinner=False)
def layer_experiment(word: str, sentences: tuple[str, ...]) -> dict:
    """The word's [8, d] stacks (lookup, layers 0–6) in each sentence that has it, and in the references.

    Runs the sentences itself and keeps only the word's rows (8 × 384 floats a sentence, not 7 × T × 384)."""
    model = minilm()
    wte = model.params["wte"]
    stacks, missing = {}, []
    for n, s in enumerate(sentences):
        try:
            stacks[n] = core.layer_vectors(run_model(s), word, wte)
        except ValueError:
            missing.append(n + 1)
    refs, ref_stacks = reference_stacks(core.normalise_word(word))
    return {"stacks": stacks, "missing": missing, "refs": refs, "ref_stacks": ref_stacks}


@st.cache_data(max_entries=64, show_spinner=False)
def glove_nearest(word: str, k: int) -> list[tuple[str, float]]:
    """The word's k nearest GloVe words: 50,000 cosines and an argsort, so once per word, not per rerun."""
    return glove().nearest(word, k)


# ── multi_head ─────────────────────────────────────────────────────────────────────────────────────────────────

@st.cache_data(max_entries=64, show_spinner=False)
def head_roles(text: str) -> core.HeadRoles:
    """Each head's favourite key per token in the lab's cached run of ``text`` (the same run the lab draws)."""
    r = encode(text)
    return core.head_roles(r.attentions, r.tokens)
