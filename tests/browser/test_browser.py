"""Real Chromium against the real server: what only a browser shows (rendering, keys, links, the console).

Every test covers every page in assets/lessons/index.toml, so pages that land later are covered too.
"""

from __future__ import annotations

import warnings

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout, expect

from devtools import harness, layout
from tests.browser.conftest import SCREENSHOTS
from ui.content import load_lesson, page_index

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser")]

SLUGS = [p.slug for p in page_index()]
EXCEPTION = '[data-testid="stException"]'
# The page's clicker script has run: PageDown / PageUp now reach its step buttons. On a cold first load the
# script can mount a moment after the step bar's text shows; a presenter's first press comes later than that.
CLICKER_READY_JS = "() => window.__attnStepsInstalled && !!document.querySelector('.st-key-' + window.__attnSteps.next)"
# Each expander of the page: its label, whether it is open, and whether it holds its content yet.
EXPANDERS_JS = """() => [...document.querySelectorAll('[data-testid=stMain] [data-testid=stExpander] details')]
  .map(d => [d.querySelector('summary').innerText.split('\\n').pop(), d.open,
             !!d.querySelector('[data-testid=stExpanderDetails] [data-testid=stElementContainer]')])"""
EXPANDERS_OPEN_JS = f"() => ({EXPANDERS_JS})().every(([, open, full]) => open && full)"
# Where each press, release and click lands while the expanders are clicked: the summary's index on the page, or
# the test id (else the tag) of what was hit instead, with the pointer's y.
# The summaries are found by the one selector the test clicks them by, so an index means the same in both.
SUMMARIES = '[data-testid="stMain"] [data-testid="stExpander"] summary'
CLICK_LOG_JS = """selector => {
  window.__expanderClicks = [];
  const summaries = () => [...document.querySelectorAll(selector)];
  for (const type of ['pointerdown', 'pointerup', 'click'])
    document.addEventListener(type, e => {
      const hit = e.target.closest ? e.target.closest('summary') : null;
      const where = hit ? summaries().indexOf(hit)
        : (e.target.closest && e.target.closest('[data-testid]')?.dataset.testid) || e.target.tagName;
      window.__expanderClicks.push([type, where, Math.round(e.clientY)]);
    }, true);
}"""
WITHOUT_CHARTS = {"home", "glossary", "concept_check"}  # the lesson map, the glossary, the check: text only
# Pages whose first slider drives only charts that its prediction holds back until the reveal (a chart shown
# earlier would give the answer away): there the test reveals first, as a learner would before exploring.
REVEAL_FIRST = {"positional_encoding",              # the Shuffle slider: its shuffled heatmap is the answer
                "first_look"}                       # every move's chart waits for its prediction
IN_VIEW_JS = "el => { const r = el.getBoundingClientRect(); return r.top >= 0 && r.bottom <= innerHeight; }"


def open_page(pg, problems, base: str, slug: str, query: str = "") -> None:
    problems.runs.open(harness.page_url(base, slug, query))


@pytest.mark.parametrize("slug", SLUGS)
def test_every_page_renders_without_exception_or_console_error(server, page, slug):
    pg, problems = page
    open_page(pg, problems, server, slug)
    pg.wait_for_timeout(500)  # late console errors (chart and table components) arrive after the script ends
    assert pg.locator(EXCEPTION).count() == 0, pg.locator(EXCEPTION).first.inner_text()
    assert pg.locator('[data-testid="stMain"] h1').first.inner_text().strip()
    harness.save_full(pg, SCREENSHOTS / f"{slug}.png", 1400)
    assert not problems.errors, problems.errors


