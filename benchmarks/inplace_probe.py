"""Issue 34's "charts updated in place": would a chart kept mounted across reruns redraw faster?

Streamlit 1.67 remounts an ``st.plotly_chart`` whose figure changed (the figure is part of its element id,
even with a key), and the frontend then draws it twice. A keyed ``st.components.v2`` component keeps its
identity across reruns (its key is its id), so its script can call ``Plotly.react`` on the same div. This
probe serves two pages that differ in that alone, one slider and ``--charts`` heatmaps each:

- *remount*: the charts drawn by ``st.plotly_chart`` (as every lesson draws them);
- *in place*: the same figures drawn by a keyed component with ``Plotly.react``, plotly.js served from the
  app's static folder (copied from the installed plotly package, so its version matches the figures').

Each round measures both with the redraw benchmark's own clock (``benchmarks/redraw.py``: from the key press
to the first frame with new chart data), alternately, so the ratio compares like with like on a shared
machine. The in-place page is a measurement only: it lacks what the lessons' charts rely on (Streamlit's
light and dark chart theme, the charts' accessible names, width changes); docs/PERFORMANCE.md says what a
switch would need.

    python -m benchmarks.inplace_probe [--charts 3] [--n 12] [--rounds 3]
"""

from __future__ import annotations

import argparse
import shutil
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

IN_PLACE, CHARTS = {in_place}, {charts}
JS = """
export default function(component) {{
  const {{ data, parentElement }} = component;
  const figure = JSON.parse(data);
  let div = parentElement.querySelector('.probe-plot');
  if (!div) {{
    div = document.createElement('div');
    div.className = 'probe-plot';
    parentElement.appendChild(div);
  }}
  div.style.height = (figure.layout.height || 450) + 'px';
  window.__plotly ||= new Promise(done => {{
    const s = document.createElement('script');
    s.src = './app/static/plotly.min.js';
    s.onload = done;
    document.head.appendChild(s);
  }});
  window.__plotly.then(() => window.Plotly.react(div, figure.data, figure.layout, {{displayModeBar: false}}));
}}
"""
plot = st.components.v2.component("probe_plot", js=JS, html="<div></div>", isolate_styles=False)

st.title("Probe")
frequency = st.slider("Frequency", 1, 10, 3, key="frequency")
x = np.linspace(0.0, 1.0, 20)
for i in range(CHARTS):
    fig = go.Figure(go.Heatmap(z=np.sin(np.outer(x * (i + 1), x) * frequency)), layout={{"height": 300}})
    if IN_PLACE:
        plot(data=fig.to_json(), key=f"chart{{i}}")
    else:
        st.plotly_chart(fig, key=f"chart{{i}}")
'''


def pages(folder: Path, charts: int) -> dict[str, Path]:
    """Write the two pages (and plotly.js for the in-place one) into ``folder``; their scripts by name."""
    import plotly

    static = folder / "static"
    static.mkdir(parents=True, exist_ok=True)
    shutil.copy(Path(plotly.__file__).parent / "package_data" / "plotly.min.js", static / "plotly.min.js")
    scripts = {}
    for name, in_place in (("remount", False), ("in place", True)):
        scripts[name] = folder / f"probe_{'inplace' if in_place else 'remount'}.py"
        scripts[name].write_text(PAGE.format(in_place=in_place, charts=charts), encoding="utf-8")
    return scripts


def main() -> None:
    from playwright.sync_api import sync_playwright

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--charts", type=int, default=3, help="heatmaps on each page")
    parser.add_argument("--n", type=int, default=12, help="timed moves per page and round")
    parser.add_argument("--rounds", type=int, default=3, help="rounds, each measuring both pages")
    args = parser.parse_args()
    print(report.machine(chromium=harness.CHROMIUM))
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as p:
        scripts = pages(Path(tmp), args.charts)
        browser = harness.launch(p)
        page = browser.new_page(viewport={"width": 1400, "height": 900})
        runs = harness.Runs(page)
        with harness.serve(script=str(scripts["remount"])) as (_, remount, _), \
                harness.serve("--server.enableStaticServing", "true", script=str(scripts["in place"])) \
                as (_, in_place, _):
            samples = redraw.in_rounds(page, runs, {"remount": remount, "in place": in_place}, args.rounds, args.n)
        browser.close()
    rows = [f"| Page ({args.charts} heatmaps, one slider) | Samples | Median | p95 |", "| --- | ---: | ---: | ---: |"]
    for name, values in samples.items():
        rows.append(f"| {name} | {len(values)} | {statistics.median(values):.0f} ms | {pct(values, 0.95):.0f} ms |")
    ratio = statistics.median(samples["in place"]) / statistics.median(samples["remount"])
    rows.append(f"\n**In place ÷ remount, medians: {ratio:.2f}×**")
    print("\n".join(rows))
    print(report.machine())


if __name__ == "__main__":
    main()
