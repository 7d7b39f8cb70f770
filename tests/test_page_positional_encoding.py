"""The word-order page: a shuffle moves the outputs with their words (positions off), positions break that,
the tables follow their sliders, and rotary's score follows the offset alone. Expectations are computed here
from the core and the model, not read off the page."""

from __future__ import annotations

import numpy as np
import pytest

import attention_core as core
from devtools.apptest import figure, leading_number, metric, metrics, open_page, reveal, texts

SLUG = "positional_encoding"


def revealed(**params):
    return reveal(open_page(SLUG, **params), SLUG)


def code(at) -> str:
    return "\n".join(c.value for c in at.code)


def test_the_toy_heatmap_comes_before_the_prediction_and_the_model_after():
    at = open_page(SLUG)
    assert "largest change, positions off" not in metrics(at)
    assert "Common trap" not in texts(at)
    assert figure(at, "pe_fig_toy")
    at = reveal(at, SLUG)
    assert metric(at, "largest change, positions off") < 1e-4
    assert metric(at, "largest change, positions on") > 0.1
    assert "Common trap" in texts(at)


@pytest.mark.parametrize("shuffle", [1, 7, 20])
def test_each_shuffle_moves_the_words_and_the_outputs_with_them_only_without_positions(shuffle):
    text = "the bank of the river flooded the town"
    at = revealed(pe_text=text, pe_shuffle=str(shuffle))
    words = text.split()
    order = np.random.default_rng(shuffle).permutation(len(words))            # the page's shuffle, drawn again
    assert "shuffled:  " + " ".join(words[i] for i in order) in code(at)
    assert metric(at, "largest change, positions off") < 1e-4
    assert metric(at, "largest change, positions on") > 1e-2
    assert "float32 rounding" in texts(at) and "they do not" in texts(at)


def test_shuffle_zero_keeps_the_typed_order_and_says_so():
    at = revealed(pe_shuffle="0")
    assert "shuffled:  the bank of the river" in code(at)
    assert metrics(at)["largest change, positions off"] == "0"
    assert metrics(at)["largest change, positions on"] == "0"
    assert "this order reads as typed" in texts(at)
    assert any("This order is the one you typed" in i.value for i in at.info)


def test_one_word_has_no_other_order():
    at = revealed(pe_text="river", pe_shuffle="5")
    assert any("a single word has no other order" in i.value for i in at.info)
    assert not at.exception


def test_a_blank_sentence_says_what_to_do_and_typed_markup_stays_text():
    at = open_page(SLUG)
    at.text_input(key="pe_text").set_value("   ").run()
    assert any("Type a sentence" in i.value for i in at.info)
    at.text_input(key="pe_text").set_value("<b>bold</b> **river** bank").run()
    assert not at.exception
    assert "<b>" not in str(figure(at, "pe_fig_toy")["data"][0]["x"])


def test_the_real_gap_chart_is_the_model_compared_by_hand():
    at = revealed(pe_shuffle="3")
    model = core.load_model()
    ids = np.asarray(model.tokenizer.encode("the bank of the river").token_ids)
    order = np.concatenate([[0], 1 + np.random.default_rng(3).permutation(5), [6]])   # one piece per word here
    on = core.encoder_output(model, ids, True)
    shuffled = core.encoder_output(model, ids[order], True)
    bars = figure(at, "pe_fig_gaps")["data"][1]
    np.testing.assert_allclose(bars["y"], np.maximum(np.abs(shuffled - on[order]).max(axis=1), 1e-12), rtol=1e-4)


@pytest.mark.parametrize("freq, offset", [(0, 1), (8, 4), (191, 63)])
def test_the_table_sliders_move_the_pair_and_the_offset(freq, offset):
    at = open_page(SLUG, pe_freq=str(freq), pe_offset=str(offset))
    table = core.sinusoidal_positions(64, 384)
    fig = figure(at, "pe_fig_freq")
    np.testing.assert_allclose(fig["data"][0]["y"], table[:, 2 * freq])
    np.testing.assert_allclose(fig["data"][1]["y"], table[:, 2 * freq + 1])
    S = core.cosine_similarities(table)
    assert metric(at, f"sinusoidal, {offset} apart") == pytest.approx(np.diagonal(S, offset).mean(), abs=6e-4)
    wavelength = 2 * np.pi * 10_000 ** (2 * freq / 384)
    said = texts(at)
    assert f"Pair {freq} turns by" in said
    assert ("more than the 64 shown" in said) == (wavelength > 64)
    assert figure(at, "pe_fig_offset")["layout"]["shapes"][0]["x0"] == offset


