"""(a) Server rerun per page (AppTest), as a multiple of benchmarks/floor_app.py in the same run, and
(b) the chart JSON each interaction ships.
"""

from __future__ import annotations

import gc
import statistics
import time
from dataclasses import dataclass

from benchmarks.report import TARGETS, ok
from devtools.harness import ROOT
from ui.controls import is_lesson_control


def _first_control(at):
    """The first slider or toggle on the page (AppTest lists), and a function giving its other value.

    Only the page's own controls count (not the presenter switch, not the frame's questions), so every page
    is measured on a control the lesson is about."""
    sliders = [w for w in at.slider if is_lesson_control(w.key)]
    toggles = [w for w in at.toggle if is_lesson_control(w.key)]
    if sliders:
        s = sliders[0]
        if isinstance(s.value, tuple | list):
            return s, lambda v: (s.min, v[1]) if v[0] != s.min else (s.min + s.step, v[1])
        return s, lambda v: s.max if v != s.max else s.min
    if toggles:
        return toggles[0], lambda v: not v
    return None, None


def _spec_bytes(at) -> int:
    return sum(len(el.proto.spec.encode()) for el in at.get("plotly_chart"))


@dataclass
class ServerRerun:
    slug: str
    control: str
    median_ms: float
    charts: int
    chart_bytes: int
    floor_ms: float                                 # the floor page's median, rerun alternately with this page


class _Mover:
    """One AppTest and its page's first control: each step moves the control and times the rerun it causes."""

    def __init__(self, at, slug: str):
        self.at, self.slug = at, slug
        self.widget, self.other = _first_control(at)

    def step(self) -> float:
        if self.widget is not None:
            self.widget = _first_control(self.at)[0] or self.widget
            self.widget.set_value(self.other(self.widget.value))
        t0 = time.perf_counter()
        self.at.run()
        elapsed = time.perf_counter() - t0
        if self.at.exception:
            raise RuntimeError(f"{self.slug}: {self.at.exception}")
        return elapsed

    def result(self, times: list[float], sizes: list[int], floor_ms: float) -> ServerRerun:
        w = self.widget
        label = f"{type(w).__name__.lower()} `{w.key or w.label}`" if w else "none (plain rerun)"
        return ServerRerun(self.slug, label, statistics.median(times) * 1000, len(self.at.get("plotly_chart")),
                           max(sizes), floor_ms)


def server_reruns(slugs: list[str], n: int) -> tuple[ServerRerun, list[ServerRerun]]:
    """Each page's rerun with the floor page's measured alternately, rerun for rerun, so that both see the
    same machine: on a shared machine the load drifts within seconds, and a floor measured before and
    after the pages moved single ratios (docs/archive/PERFORMANCE_HISTORY.md, "Session 5")."""
    from streamlit.testing.v1 import AppTest

    floor_at = AppTest.from_file(str(ROOT / "benchmarks" / "floor_app.py"), default_timeout=120)
    floor_at.run()
    floor = _Mover(floor_at, "floor")
    all_floor, rows = [], []
    for slug in slugs:
        at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
        at.run()
        if slug != "home":
            at.switch_page(f"pages/{slug}.py").run()
        page = _Mover(at, slug)
        floor_times, times, sizes = [], [], []
        for i in range(n + 2):  # two warm-up reruns of each, not timed
            floor_time, page_time = floor.step(), page.step()
            if i >= 2:
                floor_times.append(floor_time)
                times.append(page_time)
                sizes.append(_spec_bytes(at))
        all_floor += floor_times
        rows.append(page.result(times, sizes, statistics.median(floor_times) * 1000))
    floor_ms = statistics.median(all_floor) * 1000
    return floor.result(all_floor, [_spec_bytes(floor_at)], floor_ms), rows


def gc_collect_ms() -> float:
    times = []
    for _ in range(10):
        t0 = time.perf_counter()
        gc.collect()
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1000


def section(floor: ServerRerun, reruns: list[ServerRerun], floor_c: ServerRerun, reruns_c: list[ServerRerun],
            n: int) -> list[str]:
    """The report's (a)/(b) section: the reruns measured as AppTest ships and as the server runs pages."""
    rows = ["| Page | Control moved | Rerun, AppTest as shipped | × floor | Rerun as the server runs it "
            "(compiled once, through app.py) | × floor | Charts | Chart JSON per interaction |",
            "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |",
            f"| *floor* (`benchmarks/floor_app.py`, rerun alternately with each page) | {floor.control} | "
            f"{floor.median_ms:.1f} ms | 1.00 | {floor_c.median_ms:.1f} ms | 1.00 | {floor.charts} | "
            f"{floor.chart_bytes / 1024:.1f} KB |"]
    for r, c in zip(reruns, reruns_c, strict=True):
        ratio, ratio_c = r.median_ms / r.floor_ms, c.median_ms / c.floor_ms
        rows.append(f"| `{r.slug}` | {r.control} | {r.median_ms:.1f} ms | {ratio:.2f} {ok(ratio, TARGETS['ratio'])} "
                    f"| {c.median_ms:.1f} ms | {ratio_c:.2f} {ok(ratio_c, TARGETS['ratio'])} "
                    f"| {r.charts} | {r.chart_bytes / 1024:.1f} KB {ok(r.chart_bytes / 1024, TARGETS['chart_kb'])} |")
    return ["### (a) Server rerun per page, and (b) chart JSON per interaction",
            f"AppTest, median of {n} reruns, each after moving the page's first slider or toggle "
            "(found generically). The floor page is rerun alternately with each page, rerun for rerun, and "
            "a page's × floor divides by the floor's median from those alternate reruns, so both saw the same "
            "machine. Measured twice: with AppTest as shipped, which reads and compiles the page again on "
            "every run and, finding a `pages/` folder, runs the page on its own (not through app.py); and as a "
            "server runs it, with one script cache for the whole run and every rerun through app.py and its "
            "`st.navigation` (`as_the_server` in `devtools/apptest.py`). The second is what a learner's "
            "rerun costs the server. "
            "Chart JSON is the sum of the `spec` strings of the page's `plotly_chart` "
            "elements after the change: Streamlit resends every chart on every rerun, so this is what one "
            "interaction ships. The websocket total per interaction (everything, not only charts) is in (c).",
            "\n".join(rows)]
