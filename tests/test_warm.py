"""Warming a lesson as its page first opens (ui/warm.py): once per lesson per process, computing what the
page would compute at its defaults, and never showing a failure on a page."""

from __future__ import annotations

import logging
import threading

import pytest

import attention_core as core
from devtools.apptest import open_page, reveal
from ui import controls, warm
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


def _join_all() -> None:
    for thread in warm.started().values():
        if thread is not None:
            thread.join(120)
            assert not thread.is_alive()


@pytest.fixture
def fresh():
    """A process that has warmed nothing yet; every thread started in the test is finished after it."""
    _join_all()
    warm.forget()
    yield
    _join_all()
    warm.forget()


class Counter:
    def __init__(self) -> None:
        self.n = 0
        self.lock = threading.Lock()

    def __call__(self) -> None:
        with self.lock:
            self.n += 1


def test_each_lesson_warms_once_and_the_shared_part_once(fresh, monkeypatch):
    shared, a, b = Counter(), Counter(), Counter()
    monkeypatch.setattr(warm, "SHARED", (("shared", shared),))
    monkeypatch.setattr(warm, "LESSONS", {"a": (("a", a),), "b": (("b", b),)})
    # Many sessions opening lesson a at once, as a class does.
    callers = [threading.Thread(target=warm.lesson, args=("a",)) for _ in range(16)]
    for c in callers:
        c.start()
    for c in callers:
        c.join()
    _join_all()
    assert (shared.n, a.n, b.n) == (1, 1, 0)
    assert warm.lesson("b") is not None
    assert warm.lesson("b") is None and warm.lesson("a") is None
    _join_all()
    assert (shared.n, a.n, b.n) == (1, 1, 1)
    assert warm.lesson("home") is None                        # nothing to warm for a page not listed
    assert all(t is None or t.daemon for t in warm.started().values())


def test_warming_threads_take_turns(fresh, monkeypatch):
    """At most one warming thread works at a time, however many lessons open at once."""
    busy, most, lock = [0], [0], threading.Lock()

    def work() -> None:
        with lock:
            busy[0] += 1
            most[0] = max(most[0], busy[0])
        threading.Event().wait(0.02)
        with lock:
            busy[0] -= 1

    monkeypatch.setattr(warm, "SHARED", ())
    monkeypatch.setattr(warm, "LESSONS", {s: ((s, work),) for s in "abcdef"})
    for s in "abcdef":
        warm.lesson(s)
    _join_all()
    assert most[0] == 1


def test_opening_a_page_warms_its_lesson_once(fresh, monkeypatch):
    count = Counter()
    monkeypatch.setattr(warm, "SHARED", ())
    monkeypatch.setattr(warm, "LESSONS", {"sqrt_dk": (("sqrt_dk", count),)})
    at = open_page("sqrt_dk")
    at.run()                                                  # a rerun of the same session
    open_page("sqrt_dk")                                      # another learner
    _join_all()
    assert count.n == 1
    assert "sqrt_dk" in warm.started()


def test_a_failing_warmer_never_reaches_the_page(fresh, monkeypatch, caplog):
    ran = Counter()

    def broken() -> None:
        raise RuntimeError("the disk is gone")

    monkeypatch.setattr(warm, "SHARED", ())
    monkeypatch.setattr(warm, "LESSONS", {"sqrt_dk": (("broken", broken), ("fine", ran))})
    with caplog.at_level(logging.ERROR, logger="ui.warm"):
        at = open_page("sqrt_dk")
        _join_all()
        reveal(at, "sqrt_dk")
    assert not at.exception
    shown = "\n".join(str(e.value) for kind in (at.error, at.warning, at.exception) for e in kind)
    assert "disk is gone" not in shown
    assert ran.n == 1                                         # the warmers after the failing one still ran
    assert "Warming broken failed" in caplog.text and "disk is gone" in caplog.text


def _step_to_the_end(at, slug: str) -> None:
    key = controls.step_key(slug)
    for _ in range(10):
        nxt = next((b for b in at.button if b.key == f"{key}__next"), None)
        if nxt is None or nxt.disabled:
            break
        nxt.click().run()
        reveal(at, slug)


@pytest.mark.parametrize("slug", sorted(WARMED_PAGES))
@pytest.mark.parametrize("presenting", [False, True])
def test_a_page_at_its_defaults_computes_nothing_after_warming(fresh, monkeypatch, slug, presenting):
    """The warmers call what the page calls at its defaults: a default changed on the page and not in
    ui/lessons/<slug>.py (which both read) would show up here as a computation left for the learner."""
    module = WARMED_PAGES[slug]
    for cached in [getattr(module, n) for n in dir(module)]:    # cold, whatever ran earlier in this process
        if type(cached).__name__ == "CachedFunc":
            cached.clear()
    warm.run(warm.LESSONS[slug])
    spy = Spy()
    monkeypatch.setattr(WARMED_PAGES[slug], "core", spy)
    at = open_page(slug, **({"present": "1"} if presenting else {}))
    reveal(at, slug)
    if presenting:
        _step_to_the_end(at, slug)
    assert not at.exception
    assert spy.calls == [], f"{slug} computed {sorted(set(spy.calls))} that warming left out"


def test_the_spy_sees_a_cold_computation(monkeypatch):
    """The check above can fail: a seed nobody warmed reaches the core."""
    spy = Spy()
    monkeypatch.setattr(sqrt_dk, "core", spy)
    sqrt_dk.softmax_sweep_by_seed(sqrt_dk.SEED + 4321)
    assert "softmax_sweep" in spy.calls


def test_the_missing_context_warning_is_kept_out_of_the_log_for_warming_threads_only(caplog):
    from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx

    name = "streamlit.runtime.scriptrunner_utils.script_run_context"
    logger = logging.getLogger(name)
    caplog.set_level(logging.WARNING, logger=name)
    logger.addHandler(caplog.handler)                       # Streamlit's loggers do not propagate to the root
    try:
        for thread_name in (f"{warm.THREAD_PREFIX}x", "someone-else"):
            t = threading.Thread(target=get_script_run_ctx, name=thread_name)
            t.start()
            t.join()
    finally:
        logger.removeHandler(caplog.handler)
    assert "someone-else" in caplog.text and f"{warm.THREAD_PREFIX}x" not in caplog.text
