"""The step-by-step formula page: defaults from the seed, every control, and bad entries."""

import numpy as np
import pytest

import attention_core as core
from devtools.apptest import feedback_follows_the_marked_answer, texts

SEED = dict(Q=[[1, 0, 1, 0]], K=[[1, 1, 0, 0], [0, 0, 1, 1], [1, 0, 1, 1]], V=[[1, 2], [3, 4], [5, 6]])


def frame_of(at, n):
    return at.dataframe[n].value


def reveal(at, choice="k3"):
    """Commit to a prediction and reveal: the weights and the output are shown only after that."""
    at.radio(key="scaled_formula__predict__top_key").set_value(choice).run()
    at.button(key="scaled_formula__predict__top_key__button").click().run()
    return at


def test_weights_stay_hidden_until_a_prediction_is_revealed(open_page):
    at = open_page("scaled_formula")
    assert len(at.dataframe) == 2, "only scores and scaled scores before the prediction"
    assert at.button(key="scaled_formula__predict__top_key__button").disabled, "no reveal before a prediction"
    reveal(at, "k1")
    assert len(at.dataframe) == 4, "weights and output now appear; the chart's numbers wait for their expander"
    assert at.error[0].value.startswith("Not quite") and "k3 has the largest scaled score" in at.error[0].value
    assert "Not A tie" not in texts(at)
    assert at.session_state["_progress"]["answers"]["scaled_formula"]["predict:top_key"] is False


def test_tied_scores_make_the_tie_the_right_prediction(open_page):
    at = open_page("scaled_formula", sf_k="1,0,1,0\n1,0,1,0", sf_v="1,2\n3,4")
    reveal(at, "A tie for the top")
    assert at.success and "k1 and k2 share the largest scaled score" in at.success[0].value
    at.radio(key="scaled_formula__predict__top_key").set_value("k1").run()
    assert at.error and at.error[0].value.startswith("Not quite") and "a tie for the top" in at.error[0].value


def test_hand_computed_softmax_is_checked_with_a_tolerance(open_page):
    at = open_page("scaled_formula")
    answer = core.scaled_dot_product_attention(**SEED).weights[0, 0]     # k1's: naming the top key would give
    assert "weight of k1" in texts(at)                                     # the prediction below it away
    box = at.number_input(key="scaled_formula__exercise__top_weight")
    box.set_value(round(answer, 4)).run()
    assert at.success and f"{answer:.6f}" in at.success[0].value
    box.set_value(round(answer + 0.01, 4)).run()
    assert any("Not quite" in e.value for e in at.error)


def test_defaults_show_the_exact_seed_numbers(open_page):
    at = reveal(open_page("scaled_formula"))
    shown = texts(at)
    ref = core.scaled_dot_product_attention(**SEED)
    for a in ref.weights[0]:
        assert f"{a:.6f}" in shown
    assert "[" + ", ".join(f"{o:.6f}" for o in ref.output[0]) + "]" in shown
    assert "(1×4) · (4×3) → (1×3)" in shown                 # the formula's first term, picked by default
    np.testing.assert_allclose(frame_of(at, 0).to_numpy(), ref.scores, atol=1e-6)
    np.testing.assert_allclose(frame_of(at, 2).to_numpy(), ref.weights, atol=1e-6)
    np.testing.assert_allclose(frame_of(at, 3).to_numpy(), ref.output, atol=1e-6)


def test_turning_scaling_off_sharpens_the_weights(open_page):
    at = reveal(open_page("scaled_formula"))
    before = frame_of(at, 2).to_numpy().max()
    at.toggle(key="sf_scale").set_value(False).run()
    assert not at.exception
    after = frame_of(at, 2).to_numpy()
    ref = core.scaled_dot_product_attention(**SEED, scale=False).weights
    np.testing.assert_allclose(after, ref, atol=1e-6)
    assert after.max() > before
    assert "Scaling is off" in texts(at)


def test_adding_a_key_and_value_changes_the_shapes(open_page):
    at = reveal(open_page("scaled_formula"))
    at.text_area(key="sf_k").set_value("1,1,0,0\n0,0,1,1\n1,0,1,1\n0,1,0,1").run()
    at.text_area(key="sf_v").set_value("1,2\n3,4\n5,6\n7,8").run()
    assert not at.exception
    assert "(1×4) · (4×4) → (1×4)" in texts(at)
    assert frame_of(at, 2).shape == (1, 4)


