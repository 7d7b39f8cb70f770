"""docs/PERFORMANCE.md and docs/RELIABILITY.md are references, not diaries, and every pointer into them lands.

A reader looking for today's figures or rules reads one short page; the history is in docs/archive/. A
heading that starts with a date or a session, or carries "(2026-…", is a diary entry. The pointers other
files make ("docs/PERFORMANCE.md, section (h)", docs/PERFORMANCE.md, "A live class") must name a section
that exists, so moving or renaming one means updating its pointers.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# The markers benchmarks/run.py writes between, read from its source: tests never import benchmarks/
# (tests/test_layering.py).
START, END = re.search(r'START, END = "([^"]+)", "([^"]+)"', (ROOT / "benchmarks" / "report.py").read_text()).groups()
DOCS = ROOT / "docs"
# At most this many lines. benchmarks/run.py rewrites a block of PERFORMANCE.md (about 100 lines; about 10
# more with the levers table), so keep that file's other sections well under its limit.
LIMITS = {"PERFORMANCE.md": 300, "RELIABILITY.md": 200}
_DIARY = re.compile(r"^\(?\d{4}-\d{2}-\d{2}|^session \d|\(\d{4}-\d{2}", re.I)
# Where pointers into the docs live: code, tests, scripts, the README and the other docs (not the archive).
_POINTING = ("app.py", "README.md", "pages", "ui", "figures", "attention_core", "classroom", "tests", "devtools",
             "benchmarks", "scripts", "deploy", ".streamlit", "assets/lessons", "docs")
_SUFFIXES = {".py", ".md", ".toml", ".sh", ".cfg", ".yaml"}
_NAMED = re.compile(r"(PERFORMANCE|RELIABILITY)\.md`?,?\s+(?:section\s+)?\"([^\"]+)\"")
_LETTERED = re.compile(r"(PERFORMANCE|RELIABILITY)\.md`?,?\s+(?:section\s+)?\(([a-z]\d?)\)")


def headings(name: str) -> list[str]:
    """The doc's headings, without their hashes and backticks, code blocks left out."""
    text = re.sub(r"```.*?```", "", (DOCS / name).read_text(encoding="utf-8"), flags=re.S)
    return [m.group(1).replace("`", "").strip() for m in re.finditer(r"^#+\s+(.+)$", text, flags=re.M)]


def _pointing_files() -> list[Path]:
    files = []
    for part in _POINTING:
        path = ROOT / part
        found = [path] if path.is_file() else sorted(p for p in path.rglob("*") if p.suffix in _SUFFIXES)
        files += [p for p in found if "archive" not in p.relative_to(ROOT).parts]
    return files


def test_each_reference_fits_its_line_limit():
    for name, limit in LIMITS.items():
        lines = len((DOCS / name).read_text(encoding="utf-8").splitlines())
        assert lines <= limit, f"docs/{name} has {lines} lines (at most {limit}): move history to docs/archive/"


def test_no_heading_is_a_diary_entry():
    for name in LIMITS:
        diary = [h for h in headings(name) if _DIARY.search(h)]
        assert diary == [], f"docs/{name}: dated headings belong in docs/archive/: {diary}"
    assert _DIARY.search("Charts kept in place: measured, not adopted (2026-12-03, session 21)")
    assert _DIARY.search("2026-12-04: a clean run") and not _DIARY.search("(h) A lecture hall")


def test_benchmarks_run_still_finds_its_block():
    text = (DOCS / "PERFORMANCE.md").read_text(encoding="utf-8")
    assert text.count(START) == 1 and text.count(END) == 1
    assert text.index(START) < text.index(END)


def test_the_references_links_resolve():
    """Their links, into the archive among others (the archive's own are kept verbatim, as they were)."""
    for name in LIMITS:
        doc = DOCS / name
        for target in re.findall(r"\]\(([^)#:]+\.md)\)", doc.read_text(encoding="utf-8")):
            assert (doc.parent / target).is_file(), f"docs/{name} links to missing {target}"


def test_every_pointer_into_the_docs_names_a_section_that_exists():
    found = {name: headings(f"{name}.md") for name in ("PERFORMANCE", "RELIABILITY")}
    bad, seen = [], 0
    for path in _pointing_files():
        text = path.read_text(encoding="utf-8", errors="replace")
        for doc, section in _NAMED.findall(text):
            seen += 1
            if not any(section.replace("`", "") in h for h in found[doc]):
                bad.append(f"{path.relative_to(ROOT)}: {doc}.md, \"{section}\"")
        for doc, letter in _LETTERED.findall(text):
            seen += 1
            if not any(f"({letter})" in h for h in found[doc]):
                bad.append(f"{path.relative_to(ROOT)}: {doc}.md, section ({letter})")
    assert seen >= 5                                      # the pointers are still found at all
    assert bad == []
