"""Lesson files: every lesson loads, has every part of the frame, and its checks are well formed."""

import pytest

from ui.content import lessons, load_lesson, neighbours, page_index

LESSONS = [p.slug for p in lessons()]                   # not the lesson map nor the glossary


@pytest.mark.parametrize("slug", LESSONS)
def test_lesson_has_every_part(slug):
    lesson = load_lesson(slug)
    for part in (lesson.title, lesson.question, lesson.analogy, lesson.goal, lesson.trap, lesson.next_text):
        assert part.strip()
    assert lesson.foundations and lesson.takeaways
    for check in lesson.checks + tuple(lesson.predictions.values()):
        if check.right and check.wrong:                   # the page supplies the options
            filled = check.with_options(["a", "b"], 1, **{k: "x" for k in ("weight", "value", "token", "key")})
            assert [c.correct for c in filled.choices] == [False, True]
            continue
        assert sum(c.correct for c in check.choices) == 1
        assert all(c.feedback.strip() for c in check.choices), f"{slug}/{check.id}: every option needs feedback"
    assert lesson.checks, f"{slug} needs at least one misconception check"
    assert lesson.predictions, f"{slug} needs at least one prediction"


def test_neighbours_follow_the_index():
    order = LESSONS
    first_prev, first_next = neighbours(order[0])
    assert first_prev is None
    if len(order) > 1:
        assert first_next.slug == order[1]
        assert neighbours(order[-1])[1] is None


def test_missing_field_is_named(tmp_path, monkeypatch):
    import ui.content as content

    (tmp_path / "broken.toml").write_text('title = "x"\n', encoding="utf-8")
    monkeypatch.setattr(content, "LESSONS_DIR", tmp_path)
    content.load_lesson.cache_clear()
    with pytest.raises(KeyError, match="question"):
        content.load_lesson("broken")
    content.load_lesson.cache_clear()


def test_fill_puts_values_in_named_fields_and_leaves_latex_braces_alone():
    from ui.content import fill

    text = r"Weight {answer:.3f} of {key}; $\frac{q\cdot k}{\sqrt{d_k}}$, $x^{key}$, \text{key}, {unknown} {{"
    assert fill(text, answer=0.12345, key="k2") == (
        r"Weight 0.123 of k2; $\frac{q\cdot k}{\sqrt{d_k}}$, $x^{key}$, \text{key}, {unknown} {{")
    assert fill("{a} {b}", a="{b}", b="x") == "{b} x"               # a value is never filled in again


@pytest.mark.parametrize("slug", [p.slug for p in page_index()])
def test_every_lesson_string_keeps_its_latex_when_filled(slug):
    """The promise 'LaTeX works in every string' holds for strings that pass through fill: filled with a value
    for every field name the file uses, each $…$ span that held no field comes out unchanged."""
    import dataclasses
    import re

    from ui.content import fill

    lesson = load_lesson(slug)
    strings = [lesson.question, lesson.analogy, lesson.goal, lesson.trap, lesson.next_text, lesson.more,
               *lesson.notes.values()]
    for c in (*lesson.checks, *lesson.predictions.values(), *lesson.exercises.values()):
        strings += [v for v in dataclasses.asdict(c).values() if isinstance(v, str)]
        strings += [x for ch in getattr(c, "choices", ()) for x in (ch.text, ch.feedback)]
    names = {m for s in strings for m in re.findall(r"\{([A-Za-z_]\w*)(?::[^{}]*)?\}", s)}
    values = dict.fromkeys(names, "VALUE")
    for s in strings:
        for span in re.findall(r"\$\$?[^$]+\$\$?", s):
            if not re.search(r"(?<![\\^_}])\{[A-Za-z_]\w*(?::[^{}]*)?\}", span):
                assert span in fill(s, **values), (slug, span)


def test_every_note_a_page_folds_has_a_bold_lead_in_for_its_label():
    """In presenter mode each note a page shows through frame.note sits in an expander labelled by its bold
    lead-in; a note without one is labelled only "Note", and one with a bold word further in ("With **sliders**")
    was labelled by that word."""
    import re
    from pathlib import Path

    from ui.frame import note_title

    folded = [(path.stem, name) for path in sorted(Path("pages").glob("*.py"))
              for name in re.findall(r'frame\.note\("(\w+)"\)', path.read_text())]
    assert len(folded) > 20                                  # the scan found the pages' notes
    for slug, name in folded:
        text = load_lesson(slug).notes[name]
        title = note_title(text)
        assert text.strip().startswith(f"**{title}**"), (slug, name, title)
    assert note_title("With **sliders**, you set…") == "Note"
