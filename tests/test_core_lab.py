"""The lab's core helpers on real model runs, checked against numpy computed here by hand and against
properties of the model: a word's lookup is the same in every sentence, and so is its layer-0 vector
when it sits at the same position."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import attention_core as core

RIVER, CASH = "I sat on the muddy river bank", "I deposited cash at the bank"


@pytest.fixture(scope="module")
def model():
    return core.load_model()


def hand_cosine(u, v):
    u, v = np.asarray(u, dtype=np.float64), np.asarray(v, dtype=np.float64)
    return float(sum(a * b for a, b in zip(u, v, strict=True)) / (np.sqrt((u * u).sum()) * np.sqrt((v * v).sum())))


def test_cosine_by_layer_matches_a_hand_computed_cosine_on_the_hidden_states(model):
    a, b = model.run(RIVER), model.run(CASH)
    i, j = a.tokens.index("bank"), b.tokens.index("bank")
    got = core.cosine_by_layer(core.contextual_vector(a, "bank"), core.contextual_vector(b, "bank"))
    want = [hand_cosine(a.hidden_states[layer, i], b.hidden_states[layer, j]) for layer in range(7)]
    np.testing.assert_allclose(got, want, atol=1e-6)


def test_lookup_is_identical_across_sentences_and_attention_pulls_the_senses_apart(model):
    wte = model.params["wte"]
    river, cash = core.layer_vectors(model.run(RIVER), "bank", wte), core.layer_vectors(model.run(CASH), "bank", wte)
    cos = core.cosine_by_layer(river, cash)
    np.testing.assert_array_equal(river[0], cash[0])                     # the lookup: one table row
    assert cos[0] == pytest.approx(1.0, abs=1e-12)
    assert 0.95 < cos[1] < 1.0                                          # layer 0: only the position differs
    assert cos[-1] < cos[1] - 0.1                                       # after attention: clearly apart


WORDS = ["bank", "river", "money", "the", "cat", "play", "light"]


@settings(max_examples=15)
@given(st.lists(st.sampled_from(WORDS), min_size=2, max_size=6), st.lists(st.sampled_from(WORDS), min_size=2,
       max_size=6), st.sampled_from(WORDS))
def test_layer_zero_is_identical_for_the_same_word_at_the_same_position(model, before, after_a, word):
    """Layer 0 = LayerNorm(word + position + type): the rest of the sentence cannot reach it."""
    a = model.run(" ".join([*before, word, *after_a]))
    b = model.run(" ".join([*before, word, *reversed(after_a), "today"]))
    pos = len(before) + 1                                               # after [CLS]
    np.testing.assert_array_equal(a.hidden_states[0, pos], b.hidden_states[0, pos])


def test_a_split_word_is_the_mean_of_its_pieces(model):
    run = model.run("The snorkelling trip was fun")
    w = core.find_word(run.tokens, "Snorkelling")
    assert w is not None and w.stop - w.start > 1, run.tokens          # split into several pieces
    np.testing.assert_allclose(core.contextual_vector(run, "snorkelling"),
                               run.hidden_states[:, w.start:w.stop].mean(axis=1))
    assert core.word_pieces("snorkelling", model.tokenizer.vocab) == run.tokens[w.start:w.stop]


def test_words_of_groups_pieces_and_skips_specials():
    words = core.words_of(["[CLS]", "mud", "##dy", "bank", "[SEP]"])
    assert [(w.text, w.start, w.stop) for w in words] == [("muddy", 1, 3), ("bank", 3, 4)]


def test_find_word_normalises_and_refuses_phrases(model):
    run = model.run("Café au lait")
    assert core.find_word(run.tokens, "CAFÉ") is not None
    assert core.find_word(run.tokens, "tea") is None
    with pytest.raises(ValueError):
        core.find_word(run.tokens, "two words")
    with pytest.raises(ValueError):
        core.contextual_vector(run, "tea")


def test_head_average_is_the_mean_of_the_heads_and_rows_sum_to_one(model):
    run = model.run(RIVER)
    avg = core.attention_map(run.attentions, 2, None)
    np.testing.assert_allclose(avg, sum(run.attentions[2, h] for h in range(12)) / 12, atol=1e-6)
    np.testing.assert_array_equal(core.attention_map(run.attentions, 2, 5), run.attentions[2, 5])
    np.testing.assert_allclose(avg.sum(axis=1), 1.0, atol=1e-5)
    with pytest.raises(ValueError):
        core.attention_map(run.attentions, 6, 0)
    with pytest.raises(ValueError):
        core.attention_map(run.attentions, 0, 12)


def test_top_keys_against_a_loop():
    row = np.array([0.1, 0.4, 0.05, 0.4, 0.05])
    assert core.top_keys(row, 3) == [(1, 0.4), (3, 0.4), (0, 0.1)]


def test_rank_by_cosine_and_sense_means_against_hand_values():
    q = np.array([1.0, 0.0])
    C = np.array([[0.0, 1.0], [1.0, 1.0], [2.0, 0.0]])
    order, cos = core.rank_by_cosine(q, C)
    np.testing.assert_allclose(cos, [0.0, 1 / np.sqrt(2), 1.0])
    assert order.tolist() == [2, 1, 0]
    assert core.sense_means(cos, ["a", "b", "a"]) == pytest.approx({"a": 0.5, "b": 1 / np.sqrt(2)})


def test_static_map_is_the_pca_of_the_glove_vectors():
    glove = core.load_glove()
    found, coords, missing = core.static_map(glove, ["bank", "river", "money", "zzqxv"])
    assert found == ["bank", "river", "money"] and missing == ["zzqxv"]
    X = np.stack([glove.vector(w) for w in found]).astype(np.float64)
    centred = X - X.mean(axis=0)
    # PCA keeps the pairwise distances within the plane: the centred data has rank 2 for three points.
    d_full = np.linalg.norm(centred[:, None] - centred[None], axis=-1)
    d_map = np.linalg.norm(coords[:, None] - coords[None], axis=-1)
    np.testing.assert_allclose(d_map, d_full, atol=1e-4)
    with pytest.raises(ValueError):
        core.static_map(glove, ["bank", "zzqxv"])


def test_cosine_by_layer_rejects_mismatched_stacks():
    with pytest.raises(ValueError):
        core.cosine_by_layer(np.ones((8, 3)), np.ones((7, 3)))


@pytest.mark.parametrize("text", ["\x00\x00 bank", "שלום bank", "🙂 bank 🙂", "bank " * 2000])
def test_awkward_text_still_finds_the_word(model, text):
    run = model.run(text)
    assert core.contextual_vector(run, "bank").shape == (7, 384)
