"""Warming at server start: the lessons' own cached computations at the pages' defaults, so a page opened
at its defaults, every prediction revealed, computes nothing more."""

from __future__ import annotations

import logging

import pytest

import attention_core as core
from devtools.apptest import open_page, reveal
from ui import warm
from ui.lessons import polysemy, rnn_vs_attention, sqrt_dk

WARMED_PAGES = {"sqrt_dk": sqrt_dk, "polysemy": polysemy, "rnn_vs_attention": rnn_vs_attention}


class Spy:
    """Stands in for ``attention_core`` inside one lesson module and notes every function called."""

    def __init__(self) -> None:
        self.calls: list[str] = []

    def __getattr__(self, name: str):
        real = getattr(core, name)
        if not callable(real):
            return real

        def called(*args, **kwargs):
            self.calls.append(name)
            return real(*args, **kwargs)
        return called


@pytest.fixture(scope="module")
def warmed():
    return warm.warm_all()


def test_every_warmer_runs(warmed):
    assert set(warmed) == {name for name, _ in warm.WARMERS}


@pytest.mark.parametrize("slug", sorted(WARMED_PAGES))
def test_a_page_at_its_defaults_computes_nothing_after_warming(warmed, monkeypatch, slug):
    spy = Spy()
    monkeypatch.setattr(WARMED_PAGES[slug], "core", spy)
    at = reveal(open_page(slug), slug)
    assert not at.exception
    assert spy.calls == [], f"{slug} computed {spy.calls} that warming left out (a default changed?)"


def test_the_spy_sees_a_cold_computation(monkeypatch):
    """The check above can fail: a seed nobody warmed reaches the core."""
    spy = Spy()
    monkeypatch.setattr(sqrt_dk, "core", spy)
    sqrt_dk.softmax_sweep_by_seed(sqrt_dk.SEED + 4321)
    assert "softmax_sweep" in spy.calls


def test_a_failing_warmer_is_logged_and_the_rest_still_run(caplog):
    ran = []

    def broken() -> None:
        raise RuntimeError("no disk")

    with caplog.at_level(logging.ERROR, logger="ui.warm"):
        took = warm.warm_all((("broken", broken), ("fine", lambda: ran.append(1))))
    assert ran == [1] and set(took) == {"fine"}
    assert "Warming broken failed" in caplog.text


def test_magic_is_off_and_no_page_needs_it():
    """With magic on, Streamlit parses every script with ``ast`` on first run, which on Python 3.11 can
    collide with a parse in the warming thread (numpy reads .npz headers with ast.literal_eval). Nothing is
    lost by turning it off as long as no script has a bare expression for magic to show."""
    import ast
    import tomllib
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    config = tomllib.loads((root / ".streamlit" / "config.toml").read_text(encoding="utf-8"))
    assert config["runner"]["magicEnabled"] is False
    shown = []
    for path in [root / "app.py", *sorted((root / "pages").glob("*.py"))]:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docstrings = {id(n.body[0]) for n in ast.walk(tree)
                      if isinstance(n, ast.Module | ast.FunctionDef | ast.ClassDef) and n.body}
        shown += [f"{path.name}:{n.lineno}" for n in ast.walk(tree)
                  if isinstance(n, ast.Expr) and id(n) not in docstrings
                  and not isinstance(n.value, ast.Call | ast.Await | ast.Yield | ast.YieldFrom)]
    assert not shown, f"bare expressions that magic would have shown: {shown}"


def test_warming_starts_once_per_process():
    assert warm.start() is warm.start()
