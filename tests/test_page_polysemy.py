"""AppTest for the polysemy page: every control moves what the lesson says it moves."""

from functools import partial

import numpy as np
import pandas as pd
import pytest

from devtools import apptest
from devtools.apptest import figure, metric, metrics
from ui.content import load_lesson

open_page = partial(apptest.open_page, "polysemy")


def z_text(at):
    return next(m.value for m in at.markdown if m.value.startswith("z = "))


def test_static_bank_dot_products_come_from_the_data():
    at = open_page()
    vocab = pd.read_csv("assets/vocab/polysemy_2d.csv", comment="#").set_index("word")
    static = vocab[vocab["group"] == "sense"][["x", "y"]].to_numpy().mean(axis=0)
    for word in ("water", "money"):
        assert metric(at, f"bank · {word}") == pytest.approx(static @ vocab.loc[word, ["x", "y"]].to_numpy(float),
                                                             abs=1e-4)
    assert any("[0.45, 0.7]" in m.value for m in at.markdown)


def test_context_words_steer_bank_to_their_sense():
    at = open_page()
    assert "leans **river**" in z_text(at)
    assert metric(at, "z → river") < metric(at, "z → finance")
    at.multiselect(key="pl_ctx").set_value(["money", "loan", "deposit"]).run()
    assert not at.exception
    assert "leans **finance**" in z_text(at)
    assert metric(at, "z → finance") < metric(at, "z → river")


def test_the_context_chart_draws_the_numbers_the_text_states():
    at = open_page()
    at.multiselect(key="pl_ctx").set_value(["water", "cash", "muddy"]).run()
    fig = figure(at, "pl_fig_context")
    bars, star = fig["data"][-1], next(t for t in fig["data"] if t.get("name") == "contextual bank z")
    assert list(bars["y"]) == ["bank", "water", "cash", "muddy"]                 # bank first: it attends to itself
    assert np.sum(bars["x"]) == pytest.approx(1.0)
    z = [float(v) for v in z_text(at).split("**[")[1].split("]**")[0].split(", ")]
    np.testing.assert_allclose([star["x"][0], star["y"][0]], z, atol=5e-5)        # the text rounds to 4 places
    p = np.asarray(bars["x"], dtype=float)
    assert metric(at, "weights' entropy") == pytest.approx(-(p * np.log(p)).sum(), abs=5e-4)


def test_lower_temperature_sharpens_the_weights():
    at = open_page()
    at.multiselect(key="pl_ctx").set_value(["water", "cash", "muddy"]).run()
    at.slider(key="pl_temp").set_value(2.0).run()
    flat = metric(at, "weights' entropy")
    at.slider(key="pl_temp").set_value(0.02).run()
    assert metric(at, "weights' entropy") < flat


def test_without_self_attention_bank_lands_among_its_neighbours():
    at = open_page()
    with_self = metric(at, "z → river")
    at.toggle(key="pl_self").set_value(False).run()
    assert metric(at, "z → river") < with_self


def test_empty_context_and_unknown_words_warn_without_crashing():
    at = open_page()
    at.toggle(key="pl_self").set_value(False).run()
    at.multiselect(key="pl_ctx").set_value([]).run()
    assert not at.exception and any("at least one word" in w.value for w in at.warning)
    at.multiselect(key="pl_ctx").set_value(["river", "<b>zebra</b>"]).run()
    assert not at.exception
    msg = next(w.value for w in at.warning if "vocabulary" in w.value)
    assert "zebra" in msg and "<b>" not in msg


