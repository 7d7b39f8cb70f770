"""The server's heap: after the first run, what the process holds is frozen out of later full collections."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_the_first_run_freezes_the_loaded_libraries_and_later_runs_do_nothing():
    """ui.heap.settle_heap in a fresh interpreter, as the server calls it after each run: the first call
    freezes what exists (the libraries a full collection would otherwise walk); later calls neither collect,
    nor freeze, nor ask the collector anything (gc.get_freeze_count walks every frozen object)."""
    code = (
        "import gc\n"
        "import numpy, pandas, plotly.graph_objects\n"
        "from ui import heap\n"
        "assert gc.get_freeze_count() == 0\n"
        "heap.settle_heap(); first = gc.get_freeze_count()\n"
        "made_later = [[i] for i in range(1000)]\n"
        "def untouchable(*args): raise AssertionError('the collector was asked again')\n"
        "saved = gc.collect, gc.freeze, gc.get_freeze_count\n"
        "gc.collect = gc.freeze = gc.get_freeze_count = untouchable\n"
        "heap.settle_heap(); heap.settle_heap()\n"
        "gc.collect, gc.freeze, gc.get_freeze_count = saved\n"
        "print(first, gc.get_freeze_count())\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    first, later = map(int, out.stdout.split())
    assert first > 50_000 and later == first


def test_app_py_settles_the_heap_after_the_page_has_run():
    source = (ROOT / "app.py").read_text()
    assert source.index(").run()", source.index("st.navigation(")) < source.index("heap.settle_heap()")
