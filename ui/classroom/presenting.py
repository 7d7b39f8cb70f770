"""Presenting a class: starting and ending it, publishing the presenter's view, and the presenter's panel.

The presenter publishes the page, the presenter step and the lesson controls (``ui.controls``, the same
definition "Link to this view" uses) at the end of each run, and from a small fragment every
``PRESENT_EVERY_S`` (a control inside a page's own fragment reruns that fragment only). A presenter back in
a class (a reload, or the presenter link on another device) first takes the room's view (``resume``), so
no student moves. The panel's join link and QR code use the public address when one is set (``public_root``).

One class may have several presenter screens (the projector, a console on a phone, a laptop): each publishes
from the room version its view is based on, and first takes the room's view when another screen moved the class
(``ui.classroom.screens``), so a screen that is behind never moves the class back.
"""

from __future__ import annotations

import ipaddress
import logging
import os
import time
from urllib.parse import urlencode, urlsplit

import segno
import streamlit as st

from classroom.store import (
    NotPresenter,
    Outdated,
    RateLimited,
    RoomError,
    StoreUnavailable,
    UnknownRoom,
    join_token,
)
from ui import controls, navigation, present, wake
from ui.classroom import console, results_view, screens
from ui.classroom.joining import in_words, linked_room
from ui.classroom.rooms import changed, client_address, room_store
from ui.classroom.session import (
    ENDED_ELSEWHERE,
    LOST_PRESENTER,
    RECONNECTING,
    late_run,
    leave,
    notice,
    role,
    state,
)
from ui.content import page_index

_LOGGER = logging.getLogger(__name__)

PRESENT_EVERY_S = 0.5         # the presenter's publish check and follower count
PUBLIC_URL_ENV = "ATTENTION_PUBLIC_URL"
UNREACHABLE = ("**Phones cannot open this link**: it points to this computer (localhost). Open the app at this "
               "computer's network address instead, or set `ATTENTION_PUBLIC_URL` (README, *Running a live class*).")
LOOPBACK_PUBLIC = ("**Phones cannot open this link**: the public address set points to this computer ({host}). Set "
                   "`ATTENTION_PUBLIC_URL` to the address students reach the app at (README, *Running a live class*).")


def start() -> None:
    try:
        code, key = room_store().create_room(time.time(), address=client_address())
    except StoreUnavailable:
        notice("warning", "The classroom cannot be reached right now: try again in a moment.")
        return
    except RateLimited as err:
        notice("warning", f"{err} (Try again in {in_words(err.retry_after)}.)")
        return
    except RoomError as err:
        notice("warning", str(err))
        return
    leave()
    screens.forget_offer()                              # this browser presents the new class from now on
    s = state()
    s.role, s.code, s.key = "presenter", code, key


def lock(on: bool) -> None:
    """"Lock the class" (no one new may join; those in it stay) or "Unlock the class"."""
    s = state()
    try:
        (room_store().lock if on else room_store().unlock)(s.code, s.key, time.time())
    except StoreUnavailable:
        notice("warning", "The class cannot be reached right now: try again in a moment.")
        return
    except RoomError as err:
        notice("warning", str(err))
        return
    s.locked = on


def end() -> None:
    s = state()
    try:
        room_store().end_room(s.code, s.key)
    except RoomError:
        pass                                            # already gone: the result is the same
    changed(s.code)
    results_view.remember(s.code, s.key)                # its results, for this presenter, for a day
    leave()
    notice("info", "The class has ended.")


