"""A benchmark's targets, judged: a figure against its limit, PASS or MISS, as one printed line.

Shared by benchmarks/cloud_class.py and benchmarks/ratios.py (and checked by tests/test_bench_targets.py: tests
never import benchmarks/). Nothing here measures: it only says whether a measured figure meets its target,
honestly at the edges: a figure that was never measured (NaN, no samples) is a MISS, never a PASS.
"""

from __future__ import annotations

import math
from dataclasses import dataclass


def pct(values: list[float], q: float) -> float:
    """The ``q`` quantile (0 to 1) of ``values``, nearest rank; NaN when there are none."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def growth(first: float, second: float) -> float:
    """How much ``second`` grew over ``first``, as a fraction (0.05 is 5%); NaN when ``first`` is not positive."""
    return (second - first) / first if first > 0 else float("nan")


@dataclass(frozen=True)
class Target:
    """One target: ``figure`` must be at most ``limit`` (or, with ``at_least``, at least it)."""

    name: str
    figure: float
    limit: float
    unit: str = ""
    at_least: bool = False

    @property
    def met(self) -> bool:
        if math.isnan(self.figure):
            return False
        return self.figure >= self.limit if self.at_least else self.figure <= self.limit

    def line(self) -> str:
        """``PASS  name: figure unit (target ≤ limit unit)``, figures to three significant digits."""
        sign = "≥" if self.at_least else "≤"
        unit = f" {self.unit}" if self.unit else ""
        return (f"{'PASS' if self.met else 'MISS'}  {self.name}: {self.figure:.3g}{unit} "
                f"(target {sign} {self.limit:g}{unit})")

    def row(self) -> str:
        """The same as a Markdown table row: | name | figure | target | ✅/❌ |."""
        sign = "≥" if self.at_least else "≤"
        unit = f" {self.unit}" if self.unit else ""
        return (f"| {self.name} | {self.figure:.3g}{unit} | {sign} {self.limit:g}{unit} | "
                f"{'✅' if self.met else '❌'} |")


def table(targets: list[Target]) -> list[str]:
    """A Markdown table of ``targets``, header first."""
    return ["| Target | Measured | Limit | Met |", "| --- | ---: | ---: | :---: |", *(t.row() for t in targets)]
