"""ui.wake: which sessions follow which room, and what a wake asks of each (against a stand-in runtime),
plus the parts of Streamlit's runtime it relies on, so an upgrade that moves them fails here first."""

from __future__ import annotations

import inspect
from types import SimpleNamespace

import pytest
from streamlit.proto.ClientState_pb2 import ClientState

from ui import wake


@pytest.fixture
def registry(monkeypatch):
    monkeypatch.setattr(wake, "_rooms", {})
    monkeypatch.setattr(wake, "_session_room", {})
    current = {"sid": "s1"}
    monkeypatch.setattr(wake, "_session_id", lambda: current["sid"])
    return current


def test_a_session_follows_one_room_at_a_time_and_forgets_it(registry):
    wake.follow("AAAAAA")
    wake.follow("AAAAAA")
    registry["sid"] = "s2"
    wake.follow("AAAAAA")
    assert wake.followers("AAAAAA") == 2
    wake.follow("BBBBBB")                                   # s2 moves to another room
    assert (wake.followers("AAAAAA"), wake.followers("BBBBBB")) == (1, 1)
    wake.forget()
    registry["sid"] = "s1"
    wake.forget()
    assert wake._rooms == {} and wake._session_room == {}


class FakeSession:
    def __init__(self, state: ClientState) -> None:
        self._client_state = state
        self.asked: list[ClientState] = []

    def request_rerun(self, state: ClientState) -> None:
        self.asked.append(state)


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


def test_a_wake_reruns_each_live_follower_page_without_replaying_a_button(registry, monkeypatch):
    live = FakeSession(_last_run(fragment_id="tick-fragment"))
    _runtime(monkeypatch, {"s1": live})
    wake.follow("AAAAAA")
    registry["sid"] = "gone"
    wake.follow("AAAAAA")
    assert wake.wake("AAAAAA") == 1
    assert wake.followers("AAAAAA") == 1                    # the session that left was dropped
    (asked,) = live.asked
    assert asked.fragment_id == "" and asked.page_script_hash == "abc" and asked.page_name == "sqrt_dk"
    assert [w.id for w in asked.widget_states.widgets] == ["slider"]
    assert live._client_state.widget_states.widgets[1].trigger_value    # the session's own state is untouched


def test_a_room_nobody_here_follows_wakes_nobody(registry, monkeypatch):
    _runtime(monkeypatch, {})
    assert wake.wake("CCCCCC") == 0


def test_without_a_server_a_wake_does_nothing(registry):
    wake.follow("AAAAAA")
    assert wake.wake("AAAAAA") == 0                          # no Streamlit runtime in a plain test process


def test_the_streamlit_internals_a_wake_uses_are_still_there():
    from streamlit.runtime.app_session import AppSession
    from streamlit.runtime.runtime import Runtime
    from streamlit.runtime.websocket_session_manager import WebsocketSessionManager

    assert callable(Runtime._get_async_objs)
    assert "eventloop" in inspect.getsource(Runtime._get_async_objs) or "_async_objs" in inspect.getsource(Runtime)
    assert callable(WebsocketSessionManager.get_active_session_info)
    assert list(inspect.signature(AppSession.request_rerun).parameters) == ["self", "client_state"]
    assert "self._client_state" in inspect.getsource(AppSession.__init__)
    assert "_session_mgr" in inspect.getsource(Runtime.__init__)
