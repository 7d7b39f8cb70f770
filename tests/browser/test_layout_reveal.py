"""The layout harness's reveal (devtools/layout.reveal_predictions) on a stand-in lesson page: a prediction whose
first pick the "server" loses, as CI once met (the reveal stayed disabled with its answer shown picked), is
picked again and revealed, with a warning; one that never unlocks fails with what the page showed.

The stand-in is plain HTML with a lesson's test ids; its runs are counted by the page itself (each pick or
reveal is one), so no server is needed.
"""

from __future__ import annotations

import warnings

import pytest

from devtools import layout

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser")]

# Two predictions. `lose` picks are lost before the reveal unlocks: the radio shows them, the button stays
# disabled. `window.runs` counts the "runs" each pick or reveal starts.
PAGE = """<div data-testid="stMain">%s</div><script>
window.runs = 0;
let lose = %d;
document.querySelectorAll('[data-testid=stRadio] input').forEach(input => input.addEventListener('change', () => {
  window.runs++;
  if (lose > 0) { lose--; return; }
  input.closest('.prediction').querySelector('button').disabled = false;
}));
document.querySelectorAll('button').forEach(b => b.addEventListener('click', () => {
  window.runs++;
  b.replaceWith(Object.assign(document.createElement('p'), {innerText: 'Revealed.'}));
}));
</script>"""
PREDICTION = """<div class="prediction"><div data-testid="stRadio"><div role="radiogroup">
<label><input type="radio" name="%(name)s"> A</label><label><input type="radio" name="%(name)s"> B</label>
</div></div><button disabled>Reveal the answer</button></div>"""


class PageRuns:
    """What devtools.harness.Runs offers reveal_predictions, read from the stand-in's own counter."""

    def __init__(self, page) -> None:
        self.page = page

    @property
    def finished(self) -> int:
        return self.page.evaluate("() => window.runs")

    def wait(self, after: int, timeout_ms: int = 30_000) -> None:
        self.page.wait_for_function(f"() => window.runs > {after}", timeout=timeout_ms)


@pytest.fixture
def stand_in(browser):
    context = browser.new_context()
    page = context.new_page()

    def load(lost_picks: int):
        page.set_content(PAGE % (PREDICTION % {"name": "p1"} + PREDICTION % {"name": "p2"}, lost_picks))
        return page, PageRuns(page)

    yield load
    context.close()


def test_every_prediction_is_revealed_in_one_try_when_no_pick_is_lost(stand_in):
    page, runs = stand_in(0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")                # a warning here would be a retry that was not needed
        assert layout.reveal_predictions(page, runs, enabled_ms=1_000) == 2
    assert page.locator("p", has_text="Revealed.").count() == 2


def test_a_lost_pick_is_picked_again_and_revealed_with_a_warning(stand_in):
    page, runs = stand_in(1)
    with pytest.warns(UserWarning, match="picked again"):
        assert layout.reveal_predictions(page, runs, enabled_ms=1_000) == 2
    assert page.locator("p", has_text="Revealed.").count() == 2


def test_a_reveal_that_never_unlocks_fails_saying_what_the_page_showed(stand_in):
    page, runs = stand_in(99)
    with pytest.raises(TimeoutError, match="the reveal disabled, picked"):
        layout.reveal_predictions(page, runs, enabled_ms=500)

