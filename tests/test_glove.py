"""GloVe helper: neighbours checked against a brute-force cosine computed here, PCA against eigh."""

from __future__ import annotations

import numpy as np
import pytest

from attention_core import load_glove, pca_2d
from attention_core.glove import GLOVE_FILE


@pytest.fixture(scope="module")
def glove():
    return load_glove()


@pytest.fixture(scope="module")
def raw():
    with np.load(GLOVE_FILE) as npz:
        return list(npz["words"]), npz["vectors"].astype(np.float64)


def brute_force_nearest(words, vectors, query, k, exclude=None):
    cos = np.array([v @ query / (np.linalg.norm(v) * np.linalg.norm(query)) for v in vectors])
    order = [i for i in np.argsort(-cos) if words[i] != exclude]
    return [words[i] for i in order[:k]], cos


def test_assets_shape(glove):
    assert len(glove.words) == 50_000 and glove.vectors.shape == (50_000, 50)
    assert glove.words[:4] == ["the", ",", ".", "of"]                     # GloVe's frequency order


def test_vector_is_the_stored_row(glove, raw):
    words, vectors = raw
    np.testing.assert_allclose(glove.vector("Bank"), vectors[words.index("bank")], rtol=1e-6)
    with pytest.raises(ValueError, match="not among"):
        glove.vector("qwzxqwzx")


def test_nearest_bank_matches_brute_force_and_leans_to_finance(glove, raw):
    words, vectors = raw
    got = glove.nearest("bank", 10)
    expected, cos = brute_force_nearest(words, vectors, vectors[words.index("bank")], 10, exclude="bank")
    assert [w for w, _ in got] == expected
    np.testing.assert_allclose([c for _, c in got], [cos[words.index(w)] for w in expected], atol=1e-5)
    # Finance-ish: the neighbours sit closer to "money" than to "river" (cosines computed here).
    unit = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    nb = unit[[words.index(w) for w in expected]]
    assert (nb @ unit[words.index("money")]).mean() > (nb @ unit[words.index("river")]).mean() + 0.2


def test_nearest_by_vector_includes_the_word_itself(glove):
    (first, cos), *_ = glove.nearest(glove.vector("river"), 3)
    assert first == "river" and cos == pytest.approx(1.0, abs=1e-5)


def test_nearest_rejects_bad_vectors(glove):
    with pytest.raises(ValueError):
        glove.nearest(np.zeros(50), 3)
    with pytest.raises(ValueError):
        glove.nearest(np.ones(3), 3)


def test_pca_2d_matches_covariance_eigenvectors():
    X = np.random.default_rng(1).normal(size=(30, 6)) * [5, 3, 1, 0.5, 0.2, 0.1]
    Y = pca_2d(X)
    centred = X - X.mean(axis=0)
    _, vecs = np.linalg.eigh(centred.T @ centred)
    top = vecs[:, ::-1][:, :2]
    expected = centred @ top
    for j in range(2):                                                     # equal up to the sign of each axis
        assert np.allclose(Y[:, j], expected[:, j], atol=1e-9) or np.allclose(Y[:, j], -expected[:, j], atol=1e-9)
    assert Y[:, 0].var() >= Y[:, 1].var()
    np.testing.assert_allclose(Y.mean(axis=0), 0, atol=1e-9)


def test_pca_2d_sign_is_stable_and_edge_cases():
    X = np.random.default_rng(2).normal(size=(10, 4))
    Y = pca_2d(X)
    assert all(Y[np.abs(Y[:, j]).argmax(), j] > 0 for j in range(2))
    assert pca_2d(np.array([[0.0, 1.0], [2.0, 3.0]])).shape == (2, 2)     # rank 1: second axis all zero
    with pytest.raises(ValueError):
        pca_2d(np.ones(5))
