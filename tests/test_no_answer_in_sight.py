"""No answer in sight (issue 46): while a question is open to the class, nothing on a following student's page
states its answer, in every lesson, for every prediction and check a class can be asked.

Each question's lesson file marks the phrases that state its answer (``answer_phrases``) and the pieces of the
frame that would give it away (``gives_away``, held back by ``ui.giveaway``). The sweep puts each question to a
class through AppTest, with the presenter at the last step (the most of the page a student can see), reads the
student's page while it is open (none of those phrases or pieces) and after the reveal (the pieces are back).
A step label is seen only at its own step, so the labels are checked against every question of their page here.
"""

from __future__ import annotations

import ast
import re
import time

import pytest

from devtools.apptest import class_state, fresh, open_page, reveal, start_class, texts
from tests.test_classroom_app import go
from ui import classroom, controls
from ui.classroom.polls import answer_key
from ui.content import APP_DIR, PIECES, _giveaways, lessons, load_lesson
from ui.giveaway import HIDDEN

LESSONS = [p.slug for p in lessons()]


def plain(text: str) -> str:
    """Text as read: no Markdown emphasis, one space between words, any case."""
    return " ".join(re.sub(r"[*`]", "", text).split()).casefold()


def seen(at) -> str:
    """Everything a student can read on the page: its text, headings, fold labels, metrics and the step bar."""
    parts = [texts(at)] + [h.value for kind in (at.title, at.header, at.subheader) for h in kind]
    parts += [e.label for e in at.expander]                      # a fold's label: a note's lead-in, in presenter mode
    parts += [f"{m.label} {m.value}" for m in at.metric]
    return plain("\n".join(parts))


def step_labels(slug: str) -> list[str]:
    """The values of the page's ``Step`` enum, read from its source."""
    tree = ast.parse((APP_DIR / "pages" / f"{slug}.py").read_text(encoding="utf-8"))
    steps = next((n for n in ast.walk(tree) if isinstance(n, ast.ClassDef) and n.name == "Step"), None)
    return [] if steps is None else [a.value.value for a in steps.body if isinstance(a, ast.Assign)]


def snippet(text: str) -> str:
    """A piece's opening words, before any field the page fills in: what must be absent, then back."""
    return plain(text.split("{", 1)[0])[:60]


def lesson_text(slug: str) -> str:
    t = load_lesson(slug)
    parts = [t.analogy, t.goal, t.trap, t.more, t.next_text, *t.foundations, *t.notes.values()]
    parts += [f"{title} {text}" for title, text in t.takeaways]
    parts += [q.explanation for q in (*t.predictions.values(), *t.checks)]
    return plain("\n".join(parts + step_labels(slug)))


# --- what the lesson files mark --------------------------------------------------------------------------------------

@pytest.mark.parametrize("slug", LESSONS)
def test_every_question_marks_what_states_its_answer_and_each_phrase_is_lesson_text(slug):
    t = load_lesson(slug)
    items = [f"predict:{p}" for p in t.predictions] + [f"check:{c.id}" for c in t.checks]
    assert set(t.answer_phrases) == set(items)
    for item in items:
        assert t.answer_phrases[item], f"{slug} {item}: no answer_phrases"
        # Some phrase the lesson does say, so the sweep below has something to find (others may be wordings the
        # lesson gave up, kept so that they never come back).
        assert any(plain(p) in lesson_text(slug) for p in t.answer_phrases[item]), f"{slug} {item}: no phrase is said"
        for piece in t.gives_away[item]:
            assert piece in PIECES or piece.startswith("note:")
            assert any(plain(p) in plain(t.piece(piece)) for p in t.answer_phrases[item]), \
                f"{slug} {item}: {piece} is held back, but states none of its answer_phrases"


@pytest.mark.parametrize("slug", LESSONS)
def test_no_step_label_states_an_answer_of_its_page(slug):
    t = load_lesson(slug)
    for label in step_labels(slug):
        for item, phrases in t.answer_phrases.items():
            said = [p for p in phrases if plain(p) in plain(label)]
            assert not said, f"{slug}: the step label {label!r} states {item}'s answer ({said})"


