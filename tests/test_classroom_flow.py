"""The classroom's run-time flow, written as a numbered list in ui/classroom/__init__.py's docstring, names
functions that exist: every ``module.function`` (or ``module.Class.method``) it names imports and resolves."""

from __future__ import annotations

import importlib
import re

import pytest

import ui.classroom

NAME = re.compile(r"``([A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)+)``")   # a dotted name in double backticks
STEP = re.compile(r"^(\d+)\. ", re.MULTILINE)


def flow() -> str:
    """The docstring from its "Run-time flow" paragraph on: the steps and the fallback."""
    doc = ui.classroom.__doc__ or ""
    assert "Run-time flow" in doc, "ui/classroom/__init__.py's docstring lost its run-time flow"
    return doc[doc.index("Run-time flow"):]


def resolve(dotted: str) -> object:
    """The object a dotted name names: the longest importable module prefix, then attributes. Raises
    LookupError naming what is missing."""
    parts = dotted.split(".")
    for n in range(len(parts), 0, -1):
        try:
            found = importlib.import_module(".".join(parts[:n]))
        except ImportError:
            continue
        for i, attribute in enumerate(parts[n:], start=n):
            if not hasattr(found, attribute):
                raise LookupError(f"{'.'.join(parts[:i])} has no {attribute!r}")
            found = getattr(found, attribute)
        return found
    raise LookupError(f"no module {parts[0]!r}")


def test_the_flow_is_numbered_in_order_and_each_step_names_a_function():
    text = flow()
    numbers = [int(n) for n in STEP.findall(text)]
    assert numbers == list(range(numbers[0], numbers[0] + len(numbers))) and len(numbers) >= 8, numbers
    steps = STEP.split(text)[1:]
    for number, body in zip(steps[::2], steps[1::2], strict=True):
        assert NAME.search(body), f"step {number} names no module.function"
    assert "watcher" in text.lower() and "redis" in text.lower()       # the fallback and the Redis path


def test_every_function_the_flow_names_exists():
    names = sorted(set(NAME.findall(flow())))
    assert len(names) > 20
    missing = []
    for name in names:
        try:
            found = resolve(name)
        except LookupError as err:
            missing.append(f"{name}: {err}")
            continue
        if not callable(found):
            missing.append(f"{name}: not a function")
    assert not missing, missing


@pytest.mark.parametrize("name", ["ui.classroom.follow.no_such_step", "ui.wake.Followers.wake",
                                  "ui.no_such_module.f"])
def test_a_name_that_does_not_exist_is_caught(name):
    with pytest.raises(LookupError):
        resolve(name)
