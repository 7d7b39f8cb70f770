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


def log10_gradient_bound(spectral_norm: float, steps: int) -> float:
    """log₁₀ ‖J‖^k = k log₁₀ ‖J‖: the bound's size where ‖J‖^k itself underflows (0.1⁴⁹⁹ = 10⁻⁴⁹⁹)."""
    rho = float(spectral_norm)
    if not np.isfinite(rho) or rho < 0 or steps < 0:
        raise ValueError(f"spectral norm must be a finite number ≥ 0 and steps ≥ 0, got {spectral_norm}, {steps}.")
    with np.errstate(divide="ignore"):
        return float(steps * np.log10(rho)) if steps else 0.0


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

    ∂h_T/∂x_j = [∏_{t=j+1}^{T} diag(1 − h_t²) W_hh] diag(1 − h_j²) W_xh, accumulated from the end. A norm
    below the smallest double comes out 0: ``log10_input_influence`` keeps it.
    """
    with np.errstate(under="ignore"):
        return 10.0 ** log10_input_influence(rnn, X)


def log10_input_influence(rnn: TinyRNN, X: object) -> np.ndarray:
    """log₁₀ ‖∂h_T/∂x_j‖₂ for j = 1 … T, finite far below the smallest double (10⁻³⁷¹ at T = 500). Returns [T].

    The product ∂h_T/∂h_t is carried as a matrix of largest entry 1 and the log₁₀ of its scale, so a long
    chain of factors below 1 never underflows. −inf only where a step is exactly flat (every slope 0).
    """
    H = rnn_forward(rnn, X)                               # [T, hidden]
    T = H.shape[0]
    G, scale = np.eye(H.shape[1]), 0.0                    # ∂h_T/∂h_t = 10^scale · G, starting at t = T
    influence = np.full(T, -np.inf)
    for t in range(T - 1, -1, -1):
        local = G * (1.0 - H[t] ** 2)                     # ∂h_T/∂(pre-activation at t) / 10^scale: [hidden, hidden]
        with np.errstate(divide="ignore"):
            influence[t] = scale + np.log10(np.linalg.norm(local @ rnn.W_xh, ord=2))
        G = local @ rnn.W_hh
        size = float(np.abs(G).max())
        if size == 0.0:                                   # nothing earlier reaches h_T
            break
        G, scale = G / size, scale + np.log10(size)
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
        with np.errstate(under="ignore", over="ignore"):
            return float(10.0 ** self.log10_product)

    @property
    def log10_product(self) -> float:
        """log₁₀ ∏ ‖J_t‖: the product's size where the product itself would underflow (−inf if a step is flat)."""
        with np.errstate(divide="ignore"):
            return float(np.log10(self.step_norms).sum())


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
