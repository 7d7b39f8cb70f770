"""The live classroom in the app: a presenter starts a room, students follow it, the class answers polls.

Every page calls ``sidebar(slug)`` near its top (through the lesson frame, or the home page itself) and
``publish(slug)`` at its end. The room itself lives in a ``classroom.store.RoomStore`` shared by every
session of this process (``room_store()``). The parts, each by its role:

- ``session``: this session's classroom state, one ``ClassState`` under one private session key.
- ``rooms``: the process's room store, and a presenter's change announced to every follower.
- ``joining``: a typed code or a link's ``?room=`` / ``?key=``, validated before any lookup.
- ``presenting``: starting and ending a class, publishing the presenter's view, the presenter's panel.
- ``follow``: the room's view applied to a follower, at the top of a run or of a lesson section.
- ``polls``: the class's questions, for the presenter and for students.
- ``guide``: a follower told where to look (a notice while the class answers, the scroll to it).
- ``watcher``: the process's one thread that checks the followed rooms (``Watcher``).
- ``sidebar_ui``: the Classroom section of the sidebar and the student's following bar.

A presenter's change wakes the followers in this process at once, from one thread, after the presenter's
own run (``ui.wake_queue``, through ``ui.wake``); with Redis, every replica's listener wakes its own; the
watcher wakes whoever a wake missed.
"""

from __future__ import annotations

import streamlit as st  # noqa: F401  (tests patch st through this module, as before the split)

from ui.classroom.follow import followed_step, section_ends, section_starts
from ui.classroom.guide import guide
from ui.classroom.joining import JOIN_TRIES, join
from ui.classroom.polls import asking, class_poll, class_summary, my_vote, poll_revealed, presenter_poll, student_poll
from ui.classroom.presenting import app_root, join_link, publish, qr_png
from ui.classroom.rooms import room_store
from ui.classroom.session import ClassState, following, holds_controls, role, state
from ui.classroom.sidebar_ui import sidebar
from ui.classroom.watcher import FOLLOW_QUIET_S, Watcher, start_watcher

__all__ = [
    "FOLLOW_QUIET_S", "JOIN_TRIES", "ClassState", "Watcher", "app_root", "asking", "class_poll", "class_summary",
    "followed_step", "following", "guide", "holds_controls", "join", "join_link", "my_vote", "poll_revealed",
    "presenter_poll", "publish", "qr_png", "role", "room_store", "section_ends", "section_starts", "sidebar",
    "start_watcher", "state", "student_poll",
]
