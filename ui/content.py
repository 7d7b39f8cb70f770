"""Lesson text, read from assets/lessons/*.toml so a teacher can edit it without touching code.

Pure Python (no Streamlit): the loader and its validation are unit-tested directly.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

APP_DIR = Path(__file__).resolve().parent.parent            # where app.py is
LESSONS_DIR = APP_DIR / "assets" / "lessons"
PAGE_FILES = "pages/{slug}.py"                               # each lesson's script, relative to APP_DIR

_FIELD = re.compile(r"\{([A-Za-z_]\w*)(?::([^{}]*))?\}")
# A brace group right after a LaTeX command, a sub- or superscript or another group is LaTeX's own
# (\text{bank}, x^{2}, \frac{a}{b}), never a field, even when its name is one the page passes.
_LATEX_BEFORE = re.compile(r"(\\[A-Za-z]+|[\^_}])$")


def fill(template: str, **values: object) -> str:
    """``template`` with each ``{name}`` or ``{name:spec}`` whose name is in ``values`` replaced by that value.

    Unlike ``str.format``, every other brace stays as it is, so lesson text can hold LaTeX
    ($\\frac{q\\cdot k}{\\sqrt{d_k}}$) and still take numbers from the page. A field written straight
    after a LaTeX command, ^, _ or } is read as LaTeX and left alone: put a space or a word before it.
    """
    def put(m: re.Match) -> str:
        name, spec = m.group(1), m.group(2)
        if name not in values or _LATEX_BEFORE.search(template, 0, m.start()):
            return m.group(0)
        return format(values[name], spec or "")

    return _FIELD.sub(put, template)


def fields(template: str) -> set[str]:
    """The names of the ``{name}`` fields ``fill`` would replace in ``template`` (LaTeX groups are not fields)."""
    return {m.group(1) for m in _FIELD.finditer(template) if not _LATEX_BEFORE.search(template, 0, m.start())}


@dataclass(frozen=True)
class Choice:
    text: str
    feedback: str
    correct: bool = False


@dataclass(frozen=True)
class Check:
    """A multiple-choice question with feedback for every option (misconception checks and predictions)."""

    id: str
    prompt: str
    choices: tuple[Choice, ...]
    explanation: str = ""
    right: str = ""                                       # feedback templates for choices the page supplies
    wrong: str = ""

    @property
    def answer(self) -> int:
        return next(i for i, c in enumerate(self.choices) if c.correct)

    def with_options(self, options: list[str], answer: int, **values: object) -> Check:
        """A copy whose choices come from the page (e.g. the current keys), feedback from the templates."""
        values = {"answer": options[answer], **values}
        choices = tuple(
            Choice(text=o, correct=i == answer,
                   feedback=fill(self.right if i == answer else self.wrong, picked=o, **values))
            for i, o in enumerate(options)
        )
        return Check(id=self.id, prompt=fill(self.prompt, **values), choices=choices,
                     explanation=fill(self.explanation, **values))

    def with_values(self, answer: int | None = None, **values: object) -> Check:
        """A copy with the page's numbers in every field, and (when the right choice depends on what the
        learner has set) ``answer`` as the index of the right choice."""
        right = self.answer if answer is None else answer
        choices = tuple(Choice(text=fill(c.text, **values), feedback=fill(c.feedback, **values), correct=i == right)
                        for i, c in enumerate(self.choices))
        return Check(id=self.id, prompt=fill(self.prompt, **values), choices=choices,
                     explanation=fill(self.explanation, **values))


@dataclass(frozen=True)
class Exercise:
    """A number the learner works out by hand; the page supplies the exact answer."""

    id: str
    prompt: str
    decimals: int                       # right when the answer typed rounds to the exact one at these decimals
    right: str
    wrong: str


@dataclass(frozen=True)
class Lesson:
    slug: str
    title: str
    question: str
    analogy: str
    goal: str
    foundations: tuple[str, ...]
    trap: str
    takeaways: tuple[tuple[str, str], ...]
    next_text: str
    more: str = ""
    checks: tuple[Check, ...] = ()
    predictions: dict[str, Check] = field(default_factory=dict)
    exercises: dict[str, Exercise] = field(default_factory=dict)
    notes: dict[str, str] = field(default_factory=dict)
    # The presenter console's notes, one per presenter step, keyed by the step's name in the page's Step enum
    # (``ONE_VECTOR``): what to say, what to ask, the misconception to listen for. Never shown to students.
    speaker_notes: dict[str, str] = field(default_factory=dict)
    # What would give a class question's answer away while it is open, keyed by the question's item
    # ("predict:spread", "check:why_sqrt"): the frame's pieces a student's page holds back (``PIECES``, or
    # "note:<name>"), and the phrases that state the answer, which nothing on that page may show meanwhile.
    gives_away: dict[str, tuple[str, ...]] = field(default_factory=dict)
    answer_phrases: dict[str, tuple[str, ...]] = field(default_factory=dict)

    def check(self, check_id: str) -> Check:
        return next(c for c in self.checks if c.id == check_id)

    def piece(self, name: str) -> str:
        """The text of one piece of the frame a question may give away ("analogy", "note:draws", …)."""
        if name.startswith("note:"):
            return self.notes[name.removeprefix("note:")]
        return {"analogy": self.analogy, "goal": self.goal, "more": self.more,
                "foundations": "\n".join(self.foundations)}[name]


PIECES = ("analogy", "goal", "foundations", "more")    # and "note:<name>" for a paragraph of [notes]


@dataclass(frozen=True)
class PageEntry:
    slug: str
    title: str
    icon: str
    section: str
    kind: str = "lesson"              # "lesson"; "map" (the home page) and "reference" (the glossary) are not

    @property
    def is_lesson(self) -> bool:
        """A lesson page: the full frame (question … prediction, trap and check … next), in teaching order."""
        return self.kind == "lesson"


def _check(raw: dict, where: str) -> Check:
    choices = tuple(Choice(text=c["text"], feedback=c.get("feedback", ""), correct=bool(c.get("correct", False)))
                    for c in raw.get("choices", []))
    dynamic = "right" in raw and "wrong" in raw
    if not dynamic and (sum(c.correct for c in choices) != 1 or not all(c.feedback.strip() for c in choices)):
        raise ValueError(f"{where}: check '{raw.get('id')}' needs exactly one correct choice and feedback "
                         "on every choice (or 'right' and 'wrong' feedback for choices the page supplies).")
    return Check(id=raw["id"], prompt=raw["prompt"], choices=choices, explanation=raw.get("explanation", ""),
                 right=raw.get("right", ""), wrong=raw.get("wrong", ""))


@lru_cache(maxsize=8)
def data_file(name: str) -> dict:
    """assets/data/<name>.toml, parsed once per process: a page's script runs again on every rerun, and parsing
    it there cost a page hundreds of microseconds a run (docs/PERFORMANCE.md). Shared by every session: read it,
    never change it."""
    return tomllib.loads((APP_DIR / "assets" / "data" / f"{name}.toml").read_text(encoding="utf-8"))


@lru_cache(maxsize=32)
def load_lesson(slug: str) -> Lesson:
    """Read assets/lessons/<slug>.toml. Raises KeyError naming the missing field."""
    path = LESSONS_DIR / f"{slug}.toml"
    raw = tomllib.loads(path.read_text(encoding="utf-8"))
    try:
        return Lesson(
            slug=slug,
            title=raw["title"],
            question=raw["question"],
            analogy=raw["analogy"],
            goal=raw["goal"],
            foundations=tuple(raw["foundations"]),
            trap=raw.get("trap", ""),                   # every lesson has one (a test checks); home has none
            takeaways=tuple((t["title"], t["text"]) for t in raw["takeaways"]),
            next_text=raw["next"],
            more=raw.get("more", ""),
            checks=tuple(_check(c, slug) for c in raw.get("checks", [])),
            predictions={p["id"]: _check(p, slug) for p in raw.get("predictions", [])},
            exercises={e["id"]: Exercise(id=e["id"], prompt=e["prompt"], decimals=int(e["decimals"]),
                                         right=e["right"], wrong=e["wrong"]) for e in raw.get("exercises", [])},
            notes=dict(raw.get("notes", {})),
            speaker_notes=dict(raw.get("speaker_notes", {})),
            **_giveaways(raw, path.name),
        )
    except KeyError as missing:
        raise KeyError(f"{path.name} is missing the field {missing}") from None


def _giveaways(raw: dict, where: str) -> dict[str, dict[str, tuple[str, ...]]]:
    """Each question's ``gives_away`` and ``answer_phrases``, keyed by its item; an unknown piece is refused."""
    found: dict[str, dict[str, tuple[str, ...]]] = {"gives_away": {}, "answer_phrases": {}}
    for kind, table in (("predict", "predictions"), ("check", "checks")):
        for q in raw.get(table, []):
            pieces = tuple(q.get("gives_away", ()))
            unknown = [p for p in pieces if p not in PIECES
                       and not (p.startswith("note:") and p.removeprefix("note:") in raw.get("notes", {}))]
            if unknown:
                raise ValueError(f"{where}: {q['id']} gives away unknown pieces {unknown}")
            found["gives_away"][f"{kind}:{q['id']}"] = pieces
            found["answer_phrases"][f"{kind}:{q['id']}"] = tuple(q.get("answer_phrases", ()))
    return found


