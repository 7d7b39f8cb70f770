"""Wake the followers of a room that live in this server process, the moment the presenter changes it.

Without this, a follower would learn of a change only at the process's next check of the room
(``ui.classroom.Watcher``, every few seconds). With it, the presenter's change asks each local
follower's session for a rerun straight away, the way Streamlit's own run-on-save reruns a session
after a file changes: the page runs again with the widget values of its last run, and applies the
presenter's view as it starts. The check stays for what a wake cannot reach: a dropped wake or Redis
message, a store that went away, a room that expired.

Streamlit has no public call for "rerun that other session", so this reaches into its runtime (the
session manager and each session's last client state) through ``ui.streamlit_private``, pinned by
requirements.txt's streamlit version. Should that ever fail, it fails closed: ``Followers.send`` does nothing,
and a follower falls behind until its own next run (tests/test_streamlit_private.py exercises what it uses).

A presenter's change does not wake its followers from the presenter's own run: the room store's listener is
``ui.wake_queue``, whose one thread wakes them a few at a time through ``Followers.send``.
"""

from __future__ import annotations

import logging
import threading
import time

from ui import streamlit_private as private
from ui.lru import once

_LOGGER = logging.getLogger(__name__)


TURN_MAX_S = 5.0              # a woken run not over after this long frees its turn anyway (ui.wake_queue)

Section = tuple[str, str]     # (page slug, fragment function name): one lesson fragment, as every session names it


class Followers:
    """Which of this process's sessions follow which room (each session one room at a time), and the
    fragment id each follower's lesson sections got in its own last run (ids depend on where a fragment
    sits on the page, so a follower's differ from the presenter's)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._rooms: dict[str, set[str]] = {}          # room code -> session ids
        self._session_room: dict[str, str] = {}        # session id -> room code
        self._sections: dict[str, dict[Section, str]] = {}   # session id -> section -> its fragment id
        self._moved: dict[str, tuple[str, str]] = {}   # session id -> (page hash, query string) it switched to
        self._seen: dict[str, tuple[int | None, str | None]] = {}   # session id -> (version applied, follower id)

    def follow(self, code: str, sid: str) -> None:
        with self._lock:
            old = self._session_room.get(sid)
            if old == code:
                return
            if old is not None:
                self._rooms.get(old, set()).discard(sid)
            self._session_room[sid] = code
            self._rooms.setdefault(code, set()).add(sid)

    def section(self, sid: str, section: Section, fragment_id: str) -> None:
        """Note the fragment id of a lesson section in this follower's page (the last page it drew)."""
        with self._lock:
            if sid not in self._session_room:
                return
            known = self._sections.setdefault(sid, {})
            if section[0] not in {slug for slug, _ in known}:
                known.clear()                          # another page: its sections are gone
            known[section] = fragment_id

    def moving(self, sid: str, page_hash: str, query_string: str) -> None:
        """Note that this follower's run is switching it to another page (``st.switch_page``). Its browser
        tells the server of the new page only with its next message; until then a wake must rerun the page
        the follower is going to, not the one in its last client state (which would undo the switch)."""
        with self._lock:
            if sid in self._session_room:
                self._moved[sid] = (page_hash, query_string)

    def note(self, sid: str, seen: int | None, me: str | None) -> None:
        """The room version this follower has applied, and its follower id (for the watcher's heartbeats)."""
        with self._lock:
            if sid in self._session_room:
                self._seen[sid] = (seen, me)

    def rooms(self) -> list[str]:
        """The rooms some session of this process follows."""
        with self._lock:
            return list(self._rooms)

    def members(self, code: str) -> list[tuple[str, int | None, str | None]]:
        """(session id, version applied, follower id) for each local follower of ``code``."""
        with self._lock:
            return [(sid, *self._seen.get(sid, (None, None))) for sid in self._rooms.get(code, ())]

    def forget(self, sid: str) -> None:
        with self._lock:
            self._sections.pop(sid, None)
            self._moved.pop(sid, None)
            self._seen.pop(sid, None)
            code = self._session_room.pop(sid, None)
            if code is not None:
                members = self._rooms.get(code, set())
                members.discard(sid)
                if not members:
                    self._rooms.pop(code, None)

    def count(self, code: str) -> int:
        with self._lock:
            return len(self._rooms.get(code, ()))

    def alive(self, sids: list[str]) -> list[str]:
        """Those of ``sids`` whose browser is still connected; the others are forgotten here (a closed tab's
        session stays in Streamlit's storage for a while, but no longer among its active sessions). Without a
        server to ask (AppTest, unit tests) every one counts as alive."""
        try:
            server = private.server()
        except Exception:                                  # Streamlit moved it: keep them (as before)
            return list(sids)
        if server is None:
            return list(sids)
        live = []
        for sid in sids:
            if server.session(sid) is None:
                self.forget(sid)
            else:
                live.append(sid)
        return live

    def send(self, sid: str, section: Section | None = None) -> Turn | None:
        """Ask one local follower to rerun; its ``Turn`` (to see when that run is over), or None if it was not
        asked (it follows nothing, its browser left, or there is no server). Never raises."""
        with self._lock:
            if sid not in self._session_room:
                return None
            fragment_id = self._sections.get(sid, {}).get(section) if section else None
            moved = self._moved.get(sid)
        try:
            server = private.server()
        except Exception as err:                           # Streamlit's internals moved: rely on the checks
            _LOGGER.warning("Cannot wake followers (%s); they catch up at the next check of their room.", err)
            return None
        if server is None:
            return None
        session = server.session(sid)
        if session is None:
            self.forget(sid)
            return None
        if moved is not None and private.client_page_hash(session) == moved[0]:
            with self._lock:                               # its browser has said it is there: wake as usual
                if self._moved.get(sid) == moved:
                    self._moved.pop(sid)
            moved = None
        turn = Turn(sid, session)
        server.call_soon(_rerun, session, fragment_id, moved, turn.called)
        return turn


