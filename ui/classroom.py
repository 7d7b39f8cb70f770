"""The live classroom in the app: a presenter starts a room, students follow it, the class answers polls.

Every page calls ``sidebar(slug)`` near its top (through the lesson frame, or the home page itself) and
``publish(slug)`` at its end. The room itself lives in a ``classroom.store.RoomStore`` shared by every
session of this process (``room_store()``).

- The presenter publishes the page, the presenter step and the lesson controls (``ui.controls``, the
  same definition "Link to this view" uses) at the end of each run, and from a small fragment every
  ``PRESENT_EVERY_S`` (a control inside a page's own fragment reruns that fragment only).
- A presenter's change wakes the followers in this process at once (``ui.wake``); with Redis, every
  replica's listener wakes its own. A thread per process (``Watcher``) reads each followed room's
  version every ``FOLLOW_QUIET_S``, keeps its followers' heartbeats, and wakes whoever is behind (a wake
  missed, the store away or back, the class ended): an idle student costs nothing. When the version
  changed, the whole
  app reruns and ``sidebar`` applies the snapshot before the page draws a widget:
  same page, widget values through the session state; another page, ``st.switch_page`` with the
  controls in the URL, exactly as a shared link opens it.

Session keys all start with "_class", so none of them is a lesson control.
"""

from __future__ import annotations

import logging
import math
import secrets
import threading
import time
from urllib.parse import urlencode

import segno
import streamlit as st
from streamlit import runtime

from classroom.select import open_store
from classroom.store import (
    NotPresenter,
    RoomError,
    RoomFull,
    RoomStore,
    Snapshot,
    StoreUnavailable,
    UnknownRoom,
    normal_code,
)
from figures.classroom import poll_figure
from ui import controls, navigation, present, wake
from ui.content import Check, page_index
from ui.inputs import literal
from ui.lru import once

_LOGGER = logging.getLogger(__name__)

FOLLOW_QUIET_S = 5.0          # the process's check on its followers' rooms (Watcher): wakes do the rest
PRESENT_EVERY_S = 0.5         # the presenter's publish check and follower count
POLL_EVERY_S = 1.0            # the presenter's live chart
JOIN_TRIES, JOIN_WINDOW_S = 5, 60.0   # unknown codes a session may try per window
MAX_KEY_CHARS = 64

_ROLE = "_class_role"          # "presenter" or "student"
_CODE = "_class_code"
_KEY = "_class_key"            # the presenter's secret key (presenter sessions only)
_FOLLOWING = "_class_following"
_SEEN = "_class_seen"          # the snapshot version this follower last applied
_SNAP = "_class_snap"          # that snapshot
_ME = "_class_me"              # this session's anonymous follower id
_FAILS = "_class_fails"        # times of recent joins with unknown codes
_NOTICE = "_class_notice"      # (kind, text): one message, shown once
_PUBLISHED = "_class_published"
_POLL = "_class_poll"          # presenter: (poll_id, options, revealed) of the question asked
_MID_RUN = "_class_mid_run"    # presenter: a full run has started and not yet published
_OFFLINE = "_class_offline"    # the shared store (Redis) could not be reached on the last try
_ENDED = "_class_ended"        # the code of the class that ended under this session (never rejoined by URL)
_SECTIONS = "_class_sections"  # follower: (slug, fragment name) -> widget keys that section drew last run

RECONNECTING = "Reconnecting to the class…"
# The store came back without the room (a Redis restart without persistence loses every room).
LOST = ("The connection to the class came back, but the class itself was lost meanwhile. This page stays "
        "as it is; ask the presenter for the new class code.")
LOST_PRESENTER = ("The connection to the class came back, but the class itself was lost meanwhile: "
                  "start a new class and give your students its new code.")


@once
def room_store() -> RoomStore:
    """One store per server process, kept whatever any client asks (a cleared cache would end every class):
    Redis when ATTENTION_REDIS_URL or ``[classroom] redis_url`` in .streamlit/secrets.toml names one
    (replicas share the rooms), else in-process."""
    try:
        secret = st.secrets.get("classroom", {}).get("redis_url")
    except (FileNotFoundError, AttributeError):         # no secrets file, or no [classroom] table in it
        secret = None
    try:
        return open_store(secret if isinstance(secret, str) else None)
    except ValueError as err:                           # a mistyped URL: say so in the log, keep serving
        import logging

        from classroom.memory import MemoryRoomStore

        logging.getLogger(__name__).error("classroom: %s; using the in-process room store", err)
        return MemoryRoomStore()


