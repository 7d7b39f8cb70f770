"""The concept check page speaks to a class in class (issue 46): a following student (and the presenter, whose
screen the room sees) reads what the class does, not the solo flow of two tries; alone, the solo flow. The words
are the lesson file's notes, read here, not copied."""

from __future__ import annotations

from devtools.apptest import fresh, open_page, start_class, texts
from tests.test_class_presenter import end
from tests.test_classroom_app import go
from ui.content import load_lesson

NOTES = load_lesson("concept_check").notes
SOLO, CLASS = NOTES["how"].strip(), NOTES["in_class"].strip()


def _says(at, note: str) -> bool:
    return note in [m.value for m in at.markdown]


def test_the_two_notes_differ_and_the_class_one_names_what_the_class_does():
    assert SOLO != CLASS
    assert "presenter" in CLASS and "first try" not in CLASS.lower()


def test_a_learner_on_their_own_reads_the_solo_flow():
    at = open_page("concept_check")
    assert _says(at, SOLO) and not _says(at, CLASS)


def test_in_class_the_presenter_and_a_following_student_read_what_the_class_does():
    pres, code, _ = start_class()
    student = fresh(room=code)
    go(pres, "concept_check")
    student.run()                                              # follows the presenter to the concept check
    for at in (pres, student):
        assert _says(at, CLASS) and not _says(at, SOLO), texts(at)[:400]
    assert "When the presenter opens the check" in texts(student)
    student.button(key="_class_explore").click().run()         # on their own: the solo check, and where the class's is
    assert _says(student, SOLO) and "the class's check appears here when you follow again" in texts(student)
    student.button(key="_class_follow").click().run()
    assert _says(student, CLASS)
    end(pres)
