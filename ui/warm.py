"""Work the first learner would otherwise wait for, done once per server process, in the background.

A fresh server has empty caches: the first learner to open a lesson, or to reveal its first prediction,
pays for that lesson's computations at their default settings (random draws, sweeps, the models and the
word vectors) and for Plotly's first validation of each trace type. Every later learner gets them from
the cache. ``start()`` does that work on a background thread as the first session arrives, so that in
a class nobody waits for it: each computation is the lesson's own cached function, called with the
page's defaults (tests/test_warm.py checks that a page opened at its defaults asks for nothing more).

The thread has no script context, so the cached functions' spinners show nowhere; a failure is logged and
left to the page, which computes what it needs as before.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

import plotly.graph_objects as go

_LOGGER = logging.getLogger(__name__)

# Every trace type the figures use: Plotly loads and builds each type's validators on its first use.
TRACE_TYPES = ("bar", "heatmap", "scatter", "scatterternary")


def plotly_types() -> None:
    go.Figure([{"type": t} for t in TRACE_TYPES]).to_plotly_json()


def sqrt_dk() -> None:
    from ui.lessons import sqrt_dk as lesson

    lesson.softmax_sweep_by_seed(lesson.SEED)
    lesson.sqrt_dk_numbers(lesson.D_K, lesson.SEED)


def polysemy() -> None:
    from ui.lessons import polysemy as lesson

    lesson.vocab()
    lesson.real_vectors()
    for d in lesson.DIMS:
        lesson.sense_experiment(d, lesson.SEED)


def rnn_vs_attention() -> None:
    from ui.lessons import rnn_vs_attention as lesson

    lesson.path_curves()
    lesson.rnn_race(lesson.LENGTH, lesson.RHO, lesson.SEED)
    lesson.lstm_race(lesson.LENGTH, lesson.FORGET_BIAS, lesson.SEED)
    lesson.recall(lesson.STATE_D, lesson.SEED)
    lesson.recall_at(lesson.STATE_D, lesson.PAIRS, lesson.SEED)


def models() -> None:
    from ui import models as m

    m.glove()
    m.minilm()


# In the order a class usually meets them; each is independent of the others.
WARMERS: tuple[tuple[str, Callable[[], None]], ...] = (
    ("plotly", plotly_types), ("polysemy", polysemy), ("sqrt_dk", sqrt_dk),
    ("rnn_vs_attention", rnn_vs_attention), ("models", models),
)


def warm_all(warmers: tuple[tuple[str, Callable[[], None]], ...] = WARMERS) -> dict[str, float]:
    """Run every warmer; returns the seconds each took (a failed one is logged and left out)."""
    took = {}
    for name, warm in warmers:
        t0 = time.perf_counter()
        try:
            warm()
        except Exception:                                  # the page computes it itself, as before
            _LOGGER.exception("Warming %s failed; its page computes it on first use.", name)
            continue
        took[name] = time.perf_counter() - t0
    _LOGGER.info("Warmed %s", ", ".join(f"{n} {s:.1f} s" for n, s in took.items()))
    return took


_STARTED: list[threading.Thread] = []
_START_LOCK = threading.Lock()


def start() -> threading.Thread:
    """Start warming, once per process (the first session's run); later runs get the same thread back.
    Not a cache_resource: a "clear cache" from any client would start it again and refill every cache."""
    with _START_LOCK:
        if not _STARTED:
            thread = threading.Thread(target=warm_all, name="warm-lessons", daemon=True)
            thread.start()
            _STARTED.append(thread)
        return _STARTED[0]