@pytest.mark.parametrize("slug", SLUGS)
def test_moving_the_first_control_redraws_the_chart_with_new_data(server, page, slug):
    pg, problems = page
    open_page(pg, problems, server, slug)
    if slug in WITHOUT_CHARTS:
        pytest.skip(f"{slug} has no Plotly chart")
    # Charts mount after the script run that sends them: wait for one rather than count too early and skip.
    pg.locator(".js-plotly-plot").first.wait_for(state="attached", timeout=30_000)
    if slug in REVEAL_FIRST:
        assert layout.reveal_predictions(pg, problems.runs) >= 1
    before, runs = harness.chart_data(pg), problems.runs.finished
    moved = harness.move_first_control(pg)
    if moved is None:
        pytest.skip(f"{slug} has no slider or toggle")
    problems.runs.wait(runs)
    pg.wait_for_function(f"() => ({harness.CHART_DATA_JS})() !== {before!r}", timeout=30_000)
    assert harness.chart_data(pg) != before, f"moving the {moved} did not change any chart's data"
    assert pg.locator(EXCEPTION).count() == 0
    assert not problems.errors, problems.errors


def test_a_deep_link_restores_the_state_it_names(server, page):
    pg, problems = page
    open_page(pg, problems, server, "scaled_formula")
    default = harness.chart_data(pg)
    scale = pg.get_by_role("switch", name="Divide by √dₖ")     # not the sidebar's presenter switch
    assert scale.is_checked()

    open_page(pg, problems, server, "scaled_formula", "scale=false&Q=0,1,0,1")
    assert not scale.is_checked()
    box = pg.get_by_role("textbox", name="Queries Q")
    # The box can be drawn a moment before its value (seen once in a full run beside other browser tests): wait.
    harness.until(lambda: box.input_value() == "0,1,0,1", 30, "the deep link's Q in its box",
                  pause=pg.wait_for_timeout)
    assert "Scaling is off" in pg.locator('[data-testid="stMain"]').inner_text()
    assert harness.chart_data(pg) != default, "the weights drawn from the deep link equal the defaults"
    assert pg.locator(EXCEPTION).count() == 0
    assert not problems.errors, problems.errors


def _open_every_expander(pg, timeout_ms: int = 30_000) -> None:
    """Click every expander of the page open, and wait until each holds its content (KaTeX typesets as the
    markdown mounts; a "Show the numbers" table is sent by the run its opening asks for).

    Bottom to top: an opened expander grows (its animation, then the table its run sends), and growth moves
    only what lies below it. Top to bottom, the next expander could move between a click's press and release,
    and a person's click is lost the same way when the page moves under the pointer. Three full runs each
    warned once that an expander was still closed after one click (docs/RELIABILITY.md), every time one lying
    below an expander clicked just before. An expander still closed then is clicked once more, as a person
    would, and the warning lists where each press, release and click landed (the summary's index, or what
    was hit instead), so a lost click says whether it reached the expander."""
    summaries = pg.locator(SUMMARIES)
    pg.evaluate(CLICK_LOG_JS, SUMMARIES)
    for n in reversed(range(summaries.count())):
        summaries.nth(n).click()
    try:
        pg.wait_for_function(EXPANDERS_OPEN_JS, timeout=timeout_ms)
        return
    except Exception:
        first = pg.evaluate(EXPANDERS_JS)
    clicks = pg.evaluate("() => window.__expanderClicks")
    warnings.warn(f"after one click each, the expanders were (label, open, full): {first}; the events "
                  f"(type, summary index or what was hit, y): {clicks}", stacklevel=2)
    for n in reversed([n for n, (_, open_, _) in enumerate(first) if not open_]):   # bottom to top again
        summaries.nth(n).click()
    try:
        pg.wait_for_function(EXPANDERS_OPEN_JS, timeout=timeout_ms)
    except Exception as err:
        raise AssertionError(f"expanders (label, open, full) after one click each: {first}; after clicking "
                             f"the closed ones again: {pg.evaluate(EXPANDERS_JS)}") from err


