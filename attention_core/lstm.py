"""A small LSTM beside the tanh RNN, and the limit both share: one fixed-size state for the whole past.

z_t = W_h h_{t−1} + W_x x_t + b, split into four [H] parts (forget, input, candidate, output);
f = σ(z_f), i = σ(z_i), g = tanh(z_g), o = σ(z_o);
c_t = f ⊙ c_{t−1} + i ⊙ g   (the cell: updated by addition), h_t = o ⊙ tanh(c_t); h_0 = c_0 = 0.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._blas import single_threaded_blas
from ._validate import as_matrix, read_only


@dataclass(frozen=True)
class TinyLSTM:
    """W_h: [4H, H], W_x: [4H, d_in], b: [4H]; rows in the order forget, input, candidate, output."""

    W_h: np.ndarray
    W_x: np.ndarray
    b: np.ndarray

    @property
    def hidden(self) -> int:
        return int(self.W_h.shape[1])


@dataclass(frozen=True)
class LSTMTrace:
    """Every step: f, i, g, o, c, h: [T, H] each."""

    f: np.ndarray
    i: np.ndarray
    g: np.ndarray
    o: np.ndarray
    c: np.ndarray
    h: np.ndarray


def random_lstm(hidden: int, d_in: int, forget_bias: float, rng: np.random.Generator,
                weight_scale: float = 0.5) -> TinyLSTM:
    """Random N(0, weight_scale²/(H + d_in)) weights; the forget gate's bias is ``forget_bias``, the others 0.

    A large forget bias keeps f = σ(b_f + …) near 1: the cell passes its content on almost unchanged.
    """
    if not isinstance(rng, np.random.Generator):
        raise ValueError("rng must be a numpy.random.Generator (no global random state).")
    if hidden < 1 or d_in < 1:
        raise ValueError("hidden and d_in must be at least 1.")
    if not np.isfinite(forget_bias):
        raise ValueError("the forget bias must be a finite number.")
    s = weight_scale / np.sqrt(hidden + d_in)
    W_h = rng.standard_normal((4 * hidden, hidden)) * s
    W_x = rng.standard_normal((4 * hidden, d_in)) * s
    b = np.zeros(4 * hidden)
    b[:hidden] = forget_bias
    return TinyLSTM(W_h=W_h, W_x=W_x, b=b)


def lstm_forward(lstm: TinyLSTM, X: object) -> LSTMTrace:
    """Gates, cells and hidden states for inputs X: [T, d_in]. Returns an LSTMTrace of [T, H] arrays."""
    X = as_matrix(X, "X", cols=lstm.W_x.shape[1])
    H, T = lstm.hidden, X.shape[0]
    out = {name: np.empty((T, H)) for name in ("f", "i", "g", "o", "c", "h")}
    h, c = np.zeros(H), np.zeros(H)
    pre = X @ lstm.W_x.T + lstm.b                          # [T, 4H]: the input part of every z_t at once
    for t in range(T):
        z = pre[t] + lstm.W_h @ h                          # [4H]
        gates = 1.0 / (1.0 + np.exp(-z))                   # σ of every part; the candidate part is replaced
        f, i, o = gates[:H], gates[H:2 * H], gates[3 * H:]
        g = np.tanh(z[2 * H:3 * H])
        c = f * c + i * g
        h = o * np.tanh(c)
        for name, value in (("f", f), ("i", i), ("g", g), ("o", o), ("c", c), ("h", h)):
            out[name][t] = value
    return LSTMTrace(**{k: read_only(v) for k, v in out.items()})


def lstm_input_influence(lstm: TinyLSTM, X: object) -> np.ndarray:
    """‖∂(h_T, c_T)/∂x_j‖₂ for j = 1 … T: how much each input still moves the last state. Returns [T].

    A norm below the smallest double comes out 0: ``lstm_log10_input_influence`` keeps it.
    """
    with np.errstate(under="ignore", over="ignore"):
        return 10.0 ** lstm_log10_input_influence(lstm, X)


def lstm_log10_input_influence(lstm: TinyLSTM, X: object) -> np.ndarray:
    """log₁₀ ‖∂(h_T, c_T)/∂x_j‖₂ for j = 1 … T, finite far below the smallest double. Returns [T].

    The state is s_t = (h_t, c_t). With A_t = ∂s_t/∂z_t, ∂s_t/∂x_t = A_t W_x, ∂s_t/∂h_{t−1} = A_t W_h and
    ∂c_t/∂c_{t−1} = diag(f_t) (the additive path), ∂h_t/∂c_{t−1} = diag(o_t (1 − tanh² c_t) f_t).
    ∂s_T/∂s_t is carried as a matrix of largest entry 1 and the log₁₀ of its scale, so it never underflows.
    """
    X = as_matrix(X, "X", cols=lstm.W_x.shape[1])
    tr = lstm_forward(lstm, X)
    H, T = lstm.hidden, X.shape[0]
    f, i, g, o, c = tr.f, tr.i, tr.g, tr.o, tr.c           # [T, H] each
    c_prev = np.vstack([np.zeros((1, H)), c[:-1]])
    tc = np.tanh(c)
    dh_dc = o * (1 - tc ** 2)                              # [T, H]
    # ∂c_t/∂z_t and ∂h_t/∂z_t, part by part (forget, input, candidate, output): [T, 4, H]; unit u of z's part k
    # moves unit u of c and h only, so each is a diagonal, kept as its diagonal
    dc_dz = np.stack([c_prev * f * (1 - f), g * i * (1 - i), i * (1 - g ** 2), np.zeros_like(c)], axis=1)
    dh_dz = dc_dz * dh_dc[:, None, :]
    dh_dz[:, 3] = tc * o * (1 - o)
    D = np.stack([dh_dz, dc_dz], axis=1)                  # [T, 2, 4, H]: ∂(h_t, c_t)/∂z_t
    C = np.stack([dh_dc * f, f], axis=1)                   # [T, 2, H]: ∂(h_t, c_t)/∂c_{t−1}, the direct cell path
    W = np.concatenate([lstm.W_x, lstm.W_h], axis=1)       # [4H, d_in + H]: z_t's inputs x_t and h_{t−1}
    d_in = lstm.W_x.shape[1]
    G = np.eye(2 * H).reshape(2 * H, 2, 1, H)              # ∂s_T/∂s_t / 10^scale, from t = T, split into (h, c)
    per_input = np.zeros((T, 2 * H, d_in))                 # ∂s_T/∂x_t / 10^scale[t] for every t
    scale = np.zeros(T)
    running = 0.0
    with single_threaded_blas():                           # small products: see _blas.py
        for t in range(T - 1, -1, -1):
            scale[t] = running
            P = (G * D[t]).sum(axis=1).reshape(2 * H, 4 * H) @ W      # ∂s_T/∂z_t, then through W: [2H, d_in + H]
            per_input[t] = P[:, :d_in]
            G = np.concatenate([P[:, d_in:], (G[:, :, 0] * C[t]).sum(axis=1)], axis=1)
            size = float(np.abs(G).max())
            if size == 0.0:                                # nothing earlier reaches s_T
                scale[:t] = -np.inf
                break
            G, running = (G / size).reshape(2 * H, 2, 1, H), running + np.log10(size)
        norms = np.linalg.svd(per_input, compute_uv=False)[:, 0]   # the spectral norm of each, in one call
    with np.errstate(divide="ignore"):
        return scale + np.log10(norms)


# ── the fixed-size state: k key → value facts held in d numbers ──────────────────────────────────────────────


@dataclass(frozen=True)
class RecallCurve:
    """Recall accuracy against the number of stored pairs k, for a state of d numbers and for attention.

    pairs: [n] values of k. additive: [n] fraction recalled from a state written by addition, s = Σ_j y_j k_j
    (what an LSTM cell with f = i = 1 accumulates); best_state: [n] the same from the best d numbers any
    linear read-out allows (least squares); attention: [n] fraction recalled by attention over all k stored
    pairs; comparisons: [n] key comparisons attention makes per recall (k).
    """

    d: int
    pairs: np.ndarray
    additive: np.ndarray
    best_state: np.ndarray
    attention: np.ndarray
    comparisons: np.ndarray


def random_pairs(k: int, d: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """k random unit keys [k, d] and k random ±1 values [k] (one yes/no fact per key)."""
    if not isinstance(rng, np.random.Generator):
        raise ValueError("rng must be a numpy.random.Generator (no global random state).")
    if k < 1 or d < 1:
        raise ValueError("k and d must be at least 1.")
    keys = rng.standard_normal((k, d))
    values = np.where(rng.standard_normal(k) < 0, -1.0, 1.0)
    return keys / np.linalg.norm(keys, axis=1, keepdims=True), values


def additive_state(keys: np.ndarray, values: np.ndarray) -> np.ndarray:
    """s = Σ_j y_j k_j: [d]. Each pair is added into the same d numbers, as a cell that only adds."""
    return values @ keys


def best_state(keys: np.ndarray, values: np.ndarray) -> np.ndarray:
    """The d numbers s that make K s closest to y (least squares, minimum norm): [d]. Exact while k ≤ d."""
    return np.linalg.lstsq(keys, values, rcond=None)[0]


def recall_from_state(state: np.ndarray, keys: np.ndarray) -> np.ndarray:
    """The fact recalled for each key: sign(s · k_j). Returns [k] of ±1 (0 counts as wrong)."""
    return np.sign(keys @ state)


def recall_by_attention(keys: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Each key as a query over all k stored keys (k comparisons): the value with the largest weight. [k]."""
    scores = keys @ keys.T / np.sqrt(keys.shape[1])        # [k, k]; softmax keeps the order, so argmax suffices
    return values[np.argmax(scores, axis=1)]


