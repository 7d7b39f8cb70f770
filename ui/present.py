"""Presenter mode: larger type and charts for a projector, prose folded away, reveals one step at a time.

Turned on by the sidebar toggle or a ``?present=1`` link; it lasts for the browser session.
"""

from __future__ import annotations

import streamlit as st

from ui import streamlit_private as private

_KEY = "_present"
_SWITCH = "_present_switch"
_ON = {"1", "true", "yes", "on"}

# Every page, every mode.
SITE_CSS = private.frontend("""
<style>
  /* Captions: Streamlit's faded grey is 3.88:1 on white; the body colour at 80% is above 5:1 in both themes. */
  [data-testid="stCaptionContainer"] { color: inherit !important; opacity: 0.8; }
  [data-testid="stCaptionContainer"] p, [data-testid="stCaptionContainer"] li { color: inherit !important; }
  /* The lesson's question is its h2; sized as the h4 it used to be, below the page title. */
  .st-key-lesson_question h2 { font-size: 1.35rem; font-weight: 600; padding: 0.25rem 0 0.5rem 0; }
  /* A clearly visible keyboard focus on radios and the sidebar's links, in the text colour of either theme. */
  [data-testid="stRadio"] label:has(input:focus-visible),
  [data-testid="stSidebarNav"] a:focus-visible,
  [data-testid="stPageLink"] a:focus-visible {
    outline: 3px solid currentColor; outline-offset: 2px; border-radius: 4px; }
  /* Lesson titles in the sidebar wrap instead of being cut off with an ellipsis. */
  [data-testid="stSidebarNav"] .stMarkdownEllipsis, [data-testid="stSidebarNav"] .stMarkdownEllipsis p,
  [data-testid="stNavSectionHeader"] .stMarkdownEllipsis, [data-testid="stNavSectionHeader"] .stMarkdownEllipsis p {
    white-space: normal !important; overflow: visible !important; text-overflow: clip !important; }
  [data-testid="stSidebarNav"] .stMarkdownEllipsis p, [data-testid="stNavSectionHeader"] p { line-height: 1.3; }
  [data-testid="stSidebarNavLink"] { height: auto !important; min-height: 2rem; }
  /* Page links in the page (Previous / Next, "More on …") wrap too: a long title was cut mid-word. */
  [data-testid="stPageLink-NavLink"] span, [data-testid="stPageLink-NavLink"] .stMarkdownEllipsis,
  [data-testid="stPageLink-NavLink"] p {
    white-space: normal !important; overflow: visible !important; text-overflow: clip !important; }
  [data-testid="stPageLink-NavLink"] { height: auto !important; }
  /* The progress component's frames (ui/progress.py) run a line of script and show nothing: no 8 px strip. */
  [class*="st-key-_progress_read"], [class*="st-key-_progress_write_"] { height: 0 !important; overflow: hidden; }
  /* What a presenter's step scrolls to clears the app's fixed top bar. */
  [data-testid="stMain"] [data-testid="stElementContainer"], [data-testid="stMain"] [data-testid="stExpander"],
  [class*="__step__bar"] { scroll-margin-top: 4.5rem; }
  /* The step bar's buttons keep their words on one line. */
  [class*="__step__bar"] button { white-space: nowrap; padding-left: 0.7rem; padding-right: 0.7rem; }
  [class*="__step__bar"] button p { white-space: nowrap; }
  /* ... and their columns take the buttons' width, the label the rest: in equal shares of a narrow column
     (1024 px with the sidebar open, presenter type) "◀ Back" and "Next ▶" were cut to "◀ …" and "Ne…". */
  [class*="__step__bar"] [data-testid="stColumn"]:first-child,
  [class*="__step__bar"] [data-testid="stColumn"]:last-child { flex: 0 0 auto !important; width: auto !important; }
  [class*="__step__bar"] [data-testid="stColumn"]:nth-child(2) { flex: 1 1 0 !important; min-width: 0 !important; }
  /* A metric's label and a pill's words wrap instead of ending in an ellipsis: in a narrow column of a row of
     metrics a label's end ("… of 384", "… unscaled") was never seen, and on a phone the Lab's longest example
     sentence lost its last words, the ones it is about ("… too tired"). */
  /* (Their boxes only: KaTeX's hidden MathML copy must keep its own overflow, or it widens the page.) */
  [data-testid="stMetricLabel"], [data-testid="stMetricLabel"] div, [data-testid="stMetricLabel"] p,
  [data-testid="stMetricLabel"] label,
  [data-testid="stButtonGroup"] button, [data-testid="stButtonGroup"] button div,
  [data-testid="stButtonGroup"] button p {
    white-space: normal !important; overflow: visible !important; text-overflow: clip !important;
    height: auto !important; }
  [data-testid="stButtonGroup"] button, [data-testid="stButtonGroup"] button div,
  [data-testid="stButtonGroup"] button p { text-align: left; }
  /* Maths inside a caption keeps to the caption's size: KaTeX's own 1.21em made it tower over the words. */
  [data-testid="stCaptionContainer"] .katex { font-size: 1.05em; }
  /* On a phone a displayed formula takes a smaller size, so softmax(QKᵀ/√dₖ)V fits the column, not cut off. */
  @media (max-width: 480px) { [data-testid="stMain"] .katex-display > .katex { font-size: 1.05em; } }
  /* Chips (a multiselect's picked words) wear the dark theme's light sky blue: dark text on it, not white. */
  @media (prefers-color-scheme: dark) {
    [data-testid="stMultiSelect"] [data-baseweb="tag"], [data-testid="stMultiSelect"] [data-baseweb="tag"] span,
    [data-testid="stMultiSelect"] span[title] { color: #0E1117 !important; }
    [data-testid="stMultiSelect"] [data-baseweb="tag"] svg { fill: #0E1117 !important; color: #0E1117 !important; }
    /* The formula's "softmax" is a deep blue for white (figures/palette.py TEXT_SHADES); sky blue on dark. */
    .katex [style*="rgb(31, 120, 180)"], .katex [style*="#1f78b4" i] { color: #56B4E9 !important; }
  }
</style>
""")


