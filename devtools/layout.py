"""What a browser shows of a page's layout: text on a chart that is clipped, overlaps other text or is too
small to read, and page elements wider than the screen. Used by tests/browser/test_layout.py and
scripts/screenshots.py. Plain functions, no pytest.
"""

from __future__ import annotations

import re
import time
import warnings

from devtools.harness import TALL

SIZES = {"1366x900": (1366, 900), "1280x720": (1280, 720), "1024x768": (1024, 768), "390x844": (390, 844)}
# Smallest text on a chart as the browser draws it (figures/_layout.py's FONT, and its presenter size).
MIN_CHART_FONT_PX, MIN_PRESENTER_FONT_PX = 14, 18

# One problem per finding: {kind, chart, text, other, detail}. Geometry is measured on what is drawn:
# each SVG text's own box (getBBox) carried to the screen by its transform (getScreenCTM), so a slanted
# tick label is a slanted rectangle, and two labels overlap only when those rectangles do (separating
# axis test), not when their upright bounding boxes happen to.
LAYOUT_JS = r"""
(minFont) => {
  const out = [];
  const vw = document.documentElement.clientWidth;
  const visible = el => {
    for (let n = el; n && n.nodeType === 1; n = n.parentNode) {
      const cs = getComputedStyle(n);
      if (cs.display === 'none' || cs.visibility === 'hidden' || parseFloat(cs.opacity) === 0) return false;
      const op = n.getAttribute && n.getAttribute('opacity');
      if (op !== null && op !== undefined && parseFloat(op) === 0) return false;
    }
    return true;
  };
  const corners = el => {
    let b; try { b = el.getBBox(); } catch (e) { return null; }
    if (!b || b.width === 0 || b.height === 0) return null;
    const m = el.getScreenCTM(); if (!m) return null;
    return [[b.x, b.y], [b.x + b.width, b.y], [b.x + b.width, b.y + b.height], [b.x, b.y + b.height]]
      .map(([x, y]) => [m.a * x + m.c * y + m.e, m.b * x + m.d * y + m.f]);
  };
  const box = ps => ({left: Math.min(...ps.map(p => p[0])), right: Math.max(...ps.map(p => p[0])),
                      top: Math.min(...ps.map(p => p[1])), bottom: Math.max(...ps.map(p => p[1]))});
  // Convex quadrilaterals overlap by more than `slack` px along every separating axis.
  const overlap = (P, Q, slack) => {
    for (const poly of [P, Q]) for (let i = 0; i < 4; i++) {
      const [x1, y1] = poly[i], [x2, y2] = poly[(i + 1) % 4];
      let nx = y1 - y2, ny = x2 - x1; const len = Math.hypot(nx, ny) || 1; nx /= len; ny /= len;
      const pr = R => R.map(p => p[0] * nx + p[1] * ny);
      const a = pr(P), b = pr(Q);
      const depth = Math.min(Math.max(...a), Math.max(...b)) - Math.max(Math.min(...a), Math.min(...b));
      if (depth <= slack) return false;
    }
    return true;
  };
  const role = t => {
    for (const [sel, name] of [['.hoverlayer', 'hover'], ['.xtick', 'x tick'], ['.ytick', 'y tick'],
        ['[class*="xtitle"]', 'x title'], ['[class*="ytitle"]', 'y title'], ['.legendtext', 'legend'],
        ['.legend', 'legend'], ['.annotation', 'annotation'], ['.gtitle', 'title'], ['.textpoint', 'label'],
        ['.ternary', 'ternary axis'], ['.colorbar', 'colour bar']])
      if (t.closest(sel)) return name;
    return 'text';
  };
  const clipArea = (plot, t) => {
    // Trace text inside a clipped layer is cut at its subplot's plot area.
    const clipped = t.closest('[clip-path]');
    const sub = t.closest('g.subplot, g.ternary');
    if (!clipped || !sub || !sub.contains(clipped)) return null;
    if (sub.matches('g.ternary')) return null;
    const name = [...sub.classList].find(c => c !== 'subplot');
    const drag = plot.querySelector(`.draglayer .${name} .nsewdrag`);
    return drag ? drag.getBoundingClientRect() : null;
  };
  document.querySelectorAll('[data-testid=stMain] .js-plotly-plot').forEach((plot, n) => {
    if (!plot.offsetParent) return;
    const svg = plot.querySelector('svg.main-svg'); if (!svg) return;
    const frame = svg.getBoundingClientRect();
    const title = plot.querySelector('.gtitle');
    const lines = title ? [...title.querySelectorAll('tspan.line')].map(l => l.textContent) : [];
    const chart = (lines.length ? lines.join(' ') : title && title.textContent) || `chart ${n + 1}`;
    const texts = [];
    plot.querySelectorAll('svg.main-svg text').forEach(t => {
      const s = t.textContent.replace(/\s+/g, ' ').trim();
      if (!s || t.closest('.hoverlayer') || !visible(t)) return;
      const ps = corners(t); if (!ps) return;
      texts.push({t, s, ps, b: box(ps), role: role(t)});
    });
    for (const x of texts) {
      const size = parseFloat(getComputedStyle(x.t).fontSize);
      if (size < minFont) out.push({kind: 'small', chart, text: x.s, detail: `${x.role} at ${size} px`});
      const b = x.b, f = frame, slack = 1;
      if (b.left < f.left - slack || b.right > f.right + slack || b.top < f.top - slack || b.bottom > f.bottom + slack)
        out.push({kind: 'outside', chart, text: x.s, detail: `${x.role} reaches `
          + `${Math.round(b.left - f.left)}..${Math.round(b.right - f.left)} x ${Math.round(b.top - f.top)}..`
          + `${Math.round(b.bottom - f.top)} in a ${Math.round(f.width)}x${Math.round(f.height)} chart`});
      const area = clipArea(plot, x.t);
      if (area && (b.left < area.left - 2 || b.right > area.right + 2
                   || b.top < area.top - 2 || b.bottom > area.bottom + 2))
        out.push({kind: 'cut', chart, text: x.s, detail: `${x.role} crosses the edge of the plot area`});
    }
    for (let i = 0; i < texts.length; i++) for (let j = i + 1; j < texts.length; j++) {
      const a = texts[i], c = texts[j];
      if (a.t.contains(c.t) || c.t.contains(a.t)) continue;
      if (overlap(a.ps, c.ps, 3))
        out.push({kind: 'overlap', chart, text: a.s, other: c.s, detail: `${a.role} / ${c.role}`});
    }
  });
  // The page itself: nothing wider than the screen, no sideways scroll of the main block.
  const main = document.querySelector('[data-testid=stMain]');
  for (const el of [document.scrollingElement, main])
    if (el && el.scrollWidth > el.clientWidth + 1)
      out.push({kind: 'scroll', chart: '', text: el.dataset ? (el.dataset.testid || 'page') : 'page',
                detail: `scrolls sideways: ${el.scrollWidth} px of content in ${el.clientWidth}`});
  // A displayed formula wider than its column scrolls inside itself: on a phone its end is cut off.
  main.querySelectorAll('.katex-display').forEach(el => {
    if (el.offsetParent !== null && el.scrollWidth > el.clientWidth + 1)
      out.push({kind: 'scroll', chart: '', text: el.innerText.replace(/\s+/g, ' ').slice(0, 60),
                detail: `formula is ${el.scrollWidth} px wide in a ${el.clientWidth} px column`});
  });
  // A caption (what a chart or table shows, in words) under the smallest size chart text may take: on a
  // projector Streamlit's caption size was 17.5 px beside 23 px prose.
  main.querySelectorAll('[data-testid=stCaptionContainer] p, [data-testid=stCaptionContainer] li').forEach(el => {
    const size = parseFloat(getComputedStyle(el).fontSize);
    if (el.offsetParent !== null && el.innerText.trim() && size < minFont - 0.01)
      out.push({kind: 'small', chart: '', text: el.innerText.slice(0, 40), detail: `caption at ${size} px`});
  });
  // A metric's value drawn no larger than its label (presenter CSS once shrank it to body size).
  main.querySelectorAll('[data-testid=stMetric]').forEach(el => {
    // The text itself (its <p>), not the box around it: the box keeps the theme's size.
    const text = id => el.querySelector(`[data-testid=${id}] p`) || el.querySelector(`[data-testid=${id}]`);
    const value = text('stMetricValue'), label = text('stMetricLabel');
    if (!value || !label || el.offsetParent === null) return;
    const v = parseFloat(getComputedStyle(value).fontSize), l = parseFloat(getComputedStyle(label).fontSize);
    if (v < 1.5 * l)
      out.push({kind: 'small', chart: '', text: value.innerText.slice(0, 40),
                detail: `metric value at ${v} px under a ${l} px label`});
  });
  // A label cut short with an ellipsis (a metric's label, a pill's words): the reader never sees its end.
  main.querySelectorAll('[data-testid=stMetricLabel], [data-testid=stMetricLabel] *, '
                        + '[data-testid=stButtonGroup] button, [data-testid=stButtonGroup] button *').forEach(el => {
    if (el.offsetParent !== null && getComputedStyle(el).textOverflow === 'ellipsis'
        && el.scrollWidth > el.clientWidth + 1)
      out.push({kind: 'truncated', chart: '', text: el.innerText.replace(/\s+/g, ' ').slice(0, 60),
                detail: `label needs ${el.scrollWidth} px, has ${el.clientWidth}`});
  });
  main.querySelectorAll('[data-testid=stElementContainer]').forEach(el => {
    const r = el.getBoundingClientRect();
    if (r.width > 0 && r.height > 0 && (r.right > vw + 1 || r.left < -1))
      out.push({kind: 'wide', chart: '', text: el.innerText.slice(0, 60),
                detail: `spans ${Math.round(r.left)}..${Math.round(r.right)} of a ${vw} px screen`});
  });
  return out;
}
"""