def recall_curve(d: int, pairs: object, rng: np.random.Generator, draw: int | None = None,
                 trials: int = 1) -> RecallCurve:
    """Accuracy of recalling every stored fact, for each k in ``pairs``, averaged over ``trials`` random draws.

    Each trial draws ``draw`` pairs (by default the largest k) and every k uses the first k of them, so curves
    made with the same ``draw``, ``trials`` and seed share their pairs.
    """
    ks = np.asarray(pairs, dtype=int)
    if ks.ndim != 1 or ks.size == 0 or ks.min() < 1:
        raise ValueError("pairs must be a non-empty list of whole numbers ≥ 1.")
    draw = int(ks.max()) if draw is None else int(draw)
    if draw < ks.max():
        raise ValueError(f"cannot take {ks.max()} pairs from a draw of {draw}.")
    if trials < 1:
        raise ValueError("trials must be at least 1.")
    additive, best, att = (np.zeros(ks.size) for _ in range(3))
    with single_threaded_blas():                           # small products: see _blas.py
        _recall_trials(int(d), ks, rng, draw, int(trials), additive, best, att)
    return RecallCurve(d=int(d), pairs=read_only(ks.copy()), additive=read_only(additive / trials),
                       best_state=read_only(best / trials), attention=read_only(att / trials),
                       comparisons=read_only(ks.astype(float)))