def test_the_dimension_feedback_quotes_the_distances_at_the_chosen_d():
    """At d = 2 the sweep still has a shape, and the feedback quotes that d's own distances, not 0.71."""
    import numpy as np

    import attention_core as core

    at = open_page(pl_dim="2")
    choices = load_lesson("polysemy").predictions["bigger_d"].choices
    quoting = next(i for i, c in enumerate(choices) if not c.correct and "{near}" in c.feedback)
    radio = at.radio(key="polysemy__predict__bigger_d")
    radio.set_value(radio.options[quoting]).run()                  # the wrong choice whose feedback quotes d
    at.button(key="polysemy__predict__bigger_d__button").click().run()
    run = core.sense_experiment(2, np.random.default_rng([0, 2]))
    (said,) = [e.value for e in at.error]                   # the feedback on the wrong choice
    assert "at d = 2" in said and f"{run.dist_a:.3f}" in said and f"{run.dist_b:.3f}" in said
    assert f"({run.dist_senses / 2:.2f})" in said and "0.71" not in said
    xs = figure(at, "pl_fig_dims")["data"][0]["x"]
    assert len(xs) > 3 and min(xs) == 2 and max(xs) == 4096


def test_the_default_temperature_makes_attention_selective():
    at = open_page()
    w = figure(at, "pl_fig_context")["data"][-1]
    weights = np.asarray(w["x"] if w.get("orientation") == "h" else w["y"], dtype=float)
    assert weights.max() - weights.min() > 0.2, weights


def test_prediction_gates_the_dimension_experiment():
    at = open_page()
    assert not any(m.label == "static → river" for m in at.metric)
    apptest.choose(at, "polysemy", "predict", "bigger_d")
    at.button(key="polysemy__predict__bigger_d__button").click().run()
    assert at.success
    gap_300 = metric(at, "gap ÷ sense distance")
    at.select_slider(key="pl_dim").set_value(4096).run()
    assert not at.exception
    a, b = metric(at, "static → river"), metric(at, "static → finance")
    assert abs(a - b) / max(a, b) < 0.05 and gap_300 < 10
    assert metric(at, "in context → river") < a / 2
    seed_before = a
    at.number_input(key="pl_seed").set_value(5).run()
    assert metric(at, "static → river") != seed_before


def test_trap_check_gives_specific_feedback():
    at = open_page()
    assert not any(r.key == "polysemy__check__more_dims" for r in at.radio)    # it would answer the prediction
    apptest.reveal(at, "polysemy")
    apptest.feedback_follows_the_marked_answer(at, "polysemy", "more_dims")


def test_query_params_restore_the_state():
    at = open_page(**{"pl_temp": "0.1", "pl_ctx": ["money", "cash"], "pl_dim": "64", "pl_self": "false"})
    assert at.slider(key="pl_temp").value == pytest.approx(0.1)
    assert at.multiselect(key="pl_ctx").value == ["money", "cash"]
    assert at.select_slider(key="pl_dim").value == 64
    assert at.toggle(key="pl_self").value is False
    assert "leans **finance**" in z_text(at)


def test_tampered_query_params_fall_back_to_defaults():
    at = open_page(**{"pl_temp": "nan", "pl_dim": "99999", "pl_ctx": ["<script>"]})
    assert not at.exception
    assert at.slider(key="pl_temp").value == pytest.approx(0.05)
    assert at.select_slider(key="pl_dim").value == 300


def test_real_glove_vectors_show_bank_and_its_static_neighbours():
    import numpy as np

    import attention_core as core

    at = open_page()
    assert any(s.value == "With real vectors" for s in at.subheader)
    glove = core.load_glove()
    V = glove.vectors.astype(float)
    bank = glove.vector("bank").astype(float)
    cos = V @ bank / (np.linalg.norm(V, axis=1) * np.linalg.norm(bank) + 1e-12)
    top = [glove.words[i] for i in np.argsort(-cos) if glove.words[i] != "bank"][:3]
    caption = next(c.value for c in at.caption if "nearest of all" in c.value)
    for word in top:                                     # independently computed cosine neighbours
        assert f"{word} (" in caption


def test_softmax_is_first_met_on_the_classic_12_8_2():
    """Where softmax first appears, the scores 12, 8, 2 become weights computed here by hand from exp."""
    s = np.array([12.0, 8.0, 2.0])
    w = np.exp(s) / np.exp(s).sum()
    shown = apptest.texts(open_page())
    said = next(line for line in shown.splitlines() if line.startswith("**Softmax, first met.**"))
    assert f"**{w[0]:.4f}**" in said and f"**{w[1]:.4f}**" in said and f"**{w[2]:.6f}**" in said
    assert f"{w[0] / w[1]:.1f}-fold" in said


