"""The live classroom in the app (ui/classroom.py), through AppTest: sidebar flows, following, polls.

AppTest runs the app in this process, so every session here shares one room store (ui.classroom.room_store),
as sessions of one server do. AppTest does not fire a fragment's run_every timer: a follower's "tick" is
its next run, which is what the timer would trigger once the room's version changed.
"""

from __future__ import annotations

import time
from urllib.parse import parse_qs, urlsplit

import pytest
from streamlit.testing.v1 import AppTest

from classroom import store as rs
from classroom.memory import MemoryRoomStore
from devtools.apptest import class_state, fresh, open_page, reveal, start_class, texts, widgets
from ui import classroom, controls
from ui.content import page_index
from ui.inputs import literal

PRESENTER_ONLY = ("_class_start", "_class_end", "_class_large")


def go(at: AppTest, slug: str) -> AppTest:
    at.switch_page(f"pages/{slug}.py").run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def button_keys(at: AppTest) -> set[str]:
    return {b.key for b in at.button if b.key}


def snapshot(code: str) -> rs.Snapshot:
    return classroom.room_store().snapshot(code, time.time())


def all_text(at: AppTest) -> str:
    return texts(at) + "\n" + "\n".join(m.value for m in at.sidebar.markdown) \
        + "\n" + "\n".join(c.value for c in at.sidebar.caption)


# --- the sidebar ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("slug", ["home", "sqrt_dk"])
def test_every_page_has_the_classroom_section(slug):
    at = open_page(slug)
    assert "Classroom" in [h.value for h in at.sidebar.subheader]
    assert "_class_start" in button_keys(at) and at.sidebar.text_input(key="_class_join_code").label == "Join a class"


def test_starting_a_class_shows_the_code_link_qr_count_and_a_private_presenter_link():
    at, code, key = start_class()
    assert len(code) == rs.CODE_LENGTH and set(code) <= set(rs.CODE_ALPHABET)
    assert f"### Room code: {code}" in [m.value for m in at.sidebar.markdown]
    links = [c.value for c in at.sidebar.code]
    join = next(link for link in links if "key=" not in link)
    assert parse_qs(urlsplit(join).query) == {"room": [f"{code}.{rs.join_token(key)}"]}   # the code, then its token
    presenter = next(link for link in links if "key=" in link)
    query = parse_qs(urlsplit(presenter).query)
    assert query["room"] == [code] and classroom.room_store().is_presenter(code, query["key"][0])
    assert query["key"] == [key] and len(key) >= 22
    assert "**0 students following**" in [m.value for m in at.sidebar.markdown]
    assert at.sidebar.get("image"), "no QR code image in the sidebar"
    assert {"_class_end", "_class_large"} <= button_keys(at) and "_class_start" not in button_keys(at)
    assert key not in all_text(at)                       # only inside the popover's code block
    popover = next(p for p in at.sidebar.get("popover") if "Presenter link" in str(p.proto))
    assert any(key in c.value for c in popover.children.values() if c.type == "code")


def test_the_qr_code_encodes_the_join_link_and_is_big_enough():
    png = classroom.qr_png("https://example.org/?room=K7MQ2P")
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    import struct

    width, height = struct.unpack(">II", png[16:24])
    assert width == height >= 250                         # 10 px a module: scannable across a room


def test_the_app_root_drops_the_page_name_only():
    assert classroom.app_root("https://x.streamlit.app/sqrt_dk?sd_dk=3", "sqrt_dk") == "https://x.streamlit.app/"
    assert classroom.app_root("https://x.streamlit.app/", "home") == "https://x.streamlit.app/"
    assert classroom.app_root("http://h:8501/base/sqrt_dk", "sqrt_dk") == "http://h:8501/base/"
    assert classroom.app_root("", "home") == "/"


def test_ending_the_class_closes_the_room():
    at, code, _ = start_class()
    at.sidebar.button(key="_class_end").click().run()
    with pytest.raises(rs.UnknownRoom):
        snapshot(code)
    assert "_class_start" in button_keys(at)
    assert "The class has ended." in texts(at)


# --- joining -------------------------------------------------------------------------------------------------

def test_a_student_joins_with_the_link_and_sees_they_follow():
    _, code, _ = start_class()
    st = fresh(room=code.lower())
    assert class_state(st).role == "student" and code in st.query_params["room"]
    assert f"Following class {code}" in texts(st)
    assert not button_keys(st) & set(PRESENTER_ONLY)


