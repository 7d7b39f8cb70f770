"""The dependency audit in docs/SECURITY.md must cover exactly the pins in requirements.txt.

Bumping a pin without re-auditing it (and updating the table) fails here, so it fails CI.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
REQUIREMENTS = ROOT / "requirements.txt"
SECURITY = ROOT / "docs" / "SECURITY.md"
TABLE_HEADER = "| Package | Pinned |"


def normalise(name: str) -> str:
    """PEP 503 style: case-insensitive, with runs of '-', '_' and '.' treated alike."""
    return re.sub(r"[-_.]+", "-", name).lower()


def pinned(path: Path) -> dict[str, str]:
    """{normalised name: version} for every `name==version` line; comments, blanks and `-r` lines skipped."""
    pins = {}
    for raw in path.read_text(encoding="utf-8").splitlines():
        line = raw.split("#", 1)[0].strip()
        if not line or line.startswith("-"):
            continue
        name, sep, version = line.partition("==")
        assert sep, f"{path.name}: not pinned with '==': {raw!r}"
        pins[normalise(name.strip())] = version.strip()
    return pins


def audited(path: Path) -> dict[str, str]:
    """{normalised name: version} from the audit table (the one whose header starts with TABLE_HEADER)."""
    lines = path.read_text(encoding="utf-8").splitlines()
    starts = [i for i, line in enumerate(lines) if line.startswith(TABLE_HEADER)]
    assert len(starts) == 1, f"{path.name}: expected one table starting {TABLE_HEADER!r}, found {len(starts)}"
    rows = {}
    for line in lines[starts[0] + 2:]:                     # skip the header and the | --- | line
        if not line.startswith("|"):
            break
        cells = [cell.strip().strip("`") for cell in line.strip("|").split("|")]
        name = normalise(cells[0])
        assert name not in rows, f"{path.name}: {cells[0]} has two rows"
        rows[name] = cells[1]
    return rows


def mismatches(pins: dict[str, str], rows: dict[str, str]) -> list[str]:
    problems = []
    for name, version in sorted(pins.items()):
        if name not in rows:
            problems.append(f"{name}=={version} is pinned but has no row in the audit table")
        elif rows[name] != version:
            problems.append(f"{name} is pinned at {version} but the audit table says {rows[name]}")
    problems += [f"{name} has an audit row but is no longer pinned" for name in sorted(rows.keys() - pins.keys())]
    return problems


def test_audit_table_matches_the_pins():
    pins = pinned(REQUIREMENTS)
    assert pins, "no pins parsed from requirements.txt"      # an empty parse must not pass
    problems = mismatches(pins, audited(SECURITY))
    assert not problems, "re-audit these pins and update docs/SECURITY.md:\n" + "\n".join(problems)


def test_a_bumped_or_new_or_dropped_pin_is_caught(tmp_path):
    """Negative control: the same check on a copy of requirements.txt that no longer matches the table."""
    pins = pinned(REQUIREMENTS)
    bumped, dropped = sorted(pins)[:2]
    lines = [f"{name}=={version}" for name, version in pins.items() if name != dropped]
    lines = [line.replace(f"{bumped}=={pins[bumped]}", f"{bumped}=={pins[bumped]}.1") for line in lines]
    copy = tmp_path / "requirements.txt"
    copy.write_text("\n".join(["# a comment", "-r other.txt", "", *lines, "left-pad==1.0  # never audited"]) + "\n")

    problems = mismatches(pinned(copy), audited(SECURITY))

    assert f"{bumped} is pinned at {pins[bumped]}.1 but the audit table says {pins[bumped]}" in problems
    assert "left-pad==1.0 is pinned but has no row in the audit table" in problems
    assert f"{dropped} has an audit row but is no longer pinned" in problems
    assert len(problems) == 3, problems


def test_names_are_compared_case_and_separator_blind():
    assert normalise("Jinja2") == normalise("jinja2")
    assert normalise("typing_extensions") == normalise("Typing-Extensions")
    assert normalise("jsonschema.specifications") == "jsonschema-specifications"