STEP_BAR = '[class*="__step__bar"]'


def step_count(page) -> int | None:
    """How many presenter steps the lesson on screen has (its step bar's "Step i of N"), or None without one."""
    bar = page.locator(STEP_BAR)
    found = re.search(r"Step \d+ of (\d+)", bar.first.inner_text()) if bar.count() else None
    return int(found.group(1)) if found else None


# Presenter mode's stylesheet is in force (ui/present.py sets the root size to 20 px). It is an element of the
# page: on a busy machine the browser can mount it a moment after the run that sent it is reported over.
PRESENTER_STYLED_JS = "() => getComputedStyle(document.documentElement).fontSize === '20px'"


def problems(page, presenting: bool | None = None) -> list[dict]:
    """Every layout problem on the page as it is drawn now (see LAYOUT_JS). Text on a chart must be at least
    MIN_PRESENTER_FONT_PX in presenter mode (by default, when the page's address says ``present=1``)."""
    presenting = "present=1" in page.url if presenting is None else presenting
    if presenting:
        page.wait_for_function(PRESENTER_STYLED_JS, timeout=30_000)
    return page.evaluate(LAYOUT_JS, MIN_PRESENTER_FONT_PX if presenting else MIN_CHART_FONT_PX)


# Every chart on screen, with the margins Plotly had to grow past the figure's own (drawn margins,
# ``_fullLayout._size``, against ``margin``): automargin then lays the whole figure out a second time, on
# every draw, so a grown margin is a slower redraw as well as a layout the figure did not plan.
CHART_MARGINS_JS = """() => [...document.querySelectorAll('.js-plotly-plot')]
  .filter(el => el.offsetParent !== null && el._fullLayout).map(el => {
    const m = el._fullLayout.margin, s = el._fullLayout._size, t = el._fullLayout.title;
    return {chart: ((t && t.text) || '').replace(/<br>/g, ' ').replace(/<[^>]+>/g, '').slice(0, 60),
            grew: ['l', 'r', 't', 'b'].filter(k => s[k] > m[k] + 0.5).map(k => `${k} +${Math.round(s[k] - m[k])} px`)};
  })"""