def test_a_student_joins_by_typing_the_code():
    _, code, _ = start_class()
    st = fresh()
    st.sidebar.text_input(key="_class_join_code").input(f"  {code.lower()} ").run()
    assert f"Following class {code}" in texts(st)
    assert classroom.room_store().follower_count(code, time.time()) >= 1


@pytest.mark.parametrize("room", ["", "K7MQ2", "O0I1LX", "<script>alert(1)</script>", "A" * 10_000,
                                  "K7MQ2P\x00", "ＫＭＱＰＲＳ", "%00", "{{7*7}}"])
def test_a_hostile_room_link_is_one_message_and_no_lookup(room, monkeypatch):
    calls = []
    for name in ("version", "snapshot", "heartbeat", "is_presenter"):
        original = getattr(MemoryRoomStore, name)
        monkeypatch.setattr(MemoryRoomStore, name,
                            lambda self, *a, _o=original, _n=name, **k: (calls.append(_n), _o(self, *a, **k))[1])
    at = fresh(room=room, key="x" * 5000)
    warnings = [w.value for w in at.warning]
    assert len(warnings) == 1 and "class code" in warnings[0], warnings
    assert room.strip() == "" or room not in warnings[0]
    assert class_state(at).role is None and "room" not in at.query_params and "key" not in at.query_params
    assert calls == []


def test_two_room_parameters_are_refused_not_guessed():
    _, code, _ = start_class()
    at = fresh(room=[code, "K7MQ2P"])
    assert class_state(at).role is None and len(at.warning) == 1


def test_unknown_codes_are_rate_limited_per_session():
    _, code, _ = start_class()
    st = fresh()
    unknown = "ZZZZZZ" if code != "ZZZZZZ" else "YYYYYY"
    for _ in range(classroom.JOIN_TRIES):
        st.sidebar.text_input(key="_class_join_code").input(unknown).run()
        assert "no class with that code" in texts(st)
    st.sidebar.text_input(key="_class_join_code").input(code).run()      # even a real code, for a minute
    assert "Too many codes" in texts(st) and class_state(st).role is None
    other = fresh()                                                      # another session is not limited
    other.sidebar.text_input(key="_class_join_code").input(code).run()
    assert f"Following class {code}" in texts(other)


def test_the_presenter_link_makes_a_new_session_the_presenter_and_leaves_the_address_bar():
    _, code, key = start_class()
    again = fresh(room=code, key=key)
    assert class_state(again).role == "presenter"
    assert "room" not in again.query_params and "key" not in again.query_params
    assert {"_class_end"} <= button_keys(again)
    wrong = fresh(room=code, key=key[:-1] + ("A" if key[-1] != "A" else "B"))
    assert class_state(wrong).role == "student"
    assert any("does not match" in w.value for w in wrong.warning)
    assert "key" not in wrong.query_params


def test_a_late_run_of_the_presenter_links_landing_page_moves_nobody():
    """The presenter link lands on the lesson map, and its run switches to the class's page. A message the
    browser sent from the lesson map before it learnt of the switch can arrive after it: that run of the
    lesson map once published itself, and every student was moved there (1 in 4 openings beside a CPU hog).
    It resumes instead; after ``LATE_RUN_S`` the presenter's own move to the lesson map is theirs again."""
    from ui.classroom.session import LATE_RUN_S

    pres, code, key = start_class()
    go(pres, "sqrt_dk")
    pres.slider(key="sd_dk").set_value(256).run()
    student = fresh(room=code)
    laptop = fresh(room=code, key=key)                        # resumed: switched to the class's page
    assert class_state(laptop).role == "presenter" and laptop.slider(key="sd_dk").value == 256
    go(laptop, "home")                                        # the late run of the landing page
    assert "sd_dk" in {s.key for s in laptop.slider}, "the presenter was left on the lesson map"
    assert laptop.slider(key="sd_dk").value == 256
    assert snapshot(code).page == "sqrt_dk", "the late run moved the class"
    student.run()
    assert student.slider(key="sd_dk").value == 256
    left = class_state(laptop).left
    class_state(laptop).left = (left[0], left[1] - LATE_RUN_S)
    go(laptop, "home")                                        # later: the presenter's own choice
    assert "sd_dk" not in {s.key for s in laptop.slider} and snapshot(code).page == "home"


