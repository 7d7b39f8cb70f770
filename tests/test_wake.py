"""ui.wake: which sessions follow which room, and what a wake asks of each (against a stand-in runtime).
The parts of Streamlit's runtime it relies on are exercised on a real server in test_streamlit_private.py."""

from __future__ import annotations

from types import SimpleNamespace

from streamlit.proto.ClientState_pb2 import ClientState

from ui import wake


def _wake(f: wake.Followers, code: str, section: wake.Section | None = None) -> int:
    """What the wake queue's thread does for a room (ui.wake_queue): send each of its local followers a wake."""
    return sum(f.send(sid, section) is not None for sid, _, _ in f.members(code))


def test_a_session_follows_one_room_at_a_time_and_forgets_it():
    f = wake.Followers()
    f.follow("AAAAAA", "s1")
    f.follow("AAAAAA", "s1")
    f.follow("AAAAAA", "s2")
    assert f.count("AAAAAA") == 2
    f.follow("BBBBBB", "s2")                               # s2 moves to another room
    assert (f.count("AAAAAA"), f.count("BBBBBB")) == (1, 1)
    f.forget("s2")
    f.forget("s1")
    f.forget("never-followed")
    assert f._rooms == {} and f._session_room == {}


class FakeSession:
    def __init__(self, state: ClientState, fragments: tuple[str, ...] = ()) -> None:
        self._client_state = state
        self.fragments = set(fragments)
        self.asked: list[ClientState] = []

    def request_rerun(self, state: ClientState) -> None:
        self.asked.append(state)

    def has_fragment(self, fragment_id: str) -> bool:
        return fragment_id in self.fragments


def _runtime(monkeypatch, sessions: dict[str, FakeSession]) -> None:
    from streamlit import runtime

    manager = SimpleNamespace(get_active_session_info=lambda sid: SimpleNamespace(session=sessions[sid])
                              if sid in sessions else None)
    loop = SimpleNamespace(call_soon_threadsafe=lambda fn, *args: fn(*args))
    fake = SimpleNamespace(_session_mgr=manager, _get_async_objs=lambda: SimpleNamespace(eventloop=loop))
    monkeypatch.setattr(runtime, "exists", lambda: True)
    monkeypatch.setattr(runtime, "get_instance", lambda: fake)


def _last_run(fragment_id: str = "") -> ClientState:
    state = ClientState(page_script_hash="abc", page_name="sqrt_dk", fragment_id=fragment_id)
    state.widget_states.widgets.add(id="slider", double_value=3.0)
    state.widget_states.widgets.add(id="button", trigger_value=True)
    state.widget_states.widgets.add(id="chat").string_trigger_value.data = "hello"
    return state


def test_a_wake_reruns_each_live_follower_page_without_replaying_a_button(monkeypatch):
    live = FakeSession(_last_run(fragment_id="tick-fragment"))
    _runtime(monkeypatch, {"s1": live})
    f = wake.Followers()
    f.follow("AAAAAA", "s1")
    f.follow("AAAAAA", "gone")
    assert _wake(f, "AAAAAA") == 1
    assert f.count("AAAAAA") == 1                            # the session that left was dropped
    (asked,) = live.asked
    assert asked.fragment_id == "" and asked.page_script_hash == "abc" and asked.page_name == "sqrt_dk"
    assert [w.id for w in asked.widget_states.widgets] == ["slider"]
    assert live._client_state.widget_states.widgets[1].trigger_value    # the session's own state is untouched


SECTION = ("sqrt_dk", "experiment")


def test_a_change_inside_a_section_reruns_that_section_alone_where_a_follower_drew_it(monkeypatch):
    drew = FakeSession(_last_run(fragment_id="tick-fragment"), fragments=("their-experiment",))
    elsewhere = FakeSession(_last_run())                     # on another page: no such section
    stale = FakeSession(_last_run(), fragments=())           # its page has run again without that fragment
    _runtime(monkeypatch, {"s1": drew, "s2": elsewhere, "s3": stale})
    f = wake.Followers()
    for sid in ("s1", "s2", "s3"):
        f.follow("AAAAAA", sid)
    f.section("s1", SECTION, "their-experiment")
    f.section("s2", ("polysemy", "context"), "polysemy-context")
    f.section("s3", SECTION, "gone-fragment")
    assert _wake(f, "AAAAAA", SECTION) == 3
    assert drew.asked[0].fragment_id == "their-experiment"
    assert [w.id for w in drew.asked[0].widget_states.widgets] == ["slider"]   # still no button replayed
    assert elsewhere.asked[0].fragment_id == "" and stale.asked[0].fragment_id == ""
    assert _wake(f, "AAAAAA") == 3 and drew.asked[1].fragment_id == ""          # no section named: whole page


def test_a_followers_sections_are_its_current_page_only_and_go_when_it_stops_following():
    f = wake.Followers()
    f.section("s1", SECTION, "x")                            # not following: nothing kept
    assert f._sections == {}
    f.follow("AAAAAA", "s1")
    f.section("s1", SECTION, "x")
    f.section("s1", ("sqrt_dk", "other"), "y")
    assert f._sections["s1"] == {SECTION: "x", ("sqrt_dk", "other"): "y"}
    f.section("s1", ("polysemy", "context"), "z")            # a new page: the old page's sections are gone
    assert f._sections["s1"] == {("polysemy", "context"): "z"}
    f.forget("s1")
    assert f._sections == {}


def test_a_room_nobody_here_follows_wakes_nobody(monkeypatch):
    _runtime(monkeypatch, {})
    assert _wake(wake.Followers(), "CCCCCC") == 0


def test_without_a_server_a_wake_does_nothing():
    f = wake.Followers()
    f.follow("AAAAAA", "s1")
    assert _wake(f, "AAAAAA") == 0                             # no Streamlit runtime in a plain test process
    assert f.count("AAAAAA") == 1


def test_a_follower_switched_to_another_page_is_woken_on_that_page_until_its_browser_says_it_is_there(monkeypatch):
    # Streamlit folds a pending rerun into the newer request's page: a wake carrying the page of the
    # follower's last client state would undo the switch its run has just asked for.
    moving = FakeSession(_last_run(fragment_id="tick-fragment"), fragments=("their-experiment",))
    _runtime(monkeypatch, {"s1": moving})
    f = wake.Followers()
    f.follow("AAAAAA", "s1")
    f.section("s1", SECTION, "their-experiment")
    f.moving("s1", "new-page-hash", "room=AAAAAA&pl_temp=0.5")
    f.moving("not-following", "x", "")                       # only followers are noted
    assert set(f._moved) == {"s1"}
    _wake(f, "AAAAAA", SECTION)
    asked = moving.asked[-1]
    assert (asked.page_script_hash, asked.query_string) == ("new-page-hash", "room=AAAAAA&pl_temp=0.5")
    assert asked.fragment_id == "" and asked.page_name == ""  # the whole new page, not a section of the old
    assert [w.id for w in asked.widget_states.widgets] == ["slider"]
    moving._client_state.page_script_hash = "new-page-hash"  # the browser's next message: it is there
    moving._client_state.query_string = "room=AAAAAA"
    _wake(f, "AAAAAA", SECTION)
    assert moving.asked[-1].query_string == "room=AAAAAA" and moving.asked[-1].fragment_id == "their-experiment"
    assert f._moved == {}
    f.moving("s1", "h", "")
    f.forget("s1")
    assert f._moved == {}
