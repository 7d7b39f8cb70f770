"""Memory bounded in bytes: the byte-bounded cache, and every cache's worst case in bytes.

A cache bounded only by entries holds entries × (its largest entry); these tests make each cache's largest
entry from the inputs that make it biggest and check the product against a budget, so a change that makes
an entry ten times bigger fails here rather than on a classroom's server.
"""

from __future__ import annotations

import gc
import importlib
import pickle
import re
import subprocess
import sys
import threading
from dataclasses import dataclass
from types import MappingProxyType

import numpy as np
import pytest

import attention_core as core
from devtools.apptest import ROOT, open_page
from ui import charts, heap, models, sweeper
from ui.lessons import (
    kv_cache,
    polysemy,
    positional_encoding,
    real_model_lab,
    rnn_vs_attention,
    sqrt_dk,
    transformer_block,
)
from ui.lru import ByteLRU, deep_size, frozen, once, shared

MB = 2**20


def test_byte_lru_evicts_least_recently_used_until_under_budget():
    made = []
    cache = ByteLRU(max_bytes=1000, max_entries=100, size=len)

    def make(n):
        return lambda: (made.append(n), "x" * n)[1]

    cache.get("a", make(300))
    cache.get("b", make(300))
    cache.get("a", make(300))                                     # a is now the most recent
    cache.get("c", make(300))                                     # over 1000 with the keys: b goes
    assert cache.nbytes <= 1000 and len(cache) == 2
    cache.get("a", make(300))
    assert made == [300, 300, 300], "a was kept"
    cache.get("b", make(300))
    assert made[-1] == 300 and len(made) == 4, "b had been dropped, so it was made again"


def test_byte_lru_bounds_entries_and_never_keeps_a_value_over_budget():
    cache = ByteLRU(max_bytes=10_000, max_entries=3, size=len)
    for k in range(10):
        cache.get(k, lambda: "y")
    assert len(cache) == 3
    big = cache.get("big", lambda: "z" * 20_000)
    assert len(big) == 20_000 and len(cache) == 3 and cache.nbytes <= 10_000


