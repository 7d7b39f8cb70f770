"""Students who know where to look: when the class is asked a question, or the presenter steps, a follower's
view brings it into view, and a notice at the top of the page ("The class is answering a question", with a
link to it) stays until they answer.

The scroll is a constant script (``_GUIDE_JS``), installed once per page. It reads only the classes of two
keyed containers, with code-defined parts: the notice's (``_class_notice__<n>``, n counting the questions
this follower was asked) and the follower's step line (``_class_step__<step>``, ui.frame.Frame.steps). A new
notice brings the question into view; a new step number, the new step's section heading (its ``st.subheader``:
the first heading the step drew, found by what was on the page before it), at the top of the screen, on a phone
too. A step that draws no heading of its own brings the step line.
"""

from __future__ import annotations

import streamlit as st

from ui import streamlit_private as private
from ui.classroom.polls import asking, my_vote
from ui.classroom.session import following

QUESTION_ANCHOR = "class-question"  # the notice's link: the script turns a click on it into a scroll
_ASKED = "_class_asked"            # (question, round) last noticed, and how many this follower was asked

# Static script: waits for the target to be drawn, brings it to the top of the view (below Streamlit's header),
# and holds it there a few seconds while charts above it finish growing. A click on the notice's link scrolls
# too. A new step brings its section's heading (an st.subheader) to the top: on Next, the first heading drawn
# that was not on the page at the step before; on Back, the heading Next brought that step to. A step without a
# heading of its own, a page just opened or another page: the step line, as before.
_GUIDE_JS = private.frontend("""
<script>
(function () {
  if (window.__attnGuide) return;
  window.__attnGuide = true;
  var MARGIN = 72;                       // px: the heading's top sits just below Streamlit's header
  var bring = function (el) { el.style.scrollMarginTop = MARGIN + "px"; el.scrollIntoView({block: "start"}); };
  var moved = null, notice = null, step = null, path = location.pathname;
  var scroll = function (find, move) {
    var tries = 0, held = 0;
    moved = move;
    var go = function () {
      if (moved !== move || ++tries > 80) return;
      var el = find();
      if (!el || el.getBoundingClientRect().height === 0) { setTimeout(go, 150); return; }
      var top = el.getBoundingClientRect().top;
      if (held === 0 || Math.abs(top - MARGIN) > 40) bring(el);
      if (++held < 15) setTimeout(go, 200);
    };
    setTimeout(go, 100);
  };
  var select = function (selector) { return function () { return document.querySelector(selector); }; };
  var headings = function () {
    return Array.prototype.filter.call(
      document.querySelectorAll('[data-testid="stMain"] h3'),
      function (h) { return h.getBoundingClientRect().height > 0; });
  };
  var titled = function (text) {             // that heading; the step line if it is not drawn within ~2 s
    var calls = 0;
    return function () {
      var h = headings().filter(function (e) { return e.textContent.trim() === text; })[0];
      return h || ++calls < 12 ? h : document.querySelector('[class*="st-key-_class_step__"]');
    };
  };
  var known = {}, marks = {};            // every heading seen on this page; path|step -> the heading brought to
  var remember = function () {
    headings().forEach(function (h) { known[h.textContent.trim()] = true; });
  };
  // Next: the first heading not on the page at the step before, once the run has drawn it (else the step line).
  var toNewHeading = function (s, before, move) {
    var tries = 0;
    var look = function () {
      if (moved !== move) return;
      var fresh = headings().filter(function (h) { return !before[h.textContent.trim()]; })[0];
      if (fresh) {
        marks[path + "|" + s] = fresh.textContent.trim();
        scroll(titled(marks[path + "|" + s]), move);
      } else if (++tries < 25) {
        setTimeout(look, 200);
      } else {
        scroll(select('[class*="st-key-_class_step__"]'), move);
      }
    };
    moved = move;
    setTimeout(look, 150);
  };
  var number = function (selector, pattern) {
    var el = document.querySelector(selector);
    var m = el && pattern.exec(el.className);
    return m ? m[1] : null;
  };
  var check = function () {
    var n = number('[class*="st-key-_class_notice__"]', /st-key-_class_notice__([0-9]+)/);
    if (n !== null && n !== notice) {
      notice = n; scroll(select(".st-key-_class_question"), "q" + n); return;
    }
    var s = number('[class*="st-key-_class_step__"]', /st-key-_class_step__([0-9]+)/);
    if (s !== null && s !== step) {
      var samePage = location.pathname === path;
      if (step !== null && n === null) {
        var move = "s" + s + path;
        if (samePage && marks[path + "|" + s]) scroll(titled(marks[path + "|" + s]), move);
        else if (samePage && Number(s) > Number(step)) toNewHeading(s, Object.assign({}, known), move);
        else scroll(select('[class*="st-key-_class_step__"]'), move);
      }
      if (!samePage) known = {};
      step = s;
      path = location.pathname;
      return;
    }
    if (s !== null) remember();
  };
  var pending = null;
  new MutationObserver(function () {
    if (pending === null) pending = setTimeout(function () { pending = null; check(); }, 100);
  }).observe(document.body, {childList: true, subtree: true});
  document.addEventListener("click", function (e) {
    var a = e.target.closest && e.target.closest('a[href$="#class-question"]');
    if (!a) return;
    e.preventDefault();
    e.stopImmediatePropagation();
    var el = document.querySelector(".st-key-_class_question");
    if (el) bring(el);
  }, true);
  check();
})();
</script>
""")


def guide() -> None:
    """At the top of a follower's lesson page: the notice while the class answers a question they have not
    answered (its container's key tells the script a new question opened), and the script."""
    if not following():
        return
    poll = asking()
    if poll is not None and my_vote(poll) is None:
        last, count = st.session_state.get(_ASKED, (None, 0))
        if last != (poll.poll_id, poll.round):
            count += 1
            st.session_state[_ASKED] = ((poll.poll_id, poll.round), count)
        with st.container(key=f"_class_notice__{count}"):
            st.info(f"**The class is answering a question.** [Go to the question](#{QUESTION_ANCHOR})",
                    icon=":material/how_to_vote:")
    st.html(_GUIDE_JS, unsafe_allow_javascript=True)