@pytest.mark.parametrize("slug", SLUGS)
def test_every_expander_renders_its_formulas_without_a_katex_error(server, page, slug):
    """KaTeX marks what it cannot parse with .katex-error (raw red source); opened, no expander shows one."""
    pg, problems = page
    open_page(pg, problems, server, slug)
    _open_every_expander(pg)
    errors = pg.locator(".katex-error")
    assert errors.count() == 0, [errors.nth(i).get_attribute("title") for i in range(min(errors.count(), 3))]
    if "$" in load_lesson(slug).more:                     # the test sees formulas where there are some
        assert pg.locator('[data-testid="stMain"] .katex').count() > 0
    assert not problems.errors, problems.errors


SENTENCE = "The cat sat <script>alert(1)</script> on the mat"


def test_typing_a_script_tag_into_the_lab_shows_it_as_text(server, page):
    pg, problems = page
    open_page(pg, problems, server, "real_model_lab")
    runs = problems.runs.finished
    box = pg.locator('[data-testid="stMain"] [data-testid="stTextInput"] input')
    if box.count():
        box.first.fill(SENTENCE)
        box.first.press("Enter")
    else:  # a text area commits with Ctrl+Enter
        box = pg.locator('[data-testid="stMain"] [data-testid="stTextArea"] textarea')
        assert box.count(), "the lab has no text input to type a sentence into"
        box.first.fill(SENTENCE)
        box.first.press("Control+Enter")
    problems.runs.wait(runs, timeout_ms=180_000)  # the first run may load the model
    problems.runs.settle()                        # and any run the page asks for after it: a script would run by now
    assert not problems.dialogs, f"a script ran: {problems.dialogs}"
    assert pg.locator(EXCEPTION).count() == 0, pg.locator(EXCEPTION).first.inner_text()
    # The sentence stays in its box exactly as typed, and the tag's pieces appear among the tokens as text.
    assert box.first.input_value() == SENTENCE, "the box does not show the sentence as typed"
    # The tokens shown are the typed sentence's: waited for as the page's own state (a full run once found no
    # "script" among them after the runs had settled; if the page never shows them, say what it held instead).
    code = '[data-testid="stMain"] [data-testid="stCode"]'
    try:
        pg.wait_for_function("sel => (document.querySelector(sel)?.innerText || '').split(/\\s+/).includes('script')",
                             arg=code, timeout=60_000)
    except PlaywrightTimeout:
        pass                                      # the assertion below says what the page showed
    code = pg.locator(code).first
    tokens = code.inner_text().split()
    assert "script" in tokens, f"the typed sentence's tokens are not shown ({problems.runs.finished - runs} runs " \
        f"after typing, then 60 s): {tokens}"
    assert tokens[tokens.index("script") - 1: tokens.index("script") + 2] == ["<", "script", ">"], \
        f"the tag is not shown as literal tokens: {tokens}"
    injected = pg.evaluate("() => [...document.scripts].filter(s => s.textContent.includes('alert(1)')).length")
    assert injected == 0
    assert not problems.errors, problems.errors


def test_an_example_chip_fills_the_lab_sentence_and_can_be_picked_again(server, page):
    """The examples are one chip widget whose callback copies the pick into the sentence and clears itself:
    after typing something else, the same chip must work a second time."""
    pg, problems = page
    open_page(pg, problems, server, "real_model_lab")
    sentence = pg.locator('[data-testid="stMain"] [data-testid="stTextInput"] input').first
    chips = pg.locator('[data-testid="stMain"] [data-testid="stButtonGroup"] button')
    example = chips.nth(1).inner_text().strip()
    for typed in ("A sentence of my own", None):
        if typed:
            runs = problems.runs.finished
            sentence.fill(typed)
            sentence.press("Enter")
            problems.runs.wait(runs, timeout_ms=180_000)
            assert sentence.input_value() == typed
        harness.settle(pg)              # no run still going (on a loaded machine a click there can be lost)
        runs = problems.runs.finished
        chips.nth(1).click()
        problems.runs.wait(runs, timeout_ms=180_000)
        expect(sentence).to_have_value(example, timeout=30_000)
        assert example.split()[-1].lower() in pg.locator('[data-testid="stMain"] code').first.inner_text()
    assert pg.locator(EXCEPTION).count() == 0 and not problems.errors, problems.errors