def test_no_run_sends_a_presenter_links_key_back_to_the_address_bar(monkeypatch):
    """Every query string a run sends becomes a new entry in the browser's history. A late run of the presenter
    link's landing page still carries the link's ``room`` and ``key`` (its message left the browser before the
    address was rewritten); the presenter switch, drawn first, once wrote ``present=1`` to that run's address
    and so sent the key back: into the address bar, for a projector to show, and into the history for good."""
    from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx
    from streamlit.runtime.state.query_params import QueryParams

    sent: list[str] = []
    send = QueryParams._send_query_param_msg

    def recorded(self) -> None:
        send(self)
        ctx = get_script_run_ctx()
        sent.append(ctx.query_string if ctx is not None else "")

    monkeypatch.setattr(QueryParams, "_send_query_param_msg", recorded)
    pres, code, key = start_class(present="1")
    go(pres, "sqrt_dk")
    laptop = fresh(room=code, key=key, present="1")           # the presenter link, on a projector's laptop
    assert class_state(laptop).role == "presenter"
    laptop.query_params.clear()
    laptop.query_params.update(room=code, key=key)            # the late run: the link's address, as opened
    go(laptop, "home")
    assert sent and not [q for q in sent if "key=" in q], sent


# --- following ------------------------------------------------------------------------------------------------

def test_students_follow_the_page_the_slider_and_the_step():
    pres, code, _ = start_class(present="1")
    students = [fresh(room=code) for _ in range(3)]
    go(pres, "sqrt_dk")
    pres.slider(key="sd_dk").set_value(256).run()
    pres.button(key="sqrt_dk__step__next").click().run()
    snap = snapshot(code)
    assert (snap.page, snap.step, snap.controls["sd_dk"]) == ("sqrt_dk", 2, ["256"])
    for st in students:
        st.run()                                              # the version changed: the tick reruns the app
        assert not st.exception, [e.value for e in st.exception]
        assert st.slider(key="sd_dk").value == 256
        assert "Step 2 of 3" in texts(st)
        assert not button_keys(st) & {"sqrt_dk__step__next", "sqrt_dk__step__back"}
    pres.slider(key="sd_dk").set_value(16).run()
    for st in students:
        st.run()
        assert st.slider(key="sd_dk").value == 16


def lesson_controls(at: AppTest) -> dict[str, bool]:
    """Each lesson control on the page, and whether it is disabled."""
    return {i.key: i.disabled for _, i in widgets(at) if controls.is_lesson_control(i.key)}


# Every page with lesson controls: not the lesson map, nor the concept check (answers only, no control to follow).
@pytest.mark.parametrize("slug", [p.slug for p in page_index() if p.slug not in ("home", "concept_check")])
def test_a_follower_sees_the_presenters_controls_disabled_until_it_explores(slug):
    """The room sets a follower's controls on every run, so a move of its own would only be put back: they
    are drawn disabled (AppTest, like a browser, refuses to move one). The class's own buttons stay live."""
    pres, code, _ = start_class()
    student = fresh(room=code)
    go(pres, slug)
    student.run()
    assert not student.exception, [e.value for e in student.exception]
    following = lesson_controls(student)
    assert following and all(following.values()), [k for k, off in following.items() if not off]
    # Live, once the presenter has revealed what a control held back for the reveal would give away (Frame.control's
    # idle reason: the polysemy page's d, the masks page's causal switch).
    reveal(pres, slug)
    assert lesson_controls(pres) and not any(lesson_controls(pres).values()), "the presenter's are live"
    first = next(n for n, i in widgets(student) if i.key in following)
    with pytest.raises(Exception, match="disabled"):
        first.set_value(first.value)
    student.button(key="_class_explore").click().run()
    exploring = lesson_controls(reveal(student, slug))     # its own reveals, as for the presenter above (which
    assert following.keys() <= exploring.keys() and not any(exploring.values())    # may show more controls)


def test_a_cleared_cache_ends_no_class():
    """Any client may send Streamlit's clear_cache message, which empties every st.cache_data and
    st.cache_resource for every session: the rooms, who follows them and the threads that wake them are kept."""
    from streamlit.runtime import caching

    from ui import wake

    pres, code, key = start_class(present="1")
    student = fresh(room=code)
    go(pres, "sqrt_dk")
    student.run()
    rooms, registry = classroom.room_store(), wake.followers()
    caching.cache_data.clear()                                # what AppSession does for clear_cache
    caching.cache_resource.clear()
    assert classroom.room_store() is rooms and wake.followers() is registry
    assert classroom.room_store().is_presenter(code, key)
    pres.slider(key="sd_dk").set_value(256).run()
    assert not pres.exception and snapshot(code).controls["sd_dk"] == ["256"]
    student.run()
    assert not student.exception, [e.value for e in student.exception]
    assert student.slider(key="sd_dk").value == 256


