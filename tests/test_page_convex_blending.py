"""AppTest for the convex blending page: the seed's blend, both weight modes, leaving the simplex, bad input."""

import re

import numpy as np
import pytest

from devtools import apptest
from devtools.apptest import metric

PRED = "convex_blending__predict__where_z"


def open_page(reveal=True, **params):
    """The page, with the where-is-z prediction answered and revealed unless ``reveal`` is False."""
    at = apptest.open_page("convex_blending", **params)
    if reveal:
        at.radio(key=PRED).set_value(at.radio(key=PRED).options[0]).run()
        at.button(key=f"{PRED}__button").click().run()
    return at


def z_of(at):
    text = next(m.value for m in at.markdown if m.value.startswith("**z ="))
    return [float(v) for v in re.search(r"= \[([-0-9.]+), ([-0-9.]+)\]\*\*", text).groups()]


def verdict(at):
    return next(x.value for x in [*at.success, *at.error] if "the bound" in x.value)


def test_prediction_hides_z_until_revealed():
    at = open_page(reveal=False)
    assert not any(m.value.startswith("**z =") for m in at.markdown) and not at.metric
    at.radio(key=PRED).set_value("Outside the hull").run()
    at.button(key=f"{PRED}__button").click().run()
    assert at.error[0].value.startswith("Not quite") and "inside the hull" in at.error[0].value
    assert z_of(at) == [0.215, 0.830]


def test_the_classic_blend_lands_nearest_muddy_though_river_weighs_most():
    """α = (0.6, 0.3, 0.1): z = [0.215, 0.830] is 0.034 from muddy and 0.135 from river."""
    at = open_page(reveal=False)
    radio = at.radio(key=PRED)
    assert "(0.60, 0.30, 0.10) on river, bank, muddy" in radio.label
    at = open_page()
    at.radio(key=PRED).set_value("Inside the hull, nearest to muddy").run()
    assert at.success and "0.034 from muddy" in at.success[0].value
    shown = apptest.texts(at)
    assert "river has the biggest weight (0.60), yet z lands nearest to muddy, whose weight is only 0.10" in shown
    at.radio(key=PRED).set_value("Inside the hull, nearest to river").run()
    assert at.error and at.error[0].value.startswith("Not quite")


def test_the_prediction_follows_the_sliders():
    """Mostly bank: the prompt quotes the new weights, and 'nearest to bank' is the option marked right."""
    at = open_page(reveal=False)
    at.slider(key="cb_a1").set_value(0.1).run()
    at.slider(key="cb_a2").set_value(0.85).run()
    assert "(0.10, 0.85, 0.05)" in at.radio(key=PRED).label
    at.radio(key=PRED).set_value("Inside the hull, nearest to bank").run()
    at.button(key=f"{PRED}__button").click().run()
    assert at.success and at.success[0].value.startswith("Yes")
    z = np.array(z_of(at))
    X = np.array([[0.10, 0.90], [0.45, 0.70], [0.20, 0.80]])
    assert int(np.argmin(np.linalg.norm(X - z, axis=1))) == 1


def test_seed_muddy_river_bank_is_shown_exactly():
    at = open_page()
    assert z_of(at) == [0.215, 0.830]
    assert "inside the hull" in verdict(at) and "holds" in verdict(at)
    assert metric(at, "max ‖xⱼ‖") == pytest.approx(np.hypot(0.1, 0.9), abs=1e-4)


def test_moving_a_slider_moves_z_towards_that_token():
    at = open_page()
    at.slider(key="cb_a1").set_value(0.1).run()
    at.slider(key="cb_a2").set_value(0.85).run()                 # mostly bank now
    z = np.array(z_of(at))
    assert np.linalg.norm(z - [0.45, 0.70]) < np.linalg.norm([0.215, 0.83] - np.array([0.45, 0.70]))
    assert metric(at, "sum of weights") == pytest.approx(1.0)


def test_sliders_past_one_are_rescaled_with_a_warning():
    at = open_page()
    at.slider(key="cb_a1").set_value(0.9).run()
    assert any("scaled down" in w.value for w in at.warning)
    assert metric(at, "sum of weights") == pytest.approx(1.0) and metric(at, "smallest weight") == 0.0


def test_logits_mode_goes_through_softmax():
    at = open_page()
    at.radio(key="cb_mode").set_value("Logits through softmax").run()
    assert z_of(at) == pytest.approx([0.215, 0.830], abs=2e-3)  # the default logits are ln 0.6, ln 0.3, ln 0.1
    at.slider(key="cb_l3").set_value(5.0).run()                  # muddy takes nearly everything
    assert z_of(at) == pytest.approx([0.20, 0.80], abs=0.01)
    assert "inside the hull" in verdict(at)


def test_off_the_simplex_z_escapes_and_the_bound_can_break():
    at = open_page()
    at.toggle(key="cb_off").set_value(True).run()
    at.slider(key="cb_w1").set_value(2.0).run()
    at.slider(key="cb_w2").set_value(-1.0).run()
    assert "outside the hull" in verdict(at)
    at.slider(key="cb_w2").set_value(1.0).run()
    assert "is broken" in verdict(at) and metric(at, "‖z‖") > metric(at, "max ‖xⱼ‖")


