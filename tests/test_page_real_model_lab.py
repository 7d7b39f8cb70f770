"""The lab page under AppTest: each control moves what the page shows, bad input gets a message, typed
markup stays text, and the prediction and the check behave."""

from __future__ import annotations

import numpy as np
import pytest

import attention_core as core
from devtools import apptest
from devtools.apptest import figure, open_page, texts

SLUG = "real_model_lab"
RIVER = "I sat on the muddy river bank"


def heatmap_z(at) -> np.ndarray:
    return np.array(figure(at, "lab_fig_heatmap")["data"][0]["z"], dtype=float)


def reveal(at, key: str) -> None:
    radio = at.radio(key=f"{SLUG}__predict__{key}")
    radio.set_value(radio.options[0]).run()
    at.button(key=f"{SLUG}__predict__{key}__button").click().run()


@pytest.fixture(scope="module")
def run():
    return core.load_model().run(RIVER)


def test_default_sentence_tokens_and_heatmap_are_the_models(run):
    at = open_page(SLUG)
    assert at.code[0].value.split() == run.tokens
    np.testing.assert_allclose(heatmap_z(at), run.attentions[0, 0], atol=1e-6)


def test_heatmap_follows_layer_head_and_the_head_average(run):
    at = open_page(SLUG)
    at.slider(key="lab_layer").set_value(4).run()
    np.testing.assert_allclose(heatmap_z(at), run.attentions[3, 0], atol=1e-6)
    at.slider(key="lab_head").set_value(7).run()
    z = heatmap_z(at)
    np.testing.assert_allclose(z, run.attentions[3, 6], atol=1e-6)
    at.toggle(key="lab_avg").set_value(True).run()
    avg = heatmap_z(at)
    np.testing.assert_allclose(avg, run.attentions[3].mean(axis=0), atol=1e-6)
    assert not np.allclose(avg, z)


def test_presets_fill_the_sentence():
    at = open_page(SLUG)
    at.pills(key="lab_preset").set_value("I deposited cash at the bank").run()
    assert at.text_input(key="lab_text").value == "I deposited cash at the bank"
    assert "deposited" in at.code[0].value
    assert at.pills(key="lab_preset").value is None                  # cleared, so it can be picked again
    at.text_input(key="lab_text").set_value("My own words").run()
    at.pills(key="lab_preset").set_value("I deposited cash at the bank").run()
    assert at.text_input(key="lab_text").value == "I deposited cash at the bank"


def test_who_attends_bars_show_the_chosen_tokens_row(run):
    at = open_page(SLUG)
    assert at.selectbox(key="lab_token").value == "7: bank"               # the experiment word by default
    reveal(at, "top_key")
    np.testing.assert_allclose(figure(at, "lab_fig_bars")["data"][0]["y"], run.attentions[0, 0, 7], atol=1e-6)
    at.selectbox(key="lab_token").set_value("6: river").run()
    np.testing.assert_allclose(figure(at, "lab_fig_bars")["data"][0]["y"], run.attentions[0, 0, 6], atol=1e-6)


def test_top_key_prediction_is_right_only_for_the_real_top_token(run):
    at = open_page(SLUG)
    radio = at.radio(key=f"{SLUG}__predict__top_key")
    top = int(np.argmax(run.attentions[0, 0, 7]))
    shown = {o.replace("\\", ""): o for o in radio.options}           # the labels are Markdown-escaped
    radio.set_value(next(o for plain, o in shown.items() if plain.startswith(f"{top}:"))).run()
    at.button(key=f"{SLUG}__predict__top_key__button").click().run()
    assert at.success and not [e for e in at.error]


def test_empty_sentence_gets_a_message_and_nothing_crashes():
    at = open_page(SLUG)
    at.text_input(key="lab_text").set_value("").run()
    assert not at.exception
    assert "empty" in texts(at) and not at.code[:-1]


def test_long_sentence_is_truncated_with_a_note():
    at = open_page(SLUG)
    at.text_input(key="lab_text").set_value(" ".join(["word"] * 200)).run()
    assert not at.exception
    assert "Truncated" in texts(at)
    assert len(at.code[0].value.split()) == 128
    assert len(figure(at, "lab_fig_heatmap")["data"][0]["z"]) == 128