def test_sinusoidal_cosines_depend_on_the_offset_alone_and_learned_ones_do_not():
    at = open_page(SLUG, pe_offset="10")
    said = texts(at)
    spread = said.split("sinusoidal cosines spread by ")[1].split(" (standard")[0]
    assert spread == "exactly 0" or leading_number(spread) < 1e-12
    learned = leading_number(said.split("The learned ones spread by ")[1])
    assert learned == pytest.approx(np.diagonal(core.cosine_similarities(
        core.load_model().params["wpe"][:64].astype(float)), 10).std(), rel=2e-3)
    assert learned > 1e-3


def test_the_last_offset_has_one_pair_and_claims_no_spread():
    said = texts(open_page(SLUG, pe_offset="63"))
    assert "only one pair is 63 apart" in said and "spread by" not in said


@pytest.mark.parametrize("m, n", [(0, 0), (2, 5), (24, 0), (24, 24), (7, 3)])
def test_rotary_score_follows_the_offset_alone(m, n):
    at = open_page(SLUG, pe_m=str(m), pe_n=str(n))
    q, k, step = np.array([1.0, 0.3]), np.array([0.6, 0.8]), np.pi / 12
    expected = q @ core.rotate_pairs(k[None, :], np.array([[(n - m) * step]]))[0]
    assert metric(at, "q·k at m and n") == pytest.approx(expected, abs=1e-4)
    assert metrics(at)["offset n − m"] == str(n - m)
    s = min(m, n)
    assert metric(at, f"q·k at {m - s} and {n - s}") == pytest.approx(expected, abs=1e-4)
    said = texts(at)
    assert (f"moved back by {s}" in said) == (s > 0)
    assert f"({n} − {m}) × 15° = {(n - m) * 15}°" in said


def test_presenter_steps_reveal_the_tables_then_rotary():
    at = open_page(SLUG, present="1")
    assert "pe_fig_freq" not in str([c.proto.id for c in at.get("plotly_chart")])
    at.button(key="positional_encoding__step__next").click().run()
    assert "Two tables of positions" in texts(at)
    at.button(key="positional_encoding__step__next").click().run()
    assert "q·k at m and n" in metrics(at)


def test_the_toy_head_moves_rows_only_until_positions_are_added_by_slot():
    at = revealed()
    said = texts(at)
    without = said.split("same word's output in the typed order: **")[1].split("**")[0]
    assert without == "exactly 0" or leading_number(without) < 1e-12
    with_table = leading_number(said.split("and it is **")[1])
    assert with_table > 1e-2 and "the outputs now depend on where each word sits" in said


def test_a_sentence_past_128_tokens_is_cut_and_still_shuffles_exactly():
    at = revealed(pe_text="!" * 200, pe_shuffle="20")
    assert any("at most 128 tokens" in w.value for w in at.warning)
    assert metric(at, "largest change, positions off") < 1e-4
    assert len(figure(at, "pe_fig_gaps")["data"][0]["x"]) == 128


# ── Issue 47, items 2, 3 and 8 ────────────────────────────────────────────────────────────────────────────────
def shuffles_giving_the_typed_order(n: int, upto: int = 60) -> list[int]:
    """The shuffle values whose first random order of n words is the typed order (seeded as the page seeds)."""
    return [s for s in range(1, upto) if (np.random.default_rng(s).permutation(n) == np.arange(n)).all()]


def test_every_shuffle_above_zero_moves_the_words_even_when_its_first_draw_would_not():
    shuffle = shuffles_giving_the_typed_order(3)[0]                    # 20 for "dog bites man", today
    at = revealed(pe_text="dog bites man", pe_shuffle=str(shuffle))
    typed, shuffled = (line.split(None, 1)[1] for line in code(at).splitlines())
    assert typed == "dog bites man" and shuffled != typed and sorted(shuffled.split()) == sorted(typed.split())
    assert "one you typed" not in texts(at)


@pytest.mark.parametrize("params", [{"pe_shuffle": "0"}, {"pe_text": "bank"}])
def test_an_exact_zero_is_called_zero_not_rounding(params):
    at = revealed(**params)
    assert metrics(at)["largest change, positions off"] == "0"
    verdict = next(m.value for m in at.markdown if m.value.startswith("Without positions"))
    assert "exactly 0" in verdict and "rounding" not in verdict


def test_the_check_marks_right_what_the_page_measures():
    """A shuffle of three words, positions off: the page measures a nonzero rounding difference, so the option
    marked right must allow it, and no option marked wrong may be the page's own explanation of it."""
    from ui.content import load_lesson

    at = revealed(pe_text="dog bites man", pe_shuffle="1")
    gap = metric(at, "largest change, positions off")
    check = load_lesson(SLUG).check("dog_bites_man")
    right = next(c for c in check.choices if c.correct)
    if 0 < gap < 1e-4:
        assert "rounding" in right.text
    for wrong in (c for c in check.choices if not c.correct):
        assert "order of the additions" not in wrong.text and "rounding" not in wrong.text