def test_a_piece_the_frame_does_not_have_is_refused():
    raw = {"notes": {"draws": "…"}, "predictions": [{"id": "spread", "gives_away": ["note:draws", "analogies"]}]}
    with pytest.raises(ValueError, match="analogies"):
        _giveaways(raw, "x.toml")
    raw["predictions"][0]["gives_away"] = ["note:draws", "note:nowhere"]
    with pytest.raises(ValueError, match="note:nowhere"):
        _giveaways(raw, "x.toml")
    raw["predictions"][0]["gives_away"] = ["note:draws", "analogy"]
    assert _giveaways(raw, "x.toml")["gives_away"] == {"predict:spread": ("note:draws", "analogy")}


@pytest.mark.parametrize("slug", ["sqrt_dk", "positional_encoding"])
def test_a_learner_on_their_own_sees_every_piece(slug):
    at = reveal(open_page(slug), slug)
    t, page = load_lesson(slug), seen(at)
    pieces = {p for item in t.gives_away.values() for p in item}
    assert plain(HIDDEN) not in page and pieces
    assert all(snippet(t.piece(p)) in page for p in pieces if p in ("analogy", "goal"))


# --- a class, every question ------------------------------------------------------------------------------------------

def _run(*sessions) -> None:
    for at in sessions:
        at.run()
        assert not at.exception, [e.value for e in at.exception]


def _press(at, key: str) -> None:
    at.button(key=key).click().run()
    assert not at.exception, [e.value for e in at.exception]


def _last_step(pres, slug: str) -> None:
    forward = f"{controls.step_key(slug)}__next"
    while any(b.key == forward and not b.disabled for b in pres.button):
        _press(pres, forward)


def _vote_right(student, poll_id: str) -> None:
    s = class_state(student)
    classroom.room_store().heartbeat(s.code, s.me, time.time())
    radio = student.radio(key=answer_key(poll_id, 1))
    radio.set_value(radio.options[0]).run()


def _ask_and_read(pres, student, slug: str, poll_id: str) -> None:
    """Ask ``poll_id``; the student's page while it is open, then once it is revealed; stop asking."""
    t, item = load_lesson(slug), poll_id.split(":", 1)[1]
    pieces = {p: snippet(t.piece(p)) for p in t.gives_away[item]}
    _press(pres, f"_class_ask__{poll_id}")
    _run(student)
    drawn = [s for s in pieces.values() if s in seen(pres)]     # the presenter's page holds nothing back
    page = seen(student)
    assert answer_key(poll_id, 1) in {r.key for r in student.radio}, f"{poll_id}: not put to the student"
    said = [p for p in t.answer_phrases[item] if plain(p) in page]
    assert not said, f"{poll_id} is open and the student's page states its answer: {said}"
    assert not [p for p, s in pieces.items() if s in page], f"{poll_id}: a piece that gives it away is shown"
    assert (plain(HIDDEN) in page) == bool(drawn) and plain(HIDDEN) not in seen(pres)
    _vote_right(student, poll_id)
    _press(pres, f"_class_reveal__{poll_id}")
    _run(student)
    page = seen(student)
    assert plain(HIDDEN) not in page and all(s in page for s in drawn), f"{poll_id}: not back"
    _press(pres, f"_class_stop__{poll_id}")
    _run(student)


@pytest.mark.parametrize("slug", LESSONS)
def test_no_answer_on_a_students_page_under_any_open_question(slug):
    pres, code, _ = start_class(present="1")
    go(pres, slug)
    _last_step(pres, slug)
    student = fresh(room=code)
    _run(student)
    asked: list[str] = []
    while True:
        reveal(pres, slug)                                       # the presenter's page shows what follows them
        waiting = [b.key.removeprefix("_class_ask__") for b in pres.button
                   if b.key and b.key.startswith("_class_ask__") and b.key.removeprefix("_class_ask__") not in asked]
        if not waiting:
            break
        asked.append(waiting[0])
        _ask_and_read(pres, student, slug, waiting[0])
    t = load_lesson(slug)
    assert sorted(asked) == sorted(f"{slug}:{item}" for item in t.answer_phrases), "a question was never asked"
