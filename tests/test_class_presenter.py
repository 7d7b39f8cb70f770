"""The presenter's side of the classroom and the limits it wires in, through AppTest (issues 28 and 29):
codes with spaces and hyphens, per-address limits and their messages, locking, a confirmed end, the public
address and the localhost warning, one follower per browser, and invisible characters in shown words.

AppTest has no client: a test that needs an address or a browser patches ``client_address`` or
``browser.there`` for the sessions it runs.
"""

from __future__ import annotations

import time

import pytest
from streamlit.testing.v1 import AppTest

from classroom import store as rs
from devtools.apptest import APP, class_state, fresh, open_page, start_class, texts
from ui import classroom
from ui.classroom import browser, joining, presenting, rooms

RLO = "\u202e"


def end(at: AppTest) -> None:
    at.sidebar.button(key="_class_end").click().run()


def count(code: str) -> int:
    return classroom.room_store().follower_count(code, time.time())


@pytest.fixture
def address(monkeypatch):
    """Every session from now on comes from the address in ``address.value`` (AppTest has none of its own)."""
    class Address:
        value = "192.0.2.10"

    for module in (joining, presenting):
        monkeypatch.setattr(module, "client_address", lambda: Address.value)
    return Address


# --- codes as people type them ---------------------------------------------------------------------------------

@pytest.mark.parametrize("shape", [str.lower, lambda c: f"{c[:3]} {c[3:]}".lower(), lambda c: f"{c[:3]}-{c[3:]}",
                                   lambda c: f" {c[:2]} {c[2:4]} {c[4:]} "])
def test_a_code_is_read_in_any_case_with_spaces_or_hyphens(shape):
    pres, code, _ = start_class()
    st = fresh()
    st.sidebar.text_input(key="_class_join_code").input(shape(code)).run()
    assert f"Following class {code}" in texts(st)
    linked = fresh(room=shape(code))
    assert class_state(linked).code == code and linked.query_params["room"] in (code, [code])
    end(pres)


@pytest.mark.parametrize("text, code", [("njw qkk", "NJWQKK"), ("NJW-QKK", "NJWQKK"), ("njw–qkk", "NJWQKK"),
                                        ("NJW_QKK", None), ("NJW QK", None), ("N" * 40, None), (None, None)])
def test_code_of_drops_only_spaces_and_hyphens(text, code):
    assert joining.code_of(text) == code


@pytest.mark.parametrize("seconds, words", [(0.2, "1 second"), (12, "12 seconds"), (61, "about 1 minute"),
                                            (300, "about 5 minutes"), (3599, "about 1 hour"),
                                            (7300, "about 2 hours")])
def test_a_wait_is_said_in_words(seconds, words):
    assert joining.in_words(seconds) == words


# --- limits per address ------------------------------------------------------------------------------------------

def test_one_address_runs_a_few_classes_at_once_and_is_told_how_long_to_wait(address):
    address.value = "192.0.2.11"
    started = [start_class() for _ in range(rs.LIVE_CLASSES_PER_ADDRESS)]
    at = fresh()
    at.sidebar.button(key="_class_start").click().run()
    said = texts(at)
    assert class_state(at).role is None
    assert f"already running {rs.LIVE_CLASSES_PER_ADDRESS} classes" in said and "Try again in about 5 minutes" in said
    address.value = "192.0.2.12"                         # a teacher elsewhere starts at once
    _, code, _ = start_class()
    assert code
    end(started[0][0])                                   # one ended: the first address may start again
    address.value = "192.0.2.11"
    again = fresh()
    again.sidebar.button(key="_class_start").click().run()
    assert class_state(again).role == "presenter"


