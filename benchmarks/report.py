"""The benchmarks' report writer: percentiles, target marks, the machine line, and the block that
benchmarks/run.py keeps in docs/PERFORMANCE.md between its own markers.
"""

from __future__ import annotations

import os
import platform
from pathlib import Path

from devtools.targets import pct  # noqa: F401  (the benchmarks' one nearest-rank quantile)

START, END = "<!-- benchmarks/run.py: start -->", "<!-- benchmarks/run.py: end -->"
TARGETS = {"ratio": 4.0, "chart_kb": 150.0, "redraw_p95_ms": 300.0, "load30_p95_ms": 1000.0, "rss_mb": 600.0,
           "move_ratio": 3.0,           # a move's server rerun, × the floor page's (issue 34)
           "redraw_ratio": 1.5,         # slider → redraw in Chromium, the lessons' median × the floor's (issue 34)
           "model_ratio": 2.0}          # MiniLM's 128-token pass × its matmuls alone (issues 22, 34)


def ok(value: float, limit: float) -> str:
    return "✅" if value <= limit else "❌"


def cpu_model() -> str:
    return next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                 if line.startswith("model name")), platform.processor() or "unknown")


def machine(load_at_start: float | None = None, chromium: str | None = None) -> str:
    """Cores, CPU, load average, Python and Streamlit: the line every report starts from. With
    ``load_at_start`` (read when the run began) the load average is given at the start and now, at the end."""
    import streamlit

    now = os.getloadavg()[0]
    load = (f"load average {now:.1f} at the start" if load_at_start is None
            else f"load average {load_at_start:.1f} at the start and {now:.1f} at the end")
    return (f"{os.cpu_count()} cores ({cpu_model()}), {load}, Python {platform.python_version()}, "
            f"Streamlit {streamlit.__version__}" + (f", Chromium at {chromium}" if chromium else ""))


def render(sections: list[str]) -> str:
    return "\n\n".join(sections)


def write_doc(block: str, out: Path) -> None:
    block = f"{START}\n{block.strip()}\n{END}"
    if out.exists():
        text = out.read_text(encoding="utf-8")
        if START in text and END in text:
            head, rest = text.split(START, 1)
            text = head + block + rest.split(END, 1)[1]
        else:  # keep whatever is there (a "Model" section, say) after our part
            lines = text.splitlines()
            if lines and lines[0].startswith("# "):
                text = "\n".join([lines[0], "", block, "", *lines[1:]]) + "\n"
            else:
                text = f"# Performance\n\n{block}\n\n{text}"
    else:
        text = f"# Performance\n\n{block}\n"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text, encoding="utf-8")

