"""The live classroom in the app: a presenter starts a room, students follow it, the class answers polls.

Every page calls ``sidebar(slug)`` near its top (through the lesson frame, or the home page itself) and
``publish(slug)`` at its end. The room itself lives in a ``classroom.store.RoomStore`` shared by every
session of this process (``room_store()``). The parts, each by its role:

- ``session``: this session's classroom state, one ``ClassState`` under one private session key.
- ``rooms``: the process's room store, and a presenter's change announced to every follower.
- ``threads``: the listener and the watcher, started in one place (``ensure_running``).
- ``joining``: a typed code or a link's ``?room=`` / ``?key=``, validated before any lookup.
- ``presenting``: starting and ending a class, publishing the presenter's view, the presenter's panel.
- ``follow``: the room's view applied to a follower, at the top of a run.
- ``screens``: several presenter screens of one class kept on the room's view; a closed presenter browser's
  "Resume presenting class CODE".
- ``sections``: a lesson section in a class (both roles), at the top and the end of its fragment.
- ``polls``: the class's questions, for the presenter and for students.
- ``guide``: a follower told where to look (a notice while the class answers, the scroll to it).
- ``console``: the presenter console (speaker notes, the next step, the clock and counts) on a presenter's own
  screen, above the step bar (``ui.frame.Frame.steps`` calls ``console.draw``).
- ``watcher``: the process's one thread that checks the followed rooms (``Watcher``).
- ``sidebar_ui``: the Classroom section of the sidebar and the student's following bar.

Run-time flow, from a presenter's move to a follower's redraw (tests/test_classroom_flow.py checks that
every name below exists):

0. Every run of every session starts in ``ui.classroom.sidebar_ui.sidebar``, which first calls
   ``ui.classroom.threads.ensure_running``: once per process it registers the listener
   (``classroom.store.RoomStore.listen`` with ``ui.wake_queue.WakeQueue.put``) and, under a server, starts
   the watcher (``ui.classroom.watcher.start_watcher``). A follower's full run notes it in the process's
   registry (``ui.classroom.follow.register`` calls ``ui.wake.follow``), and each lesson section notes its
   fragment id (``ui.classroom.sections.section_starts`` calls ``ui.wake.section``).
1. The presenter moves a control; the presenter's browser reruns the page, or only the lesson section
   around the control (``ui.frame.Frame.fragment``).
2. At the end of that run the view is published: ``ui.frame.Frame.footer`` (or a page's own
   ``ui.classroom.presenting.publish`` call) for a full run, ``ui.classroom.sections.section_ends`` for a
   section's run, naming the section; what no run published (a page's other fragments) goes out from the
   presenter's own fragment, ``ui.classroom.presenting._presenter_tick``, within ``PRESENT_EVERY_S``.
   ``ui.classroom.presenting.publish`` reads the controls with ``ui.controls.lesson_controls`` and writes
   the view with ``classroom.store.RoomStore.publish``, which bumps the room's version.
3. ``ui.classroom.rooms.changed`` notes the presenter's session (``ui.wake_queue.WakeQueue.presenting``: no
   wake goes out while its runs go on, for up to ``HOLD_MAX_S``) and announces the room
   (``classroom.store.RoomStore.announce``).
4. In one process the store calls its listener, ``ui.wake_queue.WakeQueue.put``, in the presenter's run;
   ``put`` only queues the room and returns. With Redis, ``classroom.redis_changes.Changes.announce``
   PUBLISHes the room, and on every replica the listener's thread (``classroom.redis_changes.Changes.listen``)
   calls ``ui.wake_queue.WakeQueue.put`` for its own followers.
5. The queue's thread (``ui.wake_queue.WakeQueue._run``, started by the first wake in
   ``ui.wake_queue.WakeQueue._start``) turns each room into its local followers (``ui.wake.Followers.members``,
   in ``ui.wake_queue.WakeQueue._next``) and wakes at most ``WAKE_AT_ONCE`` at a time with
   ``ui.wake.Followers.send``, the next as soon as a woken run is over (``ui.wake.Turn.over``).
6. ``ui.wake.Followers.send`` has the server's event loop call ``ui.wake._rerun``, which reruns the follower's
   session (``ui.streamlit_private.rerun_session``): only the section's fragment where the follower drew
   that section, else its whole page (the page a follow has just switched it to, while its browser has not
   said it is there).
7. The follower's run applies the room's view before drawing a widget. A full run:
   ``ui.classroom.follow.register`` -> ``ui.classroom.follow._follow_now`` reads
   ``classroom.store.RoomStore.snapshot``; ``ui.classroom.follow._apply`` sets the step and the controls
   (``ui.controls.set_lesson_controls``) or switches page (``ui.wake.switching``, then ``streamlit.switch_page``
   with the controls in the URL). A section's run: ``ui.classroom.sections.section_starts`` sets the controls
   when the change lies inside the section, else reruns the whole page. Either notes the version applied
   (``ui.wake.note``).
8. The page draws its widgets (``ui.frame.Frame.control``), each taking the presenter's value from the
   session state, drawn disabled while the session follows: the follower's redraw.

9. The fallback, for a wake lost (a dropped Redis message, a busy server), the store away or back, a class
   ended: every ``FOLLOW_QUIET_S`` the watcher's thread (``ui.classroom.watcher.Watcher.run``) runs
   ``ui.classroom.watcher.Watcher.check``: one ``classroom.store.RoomStore.version`` read per followed room,
   a heartbeat per connected follower (``classroom.store.RoomStore.heartbeat``), and for each follower still
   behind since the last round (``ui.classroom.watcher.Watcher._stuck``) ``ui.wake_queue.WakeQueue.ask``,
   which queues it as in step 5; steps 6 to 8 follow. A follower whose class filled while its beat lapsed
   is told so at that run (``ui.classroom.threads.full``, from ``ui.classroom.follow.register``).
"""

from __future__ import annotations

import streamlit as st  # noqa: F401  (tests patch st through this module, as before the split)

from ui.classroom import console
from ui.classroom.follow import followed_step
from ui.classroom.guide import guide
from ui.classroom.joining import JOIN_TRIES, join
from ui.classroom.polls import asking, class_poll, class_summary, my_vote, poll_revealed, presenter_poll, student_poll
from ui.classroom.presenting import app_root, join_link, publish, qr_png
from ui.classroom.rooms import room_store
from ui.classroom.sections import section_ends, section_starts
from ui.classroom.session import ClassState, following, holds_controls, role, state
from ui.classroom.sidebar_ui import sidebar
from ui.classroom.threads import ensure_running
from ui.classroom.watcher import FOLLOW_QUIET_S, Watcher, start_watcher

__all__ = [
    "FOLLOW_QUIET_S", "JOIN_TRIES", "ClassState", "Watcher", "app_root", "asking", "class_poll", "class_summary",
    "console",
    "ensure_running", "followed_step", "following", "guide", "holds_controls", "join", "join_link", "my_vote",
    "poll_revealed", "presenter_poll", "publish", "qr_png", "role", "room_store", "section_ends", "section_starts",
    "sidebar", "start_watcher", "state", "student_poll",
]
