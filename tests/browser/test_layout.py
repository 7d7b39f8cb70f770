"""Nothing on a page is clipped, overlapping or too small to read, at a laptop's, a projector's, a small
screen's and a phone's size (devtools/layout.py says what is measured).

Each page is opened once, its predictions answered and revealed (the reveal is where many charts are),
then drawn at each size in turn: the charts redraw for the new width as they would on a rotated phone or
a resized window. One server for the module; each test has its own browser context, since the browser
keeps a learner's revealed answers: a page opened again in the same context reveals them by itself once its
stored progress arrives, and could do it between the harness finding a "Reveal the answer" button and
pressing it (CI, 2026-12-03: [polysemy] presenting, after the same page's first test).
"""

from __future__ import annotations

import pytest

from devtools import harness, layout
from tests.browser.conftest import SCREENSHOTS
from ui.content import page_index

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser")]

SLUGS = [p.slug for p in page_index()]
# Widest first: the page opens at the size its first run lays out for, then narrows.
SIZES = sorted(layout.SIZES.items(), key=lambda item: -item[1][0])
# From this width up, every figure's own margins hold its labels: Plotly grows none (devtools/layout.py,
# grown_margins). On a phone a legend or a title may wrap onto another line, and growing is the right answer.
DESKTOP = 1280


@pytest.fixture
def tab(browser):
    """One page in its own context: a new learner, with no answers kept from another test."""
    context = browser.new_context(viewport={"width": SIZES[0][1][0], "height": harness.TALL})
    pg = context.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda err: errors.append(str(err)))
    yield pg, harness.Runs(pg), errors
    context.close()


@pytest.mark.parametrize("slug", SLUGS)
def test_no_text_is_clipped_overlapping_or_tiny_at_any_size(server, tab, slug):
    pg, runs, errors = tab
    pg.set_viewport_size({"width": SIZES[0][1][0], "height": harness.TALL})
    runs.open(harness.page_url(server, slug))
    revealed = layout.reveal_predictions(pg, runs)
    found: list[str] = []
    for name, (width, _) in SIZES:
        layout.resize(pg, width)
        here = [layout.describe(p) for p in layout.problems(pg)]
        if width >= DESKTOP:
            here += [f"margin grown: {g}" for g in layout.grown_margins(pg)]
        if here:
            harness.save_full(pg, SCREENSHOTS / f"layout_{slug}_{name}.png", width)
        found += [f"{name}: {p}" for p in here]
    assert not found, f"{slug} ({revealed} predictions revealed):\n" + "\n".join(found)
    assert not errors, errors


@pytest.mark.parametrize("slug", SLUGS)
def test_presenting_every_chart_text_is_at_least_18_px_and_nothing_collides(server, tab, slug):
    """Presenter mode at a projector's 1280×720, at the lesson's last step (every step's charts on screen),
    predictions revealed: chart text at least 18 px (devtools/layout.py), each metric's value larger than
    its label (presenter CSS once shrank 0.7225 to its label's 23 px), nothing clipped or overlapping, and
    no chart's margins grown by Plotly."""
    pg, runs, errors = tab
    pg.set_viewport_size({"width": 1280, "height": harness.TALL})
    runs.open(harness.page_url(server, slug, "present=1"))
    steps = layout.step_count(pg)
    if steps:
        runs.open(harness.page_url(server, slug, f"present=1&step={steps}"))
    layout.reveal_predictions(pg, runs)
    found = [layout.describe(p) for p in layout.problems(pg)]
    found += [f"margin grown: {g}" for g in layout.grown_margins(pg)]
    if found:
        harness.save_full(pg, SCREENSHOTS / f"layout_{slug}_presenting.png", 1280)
    assert not found, f"{slug}, presenting:\n" + "\n".join(found)
    assert not errors, errors


# The check itself, on figures drawn by plotly.js in a bare page (no server): it must see a real overlap,
# a label cut at the plot's edge, a title wider than its chart and tiny text, and must pass the same
# figure once those are mended.
def _draw(pg, fig, width: int) -> list[dict]:
    from plotly.offline import get_plotlyjs

    pg.set_content("<html><body style='margin:0'><div data-testid='stMain'><div id='chart' "
                   f"style='width:{width}px'></div></div></body></html>")
    pg.add_script_tag(content=get_plotlyjs())
    pg.evaluate("fig => Plotly.newPlot('chart', fig.data, fig.layout)", fig.to_plotly_json())
    pg.wait_for_function("() => document.querySelector('#chart .main-svg')")
    return layout.problems(pg)


def _broken(mended: bool):
    from figures._layout import figure

    points = {"type": "scatter", "x": [0.0, 0.02, 1.0], "y": [0.0, 0.0, 1.0], "mode": "markers+text",
              "text": ["static bank", "z", "edge label"],
              "textposition": ["middle right", "middle left" if mended else "middle right",
                               "middle left" if mended else "middle right"]}
    title = "Short title" if mended else "A title far too long to fit inside the narrow chart it heads"
    fig = figure([points], title, "x", "y", height=320, xaxis={"range": [-0.3, 1.1]}, yaxis={"range": [-0.2, 1.2]})
    if not mended:
        fig.layout.title.text = title                       # unwrapped, as before figures._layout wrapped titles
        fig.layout.xaxis.tickfont = {"size": 8}
    return fig


def test_the_check_finds_an_overlap_a_cut_label_a_wide_title_and_tiny_text(browser):
    pg = browser.new_page(viewport={"width": 400, "height": 500})
    try:
        kinds = {(p["kind"], p["text"]) for p in _draw(pg, _broken(mended=False), 320)}
        assert ("overlap", "static bank") in kinds, kinds
        assert ("cut", "edge label") in kinds, kinds
        assert any(k == "outside" and t.startswith("A title far too long") for k, t in kinds), kinds
        assert any(k == "small" for k, _ in kinds), kinds
        assert _draw(pg, _broken(mended=True), 320) == []
    finally:
        pg.close()