def publish(slug: str, *, from_tick: bool = False, section: wake.Section | None = None) -> None:
    """The presenter's view, published if it changed since the last publish: called at the end of every
    full run, at the end of a lesson section's own run (naming the ``section``), and by the presenter's
    fragment between full runs (not during one: a new page's widgets do not exist yet, and a half-made view
    would cost every student an extra run). A timer's or a section's run of another page than the one last
    published is a late one (the browser sent it just before the presenter opened another page): it would send
    the class back to the page left, so it publishes nothing."""
    s = state()
    if s.role != "presenter" or s.resuming or late(slug):
        return
    if from_tick and s.mid_run:
        return
    if (from_tick or section is not None) and s.published is not None and s.published[0] != slug:
        return                                          # a timer or section of a page left, run late: not the class's
    if not from_tick:
        s.mid_run = False
    view = screens.view(slug)
    if s.adopted:                                       # the room's own view, as this screen draws it: not sent,
        s.adopted, s.published = False, view            # or two screens could echo a detail back and forth
        return
    if s.published == view:
        return
    try:
        s.seen = room_store().publish(s.code, s.key, *view, time.time(), base=s.seen)
    except Outdated:
        # Another screen moved the class since this one last looked: the full run takes the room's view first,
        # with this screen's own move on top (``_moved_on``), and publishes that.
        st.rerun(scope="app")
    except ValueError:
        notice("warning", "This view is too large to share with the class; the class stays where it was.")
    except StoreUnavailable:
        s.offline = True                                # not marked published: sent again once reachable
        return
    except (NotPresenter, UnknownRoom):
        leave(LOST_PRESENTER if s.offline else ENDED_ELSEWHERE)
        return
    s.offline = False
    s.published = view
    changed(s.code, section)


def resume(slug: str) -> None:
    """A presenter back in a class (this tab reloaded, or the presenter link opened on another device): this
    screen takes the room's page, step, controls and presenter mode before it publishes anything, so no
    student moves. Called by the sidebar at the top of every presenter's run, before the page draws its
    controls: a screen whose class another screen moved since its last look takes the room's view too, with
    its own move on top (``screens.moved_on``). A switch to the room's page ends this run, and the new page's
    run sets the controls."""
    s = state()
    console.arrive()                                    # before a switch to the room's page drops the link
    s.adopted = False
    if s.role != "presenter":
        return
    if not s.resuming:
        screens.moved_on(slug)
        if not s.resuming:
            return
    try:
        snap = room_store().snapshot(s.code, time.time())
    except StoreUnavailable:
        s.offline = True                                # tried again on the next run
        return
    except RoomError:
        s.resuming = False                              # publish() says what happened to the class
        return
    s.published, s.seen = screens.room_view(snap), snap.version
    screens.note_poll(snap)
    if not snap.page or snap.page not in {p.slug for p in page_index()}:
        s.resuming = False                              # nothing shown to the class yet: this screen leads
        return
    on = snap.step > 0
    if snap.step:
        st.session_state[controls.step_key(snap.page)] = snap.step
    if snap.page != slug or on != present.active():
        params = controls.switch_params(snap.controls, present=on)     # a late run switching back: ``late``
        present.set_active(on)
        if snap.page != slug:
            s.left = (slug, time.time())
        st.switch_page(navigation.page(snap.page), query_params=params)
    controls.set_lesson_controls(snap.controls)
    s.resuming, s.adopted = False, True


def late(slug: str) -> bool:
    """This presenter's run is of the page a resume switched away from, within ``session.LATE_RUN_S`` of the switch,
    while the room shows another page: a message the browser sent before it learnt of the switch, not the
    presenter's choice. Beside a CPU hog, the presenter link's landing page (the lesson map) ran again after
    the switch in 1 of 4 openings and published itself: every student was moved to the lesson map. Such a
    run resumes again instead (``resume``) and publishes nothing. A presenter who opens the page they just
    left, within those seconds, is brought back to the class's page: the price of telling the two apart."""
    s = state()
    return s.role == "presenter" and s.published is not None and late_run(slug, s.published[0])


