"""AppTest for the queries/keys/values page: hard vs soft lookup, temperature, and the orthogonal-query trap."""

import re
from functools import partial

import pytest

from devtools import apptest
from ui.content import load_lesson

open_page = partial(apptest.open_page, "queries_keys_values")
PRED = "queries_keys_values__predict__it_attends"


def hard(at):
    return next(x.value for x in [*at.success, *at.info] if "Match:" in x.value or "null" in x.value)


def soft(at):
    return next(s.value for s in at.success if s.value.startswith("Most weight"))


def top_share(at):
    return float(re.search(r"\(([0-9.]+)%\)", soft(at)).group(1))


def spread(at):
    text = next(c.value for c in at.caption if "Spread" in c.value)
    return float(re.search(r"weights: ([0-9.]+) nats", text).group(1))


def test_default_query_matches_one_key_exactly_and_soft_agrees():
    at = open_page()
    assert "Match: **Replace a bicycle chain**" in hard(at)
    assert "Replace a bicycle chain" in soft(at)


def test_an_inexact_query_gets_null_from_the_hard_lookup_but_a_blend_from_the_soft_one():
    at = open_page()
    at.slider(key="qkv_q3").set_value(0.25).run()
    assert "null" in hard(at)
    assert soft(at).startswith("Most weight: **Replace a bicycle chain**")


def test_building_a_cooking_query_moves_the_soft_lookup():
    at = open_page()
    for key, v in (("qkv_q1", 0.0), ("qkv_q2", 0.0), ("qkv_q3", 1.0)):
        at.slider(key=key).set_value(v).run()
    assert "Match: **Sourdough for beginners**" in hard(at)
    at.slider(key="qkv_q4").set_value(1.0).run()
    assert "Cooking with jazz" in soft(at) and "null" not in hard(at)


def test_temperature_runs_from_nearly_hard_to_uniform():
    at = open_page()
    at.slider(key="qkv_q3").set_value(0.25).run()                  # no exact match
    at.select_slider(key="qkv_temp").set_value(0.02).run()
    assert top_share(at) > 99.0 and spread(at) < 0.05
    at.select_slider(key="qkv_temp").set_value(100.0).run()
    assert top_share(at) < 22.0 and spread(at) == pytest.approx(1.609, abs=0.01)   # log 5


def test_prediction_gates_the_self_attention_result_and_it_looks_away():
    at = open_page()
    assert not any("on itself" in m.label for m in at.metric)
    at.radio(key=PRED).set_value("On robot.").run()
    at.button(key=f"{PRED}__button").click().run()
    assert any(s.value.startswith("Yes. The scores of “it” are robot 6, repaired 0, itself 0") for s in at.success)
    own = next(m for m in at.metric if m.label == "weight of “it” on itself")
    assert float(own.value) < 0.1
    assert next(m for m in at.metric if "attends most to" in m.label).value.startswith("robot ")
    assert any("is **0.00**: its query is at right angles to its own key, so it looks mostly at “robot”." in m.value
               for m in at.markdown)
    at.radio(key="qkv_tok").set_value("robot").run()
    assert next(m for m in at.metric if "attends most to" in m.label).value.startswith("repaired ")
    assert any("so it looks mostly at “repaired”." in m.value for m in at.markdown)


def test_queries_equal_to_keys_make_every_token_attend_to_itself():
    at = open_page()
    at.radio(key=PRED).set_value("On itself.").run()
    at.button(key=f"{PRED}__button").click().run()
    assert at.error
    asked = at.radio(key=PRED).label
    at.toggle(key="qkv_same").set_value(True).run()
    # The committed answer stays with the question it answered (and its verdict) ...
    assert at.radio(key=PRED).label == asked and at.radio(key=PRED).value == "On itself." and at.error
    # ... until the learner asks again: with queries equal to keys the same answer is now the right one, and the
    # prompt quotes the new query.
    at.button(key=f"{PRED}__again").click().run()
    assert "is [0, 0, 3]; its own key is [0, 0, 3]" in at.radio(key=PRED).label
    at.radio(key=PRED).set_value("On itself.").run()
    at.button(key=f"{PRED}__button").click().run()
    assert any(s.value.startswith("Yes.") for s in at.success)
    assert float(next(m for m in at.metric if "on itself" in m.label).value) > 0.9
    assert next(m for m in at.metric if "attends most to" in m.label).value.startswith("it ")
    assert any("is **1.00**: its query points along its own key, so it looks mostly at itself." in m.value
               for m in at.markdown)


def test_trap_check_feedback():
    at = open_page()
    assert not any(r.key == "queries_keys_values__check__orthogonal_qk" for r in at.radio)
    apptest.reveal(at, "queries_keys_values")
    apptest.feedback_follows_the_marked_answer(at, "queries_keys_values", "orthogonal_qk")
    radio = at.radio(key="queries_keys_values__check__orthogonal_qk")
    radio.set_value(radio.options[load_lesson("queries_keys_values").check("orthogonal_qk").answer]).run()
    assert "robot" in at.success[-1].value                # the feedback names the word the page computed


def test_query_params_restore_the_state():
    at = open_page(**{"qkv_q1": "0", "qkv_q2": "1", "qkv_temp": "0.02"})
    assert at.slider(key="qkv_q2").value == 1.0 and at.select_slider(key="qkv_temp").value == 0.02
    assert "Match: **Fix a dripping tap**" in hard(at)


def test_tampered_query_params_fall_back():
    at = open_page(**{"qkv_q1": "1e309", "qkv_temp": "-3", "qkv_same": "<b>"})
    assert not at.exception
    assert at.slider(key="qkv_q1").value == 1.0 and at.select_slider(key="qkv_temp").value == 0.5


# ── Ties said as ties, and a readable score axis at q = 0 (issue 47, item 6) ────────────────────────────────────
def library_scores(q: list[float]):
    import numpy as np
    import pandas as pd

    from ui.lessons.queries_keys_values import LIBRARY_FILE

    library = pd.read_csv(LIBRARY_FILE, comment="#", skipinitialspace=True).set_index("title")
    K = library[[c for c in library.columns if c.startswith("k_")]].to_numpy(float)
    return list(library.index), K @ np.asarray(q)


def lookup_text(at) -> str:
    return next(s.value for s in at.success if "Blended value" in s.value)


def test_a_query_of_zeros_gives_every_video_the_same_weight_and_names_no_winner():
    at = open_page()
    for i in range(1, 5):
        at.slider(key=f"qkv_q{i}").set_value(0.0).run()
    titles, scores = library_scores([0, 0, 0, 0])
    assert (scores == 0).all()
    said = lookup_text(at)
    assert "Most weight: **" not in said and f"{1 / len(titles):.1%} each" in said
    ticks = apptest.figure(at, "qkv_fig_lookup")["layout"]["xaxis"]["range"]
    assert ticks[1] - ticks[0] >= 0.1                         # not a span of 10⁻⁹, ticked "100p, 200p"


def test_two_tied_videos_at_low_temperature_are_both_named():
    at = open_page()
    for i in range(1, 5):
        at.slider(key=f"qkv_q{i}").set_value(-1.0).run()
    at.select_slider(key="qkv_temp").set_value(0.02).run()
    titles, scores = library_scores([-1, -1, -1, -1])
    winners = [t for t, s in zip(titles, scores, strict=True) if s == scores.max()]
    said = lookup_text(at)
    if len(winners) > 1:
        assert "a tie" in said and all(f"**{w}**" in said for w in winners)
    else:
        assert said.startswith(f"Most weight: **{winners[0]}**")