def test_byte_lru_is_consistent_under_threads():
    cache = ByteLRU(max_bytes=50_000, max_entries=1000, size=len)

    def work(t):
        for k in range(300):
            assert cache.get((t + k) % 97, lambda k=k: "v" * (100 + (t + k) % 97)) .startswith("v")

    threads = [threading.Thread(target=work, args=(t,)) for t in range(8)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert cache.nbytes <= 50_000
    assert cache.nbytes == sum(entry[1] for entry in cache._entries.values())


def test_byte_lru_sweep_drops_only_what_nobody_read_for_max_idle():
    now = [0.0]
    cache = ByteLRU(max_bytes=10_000, max_entries=100, size=len, max_idle=30, clock=lambda: now[0])
    cache.get("old", lambda: "o" * 100)
    cache.get("read", lambda: "r" * 100)
    now[0] = 20.0
    cache.get("read", lambda: "never made: a hit")                  # read again at 20 s
    cache.get("new", lambda: "n" * 100)
    now[0] = 30.0
    assert cache.sweep() == 1 and len(cache) == 2, "only 'old' was idle for 30 s"
    assert cache.get("read", lambda: "made again") == "r" * 100
    now[0] = 60.0
    assert cache.sweep() == 2 and len(cache) == 0 and cache.nbytes == 0
    assert ByteLRU(100, 10, len).sweep() == 0, "without max_idle nothing expires"


def test_once_makes_one_value_for_every_thread_and_retries_after_a_failure():
    made, gate = [], threading.Event()

    @once
    def value() -> object:
        gate.wait(5)                                    # every thread arrives before the first call returns
        made.append(object())
        if len(made) == 1:
            raise RuntimeError("the first try fails")
        return made[-1]

    got: list[object] = []

    def ask() -> None:
        try:
            got.append(value())
        except RuntimeError:
            got.append(None)

    threads = [threading.Thread(target=ask) for _ in range(8)]
    for t in threads:
        t.start()
    gate.set()
    for t in threads:
        t.join(10)
    assert len(made) == 2 and got.count(None) == 1 and got.count(made[1]) == 7
    assert value() is made[1] and len(made) == 2


def test_shared_makes_each_value_once_per_argument_and_type_and_hands_out_the_same_read_only_object():
    made = []

    @shared(max_entries=8)
    def square(x):
        made.append(x)
        return Pair(np.full(3, x * x), (x, x))

    first = square(2)
    assert square(2) is first and made == [2]
    assert square(2.0) is not first and made == [2, 2.0], "1 and 1.0 are two entries (their types differ)"
    with pytest.raises(ValueError, match="read-only"):
        first.values[0] = 0                                    # every session holds this one object
    square.cache.clear()
    assert square(2) is not first and made == [2, 2.0, 2]


@dataclass(frozen=True)
class Pair:
    values: np.ndarray
    pair: tuple


@dataclass
class Loose:
    x: int


@pytest.mark.parametrize(("value", "named"), [
    ([1, 2], "the value is a list"),
    (Pair(np.zeros(2), (1, [2])), "Pair.pair[1] is a list"),
    (Pair(np.zeros(2), ({"a": 1},)), "Pair.pair[0] is a dict"),
    (Loose(1), "not frozen"),
    (np.array([[1], "a"], dtype=object), "object array"),
])
def test_frozen_refuses_what_a_session_could_change_and_names_where_it_is(value, named):
    with pytest.raises(TypeError, match=re.escape(named)):
        frozen(value)


def test_frozen_takes_read_only_mappings_and_plain_values():
    view = MappingProxyType({"a": np.ones(2)})
    assert frozen((view, 1, 2.5, "s", None, np.float32(1))) [0] is view
    assert not view["a"].flags.writeable


def test_deep_size_counts_arrays_and_strings():
    a = np.zeros((128, 128), np.float32)
    assert deep_size({"z": a, "x": ["ab"] * 3}) >= a.nbytes + 6


def test_lab_runs_are_float32_weights_only_and_the_budget_holds_long_sentences():
    run = models.minilm().attention_run("word " * 200)               # 128 tokens, the longest
    assert run.attentions.dtype == np.float32 and not hasattr(run, "hidden_states")
    assert run.nbytes < 5 * MB
    assert models.LAB_RUNS_MAX_BYTES // run.nbytes >= 30, "a class of 30, each on a sentence of their own"
    assert models.LAB_RUNS_MAX_BYTES <= 160 * MB


def test_lab_runs_and_figures_are_dropped_within_a_minute_or_so_of_the_last_reader():
    """The soak's target: the server back under 450 MB within 60 s after a class has left. An idle run
    is dropped by the sweep after max_idle, which runs every SWEEP_SECONDS; an idle figure a minute later, so
    a second class does not start beside the first's (benchmarks/cloud_class.py waits 130 s between them)."""
    assert models.LAB_RUNS.max_idle is not None
    assert models.LAB_RUNS.max_idle + sweeper.SWEEP_SECONDS <= 45, "room left for the collection and trim"
    assert charts.FIGURES.max_idle is not None and charts.FIGURES.max_idle + sweeper.SWEEP_SECONDS <= 75
    assert sweeper.start().is_alive() and sweeper.start().daemon


def test_a_sweep_drops_idle_runs_and_figures_and_collects_only_for_megabytes(monkeypatch):
    now = [1000.0]
    runs = ByteLRU(100 * MB, 10, len, max_idle=30, clock=lambda: now[0])
    figures = ByteLRU(100 * MB, 10, len, max_idle=60, clock=lambda: now[0])
    monkeypatch.setattr(models, "LAB_RUNS", runs)
    monkeypatch.setattr(charts, "FIGURES", figures)
    handed_back = []
    monkeypatch.setattr(heap, "release_memory", lambda: handed_back.append("collected"))
    monkeypatch.setattr(heap, "trim", lambda: handed_back.append("trimmed"))
    runs.get("run", lambda: "r" * sweeper.COLLECT_BYTES)
    figures.get("figure", lambda: "f" * 100)
    now[0] += 45
    assert sweeper.sweep() == 1 and len(runs) == 0 and len(figures) == 1
    now[0] += 30
    assert sweeper.sweep() == 1 and len(figures) == 0
    assert sweeper.sweep() == 0
    assert handed_back == ["collected", "trimmed", "trimmed"], "a small figure is not worth a full collection"
    monkeypatch.setattr(sweeper.streamlit_private, "reap_closed_sessions", lambda: 3)   # a class's closed tabs
    assert sweeper.sweep() == 3 and handed_back[-1] == "collected"


def test_a_lab_session_keeps_no_run_of_its_own(monkeypatch):
    """Streamlit keeps a session for minutes after its browser has gone, with its fragments and what they
    hold: a run held there would outlive the cache's bounds. Only LAB_RUNS may hold one."""
    at = open_page("real_model_lab", lab_text="A sentence no other test sends, about a river and a bank")
    at.slider(key="lab_layer").set_value(3).run()                       # a fragment rerun
    at.toggle(key="lab_avg").set_value(True).run()
    assert not at.exception and at.session_state["lab_layer"] == 3
    monkeypatch.setattr(models.LAB_RUNS, "max_idle", 0.0)
    models.LAB_RUNS.sweep()                                             # the cache lets go of every run
    gc.collect()
    held = [o for o in gc.get_objects() if isinstance(o, core.bert.AttentionRun) and "sends" in o.tokens]
    assert not held, f"{len(held)} runs still held, e.g. {held[0].tokens[:6]}"
    at.slider(key="lab_layer").set_value(2).run()                       # and the page makes it again
    assert not at.exception and len(models.LAB_RUNS) >= 1


def test_a_freed_large_block_goes_back_to_the_system_once_malloc_is_tuned():
    """heap.tune_malloc fixes glibc's mmap threshold: without it, a big block freed after the first one went
    into a heap and stayed there (a lab run's weights are such blocks). A fresh process each way."""
    code = (
        "import sys, numpy as np\n"
        "from ui import heap\n"
        "def rss():\n"
        "    return next(int(l.split()[1]) for l in open('/proc/self/status') if l.startswith('VmRSS')) / 1024\n"
        "if sys.argv[1] == 'tuned':\n"
        "    assert heap.tune_malloc()\n"
        "a = np.ones(8 << 20, np.uint8); del a\n"              # glibc raises its threshold to 8 MB here
        "before = rss()\n"
        "b = np.ones(8 << 20, np.uint8)\n"
        "keep = [bytes(1000) for _ in range(1000)]\n"         # small blocks above it: the heap cannot shrink
        "del b\n"
        "print(rss() - before)\n")
    kept = {how: float(subprocess.run([sys.executable, "-c", code, how], cwd=ROOT, capture_output=True, text=True,
                                      check=True).stdout) for how in ("plain", "tuned")}
    assert kept["tuned"] < 2, kept
    assert kept["plain"] > 6, f"the test no longer shows the problem it guards against: {kept}"


def test_the_model_and_glove_are_each_cached_once_by_the_app():
    assert models.minilm() is models.minilm() and models.glove() is models.glove()
    # the core only loads: a second cache there would hold a second reference under another bound
    assert not hasattr(core.load_model, "cache_info") and not hasattr(core.load_glove, "cache_info")


def test_encode_is_shared_not_copied():
    assert models.encode("The bank of the river") is models.encode("The bank of the river")


def _pickled(value) -> int:
    return len(pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL))


