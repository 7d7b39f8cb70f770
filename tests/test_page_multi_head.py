"""The multi-head page: heads, the W_Q and W_V edits, W_O, the real layer's heads, the cost, and the questions."""

import tomllib
from pathlib import Path

import numpy as np
import pytest

import attention_core as core
from devtools.apptest import feedback_follows_the_marked_answer, figure, metrics, open_page, texts
from ui import models

DATA = tomllib.loads((Path(__file__).resolve().parent.parent / "assets/data/multi_head.toml").read_text())
X = np.array([t["embedding"] for t in DATA["tokens"]])
LABELS = [t["text"] for t in DATA["tokens"]]
W_Q, W_K = np.array(DATA["weights"]["W_Q"], float), np.array(DATA["weights"]["W_K"], float)
PREDICT = "multi_head__predict__heads_agree"


def revealed(**params):
    at = open_page("multi_head", **params)
    at.radio(key=PREDICT).set_value("Different words in different heads").run()
    at.button(key=f"{PREDICT}__button").click().run()
    r = at.radio(key="multi_head__predict__real_heads")
    r.set_value(r.options[1]).run()
    at.button(key="multi_head__predict__real_heads__button").click().run()
    assert not at.exception
    return at


def heatmaps(at, key):
    return [np.asarray(t["z"], dtype=float) for t in figure(at, key)["data"]]


def head_panels(at, key):
    """The 12 panels of the real layer's one heatmap, each head's weights read from its hover data."""
    data = np.asarray(figure(at, key)["data"][0]["customdata"], dtype=float)
    out = []
    for head in range(1, 13):
        ys, xs = np.nonzero(data[..., 0] == head)
        out.append(data[ys.min():ys.max() + 1, xs.min():xs.max() + 1, 1])
    return out


def as_text(M):
    return "\n".join(", ".join(f"{v:g}" for v in row) for row in M)


def test_the_prediction_gates_the_heads_and_is_judged_on_the_weights():
    at = open_page("multi_head")
    with pytest.raises(AssertionError):
        figure(at, "mh_fig_heads")
    at.radio(key=PREDICT).set_value("The same word in every head").run()
    at.button(key=f"{PREDICT}__button").click().run()
    ref = core.multi_head_attention(X, W_Q, W_K, np.eye(8), np.eye(8), 2)
    tops = {int(np.argmax(ref.weights[h, LABELS.index("it")])) for h in range(2)}
    assert (len(at.error) == 1) == (len(tops) > 1)               # the heads disagree by default: a wrong guess
    got = heatmaps(at, "mh_fig_heads")
    assert len(got) == 2
    for h in range(2):
        np.testing.assert_allclose(got[h], ref.weights[h], atol=1e-12)


@pytest.mark.parametrize("n", ["1", "4"])
def test_the_number_of_heads_sets_the_panels_and_their_weights(n):
    at = revealed()
    at.radio(key="mh_heads").set_value(n).run()
    ref = core.multi_head_attention(X, W_Q, W_K, np.eye(8), np.eye(8), int(n))
    got = heatmaps(at, "mh_fig_heads")
    assert len(got) == int(n)
    for h in range(int(n)):
        np.testing.assert_allclose(got[h], ref.weights[h], atol=1e-12)
    assert f"dₖ = 8 / {n} = {8 // int(n)}" in texts(at)
    # The sentence names the heads there are: one head reads all 8 columns, the last of four reads 7–8.
    said = texts(at)
    assert f"Head 1 reads columns 1–{8 // int(n)} of" in said
    assert ("head 2 reads" in said) == (int(n) > 1)
    assert ("and so on up to head 4, columns 7–8." in said) == (n == "4")
    assert "and so on." not in said and "block(s)" not in said


def test_editing_head_1s_queries_moves_head_1_only():
    at = revealed()
    wq = W_Q[:, :4].copy()
    wq[3, 2] = 0.0                                        # "glue" no longer asks for things
    at.text_area(key="mh_wq2").set_value(as_text(wq)).run()
    full = W_Q.copy()
    full[:, :4] = wq
    ref = core.multi_head_attention(X, full, W_K, np.eye(8), np.eye(8), 2)
    got = heatmaps(at, "mh_fig_heads")
    np.testing.assert_allclose(got[0], ref.weights[0], atol=1e-12)
    base = core.multi_head_attention(X, W_Q, W_K, np.eye(8), np.eye(8), 2)
    moved = np.abs(ref.weights[0] - base.weights[0]).max()
    assert moved > 0.1
    assert f"head 1's weights moved by up to **{moved:.4f}**" in texts(at)
    assert "the other heads' by **0.0000**" in texts(at)


def test_editing_head_1s_values_moves_its_output_and_no_weight():
    at = revealed()
    before_w = heatmaps(at, "mh_fig_heads")
    before = heatmaps(at, "mh_fig_concat")[0]
    wv = np.eye(8)[:, :4] * 2.0
    at.text_area(key="mh_wv2").set_value(as_text(wv)).run()
    after = heatmaps(at, "mh_fig_concat")[0]
    for a, b in zip(heatmaps(at, "mh_fig_heads"), before_w, strict=True):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_allclose(after[:, :4], 2 * before[:, :4], atol=1e-12)   # values doubled, same weights
    np.testing.assert_array_equal(after[:, 4:], before[:, 4:])
    shown = texts(at)
    assert "the **weights** of every head moved by **0.0000**" in shown
    assert "the other heads' outputs by **0.0000**" in shown


