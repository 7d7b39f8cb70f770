"""Tests wait on events, not on the clock: a fixed pause longer than 0.5 s in tests/ or devtools/ must say,
in a comment starting "# no event:" on its line or just above it, which event it stands in for and why none
can be waited on. devtools/harness.py has one function per kind of wait (its "Waiting on events" block).

A pause is time.sleep, asyncio.sleep or a Playwright page's wait_for_timeout (milliseconds). A pause of at
most 0.5 s is fine, and so is one whose length is a variable inside a loop: the interval of a poll."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FOLDERS = ("tests", "devtools")
LIMIT_S = 0.5
MARK = "# no event:"
SECONDS = {"sleep": 1.0, "wait_for_timeout": 0.001}          # a pause's argument, in seconds per unit


def _seconds(node: ast.expr, unit: float) -> float | None:
    """The pause's length when it is a literal (a number, or a product of numbers), else None."""
    try:
        value = ast.literal_eval(node)
    except ValueError:
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult):
            left, right = _seconds(node.left, 1.0), _seconds(node.right, 1.0)
            return None if left is None or right is None else left * right * unit
        return None
    return float(value) * unit if isinstance(value, int | float) else None


def _explained(lines: list[str], lineno: int) -> bool:
    """The pause's own line, or the comment lines right above it, carry the mark."""
    if MARK in lines[lineno - 1]:
        return True
    n = lineno - 2
    while n >= 0 and lines[n].strip().startswith("#"):
        if MARK in lines[n]:
            return True
        n -= 1
    return False


def bare_pauses(source: str, name: str = "<snippet>") -> list[str]:
    """"<name>:<line> <call>" for each pause over LIMIT_S (or of unknown length outside a loop) with no mark."""
    tree = ast.parse(source)
    lines = source.splitlines()
    in_loop: set[int] = set()
    for loop in ast.walk(tree):
        if isinstance(loop, ast.While | ast.For | ast.AsyncFor):
            in_loop |= {id(n) for n in ast.walk(loop)}
    found = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute | ast.Name) and node.args):
            continue
        func = node.func.attr if isinstance(node.func, ast.Attribute) else node.func.id
        if func not in SECONDS:
            continue
        seconds = _seconds(node.args[0], SECONDS[func])
        fixed_and_long = seconds is not None and seconds > LIMIT_S
        unknown_outside_a_loop = seconds is None and id(node) not in in_loop
        if (fixed_and_long or unknown_outside_a_loop) and not _explained(lines, node.lineno):
            found.append(f"{name}:{node.lineno} {ast.unparse(node)}")
    return found


def test_no_bare_pause_in_the_tests_or_the_harness():
    found = []
    for folder in FOLDERS:
        for path in sorted((ROOT / folder).rglob("*.py")):
            found += bare_pauses(path.read_text(encoding="utf-8"), str(path.relative_to(ROOT)))
    assert not found, f"wait on the event instead (devtools/harness.py), or say why there is none ({MARK}): {found}"


@pytest.mark.parametrize("snippet", [
    "import time\ntime.sleep(1)\n",
    "page.wait_for_timeout(3500)\n",
    "async def f():\n    await asyncio.sleep(2)\n",
    "from time import sleep\nsleep(0.6)\n",
    "time.sleep(0.1 * 10)\n",
    "time.sleep(RETRY_AFTER_S)\n",
    "while True:\n    time.sleep(1)\n",                         # a poll, but a long fixed one
    "# the charts settle\npage.wait_for_timeout(800)\n",        # a comment, but not the mark
])
def test_the_check_catches_a_bare_pause(snippet):
    assert len(bare_pauses(snippet)) == 1, snippet


@pytest.mark.parametrize("snippet", [
    "time.sleep(0.5)\n",
    "page.wait_for_timeout(500)\n",
    "while not done():\n    time.sleep(every_s)\n",
    "time.sleep(5)  # no event: the store's breaker reads the clock\n",
    "# no event: the frontend's own timer\n# (a second line)\nawait asyncio.sleep(interval)\n",
    "proc.wait(10)\n",
])
def test_the_check_lets_a_short_or_explained_pause_pass(snippet):
    assert bare_pauses(snippet) == [], snippet
