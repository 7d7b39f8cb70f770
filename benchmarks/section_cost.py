"""What a lesson section's other elements add to its chart's redraw, with the redraw benchmark's own clock.

Table (c) puts the lessons at about twice the floor page (one slider, one chart). A lesson's section holds more
than its chart, and its page more than its section. This probe serves the floor's section (a fragment with the
slider and the chart) with ``n`` extra elements of one kind, either inside the section (sent and rendered again
on every move, as a lesson's sentences, metrics and widgets are) or outside it (on the page, left alone by a
move), and times each variant from the key press to the first frame with new chart data
(``benchmarks/redraw.py``). Variants are measured round by round, in turn, so their differences compare like
with like on a shared machine.

    python -m benchmarks.section_cost [--n 12] [--rounds 3] [--only paragraphs prose formulas]

The extra charts never change, so they are re-sent but not redrawn: what they add is an element's cost, not a
second chart's draw. docs/PERFORMANCE.md ("Where a lesson's redraw goes") has the figures.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
from pathlib import Path

from benchmarks import redraw, report
from benchmarks.report import pct
from devtools import harness

PAGE = '''
import numpy as np
import plotly.graph_objects as go
import streamlit as st

st.title("Section cost")
what = st.query_params.get("what", "nothing")
where = st.query_params.get("where", "inside")
n = int(st.query_params.get("n", "0"))
x = np.linspace(0.0, 1.0, 100)


def extras(frequency):
    for i in range(n):
        if what == "paragraphs":
            st.markdown(f"Paragraph {i}: z = Σ αⱼ xⱼ moved **{frequency * 0.1234:.4f}**, "
                        f"and $x_{i}^2 / \\\\sqrt{{d_k}}$.")
        elif what == "prose":
            st.markdown(f"Paragraph {i}: z = Σ αⱼ xⱼ moved **{frequency * 0.1234:.4f}**, and xᵢ² / √dₖ.")
        elif what == "formulas":
            st.latex(f"x_{{{i}}}^2 / \\\\sqrt{{d_k}} = {frequency * 0.1234:.4f}")
        elif what == "metrics":
            st.metric(f"metric {i}", f"{frequency * 0.1234 + i:.4f}", f"{i / 3:+.4f}", help="What it measures.")
        elif what == "widgets":
            st.toggle(f"toggle {i}", value=True, key=f"toggle{i}", help="What it switches.")
        elif what == "charts":
            st.plotly_chart(go.Figure(go.Scatter(x=x, y=np.cos(2 * np.pi * (i + 1) * x), mode="lines")),
                            key=f"chart{i}")
        elif what == "expanders":
            with st.expander(f"Expander {i}"):
                st.markdown(f"Folded text {i} with $x^2$.")


if where == "outside":
    extras(0)


@st.fragment
def section():
    frequency = st.slider("Frequency", 1, 10, 3, key="frequency")
    st.plotly_chart(go.Figure(go.Scatter(x=x, y=np.sin(2 * np.pi * frequency * x), mode="lines")), key="floor")
    if where == "inside":
        extras(frequency)


section()
'''

# (what, n, where): the bare section first, every other row is read against it.
VARIANTS = [("nothing", 0, "inside"),
            ("paragraphs", 30, "inside"), ("paragraphs", 120, "inside"), ("paragraphs", 120, "outside"),
            ("prose", 30, "inside"), ("formulas", 30, "inside"),
            ("metrics", 12, "inside"), ("metrics", 12, "outside"),
            ("widgets", 12, "inside"), ("widgets", 12, "outside"),
            ("charts", 3, "inside"), ("charts", 3, "outside"),
            ("expanders", 10, "inside"), ("expanders", 10, "outside")]


def main() -> None:
    from playwright.sync_api import sync_playwright

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=12, help="timed moves per variant and round")
    parser.add_argument("--rounds", type=int, default=3, help="rounds, each measuring every variant")
    parser.add_argument("--only", nargs="*", default=[], help="kinds of element to measure (besides none)")
    args = parser.parse_args()
    variants = [v for v in VARIANTS if not args.only or v[0] in ("nothing", *args.only)]
    print(report.machine(chromium=harness.CHROMIUM))
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as p:
        script = Path(tmp) / "section_probe.py"
        script.write_text(PAGE)
        browser = harness.launch(p)
        page = browser.new_page(viewport={"width": 1400, "height": 900})
        runs = harness.Runs(page)
        with harness.serve(script=str(script)) as (_, base, _):
            samples = redraw.in_rounds(page, runs, {v: f"{base}?what={v[0]}&n={v[1]}&where={v[2]}" for v in variants},
                                       args.rounds, args.n)
        browser.close()
    bare = statistics.median(samples[variants[0]])
    rows = ["| Extra elements | Where | Samples | Median | p95 | Added to the bare section | Per element |",
            "| --- | --- | ---: | ---: | ---: | ---: | ---: |"]
    for (what, n, where), values in samples.items():
        median = statistics.median(values)
        added = median - bare
        rows.append(f"| {n} {what} | {where} | {len(values)} | {median:.0f} ms | {pct(values, 0.95):.0f} ms | "
                    f"{added:+.0f} ms | {added / n:+.2f} ms |" if n else
                    f"| none (the floor's section) | – | {len(values)} | {median:.0f} ms | {pct(values, 0.95):.0f} ms "
                    f"| – | – |")
    print("\n".join(rows))


if __name__ == "__main__":
    main()