# (cache, its largest entry made from the inputs that make it biggest). A lesson's ``shared`` cache counts an
# entry by ``deep_size`` within its byte budget; st.cache_data (glove_nearest) keeps entries pickled.
WORST = {
    "sense_experiment": (polysemy.sense_experiment, (4096, 9999)),
    "rnn_race": (rnn_vs_attention.rnn_race, (500, 1.5, 10_000)),
    "sqrt_dk_numbers": (sqrt_dk.sqrt_dk_numbers, (1024, 10_000)),
    "softmax_sweep_by_seed": (sqrt_dk.softmax_sweep_by_seed, (10_000,)),
    "glove_nearest": (models.glove_nearest, ("bank", 10)),
    "layer_experiment": (real_model_lab.layer_experiment, (
        "bank", tuple(("bank " * 40 + f"{n} " + "river " * 100)[:3000 // 6] for n in range(6)))),
    "reference_stacks": (real_model_lab.reference_stacks, ("bank",)),
    # 128 tokens, each its own word: the longest sentence the page can run.
    "shuffle_numbers": (positional_encoding.shuffle_numbers, ("!" * positional_encoding.MAX_CHARS, 20)),
    "staged_run": (transformer_block.staged_run, ("word " * 200, False, False, True)),     # 128 tokens
    "alikeness": (transformer_block.alikeness, ("word " * 200, False, True, True)),
    "bank_numbers": (transformer_block.bank_numbers, (False, True, True)),
    "toy_run": (kv_cache.toy_run, (10_000,)),
}


@pytest.mark.parametrize("name", sorted(WORST))
def test_each_caches_largest_entry_is_kept_and_its_bound_is_small(name):
    """A shared cache's largest entry fits its byte budget (one that does not is made again on every run), and
    the budget holds its entry count of them; a cache_data one holds entries × largest within 16 MB."""
    cached, args = WORST[name]
    value = cached(*args)
    if hasattr(cached, "cache"):
        cache, size = cached.cache, deep_size(value)
        assert size <= cache.max_bytes <= 16 * MB, f"{name}: {size:,} bytes against {cache.max_bytes:,}"
        assert cache.max_entries * size <= max(cache.max_bytes, MB) * 1.25, f"{name}: budget too small for its entries"
    else:
        size, max_entries = _pickled(value), cached._info.max_entries
        assert max_entries and max_entries * size <= 16 * MB, f"{name}: {max_entries} × {size:,} bytes"


def shared_caches() -> dict[str, ByteLRU]:
    """Every lesson computation's ``shared`` cache, found in the ui/lessons modules."""
    found = {}
    for path in sorted((ROOT / "ui" / "lessons").glob("*.py")):
        module = importlib.import_module(f"ui.lessons.{path.stem}")
        found |= {f"{path.stem}.{n}": f.cache for n, f in vars(module).items()
                  if isinstance(getattr(f, "cache", None), ByteLRU) and getattr(f, "__module__", "") == module.__name__}
    return found


def test_the_byte_bounded_caches_add_up_to_a_budget():
    """Community Cloud gives an app about 690 MB; the server with both models loaded starts near 270 MB
    (docs/RELIABILITY.md), so the shared caches may take well under the rest: the lab's runs, the figures,
    and every lesson's computations."""
    lessons = shared_caches()
    assert len(lessons) >= 20 and "rnn_vs_attention.rnn_race" in lessons
    total = models.LAB_RUNS_MAX_BYTES + charts.FIGURES_MAX_BYTES + sum(c.max_bytes for c in lessons.values())
    assert total <= 232 * MB, f"{total / MB:.0f} MB"
