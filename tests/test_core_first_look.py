"""The first look's pass through the first layer: its numbers are the Lab's for the same sentences.

The Lab reads a sentence through ``MiniLM.run`` (every layer, ``attentions`` and ``hidden_states``) and compares a
word across sentences with ``layer_vectors`` and ``cosine_by_layer``; the first look recomputes the first block on
its own, every stage kept (``first_pass``). Two code paths, so compared with a tolerance.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

import numpy as np
import pytest

import attention_core as core

SENTENCES = tomllib.loads((Path(__file__).resolve().parent.parent / "assets" / "lessons" / "first_look.toml")
                          .read_text(encoding="utf-8"))["sentences"]
RIVER, TILL, WORD, FAR = SENTENCES["river"], SENTENCES["till"], SENTENCES["word"], SENTENCES["far"]


@pytest.fixture(scope="module")
def model():
    return core.load_model()


@pytest.fixture(scope="module")
def passes(model):
    river = core.first_pass(model, RIVER, WORD, toward=FAR)
    return river, core.first_pass(model, TILL, WORD, head=river.head)


@pytest.mark.parametrize("which", [0, 1])
def test_the_first_layers_weights_and_output_are_the_labs(model, passes, which):
    p = passes[which]
    lab = model.run((RIVER, TILL)[which])
    assert p.tokens == tuple(lab.tokens)
    np.testing.assert_allclose(p.block.weights, lab.attentions[0], atol=1e-5)      # every head, [12, T, T]
    np.testing.assert_allclose(p.block.x, lab.hidden_states[0], atol=1e-5)          # embedded, with positions
    np.testing.assert_allclose(p.block.output, lab.hidden_states[1], atol=1e-4)     # the block's output
    # The head the animation shows, replayed through the formula, is that head's row of the Lab's weights.
    np.testing.assert_allclose(p.trace.weights, lab.attentions[0, p.head], atol=1e-5)
    np.testing.assert_allclose(p.weights, lab.attentions[0, p.head, p.word.start], atol=1e-5)
    assert p.weights.sum() == pytest.approx(1.0, abs=1e-5)


def test_the_bank_cosine_is_the_labs_at_the_lookup_the_embedding_and_layer_one(model, passes):
    wte = model.params["wte"]
    lab = core.cosine_by_layer(core.layer_vectors(model.run(RIVER), WORD, wte),
                               core.layer_vectors(model.run(TILL), WORD, wte))        # lookup, layer 0, layer 1 …
    same = core.same_word(*passes)
    assert same.lookup == pytest.approx(lab[0], abs=1e-5)
    assert same.embedded == pytest.approx(lab[1], abs=1e-5)
    assert same.output == pytest.approx(lab[2], abs=1e-5)
    assert same.lookup == pytest.approx(1.0, abs=1e-6)           # the same word in: the same lookup row
    assert same.output < same.embedded < 1.0                     # different out, and the layer did more than position


def test_the_head_shown_is_the_one_looking_hardest_at_the_far_word(model, passes):
    river = passes[0]
    lab = model.run(RIVER).attentions[0]
    far = core.find_word(list(river.tokens), FAR)
    shares = lab[:, river.word.start, far.start:far.stop].sum(axis=-1)               # [12]
    assert shares[river.head] == pytest.approx(shares.max(), abs=1e-6)
    assert passes[1].head == river.head


def test_strongest_head_picks_the_largest_share_and_the_first_on_a_tie():
    W = np.full((3, 4, 4), 0.25)
    hit = core.Word("b", 1, 2)
    far = core.Word("d", 3, 4)
    assert core.strongest_head(W, hit, far) == 0                    # all equal: the first
    W[2, 1] = [0.1, 0.1, 0.1, 0.7]
    assert core.strongest_head(W, hit, far) == 2
    W[1, 1] = [0.1, 0.1, 0.1, 0.7]
    assert core.strongest_head(W, hit, far) == 1                    # a tie between 1 and 2: the first


def test_a_sentence_without_the_word_or_a_bad_head_is_refused(model):
    with pytest.raises(ValueError, match="not among"):
        core.first_pass(model, "I sat on the shore", WORD)
    with pytest.raises(ValueError, match="head must be"):
        core.first_pass(model, RIVER, WORD, head=12)
