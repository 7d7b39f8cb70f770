"""A committed answer belongs to the learner: it keeps the question as it was asked, through bad input, slider
moves, a fixed input and a reload, and is graded on that question (ui/frame.py predict, check, exercise;
ui/progress.py keeps which option, by index, for the same question after a reload)."""

from __future__ import annotations

import json

import pytest

from devtools.apptest import open_page, texts
from ui import controls


def commit(at, slug: str, prediction: str, option: int = 0):
    """Pick an option of a prediction and reveal it; return the option's text."""
    key = controls.prediction_key(slug, prediction)
    picked = at.radio(key=key).options[option]
    at.radio(key=key).set_value(picked).run()
    at.button(key=f"{key}__button").click().run()
    assert not at.exception, [e.value for e in at.exception]
    return picked


def _walk(node, parents=()):
    yield node, parents
    for child in getattr(node, "children", {}).values():
        yield from _walk(child, (*parents, node))


def verdicts(at, key: str) -> list[str]:
    """The feedback shown in the bordered box of the question whose radio has this key."""
    box = next(parents[-1] for node, parents in _walk(at._tree)
               if getattr(node, "type", "") == "radio" and getattr(node, "key", None) == key)
    return [s.value for s in box.get("success")] + [e.value for e in box.get("error")]


def test_a_non_square_grid_on_the_masks_page_keeps_the_prediction_and_its_verdict():
    slug = "masks_and_cross_attention"
    at = open_page(slug)
    key = controls.prediction_key(slug, "causal_rows")
    picked = commit(at, slug, "causal_rows")
    before = verdicts(at, key)
    at.text_area(key="mk_scores").set_value("1, 2, 3\n4, 5, 6").run()         # 2 × 3: not square
    column = next(parents[-1] for node, parents in _walk(at._tree)
                  if getattr(node, "type", "") == "text_area" and getattr(node, "key", None) == "mk_scores")
    assert any("square" in e.value for e in column.get("error"))               # said beside the grid itself
    at.text_area(key="mk_scores").set_value("2, 0.5, 1, 0\n1, 2, 0.5, 1.5\n0.5, 1.5, 1, 2\n0, 1, 2, 1").run()
    assert not at.exception and not any("square" in e.value for e in at.error)
    assert at.radio(key=key).value == picked
    assert verdicts(at, key) == before and before


def test_the_formula_page_names_the_box_that_does_not_fit_and_keeps_every_answer():
    slug = "scaled_formula"
    at = open_page(slug)
    exercise = controls.exercise_key(slug, "top_weight")
    at.number_input(key=exercise).set_value(0.25).run()
    picked = commit(at, slug, "top_key")
    key = controls.prediction_key(slug, "top_key")
    before = verdicts(at, key)
    at.text_area(key="sf_q").set_value("1, 0, 1").run()                         # 3 numbers against K's 4
    errors = [e.value for e in at.error]
    assert any(m.startswith("Each query in Q now has 3 numbers, but each key in K has 4") for m in errors), errors
    assert not any("K must have" in m for m in errors)
    at.text_area(key="sf_q").set_value("1, 0, 1, 0").run()
    assert at.number_input(key=exercise).value == 0.25
    assert at.radio(key=key).value == picked
    assert verdicts(at, key) == before and before


def test_the_formula_page_blames_k_when_k_was_the_box_changed():
    at = open_page("scaled_formula")
    at.text_area(key="sf_k").set_value("1, 1, 0\n0, 0, 1\n1, 0, 1").run()
    assert any(e.value.startswith("Each key in K now has 3 numbers, but each query in Q has 4") for e in at.error)
    at.text_area(key="sf_k").set_value("1, 1, 0, 0\n0, 0, 1, 1").run()
    assert any(e.value.startswith("K now has 2 keys, but V has 3 value rows") for e in at.error)