def test_presenter_link_and_clicker_keys_step_through_the_formula(server, page):
    """?present=1 turns presenter mode on; a clicker's PageDown / PageUp press Next / Back."""
    pg, problems = page
    open_page(pg, problems, server, "scaled_formula", "present=1")
    main = pg.locator('[data-testid="stMain"]')
    pg.wait_for_function("() => document.body.innerText.includes('Step 1 of 5')", timeout=60_000)
    assert pg.get_by_role("switch", name="Presenter mode").is_checked()
    assert "Start here" in pg.locator('[data-testid="stSidebar"]').inner_text(), "the deep link ran through app.py"
    pg.wait_for_function(CLICKER_READY_JS, timeout=10_000)
    pg.mouse.click(700, 12)                              # focus the page, not a widget, as a clicker would
    pg.keyboard.press("PageDown")
    pg.wait_for_function("() => document.body.innerText.includes('Step 2 of 5')", timeout=60_000)
    pg.keyboard.press("PageUp")
    pg.wait_for_function("() => document.body.innerText.includes('Step 1 of 5')", timeout=60_000)
    assert "Step 1 of 5" in main.inner_text()
    assert pg.locator(EXCEPTION).count() == 0
    assert not problems.errors, problems.errors


def test_clicker_keys_step_past_a_focused_slider_and_the_view_follows_the_step(server, page):
    """PageDown with a slider focused steps (the slider keeps its value); the view then shows what the step
    revealed; PageUp brings the step bar into view, not the footer; the URL carries the step."""
    pg, problems = page
    pg.set_viewport_size({"width": 1024, "height": 768})
    open_page(pg, problems, server, "projection", "present=1")
    pg.wait_for_function("() => document.body.innerText.includes('Step 1 of 2')", timeout=60_000)
    pg.wait_for_function(CLICKER_READY_JS, timeout=10_000)
    bar = pg.locator(".st-key-projection__step__bar")
    harness.still(pg, bar)                                 # the charts above it drawn: the bar stays put
    assert 0 <= bar.bounding_box()["y"] < 768, "the step bar is on screen after loading"
    slider = pg.locator(harness.SLIDER_INPUT).first
    slider.focus()
    before = slider.input_value()
    pg.keyboard.press("PageDown")
    pg.wait_for_function("() => document.body.innerText.includes('Step 2 of 2')", timeout=60_000)
    heading = pg.get_by_text("Swap the plane and the runway", exact=True).last
    pg.wait_for_function(IN_VIEW_JS, arg=heading.element_handle(), timeout=20_000)
    assert pg.locator(harness.SLIDER_INPUT).first.input_value() == before, "the key moved the slider"
    assert "step=2" in pg.url
    pg.keyboard.press("PageUp")
    pg.wait_for_function("() => document.body.innerText.includes('Step 1 of 2')", timeout=60_000)
    pg.wait_for_function("el => { const r = el.getBoundingClientRect(); return r.top >= 0 && r.top < innerHeight / 2 }",
                         arg=bar.element_handle(), timeout=20_000)
    assert "step=1" in pg.url
    assert not problems.errors, problems.errors


def test_a_shared_presenter_link_opens_at_its_step_with_the_bar_on_screen(server, page):
    pg, problems = page
    pg.set_viewport_size({"width": 1024, "height": 768})
    open_page(pg, problems, server, "scaled_formula", "present=1&step=3")
    pg.wait_for_function("() => document.body.innerText.includes('Step 3 of 5')", timeout=60_000)
    bar = pg.locator(".st-key-scaled_formula__step__bar")
    pg.wait_for_function(IN_VIEW_JS, arg=bar.element_handle(), timeout=20_000)
    # At 1024 px with the sidebar open, the step buttons and the lesson titles are not cut short.
    cut = pg.evaluate("""() => [...document.querySelectorAll(
        '.st-key-scaled_formula__step__bar button p, [data-testid=stSidebarNav] p')]
        .filter(el => el.scrollWidth > el.clientWidth + 1).map(el => el.innerText)""")
    assert not cut, cut
    assert not problems.errors, problems.errors


