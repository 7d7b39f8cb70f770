"""Students who know where to look: when the class is asked a question, or the presenter steps, a follower's
view brings it into view, and a notice at the top of the page ("The class is answering a question", with a
link to it) stays until they answer.

The scroll is a constant script (``_GUIDE_JS``), installed once per page: it watches for the marker this
module draws (an empty container keyed ``_class_guide__<what>__<move>``, with code-defined parts only) and
brings the question or the step line into view once per move.
"""

from __future__ import annotations

import streamlit as st

from ui import streamlit_private as private
from ui.classroom.polls import QUESTION_KEY, asking, my_vote
from ui.classroom.session import following, state

STEP_KEY = "_class_step"           # the follower's "Step n of m" line (ui.frame.Frame.steps)
QUESTION_ANCHOR = "class-question"  # the notice's link: the script turns a click on it into a scroll
_LAST = "_class_guided"            # the (page, step, question, round) this follower's view was last brought to

# Static script: on each new marker (what: "q" the question, "s" the step line; move: the room's version), waits
# for the target to be drawn and the page to settle, brings it to the top of the view (below Streamlit's
# header), and holds it there a moment while charts above it finish growing. A click on the notice's link
# scrolls to the question too.
_GUIDE_JS = private.frontend("""
<script>
(function () {
  if (window.__attnGuide) return;
  window.__attnGuide = true;
  var targets = {q: ".st-key-_class_question", s: ".st-key-_class_step"};
  var bring = function (el) { el.style.scrollMarginTop = "4.5rem"; el.scrollIntoView({block: "start"}); };
  var moved = null;
  var scroll = function (what, move) {
    var tries = 0, held = 0;
    var go = function () {
      if (moved !== move || ++tries > 80) return;
      var el = document.querySelector(targets[what]);
      var busy = document.querySelector('[data-testid="stSkeleton"]');
      if (!el || busy || el.getBoundingClientRect().height === 0) { setTimeout(go, 150); return; }
      var top = el.getBoundingClientRect().top;
      if (held === 0 || top < 0 || top > window.innerHeight / 2) bring(el);
      if (++held < 8) setTimeout(go, 200);
    };
    setTimeout(go, 100);
  };
  var check = function () {
    var marker = document.querySelector('[class*="st-key-_class_guide__"]');
    var m = marker && /st-key-_class_guide__([qs])__([0-9]+)/.exec(marker.className);
    if (!m || moved === m[2] + m[1]) return;
    moved = m[2] + m[1];
    scroll(m[1], moved);
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
    var el = document.querySelector(targets.q);
    if (el) bring(el);
  }, true);
  check();
})();
</script>
""")


def guide() -> None:
    """At the top of a follower's lesson page: the notice while the class answers a question they have not
    answered, and the scroll to the question (or the presenter's new step) when it changed."""
    if not following():
        return
    snap, poll = state().snap, asking()
    waiting = poll is not None and my_vote(poll) is None
    if waiting:
        st.info(f"**The class is answering a question.** [Go to the question](#{QUESTION_ANCHOR})",
                icon=":material/how_to_vote:")
    now = (snap.page, snap.step, poll.poll_id if poll else None, poll.round if poll else 0) if snap else None
    last = st.session_state.get(_LAST)
    st.session_state[_LAST] = now
    target = ""
    if now is not None and now != last:
        if waiting:
            target = QUESTION_KEY
        elif last is not None and now[0] == last[0] and now[1] != last[1] and snap.step > 0:
            target = STEP_KEY
    st.html(_GUIDE_JS, unsafe_allow_javascript=True)
    if target and snap is not None:
        st.container(key=f"_class_guide__{'q' if target == QUESTION_KEY else 's'}__{snap.version}")