def _ss():
    return st.session_state


def role() -> str | None:
    return _ss().get(_ROLE)


def following() -> bool:
    return role() == "student" and bool(_ss().get(_FOLLOWING))


def holds_controls() -> bool:
    """The room sets this session's lesson controls on every run: it follows a class it can reach. Its
    controls are then drawn disabled, since a move of its own would be put back by the room's value."""
    return following() and not _ss().get(_OFFLINE)


def _notice(kind: str, text: str) -> None:
    _ss()[_NOTICE] = (kind, text)


def _leave(message: str | None = None) -> None:
    """Back to learning alone: the page stays as it is."""
    if role() == "student":
        wake.forget()
    for key in (_ROLE, _CODE, _KEY, _FOLLOWING, _SEEN, _SNAP, _PUBLISHED, _POLL, _MID_RUN, _OFFLINE, _ENDED,
                _SECTIONS):
        _ss().pop(key, None)
    st.query_params.pop("room", None)
    st.query_params.pop("key", None)
    if message:
        _notice("warning", message)


# --- arriving: ?room= and ?key= ---------------------------------------------------------------------------

def _arrive() -> None:
    """Read ?room= (and a presenter link's ?key=) once: validate before any lookup, then join or present."""
    raw = st.query_params.get_all("room")
    if not raw:
        return
    code = normal_code(raw[-1]) if len(raw) == 1 else None
    if code is not None and _ss().get(_CODE) == code and role() is not None:
        return                                          # already in this class: nothing to do
    if code is not None and code == _ss().get(_ENDED):  # a rerun still carrying the ended class's URL
        st.query_params.pop("room", None)
        return
    key = st.query_params.get("key")
    st.query_params.pop("key", None)                    # never left in the address bar
    if code is None:
        st.query_params.pop("room", None)
        _notice("warning", "The link's class code is not one this app makes (6 letters and digits), "
                           "so you are not following a class.")
        return
    if role() == "presenter":                           # a presenter keeps their own class
        st.query_params.pop("room", None)
        return
    if key is not None:
        try:
            presenter = len(key) <= MAX_KEY_CHARS and room_store().is_presenter(code, key)
        except StoreUnavailable:
            st.query_params["key"] = key                # a reload tries again once the class is reachable
            _notice("warning", "The class cannot be reached right now: reload this link in a moment.")
            return
        if presenter:
            _leave()
            _ss().update({_ROLE: "presenter", _CODE: code, _KEY: key})
            _notice("success", f"You are presenting class {code} again.")
            try:                                        # a question still open stays live on this screen
                poll = room_store().snapshot(code, time.time()).poll
            except RoomError:
                poll = None
            if poll is not None:
                _ss()[_POLL] = (poll.poll_id, poll.options, poll.revealed)
            return
        _notice("warning", "That presenter link's key does not match the class, so you joined it as a student.")
    join(code)


def _limited(now: float) -> bool:
    fails = [t for t in _ss().get(_FAILS, []) if now - t < JOIN_WINDOW_S]
    _ss()[_FAILS] = fails
    return len(fails) >= JOIN_TRIES


def join(code_text: str) -> bool:
    """Follow the class with this code (as typed or linked); on failure, one message and no class."""
    code = normal_code(code_text)
    if code is None:
        st.query_params.pop("room", None)
        _notice("warning", "A class code is 6 letters and digits, like K7MQ2P.")
        return False
    now = time.time()
    if _limited(now):
        st.query_params.pop("room", None)
        _notice("warning", f"Too many codes that matched no class: wait a minute, then try again "
                           f"(at most {JOIN_TRIES} a minute).")
        return False
    me = _ss().setdefault(_ME, secrets.token_urlsafe(12))
    try:
        room_store().heartbeat(code, me, now)
    except UnknownRoom:
        _ss()[_FAILS].append(now)
        _leave("There is no class with that code: it may have ended, or the code is mistyped.")
        return False
    except StoreUnavailable:                            # join now; the watcher wakes it when the store is back
        _leave()
        _ss().update({_ROLE: "student", _CODE: code, _FOLLOWING: True, _OFFLINE: True})
        st.query_params["room"] = code
        return True
    except RoomError as err:
        _leave(str(err))
        return False
    _leave()
    _ss().update({_ROLE: "student", _CODE: code, _FOLLOWING: True})
    st.query_params["room"] = code
    return True


