"""The concept check (assets/lessons/concept_check.toml) as questions a class can be asked: pure, no Streamlit.

Asked once before the lessons (the pre-check) and once at the end (the exit check), its counts give Hake's
normalized gain (classroom/results.py). A question's poll id is ``concept_check:<id>``; ``info`` is what the
room store keeps with its results.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path

from classroom.store import QuestionInfo, check_poll

SLUG = "concept_check"
PATH = Path(__file__).resolve().parent.parent / "assets" / "lessons" / f"{SLUG}.toml"


@dataclass(frozen=True)
class ConceptQuestion:
    id: str
    prompt: str
    options: tuple[str, ...]
    right: str
    feedback: dict[str, str]         # option -> what the student reads after choosing it
    explanation: str

    @property
    def poll_id(self) -> str:
        return f"{SLUG}:{self.id}"

    @property
    def info(self) -> QuestionInfo:
        return QuestionInfo(lesson=SLUG, text=self.prompt, right=self.right)


def load_concept_check(path: Path = PATH) -> tuple[ConceptQuestion, ...]:
    """The questions in file order; ValueError naming the question that breaks a rule (one right option,
    feedback on every option, options a poll accepts)."""
    raw = tomllib.loads(path.read_text(encoding="utf-8"))
    questions = []
    for q in raw["questions"]:
        choices = q.get("choices", [])
        right = [c["text"] for c in choices if c.get("correct", False)]
        if len(right) != 1 or not all(str(c.get("feedback", "")).strip() for c in choices) \
                or not str(q.get("explanation", "")).strip():
            raise ValueError(f"{path.name}: question '{q.get('id')}' needs one right choice, feedback on every "
                             "choice and an explanation")
        options = check_poll(f"{SLUG}:{q['id']}", tuple(c["text"] for c in choices))
        questions.append(ConceptQuestion(q["id"], q["prompt"], options, right[0],
                                         {c["text"]: c["feedback"] for c in choices}, q["explanation"]))
    return tuple(questions)
