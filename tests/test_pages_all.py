"""Every page in the navigation runs under AppTest with no exception and shows its lesson frame."""

import pytest

from ui.content import lessons, load_lesson, page_index

SLUGS = [p.slug for p in page_index()]


@pytest.mark.parametrize("slug", SLUGS)
def test_page_runs_without_exception(open_page, slug):
    at = open_page(slug)
    assert not at.exception, at.exception
    assert [t.value for t in at.title], "every page has a title"


@pytest.mark.parametrize("slug", [p.slug for p in lessons()])        # not the map nor the glossary
def test_lesson_frame_is_complete(open_page, slug):
    from devtools.apptest import reveal, texts

    at = open_page(slug)
    lesson = load_lesson(slug)
    assert "Common trap" not in texts(at), "the trap waits for the prediction it would answer"
    shown = texts(reveal(at, slug))
    assert lesson.question in shown
    assert "Learning goal" in shown and "Common trap" in shown and "Next connection" in shown
    assert lesson.checks, f"{slug} needs a misconception check"


def test_every_page_file_in_the_index_exists_and_every_lesson_file_is_listed():
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    listed = set(SLUGS)
    for slug in listed:
        assert (root / "pages" / f"{slug}.py").exists(), slug
    assert {p.stem for p in (root / "pages").glob("*.py")} == listed
