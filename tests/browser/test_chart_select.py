"""A chart is a picture to read, not a control: a click or a drag on one sends the server nothing (no rerun) and
leaves no selection box, no lasso and no dimmed points behind.

Guards ui/charts.py: a chart drawn with ``on_select`` (as tried for issue 34, docs/PERFORMANCE.md) would turn a
click into a rerun and a drag into a selection box.
"""

from __future__ import annotations

import pytest

from benchmarks.redraw import press
from benchmarks.sessions import is_rerun
from devtools import harness

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser")]

# Charts drawn before any prediction: line charts (sqrt_dk), heatmaps (positional_encoding), both (kv_cache).
LESSONS = ["sqrt_dk", "positional_encoding", "kv_cache"]
# Whatever a click or a drag could have left: a selection outline, a lasso, points selected (dimmed), a drag mode
# that selects.
LEFT_BEHIND_JS = """() => [...document.querySelectorAll('[data-testid=stMain] .js-plotly-plot')].map(el => ({
  outlines: el.querySelectorAll('.select-outline, .selectionlayer path').length,
  dragmode: el._fullLayout.dragmode,
  selected: (el.data || []).filter(t => t.selectedpoints != null).length,
}))"""


@pytest.mark.parametrize("slug", LESSONS)
def test_a_click_or_a_drag_on_a_chart_sends_nothing_and_selects_nothing(server, page, slug):
    pg, problems = page
    runs = problems.runs
    sent: list[bytes] = []
    pg.on("websocket", lambda ws: ws.on(
        "framesent", lambda f: sent.append(f) if isinstance(f, bytes) and is_rerun(f) else None))
    runs.open(harness.page_url(server, slug))
    runs.settle()
    plot = pg.locator("[data-testid=stMain] .js-plotly-plot").first
    plot.scroll_into_view_if_needed()
    area = plot.locator(".nsewdrag").first.bounding_box()      # the plot area Plotly listens on
    assert area is not None, f"{slug}: no plot area on the first chart"
    x, y, w, h = area["x"], area["y"], area["width"], area["height"]
    before = len(sent)
    pg.mouse.click(x + w / 2, y + h / 2)                             # a click on the data
    pg.mouse.move(x + w * 0.2, y + h * 0.2)                          # a drag across it
    pg.mouse.down()
    pg.mouse.move(x + w * 0.7, y + h * 0.7, steps=6)
    pg.mouse.up()
    pg.keyboard.press("Escape")
    # A message the page sends afterwards proves the socket is live: the slider's move must be the only one sent.
    done = runs.finished
    assert press(pg, 0) is not None, f"{slug}: no control to move"
    runs.wait(done)
    assert len(sent) - before == 1, f"{slug}: the click or drag on a chart sent {len(sent) - before - 1} rerun(s)"
    for chart in pg.evaluate(LEFT_BEHIND_JS):
        assert chart["outlines"] == 0, (slug, chart)
        assert chart["dragmode"] not in ("select", "lasso"), (slug, chart)
        assert chart["selected"] == 0, (slug, chart)
    assert not problems.errors, problems.errors
