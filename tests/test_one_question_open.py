"""No second "Ask the class" under an open question (issue 46): while one question is open to the class (asked, not
yet revealed), the presenter's other questions offer no "Ask the class" of their own but say which question is open
and how to end it; the open question shows its live panel. Once revealed or stopped, every question can be asked."""

from __future__ import annotations

from devtools.apptest import start_class
from tests.test_class_polls import CHECK, PREDICT
from tests.test_classroom_app import button_keys, go, snapshot
from ui.classroom.own_question import OWN_ASK
from ui.content import load_lesson

TITLE = load_lesson("sqrt_dk").title


def captions(at) -> list[str]:
    return [c.value for c in at.caption]


def presenter(page: str = "sqrt_dk"):
    pres, code, _ = start_class()
    go(pres, page)
    return pres, code


def press(at, key: str) -> None:
    at.button(key=key).click().run()
    assert not at.exception, [e.value for e in at.exception]


def other_open(at) -> list[str]:
    return [c for c in captions(at) if "is open to the class" in c]


def test_an_open_question_takes_the_other_questions_ask_buttons_away():
    pres, code = presenter()
    assert {f"_class_ask__{PREDICT}", f"_class_ask__{CHECK}"} <= button_keys(pres) and not other_open(pres)
    press(pres, f"_class_ask__{PREDICT}")
    keys = button_keys(pres)
    assert f"_class_ask__{CHECK}" not in keys and f"_class_ask__{PREDICT}" not in keys
    assert f"_class_reveal__{PREDICT}" in keys                     # the open question's own live panel
    said = other_open(pres)
    assert len(said) == 1 and "Another question of this page" in said[0] and "Stop asking" in said[0]
    assert snapshot(code).poll.poll_id == PREDICT


def test_revealed_or_stopped_every_question_can_be_asked_again():
    pres, code = presenter()
    press(pres, f"_class_ask__{PREDICT}")
    press(pres, f"_class_reveal__{PREDICT}")
    assert f"_class_ask__{CHECK}" in button_keys(pres) and not other_open(pres)   # revealed: no longer open
    press(pres, f"_class_ask__{CHECK}")
    assert snapshot(code).poll.poll_id == CHECK and f"_class_ask__{PREDICT}" not in button_keys(pres)
    press(pres, f"_class_stop__{CHECK}")
    assert {f"_class_ask__{PREDICT}", f"_class_ask__{CHECK}"} <= button_keys(pres) and not other_open(pres)


def test_a_question_open_on_another_page_is_named_by_its_lesson():
    pres, _ = presenter()
    press(pres, f"_class_ask__{PREDICT}")
    go(pres, "projection")
    assert not any(k.startswith("_class_ask__") for k in button_keys(pres))
    said = other_open(pres)
    assert said and all(f"A question of “{TITLE}”" in c for c in said)


def test_the_presenters_own_question_open_takes_the_lessons_ask_buttons_away():
    pres, code = presenter()
    pres.text_area(key="_class_own_text").set_value("Ready?")
    pres.text_area(key="_class_own_options").set_value("*Yes\nNo")
    pres.button(key=next(b.key for b in pres.button if b.label == OWN_ASK)).click().run()
    assert not pres.exception, [e.value for e in pres.exception]
    own = snapshot(code).poll.poll_id
    assert not any(k.startswith("_class_ask__") for k in button_keys(pres))
    assert other_open(pres) and all("Your own question" in c for c in other_open(pres))
    press(pres, f"_class_stop__{own}")
    assert f"_class_ask__{PREDICT}" in button_keys(pres)