def test_two_queries_show_a_heatmap_row_each(open_page):
    at = reveal(open_page("scaled_formula"))
    at.text_area(key="sf_q").set_value("1,0,1,0\n0,1,0,1").run()
    assert frame_of(at, 2).shape == (2, 3)
    assert "(2×4) · (4×3) → (2×3)" in texts(at)


def test_bad_entries_get_clear_messages_and_no_traceback(open_page):
    at = open_page("scaled_formula")
    cases = {
        "sf_q": ["1, 0, x, 0", "1, nan, 1, 0", "", "1, 0, 1", "<script>alert(1)</script>", "1e400, 0, 0, 0"],
        "sf_v": ["1, 2\n3, 4"],
    }
    for key, values in cases.items():
        for value in values:
            at.text_area(key=key).set_value(value).run()
            assert not at.exception, (key, value)
            assert at.error, f"no message for {key}={value!r}"
        at.text_area(key=key).set_value({"sf_q": "1, 0, 1, 0", "sf_v": "1, 2\n3, 4\n5, 6"}[key]).run()
        assert not at.error


@pytest.mark.parametrize("names", [("sf_scale", "sf_q"), ("scale", "Q")], ids=["keys", "older-link-names"])
def test_a_prepared_link_opens_in_that_state(open_page, names):
    at = reveal(open_page("scaled_formula", **{names[0]: "false", names[1]: "0, 1, 0, 1"}))
    assert not at.toggle(key="sf_scale").value
    assert at.text_area(key="sf_q").value == "0, 1, 0, 1"
    ref = core.scaled_dot_product_attention([[0, 1, 0, 1]], SEED["K"], SEED["V"], scale=False)
    np.testing.assert_allclose(frame_of(at, 2).to_numpy(), ref.weights, atol=1e-6)


def test_misconception_check_gives_feedback_on_each_option(open_page):
    at = reveal(open_page("scaled_formula"))            # the check waits for the prediction
    feedback_follows_the_marked_answer(at, "scaled_formula", "softmax_needed")


def test_a_tampered_link_falls_back_to_defaults_with_a_notice(open_page):
    at = open_page("scaled_formula", sf_q="<script>alert(1)</script>", sf_scale="banana", K="1e999")
    assert not at.exception
    assert at.text_area(key="sf_q").value == "1, 0, 1, 0" and at.toggle(key="sf_scale").value is True
    notices = " ".join(w.value for w in at.warning)
    # The link's notice names the control as the learner sees it (its label), not by its key.
    assert "could not be used" in notices and f"“{at.toggle(key='sf_scale').label}”" in notices
    assert "`sf_scale`" not in notices
    assert at.warning[0].value.startswith("This link had settings"), "the notice sits at the top of the page"
    assert not at.error, "the defaults were used, so nothing is left in error"
    q_notice = f"for {at.text_area(key='sf_q').label} could not"
    matrix_notice = [w.value for w in at.warning if q_notice in w.value]
    assert matrix_notice, notices
    at.toggle(key="sf_scale").set_value(False).run()    # a rerun the matrix box did not cause
    assert [w.value for w in at.warning if q_notice in w.value] == matrix_notice, "the notice stays"
    at.text_area(key="sf_q").set_value("0, 1, 0, 1").run()
    assert not [w.value for w in at.warning if q_notice in w.value], "editing the box answers the notice"


def test_link_to_this_view_carries_the_current_state(open_page):
    at = open_page("scaled_formula")
    at.toggle(key="sf_scale").set_value(False).run()
    at.text_area(key="sf_v").set_value("0, 1\n1, 0\n1, 1").run()
    assert not at.code, "the link is made when its popover opens, not on every rerun"
    at.session_state["scaled_formula__link"] = True       # what opening "Link to this view" sets
    link = at.run().code[-1].value
    assert "sf_scale=false" in link and "sf_v=0%2C+1%0A1%2C+0%0A1%2C+1" in link


def test_presenter_mode_steps_through_the_formula(open_page):
    at = open_page("scaled_formula", present="1")
    assert at.session_state["_present"] is True
    # On a projector each stage's numbers are a static table, whose type grows with presenter mode's.
    assert "Step 1 of 5" in texts(at) and len(at.table) == 1 and not at.dataframe
    for step in range(2, 6):
        at.button(key="scaled_formula__step__next").click().run()
        assert f"Step {step} of 5" in texts(at)
    assert at.button(key="scaled_formula__step__next").disabled
    reveal(at)
    assert len(at.table) == 4
    at.button(key="scaled_formula__step__back").click().run()
    assert "Step 4 of 5" in texts(at) and len(at.table) == 3
    np.testing.assert_allclose(at.table[0].value.to_numpy(), frame_of(reveal(open_page("scaled_formula")), 0))