def test_progress_survives_a_reload_and_forget_clears_it(server, page):
    pg, problems = page
    open_page(pg, problems, server, "projection")
    # A prediction, answered and revealed: the page's checks stay hidden until its predictions are revealed.
    predict = pg.locator('[data-testid="stMain"] [data-testid="stRadio"]').filter(has_text="Predict first").first
    predict.locator('[role="radiogroup"] label').first.click()
    pg.locator('[data-testid="stMain"] button:not([disabled])', has_text="Reveal the answer").first.click()
    pg.wait_for_function("() => localStorage.getItem('attention_progress_v1') !== null"
                         " && localStorage.getItem('attention_progress_v1').includes('predict:')", timeout=60_000)
    open_page(pg, problems, server, "home")                # a new page load: a new session, same browser
    pg.wait_for_function("() => document.body.innerText.includes('questions right first time')", timeout=60_000)
    pg.reload()
    pg.wait_for_function("() => document.body.innerText.includes('questions right first time')", timeout=60_000)
    pg.get_by_role("button", name="Forget my progress").click()
    pg.wait_for_function("() => localStorage.getItem('attention_progress_v1') === null", timeout=60_000)
    pg.wait_for_function("() => !document.body.innerText.includes('questions right first time')", timeout=60_000)
    # The new session's first run, then the one the progress component asks for once it has read the
    # browser's storage: only after that second run could the page show what was forgotten.
    problems.runs.reload(runs=2)
    problems.runs.settle()
    assert "questions right first time" not in pg.locator('[data-testid="stMain"]').inner_text()
    assert not problems.errors, problems.errors


# Streamlit's own markup, left out of the accessibility check (docs/SECURITY.md, "Accessibility", says why):
# the sidebar navigation puts <div>s straight inside its <ul> and <li>s outside a list (axe "list",
# "listitem"); nothing of the app's own is inside it.
AXE_STREAMLIT_OWN = {("list", "stSidebarNav"), ("listitem", "stSidebarNav")}
AXE_SERIOUS = ("serious", "critical")
IN_SIDEBAR_NAV_JS = """sel => { const el = sel && document.querySelector(sel);
  return el && el.closest('[data-testid=stSidebarNav]') ? 'stSidebarNav' : ''; }"""


def _axe_problems(pg) -> list[str]:
    from axe_playwright_python.sync_playwright import Axe

    result = Axe().run(pg)
    found = []
    for v in result.response["violations"]:
        if v["impact"] not in AXE_SERIOUS:
            continue
        for node in v["nodes"]:
            target = node["target"][0] if isinstance(node["target"][0], str) else ""
            inside = pg.evaluate(IN_SIDEBAR_NAV_JS, target)
            if (v["id"], inside) in AXE_STREAMLIT_OWN:
                continue
            found.append(f"{v['id']} ({v['impact']}): {node['target']} {node.get('failureSummary', '')[:160]}")
    return found


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("slug", SLUGS)
def test_axe_finds_no_serious_violation_in_the_apps_own_content(server, browser, slug, scheme):
    context = browser.new_context(viewport={"width": 1280, "height": 4000}, color_scheme=scheme)
    pg = context.new_page()
    try:
        runs = harness.Runs(pg)
        runs.open(harness.page_url(server, slug))
        # Not during a rerun: Streamlit fades the elements while one goes, and a page reruns by itself after
        # opening (its components report back, later on a busy machine). A check that a rerun overlapped is
        # taken again, up to three times.
        for _ in range(3):
            runs.settle()
            before = runs.changed_at
            problems = _axe_problems(pg)
            if runs.changed_at == before and not runs.running:
                break
        assert not problems, "\n".join(problems)
    finally:
        context.close()