def test_a_page_switch_overtaken_by_a_rerun_of_the_old_page_switches_again(monkeypatch):
    """A follower's switch reruns the session on the new page, but a rerun of the old page (a message its
    browser sent before it knew) can overtake it. The view counts as applied only on the new page."""
    pres, code, _ = start_class()
    student = fresh(room=code)
    go(pres, "sqrt_dk")
    with monkeypatch.context() as patched:
        patched.setattr(classroom.st, "switch_page", lambda *args, **kwargs: None)   # its run never comes
        student.run()
    assert not student.exception and "sd_dk" not in {s.key for s in student.slider}
    student.run()                                             # the old page runs again
    assert not student.exception, [e.value for e in student.exception]
    assert student.slider(key="sd_dk").value == pres.slider(key="sd_dk").value


def test_a_rerun_of_the_old_page_after_the_switch_was_applied_switches_back():
    """The message the browser sent from the old page can arrive after the new page's run is over, when the
    version already counts as seen: that run of the old page switches back (a crowd of 500 joining at once
    left some students on the old page for minutes before this)."""
    pres, code, _ = start_class()
    student = fresh(room=code)
    go(pres, "sqrt_dk")
    student.run()                                             # switched and applied on the new page
    assert student.slider(key="sd_dk").value == pres.slider(key="sd_dk").value
    go(student, "home")                                       # the late run of the page it left
    student.run()                                             # (its switch's own run, under AppTest)
    assert not student.exception, [e.value for e in student.exception]
    assert "sd_dk" in {s.key for s in student.slider}, "the follower stayed on the old page"
    assert student.slider(key="sd_dk").value == pres.slider(key="sd_dk").value
    go(student, "polysemy")                                   # a page opened by hand stays open
    assert not student.exception and "sd_dk" not in {s.key for s in student.slider}


def test_a_run_from_the_browsers_old_values_keeps_the_presenters():
    """A run starts from the widget values the browser sent, which can predate the presenter's change the
    follower has just applied (a message sent while that run was on its way). The room's values stay."""
    pres, code, _ = start_class()
    student = fresh(room=code)
    go(pres, "sqrt_dk")
    student.run()
    old = student.slider(key="sd_dk").value
    pres.slider(key="sd_dk").set_value(256).run()
    student.run()
    assert student.slider(key="sd_dk").value == 256
    stale = student.slider(key="sd_dk")
    stale.proto.disabled = False                              # the message left before the browser had 256
    stale.set_value(old).run()                                # (and before its slider was disabled)
    assert not student.exception, [e.value for e in student.exception]
    assert student.slider(key="sd_dk").value == 256


def test_a_follower_notes_each_lesson_sections_fragment_and_widgets_for_section_wakes():
    from ui import wake

    _, code, _ = start_class()
    student = go(fresh(room=code), "polysemy")
    drawn = class_state(student).sections
    assert {name for slug, name in drawn if slug == "polysemy"} == {"context", "dimensions"}
    assert {"pl_dim", "pl_seed"} <= drawn[("polysemy", "dimensions")] and "pl_dim" not in drawn[("polysemy", "context")]
    assert {"pl_ctx", "pl_temp", "pl_self"} <= drawn[("polysemy", "context")]
    noted = [s for s in wake.followers()._sections.values() if ("polysemy", "dimensions") in s]
    assert noted and all(len(s) == 2 and all(s.values()) for s in noted)       # a fragment id for each section
    student.button(key="_class_explore").click().run()
    assert class_state(student).sections                                   # kept, but no longer woken
    student.sidebar.button(key="_class_leave").click().run()
    assert not class_state(student).sections