def _recall_trials(d: int, ks: np.ndarray, rng: np.random.Generator, draw: int, trials: int, additive: np.ndarray,
                   best: np.ndarray, att: np.ndarray) -> None:
    """Add each trial's accuracy into ``additive``, ``best`` and ``att`` ([len(ks)] each; the caller averages).

    The best state is best_state's least-squares solution, found more cheaply: for k > d from the normal
    equations (KᵀK) s = Kᵀy, with KᵀK and Kᵀy summed over the pairs as k grows; for k ≤ d as Kᵀ(KKᵀ)⁻¹y.
    """
    order = np.argsort(ks)
    for _ in range(trials):
        keys, values = random_pairs(draw, d, rng)
        top = int(ks.max())
        scores = keys[:top] @ keys[:top].T                 # every comparison attention could make: [k, k]
        gram, moment, done = np.zeros((d, d)), np.zeros(d), 0
        for n in order:
            k = int(ks[n])
            K, y = keys[:k], values[:k]
            gram += keys[done:k].T @ keys[done:k]
            moment += values[done:k] @ keys[done:k]
            done = max(done, k)
            # k ≤ d: the minimum-norm exact solution s = Kᵀ(KKᵀ)⁻¹y, with KKᵀ read from the scores already made
            state = K.T @ np.linalg.solve(scores[:k, :k], y) if k <= d else np.linalg.solve(gram, moment)
            additive[n] += np.mean(recall_from_state(additive_state(K, y), K) == y)
            best[n] += np.mean(recall_from_state(state, K) == y)
            att[n] += np.mean(values[np.argmax(scores[:k, :k], axis=1)] == y)