# --- following -----------------------------------------------------------------------------------------------

def _typed(text: str, like: object) -> object:
    """``text`` (as a link carries it) as the type of the widget's current value; ValueError if it is not one."""
    if isinstance(like, bool):
        if text not in ("true", "false"):
            raise ValueError(text)
        return text == "true"
    if isinstance(like, int):
        return int(text)
    if isinstance(like, float):
        value = float(text)
        if not math.isfinite(value):
            raise ValueError(text)
        return value
    return text


def _apply(slug: str, snap: Snapshot) -> bool:
    """Make this session show the snapshot: switch page (as a link would open it) or set the widgets.

    A switch is counted as applied only by the run on the new page: a rerun of the old page that overtakes
    it (a message its browser sent before it knew of the switch) then switches again, where marking the
    version seen first left the student on the old page until the presenter's next change."""
    ss = _ss()
    ss[_SNAP] = snap
    switching = bool(snap.page) and snap.page != slug and snap.page in {p.slug for p in page_index()}
    if not switching:
        ss[_SEEN] = snap.version                        # the caller (_register) tells the watcher
    if not snap.page:
        return False
    if snap.step:
        ss[controls.step_key(snap.page)] = snap.step
    if snap.page != slug:
        if not switching:
            return False
        params = {"room": ss[_CODE], **snap.controls}
        if present.active():
            params["present"] = "1"
        wake.switching(snap.page, params)
        st.switch_page(navigation.page(snap.page), query_params=params)
    _set_controls(snap)
    return True


def _set_controls(snap: Snapshot) -> None:
    """This session's lesson controls set to the snapshot's, before their widgets are drawn in this run."""
    ss = _ss()
    for name, values in snap.controls.items():
        if not controls.is_lesson_control(name):
            continue
        current = ss[name] if name in ss else None
        try:
            if name not in ss:
                st.query_params[name] = values if len(values) != 1 else values[0]
            elif isinstance(current, list | tuple):
                like = current[0] if current else ""
                value = type(current)(_typed(v, like) for v in values)
                if value != current:
                    ss[name] = value
            elif len(values) == 1 and (value := _typed(values[0], current)) != current:
                ss[name] = value
        except (ValueError, TypeError):
            continue                                    # a value this session's widget cannot take


def _follow_now(slug: str) -> bool:
    """At the top of a run: apply the room's snapshot if it changed since this session last applied one."""
    try:
        snap = room_store().snapshot(_ss()[_CODE], time.time())
    except UnknownRoom:
        code, lost = _ss()[_CODE], _ss().get(_OFFLINE)
        _leave(LOST if lost else None)
        if not lost:
            _ss()[_ENDED] = code                        # said on every run until another class (sidebar)
        return False
    except StoreUnavailable:
        _ss()[_OFFLINE] = True
        return False
    _ss().pop(_OFFLINE, None)
    if snap.version == _ss().get(_SEEN):
        _hold(slug, snap)
        return False
    return _apply(slug, snap)


def _hold(slug: str, snap: Snapshot) -> None:
    """A run of a view already applied: its controls set to the room's again. The run may come from a message
    the browser sent before it had the presenter's values, and a run starts from the browser's widget values:
    without this, such a run would put the old ones back, with the version counted as seen, until the
    presenter's next change. (A student who wants to move the controls explores on their own.)"""
    if snap.page == slug:
        _set_controls(snap)


def _changed(code: str, section: wake.Section | None = None) -> None:
    """The presenter changed room ``code`` (only inside ``section``, when named): wake its followers now.
    Through Redis, every replica's listener wakes its own (this one's included); in one process, directly."""
    announce = getattr(room_store(), "announce", None)
    if announce is not None:
        announce(code, section)
    else:
        wake.wake(code, section)


_WATCH_THREAD = "attention-classroom-watch"


def _running(name: str) -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == name and t.is_alive()]