# Static CSS only (never anything a user typed): bigger type, wider column, roomier controls.
PRESENTER_CSS = private.frontend("""
<style>
  html { font-size: 20px; }
  [data-testid="stMainBlockContainer"] { max-width: 100%; padding-left: 2.5rem; padding-right: 2.5rem; }
  [data-testid="stMarkdownContainer"] p, [data-testid="stMarkdownContainer"] li { font-size: 1.15rem; }
  /* A metric's value is markdown too: it keeps its own large size, not the body text's (it shrank below its label). */
  [data-testid="stMetricValue"] [data-testid="stMarkdownContainer"] p { font-size: inherit; }
  /* Captions say what a chart or table shows: at Streamlit's 0.875rem they were 17.5 px beside 23 px prose. */
  [data-testid="stCaptionContainer"] p, [data-testid="stCaptionContainer"] li { font-size: 1rem !important; }
  h1 { font-size: 2.6rem !important; }
  /* A small table of numbers is a static table in presenter mode (ui/tables.numbers): its cells grow with the prose. */
  [data-testid="stTable"] th, [data-testid="stTable"] td { font-size: 1.1rem; }
  .stButton button { font-size: 1.1rem; padding: 0.5rem 1.4rem; }
  /* The sidebar stays at its usual size: larger, its wrapped titles would push the switch out of view. */
  [data-testid="stSidebarNav"] p, [data-testid="stNavSectionHeader"] p { font-size: 0.8rem; }
</style>
""")


