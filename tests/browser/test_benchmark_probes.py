"""The redraw probes of docs/PERFORMANCE.md still run and time every page they serve (a change to the redraw
benchmark once left the in-place probe's component-drawn page without a sample, and the probe crashed on an
empty median). Two timed moves each: this checks that they measure, not what they measure.
"""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from devtools import harness

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser")]

# A result row: | name | where? | samples | median ms | ...
ROW = re.compile(r"^\|(?P<cells>.*\| (?P<samples>\d+) \| (?P<median>\d+) ms \|.*)$")


def probe(*args: str) -> list[tuple[str, int]]:
    """Run ``python -m benchmarks.<args>``; each table row's first cell and its sample count."""
    done = subprocess.run([sys.executable, "-m", "benchmarks." + args[0], *args[1:]], cwd=harness.ROOT,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    rows = [(m["cells"].split("|")[0].strip(), int(m["samples"])) for line in done.stdout.splitlines()
            if (m := ROW.match(line))]
    assert rows, done.stdout
    return rows


def test_the_in_place_probe_times_both_pages():
    rows = probe("inplace_probe", "--rounds", "1", "--n", "2", "--charts", "1")
    assert [name for name, _ in rows] == ["remount", "in place"]
    assert all(samples == 2 for _, samples in rows), rows


def test_the_section_probe_times_the_bare_section_and_each_variant():
    rows = probe("section_cost", "--rounds", "1", "--n", "2", "--only", "metrics")
    assert len(rows) == 3 and all(samples == 2 for _, samples in rows), rows