def test_more_than_three_tokens_show_bars_and_seven_are_refused():
    at = open_page()
    at.text_area(key="cb_X").set_value("0.1, 0.9\n0.45, 0.7\n0.2, 0.8\n0.9, 0.4").run()
    assert not at.exception and any("Expected 4 labels" in w.value for w in at.warning)
    assert at.slider(key="cb_a3") is not None and metric(at, "sum of weights") == pytest.approx(1.0)
    at.text_input(key="cb_labels").set_value("river, bank, muddy, money").run()
    assert not any("labels" in w.value for w in at.warning)
    at.text_area(key="cb_X").set_value("\n".join(["0, 1"] * 7)).run()
    assert not at.exception and any("at most 6" in e.value for e in at.error)


@pytest.mark.parametrize("bad", ["", "0.1, nan", "1, 2, 3\n4, 5, 6", "<script>alert(1)</script>", "9" * 5000])
def test_bad_token_input_shows_an_error_not_a_traceback(bad):
    at = open_page()
    at.text_area(key="cb_X").set_value(bad).run()
    assert not at.exception and at.error
    assert any(m.value.startswith("### Takeaways") for m in at.markdown)     # the rest of the lesson still renders


def test_label_markup_is_cleaned():
    at = open_page()
    at.text_input(key="cb_labels").set_value("<b>river</b>, bank, muddy").run()
    assert not at.exception and not any("<b>" in m.value for m in at.markdown)


def test_trap_check_feedback():
    apptest.feedback_follows_the_marked_answer(open_page(), "convex_blending", "new_direction")


def test_query_params_restore_the_state():
    at = open_page(**{"cb_a1": "0.2", "cb_a2": "0.2", "cb_off": "false"})
    assert at.slider(key="cb_a1").value == pytest.approx(0.2)
    assert z_of(at) == pytest.approx(list(0.2 * np.array([0.1, 0.9]) + 0.2 * np.array([0.45, 0.7])
                                          + 0.6 * np.array([0.2, 0.8])), abs=1e-3)
    at = open_page(**{"cb_off": "true", "cb_w2": "-1"})
    assert at.toggle(key="cb_off").value is True and "outside the hull" in verdict(at)


def test_tampered_query_params_fall_back():
    at = open_page(**{"cb_a1": "abc", "cb_mode": "evil", "cb_off": "maybe"})
    assert not at.exception
    assert at.slider(key="cb_a1").value == pytest.approx(0.6) and z_of(at) == [0.215, 0.830]


def test_a_tampered_token_matrix_in_the_url_falls_back_with_a_notice():
    at = open_page(**{"cb_X": "1,2;3"}, reveal=False)
    assert not at.exception and not at.error
    notice = " ".join(w.value for w in at.warning)
    assert "could not be used" in notice and "same number of entries" in notice


def test_the_point_table_holds_the_tokens_and_the_revealed_blend_once_opened():
    at = open_page()
    assert not at.dataframe                                 # closed expanders send no table
    at.session_state["cb_fig_hull__numbers"] = True        # what opening "Show the numbers" sets
    table = at.run().dataframe[0].value
    assert list(table.columns) == ["x", "y"] and table.index[-1] == "z (blend)"
    assert table.loc["z (blend)"].to_numpy() == pytest.approx(z_of(at), abs=5e-5)
    hidden = open_page(reveal=False)
    hidden.session_state["cb_fig_hull__numbers"] = True
    assert "z (blend)" not in hidden.run().dataframe[0].value.index


def test_the_weight_table_matches_the_sliders_once_opened():
    at = open_page()
    at.session_state["cb_fig_simplex__numbers"] = True
    weights = at.run().dataframe[0].value["weight"].to_numpy()
    assert weights.sum() == pytest.approx(1.0) and len(weights) == 3


def test_the_check_and_trap_do_not_claim_a_blend_points_along_a_token():
    """Issue 47, item 7. A counter-example computed here: the page's own blend (0.6, 0.3, 0.1) of its own tokens
    stays inside their hull yet points in a direction none of them points in. So the lesson may say z stays in
    the hull, but must not say it cannot point "somewhere none of the tokens points"."""
    import re

    from ui.content import load_lesson

    SEED_X = np.array([[0.10, 0.90], [0.45, 0.70], [0.20, 0.80]])          # the page's river, bank, muddy
    z = np.array([0.6, 0.3, 0.1]) @ SEED_X
    angles = np.degrees(np.arctan2(SEED_X[:, 1], SEED_X[:, 0]))
    z_angle = np.degrees(np.arctan2(z[1], z[0]))
    assert np.all(np.abs(angles - z_angle) > 0.1)                    # a direction of its own …
    assert angles.min() <= z_angle <= angles.max()                   # … within the tokens' fan
    lesson = load_lesson("convex_blending")
    check = lesson.check("new_direction")
    claims = " ".join([lesson.trap, check.prompt, *(c.text for c in check.choices if c.correct)])
    assert not re.search(r"(?i)none of the (three )?tokens points|pointing somewhere new", claims)
