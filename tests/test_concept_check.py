"""assets/lessons/concept_check.toml: its structure, its reach over the course, and that it never repeats a
lesson's own check or prediction word for word (the gain it measures would then measure recall)."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from classroom.concept_check import PATH, load_concept_check

LESSONS = Path(__file__).resolve().parent.parent / "assets" / "lessons"


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip().casefold()


def test_the_file_parses_and_every_question_has_one_right_option_feedback_and_an_explanation():
    raw = tomllib.loads(PATH.read_text(encoding="utf-8"))
    assert raw["title"] and raw["intro"]
    assert 8 <= len(raw["questions"]) <= 10
    assert len({q["id"] for q in raw["questions"]}) == len(raw["questions"])
    for q in raw["questions"]:
        assert q["prompt"].strip() and q["explanation"].strip(), q["id"]
        assert 3 <= len(q["choices"]) <= 5, q["id"]
        assert sum(bool(c.get("correct", False)) for c in q["choices"]) == 1, q["id"]
        assert all(c["text"].strip() and c["feedback"].strip() for c in q["choices"]), q["id"]
    loaded = load_concept_check()
    assert [q.id for q in loaded] == [q["id"] for q in raw["questions"]]
    for q, r in zip(loaded, raw["questions"], strict=True):
        assert q.right == next(c["text"] for c in r["choices"] if c.get("correct"))
        assert q.poll_id == f"concept_check:{q.id}" and q.info.right == q.right and q.info.lesson == "concept_check"


def test_it_covers_the_course():
    text = _norm(PATH.read_text(encoding="utf-8"))
    for topic in ("q kᵀ / √dₖ", "softmax", "convex", "query", "key", "value", "√dₖ", "multi-head", "mask",
                  "recurrent"):
        assert topic.casefold() in text, topic


def test_no_question_or_option_repeats_a_lesson_word_for_word():
    lesson_texts = set()
    for path in sorted(LESSONS.glob("*.toml")):
        if path == PATH:
            continue
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
        for item in [*raw.get("checks", []), *raw.get("predictions", [])]:
            lesson_texts.add(_norm(item["prompt"]))
            lesson_texts.update(_norm(c["text"]) for c in item.get("choices", []))
    assert len(lesson_texts) > 50                                   # the lessons were read
    repeated = [(q.id, t) for q in load_concept_check() for t in (q.prompt, *q.options) if _norm(t) in lesson_texts]
    assert not repeated, repeated


def test_a_broken_question_is_refused(tmp_path):
    import pytest

    broken = tmp_path / "c.toml"
    broken.write_text('title = "x"\n[[questions]]\nid = "a"\nprompt = "p"\nexplanation = "e"\n'
                      '  [[questions.choices]]\n  text = "one"\n  feedback = "f"\n  correct = true\n'
                      '  [[questions.choices]]\n  text = "two"\n  feedback = "f"\n  correct = true\n', encoding="utf-8")
    with pytest.raises(ValueError, match="'a'"):
        load_concept_check(broken)


def test_the_right_option_is_not_always_in_the_same_place():
    places = [q.options.index(q.right) for q in load_concept_check()]
    assert len(set(places)) >= 3, places                            # "always the first" would be a free score