def public_root() -> str | None:
    """The app's address as students reach it, when configured: ATTENTION_PUBLIC_URL, else ``public_url``
    under ``[classroom]`` in .streamlit/secrets.toml (an http or https URL; anything else is logged, unused)."""
    text = os.environ.get(PUBLIC_URL_ENV, "").strip()
    if not text:
        try:
            value = st.secrets.get("classroom", {}).get("public_url")
        except (FileNotFoundError, AttributeError):     # no secrets file, or no [classroom] table in it
            value = None
        text = value.strip() if isinstance(value, str) else ""
    if not text:
        return None
    try:
        parts = urlsplit(text)
    except ValueError:                                  # an unclosed [ in an IPv6 address
        parts = urlsplit("")
    if parts.scheme not in ("http", "https") or not parts.netloc or parts.query or parts.fragment:
        _LOGGER.error("classroom: the public address %r is not an http(s) URL without a query; not used", text)
        return None
    return f"{parts.scheme}://{parts.netloc}{parts.path.rstrip('/')}/"


def loopback(host: str | None) -> str | None:
    """``host`` as the computer itself names it when it means this computer (localhost or a name under it,
    127.0.0.0/8, ::1, 0.0.0.0 or ::, also written as an IPv4-mapped IPv6 address), else None."""
    name = (host or "").strip("[]").rstrip(".").lower()
    if name == "localhost" or name.endswith(".localhost"):
        return name
    try:
        ip = ipaddress.ip_address(name)
    except ValueError:
        return None
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return str(ip) if ip.is_loopback or ip.is_unspecified else None


def unreachable() -> str | None:
    """Why a join link would reach no phone, or None: the public address set points to this computer, or none is
    set and this page was opened at this computer's own address."""
    root = public_root()
    if root is not None:
        host = loopback(urlsplit(root).hostname)
        return None if host is None else LOOPBACK_PUBLIC.format(host=host)
    try:
        host = urlsplit(st.context.url or "").hostname
    except ValueError:
        return None
    return UNREACHABLE if loopback(host) is not None else None


def app_root(url: str, slug: str) -> str:
    """The app's root URL from the current page's (its path ends with the page's name, except home)."""
    base = (url or "").split("?")[0].split("#")[0].rstrip("/")
    if slug != "home" and base.endswith("/" + slug):
        base = base[: -len(slug) - 1]
    return base + "/"


def join_link(code: str, slug: str, *, token: bool = True) -> str:
    """The join link (and QR code): for the class this session presents, its ?room= carries the room's join
    token after the code, so opening it never meets the limits on typed codes (docs/SECURITY.md)."""
    s = state()
    room = linked_room(code, join_token(s.key)) if token and s.code == code and s.key else code
    return (public_root() or app_root(st.context.url or "", slug)) + "?" + urlencode({"room": room})


@st.cache_data(max_entries=64, ttl=4 * 3600)
def qr_png(link: str, scale: int = 10) -> bytes:
    """The join link as a QR code: 10 px per module, so ~330 px for a short link (scannable across a room)."""
    import io

    out = io.BytesIO()
    segno.make(link, error="m").save(out, kind="png", scale=scale, border=2, dark="#000000", light="#ffffff")
    return out.getvalue()


# The large code: at least 15% of the screen's height, yet within the width (7 characters with the space);
# the QR code and the link beside it, all of it in view at 1366×768 without scrolling. Our own class names only.
_LARGE_CSS = """<style>
.st-key-_class_large_code p { font-family: "Source Code Pro", monospace; font-weight: 700; line-height: 1;
  font-size: min(17vh, 11vw); letter-spacing: 0.06em; margin: 0; white-space: nowrap; text-align: center; }
.st-key-_class_large_qr img { width: min(50vh, 100%) !important; max-width: none !important; height: auto; }
.st-key-_class_large_link code { font-size: clamp(1rem, 2.6vh, 1.5rem) !important; overflow-wrap: anywhere; }
</style>"""


def spaced(code: str) -> str:
    """A code as it is easiest to read out and type: two groups of three ("NJW QKK")."""
    return f"{code[:3]} {code[3:]}"