# Static script: gives every chart an accessible name. Streamlit's Plotly element has no aria attributes, so a
# screen reader met an unnamed picture; each chart becomes a figure named by its title and the caption under it.
_CHART_NAMES_JS = private.frontend("""
<script>
(function () {
  if (window.__attnChartNames) return;
  window.__attnChartNames = true;
  // KaTeX writes each formula twice, as MathML for screen readers and as HTML for the eye; a name is plain
  // text, so it takes the HTML copy alone ("W" and "Q" of W_Q, without the zero-width spaces).
  var text = function (el) {
    if (!el) return "";
    var copy = el.cloneNode(true);
    copy.querySelectorAll(".katex-mathml").forEach(function (m) { m.remove(); });
    return copy.textContent.replace(/\\u200b/g, "").replace(/\\s+/g, " ").trim();
  };
  var name = function () {
    document.querySelectorAll('[data-testid="stPlotlyChart"]').forEach(function (chart) {
      var box = chart.closest('[data-testid="stElementContainer"]');
      var after = box && box.nextElementSibling;
      var caption = after && after.querySelector('[data-testid="stCaptionContainer"]');
      var title = chart.querySelector(".gtitle");   // a wrapped title: one tspan.line per line, no space between
      var lines = title ? Array.prototype.map.call(title.querySelectorAll("tspan.line"), text) : [];
      var label = [lines.length ? lines.join(" ") : text(title), text(caption)].filter(Boolean).join(". ") || "Chart";
      if (chart.getAttribute("aria-label") !== label) {
        chart.setAttribute("role", "figure");
        chart.setAttribute("aria-label", label);
      }
    });
  };
  var pending = null;
  // At most 150 ms after a change, even while changes keep coming (a debounce that restarted on each one
  // could wait as long as a busy page kept changing).
  new MutationObserver(function () {
    if (pending === null) pending = setTimeout(function () { pending = null; name(); }, 150);
  })
    .observe(document.body, {childList: true, subtree: true, characterData: true});
  name();
})();
</script>
""")


def _flip() -> None:
    st.session_state[_KEY] = bool(st.session_state.get(_SWITCH, st.session_state.get(_KEY, False)))


def sidebar_toggle() -> None:
    """The presenter switch in the sidebar, drawn by every page (the lesson frame and the home page).

    The mode lives in a plain session key, not only in the widget, so it survives page switches.
    """
    if _KEY not in st.session_state:
        st.session_state[_KEY] = str(st.query_params.get("present", "")).lower() in _ON
    st.sidebar.toggle("Presenter mode", value=st.session_state[_KEY], key=_SWITCH, on_change=_flip,
                      help="Large type for a projector; prose folded; Page Down / Page Up step through reveals.")
    st.html(SITE_CSS)                                  # style only: Streamlit gives it no space
    st.html(_CHART_NAMES_JS, unsafe_allow_javascript=True)
    if st.session_state[_KEY]:
        st.html(PRESENTER_CSS)


def keep_address() -> None:
    """The mode in the address (``present=1``), so a link or a reload keeps it. Called by the classroom's
    sidebar once it has read the link, never before: every write sends the whole address as a new history
    entry, and a run may still carry a presenter link's ``key`` until the classroom has taken it out (a late
    run of the link's landing page once wrote ``present=1`` beside it, putting the key back in the address bar
    and the history)."""
    if st.session_state.get(_KEY):
        if st.query_params.get_all("present") != ["1"]:  # written only when it changes
            st.query_params["present"] = "1"
    elif "present" in st.query_params:
        del st.query_params["present"]


def set_active(on: bool) -> None:
    """Presenter mode on or off from code (a presenter resuming a class on another screen): it holds from the
    next run, whose switch is drawn from the mode again (the widget's own state is dropped)."""
    st.session_state[_KEY] = on
    st.session_state.pop(_SWITCH, None)


def active() -> bool:
    return bool(st.session_state.get(_KEY, False))


