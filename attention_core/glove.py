"""Static word vectors (GloVe 6B, 50-d, the 50,000 most frequent words) and a 2-D view of them.

One vector per word, whatever the sentence: the contrast the attention lab needs, where "bank"
gets a different vector by the river than at the till.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ._validate import excerpt

GLOVE_FILE = Path(__file__).resolve().parent.parent / "assets" / "glove" / "glove_6b_50d_50k.npz"


class Glove:
    """words: [N]; vectors: [N, 50] float32; unit: the same rows scaled to length 1 (for cosine)."""

    def __init__(self, words: list[str], vectors: np.ndarray):
        self.words = words
        self.vectors = vectors                                                   # [N, d]
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        self.unit = vectors / np.maximum(norms, 1e-12)                           # [N, d]
        self.index = {w: i for i, w in enumerate(words)}

    def __contains__(self, word: str) -> bool:
        return word.strip().lower() in self.index

    def vector(self, word: str) -> np.ndarray:
        """The word's vector [d]. GloVe 6B is lowercase; raises ValueError for a word it lacks."""
        i = self.index.get(word.strip().lower())
        if i is None:
            raise ValueError(f"'{excerpt(word)}' is not among the {len(self.words):,} most frequent GloVe words.")
        return self.vectors[i]

    def nearest(self, word_or_vector: str | np.ndarray, k: int = 10) -> list[tuple[str, float]]:
        """The k words of highest cosine similarity cos(u, v) = u·v / (|u| |v|), best first.

        A word is left out of its own neighbours; a vector [d] is compared as given.
        """
        if isinstance(word_or_vector, str):
            query, exclude = self.vector(word_or_vector), {self.index[word_or_vector.strip().lower()]}
        else:
            query, exclude = np.asarray(word_or_vector, dtype=np.float32), set()
            if query.shape != (self.vectors.shape[1],):
                raise ValueError(f"The vector must have {self.vectors.shape[1]} entries, got shape {query.shape}.")
        norm = float(np.linalg.norm(query))
        if norm == 0.0 or not np.isfinite(norm):
            raise ValueError("The vector must be finite and not all zeros to have a direction.")
        cosines = self.unit @ (query / norm)                                     # [N]
        k = max(0, min(int(k), len(self.words) - len(exclude)))
        top = np.argsort(-cosines, kind="stable")[: k + len(exclude)]
        return [(self.words[i], float(cosines[i])) for i in top if i not in exclude][:k]


def pca_2d(X: np.ndarray) -> np.ndarray:
    """The rows of X projected on their two principal axes (SVD of the centred data). [n, d] → [n, 2].

    Signs are fixed so the largest-magnitude coordinate on each axis is positive (stable plots).
    """
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2 or X.shape[0] < 2:
        raise ValueError(f"PCA needs at least two row vectors, got shape {X.shape}.")
    centred = X - X.mean(axis=0)                                                 # [n, d]
    U, S, _ = np.linalg.svd(centred, full_matrices=False)                        # U: [n, r], S: [r]
    coords = U[:, :2] * S[:2]                                                    # [n, ≤2]
    if coords.shape[1] < 2:
        coords = np.pad(coords, ((0, 0), (0, 2 - coords.shape[1])))
    flip = np.sign(coords[np.abs(coords).argmax(axis=0), [0, 1]])
    return coords * np.where(flip == 0, 1.0, flip)


def load_glove() -> Glove:
    """GloVe 6B 50-d from the committed npz. Each call loads a new copy: the app caches it once
    (ui/models.py)."""
    with np.load(GLOVE_FILE) as npz:
        return Glove(npz["words"].tolist(), npz["vectors"].astype(np.float32))
