"""The RNN-versus-attention page's cached computations: the influence race, the LSTM, recall and path length."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

import attention_core as core
from ui.lru import MB, shared

HIDDEN, D_IN, D_K = 16, 4, 8                              # the race's RNN and attention head
# The page's defaults: T, ‖J‖, seed, forget-gate bias, state size, stored pairs.
LENGTH, RHO, SEED, FORGET_BIAS, STATE_D, PAIRS = 100, 0.9, 0, 1.0, 32, 64


@dataclass(frozen=True)
class Race:
    """How much of each token reaches the end, through the RNN and through attention. Each [T]."""

    rnn: np.ndarray                     # ‖∂h_T/∂x_j‖ of the tanh RNN (0 where it underflows)
    rnn_log10: np.ndarray               # log₁₀ of the same, finite where it underflows
    attention: np.ndarray               # ‖∂z_T/∂x_j‖ of one attention head
    distance: np.ndarray                # T − 1 − j: steps from token j to the end
    ceiling: np.ndarray                 # the RNN's bound ρ^distance · ‖W_xh‖
    factors: core.ChainFactors          # the chain's per-step factors


@shared(max_entries=32, max_bytes=3 * MB)
def rnn_race(length: int, rho: float, seed: int) -> Race:
    """One random sequence read by a tanh RNN with ‖W_hh‖ = rho and by one attention head (data only: a cached
    figure would be pickled and rebuilt on every hit; the page builds it through ui.charts.built)."""
    rng = np.random.default_rng(seed)
    rnn = core.random_rnn(HIDDEN, D_IN, rho, rng)
    head = core.random_head(D_IN, D_K, rng)
    X = rng.standard_normal((length, D_IN))               # [T, d_in]
    distance = length - 1 - np.arange(length)             # token j is T − j steps from the end
    ceiling = core.gradient_bound(rho, distance) * np.linalg.norm(rnn.W_xh, ord=2)
    log10 = core.log10_input_influence(rnn, X)
    with np.errstate(under="ignore"):
        plain = 10.0 ** log10
    return Race(rnn=plain, rnn_log10=log10, attention=core.attention_input_influence(head, X),
                distance=distance, ceiling=ceiling, factors=core.chain_factors(rnn, X))


@dataclass(frozen=True)
class LstmRace:
    """How much of each token reaches the LSTM's last state (h_T, c_T). Each [T]."""

    influence: np.ndarray               # ‖∂(h_T, c_T)/∂x_j‖ (0 where it underflows)
    log10: np.ndarray                   # log₁₀ of the same, finite where it underflows


@shared(max_entries=32)
def lstm_race(length: int, forget_bias: float, seed: int) -> LstmRace:
    """‖∂(h_T, c_T)/∂x_j‖ of a random LSTM (forget-gate bias ``forget_bias``) reading the race's sequence.

    The same inputs as rnn_race (its generator is replayed to the point where it draws X)."""
    rng = np.random.default_rng(seed)
    core.random_rnn(HIDDEN, D_IN, 1.0, rng)               # replay rnn_race's draws (their sizes do not depend
    core.random_head(D_IN, D_K, rng)                      # on its spectral norm), so X is the same sequence
    X = rng.standard_normal((length, D_IN))
    lstm = core.random_lstm(HIDDEN, D_IN, forget_bias, np.random.default_rng([seed, 1]))
    log10 = core.lstm_log10_input_influence(lstm, X)
    with np.errstate(under="ignore", over="ignore"):
        return LstmRace(influence=10.0 ** log10, log10=log10)


RECALL_MAX = 512                                          # pairs drawn once per (d, seed); every k uses the first k
RECALL_TRIALS = 6                                         # draws averaged, so one unlucky draw does not make a bump
RECALL_GRID = tuple(int(k) for k in np.unique(np.round(np.geomspace(1, RECALL_MAX, 28))))


@shared(max_entries=16)
def recall(d: int, seed: int) -> core.RecallCurve:
    """Recall accuracy against k on a fixed grid of k, for a state of d numbers and for attention."""
    return core.recall_curve(d, RECALL_GRID, np.random.default_rng([seed, d]), draw=RECALL_MAX,
                             trials=RECALL_TRIALS)


@shared(max_entries=64)
def recall_at(d: int, k: int, seed: int) -> core.RecallCurve:
    """The same draws as recall(d, seed), at one k."""
    return core.recall_curve(d, [k], np.random.default_rng([seed, d]), draw=RECALL_MAX, trials=RECALL_TRIALS)


@dataclass(frozen=True)
class PathCurves:
    """Path length from token 1 to token N, for N = 2 … 500. Each [499]."""

    lengths: np.ndarray                 # N
    rnn: np.ndarray                     # steps through the chain
    attention: np.ndarray               # steps through attention


@shared(max_entries=1)
def path_curves() -> PathCurves:
    """Path length from token 1 to token N through the chain and through attention, for N = 2 … 500."""
    lengths = np.arange(2, 501)
    paths = [core.path_lengths(n) for n in lengths]
    return PathCurves(lengths, np.array([p["rnn"] for p in paths]), np.array([p["attention"] for p in paths]))