@once
def _listening() -> bool:
    """Once per process, for a store shared between replicas: wake local followers of any changed room
    (the listener thread holds the registry itself: it runs outside any script run)."""
    listen = getattr(room_store(), "listen", None)
    if listen is None:
        return False
    listen(wake.followers().wake)
    return True


class Watcher:
    """This process's check on the rooms its students follow, every ``FOLLOW_QUIET_S`` on a daemon thread:
    one version read per room (not per student), a heartbeat for each local follower, and a wake for
    each follower still behind the room since the last round (a wake missed, a Redis message lost), or
    for every follower of a room that became unreachable, came back, or ended (their next run says so).

    It replaces a timer fragment (``run_every``) on each student's page. Besides costing an idle student
    nothing, that removes a race: a timer run the browser sent while the old page was current could reach
    the server after a follow had switched the page, run under the old page, and leave the student's
    browser with a blank page (docs/RELIABILITY.md)."""

    def __init__(self, store: RoomStore, registry: wake.Followers) -> None:
        self.store, self.registry = store, registry
        self.offline: set[str] = set()                  # rooms the last check could not reach
        self._lock = threading.Lock()
        self._full: dict[str, str] = {}                 # session id -> why it stopped following
        self._behind: dict[str, tuple[int | None, int]] = {}   # follower behind -> (its version, the room's)
        self.stop = threading.Event()                   # set when a newer watcher takes over

    def check(self, now: float) -> int:
        """One round over the rooms; returns how many followers it asked to rerun."""
        asked, present = 0, set()
        for code in self.registry.rooms():
            members = self.registry.members(code)
            everyone = [sid for sid, _, _ in members]
            present.update(everyone)
            try:
                version = self.store.version(code, now)
                for sid, _, me in members:
                    if me is None:
                        continue
                    try:
                        self.store.heartbeat(code, me, now)
                    except RoomFull as err:            # the class filled while this student's beat lapsed
                        with self._lock:
                            self._full[sid] = str(err)
                        asked += self.registry.ask([sid])
            except StoreUnavailable:
                if code not in self.offline:           # once: their bar then says it is reconnecting
                    self.offline.add(code)
                    asked += self.registry.ask(everyone)
                continue
            except RoomError:                          # ended or expired: their next run says so
                asked += self.registry.ask(everyone)
                continue
            back = code in self.offline
            self.offline.discard(code)
            asked += self.registry.ask([sid for sid, seen, _ in members if back or self._stuck(sid, seen, version)])
        with self._lock:                                # followers that left: forget them here too
            for sid in self._behind.keys() - present:
                del self._behind[sid]
        return asked

    def _stuck(self, sid: str, seen: int | None, version: int) -> bool:
        """Behind the room, and at the same version as at the last round: its wake was lost. A follower
        behind for the first time is most likely running the presenter's change right now; waking it too
        would only add a whole-page run to that class-wide moment."""
        with self._lock:
            if seen == version:
                self._behind.pop(sid, None)
                return False
            last = self._behind.get(sid)
            self._behind[sid] = (seen, version)
            return seen is None or (last is not None and last[0] == seen)

    def full(self, sid: str) -> str | None:
        """Why this session can no longer follow (its class is full), once; else None."""
        with self._lock:
            return self._full.pop(sid, None)

    def run(self) -> None:
        while not self.stop.wait(FOLLOW_QUIET_S):
            try:
                self.check(time.time())
            except Exception as err:                   # never let the thread die: the next round tries again
                _LOGGER.warning("The classroom check failed (%s); it tries again in %s s.", err, FOLLOW_QUIET_S)


def start_watcher(store: RoomStore, registry: wake.Followers) -> Watcher:
    """Start a watcher thread, stopping any other first: never more than one per process, however often
    this is called (the app calls it once, through ``_watcher``)."""
    for thread in _running(_WATCH_THREAD):
        old = getattr(thread, "watcher", None)
        if isinstance(old, Watcher):
            old.stop.set()
    watcher = Watcher(store, registry)
    thread = threading.Thread(target=watcher.run, name=_WATCH_THREAD, daemon=True)
    thread.watcher = watcher
    thread.start()
    return watcher


