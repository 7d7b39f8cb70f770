"""A tiny tanh RNN, to see how little of token 1 survives a long chain of steps.

h_t = tanh(W_hh h_{t−1} + W_xh x_t + b), with h_0 = 0.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._validate import as_matrix, as_vector


def gradient_bound(spectral_norm: float, steps: object) -> np.ndarray:
    """‖J‖^k: the upper bound on how much a signal shrinks across k steps whose Jacobians have norm ‖J‖."""
    rho = float(spectral_norm)
    if not np.isfinite(rho) or rho < 0:
        raise ValueError(f"spectral norm must be a finite number ≥ 0, got {spectral_norm}.")
    k = np.asarray(steps, dtype=np.float64)
    if np.any(k < 0):
        raise ValueError("the number of steps must be ≥ 0.")
    with np.errstate(over="ignore"):
        return rho ** k


@dataclass(frozen=True)
class TinyRNN:
    """W_hh: [H, H] with spectral norm set on construction; W_xh: [H, d_in]; b: [H]."""

    W_hh: np.ndarray
    W_xh: np.ndarray
    b: np.ndarray


def random_rnn(hidden: int, d_in: int, spectral_norm: float, rng: np.random.Generator) -> TinyRNN:
    """A random RNN whose recurrent matrix has exactly the given spectral norm (largest singular value)."""
    if not isinstance(rng, np.random.Generator):
        raise ValueError("rng must be a numpy.random.Generator (no global random state).")
    if hidden < 1 or d_in < 1:
        raise ValueError("hidden and d_in must be at least 1.")
    W = rng.standard_normal((hidden, hidden))
    W_hh = W * (float(spectral_norm) / np.linalg.norm(W, ord=2))
    W_xh = rng.standard_normal((hidden, d_in)) / np.sqrt(d_in)
    return TinyRNN(W_hh=W_hh, W_xh=W_xh, b=np.zeros(hidden))


def rnn_forward(rnn: TinyRNN, X: object) -> np.ndarray:
    """Hidden states for inputs X: [T, d_in]. Returns H: [T, hidden] (h_1 … h_T)."""
    X = as_matrix(X, "X", cols=rnn.W_xh.shape[1])
    h = np.zeros(rnn.W_hh.shape[0])
    out = np.empty((X.shape[0], h.shape[0]))
    for t, x in enumerate(X):
        h = np.tanh(rnn.W_hh @ h + rnn.W_xh @ x + rnn.b)  # [hidden]
        out[t] = h
    return out


def input_influence(rnn: TinyRNN, X: object) -> np.ndarray:
    """‖∂h_T/∂x_j‖₂ for j = 1 … T: how much of each input still reaches the last state. Returns [T].

    ∂h_T/∂x_j = [∏_{t=j+1}^{T} diag(1 − h_t²) W_hh] diag(1 − h_j²) W_xh, accumulated from the end.
    """
    H = rnn_forward(rnn, X)                               # [T, hidden]
    T = H.shape[0]
    G = np.eye(H.shape[1])                                # ∂h_T/∂h_t, starting at t = T
    influence = np.empty(T)
    for t in range(T - 1, -1, -1):
        local = G * (1.0 - H[t] ** 2)                     # ∂h_T/∂(pre-activation at t): [hidden, hidden]
        influence[t] = np.linalg.norm(local @ rnn.W_xh, ord=2)
        G = local @ rnn.W_hh
    return influence


@dataclass(frozen=True)
class ChainFactors:
    """What each recurrent step really multiplies a gradient by, along one sequence.

    slopes: [T, hidden], tanh'(pre-activation) = 1 − h_t², each in (0, 1];
    step_norms: [T − 1], ‖diag(1 − h_t²) W_hh‖₂ for t = 2 … T, each ≤ ‖W_hh‖₂.
    """

    slopes: np.ndarray
    step_norms: np.ndarray

    @property
    def mean_slope(self) -> float:
        return float(self.slopes.mean())

    @property
    def typical_step(self) -> float:
        """The geometric mean of the step norms: the factor a step shrinks or stretches by, on average."""
        if not self.step_norms.size:
            return 1.0
        with np.errstate(divide="ignore"):                # a fully saturated step has norm 0: the mean is 0
            return float(np.exp(np.log(self.step_norms).mean()))

    @property
    def product(self) -> float:
        """∏ ‖J_t‖, a ceiling on ‖∂h_T/∂h_1‖ that knows the real slopes (tighter than ‖W_hh‖^(T−1))."""
        with np.errstate(divide="ignore", under="ignore"):
            return float(np.exp(np.log(self.step_norms).sum()))


def chain_factors(rnn: TinyRNN, X: object) -> ChainFactors:
    """The real Jacobians J_t = diag(1 − h_t²) W_hh of the chain on inputs X: [T, d_in], by their norms."""
    H = rnn_forward(rnn, X)                               # [T, hidden]
    slopes = 1.0 - H ** 2                                 # [T, hidden]
    norms = np.array([np.linalg.norm(s[:, None] * rnn.W_hh, ord=2) for s in slopes[1:]])   # [T − 1]
    return ChainFactors(slopes=slopes, step_norms=norms)


def path_lengths(n: int) -> dict[str, int]:
    """Steps a signal takes from token 1 to token n: n − 1 through a recurrence, 1 through attention."""
    n = int(as_vector([n], "n")[0])
    if n < 1:
        raise ValueError("sequence length must be at least 1.")
    return {"rnn": n - 1, "attention": min(1, n - 1)}