# ── Graded once (issue 47, item 12) and a tampered link's notice (item 14) ─────────────────────────────────────
def graded_once(slug: str, prediction: str) -> None:
    """A wrong prediction revealed, then the right option picked: the page grades the committed (wrong) answer,
    calls the later pick practice, and a reload of the browser's progress gives back the committed answer."""
    from ui import controls, progress

    at = open_page() if slug == "polysemy" else apptest.open_page(slug)
    key = controls.prediction_key(slug, prediction)
    apptest.choose(at, slug, "predict", prediction, right=False)
    committed = at.radio(key=key).value
    at.button(key=f"{key}__button").click().run()
    before = len(at.error), len(at.success)
    graded = at.error[0].value
    apptest.choose(at, slug, "predict", prediction, right=True)
    assert not at.exception
    # The committed answer's verdict stays first; the later pick's feedback follows, said to be practice.
    assert at.error[: before[0]] and at.error[0].value == graded, "the later pick was graded"
    assert len(at.success) == before[1] + 1
    assert any("practice" in c.value and "not graded" in c.value for c in at.caption)
    # What a reload gives back (the browser's copy of the progress) is the committed option, not the practice.
    options = [c.text for c in load_lesson(slug).predictions[prediction].choices]
    assert at.session_state[progress._KEY]["held"][slug][f"predict:{prediction}"][0] == options.index(committed)


def test_a_revealed_prediction_is_graded_as_committed_and_a_later_pick_is_practice():
    graded_once("polysemy", "bigger_d")


def test_a_tampered_links_notice_stays_through_a_rerun_until_a_control_moves():
    at = open_page(pl_temp="abc")
    notice = [w.value for w in at.warning if "could not use" in w.value]
    assert notice and "Temperature" in notice[0]
    at.run()                                      # a rerun the learner did not cause
    assert [w.value for w in at.warning if "could not use" in w.value] == notice
    at.slider(key="pl_temp").set_value(0.5).run()
    assert not [w.value for w in at.warning if "could not use" in w.value]


# ── Ties, zeros and what low temperature does (issue 47, items 4 and 10) ──────────────────────────────────────
def test_bank_alone_is_a_tie_said_as_one_with_zero_entropy_unsigned():
    at = open_page()
    at.multiselect(key="pl_ctx").set_value([]).run()                   # bank attends to itself only
    assert not at.exception
    d_river, d_finance = metric(at, "z → river"), metric(at, "z → finance")
    assert d_river == d_finance
    said = z_text(at)
    assert "both senses pull equally" in said and "leans **river**" not in said and "leans **finance**" not in said
    assert metrics(at)["weights' entropy"] == "0.000 nats"
    assert "-0.000" not in apptest.texts(at)


def test_the_temperature_sentence_states_the_share_the_page_computes():
    at = open_page()
    at.slider(key="pl_temp").set_value(0.02).run()
    bars = figure(at, "pl_fig_context")["data"][-1]
    weights, tokens = np.asarray(bars["x"], dtype=float), list(bars["y"])
    top = weights.max()
    winners = [t for t, w in zip(tokens, weights, strict=True) if abs(w - top) < 1e-9]
    line = next(m.value for m in at.markdown if "largest share" in m.value)
    assert f"{top:.1%}" in line and all(f"**{w}**" in line for w in winners)
    assert "hands almost everything" not in apptest.texts(at)


def test_river_and_money_keep_one_colour_on_both_maps():
    at = open_page()
    static_map, glove_map = figure(at, "pl_fig_static"), figure(at, "pl_real_map")
    by_name = {t.get("name"): t["marker"]["color"] for t in static_map["data"] if "marker" in t}
    glove = {t.get("name"): t["marker"]["color"] for t in glove_map["data"] if "marker" in t}
    assert glove["river"] == by_name["river words"] and glove["money"] == by_name["finance words"]