@once
def _watcher() -> Watcher:
    """The process's one watcher, started with the first follower (only under a server: AppTest has none,
    and there a follower's next run is its check)."""
    return start_watcher(room_store(), wake.followers())


def _served() -> bool:
    """True under a real Streamlit server (AppTest runs pages with a stand-in runtime, and no watcher)."""
    from streamlit.runtime.runtime import Runtime

    return runtime.exists() and type(runtime.get_instance()) is Runtime


def _register(slug: str) -> bool:
    """At the top of a student's full run: note this session as a follower (or not), apply the room's
    view if it changed, and tell the watcher which version it has. True when the view was applied."""
    ss = _ss()
    if not following():
        wake.forget()
        return False
    wake.follow(ss[_CODE])
    _listening()
    if _served():
        why = _watcher().full(wake.session_id() or "")
        if why is not None:                             # the class is full: stop following, say why
            ss[_FOLLOWING] = False
            wake.forget()
            _notice("warning", why)
            return False
    applied = _follow_now(slug)
    wake.note(ss.get(_SEEN), ss.get(_ME))
    return applied


# --- lesson sections (the pages' fragments, through ui.frame.Frame.fragment) ------------------------------------

def section_starts(slug: str, name: str) -> frozenset[str] | None:
    """At the top of a lesson fragment. A follower notes the section's fragment id (a presenter's change
    inside it then reruns only this section, ``ui.wake``); in a fragment-only run it applies the room's
    new snapshot here, before the section draws a widget, when the change lies inside this section.
    Anything else (another page or step, a poll, a control outside) reruns the whole page instead.
    Returns, for a follower only, the widget keys drawn so far in this run (for ``section_ends``)."""
    if not following():
        return None
    wake.section((slug, name))
    drawn_before = wake.widget_keys()
    if not wake.fragment_run():
        return drawn_before                             # a full run: sidebar() has applied the view already
    ss = _ss()
    try:
        snap = room_store().snapshot(ss[_CODE], time.time())
    except StoreUnavailable:
        return drawn_before                             # the watcher wakes the page, which says so
    except RoomError:
        st.rerun(scope="app")                           # the full run says what happened to the class
    if snap.version == ss.get(_SEEN):
        _hold(slug, snap)
        return drawn_before
    before, owned = ss.get(_SNAP), ss.get(_SECTIONS, {}).get((slug, name))
    if before is None or owned is None or snap.page != slug or \
            (snap.page, snap.step, snap.poll) != (before.page, before.step, before.poll):
        st.rerun(scope="app")
    changed = {k for k in snap.controls.keys() | before.controls.keys()
               if snap.controls.get(k) != before.controls.get(k)}
    if not changed <= owned:
        st.rerun(scope="app")
    ss[_SEEN], ss[_SNAP] = snap.version, snap
    wake.note(snap.version, ss.get(_ME))
    _set_controls(snap)
    return drawn_before


def section_ends(slug: str, name: str, drawn_before: frozenset[str] | None) -> None:
    """At the end of a lesson fragment: a follower keeps the widget keys the section drew (those drawn since
    ``drawn_before``, from ``section_starts``); a presenter whose change reran only this section publishes
    it now, naming the section."""
    if following():
        drawn_after = wake.widget_keys()
        if drawn_before is not None and drawn_after is not None:
            _ss().setdefault(_SECTIONS, {})[(slug, name)] = drawn_after - drawn_before
    elif role() == "presenter" and wake.fragment_run():
        publish(slug, from_tick=True, section=(slug, name))


def followed_step(slug: str) -> int | None:
    """The presenter's step on this page while this session follows it, else None."""
    snap = _ss().get(_SNAP)
    if following() and snap is not None and snap.page == slug and snap.step > 0:
        return snap.step
    return None


def _stop_following() -> None:
    _ss()[_FOLLOWING] = False
    wake.forget()


def _follow_again() -> None:
    _ss()[_FOLLOWING] = True
    _ss()[_SEEN] = None                                 # re-sync at once, whatever the version


# --- presenting ----------------------------------------------------------------------------------------------

def _start() -> None:
    try:
        code, key = room_store().create_room(time.time())
    except StoreUnavailable:
        _notice("warning", "The classroom cannot be reached right now: try again in a moment.")
        return
    except RoomError as err:
        _notice("warning", str(err))
        return
    _leave()
    _ss().update({_ROLE: "presenter", _CODE: code, _KEY: key})


