"""Warm one lesson in the background, the first time its page is opened in this server process.

A fresh server's caches are empty, and what a lesson computes behind its later sections (a presenter's next
step, a revealed prediction) is computed when the first learner gets there. ``lesson(slug)``, called as a
page opens, starts one daemon thread per lesson per process (never per session, never for every lesson at
server start: that warmed the whole site on every replica just as a class joined, and slowed it, see
docs/PERFORMANCE.md (i)). The thread calls the lesson's own cached functions at the page's defaults, the
same calls the page makes (tests/test_warm.py checks that a page at its defaults, stepped and revealed to the
end, asks for nothing more), so a learner reading the question pays for nothing when the answer is revealed.
The first thread also loads what Streamlit and Plotly load on first use.

Bounded: at most one warming thread works at a time (they queue on a lock), each runs a fixed list of
calls, and a lesson is started at most once, so the threads are at most the lessons. Every cache the calls
fill is bounded already (ui/lessons/__init__.py). The thread has no script context, so a cached function's
spinner shows nowhere; a failure is logged and left there: the page computes what it needs as before.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

from ui import streamlit_private as private

_LOGGER = logging.getLogger(__name__)

Warmer = tuple[str, Callable[[], None]]
THREAD_PREFIX = "warm-"


class _NoContextIsExpected(logging.Filter):
    """A cached function's spinner looks for the script it would show in, and warns when it finds none: in
    a warming thread there is none by design, so that warning would only fill the server's log."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not threading.current_thread().name.startswith(THREAD_PREFIX)


logging.getLogger(private.SCRIPT_CONTEXT_LOGGER).addFilter(_NoContextIsExpected())

# Every trace type the figures use: Plotly imports each type's module and validators on its first figure.
TRACE_TYPES = ("bar", "heatmap", "scatter", "scatterternary")


def streamlit_emoji_table() -> None:
    """Streamlit looks for an emoji at the start of an alert that names no icon, and of a pill's label, in
    a table whose regular expression it compiles on first use, once per process."""
    private.load_emoji_table()


def plotly_types() -> None:
    import plotly.graph_objects as go

    go.Figure([{"type": t} for t in TRACE_TYPES]).to_plotly_json()


def sqrt_dk() -> None:
    from ui.lessons import sqrt_dk as lesson

    lesson.sqrt_dk_numbers(lesson.D_K, lesson.SEED)
    lesson.softmax_sweep_by_seed(lesson.SEED)


def polysemy() -> None:
    from ui.lessons import polysemy as lesson

    lesson.vocab()
    lesson.real_vectors()
    for d in lesson.DIMS:                                  # section 3's whole sweep, behind a presenter step
        lesson.sense_experiment(d, lesson.SEED)


def rnn_vs_attention() -> None:
    from ui.lessons import rnn_vs_attention as lesson

    lesson.rnn_race(lesson.LENGTH, lesson.RHO, lesson.SEED)
    lesson.path_curves()
    lesson.lstm_race(lesson.LENGTH, lesson.FORGET_BIAS, lesson.SEED)
    lesson.recall(lesson.STATE_D, lesson.SEED)
    lesson.recall_at(lesson.STATE_D, lesson.PAIRS, lesson.SEED)


# Once per process, with whichever lesson is opened first.
SHARED: tuple[Warmer, ...] = (("Streamlit's emoji table", streamlit_emoji_table),
                              ("Plotly's trace types", plotly_types))
# A lesson's defaults, once per lesson per process. Lessons not listed compute little behind their sections.
LESSONS: dict[str, tuple[Warmer, ...]] = {
    "sqrt_dk": (("sqrt_dk", sqrt_dk),),
    "polysemy": (("polysemy", polysemy),),
    "rnn_vs_attention": (("rnn_vs_attention", rnn_vs_attention),),
}

_LOCK = threading.Lock()                  # guards _STARTED
_ONE_AT_A_TIME = threading.Lock()         # held by the thread that is warming
_STARTED: dict[str, threading.Thread] = {}   # slug ("" for SHARED) -> its thread; at most one per lesson


def run(warmers: tuple[Warmer, ...]) -> dict[str, float]:
    """Run each warmer in turn; the seconds each took. One that raises is logged, and the rest still run."""
    took = {}
    for name, warm in warmers:
        t0 = time.perf_counter()
        try:
            warm()
        except Exception:                                  # the page computes it itself, as before
            _LOGGER.exception("Warming %s failed; the page computes it when it is needed.", name)
            continue
        took[name] = time.perf_counter() - t0
    return took


def _work(slug: str, warmers: tuple[Warmer, ...]) -> None:
    with _ONE_AT_A_TIME:
        took = run(warmers)
    _LOGGER.info("Warmed %s: %s", slug or "shared", ", ".join(f"{n} {s:.2f} s" for n, s in took.items()))


def lesson(slug: str) -> threading.Thread | None:
    """Start warming ``slug`` in the background unless this process has already; the new thread, or None."""
    with _LOCK:
        warmers = () if "" in _STARTED else SHARED
        warmers += () if slug in _STARTED else LESSONS.get(slug, ())
        _STARTED.setdefault("", None)
        _STARTED.setdefault(slug, None)
        if not warmers:
            return None
        thread = threading.Thread(target=_work, args=(slug, warmers), name=f"{THREAD_PREFIX}{slug}", daemon=True)
        _STARTED[slug] = thread
    thread.start()
    return thread


def started() -> dict[str, threading.Thread | None]:
    """What this process has started warming (for tests and diagnostics)."""
    with _LOCK:
        return dict(_STARTED)


def forget() -> None:
    """Forget what has been started, so the next page opened warms again (tests only)."""
    with _LOCK:
        _STARTED.clear()