@lru_cache(maxsize=1)
def page_index() -> tuple[PageEntry, ...]:
    """The lessons in teaching order, from assets/lessons/index.toml."""
    raw = tomllib.loads((LESSONS_DIR / "index.toml").read_text(encoding="utf-8"))
    return tuple(PageEntry(slug=p["slug"], title=p["title"], icon=p["icon"], section=s["name"],
                           kind=p.get("kind", "lesson")) for s in raw["sections"] for p in s["pages"])


def lessons() -> tuple[PageEntry, ...]:
    """The lesson pages in teaching order: the index without the lesson map and the reference pages."""
    return tuple(p for p in page_index() if p.is_lesson)


def neighbours(slug: str) -> tuple[PageEntry | None, PageEntry | None]:
    """The lesson before and after ``slug`` in teaching order (home and the glossary are not lessons)."""
    order = lessons()
    i = next(i for i, p in enumerate(order) if p.slug == slug)
    return (order[i - 1] if i > 0 else None, order[i + 1] if i + 1 < len(order) else None)


@dataclass(frozen=True)
class Term:
    """One glossary entry: its name, its anchor on the glossary page, its explanation, the lessons that use it
    (slugs, some perhaps not in the index yet) and the words those lessons say it with, if not its name."""

    name: str
    anchor: str
    text: str
    lessons: tuple[str, ...]
    seen_as: tuple[str, ...]


