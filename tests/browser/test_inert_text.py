"""Inert text in Chromium: the outside probe's payloads, through links and typed input, on every path that
quotes a learner's text. Inert means (docs/SECURITY.md): no request leaves the page for the payloads' host,
no link, image, bold, code or maths appears, and Plotly labels show the text as typed.
"""

from __future__ import annotations

import re
from urllib.parse import urlencode

import pytest

from devtools import harness

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser")]

PAYLOADS = ["![x](http://127.0.0.1:9/a.png)", "[phish](http://127.0.0.1:9/login)", "![](//127.0.0.1:9/x.png)",
            "__x__", "<b>x</b>", '"quote"', "$x$", "`code`"]
HOST = re.compile(r"//127\.0\.0\.1:9/")
MAIN = '[data-testid="stMain"]'
# Anything the payloads would make if they were rendered: a link or image to their host, bold or italic
# "x", inline code "code", KaTeX maths of "x", or a raw <b>.
ACTIVE_JS = """() => {
  const main = document.querySelector('[data-testid=stMain]');
  const found = [];
  const add = (what, el) => found.push(what + ' ' + el.outerHTML.slice(0, 200));
  // The page's own heading anchors carry the page URL, query (and so the payload) included: judge by host.
  for (const a of main.querySelectorAll('a'))
    if (a.host === '127.0.0.1:9' || a.textContent.trim() === 'phish') add('link', a);
  for (const i of main.querySelectorAll('img')) if (i.src && new URL(i.src).host === '127.0.0.1:9') add('img', i);
  for (const b of main.querySelectorAll('strong, b, em, i')) if (b.textContent.trim() === 'x') add('bold', b);
  for (const c of main.querySelectorAll('p code, li code, label code'))
    if (c.textContent === 'code') add('code', c);
  for (const k of main.querySelectorAll('.katex'))
    if (k.textContent.replace(/\\s/g, '').startsWith('xx')) add('maths', k);
  return found;
}"""


@pytest.fixture
def watched(page):
    pg, problems = page
    requests: list[str] = []
    pg.on("request", lambda r: requests.append(r.url) if HOST.search(r.url) else None)
    return pg, problems, requests


def visit(pg, problems, base: str, slug: str, **params: str) -> None:
    problems.runs.open(harness.page_url(base, slug, urlencode(params) if params else ""))


def check(pg, requests: list[str], where: str) -> None:
    pg.wait_for_timeout(500)                                # an image would be requested as soon as it is drawn
    assert not requests, f"{where}: the page requested {requests}"
    found = pg.evaluate(ACTIVE_JS)
    assert not found, f"{where}: {found}"
    assert pg.locator('[data-testid="stException"]').count() == 0, where


def typed(pg, problems, selector: str, text: str, commit: str = "Control+Enter") -> None:
    runs = problems.runs.finished
    pg.wait_for_selector(selector, timeout=90_000)         # a fragment's widgets can trail the finished run
    box = pg.locator(selector).first
    box.fill(text)
    box.press(commit)
    # The run, not its charts: a refused entry leaves its section without them, and the caller waits for
    # what the entry should show.
    problems.runs.wait(runs, charts=False)


@pytest.mark.parametrize("payload", PAYLOADS)
def test_lab_word_from_a_link_stays_text(server, watched, payload):
    pg, problems, requests = watched
    visit(pg, problems, server, "real_model_lab", lab_word=payload)
    pg.get_by_text("most frequent GloVe words").first.wait_for(timeout=60_000)   # the message quoting the word
    check(pg, requests, f"lab_word={payload}")


@pytest.mark.parametrize("payload", PAYLOADS)
def test_a_matrix_entry_from_a_link_and_typed_stays_text(server, watched, payload):
    pg, problems, requests = watched
    visit(pg, problems, server, "scaled_formula", sf_q=payload)
    # Drawn by the formula's fragment: on a busy machine the browser can draw it after the run is reported over.
    try:
        pg.get_by_text("could not be used").first.wait_for(timeout=60_000)
    except Exception as err:                            # say what the page showed instead (seen twice in CI)
        pg.screenshot(path=str(harness.ROOT / "artifacts" / "inert_notice_missing.png"), full_page=True)
        shown = pg.locator(MAIN).first.inner_text()[:600] if pg.locator(MAIN).count() else "(no main)"
        raise AssertionError(f"no notice at {pg.url}; runs {problems.runs.finished}; the page read: {shown!r}") from err
    check(pg, requests, f"?sf_q={payload}")
    typed(pg, problems, f"{MAIN} textarea", f"1, {payload}")
    # The refusal is drawn by the formula's fragment, which can trail the run the typing started.
    pg.locator(f'{MAIN} [data-testid="stAlertContentError"]').first.wait_for(timeout=60_000)
    check(pg, requests, f"typed Q 1, {payload}")
    assert "sf_q=" not in pg.url or "127.0.0.1" not in pg.url, "refused text is not copied into the URL"


def test_token_names_and_context_words_stay_text(server, watched):
    pg, problems, requests = watched
    visit(pg, problems, server, "convex_blending", cb_labels=", ".join(PAYLOADS[:3]))
    check(pg, requests, "cb_labels")
    for payload in PAYLOADS:
        visit(pg, problems, server, "convex_blending", cb_labels=f"{payload}, bank, muddy")
        check(pg, requests, f"cb_labels={payload}")
    box = f'{MAIN} [data-testid="stMultiSelect"] input'
    for half in (PAYLOADS[:4], PAYLOADS[4:]):             # two defaults + four typed stay within the 8 picks
        visit(pg, problems, server, "polysemy")
        for payload in half:
            typed(pg, problems, box, payload, commit="Enter")
            check(pg, requests, f"context word {payload}")
    pg.get_by_text("Not in this page's vocabulary").first.wait_for(timeout=60_000)   # the notice quoting them


def test_lab_tokens_stay_text_in_messages_and_plotly_labels(server, watched):
    pg, problems, requests = watched
    sentence = "bank " + " ".join(PAYLOADS)
    visit(pg, problems, server, "real_model_lab", lab_text=sentence)
    check(pg, requests, "lab_text")
    # Plotly thins the tick labels of a long sentence's heatmap: the labels are checked on a short one,
    # every character of which gets its own tick.
    visit(pg, problems, server, "real_model_lab", lab_text='bank "q" <b> $ ` _')
    ticks = pg.evaluate("() => [...document.querySelectorAll('.js-plotly-plot .xtick text, .js-plotly-plot "
                        ".ytick text, .js-plotly-plot .legendtext')].map(t => t.textContent)")
    joined = " ".join(ticks)
    for shown in ('"', "<", ">", "$", "`", "_"):
        assert shown in joined, f"{shown!r} should show literally among the labels: {ticks[:40]}"
    for entity in ("&quot;", "&lt;", "&gt;", "&amp;", "&#36;", "&#x27;"):
        assert entity not in joined, f"{entity} shown as text in a Plotly label"