@st.dialog("Join the class", width="large")
def _show_large(code: str, link: str) -> None:
    st.html(_LARGE_CSS)
    with st.container(key="_class_large_code"):
        st.markdown(spaced(code))
    qr, words = st.columns([1, 1], vertical_alignment="center")
    with qr, st.container(key="_class_large_qr"):
        st.image(qr_png(link, scale=16), caption="Scan to join")
    with words, st.container(key="_class_large_link"):
        st.markdown("Type the room code into *Join a class* (any case; spaces and hyphens are fine), "
                    "or open this link:")
        st.code(link, language=None, wrap_lines=True)
        if why := unreachable():
            st.warning(why, icon=":material/wifi_off:")


@st.fragment(run_every=PRESENT_EVERY_S)
def _presenter_tick(slug: str) -> None:
    """Publishes what a fragment's control changed, and keeps the follower count current (a closed tab or a
    lost phone leaves it within FOLLOWER_TTL_S, with no change from the presenter)."""
    if role() != "presenter":
        return
    publish(slug, from_tick=True)
    if role() != "presenter" or screens.behind():       # behind: another screen of this class moved it
        st.rerun(scope="app")
    s = state()
    try:
        n = room_store().follower_count(s.code, time.time(), key=s.key)   # also: the presenter is here
    except StoreUnavailable:
        s.offline = True
        st.markdown(f":material/sync: **{RECONNECTING}**")
        return
    except UnknownRoom:
        leave(LOST_PRESENTER if s.offline else ENDED_ELSEWHERE)
        st.rerun(scope="app")
    except RoomError:
        return
    s.offline = False
    st.markdown(f"**{n} student{'s' if n != 1 else ''} following**")


def panel(slug: str) -> None:
    """The presenter's part of the sidebar: the code, link and QR code to join, the count, locking, the
    private link, and ending the class (after a confirmation)."""
    s = state()
    code, key = s.code, s.key
    console.arrive()                                    # a console link's &console=1 (this screen only)
    link = join_link(code, slug)
    st.markdown(f"### Room code: {code}")
    st.caption("Students open this link, scan the code, or type the room code into *Join a class*.")
    if why := unreachable():
        st.warning(why, icon=":material/wifi_off:")
    st.code(link, language=None, wrap_lines=True)
    st.image(qr_png(link), width="stretch", caption="Scan to join")
    if st.button("Show the code large", key="_class_large", icon=":material/fullscreen:", width="stretch"):
        _show_large(code, link)
    _presenter_tick(slug)
    if s.locked:
        st.caption(":material/lock: Locked: no one new can join; the students in it stay.")
        st.button("Unlock the class", key="_class_unlock", on_click=lock, args=(False,), icon=":material/lock_open:",
                  width="stretch")
    else:
        st.button("Lock the class", key="_class_lock", on_click=lock, args=(True,), icon=":material/lock:",
                  width="stretch", help="No one new can join (the students in it stay), until you unlock it.")
    with st.popover("Presenter link (keep private)", icon=":material/key:", width="stretch"):
        st.caption("Open this link to present this class again on another device (a reload of this tab "
                   "resumes by itself). Anyone with it can move the class: do not show it on the projector.")
        st.code(join_link(code, slug, token=False) + "&" + urlencode({"key": key}), language=None, wrap_lines=True)
        console_link = console.link(join_link(code, slug, token=False) + "&" + urlencode({"key": key}))
        console.offer(console_link, qr_png(console_link, scale=6))
    console.toggle()                                    # off by default: the projector never shows the console
    results_view.panel_entry()                          # the concept check page, and "Class results"
    with st.popover("End the class", icon=":material/stop_circle:", width="stretch"):
        st.markdown("End the class for everyone? Students stop following; their pages stay as they are.")
        results_view.keep_choice()                      # "Keep results on this computer", off by default
        st.button("Yes, end the class", key="_class_end", on_click=end, type="primary", width="stretch")