def anchor(name: str) -> str:
    """A term's anchor: its name in lower case, each run of other characters one "-" ("Query, key and value"
    gives "query-key-and-value")."""
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


@lru_cache(maxsize=1)
def load_glossary() -> tuple[Term, ...]:
    """The terms of assets/lessons/glossary.toml, sorted A to Z (ignoring case)."""
    raw = tomllib.loads((LESSONS_DIR / "glossary.toml").read_text(encoding="utf-8"))
    terms = (Term(name=t["name"], anchor=anchor(t["name"]), text=t["text"], lessons=tuple(t["lessons"]),
                  seen_as=tuple(t.get("seen_as", ()))) for t in raw["terms"])
    return tuple(sorted(terms, key=lambda t: t.name.casefold()))


# British and American spellings searched as one: normalisation/normalization, analyse/analyze, colour/color.
# Applied to the query and to the entries alike; three letters before the ending keep "hour", "your", "rise" out.
_SPELLING = ((re.compile(r"(?<=[a-z]{3})is(e|ed|es|er|ers|ing|ation|ations)\b"), r"iz\1"),
             (re.compile(r"(?<=[a-z]{2})ys(e|ed|es|ing)\b"), r"yz\1"),
             (re.compile(r"(?<=[a-z]{3})our(s|ed|ing)?\b"), r"or\1"))


def spelling(text: str) -> str:
    """``text`` casefolded, runs of spaces made one, and British endings written the American way."""
    text = " ".join(text.split()).casefold()
    for pattern, american in _SPELLING:
        text = pattern.sub(american, text)
    return text


def matching(terms: tuple[Term, ...], query: str) -> tuple[Term, ...]:
    """The terms whose name or explanation holds ``query`` (case, runs of spaces and British or American spelling
    ignored); all for an empty one."""
    wanted = spelling(query)
    return tuple(t for t in terms if wanted in spelling(t.name) or wanted in spelling(t.text))


LABELS_FILE = LESSONS_DIR / "control_labels.toml"


@lru_cache(maxsize=1)
def control_labels() -> dict[tuple[str, str], str]:
    """(page slug, widget key) -> the label the learner sees on that lesson control, from
    assets/lessons/control_labels.toml (scripts/input_inventory.py walks every page with AppTest to write
    it, and its --check fails when a page changes). For naming a control in a message, e.g. a tampered
    link's notice."""
    try:
        pages = tomllib.loads(LABELS_FILE.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError):
        return {}
    return {(slug, key): label for slug, named in pages.items() for key, label in named.items()}
