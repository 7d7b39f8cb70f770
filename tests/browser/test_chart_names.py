"""Every chart has an accessible name: a screen reader announces a figure named by its title and caption."""

from __future__ import annotations

import pytest

from devtools import harness
from ui.content import lessons

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser")]

LESSONS = [p.slug for p in lessons()]                   # the glossary draws no chart
# A caption's words as a reader hears them: a formula once (KaTeX's visible copy, not its MathML twin).
NAMES_JS = """() => [...document.querySelectorAll('[data-testid=stMain] .js-plotly-plot')].map(plot => {
  const figure = plot.closest('[data-testid=stPlotlyChart]');
  const caption = figure.closest('[data-testid=stElementContainer]').nextElementSibling;
  const copy = caption ? caption.cloneNode(true) : null;
  if (copy) copy.querySelectorAll('.katex-mathml').forEach(m => m.remove());
  return {role: figure.getAttribute('role'), name: figure.getAttribute('aria-label') || '',
          caption: copy ? copy.innerText.replace(/\\u200b/g, '').trim() : ''};
})"""


@pytest.mark.parametrize("slug", LESSONS)
def test_each_chart_is_a_figure_named_by_its_title_and_caption(server, page, slug):
    pg, problems = page
    problems.runs.open(harness.page_url(server, slug))
    # The page reruns by itself after opening, and a later section's chart can be drawn after the first run
    # is over: look once the page is quiet. Every lesson draws a chart before its first prediction; the names
    # follow the drawing by a moment.
    problems.runs.settle()
    pg.wait_for_function("() => { const c = [...document.querySelectorAll('[data-testid=stMain] "
                         "[data-testid=stPlotlyChart]')]; "
                         "return c.length && c.every(e => e.getAttribute('aria-label')); }", timeout=90_000)
    charts = pg.evaluate(NAMES_JS)
    assert charts, f"{slug}: no chart drawn before any prediction"
    for chart in charts:
        assert chart["role"] == "figure", chart
        assert chart["name"] not in ("", "Chart"), chart
        if chart["caption"]:
            assert chart["name"].endswith(chart["caption"].split("\n")[0]), chart