def _end() -> None:
    try:
        room_store().end_room(_ss()[_CODE], _ss()[_KEY])
    except RoomError:
        pass                                            # already gone: the result is the same
    _changed(_ss()[_CODE])
    _leave()
    _notice("info", "The class has ended.")


def publish(slug: str, *, from_tick: bool = False, section: wake.Section | None = None) -> None:
    """The presenter's view, published if it changed since the last publish: called at the end of every
    full run, at the end of a lesson section's own run (naming the ``section``), and by the presenter's
    fragment between full runs (not during one: a new page's widgets do not exist yet, and a half-made view
    would cost every student an extra run)."""
    ss = _ss()
    if role() != "presenter":
        return
    if from_tick and ss.get(_MID_RUN):
        return
    if not from_tick:
        ss[_MID_RUN] = False
    step = int(ss.get(controls.step_key(slug), 1)) if present.active() else 0
    view = (slug, step, controls.lesson_controls(slug))
    if ss.get(_PUBLISHED) == view:
        return
    try:
        room_store().publish(ss[_CODE], ss[_KEY], *view, time.time())
    except ValueError:
        _notice("warning", "This view is too large to share with the class; the class stays where it was.")
    except StoreUnavailable:
        ss[_OFFLINE] = True                             # not marked published: sent again once reachable
        return
    except (NotPresenter, UnknownRoom):
        _leave(LOST_PRESENTER if ss.get(_OFFLINE) else "Your class has ended (it expired, or was ended elsewhere).")
        return
    ss.pop(_OFFLINE, None)
    ss[_PUBLISHED] = view
    _changed(ss[_CODE], section)


def app_root(url: str, slug: str) -> str:
    """The app's root URL from the current page's (its path ends with the page's name, except home)."""
    base = (url or "").split("?")[0].split("#")[0].rstrip("/")
    if slug != "home" and base.endswith("/" + slug):
        base = base[: -len(slug) - 1]
    return base + "/"


def join_link(code: str, slug: str) -> str:
    return app_root(st.context.url or "", slug) + "?" + urlencode({"room": code})


@st.cache_data(max_entries=64, ttl=4 * 3600)
def qr_png(link: str) -> bytes:
    """The join link as a QR code: 10 px per module, so ~330 px for a short link (scannable across a room)."""
    import io

    out = io.BytesIO()
    segno.make(link, error="m").save(out, kind="png", scale=10, border=2, dark="#000000", light="#ffffff")
    return out.getvalue()


@st.dialog("Join the class", width="large")
def _show_large(code: str, link: str) -> None:
    st.markdown(f"## Room code: {code}")
    st.image(qr_png(link), width=560)
    st.code(link, language=None, wrap_lines=True)


@st.fragment(run_every=PRESENT_EVERY_S)
def _presenter_tick(slug: str) -> None:
    """Publishes what a fragment's control changed, and keeps the follower count current."""
    if role() != "presenter":
        return
    publish(slug, from_tick=True)
    if role() != "presenter":
        st.rerun(scope="app")
    try:
        n = room_store().follower_count(_ss()[_CODE], time.time())
    except StoreUnavailable:
        _ss()[_OFFLINE] = True
        st.markdown(f":material/sync: **{RECONNECTING}**")
        return
    except UnknownRoom:
        _leave(LOST_PRESENTER if _ss().get(_OFFLINE) else "Your class has ended (it expired, or was ended elsewhere).")
        st.rerun(scope="app")
    except RoomError:
        return
    _ss().pop(_OFFLINE, None)
    st.markdown(f"**{n} student{'s' if n != 1 else ''} following**")


def _presenter_panel(slug: str) -> None:
    ss = _ss()
    code, key = ss[_CODE], ss[_KEY]
    link = join_link(code, slug)
    st.markdown(f"### Room code: {code}")
    st.caption("Students open this link, scan the code, or type the room code into *Join a class*.")
    st.code(link, language=None, wrap_lines=True)
    st.image(qr_png(link), width="stretch", caption="Scan to join")
    if st.button("Show the code large", key="_class_large", icon=":material/fullscreen:", width="stretch"):
        _show_large(code, link)
    _presenter_tick(slug)
    with st.popover("Presenter link (keep private)", icon=":material/key:", width="stretch"):
        st.caption("Open this link to present this class again, after a reload or on another device. "
                   "Anyone with it can move the class: do not show it on the projector.")
        st.code(link + "&" + urlencode({"key": key}), language=None, wrap_lines=True)
    st.button("End the class", key="_class_end", on_click=_end, icon=":material/stop_circle:", width="stretch")


