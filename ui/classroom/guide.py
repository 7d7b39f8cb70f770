"""Students who know where to look: when the class is asked a question, or the presenter steps, a follower's
view brings it into view, and a notice at the top of the page ("The class is answering a question", with a
link to it) stays until they answer.

The scroll is a constant script (``_GUIDE_JS``), installed once per page. It reads only the classes of two
keyed containers, with code-defined parts: the notice's (``_class_notice__<n>``, n counting the questions
this follower was asked) and the follower's step line (``_class_step__<step>``, ui.frame.Frame.steps). A new
notice brings the question into view; a new step number, the step line.
"""

from __future__ import annotations

import streamlit as st

from ui import streamlit_private as private
from ui.classroom.polls import asking, my_vote
from ui.classroom.session import following

QUESTION_ANCHOR = "class-question"  # the notice's link: the script turns a click on it into a scroll
_ASKED = "_class_asked"            # (question, round) last noticed, and how many this follower was asked

# Static script: waits for the target to be drawn, brings it to the top of the view (below Streamlit's header),
# and holds it there a moment while charts above it finish growing. A click on the notice's link scrolls too.
_GUIDE_JS = private.frontend("""
<script>
(function () {
  if (window.__attnGuide) return;
  window.__attnGuide = true;
  var bring = function (el) { el.style.scrollMarginTop = "4.5rem"; el.scrollIntoView({block: "start"}); };
  var moved = null, notice = null, step = null;
  var scroll = function (selector, move) {
    var tries = 0, held = 0;
    moved = move;
    var go = function () {
      if (moved !== move || ++tries > 80) return;
      var el = document.querySelector(selector);
      if (!el || el.getBoundingClientRect().height === 0) { setTimeout(go, 150); return; }
      var top = el.getBoundingClientRect().top;
      if (held === 0 || top < 0 || top > window.innerHeight / 2) bring(el);
      if (++held < 8) setTimeout(go, 200);
    };
    setTimeout(go, 100);
  };
  var number = function (selector, pattern) {
    var el = document.querySelector(selector);
    var m = el && pattern.exec(el.className);
    return m ? m[1] : null;
  };
  var check = function () {
    var n = number('[class*="st-key-_class_notice__"]', /st-key-_class_notice__([0-9]+)/);
    if (n !== null && n !== notice) { notice = n; scroll(".st-key-_class_question", "q" + n); return; }
    var s = number('[class*="st-key-_class_step__"]', /st-key-_class_step__([0-9]+)/);
    if (s !== null && s !== step) {
      if (step !== null && n === null) scroll('[class*="st-key-_class_step__"]', "s" + s);
      step = s;
    }
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
