"""The presenter console (ui/classroom/console.py) through AppTest: the console link shows the current step's
speaker notes, the next step's label, the clock and the counts, and follows Next; the projector (a presenter
session without the console) and the students show none of the notes."""

from __future__ import annotations

import time

from streamlit.testing.v1 import AppTest

from devtools.apptest import class_state, fresh, start_class, texts
from ui import classroom
from ui.classroom import console
from ui.content import load_lesson

SLUG = "polysemy"


def go(at: AppTest, slug: str) -> AppTest:
    at.switch_page(f"pages/{slug}.py").run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def every_note() -> list[str]:
    return [n.strip() for n in load_lesson(SLUG).speaker_notes.values()]


def shown_notes(at: AppTest) -> list[str]:
    """The speaker notes (of any step of the lesson) the page shows, in the main area or the sidebar."""
    said = texts(at) + "\n" + "\n".join(m.value for m in at.sidebar.markdown)
    return [n for n in every_note() if n in said]


def test_step_names_come_from_the_page_in_order():
    names = console.step_names(SLUG)
    assert len(names) == 3 and names == tuple(load_lesson(SLUG).speaker_notes)[:3]
    assert console.notes_for(SLUG, 2) == load_lesson(SLUG).speaker_notes[names[1]].strip()
    assert console.notes_for(SLUG, 0) == "" and console.notes_for(SLUG, 4) == ""
    assert console.step_names("home") == ()


def test_the_console_shows_the_current_steps_notes_and_the_projector_none():
    projector, code, key = start_class(present="1")
    go(projector, SLUG)
    student = fresh(room=code)
    assert not shown_notes(projector), "the projector shows speaker notes"

    phone = fresh(room=code, key=key, console="1")              # the console link, on the presenter's phone
    assert not phone.exception, [e.value for e in phone.exception]
    assert class_state(phone).role == "presenter"
    assert "console" not in phone.query_params
    names = console.step_names(SLUG)
    first, second = (load_lesson(SLUG).speaker_notes[n].strip() for n in names[:2])
    assert shown_notes(phone) == [first], "the console shows the first step's notes, and only those"
    labels = [m.value for m in phone.markdown] + [c.value for c in phone.caption]
    assert any("Next:" in c and "Let the sentence steer" in c for c in labels), labels
    assert any("following" in m for m in labels), "no count of the students following"

    phone.button(key=f"{SLUG}__step__next").click().run()      # the class's own Next, under the console
    assert not phone.exception, [e.value for e in phone.exception]
    assert shown_notes(phone) == [second]
    assert classroom.room_store().snapshot(code, time.time()).step == 2

    asked = next(b.key for b in projector.button if b.key and b.key.startswith("_class_ask__"))
    projector.button(key=asked).click().run()                  # a question open: the console counts answers
    phone.run()
    assert any("1 following · 0 answered" in m.value for m in phone.markdown), [m.value for m in phone.markdown]
    projector.run()
    student.run()
    assert not shown_notes(projector), "the projector shows speaker notes"
    assert not shown_notes(student), "a student sees speaker notes"
    assert "Step 2 of 3" in texts(student)


def test_the_toggle_turns_the_console_on_for_one_screen_only():
    projector, code, key = start_class(present="1")
    go(projector, SLUG)
    assert projector.sidebar.toggle(key=console.TOGGLE).value is False
    projector.sidebar.toggle(key=console.TOGGLE).set_value(True).run()
    assert shown_notes(projector) == [console.notes_for(SLUG, 1)]
    laptop = fresh(room=code, key=key)                           # the presenter link without the console
    assert class_state(laptop).role == "presenter" and not shown_notes(laptop)


def test_the_console_link_is_offered_with_the_class_start():
    projector, _, key = start_class(present="1")
    codes = [c.value for c in projector.sidebar.code]
    link = next(c for c in codes if "console=1" in c)
    assert f"key={key}" in link and "since=" in link
    since = int(link.split("since=")[1].split("&")[0])
    assert time.time() - 120 < since <= time.time()


def test_the_clock_reads_as_minutes_and_hours():
    assert [console.clock(s) for s in (0, 7, 247, 3729, -3)] == ["0:00", "0:07", "4:07", "1:02:09", "0:00"]


def test_out_of_presenter_mode_the_console_says_where_it_shows():
    laptop, _, _ = start_class()
    go(laptop, SLUG)
    laptop.sidebar.toggle(key=console.TOGGLE).set_value(True).run()
    assert not shown_notes(laptop)
    assert any("presenter mode" in c.value for c in laptop.sidebar.caption)


def test_the_console_reads_every_pages_step_names_as_a_parse_would_without_parsing():
    """The console reads a page's ``Step`` names as text (a parse in a session's thread is unsafe on Python 3.11:
    .streamlit/config.toml); it must find what a real parse finds, on every page."""
    import ast
    import inspect
    from pathlib import Path

    from ui.classroom import console

    assert "import ast" not in inspect.getsource(console)
    for page in sorted((Path(__file__).resolve().parent.parent / "pages").glob("*.py")):
        want: tuple[str, ...] = ()
        for node in ast.parse(page.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.ClassDef) and node.name == "Step":
                want = tuple(t.id for a in node.body if isinstance(a, ast.Assign)
                             for t in a.targets if isinstance(t, ast.Name))
        assert console.step_names(page.stem) == want, page.stem


def _wiped_before_the_panel() -> None:
    """A presenter link's runs when the browser's answer to the address wipe interrupts the first run before
    the presenter's panel: the first run reads the link (``keep_link``), the next one comes with the wiped
    address (no ``console``, no ``since``) and only then is the session a presenter."""
    import streamlit as st

    from ui import streamlit_private as private
    from ui.classroom import console
    from ui.classroom.session import state

    if not st.session_state.get("_test_linked"):
        console.keep_link()
        st.session_state["_test_linked"] = True
        st.stop()
    private.drop_query_params(console.CONSOLE_PARAM, console.SINCE_PARAM)
    s = state()
    s.role, s.code = "presenter", "K7MQ2P"
    console.arrive()
    st.write(f"console {'on' if console.on() else 'off'}, since {st.session_state[console._STARTED][1]:.0f}")


def test_a_console_links_choice_outlives_the_address_wipe():
    since = int(time.time()) - 300
    at = AppTest.from_function(_wiped_before_the_panel)
    at.query_params.update(console="1", since=str(since))
    at.run()
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert [m.value for m in at.markdown] == [f"console on, since {since}"]