# Static script (the keys are our own widget keys, never user text). A presentation clicker sends PageDown /
# PageUp, which press the page's Next / Back step buttons. Caught on the way down (capture phase) and
# stopped there, so a focused slider, radio or text box never sees them: they always step, never move a
# slider. After a Next, the view scrolls to the first element the step revealed (found by its text, which
# the rerun did not show before); after a Back, to the step bar, never down to the footer. On a page's
# first run in presenter mode the step bar is scrolled into view when it sits below the fold.
_CLICKER_JS = private.frontend("""
<script>
(function () {
  window.__attnSteps = {next: "%(next)s", back: "%(back)s", bar: "%(bar)s"};
  var bar = function () { return document.querySelector(".st-key-" + window.__attnSteps.bar); };
  if (window.__attnStepsPage !== location.pathname) {
    // Charts above the bar still grow for a moment after the run; hold the bar in view until they settle.
    window.__attnStepsPage = location.pathname;
    var tries = 0;
    window.__attnStepMoved = false;
    var hold = function () {
      if (window.__attnStepMoved) return;
      var b = bar();
      if (b) {
        var top = b.getBoundingClientRect().top;
        if (top > window.innerHeight - 140 || top < 0) b.scrollIntoView({block: "start"});
      }
      if (++tries < 12 && !window.__attnStepMoved) setTimeout(hold, 250);
    };
    setTimeout(hold, 200);
  }
  if (window.__attnStepsInstalled) return;
  window.__attnStepsInstalled = true;
  var blocks = function () {
    return Array.prototype.slice.call(document.querySelectorAll(
      '[data-testid="stMain"] [data-testid="stElementContainer"], [data-testid="stMain"] [data-testid="stExpander"]'));
  };
  var status = function () { var b = bar(); return b ? b.innerText : ""; };
  var follow = function (forward, before, seen) {
    window.__attnStepMoved = true;
    var started = Date.now(), target = null, still = 0, held = 0;
    var me = window.__attnFollow = (window.__attnFollow || 0) + 1;
    var poll = function () {
      var elapsed = Date.now() - started;
      if (me !== window.__attnFollow || elapsed > 15000) return;    // a newer press took over, or give up
      var b = bar();
      var settled = b && status() !== before && !document.querySelector('[data-testid="stSkeleton"]');
      if (!settled) { setTimeout(poll, 100); return; }
      if (!forward) { b.scrollIntoView({block: "start"}); return; }
      var fresh = blocks().filter(function (el) {
        var t = el.innerText.trim();
        return t && !seen.has(t) && !b.contains(el) && el.getBoundingClientRect().height > 0;
      });
      // The step's content arrives after its bar: wait for the first new block to stand still a moment.
      if (fresh[0] !== target) { target = fresh[0]; still = 0; } else { still++; }
      if (!target) {
        if (elapsed < 6000) { setTimeout(poll, 100); } else { b.scrollIntoView({block: "start"}); }
        return;
      }
      if (still < 3) { setTimeout(poll, 100); return; }
      // Then keep it on screen while charts above it finish growing (they push it down as they draw).
      var top = target.getBoundingClientRect().top;
      if (held === 0 || top < 0 || top > window.innerHeight / 2) target.scrollIntoView({block: "start"});
      if (++held < 10) setTimeout(poll, 200);
    };
    setTimeout(poll, 100);
  };
  document.addEventListener("keydown", function (e) {
    if (e.key !== "PageDown" && e.key !== "PageUp") return;
    var forward = e.key === "PageDown";
    var button = document.querySelector(".st-key-" + (forward ? window.__attnSteps.next : window.__attnSteps.back)
                                        + " button");
    if (!button) return;
    e.preventDefault();
    e.stopImmediatePropagation();
    if (button.disabled) return;
    var seen = new Set(blocks().map(function (el) { return el.innerText.trim(); }));
    var before = status();
    button.click();
    follow(forward, before, seen);
  }, true);
  document.addEventListener("click", function (e) {
    var t = e.target.closest && e.target.closest(".st-key-" + window.__attnSteps.next + " button, .st-key-"
                                                  + window.__attnSteps.back + " button");
    if (!t || e.isTrusted === false) return;
    var forward = !!t.closest(".st-key-" + window.__attnSteps.next);
    follow(forward, status(), new Set(blocks().map(function (el) { return el.innerText.trim(); })));
  }, true);
})();
</script>
""")


def clicker_keys(next_key: str, back_key: str, bar_key: str) -> None:
    """Let PageDown / PageUp press the buttons with these (code-defined) keys, and scroll to what they reveal."""
    if not all(k.replace("_", "").isalnum() for k in (next_key, back_key, bar_key)):
        raise ValueError("clicker keys must be plain identifiers")
    st.html(_CLICKER_JS % {"next": next_key, "back": back_key, "bar": bar_key}, unsafe_allow_javascript=True)