# --- the sidebar and the student's bar ------------------------------------------------------------------------

def _join_submitted() -> None:
    typed = str(_ss().get("_class_join_code") or "")[:33]      # one past the longest code normal_code reads
    _ss()["_class_join_code"] = ""
    join(typed)


def sidebar(slug: str) -> bool:
    """The Classroom section (sidebar) and, for a student, the following bar (top of the page).

    Returns True when this run applied the presenter's view to this page.
    """
    applied = False
    _arrive()
    if role() == "presenter":
        _ss()[_MID_RUN] = True                          # publish() at the end of this run clears it
    if role() == "student":
        applied = _register(slug)
    with st.sidebar:
        st.subheader("Classroom")
        if role() == "presenter":
            _presenter_panel(slug)
        elif role() == "student":
            st.caption(f"You are in class {_ss()[_CODE]}.")
            st.button("Leave the class", key="_class_leave", on_click=_leave, width="stretch")
        else:
            st.button("Start a class", key="_class_start", on_click=_start, icon=":material/co_present:",
                      width="stretch", help="Students follow your page, step and controls, and answer "
                                            "your questions live.")
            # No st.form: its submit button's session key ("FormSubmitter:...") would read as a lesson control.
            st.text_input("Join a class", key="_class_join_code", max_chars=12, on_change=_join_submitted,
                          placeholder="Room code, e.g. K7MQ2P")
            st.button("Join", key="_class_join", on_click=_join_submitted, width="stretch")
    if role() is None and _ss().get(_ENDED):
        st.info(f"The class has ended (class {_ss()[_ENDED]}). This page stays as it is, for you to explore.",
                icon=":material/event_busy:")
    notice = _ss().pop(_NOTICE, None)
    if notice is not None:
        {"warning": st.warning, "success": st.success, "info": st.info}[notice[0]](notice[1])
    if role() == "student":
        _student_bar()
    return applied


def _student_bar() -> None:
    code = _ss()[_CODE]
    with st.container(border=True, horizontal=True, vertical_alignment="center", key="_class_bar"):
        if following() and _ss().get(_OFFLINE):
            st.markdown(f":material/sync: **{RECONNECTING}** (class {code}). The lesson works on its own meanwhile.")
            st.button("Explore on my own", key="_class_explore", on_click=_stop_following)
        elif following():
            st.markdown(f":material/groups: **Following class {code}**: this page and its controls move with the "
                        "presenter.")
            st.button("Explore on my own", key="_class_explore", on_click=_stop_following)
        else:
            st.markdown(f":material/explore: **Exploring on your own** (class {code}).")
            st.button("Follow again", key="_class_follow", on_click=_follow_again, type="primary")


# --- polls ------------------------------------------------------------------------------------------------------

def poll_revealed(poll_id: str) -> bool:
    """True once the presenter revealed the answer to this question, for a student following the class."""
    snap = _ss().get(_SNAP)
    return following() and snap is not None and snap.poll is not None and snap.poll.poll_id == poll_id \
        and snap.poll.revealed


def _right(question: Check, options: tuple[str, ...]) -> int | None:
    text = question.choices[question.answer].text
    return options.index(text) if text in options else None


def _send_answer(poll_id: str, widget_key: str) -> None:
    ss = _ss()
    option = ss.get(widget_key)
    if role() != "student" or option is None:
        return
    try:
        if not room_store().answer(ss[_CODE], poll_id, ss[_ME], option, time.time()):
            _notice("info", "Your answer was not counted: the presenter has already revealed this one.")
    except RoomError as err:
        _notice("warning", str(err))


