"""A chart is a picture to read, not a control: a click or a drag on one sends the server nothing (no rerun) and
leaves no selection box, no lasso and no dimmed points behind.

Guards ui/charts.py: a chart drawn with ``on_select`` (as tried for issue 34, docs/PERFORMANCE.md) would turn a
click into a rerun and a drag into a selection box.
"""

from __future__ import annotations

import pytest

from devtools import harness

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser")]

# Charts drawn before any prediction: line charts (sqrt_dk), heatmaps (positional_encoding), both (kv_cache).
LESSONS = ["sqrt_dk", "positional_encoding", "kv_cache"]
# Whatever a click or a drag could have left: a selection outline, a lasso, points selected (dimmed), a drag mode
# that selects.
# The key of every chart on screen: Streamlit marks a keyed element's box with the class st-key-<key>.
CHART_KEYS_JS = """() => [...document.querySelectorAll('[data-testid=stMain] [data-testid=stPlotlyChart]')]
  .map(el => [...(el.closest('[class*=st-key-]')?.classList || [])].find(c => c.startsWith('st-key-'))?.slice(7))
  .filter(Boolean)"""
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
        "framesent", lambda f: sent.append(f) if isinstance(f, bytes) and _rerun(f) else None))
    runs.open(harness.page_url(server, slug))
    runs.settle()
    plots = pg.locator("[data-testid=stMain] .js-plotly-plot")
    before = len(sent)
    for i in range(min(plots.count(), 4)):
        plots.nth(i).scroll_into_view_if_needed()
        area = plots.nth(i).locator(".nsewdrag").first.bounding_box()     # the plot area Plotly listens on
        assert area is not None, f"{slug}: no plot area on chart {i + 1}"
        x, y, w, h = area["x"], area["y"], area["width"], area["height"]
        for across in (0.3, 0.5, 0.7):                                   # clicks on the data: a point is hovered
            pg.mouse.move(x + w * across, y + h / 2)
            pg.wait_for_timeout(150)                                     # Plotly picks the hovered point
            pg.mouse.click(x + w * across, y + h / 2)
        pg.mouse.move(x + w * 0.2, y + h * 0.2)                          # a drag across it
        pg.mouse.down()
        pg.mouse.move(x + w * 0.7, y + h * 0.7, steps=6)
        pg.mouse.up()
        pg.mouse.dblclick(x + w / 2, y + h / 2)                          # back to the whole chart
    # The slider's move is sent after anything the clicks sent: once its run is over, every message is in. The page
    # also sends reruns of its own (its progress store writing back), so look at what they carry: a chart that
    # answers a click is a widget, and its state would be in them.
    done = runs.finished
    assert harness.move_first_control(pg) is not None, f"{slug}: no control to move"
    runs.wait(done)
    keys = pg.evaluate(CHART_KEYS_JS)
    assert keys, f"{slug}: no keyed chart on screen"
    carried = {w for f in sent[before:] for w in _widgets(f)}
    assert not carried & set(keys), f"{slug}: a click or drag on a chart sent its state: {carried & set(keys)}"
    for chart in pg.evaluate(LEFT_BEHIND_JS):
        assert chart["outlines"] == 0, (slug, chart)
        assert chart["dragmode"] not in ("select", "lasso"), (slug, chart)
        assert chart["selected"] == 0, (slug, chart)
    assert not problems.errors, problems.errors


def _widgets(frame: bytes) -> list[str]:
    """The user keys of the widgets whose state a rerun message carries."""
    from streamlit.proto.BackMsg_pb2 import BackMsg

    return [w.id.rsplit("-", 1)[-1] for w in BackMsg.FromString(frame).rerun_script.widget_states.widgets]


def _rerun(frame: bytes) -> bool:
    from streamlit.proto.BackMsg_pb2 import BackMsg

    return BackMsg.FromString(frame).WhichOneof("type") == "rerun_script"
