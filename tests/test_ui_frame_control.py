"""Frame.control: one call keys a lesson control with its page's prefix, mirrors it in the URL, and draws it
disabled while the session follows a class, or with ``idle=`` (its reason then its help)."""

from __future__ import annotations

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from ui import classroom, controls
from ui.inputs import format_matrix

SLUG = "sqrt_dk"
IDLE = "Nothing to set while the other switch is on."


def lesson_script():
    """A lesson's controls, one of each kind frame.control makes: a slider, a toggle that is idle while
    ``idle`` is set in the session, and a matrix box."""
    import numpy as np
    import streamlit as st

    from ui import inputs
    from ui.content import load_lesson
    from ui.frame import Frame

    frame = Frame(load_lesson("sqrt_dk"))
    d = frame.control(st.slider, "dk", "dₖ", 1, 64, 8)
    on = frame.control(st.toggle, "flag", "Flag", False,
                       idle="Nothing to set while the other switch is on." if st.session_state.get("idle") else None)
    M = frame.control(inputs.matrix_input, "m", "M", np.eye(2))
    st.write(f"d={d} on={on} M={None if M is None else M.tolist()} chart={frame.key('fig_x')}")


def run(**params: str) -> AppTest:
    at = AppTest.from_function(lesson_script, default_timeout=30)
    for name, value in params.items():
        at.query_params[name] = value
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def key(name: str) -> str:
    return controls.PREFIXES[SLUG] + "_" + name


def test_each_control_is_keyed_with_its_pages_prefix_and_nothing_else_is():
    at = run()
    assert at.slider(key=key("dk")).value == 8
    assert at.toggle(key=key("flag")).value is False
    assert at.text_area(key=key("m")).value == format_matrix(np.eye(2))
    assert f"chart={key('fig_x')}" in at.markdown[0].value
    assert all(controls.is_lesson_control(k) for k in (key("dk"), key("flag"), key("m")))


def test_a_link_sets_each_control_and_a_move_is_written_back_to_the_url():
    at = run(**{key("dk"): "20", key("flag"): "true", key("m"): "1, 2\n3, 4"})
    assert at.slider(key=key("dk")).value == 20
    assert at.toggle(key=key("flag")).value is True
    assert at.text_area(key=key("m")).value == "1, 2\n3, 4"
    # A Streamlit widget is bound: the browser writes its moves into the URL under its key ...
    assert [at.slider(key=key("dk")).proto.query_param_key, at.toggle(key=key("flag")).proto.query_param_key] == [
        key("dk"), key("flag")]
    # ... and the matrix box writes an accepted entry itself.
    at.text_area(key=key("m")).set_value("5, 6\n7, 8").run()
    assert at.query_params[key("m")] == "5, 6\n7, 8"


def test_every_control_is_disabled_while_the_session_follows_a_class(monkeypatch):
    assert all(not w.disabled for w in (run().slider(key=key("dk")), run().toggle(key=key("flag"))))
    monkeypatch.setattr(classroom, "holds_controls", lambda: True)
    at = run()
    drawn = [at.slider(key=key("dk")), at.toggle(key=key("flag")), at.text_area(key=key("m"))]
    assert all(w.disabled for w in drawn)
    with pytest.raises(Exception, match="disabled"):
        drawn[0].set_value(9)


def test_an_idle_control_is_disabled_with_its_reason_as_help():
    at = AppTest.from_function(lesson_script, default_timeout=30)
    at.session_state["idle"] = True
    at.run()
    flag = at.toggle(key=key("flag"))
    assert flag.disabled and flag.help == IDLE
    assert not at.slider(key=key("dk")).disabled, "only the idle control"


@pytest.mark.parametrize("own", ["key", "disabled", "bind"])
def test_a_page_cannot_pass_what_frame_control_sets(own):
    from ui.content import load_lesson
    from ui.frame import Frame

    with pytest.raises(TypeError, match=own):
        Frame(load_lesson(SLUG)).control(lambda *a, **k: None, "dk", "dₖ", **{own: None})


def test_a_refused_links_notice_survives_a_rerun_that_stops_the_first_run_at_the_address_change(monkeypatch):
    """A component reporting its value can ask for a rerun while the first run is going; Streamlit then stops
    that run at its next message, and changing the address is one. Simulated here: the first pop of the
    address raises what a pending rerun raises."""
    from streamlit.runtime.scriptrunner_utils.exceptions import RerunException
    from streamlit.runtime.scriptrunner_utils.script_requests import RerunData
    from streamlit.runtime.state.query_params import QueryParams

    remove = QueryParams.__delitem__                      # what st.query_params.pop calls
    stopped = []

    def stopped_once(self, name):
        if name == key("m") and not stopped:
            stopped.append(name)
            raise RerunException(RerunData())
        return remove(self, name)

    monkeypatch.setattr(QueryParams, "__delitem__", stopped_once)
    at = run(**{key("m"): "1, [phish](http://127.0.0.1:9/login)"})
    assert stopped                                        # the first run did stop at the address change
    assert any("could not be used" in w.value for w in at.warning), [w.value for w in at.warning]
    assert at.text_area(key=key("m")).value == format_matrix(np.eye(2))
    assert key("m") not in at.query_params


@pytest.mark.parametrize("link", [None, "1, 2\n3, 4", "1, [phish](http://127.0.0.1:9/login)"])
def test_a_matrix_boxs_default_is_the_text_it_shows_on_every_run(link):
    """The browser mounts a box at its element default whenever the run that set its value was overtaken (a
    component's rerun came first): that run's successor no longer pushes the value (docs/RELIABILITY.md). So
    the default itself must be the text the box shows, on the first run and on every one after."""
    at = run(**({key("m"): link} if link is not None else {}))
    shown = format_matrix(np.eye(2)) if link is None or "phish" in link else link
    for _ in range(2):                                   # the run that sets it, and one that only reruns
        box = at.text_area(key=key("m"))
        assert box.value == shown
        assert box.proto.default == shown, (box.proto.default, shown)
        at.run()
    box.set_value("2, 0\n0, 2").run()                     # typed: the default follows the new text
    assert at.text_area(key=key("m")).proto.default == "2, 0\n0, 2"
