"""The README names the app's buttons and labels as the app spells them.

Every **bold** run in the README's instructor paragraph ("For instructors") and its "Running a live class"
section is a label the app shows: a string literal in app.py, pages/, ui/ or classroom/ (docstrings and
comments do not count), or a string of the lesson text (assets/lessons/*.toml). Renaming a button without
the README fails here. A bold run that opens a paragraph or a list item and ends in "." is that paragraph's
lead-in ("**Start.**", "**Limits.**"), not a label; any other bold that is not a label is in ``NOT_LABELS``.
"""

from __future__ import annotations

import ast
import itertools
import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CODE_DIRS = ("pages", "ui", "classroom")
LESSON_TEXT = ROOT / "assets" / "lessons"

# Example values the README shows where the app fills in its own: each stands for one ``{...}`` of an f-string.
EXAMPLES = ("K7MQ2P",)
# Bold in those sections that is not a label, with the reason. Keep it short: emphasis is rare there.
NOT_LABELS: dict[str, str] = {}

_BOLD = re.compile(r"\*\*(.+?)\*\*", re.S)
_ICON = re.compile(r":material/[a-z_]+:\s*")
_HOLE = "{}"


def _section(text: str, start: str, end: str) -> str:
    a = text.index(start)
    return text[a:text.index(end, a)]


def readme_parts(text: str) -> str:
    """The README text whose bold is checked: the instructor paragraph and the live-class section."""
    return (_section(text, "**For instructors.**", "\n## ")
            + _section(text, "## Running a live class", "\n## Layout"))


def bold_labels(text: str) -> list[str]:
    """Each bold run of ``text`` that should be a label, in order, once each (lead-ins and NOT_LABELS out)."""
    prose = re.sub(r"```.*?```", "", text, flags=re.S)
    found: list[str] = []
    for m in _BOLD.finditer(prose):
        label = " ".join(m.group(1).split())
        line_start = prose.rfind("\n", 0, m.start()) + 1
        opens = re.fullmatch(r"\s*(\d+\.\s+)?", prose[line_start:m.start()]) is not None
        if (opens and label.endswith(".")) or label in NOT_LABELS or label in found:
            continue
        found.append(label)
    return found


def _shown(node: ast.AST) -> str | None:
    """A string literal as it appears on screen: an f-string's holes as ``{}``, markdown bold and icons out."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        text = node.value
    elif isinstance(node, ast.JoinedStr):
        text = "".join(v.value if isinstance(v, ast.Constant) else _HOLE for v in node.values)
    else:
        return None
    return _plain(text)


def _plain(text: str) -> str:
    """Markdown's bold, a heading's hashes and Material icons taken out, as the reader sees the words."""
    return re.sub(r"^#+\s+", "", _ICON.sub("", text.replace("**", "")).strip())


def _docstrings(tree: ast.AST) -> set[int]:
    ids = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                ids.add(id(first.value))
    return ids


def code_strings() -> list[str]:
    """Every string literal the app can show (not docstrings), and every string of the lesson text."""
    files = [ROOT / "app.py"] + [p for d in CODE_DIRS for p in sorted((ROOT / d).rglob("*.py"))]
    out: list[str] = []
    for path in files:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        skip = _docstrings(tree)
        parts = {id(v) for n in ast.walk(tree) if isinstance(n, ast.JoinedStr) for v in n.values}
        out += [s for n in ast.walk(tree) if id(n) not in skip and id(n) not in parts
                if (s := _shown(n))]

    def strings(value: object) -> None:
        if isinstance(value, str):
            out.append(_plain(value))
        elif isinstance(value, dict):
            for v in value.values():
                strings(v)
        elif isinstance(value, list):
            for v in value:
                strings(v)

    for path in sorted(LESSON_TEXT.glob("*.toml")):
        strings(tomllib.loads(path.read_text(encoding="utf-8")))
    return out


def names(label: str, literal: str) -> bool:
    """True when ``literal`` shows ``label``: the whole string, or its opening words up to punctuation
    ("Predict first" in "Predict first. {}"; not "Reveal the answer" in "Reveal the answer to the class")."""
    if literal == label:
        return True
    if not literal.startswith(label):
        return False
    return label[-1] in ".:!?…" or literal[len(label)] in ".:;,!?)…"


def missing(labels: list[str], literals: list[str]) -> list[str]:
    """The labels no literal shows, each with its examples read as the app's ``{}``."""
    out = []
    for label in labels:
        pattern = label
        for example in EXAMPLES:
            pattern = pattern.replace(example, _HOLE)
        if not any(names(pattern, s) for s in literals):
            out.append(label)
    return out


def test_every_bold_label_in_the_live_class_section_is_in_the_app():
    labels = bold_labels(readme_parts((ROOT / "README.md").read_text(encoding="utf-8")))
    assert len(labels) >= 30, labels                      # the section names the whole class flow
    assert missing(labels, code_strings()) == []


def test_a_renamed_label_is_caught():
    literals = code_strings()
    assert "Show the results" in literals
    renamed = [s for s in literals if s != "Show the results"] + ["Show results"]
    assert missing(["Show the results", "Ask the class"], renamed) == ["Show the results"]
    # A longer button does not stand in for a shorter one, nor a sentence for a label.
    assert not names("Reveal the answer", "Reveal the answer to the class")
    assert names("Predict first", "Predict first. {}")
    assert missing(["Room code: K7MQ2P"], ["Room code: {}"]) == []


def test_lead_ins_and_code_are_not_labels():
    text = ("1. **Start.** Press **Start a class**.\n**Limits.** One **Join** here.\n"
            "```\n**Not this**\n```\n")
    assert bold_labels(text) == ["Start a class", "Join"]


def test_the_live_class_section_is_one_version():
    """Steps 1 to 6 once each, each paragraph lead-in once, and no stray continuation of a list item (the
    second copy of steps 4 to 6 once started mid-sentence, "   students get a notice…")."""
    section = _section((ROOT / "README.md").read_text(encoding="utf-8"), "## Running a live class", "\n## Layout")
    steps = re.findall(r"^(\d+)\. \*\*", section, flags=re.M)
    assert steps == [str(n) for n in range(1, len(steps) + 1)] and len(steps) >= 6, steps
    lead_ins = re.findall(r"^(?:\d+\. )?\*\*([^*]+?\.)\*\*", section, flags=re.M)
    assert len(lead_ins) == len(set(lead_ins)), lead_ins
    paragraphs = [p.strip("\n") for p in re.split(r"\n[ \t]*\n", section) if p.strip()]
    for before, paragraph in itertools.pairwise(paragraphs):
        indent = len(paragraph) - len(paragraph.lstrip(" "))
        if 0 < indent < 4:                                  # a list item's continuation, not code
            assert re.match(r"\s*\d+\. ", before), f"a paragraph starts mid-list: {paragraph[:80]!r}"
        if indent == 0 and not re.match(r"\d+\. ", paragraph):     # plain prose: no list continuation inside
            stray = [line for line in paragraph.splitlines() if 0 < len(line) - len(line.lstrip(" ")) < 4]
            assert not stray, f"a list item's continuation inside a paragraph: {stray[0][:80]!r}"