def test_failed_lookups_are_limited_per_address_and_a_known_room_never_is(address):
    address.value = "192.0.2.21"
    pres, code, _ = start_class()
    unknown = "ZZZZZZ" if code != "ZZZZZZ" else "YYYYYY"
    for i in range(rs.LOOKUP_FAILURES_PER_ADDRESS):      # fresh sessions: the per-session limit never applies
        at = fresh(room=unknown)
        assert "no class with that code" in texts(at), i
    at = fresh(room=unknown)
    assert "Too many class codes were tried" in texts(at) and "Try again in 10 seconds" in texts(at)
    address.value = "192.0.2.22"                         # the same school's other address: not limited
    assert "no class with that code" in texts(fresh(room=unknown))
    end(pres)


# --- locking, ending ------------------------------------------------------------------------------------------

def test_a_locked_class_keeps_its_students_and_turns_new_ones_away_with_its_own_message():
    pres, code, _ = start_class()
    inside = fresh(room=code)
    pres.sidebar.button(key="_class_lock").click().run()
    assert "Locked: no one new can join" in "\n".join(c.value for c in pres.sidebar.caption)
    assert "_class_unlock" in {b.key for b in pres.sidebar.button}
    late = fresh(room=code)
    assert class_state(late).role is None and "This class is locked" in texts(late)
    inside.run()
    assert f"Following class {code}" in texts(inside) and count(code) == 1
    pres.sidebar.button(key="_class_unlock").click().run()
    assert f"Following class {code}" in texts(fresh(room=code))
    end(pres)


def test_ending_the_class_asks_first():
    pres, code, _ = start_class()
    popover = next(p for p in pres.sidebar.get("popover") if "End the class" in str(p.proto))
    confirm = [c for c in popover.children.values() if c.type == "button"]
    assert [b.key for b in confirm] == ["_class_end"] and confirm[0].label == "Yes, end the class"
    assert classroom.room_store().version(code, time.time()) >= 0     # not ended by opening the question
    end(pres)
    with pytest.raises(rs.UnknownRoom):
        classroom.room_store().version(code, time.time())


# --- the join link's address ---------------------------------------------------------------------------------

def test_the_join_link_uses_the_public_address_when_one_is_set(monkeypatch):
    monkeypatch.setenv(presenting.PUBLIC_URL_ENV, "https://class.example.org/attention")
    pres, code, key = start_class()
    links = [c.value for c in pres.sidebar.code]
    assert f"https://class.example.org/attention/?room={code}.{rs.join_token(key)}" in links   # code, then token
    assert f"https://class.example.org/attention/?room={code}&key={key}" in links
    assert "Phones cannot open this link" not in texts(pres)
    end(pres)


@pytest.mark.parametrize("value", ["ftp://x.org/", "class.example.org", "https://x.org/?a=1", "javascript:alert(1)"])
def test_a_public_address_that_is_not_a_plain_web_address_is_not_used(monkeypatch, value):
    monkeypatch.setenv(presenting.PUBLIC_URL_ENV, value)
    assert presenting.public_root() is None


@pytest.mark.parametrize("url, warned", [("http://localhost:8501/", True), ("http://127.0.0.1:8501/sqrt_dk", True),
                                         ("http://[::1]:8501/", True), ("http://192.168.1.20:8501/", False),
                                         ("https://class.example.org/", False)])
def test_a_class_opened_at_localhost_is_told_phones_cannot_reach_it(monkeypatch, url, warned):
    monkeypatch.delenv(presenting.PUBLIC_URL_ENV, raising=False)
    monkeypatch.setattr(presenting.st.context.__class__, "url", property(lambda self: url))
    pres, _, _ = start_class()
    assert ("Phones cannot open this link" in "\n".join(w.value for w in pres.sidebar.warning)) is warned
    if warned:
        monkeypatch.setenv(presenting.PUBLIC_URL_ENV, "https://class.example.org/")
        pres.run()
        assert not [w for w in pres.sidebar.warning if "Phones cannot" in w.value]
    end(pres)


# --- one browser, one follower ----------------------------------------------------------------------------------