def test_a_bad_matrix_gets_a_message_and_no_heads():
    at = revealed()
    for bad in ["1, 2", "", "nan, 0, 0, 0\n" * 8, "<b>1</b>"]:
        at.text_area(key="mh_wv2").set_value(bad).run()
        assert not at.exception and at.error, bad
        with pytest.raises(AssertionError):
            figure(at, "mh_fig_concat")


def test_w_o_mixing_matches_the_product():
    at = revealed()
    plain = heatmaps(at, "mh_fig_output")[0]
    at.toggle(key="mh_mix").set_value(True).run()
    mixed = heatmaps(at, "mh_fig_output")[0]
    mix = DATA["weights"]["W_O_mixing"]
    W_O = (1 - mix) * np.eye(8) + mix * np.roll(np.eye(8), 4, axis=1)
    np.testing.assert_allclose(mixed, plain @ W_O, atol=1e-12)
    assert not np.allclose(mixed, plain)


def run_of(text):
    return models.minilm().run(text)           # the app's one cached copy


def test_the_real_layer_counts_the_heads_from_the_models_own_weights():
    at = revealed()
    r = run_of(DATA["real_sentence"])
    it, animal = r.tokens.index("it"), r.tokens.index("animal")
    hits = [(L, H) for L in range(6) for H in range(12) if int(np.argmax(r.attentions[L, H, it])) == animal]
    shown = texts(at)
    assert f"({len(hits)} of 72)" in shown
    for L, H in hits:
        assert f"L{L + 1} H{H + 1} ({r.attentions[L, H, it, animal]:.0%})" in shown
    panels = head_panels(at, "mh_fig_real")
    assert len(panels) == 12
    np.testing.assert_allclose(panels[0], r.attentions[3, 0], rtol=1e-6)      # layer 4 by default
    np.testing.assert_allclose(panels[11], r.attentions[3, 11], rtol=1e-6)
    at.slider(key="mh_layer").set_value(1).run()
    np.testing.assert_allclose(head_panels(at, "mh_fig_real")[0], r.attentions[0, 0], rtol=1e-6)
    table = at.dataframe[-1].value
    assert table.shape == (12, 6)                                             # a row per head, a column per layer
    top = int(np.argmax(r.attentions[0, 2, it]))
    assert table.loc["head 3", "layer 1"].startswith(r.tokens[top])


def test_previous_token_heads_are_measured_not_assumed():
    at = revealed()
    r = run_of(DATA["real_sentence"])
    T = len(r.tokens)
    prev = [(L, H) for L in range(6) for H in range(12)
            if np.mean([np.argmax(r.attentions[L, H, i]) == i - 1 for i in range(1, T)]) >= 0.8]
    expected = ", ".join(f"L{L + 1} H{H + 1}" for L, H in prev) or "none"
    assert f"previous token, {expected};" in texts(at)


def test_a_new_sentence_and_word_follow_through():
    at = revealed()
    at.text_input(key="mh_text").set_value("The cat sat on the mat because it was warm").run()
    assert not at.exception
    at.selectbox(key="mh_target").set_value("cat").run()
    assert "is “cat”" in texts(at)


@pytest.mark.parametrize("text, message", [("", "Type a sentence"), ("!" * 100, "at most 40")])
def test_empty_or_too_many_tokens_get_a_message(text, message):
    at = revealed()
    at.text_input(key="mh_text").set_value(text).run()
    assert not at.exception
    assert message in texts(at)


def test_cost_is_the_same_for_one_head_and_twelve():
    at = revealed()
    m = metrics(at)
    assert m["weights, 1 head of 384"] == m["weights, 12 heads of 32"] == f"{4 * 384 * 384:,}"
    T = len(run_of(DATA["real_sentence"]).tokens)
    assert m[f"multiply-adds at T = {T}"] == f"{4 * T * 384 * 384 + 2 * T * T * 384:,}"
    bars = figure(at, "mh_fig_cost")["data"]
    np.testing.assert_array_equal(np.asarray(bars[0]["y"]), np.asarray(bars[1]["y"]))


def test_check_gives_feedback_on_every_option_and_success_only_on_the_marked_one():
    assert not any(r.key == "multi_head__check__w_v" for r in open_page("multi_head").radio), "held back"
    feedback_follows_the_marked_answer(revealed(), "multi_head", "w_v")


def test_a_link_restores_heads_mix_and_layer():
    at = revealed(mh_heads="4", mh_mix="true", mh_layer="2")
    assert at.radio(key="mh_heads").value == "4" and at.toggle(key="mh_mix").value is True
    assert at.slider(key="mh_layer").value == 2
    assert len(heatmaps(at, "mh_fig_heads")) == 4


def test_one_head_takes_the_singular():
    """Issue 47 item 11: "8 split 1 way", "1 block of 8", never "1 ways" or "1 blocks"."""
    at = open_page("multi_head")
    at.radio(key="mh_heads").set_value("1").run()
    shown = texts(at)
    assert "split 1 way:" in shown and "1 block of 8" in shown
    assert "1 ways" not in shown and "1 blocks" not in shown