def test_a_charts_numbers_are_sent_only_once_their_expander_is_opened(open_page):
    at = reveal(open_page("scaled_formula"))
    assert len(at.dataframe) == 4
    at.session_state["sf_fig_output__numbers"] = True         # what a click on "Show the numbers" sets
    at.run()
    assert len(at.dataframe) == 5
    np.testing.assert_allclose(frame_of(at, 4).to_numpy(), np.array(SEED["V"], dtype=float))


def test_each_term_of_the_formula_says_what_it_does_its_shape_and_its_stage(open_page):
    """The anatomy: shapes follow the inputs (checked against the trace's own matrices), stages are named."""
    at = open_page("scaled_formula", sf_q="1,0,1\n0,1,0", sf_k="1,0,0\n0,1,0\n0,0,1\n1,1,1", sf_v="1\n2\n3\n4")
    Q, K = np.array([[1, 0, 1], [0, 1, 0.]]), np.array([[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, 1.]])
    V = np.arange(1., 5)[:, None]
    ref = core.scaled_dot_product_attention(Q, K, V)

    def shape(m):
        return f"({m.shape[0]}×{m.shape[1]})"

    expect = {
        "Q Kᵀ": (f"{shape(Q)} · {shape(K.T)} → {shape(ref.scores)}", "① Scores"),
        "Kᵀ": (f"{shape(K)} → {shape(K.T)}", "Why Kᵀ?"),
        "÷ √dₖ": (f"{shape(ref.scores)} ÷ one number → {shape(ref.scaled)}", "② Scaled"),
        "softmax": (f"{shape(ref.scaled)} → {shape(ref.weights)}", "③ Weights"),
        "· V": (f"{shape(ref.weights)} · {shape(V)} → {shape(ref.output)}", "④ Output"),
    }
    for term, (said, stage) in expect.items():
        at.segmented_control(key="sf_term").set_value(term).run()
        box = next(i.value for i in at.info if i.value.startswith(f"**{term}.**"))
        assert said in box and stage in box, (term, box)
        assert "\\boxed" in at.latex[0].value
    at.toggle(key="sf_scale").set_value(False).run()
    at.segmented_control(key="sf_term").set_value("÷ √dₖ").run()
    assert "Switched off" in next(i.value for i in at.info if i.value.startswith("**÷ √dₖ.**"))



# ── The hand exercise (issue 47, item 13) ─────────────────────────────────────────────────────────────────────
EXERCISE = "scaled_formula__exercise__top_weight"


def test_the_exercise_takes_only_the_answer_rounded_to_the_four_decimals_shown(open_page):
    at = open_page("scaled_formula")
    answer = float(core.scaled_dot_product_attention(**SEED).weights[0, 0])
    rounded = round(answer, 4)
    off_by_one = rounded - 0.0001 if abs(rounded - 0.0001 - answer) < 0.0005 else rounded + 0.0001
    assert abs(off_by_one - answer) < 0.0005        # within the old tolerance, yet not the 4-decimal answer
    at.number_input(key=EXERCISE).set_value(off_by_one).run()
    assert at.error and not at.success
    at.number_input(key=EXERCISE).set_value(rounded).run()
    assert at.success and not at.error


def test_a_committed_answer_survives_a_change_of_q_and_an_empty_box(open_page):
    at = open_page("scaled_formula")
    answer = float(core.scaled_dot_product_attention(**SEED).weights[0, 0])
    at.number_input(key=EXERCISE).set_value(round(answer, 4)).run()
    assert at.success
    at.text_area(key="sf_q").set_value("0, 1, 0, 1").run()              # new scores: a new exercise, not this one
    new = float(core.scaled_dot_product_attention(Q=[[0, 1, 0, 1]], K=SEED["K"], V=SEED["V"]).weights[0, 0])
    assert round(new, 4) != round(answer, 4)
    at.number_input(key=EXERCISE).set_value(None).run()
    assert not at.exception
    assert any(s.value.startswith("Correct") for s in at.success), "the committed answer was dropped"
    assert any("box is empty" in c.value for c in at.caption)


def test_a_huge_number_is_refused_briefly_and_never_echoed(open_page):
    at = open_page("scaled_formula")
    at.number_input(key=EXERCISE).set_value(1e300).run()
    assert not at.exception
    said = [e.value for e in at.error]
    assert said and all(len(s) < 200 and "0000000000" not in s for s in said)
    assert not at.success