def grown_margins(page) -> list[str]:
    """The charts on screen whose margins Plotly grew to fit their labels, each as "title: l +8 px"."""
    return [f"{c['chart']!r}: {', '.join(c['grew'])}" for c in page.evaluate(CHART_MARGINS_JS) if c["grew"]]


def describe(p: dict) -> str:
    where = f"[{p['chart']}] " if p.get("chart") else ""
    other = f" / {p['other']!r}" if p.get("other") else ""
    return f"{p['kind']}: {where}{p['text']!r}{other} ({p['detail']})"


# Chart widths, as drawn and as their boxes now are: equal and unchanged between two looks once the
# charts have redrawn for a new window size.
_WIDTHS_JS = """() => [...document.querySelectorAll('[data-testid=stMain] [data-testid=stPlotlyChart]')]
  .filter(c => c.offsetParent !== null).map(c => {
    const svg = c.querySelector('svg.main-svg');
    return [Math.round(c.getBoundingClientRect().width), svg ? Math.round(svg.getBoundingClientRect().width) : -1];
  })"""


def resize(page, width: int, height: int = TALL, timeout_ms: int = 20_000) -> None:
    """Make the window ``width`` px wide and wait until every chart has redrawn at its new width."""
    page.set_viewport_size({"width": width, "height": height})
    deadline = time.perf_counter() + timeout_ms / 1000
    before = None
    while time.perf_counter() < deadline:
        page.wait_for_timeout(250)
        now = page.evaluate(_WIDTHS_JS)
        if now == before and all(abs(box - svg) <= 2 for box, svg in now):
            break
        before = now
    page.wait_for_timeout(200)                    # Plotly's label placement follows its resize by a frame


# The first unrevealed prediction: its "Reveal the answer" button and the radio just above it (each may be
# missing). The start of every function below that looks at that prediction.
_FIRST_PREDICTION = """
  const button = [...document.querySelectorAll('[data-testid=stMain] button')]
    .find(b => b.innerText.trim() === 'Reveal the answer');
  const radios = button ? [...document.querySelectorAll('[data-testid=stMain] [data-testid=stRadio]')]
    .filter(r => r.compareDocumentPosition(button) & Node.DOCUMENT_POSITION_FOLLOWING) : [];
  const radio = radios[radios.length - 1];"""