@pytest.mark.parametrize(("slug", "owned", "outside"), [
    # Each control belongs to the sections it reruns (a nested one's also to its parent's); the RNN page's seed
    # feeds two sibling sections, so it sits outside both and reruns the page.
    ("rnn_vs_attention", {"chain_against_attention": {"rn_len", "rn_rho", "rn_fbias"}, "lstm_gates": {"rn_fbias"},
                          "fixed_state": {"rn_state_d", "rn_pairs"}}, {"rn_seed"}),
    ("flash_attention", {"tiles": {"fa_tokens", "fa_block", "fa_step"}, "walk": {"fa_step"},
                         "traffic": {"fa_n", "fa_d", "fa_bc"}}, set()),
])
def test_finer_sections_own_the_controls_they_rerun(slug, owned, outside):
    _, code, _ = start_class()
    student = go(fresh(room=code), slug)
    drawn = {name: keys for (page, name), keys in class_state(student).sections.items() if page == slug}
    assert set(owned) <= set(drawn)
    for name, keys in owned.items():
        assert keys <= drawn[name], (name, drawn[name])
    others = {k for name, keys in drawn.items() if name not in ("chain_against_attention", "tiles") for k in keys}
    assert not outside & set().union(*drawn.values())
    assert not {"rn_len", "fa_tokens"} & others                  # T is not in a section that T does not rerun


def test_a_page_change_is_published_once_with_all_its_controls():
    pres, code, _ = start_class()
    before = snapshot(code).version
    go(pres, "sqrt_dk")
    snap = snapshot(code)
    assert snap.version == before + 1 and set(snap.controls) == {"sd_dk", "sd_seed"}
    pres.run()                                                # nothing changed: no new version
    assert snapshot(code).version == before + 1


def test_a_class_leaves_a_lesson_page_for_another_carrying_only_the_new_pages_controls():
    pres, code, _ = start_class()
    student = fresh(room=code)
    go(pres, "sqrt_dk")
    pres.slider(key="sd_dk").set_value(256).run()
    student.run()
    assert student.slider(key="sd_dk").value == 256
    go(pres, "polysemy")
    assert set(snapshot(code).controls) == {"pl_ctx", "pl_temp", "pl_self", "pl_dim", "pl_seed"}
    student.run()                                            # off a page whose widgets own sd_* in the URL
    assert not student.exception, [e.value for e in student.exception]
    student.run()
    assert not student.exception, [e.value for e in student.exception]
    assert student.select_slider(key="pl_dim").value == 300 and "sd_dk" not in student.query_params


def test_exploring_keeps_the_screen_and_following_again_resyncs_at_once():
    pres, code, _ = start_class()
    st = fresh(room=code)
    go(pres, "sqrt_dk")
    st.run()
    st.button(key="_class_explore").click().run()
    pres.slider(key="sd_dk").set_value(512).run()
    st.run()
    assert st.slider(key="sd_dk").value == 64 and "Exploring on your own" in texts(st)
    st.button(key="_class_follow").click().run()
    assert st.slider(key="sd_dk").value == 512 and f"Following class {code}" in texts(st)


def test_a_student_who_reloads_rejoins_and_gets_the_current_view():
    pres, code, _ = start_class()
    go(pres, "sqrt_dk")
    pres.slider(key="sd_dk").set_value(128).run()
    st = fresh(room=code)                                     # a reload: a new session with ?room= in the URL
    st.run()
    assert st.slider(key="sd_dk").value == 128 and f"Following class {code}" in texts(st)


def test_a_student_on_an_ended_class_is_told_and_keeps_the_page():
    pres, code, _ = start_class()
    go(pres, "sqrt_dk")
    pres.slider(key="sd_dk").set_value(32).run()
    st = fresh(room=code)
    st.run()
    pres.sidebar.button(key="_class_end").click().run()
    st.run()
    assert "The class has ended" in texts(st)
    assert st.slider(key="sd_dk").value == 32 and class_state(st).role is None
    assert "room" not in st.query_params


def _view_link(at: AppTest, slug: str) -> str:
    """The link the page's "Link to this view" popover shows, opened in this session."""
    at.session_state[f"{slug}__link"] = True
    at.run()
    return next(c.value for c in at.code if c.value.startswith(f"./{slug}"))      # AppTest has no app URL


def test_the_published_controls_are_what_link_to_this_view_carries():
    pres, code, _ = start_class()
    go(pres, "sqrt_dk")
    pres.slider(key="sd_dk").set_value(300).run()
    pres.number_input(key="sd_seed").set_value(7).run()
    link = parse_qs(urlsplit(_view_link(pres, "sqrt_dk")).query)
    assert snapshot(code).controls == link == {"sd_dk": ["300"], "sd_seed": ["7"]}


def test_a_students_link_to_this_view_carries_no_room():
    pres, code, _ = start_class()
    go(pres, "sqrt_dk")
    st = fresh(room=code)
    st.run()
    assert "room" in st.query_params
    link = parse_qs(urlsplit(_view_link(st, "sqrt_dk")).query)
    assert "room" not in link and "key" not in link and link["sd_dk"] == ["64"]


