"""The √dₖ page's cached computations: random dot products, their histograms, and the softmax sweep."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import streamlit as st

import attention_core as core
from ui.lru import shared

DRAWS = 4000                                              # q·k samples per histogram
BINS = 41
N_KEYS = 16
SWEEP_D_K = tuple(2 ** k for k in range(11))              # 1, 2, 4, … 1024
D_K, SEED = 64, 0  # the page's defaults


@st.cache_resource(max_entries=2, show_spinner="Drawing random queries and keys…")
def dot_product_draws(seed: int) -> np.ndarray:
    """[DRAWS, 1024] running sums of q·k, drawn once per seed; every dₖ reads one column. A resource, not
    data: tens of megabytes that cache_data would copy on every rerun. Frozen, since every session shares it."""
    prefix = core.dot_product_prefix_sums(SWEEP_D_K[-1], DRAWS, np.random.default_rng(seed))
    prefix.setflags(write=False)
    return prefix


@shared(max_entries=8)
def softmax_sweep_by_seed(seed: int) -> core.SoftmaxSweep:
    """The softmax sweep over dₖ = 1 … 1024; it depends on the seed only."""
    return core.softmax_sweep(SWEEP_D_K, N_KEYS, 300, np.random.default_rng(seed))


@dataclass(frozen=True)
class SqrtDkNumbers:
    """Every number the page shows at one (dₖ, seed)."""

    var_raw: float                      # measured Var(q·k)
    var_scaled: float                   # measured Var(q·k / √dₖ)
    h_raw: core.Histogram               # the raw dot products, binned
    h_scaled: core.Histogram            # the scaled ones, binned
    kurtosis: float                     # excess kurtosis of the scaled ones
    w_raw: np.ndarray                   # [N_KEYS] softmax of one row of raw scores
    w_scaled: np.ndarray                # [N_KEYS] softmax of the same row scaled
    x: np.ndarray                       # [241] the saturation chart's score axis
    x_raw: np.ndarray                   # [161] where the raw histogram's normal curve is drawn
    x_scaled: np.ndarray                # [161] where the scaled one's is drawn


@shared(max_entries=64)
def sqrt_dk_numbers(d_k: int, seed: int) -> SqrtDkNumbers:
    """Every number that depends on (dₖ, seed). Samples are binned here, never sent to the browser. No figures:
    cache_data would pickle them and rebuild them, validation and all, on every hit; the page builds them
    through ui.charts.built instead."""
    s = dot_product_draws(seed)[:, d_k - 1]                           # [DRAWS] real dot products at this dₖ
    scaled = s / np.sqrt(d_k)
    scores = core.random_score_rows(d_k, N_KEYS, 1, np.random.default_rng([seed, d_k, 1]))[0]
    reach = float(min(max(12.0, 1.2 * np.sqrt(2 * d_k)), 60.0))
    return SqrtDkNumbers(
        var_raw=float(s.var()), var_scaled=float(scaled.var()),
        h_raw=core.histogram_density(s, BINS, 4 * np.sqrt(d_k)), h_scaled=core.histogram_density(scaled, BINS, 4.0),
        kurtosis=core.excess_kurtosis(scaled),
        w_raw=core.softmax(scores), w_scaled=core.softmax(scores / np.sqrt(d_k)),
        x=np.linspace(-reach, reach, 241),
        x_raw=np.linspace(-4, 4, 161) * np.sqrt(d_k), x_scaled=np.linspace(-4, 4, 161),
    )