def test_two_tabs_of_one_browser_are_one_follower(monkeypatch):
    pres, code, _ = start_class()
    monkeypatch.setattr(browser, "there", lambda: True)
    tabs = []
    for _ in range(2):
        tab = AppTest.from_file(APP, default_timeout=60)
        tab.session_state["_class_browser_said"] = {"follower": "ab" * 16, "presenter": None}
        tab.query_params["room"] = code
        tab.run()
        assert f"Following class {code}" in texts(tab)
        tabs.append(tab)
    assert {class_state(t).me for t in tabs} == {"ab" * 16} and count(code) == 1
    monkeypatch.undo()
    end(pres)


def test_a_join_waits_briefly_for_the_browsers_id_then_goes_ahead(monkeypatch):
    pres, code, _ = start_class()
    monkeypatch.setattr(browser, "there", lambda: True)
    tab = fresh(room=code)
    assert class_state(tab).role is None and class_state(tab).pending == code
    assert f"Joining class {code}" in texts(tab) and count(code) == 0
    monkeypatch.setattr(joining, "WAIT_FOR_BROWSER_S", 0.0)
    tab.run()
    assert f"Following class {code}" in texts(tab) and count(code) == 1
    monkeypatch.undo()
    end(pres)


def test_a_join_cut_short_by_the_browsers_answer_counts_the_student_once(monkeypatch):
    """Under load a join can go ahead without the browser's follower id (WAIT_FOR_BROWSER_S), under an id of the
    session's own; the browser's answer then asks for a rerun, which stops the run at its next call that sends the
    browser something. The state must already say "joined" there, or the rerun joins again under the browser's id."""
    from streamlit.runtime.scriptrunner_utils.exceptions import RerunException
    from streamlit.runtime.scriptrunner_utils.script_requests import RerunData
    from streamlit.runtime.state.query_params_proxy import QueryParamsProxy

    pres, code, _ = start_class()
    monkeypatch.setattr(browser, "there", lambda: True)
    tab = fresh(room=code)                                   # waiting for the browser's id
    monkeypatch.setattr(joining, "WAIT_FOR_BROWSER_S", 0.0)
    cut = []
    for name in ("__setitem__", "pop"):
        real = getattr(QueryParamsProxy, name)

        def cut_once(self, *args, real=real, **kwargs):
            if not cut and count(code) == 1:                 # counted, under the session's own id: the answer comes
                cut.append(args)
                joining.st.session_state["_class_browser_said"] = {"follower": "cd" * 16, "presenter": None}
                raise RerunException(RerunData(query_string=f"room={code}"))
            return real(self, *args, **kwargs)
        monkeypatch.setattr(QueryParamsProxy, name, cut_once)
    tab.run()
    assert cut, "the run was not cut after the store counted the student"
    assert f"Following class {code}" in texts(tab)
    assert count(code) == 1, "one student, counted under two ids"
    monkeypatch.undo()
    end(pres)


# --- words from links and presenters ----------------------------------------------------------------------------

def test_a_links_word_shows_without_its_direction_override():
    at = open_page("real_model_lab", lab_word=f"{RLO}knab")
    assert RLO not in texts(at)                          # the sentences that quote it
    assert at.text_input(key="lab_word").value == "knab"  # and the box it fills


def test_a_presenters_typed_word_reaches_the_class_without_invisible_characters():
    pres, code, _ = start_class()
    pres.switch_page("pages/real_model_lab.py").run()
    pres.text_input(key="lab_word").input(f"{RLO}kn\u200bab").run()
    snap = classroom.room_store().snapshot(code, time.time())
    assert snap.controls["lab_word"] == ["knab"]
    end(pres)


def test_the_client_address_is_the_peer_or_a_trusted_proxys_word(monkeypatch):
    assert rooms.client_address() is None               # AppTest: no client, no limit per address
    from classroom import client

    assert client.client_address(None, None, ()) == "127.0.0.1"
    assert client.client_address(None, "203.0.113.9", client.trusted_proxies("127.0.0.1")) == "203.0.113.9"