@pytest.mark.parametrize("text", ["\x00\x00", "שלום עולם", "🙂🙂🙂 bank", "a" * 10_000, "[x](javascript:1) **b**"])
def test_awkward_text_never_crashes(text):
    at = open_page(SLUG)
    at.text_input(key="lab_text").set_value(text).run()
    assert not at.exception


def test_markup_is_shown_as_text():
    at = open_page(SLUG)
    at.text_input(key="lab_text").set_value("<script>alert(1)</script> <b>bank</b> 🙂").run()
    assert "<script>" not in next(el.proto.spec for el in at.get("plotly_chart"))
    ticks = figure(at, "lab_fig_heatmap")["layout"]["xaxis"]["ticktext"]
    assert "&lt;" in ticks and "&gt;" in ticks and not any("<" in t for t in ticks)   # "<" is its own token
    assert "<" in at.code[0].value and "script" in at.code[0].value          # the tokens, as typed
    assert "[UNK]" in at.code[0].value and "[UNK]" in texts(at)              # the emoji


def test_drift_prediction_gates_the_cosine_chart_which_starts_identical():
    at = open_page(SLUG)
    assert "lab_fig_layers" not in " ".join(el.proto.id for el in at.get("plotly_chart"))
    apptest.choose(at, SLUG, "predict", "drift")
    at.button(key=f"{SLUG}__predict__drift__button").click().run()
    assert at.success
    fig = figure(at, "lab_fig_layers")
    assert len(fig["data"]) == 3                                            # three sentences, three pairs
    for line in fig["data"]:
        assert line["y"][0] == pytest.approx(1.0) and line["y"][-1] < 0.9
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["cosine at the lookup"] == "1.0000"


def test_experiment_word_and_sentences_are_editable():
    at = open_page(SLUG)
    reveal(at, "drift")
    at.text_area(key="lab_sentences").set_value("A bat flew out\nHe swung the bat\nNo such word here").run()
    at.text_input(key="lab_word").set_value("bat").run()
    assert not at.exception
    assert "sentence 3" in texts(at)                                        # left out, and said so
    assert len(figure(at, "lab_fig_layers")["data"]) == 1
    at.text_input(key="lab_word").set_value("two words").run()
    assert not at.exception and at.error


def test_neighbours_static_list_and_contextual_references():
    at = open_page(SLUG)
    reveal(at, "drift")
    glove = figure(at, "lab_fig_glove")["data"][0]
    assert len(glove["x"]) == 10 and "banks" in glove["y"]
    ctx = figure(at, "lab_fig_context")
    assert {t["name"] for t in ctx["data"]} == {"river", "money"}
    river_mean = lambda f: np.mean(next(t for t in f["data"] if t["name"] == "river")["x"])   # noqa: E731
    money_mean = lambda f: np.mean(next(t for t in f["data"] if t["name"] == "money")["x"])   # noqa: E731
    assert river_mean(ctx) > money_mean(ctx)                                # the riverside bank
    at.selectbox(key="lab_pick").set_value(at.selectbox(key="lab_pick").options[1]).run()
    ctx = figure(at, "lab_fig_context")
    assert money_mean(ctx) > river_mean(ctx)                                # the bank with the cash
    at.text_input(key="lab_word").set_value("river").run()
    assert "reference sentences" in texts(at)


def test_the_sentence_selector_offers_only_sentences_that_exist_and_use_the_word():
    at = open_page(SLUG)
    reveal(at, "drift")
    at.text_area(key="lab_sentences").set_value("The bank was muddy.\nA cat sat.\nShe paid the bank.").run()
    assert at.selectbox(key="lab_pick").options == ["Sentence 1", "Sentence 3"]      # sentence 2 has no "bank"
    at.selectbox(key="lab_pick").set_value("Sentence 3").run()
    at.text_area(key="lab_sentences").set_value("The bank was muddy.\nThe bank by the river.").run()
    assert at.selectbox(key="lab_pick").options == ["Sentence 1", "Sentence 2"]
    assert at.selectbox(key="lab_pick").value == "Sentence 1"          # the chosen one is gone: the first that is


def test_check_gives_feedback_on_every_option_and_success_only_on_the_marked_one():
    at = apptest.reveal(open_page(SLUG), SLUG)  # the check waits
    apptest.feedback_follows_the_marked_answer(at, SLUG, "one_head")