# Marks the answer to click for the first unrevealed prediction: its radio's first choice, unless one is picked.
_NEXT_PREDICTION_JS = "() => {" + _FIRST_PREDICTION + """
  if (!button) return null;
  document.querySelectorAll('[data-layout-pick]').forEach(el => el.removeAttribute('data-layout-pick'));
  button.setAttribute('data-layout-pick', 'button');
  if (radio && !radio.querySelector('input:checked'))
    radio.querySelector('[role=radiogroup] label').setAttribute('data-layout-pick', 'choice');
  return !!radio;
}"""


# The first "Reveal the answer" button in the lesson (the one the marks point at) can be clicked.
_FIRST_REVEAL_ENABLED_JS = "() => {" + _FIRST_PREDICTION + """
  return !!button && !button.disabled;
}"""

# How many "Reveal the answer" buttons the lesson shows (one fewer once a prediction is revealed).
_REVEAL_BUTTONS_JS = """() => [...document.querySelectorAll('[data-testid=stMain] button')]
  .filter(b => b.innerText.trim() === 'Reveal the answer').length"""


def reveal_predictions(page, runs, most: int = 6, *, enabled_ms: int = 20_000) -> int:
    """Answer (first choice) and reveal every prediction on the page, top to bottom; how many were revealed.

    The marks are set again on every try: a rerun may replace the radio's or the button's element, and a
    click in the middle of a rerun can be lost on a busy machine. A reveal still disabled ``enabled_ms``
    after its answer was picked (CI once, 2026-12-04: convex_blending presenting, 3 × 30 s, what the page
    showed not recorded) is picked again, as a person would, through the other choice, and a warning says
    what the page showed at each try.
    """
    done = 0
    for _ in range(most):
        seen: list[str] = []
        clicked = False
        for attempt in range(4):
            found = page.evaluate(_NEXT_PREDICTION_JS)
            if found is None:                         # none left; or the last try's click revealed it late
                return done + clicked
            choice = page.locator('[data-layout-pick="choice"]')
            try:
                if choice.count():
                    before = runs.finished
                    choice.click()
                    runs.wait(before, timeout_ms=30_000)
                elif attempt and page.evaluate(_REVEAL_STATE_JS) == "disabled, picked":
                    seen.append(f"try {attempt + 1}: picked again")
                    _pick_again(page, runs)
                page.wait_for_function(_FIRST_REVEAL_ENABLED_JS, timeout=enabled_ms)
                before, buttons = runs.finished, page.evaluate(_REVEAL_BUTTONS_JS)
                clicked = True
                page.locator('[data-testid="stMain"]').get_by_role(
                    "button", name="Reveal the answer", exact=True).first.click(timeout=10_000)
                page.wait_for_function(f"() => ({_REVEAL_BUTTONS_JS})() < {buttons}", timeout=30_000)
                break
            except Exception as err:
                seen.append(f"try {attempt + 1}: {type(err).__name__}, the reveal {page.evaluate(_REVEAL_STATE_JS)}")
                if attempt == 3:
                    raise TimeoutError("a prediction could not be revealed: " + "; ".join(seen)) from err
        if seen:
            warnings.warn("revealing a prediction took more than one try: " + "; ".join(seen), stacklevel=2)
        runs.wait(before)
        done += 1
    return done


# The first "Reveal the answer" in the lesson: "none", or "enabled"/"disabled" and whether its radio is picked.
_REVEAL_STATE_JS = "() => {" + _FIRST_PREDICTION + """
  if (!button) return 'none';
  const picked = !!radio && !!radio.querySelector('input:checked');
  return (button.disabled ? 'disabled' : 'enabled') + (picked ? ', picked' : ', not picked');
}"""


def _pick_again(page, runs) -> None:
    """Pick the first unrevealed prediction's answer again: its second choice, then its first."""
    for nth in (1, 0):
        before = runs.finished
        page.evaluate(_MARK_CHOICE_JS, nth)
        page.locator('[data-layout-pick="again"]').click()
        runs.wait(before, timeout_ms=30_000)


# Marks the n-th choice of the radio just above the first unrevealed prediction's button.
_MARK_CHOICE_JS = "n => {" + _FIRST_PREDICTION + """
  document.querySelectorAll('[data-layout-pick=again]').forEach(el => el.removeAttribute('data-layout-pick'));
  radio.querySelectorAll('[role=radiogroup] label')[n].setAttribute('data-layout-pick', 'again');
}"""
