"""The masks page: the causal mask on typed scores, renormalisation, padding, cross-attention and the check."""

import tomllib
from pathlib import Path

import numpy as np
import pytest

import attention_core as core
from devtools.apptest import feedback_follows_the_marked_answer, figure, open_page, texts

SLUG = "masks_and_cross_attention"
PREDICT = f"{SLUG}__predict__causal_rows"
PROMPT = tomllib.loads((Path(__file__).resolve().parent.parent / "assets/data/prompt_words.toml").read_text())
SEED = np.array([[2.0, 0.5, 1.0, 0.0], [1.0, 2.0, 0.5, 1.5], [0.5, 1.5, 1.0, 2.0], [0.0, 1.0, 2.0, 1.0]])


def softmax_rows(S, mask):
    """A plain loop: exp of each visible score over the visible total, 0 for the blocked ones."""
    out = np.zeros_like(S)
    for i in range(len(S)):
        e = [np.exp(S[i, j]) if mask[i][j] else 0.0 for j in range(len(S))]
        out[i] = np.array(e) / sum(e)
    return out


def revealed(**params):
    at = open_page(SLUG, **params)
    at.radio(key=PREDICT).set_value(at.radio(key=PREDICT).options[0]).run()
    at.button(key=f"{PREDICT}__button").click().run()
    assert not at.exception
    return at


def z(at, key):
    return np.asarray(figure(at, key)["data"][0]["z"], dtype=float)


def test_the_prediction_gates_the_masked_weights():
    at = open_page(SLUG)
    with pytest.raises(AssertionError):
        figure(at, "mk_fig_masked")
    at = revealed()
    got = z(at, "mk_fig_masked")
    causal = [[j <= i for j in range(4)] for i in range(4)]
    ref = softmax_rows(SEED, causal)
    np.testing.assert_allclose(np.nan_to_num(got), ref, atol=1e-12)
    assert np.isnan(got[np.triu_indices(4, 1)]).all()            # blocked cells carry no colour
    assert "1.0000, 1.0000, 1.0000, 1.0000" in texts(at)


def test_each_rows_renormalisation_is_stated_from_the_numbers():
    at = revealed()
    free = softmax_rows(SEED, np.ones((4, 4), bool))
    shown = texts(at)
    for i in range(4):
        kept = free[i, : i + 1].sum()
        after = ", ".join(f"{free[i, j] / kept:.4f}" for j in range(i + 1))
        assert f"held {kept:.4f} of the unmasked weight; divided by {kept:.4f} they become [{after}]" in shown
    future = np.triu(free, 1).sum(axis=1)
    assert f"the **{future[0]:.2f}**" in shown


def test_turning_the_mask_off_gives_back_the_free_weights():
    at = revealed()
    at.toggle(key="mk_causal").set_value(False).run()
    np.testing.assert_allclose(z(at, "mk_fig_masked"), softmax_rows(SEED, np.ones((4, 4), bool)), atol=1e-12)
    assert "Turn the causal mask on" in texts(at)


def test_your_own_scores_and_bad_ones():
    at = revealed()
    S = np.array([[0.0, 9.0, 9.0], [1.0, 0.0, 5.0], [3.0, 2.0, 1.0]])
    at.text_area(key="mk_scores").set_value("0, 9, 9\n1, 0, 5\n3, 2, 1").run()
    np.testing.assert_allclose(np.nan_to_num(z(at, "mk_fig_masked")),
                               softmax_rows(S, [[j <= i for j in range(3)] for i in range(3)]), atol=1e-12)
    assert figure(at, "mk_fig_masked")["data"][0]["y"] == ["t1", "t2", "t3"]
    for bad in ["1, 2\n3, 4\n5, 6", "\n".join(["1, 2, 3, 4, 5, 6, 7, 8, 9"] * 9), "x", ""]:
        at.text_area(key="mk_scores").set_value(bad).run()
        assert not at.exception and at.error, bad


def test_padding_appends_pad_tokens_whose_keys_get_nothing():
    """Issue 47 polish: [PAD] tokens are added after "down", never put in its place; the sentence's own rows keep
    exactly the causal weights, and every row gives the [PAD] keys 0."""
    at = revealed()
    for pad in (1, 2, 4):
        at.slider(key="mk_pad").set_value(pad).run()
        n = 4 + pad
        padded = np.zeros((n, n))
        padded[:4, :4] = SEED
        real = np.arange(n) < 4
        mask = core.padding_mask(real) & core.causal_mask(n)
        got = np.nan_to_num(z(at, "mk_fig_pad"))
        assert got.shape == (n, n)
        np.testing.assert_allclose(got, softmax_rows(padded, mask), atol=1e-12)
        np.testing.assert_allclose(got[:4, :4], softmax_rows(SEED, core.causal_mask(4)), atol=1e-12)
        assert np.all(got[:, ~real] == 0)
        assert figure(at, "mk_fig_pad")["data"][0]["x"] == ["the", "cat", "sat", "down", *["[PAD]"] * pad]
        said = [c.value for c in at.caption]
        assert any(s.startswith(f"{pad} padding key{'s get' if pad > 1 else ' gets'} weight 0") for s in said), said
    at.slider(key="mk_pad").set_value(0).run()
    assert np.all(np.nan_to_num(z(at, "mk_fig_pad")).sum(axis=1) > 0.999)
    assert any(c.value.startswith("No padding") for c in at.caption)


