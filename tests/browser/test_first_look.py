"""The first look in real Chromium: the animation plays to its last stage in the browser alone (no script run per
frame), at 1280 px and on a 390 px phone without sideways scrolling; a presenter steps through the moves with Next
and a student following on a phone sees each one."""

from __future__ import annotations

import re
import tomllib

import pytest

from devtools import harness
from tests.browser.conftest import device, wait_following
from ui.content import LESSONS_DIR

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser")]

SLUG = "first_look"
TEXT = tomllib.loads((LESSONS_DIR / f"{SLUG}.toml").read_text(encoding="utf-8"))
STAGES = [s["label"] for s in TEXT["stages"]]
WAIT_MS = 120_000                     # generous: a machine shared with other work
CHART = ".st-key-fl_fig_pass .js-plotly-plot"
CODE = re.compile(r"Room code: ([A-Z2-9]{6})")

# Every stage the animation draws (Plotly's own event, as each frame is drawn) and every caption its title shows.
WATCH_JS = """selector => {
    const gd = document.querySelector(selector);
    window.__stages = []; window.__captions = [];
    gd.on('plotly_animatingframe', e => window.__stages.push(e.name));
    const look = () => {
        const title = gd.querySelector('.gtitle');
        const text = title ? title.textContent : '';
        if (window.__captions[window.__captions.length - 1] !== text) window.__captions.push(text);
    };
    look();
    window.__watch = setInterval(look, 20);
}"""


def no_sideways_scroll(pg) -> None:
    width, inner = pg.evaluate("() => [document.documentElement.scrollWidth, window.innerWidth]")
    assert width <= inner, f"the page scrolls sideways: {width} px wide in a {inner} px window"


def reveal_the_first_prediction(pg, runs: harness.Runs) -> None:
    """Commit to an answer for the question before the animation, and reveal it: the animation waits for it."""
    pg.locator(f".st-key-{SLUG}__predict__same").get_by_text("No: it comes out different").click()
    button = pg.locator(f".st-key-{SLUG}__predict__same__button button")
    button.wait_for()
    pg.wait_for_function(f"() => !document.querySelector('.st-key-{SLUG}__predict__same__button button').disabled")
    done = runs.finished
    button.click()
    runs.wait(done)
    runs.settle()


@pytest.mark.parametrize("width, query", [(1280, ""), (390, ""), (1280, "present=1")])
def test_the_animation_plays_every_stage_in_the_browser_with_no_script_run(server, browser, width, query):
    context, pg = device(browser, width, 3000, wait_ms=WAIT_MS)
    try:
        runs = harness.Runs(pg)
        runs.open(harness.page_url(server, SLUG, query))          # presenter mode too: the projector plays it
        runs.settle()
        assert pg.locator(CHART).count() == 0, "the animation showed before its prediction"
        reveal_the_first_prediction(pg, runs)
        chart = pg.locator(CHART)
        chart.scroll_into_view_if_needed()
        runs.settle(quiet_ms=3000)              # the page's own components report back a moment after a reveal
        pg.evaluate(WATCH_JS, CHART)
        before = runs.finished
        chart.locator("g.updatemenu-button", has_text="Play").click()
        pg.wait_for_function("n => window.__stages.length >= n", arg=len(STAGES), timeout=WAIT_MS)
        pg.wait_for_function("last => window.__captions.some(c => c.includes(last))", arg="cosine", timeout=WAIT_MS)
        stages = pg.evaluate("window.__stages")
        captions = pg.evaluate("window.__captions")
        assert stages == STAGES, stages                          # every stage, in order, each drawn once
        assert len(captions) >= len(STAGES), captions             # each stage showed its own caption
        n = len(STAGES)
        assert f"Stage {n} of {n}" in chart.locator(".slider-group").text_content()     # the slider followed
        # None is expected; one late report of the page's own components (progress, the link) may still land in
        # the window on a busy machine. A run per frame would be len(STAGES) - 1 or more.
        assert runs.finished - before <= 1, f"the server ran {runs.finished - before} script runs while it played"
        no_sideways_scroll(pg)
        box = chart.bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= width, box
        # Scrubbed back to the first stage, played again and paused: it stays where it was paused.
        pg.evaluate("() => { window.__stages = []; }")
        rail = chart.locator(".slider-group .slider-rail-touch-rect")
        height = rail.bounding_box()["height"]
        rail.click(position={"x": 2, "y": height / 2})
        pg.wait_for_function("sel => document.querySelector(sel + ' .slider-group').textContent.includes('Stage 1 of')",
                             arg=CHART)
        assert runs.finished - before <= 1, "scrubbing ran the script"
        chart.locator("g.updatemenu-button", has_text="Play").click()
        pg.wait_for_function("() => window.__stages.length >= 2", timeout=WAIT_MS)
        chart.locator("g.updatemenu-button", has_text="Pause").click()
        paused = len(pg.evaluate("window.__stages"))
        pg.wait_for_timeout(2500)                                 # no event: longer than one frame (1.6 s)
        assert len(pg.evaluate("window.__stages")) <= paused + 1
        assert runs.finished - before <= 1
    finally:
        context.close()


def test_a_presenter_steps_through_the_moves_and_a_phone_following_sees_each(server, browser):
    steps = ["The pass through one layer", "One word, many meanings", "Where a blend can land",
             "A question meets labels", "Why divide by √dₖ", "Two heads, one sentence", "Every word at once",
             "The formula, earned"]
    headings = [TEXT["titles"][k] for k in ("pass", "words", "blend", "query", "scale", "heads", "reach", "formula")]
    contexts = []
    try:
        context, presenter = device(browser, 1280, 720, wait_ms=WAIT_MS)
        contexts.append(context)
        presenter.goto(f"{server}/?present=1")
        harness.click_until(presenter.get_by_role("button", name="Start a class"), presenter.get_by_text(CODE),
                            each_ms=60_000)
        code = CODE.search(presenter.inner_text("body")).group(1)
        presenter.locator('[data-testid="stSidebarNav"] a', has_text="Attention in fifteen minutes").click()
        presenter.wait_for_url(re.compile(rf"/{SLUG}"), timeout=WAIT_MS)
        presenter.get_by_text(f"Step 1 of {len(steps)}").first.wait_for()
        context, phone = device(browser, 390, 844, wait_ms=WAIT_MS)
        contexts.append(context)
        phone.goto(f"{server}/?room={code}")
        wait_following(phone, code, WAIT_MS)
        for n in range(1, len(steps) + 1):
            if n > 1:
                harness.click_until(presenter.locator(f".st-key-{SLUG}__step__next button"),
                                    presenter.get_by_text(f"Step {n} of {len(steps)}").first, each_ms=60_000)
            phone.get_by_text(f"Step {n} of {len(steps)}: {steps[n - 1]}").first.wait_for()
            phone.get_by_role("heading", name=headings[n - 1]).first.wait_for(state="attached")
            assert phone.get_by_role("heading", name=headings[n]).count() == 0 if n < len(steps) else True
            no_sideways_scroll(phone)
        presenter.get_by_role("button", name="End the class", exact=True).click()
        presenter.get_by_role("button", name="Yes, end the class").click()
        presenter.get_by_text("The class has ended.").wait_for(timeout=WAIT_MS)
    finally:
        for context in contexts:
            context.close()