class Turn:
    """One woken follower's run: over once the server's loop has asked for it (``called``) and the session
    runs no script any more (its messages are then queued for its browser), or after ``TURN_MAX_S``."""

    def __init__(self, sid: str, session: object) -> None:
        self.sid, self.session = sid, session
        self.called = threading.Event()
        self.started = time.monotonic()

    def over(self, now: float) -> bool:
        if now - self.started > TURN_MAX_S:
            return True
        return self.called.is_set() and not private.running(self.session)


@once
def followers() -> Followers:
    """The process's one registry (kept whatever any client asks, like the rooms it follows)."""
    return Followers()


def session_id() -> str | None:
    """The id of the session running this script (None outside one)."""
    return private.session_id()


def follow(code: str) -> None:
    """Note that the session running this script follows room ``code`` (and no other)."""
    sid = session_id()
    if sid is not None:
        followers().follow(code, sid)


def forget() -> None:
    """This session follows no room any more."""
    sid = session_id()
    if sid is not None:
        followers().forget(sid)


def switching(slug: str, params: dict[str, str | list[str]]) -> None:
    """This follower's run is about to ``st.switch_page`` to page ``slug`` with ``params`` (see ``moving``)."""
    from urllib.parse import urlencode

    from ui import navigation

    sid = session_id()
    try:
        page_hash = private.page_hash(navigation.page(slug).url_path)   # the page st.navigation was given
    except Exception as err:                               # not found, or Streamlit moved it: wakes as before
        _LOGGER.warning("A follower's page switch was not noted (%r); a wake may delay it.", err)
        return
    if sid is not None:
        followers().moving(sid, page_hash, urlencode(params, doseq=True))


def note(seen: int | None, me: str | None) -> None:
    """This follower has applied room version ``seen``; ``me`` is its follower id."""
    sid = session_id()
    if sid is not None:
        followers().note(sid, seen, me)


def section(name: Section) -> None:
    """Inside a lesson fragment's run: note its fragment id for this session, if it follows a room."""
    sid, fragment_id = session_id(), current_fragment_id()
    if sid is not None and fragment_id:
        followers().section(sid, name, fragment_id)


def current_fragment_id() -> str | None:
    """The id of the fragment whose body is running now (None outside one, or if Streamlit moved it)."""
    return private.current_fragment_id()


def fragment_run() -> bool:
    """True while this script run reruns fragments only (not the whole page)."""
    return private.fragment_run()


def widget_keys() -> frozenset[str] | None:
    """The user keys of the widgets this run has drawn so far (None if Streamlit moved them)."""
    return private.widget_keys()


def server() -> private.Server | None:
    """This process's server, or None (none, or Streamlit moved it: then nothing waits on a session)."""
    try:
        return private.server()
    except Exception:
        return None


def running(session) -> bool:
    """Whether the session's run (or a rerun it was asked for) is still going."""
    return private.running(session)


def _rerun(session, fragment_id: str | None = None, moved: tuple[str, str] | None = None,
           called: threading.Event | None = None) -> None:
    """On the server's event loop: run the session's page again with its last widget values (even when its
    last run was a fragment's, such as a lesson section's), less any button press or other one-off event
    that run carried: a wake must never press a button twice. With ``fragment_id`` (one the session still
    holds), only that fragment reruns. With ``moved`` (the page a follow switched the session to, and its
    query string), the whole of that page runs while the browser has not yet said it is there: Streamlit
    folds a pending rerun into the newer request's page, so the old page would win."""
    try:
        private.rerun_session(session, fragment_id, moved)
    except Exception as err:
        _LOGGER.warning("A follower's wake failed (%s); it catches up at the next check of its room.", err)
    finally:
        if called is not None:
            called.set()
