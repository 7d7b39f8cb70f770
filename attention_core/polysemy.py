"""Static word vectors versus context: one blend of a sentence, and the high-dimension experiment.

A static embedding gives an ambiguous word one point; attention gives it a weighted blend of its
sentence, z = Σ_j α_j x_j with α = softmax(X x / T).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._validate import as_matrix, as_vector
from .softmax import entropy, softmax


@dataclass(frozen=True)
class ContextTrace:
    """x: [d] the word's static vector; X: [n, d] the tokens it attends to.

    scores = X x: [n]; weights = softmax(scores / T): [n]; z = weights X: [d].
    """

    x: np.ndarray
    X: np.ndarray
    scores: np.ndarray
    weights: np.ndarray
    z: np.ndarray

    @property
    def contributions(self) -> np.ndarray:
        """α_j x_j: [n, d], each token's part of z; its rows add up to z."""
        return self.weights[:, None] * self.X

    @property
    def shift(self) -> np.ndarray:
        """z − x: how far, and which way, the context moved the word."""
        return self.z - self.x

    @property
    def entropy(self) -> float:
        """Spread of the weights in nats: log n when uniform, 0 when all on one token."""
        return float(entropy(self.weights))


def contextualize(x: object, X: object, temperature: float = 1.0) -> ContextTrace:
    """The contextual vector of a word with static vector x: [d] among tokens X: [n, d]."""
    x = as_vector(x, "x")
    X = as_matrix(X, "X", cols=x.shape[0])
    scores = X @ x                                        # [n]
    weights = softmax(scores, temperature=temperature)    # [n]
    return ContextTrace(x=x, X=X, scores=scores, weights=weights, z=weights @ X)


@dataclass(frozen=True)
class SenseExperiment:
    """Averages over trials, in d dimensions, of the distances from one static vector to two senses.

    dist_a, dist_b: ‖static − sense‖ for each sense; dist_senses: ‖sense_a − sense_b‖;
    dist_context: ‖z − sense_a‖ for z the blend of sense-a uses only (what context gives).
    """

    d: int
    dist_a: float
    dist_b: float
    dist_senses: float
    dist_context: float

    @property
    def relative_gap(self) -> float:
        """|dist_a − dist_b| as a fraction of the distance between the senses: ≈ 0 at every d."""
        return abs(self.dist_a - self.dist_b) / self.dist_senses


def sense_experiment(d: int, rng: np.random.Generator, uses: int = 16, noise: float = 0.5,
                     trials: int = 8) -> SenseExperiment:
    """Two random senses of one word in d dimensions, each used ``uses`` times with noise.

    Sense vectors a, b ~ N(0, I/d) (length ≈ 1). Each use is its sense plus noise·N(0, I/d).
    The static vector is the mean of all uses, as a static model trained on both kinds of sentence
    ends up; the contextual vector is the mean of sense-a uses only.
    """
    if not isinstance(rng, np.random.Generator):
        raise ValueError("rng must be a numpy.random.Generator (no global random state).")
    d, uses, trials = int(d), int(uses), int(trials)
    if d < 1 or uses < 1 or trials < 1:
        raise ValueError(f"d, uses and trials must be at least 1, got d={d}, uses={uses}, trials={trials}.")
    sums = np.zeros(4)
    for _ in range(trials):
        a, b = rng.standard_normal((2, d)) / np.sqrt(d)                    # [d] each
        uses_a = a + noise * rng.standard_normal((uses, d)) / np.sqrt(d)   # [uses, d]
        uses_b = b + noise * rng.standard_normal((uses, d)) / np.sqrt(d)   # [uses, d]
        static = np.vstack([uses_a, uses_b]).mean(axis=0)                 # [d]
        context = uses_a.mean(axis=0)                                      # [d]
        sums += [np.linalg.norm(static - a), np.linalg.norm(static - b),
                 np.linalg.norm(a - b), np.linalg.norm(context - a)]
    dist_a, dist_b, dist_senses, dist_context = sums / trials
    return SenseExperiment(d=d, dist_a=float(dist_a), dist_b=float(dist_b), dist_senses=float(dist_senses),
                           dist_context=float(dist_context))
