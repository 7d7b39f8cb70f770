"""ui.controls: ``set_lesson_controls`` is the inverse of ``lesson_controls``. A page's lesson controls read as
link values (what "Link to this view" and a class carry) and put back into the session give the same state,
value and type, for every kind of widget a lesson control is (tests/test_ui_frame_control.py: frame.control)."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from ui import controls

SLUG = "sqrt_dk"
P = controls.PREFIXES[SLUG] + "_"
APPLY = "_test_apply"          # link values for the next run to put back, before its widgets are drawn
LINK = "_test_link"            # the link values of the run's controls, read after its widgets

# One control of each kind and value type, with two states (A, then B) that differ in every control.
STATES = {
    P + "int_slider": (7, 60),
    P + "float_slider": (0.1, -2.5e-7),
    P + "int_range": ((2, 9), (0, 100)),
    P + "float_range": ((0.25, 1e-3), (-1.5, 3.0)),
    P + "toggle": (True, False),
    P + "checkbox": (False, True),
    P + "int_number": (-12, 10**12),
    P + "float_number": (1 / 3, 6.02214076e23),
    P + "selectbox": ("a b, c", "true"),
    P + "int_selectbox": (3, 1),
    P + "radio": ("ünïcode ✓", "3"),
    P + "select_slider": ("low", "high"),
    P + "select_range": (("low", "mid"), ("mid", "high")),
    P + "multiselect": (["a b, c", "3"], []),
    P + "pills": ("true", "x"),
    P + "segmented": ("b", "a"),
    P + "text_input": ("", "two words & <b>markup</b>"),
    P + "text_area": ("line one\nline two", "1e5"),
}


def controls_script():
    """Every kind of lesson control, keyed as frame.control keys them; link values from APPLY are put back
    first, as a following student's run does before it draws its widgets."""
    import streamlit as st

    from ui import controls

    p, ss = controls.PREFIXES["sqrt_dk"] + "_", st.session_state
    if "_test_apply" in ss:
        controls.set_lesson_controls(ss.pop("_test_apply"))
    words = ["a b, c", "true", "3", "ünïcode ✓", "x", "low", "mid", "high"]
    st.slider("i", 0, 100, 5, key=p + "int_slider")
    st.slider("f", -5.0, 5.0, 0.0, key=p + "float_slider")
    st.slider("ir", 0, 100, (10, 20), key=p + "int_range")
    st.slider("fr", -5.0, 5.0, (0.0, 1.0), key=p + "float_range")
    st.toggle("t", key=p + "toggle")
    st.checkbox("c", key=p + "checkbox")
    st.number_input("in", value=0, key=p + "int_number")
    st.number_input("fn", value=0.0, key=p + "float_number")
    st.selectbox("s", words, key=p + "selectbox")
    st.selectbox("is", [1, 2, 3], key=p + "int_selectbox")
    st.radio("r", words, key=p + "radio")
    st.select_slider("ss", ["low", "mid", "high"], key=p + "select_slider")
    st.select_slider("sr", ["low", "mid", "high"], value=("low", "high"), key=p + "select_range")
    st.multiselect("m", words, key=p + "multiselect")
    st.pills("p", words, key=p + "pills")
    st.segmented_control("sc", ["a", "b"], key=p + "segmented")
    st.text_input("ti", key=p + "text_input")
    st.text_area("ta", key=p + "text_area")
    ss["_test_link"] = controls.lesson_controls("sqrt_dk")


def _typed(value: object) -> object:
    """A value with its type spelled out, lists and tuples item by item: True is not 1, (1, 2) is not [1, 2]."""
    if isinstance(value, list | tuple):
        return type(value).__name__, [_typed(v) for v in value]
    return type(value).__name__, value


def _state(at: AppTest) -> dict[str, object]:
    return {name: _typed(at.session_state[name]) for name in STATES}


def _run(at: AppTest) -> AppTest:
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _set(at: AppTest, which: int) -> dict[str, object]:
    for name, values in STATES.items():
        at.session_state[name] = values[which]
    _run(at)
    return _state(at)


@pytest.fixture
def app() -> AppTest:
    return _run(AppTest.from_function(controls_script, default_timeout=30))


def test_state_to_link_values_and_back_is_the_same_state_for_every_kind_of_control(app):
    a = _set(app, 0)
    assert a == {name: _typed(values[0]) for name, values in STATES.items()}   # the widgets took state A
    link = app.session_state[LINK]
    assert set(link) == set(STATES) and all(isinstance(v, str) for vs in link.values() for v in vs)
    b = _set(app, 1)
    assert all(a[name] != b[name] for name in STATES)                  # every control moved
    app.session_state[APPLY] = link
    _run(app)
    assert _state(app) == a
    assert app.session_state[LINK] == link                              # and the link reads the same again


def test_a_value_the_widget_cannot_take_is_skipped_and_the_rest_applied(app):
    a = _set(app, 0)
    link = dict(app.session_state[LINK])
    _set(app, 1)
    link[P + "toggle"] = ["yes"]                                        # not true/false
    link[P + "int_number"] = ["1.5"]                                    # not an int
    link[P + "float_slider"] = ["inf"]                                  # not finite
    link[P + "selectbox"] = ["a", "b"]                                  # two values for one
    link["_class_state"] = ["x"]                                        # not a lesson control: never touched
    app.session_state[APPLY] = link
    _run(app)
    moved = _state(app)
    kept = {P + "toggle", P + "int_number", P + "float_slider", P + "selectbox"}
    assert {n: v for n, v in moved.items() if n not in kept} == {n: v for n, v in a.items() if n not in kept}
    assert all(moved[n] == _typed(STATES[n][1]) for n in kept)         # still state B's values
    assert "_class_state" not in app.session_state


def test_a_control_the_session_does_not_hold_yet_takes_its_value_from_the_link():
    at = _run(AppTest.from_function(controls_script, default_timeout=30))
    at.session_state[APPLY] = {P + "not_drawn": ["0.5"], P + "several": ["a", "b"]}
    _run(at)
    assert (at.query_params[P + "not_drawn"], at.query_params[P + "several"]) == ("0.5", ["a", "b"])   # as a link
