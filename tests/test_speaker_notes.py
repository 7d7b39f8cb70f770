"""Speaker notes: every presenter step of every lesson has notes for the presenter console, and no notes name a
step its page does not have. The steps are read from each page's ``class Step(Steps)`` (its members' names)."""

from __future__ import annotations

import ast

import pytest

from ui.content import APP_DIR, PAGE_FILES, lessons, load_lesson


def page_steps(slug: str) -> list[str] | None:
    """The names of the page's presenter steps, in order; None when the page has none."""
    tree = ast.parse((APP_DIR / PAGE_FILES.format(slug=slug)).read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == "Step":
            return [t.id for a in node.body if isinstance(a, ast.Assign) for t in a.targets if isinstance(t, ast.Name)]
    return None


STEPPED = [p.slug for p in lessons() if (APP_DIR / PAGE_FILES.format(slug=p.slug)).exists() and page_steps(p.slug)]


def test_the_steps_are_read_from_the_pages():
    """The reading itself: a lesson known to have steps gives its names in order (a parse that found nothing
    would make every check below pass vacuously)."""
    assert len(STEPPED) >= 10
    assert page_steps("polysemy")[0] == "ONE_VECTOR" and len(page_steps("polysemy")) == 3


@pytest.mark.parametrize("slug", STEPPED)
def test_every_step_has_notes(slug):
    notes = load_lesson(slug).speaker_notes
    missing = [name for name in page_steps(slug) if not notes.get(name, "").strip()]
    assert not missing, f"{slug}: no speaker notes for {missing}"


@pytest.mark.parametrize("slug", [p.slug for p in lessons()])
def test_no_notes_name_a_step_that_does_not_exist(slug):
    steps = page_steps(slug) or []
    unknown = sorted(set(load_lesson(slug).speaker_notes) - set(steps))
    assert not unknown, f"{slug}: speaker notes for steps its page does not have: {unknown}"


@pytest.mark.parametrize("slug", STEPPED)
def test_notes_say_what_to_say_ask_and_listen_for(slug):
    """Short and in three parts: what to say, what to ask, the misconception to listen for."""
    for name, text in load_lesson(slug).speaker_notes.items():
        assert all(part in text for part in ("**Say:**", "**Ask:**", "**Listen for:**")), (slug, name)
        assert len(text.split()) <= 110, (slug, name, len(text.split()))