def test_sections_are_numbered_without_a_jump_before_and_after_the_reveal():
    """Issue 47 polish: before the reveal ② and ③ wait, so cross-attention is ②, not ④."""
    circled = "①②③④⑤⑥"

    def numbers(at):
        return [h.value[0] for h in at.main.subheader if h.value[:1] in circled]

    for at in (open_page(SLUG), revealed()):
        shown = numbers(at)
        assert shown == list(circled[: len(shown)]) and len(shown) >= 3, shown


def cross_reference(words, ball=(1, 1), ball_colour="red", ground="green"):
    parts = {k: np.array(v, float) for k, v in PROMPT["parts"].items()}
    P, _ = core.scene_patches(4, ball, 2, parts, ball_colour, ground, horizon=2)
    K = np.vstack([PROMPT["words"][w] for w in words])
    s = (PROMPT["strength"] * P) @ K.T / np.sqrt(K.shape[1])
    e = np.exp(s - s.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def test_cross_attention_weights_are_patches_by_words():
    at = revealed()
    words = PROMPT["prompt"].split()
    got = z(at, "mk_fig_cross")
    assert got.shape == (16, len(words))
    np.testing.assert_allclose(got, cross_reference(words, ball=(1, 1)), atol=1e-12)
    assert "16 × 6, not square" in texts(at)
    # Each row names what its patch shows, from the scene itself: a "ground" patch is no "ball".
    _, names = core.scene_patches(4, (1, 1), 2, {k: np.array(v, float) for k, v in PROMPT["parts"].items()},
                                  "red", "green", horizon=2)
    kinds = [label.split()[-1] for label in figure(at, "mk_fig_cross")["data"][0]["y"]]
    assert kinds == [{"round": "ball"}.get(n.split()[-1], n.split()[-1]) for n in names]
    assert kinds.count("ball") == 4 and kinds.count("ground") == 6 and kinds.count("sky") == 6


def test_moving_the_ball_and_recolouring_it_moves_the_weights():
    at = revealed()
    at.slider(key="mk_ball_row").set_value(1).run()
    at.slider(key="mk_ball_col").set_value(3).run()
    at.selectbox(key="mk_ball_colour").set_value("blue").run()
    words = PROMPT["prompt"].split()
    np.testing.assert_allclose(z(at, "mk_fig_cross"), cross_reference(words, (0, 2), "blue"), atol=1e-12)
    scene = figure(at, "mk_fig_scene")
    circles = [s for s in scene["layout"]["shapes"] if s["type"] == "circle"]
    assert sorted({int(s["x0"]) for s in circles}) == [2, 3] and sorted({int(s["y0"]) for s in circles}) == [0, 1]


def test_the_prompt_is_bounded_and_unknown_words_are_named_and_escaped():
    at = revealed()
    at.text_input(key="mk_prompt").set_value("a blue ball on <b>zorp</b>").run()
    assert not at.exception
    warning = " ".join(w.value for w in at.warning)
    assert "zorp" in warning and "<b>" not in warning
    assert z(at, "mk_fig_cross").shape == (16, 4)                  # a, blue, ball, on: "b" (of the tag) is unknown too
    for text, message in [("", "no words"), ("zorp zorp", "None of the prompt's words"),
                          ("a a a a a a a a a", "at most 8")]:
        at.text_input(key="mk_prompt").set_value(text).run()
        assert not at.exception and message in texts(at), text


def test_the_scene_shades_the_chosen_word_and_names_ties():
    at = revealed()
    at.selectbox(key="mk_word").set_value("grass").run()
    words = PROMPT["prompt"].split()
    ref = cross_reference(words)
    np.testing.assert_allclose(z(at, "mk_fig_scene").ravel(), ref[:, words.index("grass")], atol=1e-12)
    assert "a ball patch on **red \\/ ball**" in texts(at)         # "/" escaped for Markdown, shown as typed
    assert "a sky patch spreads evenly over the words" in texts(at)


def test_the_trap_check_gives_feedback_on_every_option():
    assert not any(r.key == f"{SLUG}__check__masking_deletes" for r in open_page(SLUG).radio), "held back"
    feedback_follows_the_marked_answer(revealed(), SLUG, "masking_deletes")