# --- polls ------------------------------------------------------------------------------------------------------

POLL = "sqrt_dk:predict:spread"


def test_a_poll_counts_answers_changes_and_reveals_on_every_screen():
    pres, code, _ = start_class()
    students = [fresh(room=code) for _ in range(3)]
    go(pres, "sqrt_dk")
    assert f"_class_ask__{POLL}" in button_keys(pres)
    for st in students:
        st.run()
        assert f"_class_ask__{POLL}" not in button_keys(st)
    pres.button(key=f"_class_ask__{POLL}").click().run()
    assert snapshot(code).poll == rs.Poll(POLL, snapshot(code).poll.options, False)
    options = snapshot(code).poll.options
    for i, st in enumerate(students):
        st.run()
        radio = st.radio(key=f"_class_answer__{POLL}")
        assert tuple(radio.options) == options
        radio.set_value(options[1 if i < 2 else 2]).run()
    students[2].radio(key=f"_class_answer__{POLL}").set_value(options[1]).run()      # a changed mind
    counts = classroom.room_store().poll_counts(code, POLL)
    assert counts == {o: (3 if i == 1 else 0) for i, o in enumerate(options)}
    pres.run()
    assert "**3 of 3 answered**" in [m.value for m in pres.markdown]
    assert not any("_class_chart" in c.proto.id for c in pres.get("plotly_chart"))   # hidden until shown
    pres.button(key=f"_class_show__{POLL}").click().run()
    chart = next(c for c in pres.get("plotly_chart") if "_class_chart" in c.proto.id)
    import json

    spec = json.loads(chart.proto.spec)
    assert sum(spec["data"][0]["x"]) == 3
    pres.button(key=f"_class_reveal__{POLL}").click().run()
    assert snapshot(code).poll.revealed
    right = next(c.text for c in classroom_question().choices if c.correct)
    for st in students:
        st.run()
        assert f"The answer:** {literal(right, 200)}" in texts(st)
        # the class answer is the student's own prediction, revealed as their own reveal would
        assert st.radio(key=controls.prediction_key("sqrt_dk", "spread")).value == options[1]
        assert st.session_state[controls.revealed_key("sqrt_dk", "spread")]
        assert any("_class_chart" in c.proto.id for c in st.get("plotly_chart"))
    assert not classroom.room_store().answer(code, POLL, "late", options[0], time.time())


def test_a_presenter_who_reconnects_keeps_the_open_question_live():
    pres, code, key = start_class()
    go(pres, "sqrt_dk")
    pres.button(key=f"_class_ask__{POLL}").click().run()
    again = fresh(room=code, key=key)
    go(again, "sqrt_dk")
    assert f"_class_reveal__{POLL}" in button_keys(again) and f"_class_ask__{POLL}" not in button_keys(again)


def classroom_question():
    from ui.content import load_lesson

    return load_lesson("sqrt_dk").predictions["spread"]


def test_an_explorer_answers_for_themselves_not_the_room():
    pres, code, _ = start_class()
    st = fresh(room=code)
    go(pres, "sqrt_dk")
    pres.button(key=f"_class_ask__{POLL}").click().run()
    st.run()
    st.button(key="_class_explore").click().run()
    assert f"_class_answer__{POLL}" not in {r.key for r in st.radio}
    assert "sqrt_dk__predict__spread" in {r.key for r in st.radio}


# --- two rooms ----------------------------------------------------------------------------------------------------

def test_two_rooms_never_see_each_others_state():
    a, code_a, _ = start_class()
    b, code_b, _ = start_class()
    sa, sb = fresh(room=code_a), fresh(room=code_b)
    go(a, "sqrt_dk")
    a.slider(key="sd_dk").set_value(1000).run()
    a.button(key=f"_class_ask__{POLL}").click().run()
    go(b, "projection")
    sa.run()
    sb.run()
    assert sa.slider(key="sd_dk").value == 1000 and f"_class_answer__{POLL}" in {r.key for r in sa.radio}
    assert "sd_dk" not in sb.session_state and f"_class_answer__{POLL}" not in {r.key for r in sb.radio}
    assert snapshot(code_b).page == "projection" and snapshot(code_b).poll is None
    assert f"Following class {code_b}" in texts(sb) and code_a not in texts(sb)
