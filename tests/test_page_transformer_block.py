"""The transformer-block page under AppTest: each control moves what the page shows the way the lesson
says, every sentence agrees with the numbers at every setting of the parts, and bad input gets a message.

Expectations come from the model run here (run_stages, or the block written with encoder_layer_stages) and
from cosines computed in this file, never from the page's own helpers."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import attention_core as core
from attention_core import bert
from devtools.apptest import figure, open_page, texts
from tests.test_statements_property import marked_right

SLUG = "transformer_block"
RIVER, TILL = "I sat on the muddy river bank", "I deposited cash at the bank"
SETTINGS = list(itertools.product((True, False), repeat=3))


@pytest.fixture(scope="module")
def model():
    return core.load_model()


def z(at, key: str) -> np.ndarray:
    return np.array(figure(at, key)["data"][0]["z"], dtype=float)


def norms_shown(at) -> np.ndarray:
    """The lengths the norms chart holds (its colours are their logs; the hover reads these)."""
    return np.array(figure(at, "tb_fig_norms")["data"][0]["customdata"], dtype=float)


def lines(at, key: str) -> list[np.ndarray]:
    return [np.array(t["y"], dtype=float) for t in figure(at, key)["data"]]


def reveal(at, pick: int = 0):
    radio = at.radio(key=f"{SLUG}__predict__collapse")
    radio.set_value(radio.options[pick]).run()
    at.button(key=f"{SLUG}__predict__collapse__button").click().run()
    return at


def set_parts(at, residual: bool, layer_norm: bool, feed_forward: bool):
    for name, value in (("residual", residual), ("layer_norm", layer_norm), ("feed_forward", feed_forward)):
        at.toggle(key=f"tb_{name}").set_value(value)
    return at.run()


def alike(h: np.ndarray) -> np.ndarray:
    """Mean pairwise cosine per layer, by a loop over pairs."""
    out = []
    for X in h.astype(np.float64):
        c = [X[i] @ X[j] / np.linalg.norm(X[i]) / np.linalg.norm(X[j])
             for i in range(len(X)) for j in range(i + 1, len(X))]
        out.append(np.mean(c))
    return np.array(out)


def test_default_tokens_and_block_1_norms_are_the_models_with_the_residual_off(model):
    at = open_page(SLUG)
    run = model.run_stages(RIVER, bert.BlockParts(residual=False))
    assert at.code[0].value.split() == list(run.tokens)
    s = bert.encoder_layer_stages(run.hidden_states[0], model.params, 0, residual=False)
    want = np.stack([np.linalg.norm(v.astype(np.float64), axis=1) for v in s.stages()], axis=1)
    np.testing.assert_allclose(norms_shown(at), want, rtol=1e-5)
    assert "Switched off in every block: the residual connections." in texts(at)


def test_the_layer_slider_redraws_one_block_without_running_the_model_again(model, monkeypatch):
    at = open_page(SLUG)
    calls = []
    original = bert.MiniLM.run_stages
    monkeypatch.setattr(bert.MiniLM, "run_stages", lambda self, *a, **k: calls.append(a) or original(self, *a, **k))
    before = norms_shown(at)
    at.slider(key="tb_layer").set_value(4).run()
    run = model.run_stages(RIVER, bert.BlockParts(residual=False))
    s = bert.encoder_layer_stages(run.hidden_states[3], model.params, 3, residual=False)
    want = np.stack([np.linalg.norm(v.astype(np.float64), axis=1) for v in s.stages()], axis=1)
    np.testing.assert_allclose(norms_shown(at), want, rtol=1e-5)
    assert not np.allclose(norms_shown(at), before)
    assert len(calls) == 1, "only this test's own run: the page read its cached run"
    at.selectbox(key="tb_stage").set_value("attention out").run()
    np.testing.assert_allclose(z(at, "tb_fig_vectors"), s.attention[:, :24], rtol=1e-5, atol=1e-6)


def test_the_length_sentence_follows_the_norms_with_and_without_layer_norm():
    at = open_page(SLUG)
    set_parts(at, True, True, True)
    norms = norms_shown(at)
    assert f"lie between {norms[:, 3].min():.3g} and {norms[:, 3].max():.3g}" in texts(at)
    assert f"{norms[:, 0].mean():.3g} at the input" in texts(at)
    for layer in (1, 6):
        set_parts(at, True, False, True)
        at.slider(key="tb_layer").set_value(layer).run()
        norms = norms_shown(at)
        ratio = norms[:, -1].mean() / norms[:, 0].mean()
        assert f"{'grows' if ratio > 1 else 'shrinks'} by ×{ratio:.3g}" in texts(at)
        np.testing.assert_allclose(norms[:, 3], norms[:, 2])          # no LayerNorm: the stage is the sum


def test_each_part_switched_off_is_named_and_its_columns_repeat_as_the_caption_says():
    at = set_parts(open_page(SLUG), False, False, False)
    said = texts(at)
    assert ("Switched off in every block: the residual connections, the LayerNorms and the feed-forward network."
            in said)
    assert "FF is 0 and the last two columns repeat LN 1" in said and "each LN column repeats the sum" in said
    n = norms_shown(at)
    assert not n[:, 4].any()
    np.testing.assert_array_equal(n[:, 5], n[:, 3])
    np.testing.assert_array_equal(n[:, 6], n[:, 3])
    np.testing.assert_array_equal(n[:, 3], n[:, 2])
    np.testing.assert_array_equal(n[:, 2], n[:, 1])                     # no residual: the sum is attention's output
    set_parts(at, True, True, True)
    assert "Here without" not in texts(at) and n.shape == norms_shown(at).shape


@pytest.mark.parametrize("parts", SETTINGS, ids=lambda p: "".join("+" if x else "-" for x in p))
def test_the_alikeness_chart_and_its_sentence_follow_the_numbers_at_every_setting(model, parts):
    at = set_parts(open_page(SLUG), *parts)
    full = alike(model.run_stages(RIVER).hidden_states)
    ablated = alike(model.run_stages(RIVER, bert.BlockParts(*parts)).hidden_states)
    f, a = full[-1], ablated[-1]
    right = (0 if a >= 0.95 else 1) if a > f + 0.05 else 2 if a >= f - 0.05 else 3
    radio = at.radio(key=f"{SLUG}__predict__collapse")
    reveal(at, right)
    assert at.success and not at.error, "the option the numbers make right is marked right"
    got = lines(at, "tb_fig_alike")
    np.testing.assert_allclose(got[0], full, atol=1e-5)
    np.testing.assert_allclose(got[1], ablated, atol=1e-5)
    said = texts(at)
    assert f"{f:.3f} after layer 6" in said
    if all(parts):
        assert "Nothing is switched off" in said
        assert right == 2
    else:
        assert f"it reaches {a:.3f}" in said
        phrase = ["nearly one vector", "become alike faster", "barely changes", "less alike than"][right]
        assert phrase in said, (radio.options[right], said)
        others = {"nearly one vector", "become alike faster", "barely changes", "less alike than"} - {phrase}
        assert not any(o in said for o in others)


def test_without_residuals_the_tokens_collapse_and_the_banks_are_compared(model):
    at = reveal(open_page(SLUG))
    assert "nearly one vector" in texts(at)
    runs = {(s, p): model.run_stages(s, bert.BlockParts(*p)) for s in (RIVER, TILL)
            for p in ((True, True, True), (False, True, True))}

    def bank(run):
        i = list(run.tokens).index("bank")
        return run.hidden_states[:, i]

    want = [core.cosine(bank(runs[RIVER, p]), bank(runs[TILL, p])) for p in ((True, True, True), (False, True, True))]
    got = lines(at, "tb_fig_bank")
    np.testing.assert_allclose(got[0], want[0], atol=1e-5)
    np.testing.assert_allclose(got[1], want[1], atol=1e-5)
    said = texts(at)
    f, a = want[0][-1], want[1][-1]
    assert f"{f:.3f} with every part on and {a:.3f} without the residual connections" in said
    assert ("stay further apart" if a < f - 0.05 else "end closer together" if a > f + 0.05 else "about the same") \
        in said
    river = runs[RIVER, (False, True, True)].hidden_states[-1]
    i = list(runs[RIVER, (False, True, True)].tokens).index("bank")
    to_others = np.mean([core.cosine(river[i], river[j]) for j in range(len(river)) if j != i])
    assert f"→ {to_others:.3f} by the river" in said


def test_trap_and_check_wait_for_the_prediction():
    at = open_page(SLUG)
    assert "Common trap" not in texts(at) and not any("__check__" in (r.key or "") for r in at.radio)
    reveal(at)
    assert "Common trap" in texts(at)
    at.radio(key=f"{SLUG}__check__why_collapse").set_value(
        at.radio(key=f"{SLUG}__check__why_collapse").options[0]).run()
    assert at.success


@pytest.mark.parametrize("text", ["", "   ", "?!"])
def test_a_sentence_with_nothing_to_read_gets_a_message_not_a_traceback(text):
    at = open_page(SLUG, tb_text=text) if text else open_page(SLUG)
    at.text_input(key="tb_text").set_value(text).run()
    assert not at.exception
    assert (at.info and "Type a sentence above" in texts(at)) or text == "?!"


def test_a_long_sentence_is_truncated_with_a_warning_and_still_drawn(model):
    at = open_page(SLUG)
    at.text_input(key="tb_text").set_value("a " * 200).run()
    assert not at.exception and any("Truncated" in w.value for w in at.warning)
    assert norms_shown(at).shape == (128, 7)


def test_typed_markup_stays_text():
    at = open_page(SLUG)
    at.text_input(key="tb_text").set_value("**bold** <b>x</b> [link](http://127.0.0.1:9)").run()
    assert not at.exception
    assert all("<b>" not in m.value or m.value.startswith("`") for m in at.markdown)


WORDS = ["the", "bank", "river", "cash", "a", "cat", "sat", "on", "mat", "word", "!", "deposited", "muddy"]


@settings(max_examples=6, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(words=st.lists(st.sampled_from(WORDS), min_size=1, max_size=12), parts=st.tuples(*[st.booleans()] * 3),
       layer=st.integers(1, 6))
def test_from_a_link_the_option_marked_right_and_every_number_follow_the_model(model, words, parts, layer):
    """Any sentence and any parts, opened from a link: the prediction marks the option the numbers make right,
    and the lengths chart is the block at that layer."""
    text = " ".join(words)
    at = open_page(SLUG, tb_text=text, tb_residual=str(parts[0]).lower(), tb_layer_norm=str(parts[1]).lower(),
                   tb_feed_forward=str(parts[2]).lower(), tb_layer=str(layer))
    run = model.run_stages(text, bert.BlockParts(*parts))
    s = bert.encoder_layer_stages(run.hidden_states[layer - 1], model.params, layer - 1, residual=parts[0],
                                  layer_norm=parts[1], feed_forward=parts[2])
    want = np.stack([np.linalg.norm(v.astype(np.float64), axis=1) for v in s.stages()], axis=1)
    np.testing.assert_allclose(norms_shown(at), want, rtol=1e-5, atol=1e-6)
    f, a = alike(model.run_stages(text).hidden_states)[-1], alike(run.hidden_states)[-1]
    right = (0 if a >= 0.95 else 1) if a > f + 0.05 else 2 if a >= f - 0.05 else 3
    _, marked = marked_right(at, SLUG, "collapse")
    assert marked == [at.radio(key=f"{SLUG}__predict__collapse").options[right]]


def test_an_over_long_paste_is_cut_to_the_box_limit_and_said():
    """Issue 47, item 15: 639 characters pasted into the 500-character box are cut to 500, with a message,
    instead of the browser keeping the old text and saying nothing."""
    from ui.lessons.transformer_block import MAX_CHARS

    at = open_page(SLUG)
    box = at.text_input(key="tb_text")
    assert box.proto.max_chars > MAX_CHARS          # the browser passes a long paste on, to be cut and said here
    pasted = ("the bank by the river " * 40)[: MAX_CHARS + 139]
    box.set_value(pasted).run()
    assert not at.exception
    said = [w.value for w in at.warning if f"{len(pasted):,} characters" in w.value]
    assert said and f"{MAX_CHARS:,}" in said[0]
    assert at.text_input(key="tb_text").value == pasted[:MAX_CHARS]
    at.text_input(key="tb_text").set_value("the bank by the river").run()
    assert not [w for w in at.warning if "characters" in w.value]