def student_poll(poll_id: str, label: str, question: Check) -> bool:
    """For a following student whose class is asked this question: the class version of it, drawn in the
    caller's container (answer, then after the reveal the answer, its explanation and the class's counts).
    Returns False, drawing nothing, otherwise."""
    snap = _ss().get(_SNAP)
    if not following() or snap is None or snap.poll is None or snap.poll.poll_id != poll_id:
        return False
    poll = snap.poll
    widget_key = f"_class_answer__{poll_id}"
    if not poll.revealed:
        st.radio(label, poll.options, index=None, key=widget_key, on_change=_send_answer,
                 args=(poll_id, widget_key))
        st.caption(":material/how_to_vote: The presenter asked the class. Your answer is anonymous (only the "
                   "counts are kept), and you can change it until the answer is revealed.")
        return True
    st.radio(label, poll.options, index=None, key=widget_key, disabled=True)
    right = _right(question, poll.options)
    picked = _ss().get(widget_key)
    if right is not None:
        # Options may hold a learner's words (the lab's tokens): escaped for Markdown.
        st.success(f"**The answer:** {literal(poll.options[right], 200)}"
                   + (" (your answer)" if picked == poll.options[right] else ""))
    choice = next((c for c in question.choices if c.text == picked), None)
    if choice is not None and not choice.correct:
        st.error(choice.feedback)
    if question.explanation:
        st.markdown(question.explanation.strip())
    _class_chart(poll_id, poll.options, right)
    return True


def _class_chart(poll_id: str, options: tuple[str, ...], right: int | None) -> int:
    try:
        counts = room_store().poll_counts(_ss()[_CODE], poll_id)
    except RoomError:
        counts = dict.fromkeys(options, 0)
    st.plotly_chart(poll_figure(options, counts, right), key=f"_class_chart__{poll_id}",
                    config={"displayModeBar": False})
    return sum(counts.values())


def _ask(poll_id: str, options: tuple[str, ...]) -> None:
    ss = _ss()
    try:
        room_store().open_poll(ss[_CODE], ss[_KEY], poll_id, options, time.time())
    except (ValueError, RoomError) as err:
        _notice("warning", str(err) if isinstance(err, RoomError) else "This question cannot be put to the class.")
        return
    _changed(ss[_CODE])
    ss[_POLL] = (poll_id, options, False)


def _reveal(poll_id: str) -> None:
    ss = _ss()
    try:
        room_store().reveal_poll(ss[_CODE], ss[_KEY], poll_id, time.time())
    except RoomError as err:
        _notice("warning", str(err))
        return
    _changed(ss[_CODE])
    asked = ss.get(_POLL)
    if asked and asked[0] == poll_id:
        ss[_POLL] = (poll_id, asked[1], True)


def _stop_asking() -> None:
    ss = _ss()
    try:
        room_store().close_poll(ss[_CODE], ss[_KEY], time.time())
    except RoomError:
        pass
    _changed(ss[_CODE])
    ss.pop(_POLL, None)


def presenter_poll(poll_id: str, question: Check) -> None:
    """For the presenter: "Ask the class" under a question, or, once asked, the class's answers live."""
    if role() != "presenter":
        return
    asked = _ss().get(_POLL)
    if asked is None or asked[0] != poll_id:
        st.button("Ask the class", key=f"_class_ask__{poll_id}", icon=":material/how_to_vote:",
                  on_click=_ask, args=(poll_id, tuple(c.text for c in question.choices)))
        return
    _live_poll(poll_id, question)


@st.fragment(run_every=POLL_EVERY_S)
def _live_poll(poll_id: str, question: Check) -> None:
    asked = _ss().get(_POLL)
    if role() != "presenter" or asked is None or asked[0] != poll_id:
        return
    _, options, revealed = asked
    right = _right(question, options)
    answered = _class_chart(poll_id, options, right if revealed else None)
    try:
        present_now = room_store().follower_count(_ss()[_CODE], time.time())
    except RoomError:
        present_now = 0
    st.markdown(f"**{answered} of {max(present_now, answered)} answered**")
    cols = st.columns(2)
    cols[0].button("Reveal the answer to the class", key=f"_class_reveal__{poll_id}", on_click=_reveal,
                   args=(poll_id,), disabled=revealed, type="primary", icon=":material/visibility:")
    cols[1].button("Stop asking", key=f"_class_stop__{poll_id}", on_click=_stop_asking, icon=":material/close:")