@pytest.mark.parametrize("slug, prediction, control, value", [
    ("rnn_vs_attention", "decay", "rn_rho", 0.5),
    ("rnn_vs_attention", "decay", "rn_len", 400),
    ("convex_blending", "where_z", "cb_a1", 0.05),
    ("real_model_lab", "top_key", "lab_layer", 3),
])
def test_a_slider_move_keeps_the_prediction_with_its_question_as_asked(slug, prediction, control, value):
    at = open_page(slug)
    key = controls.prediction_key(slug, prediction)
    asked = at.radio(key=key).label
    picked = commit(at, slug, prediction, option=1)
    before = verdicts(at, key)
    at.slider(key=control).set_value(value).run()
    assert not at.exception
    radio = at.radio(key=key)
    assert (radio.label, radio.value) == (asked, picked)
    assert verdicts(at, key) == before and before
    assert "the controls have moved since" in texts(at)
    # The learner may let go of it, and is then asked the question as it is now.
    at.button(key=f"{key}__again").click().run()
    assert at.radio(key=key).value is None
    assert any(b.key == f"{key}__button" for b in at.button)


def test_the_multi_head_prediction_stays_about_the_word_it_was_asked_about():
    slug = "multi_head"
    at = open_page(slug)
    key = controls.prediction_key(slug, "real_heads")
    asked = at.radio(key=key).label
    picked = commit(at, slug, "real_heads")
    words = at.selectbox(key="mh_target").options
    other = next(w for w in words if w != at.selectbox(key="mh_target").value and w.isalpha())
    at.selectbox(key="mh_target").set_value(other).run()
    assert (at.radio(key=key).label, at.radio(key=key).value) == (asked, picked)


def reopened(stored: dict, slug: str, **params: str):
    """A new session (a reload) whose browser had kept ``stored`` as its progress (ui/progress.py's copy)."""
    import copy

    from streamlit.testing.v1 import AppTest

    from devtools.apptest import APP

    at = AppTest.from_file(APP, default_timeout=60)
    at.session_state["_progress"] = copy.deepcopy(stored)     # what sync() merges from localStorage
    at.session_state["_progress_loaded"] = True
    at.run()
    for name, value in params.items():
        at.query_params[name] = value
    at.switch_page(f"pages/{slug}.py").run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_a_reload_gives_back_a_revealed_prediction_and_a_check_answer_of_the_same_question():
    from ui.content import page_index
    from ui.progress import clean

    slug = "rnn_vs_attention"
    at = open_page(slug)
    key = controls.prediction_key(slug, "decay")
    picked = commit(at, slug, "decay", option=1)
    before = verdicts(at, key)
    check = controls.check_key(slug, "lstm")
    answered = at.radio(key=check).options[2]
    at.radio(key=check).set_value(answered).run()
    # What the browser keeps is only an option's index and the question's digest, and clean() lets it through.
    stored = clean(json.dumps(at.session_state["_progress"]), {p.slug for p in page_index()})
    assert stored["held"][slug]["predict:decay"][0] == 1
    again = reopened(stored, slug)
    assert again.radio(key=key).value == picked and verdicts(again, key) == before
    assert not any(b.key == f"{key}__button" for b in again.button)
    assert again.radio(key=check).value == answered
    # At other settings it is another question: asked afresh.
    other = reopened(stored, slug, rn_rho="0.5")
    assert other.radio(key=key).value is None and any(b.key == f"{key}__button" for b in other.button)


def test_an_exercise_answer_is_graded_on_the_numbers_it_was_typed_for_until_asked_again():
    slug = "scaled_formula"
    at = open_page(slug)
    exercise = controls.exercise_key(slug, "top_weight")

    def shown() -> tuple[list[str], list[str]]:
        prompts = [m for m in texts(at).split("\n") if m.startswith("**Work it out by hand.**")]
        feedback = [s.value for s in at.success] + [e.value for e in at.error]
        return prompts, [f for f in feedback if f.startswith(("Correct:", "Not quite:"))]

    before_prompt, _ = shown()
    at.number_input(key=exercise).set_value(0.5).run()                        # right or wrong: graded below
    prompts, verdict_before = shown()
    assert prompts == before_prompt and len(verdict_before) == 1
    at.text_area(key="sf_q").set_value("3, 0, 1, 2").run()                    # new scores, new right answer
    assert not at.exception
    prompts, verdict_after = shown()
    assert prompts == before_prompt and verdict_after == verdict_before       # the same question, the same verdict
    again = at.button(key=f"{exercise}__again")
    again.click().run()
    prompts, verdict_now = shown()
    assert prompts and prompts != before_prompt and not verdict_now
    assert at.number_input(key=exercise).value is None
