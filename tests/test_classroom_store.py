"""The room store's contract (classroom/store.py), checked on every backend.

Every test takes the ``store`` fixture (a fresh store with the default limits) or ``store_factory``
(``store_factory(max_rooms=..., max_followers=..., max_polls=...)`` → a fresh store with those limits).
Another backend joins by adding its name to ``BACKENDS`` and a branch to ``_make``; the tests
themselves name no backend, except the few at the end that look inside the in-process store.
Time is passed in (``now``), so expiry is tested without sleeping.
"""

from __future__ import annotations

import string
import threading
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings, strategies as hs

from classroom import store as rs
from classroom.memory import MemoryRoomStore
from tests.conftest import room_store_of

BACKENDS = ["memory", "redis"]
T0 = 1_000_000.0                                    # an arbitrary "now"
OPTIONS = ("It doubles", "It halves", "It stays the same")


def _make(kind: str, request, **limits):
    return room_store_of(kind, request, **limits)


@pytest.fixture(params=BACKENDS)
def store_factory(request):
    made = []

    def factory(**limits):
        s = _make(request.param, request, **limits)
        made.append(s)
        return s

    yield factory


@pytest.fixture
def store(store_factory):
    return store_factory()


# store_factory makes a fresh store per call, so one fixture serves every generated example.
FACTORY_OK = [HealthCheck.function_scoped_fixture]


def _room(store, now=T0):
    code, key = store.create_room(now)
    return code, key


# --- rooms and keys -----------------------------------------------------------------------------------

def test_a_new_room_has_a_code_from_the_alphabet_and_a_128_bit_key(store):
    codes = set()
    for _ in range(50):
        code, key = store.create_room(T0)
        assert len(code) == rs.CODE_LENGTH and set(code) <= set(rs.CODE_ALPHABET)
        # token_urlsafe(16): 16 random bytes → 22 base64url characters, 6 bits each (≥ 128 bits).
        assert len(key) >= 22 and set(key) <= set(string.ascii_letters + string.digits + "-_")
        codes.add(code)
    assert len(codes) == 50
    assert not set("0O1IL") & set(rs.CODE_ALPHABET)


def test_a_new_room_starts_at_version_1_with_no_page_and_no_poll(store):
    code, _ = _room(store)
    snap = store.snapshot(code, T0)
    assert (snap.version, snap.page, snap.step, snap.controls, snap.poll) == (1, "", 0, {}, None)
    assert store.version(code, T0) == 1
    assert store.follower_count(code, T0) == 0


def test_only_the_right_key_is_the_presenter(store):
    code, key = _room(store)
    other_code, other_key = _room(store)
    assert store.is_presenter(code, key)
    assert not store.is_presenter(code, other_key)
    assert not store.is_presenter(other_code, key)
    for wrong in ("", key[:-1], key + "x", key.upper() if key.upper() != key else key.lower(), "x" * 10_000):
        assert not store.is_presenter(code, wrong)
    for not_text in (None, 12, b"bytes", [key]):
        assert not store.is_presenter(code, not_text)
    assert not store.is_presenter("ZZZZZZ", key)


def test_every_presenter_action_refuses_a_wrong_key(store):
    code, key = _room(store)
    store.open_poll(code, key, "p", OPTIONS, T0)
    for wrong in ("", "nope", key + "x", None):
        with pytest.raises(rs.NotPresenter):
            store.publish(code, wrong, "sqrt_dk", 1, {}, T0)
        with pytest.raises(rs.NotPresenter):
            store.open_poll(code, wrong, "q", OPTIONS, T0)
        with pytest.raises(rs.NotPresenter):
            store.reveal_poll(code, wrong, "p", T0)
        with pytest.raises(rs.NotPresenter):
            store.close_poll(code, wrong, T0)
        with pytest.raises(rs.NotPresenter):
            store.end_room(code, wrong)
    snap = store.snapshot(code, T0)
    assert snap.version == 2 and snap.page == "" and snap.poll == rs.Poll("p", OPTIONS, False)


@pytest.mark.parametrize("code", ["", "k7mq2", "K7MQ2PX", "O0I1L5", "'; DROP", "\x00" * 6, "Ｋ７ＭＱ２Ｐ",
                                  "A" * 10_000, "../../", "%00%00%", "<b>x</b>"])
def test_a_hostile_code_is_an_unknown_room_never_another_error(store, code):
    _room(store)
    for read in (lambda: store.version(code, T0), lambda: store.snapshot(code, T0),
                 lambda: store.heartbeat(code, "f", T0), lambda: store.follower_count(code, T0),
                 lambda: store.answer(code, "p", "f", "x", T0), lambda: store.poll_counts(code, "p"),
                 lambda: store.end_room(code, "k")):
        with pytest.raises(rs.UnknownRoom):
            read()
    assert not store.is_presenter(code, "k")


@given(text=hs.text(max_size=40))
def test_normal_code_accepts_only_six_alphabet_characters(text):
    code = rs.normal_code(text)
    if code is not None:
        assert len(code) == 6 and set(code) <= set(rs.CODE_ALPHABET)
        assert code == text.strip().upper()


def test_a_code_is_read_case_and_space_insensitively(store):
    code, key = _room(store)
    assert store.version(f"  {code.lower()} ", T0) == 1
    assert store.is_presenter(code.lower(), key)


# --- versioning ---------------------------------------------------------------------------------------

def test_version_bumps_only_when_what_students_see_changes(store):
    code, key = _room(store)
    v = store.publish(code, key, "sqrt_dk", 1, {"d_k": ["64"]}, T0)
    assert v == 2 == store.version(code, T0)
    assert store.publish(code, key, "sqrt_dk", 1, {"d_k": ["64"]}, T0 + 1) == 2          # same view
    assert store.publish(code, key, "sqrt_dk", 2, {"d_k": ["64"]}, T0 + 2) == 3          # step
    assert store.publish(code, key, "sqrt_dk", 2, {"d_k": ["128"]}, T0 + 3) == 4         # control
    assert store.publish(code, key, "projection", 2, {"d_k": ["128"]}, T0 + 4) == 5      # page
    store.heartbeat(code, "f1", T0 + 5)
    assert store.version(code, T0 + 5) == 5                                             # followers: no
    assert store.open_poll(code, key, "p", OPTIONS, T0 + 6) == 6
    assert store.open_poll(code, key, "p", OPTIONS, T0 + 7) == 6                          # already open
    assert store.answer(code, "p", "f1", OPTIONS[0], T0 + 8)
    assert store.version(code, T0 + 8) == 6                                             # answers: no
    assert store.reveal_poll(code, key, "p", T0 + 9) == 7
    assert store.reveal_poll(code, key, "p", T0 + 10) == 7                                # already shown
    assert store.close_poll(code, key, T0 + 11) == 8
    assert store.close_poll(code, key, T0 + 12) == 8                                      # nothing open


def test_control_order_does_not_matter_but_value_order_does(store):
    code, key = _room(store)
    v = store.publish(code, key, "qkv", 0, {"a": ["1"], "b": ["2", "3"]}, T0)
    assert store.publish(code, key, "qkv", 0, {"b": ["2", "3"], "a": ["1"]}, T0) == v
    assert store.publish(code, key, "qkv", 0, {"b": ["3", "2"], "a": ["1"]}, T0) == v + 1


def test_the_snapshot_is_what_was_published_and_a_copy(store):
    code, key = _room(store)
    controls = {"tokens": ["8"], "sentence": ["The <b>bank</b>"], "q": ["1 0", "0 1"]}
    store.publish(code, key, "real_model_lab", 3, controls, T0)
    controls["tokens"].append("9")                   # the caller's dict changes afterwards
    snap = store.snapshot(code, T0)
    assert (snap.page, snap.step) == ("real_model_lab", 3)
    assert snap.controls == {"tokens": ["8"], "sentence": ["The <b>bank</b>"], "q": ["1 0", "0 1"]}
    snap.controls["tokens"].append("10")             # and a reader's copy changes
    assert store.snapshot(code, T0).controls["tokens"] == ["8"]


views = hs.tuples(hs.sampled_from(["home", "sqrt_dk", "projection"]), hs.integers(0, 3),
                  hs.dictionaries(hs.sampled_from(["a", "b", "c"]), hs.lists(hs.sampled_from(["1", "2"]),
                                                                             max_size=2), max_size=3))


@settings(max_examples=60, suppress_health_check=FACTORY_OK)
@given(sequence=hs.lists(views, min_size=1, max_size=20))
def test_version_counts_the_changes_and_nothing_else(store_factory, sequence):
    store = store_factory()
    code, key = _room(store)
    expected, last = 1, ("", 0, {})
    for i, view in enumerate(sequence):
        if view != last:
            expected += 1
        last = view
        assert store.publish(code, key, *view, T0 + i) == expected
    assert store.snapshot(code, T0 + len(sequence)).version == expected


# --- limits -------------------------------------------------------------------------------------------

def test_rooms_past_the_limit_are_refused_and_expired_ones_make_room(store_factory):
    store = store_factory(max_rooms=3)
    for _ in range(3):
        store.create_room(T0)
    with pytest.raises(rs.RoomFull):
        store.create_room(T0)
    code, _ = store.create_room(T0 + rs.ROOM_TTL_S + 1)      # the first three expired meanwhile
    assert store.version(code, T0 + rs.ROOM_TTL_S + 1) == 1


def test_an_ended_room_frees_its_place(store_factory):
    store = store_factory(max_rooms=1)
    code, key = store.create_room(T0)
    with pytest.raises(rs.RoomFull):
        store.create_room(T0)
    store.end_room(code, key)
    new_code, new_key = store.create_room(T0)
    assert new_code != code and store.is_presenter(new_code, new_key) and store.version(new_code, T0) == 1


def test_followers_past_the_limit_are_refused_until_one_goes_quiet(store_factory):
    store = store_factory(max_followers=3)
    code, _ = _room(store)
    for f in ("a", "b", "c"):
        store.heartbeat(code, f, T0)
    store.heartbeat(code, "a", T0 + 1)                          # a follower already in: fine
    with pytest.raises(rs.RoomFull):
        store.heartbeat(code, "d", T0 + 2)
    store.heartbeat(code, "a", T0 + rs.FOLLOWER_TTL_S)          # b and c go quiet
    store.heartbeat(code, "d", T0 + rs.FOLLOWER_TTL_S + 2)
    assert store.follower_count(code, T0 + rs.FOLLOWER_TTL_S + 2) == 2


def test_polls_past_the_limit_are_refused_but_an_asked_one_can_be_asked_again(store_factory):
    store = store_factory(max_polls=2)
    code, key = _room(store)
    store.open_poll(code, key, "p1", OPTIONS, T0)
    store.open_poll(code, key, "p2", OPTIONS, T0)
    with pytest.raises(rs.RoomFull):
        store.open_poll(code, key, "p3", OPTIONS, T0)
    store.open_poll(code, key, "p1", OPTIONS, T0)
    assert store.snapshot(code, T0).poll.poll_id == "p1"


@pytest.mark.parametrize("controls", [
    {f"c{i}": ["1"] for i in range(rs.MAX_CONTROLS + 1)},
    {"big": ["x" * (rs.MAX_SNAPSHOT_CHARS + 1)]},
    {"many": ["x" * 1000] * 40},
    {"n": [1]}, {"n": "1"}, {3: ["1"]}, [("a", ["1"])],
])
def test_a_snapshot_past_the_limits_or_malformed_is_refused(store, controls):
    code, key = _room(store)
    with pytest.raises(ValueError):
        store.publish(code, key, "sqrt_dk", 0, controls, T0)
    assert store.version(code, T0) == 1


@pytest.mark.parametrize("page, step", [("", 0), ("x" * 500, 0), (None, 0), ("sqrt_dk", -1), ("sqrt_dk", True),
                                        ("sqrt_dk", 1.5), ("sqrt_dk", 10**9)])
def test_a_bad_page_or_step_is_refused(store, page, step):
    code, key = _room(store)
    with pytest.raises(ValueError):
        store.publish(code, key, page, step, {}, T0)


@pytest.mark.parametrize("poll_id, options", [
    ("", OPTIONS), ("p" * 500, OPTIONS), ("p", ()), ("p", ("only one",)), ("p", ("a", "a")),
    ("p", tuple(str(i) for i in range(rs.MAX_OPTIONS + 1))), ("p", ("a", "")), ("p", ("a", 2)),
    ("p", ("a", "x" * (rs.MAX_OPTION_CHARS + 1))),
])
def test_a_malformed_poll_is_refused(store, poll_id, options):
    code, key = _room(store)
    with pytest.raises(ValueError):
        store.open_poll(code, key, poll_id, options, T0)
    assert store.snapshot(code, T0).poll is None


# --- expiry and ending --------------------------------------------------------------------------------

def test_a_room_expires_four_hours_after_the_presenter_was_last_active(store):
    code, key = _room(store)
    for t in range(0, rs.ROOM_TTL_S + 1, 600):                 # a student keeps it from going idle
        store.heartbeat(code, "f", T0 + t)
    assert store.version(code, T0 + rs.ROOM_TTL_S) == 1
    store.publish(code, key, "home", 0, {}, T0 + rs.ROOM_TTL_S)           # the presenter is back
    for t in range(rs.ROOM_TTL_S, 2 * rs.ROOM_TTL_S + 2, 600):
        store.heartbeat(code, "f", T0 + t)
    assert store.version(code, T0 + 2 * rs.ROOM_TTL_S) == 2
    with pytest.raises(rs.UnknownRoom):
        store.version(code, T0 + 2 * rs.ROOM_TTL_S + 1)
    with pytest.raises(rs.UnknownRoom):                                    # and stays gone
        store.snapshot(code, T0 + rs.ROOM_TTL_S)


def test_followers_do_not_keep_a_room_alive(store):
    code, _ = _room(store)
    for t in range(0, rs.ROOM_TTL_S, 600):
        store.heartbeat(code, "f", T0 + t)
    with pytest.raises(rs.UnknownRoom):
        store.heartbeat(code, "f", T0 + rs.ROOM_TTL_S + 1)


def test_an_ended_room_is_unknown_to_everyone(store):
    code, key = _room(store)
    store.open_poll(code, key, "p", OPTIONS, T0)
    store.end_room(code, key)
    for read in (lambda: store.version(code, T0), lambda: store.snapshot(code, T0),
                 lambda: store.heartbeat(code, "f", T0), lambda: store.answer(code, "p", "f", OPTIONS[0], T0),
                 lambda: store.publish(code, key, "home", 0, {}, T0), lambda: store.end_room(code, key)):
        with pytest.raises(rs.UnknownRoom):
            read()
    assert not store.is_presenter(code, key)


def test_a_follower_counts_until_its_heartbeat_is_too_old(store):
    code, _ = _room(store)
    store.heartbeat(code, "a", T0)
    store.heartbeat(code, "a", T0 + 1)
    store.heartbeat(code, "b", T0 + 5)
    assert store.follower_count(code, T0 + 5) == 2
    assert store.follower_count(code, T0 + 1 + rs.FOLLOWER_TTL_S) == 2
    assert store.follower_count(code, T0 + 2 + rs.FOLLOWER_TTL_S) == 1
    assert store.follower_count(code, T0 + 6 + rs.FOLLOWER_TTL_S) == 0


# --- polls --------------------------------------------------------------------------------------------

def test_answers_per_question_stop_at_the_follower_limit(store_factory):
    store = store_factory(max_followers=2)
    code, key = _room(store)
    store.open_poll(code, key, "p", OPTIONS, T0)
    assert store.answer(code, "p", "a", OPTIONS[0], T0) and store.answer(code, "p", "b", OPTIONS[0], T0)
    assert not store.answer(code, "p", "c", OPTIONS[0], T0)
    assert store.answer(code, "p", "a", OPTIONS[1], T0)                    # a known answerer may change
    assert store.poll_counts(code, "p") == {OPTIONS[0]: 1, OPTIONS[1]: 1, OPTIONS[2]: 0}


def test_answers_are_counted_and_a_changed_answer_moves_one_count(store):
    code, key = _room(store)
    store.open_poll(code, key, "p", OPTIONS, T0)
    assert store.poll_counts(code, "p") == dict.fromkeys(OPTIONS, 0)
    assert store.answer(code, "p", "a", OPTIONS[0], T0)
    assert store.answer(code, "p", "b", OPTIONS[0], T0)
    assert store.answer(code, "p", "c", OPTIONS[2], T0)
    assert store.answer(code, "p", "a", OPTIONS[1], T0)                    # a changes their mind
    assert store.answer(code, "p", "a", OPTIONS[1], T0)                    # and says it twice
    assert store.poll_counts(code, "p") == {OPTIONS[0]: 1, OPTIONS[1]: 1, OPTIONS[2]: 1}
    assert list(store.poll_counts(code, "p")) == list(OPTIONS)             # in the question's order


@pytest.mark.parametrize("option", ["", "it doubles", OPTIONS[0] + " ", "x" * 10_000, None, 0, ["It doubles"]])
def test_an_answer_outside_the_options_is_dropped(store, option):
    code, key = _room(store)
    store.open_poll(code, key, "p", OPTIONS, T0)
    assert store.answer(code, "p", "a", OPTIONS[0], T0)
    assert not store.answer(code, "p", "a", option, T0)
    assert store.poll_counts(code, "p") == {OPTIONS[0]: 1, OPTIONS[1]: 0, OPTIONS[2]: 0}


def test_answers_to_a_question_not_open_are_dropped(store):
    code, key = _room(store)
    store.heartbeat(code, "a", T0)                                        # present: their answer outlives the close
    assert not store.answer(code, "p", "a", OPTIONS[0], T0)               # never asked
    store.open_poll(code, key, "p", OPTIONS, T0)
    store.open_poll(code, key, "q", ("yes", "no"), T0)
    assert not store.answer(code, "p", "a", OPTIONS[0], T0)               # no longer the open one
    assert store.answer(code, "q", "a", "yes", T0)
    store.close_poll(code, key, T0)
    assert not store.answer(code, "q", "b", "no", T0)                     # closed
    assert store.poll_counts(code, "p") == dict.fromkeys(OPTIONS, 0)
    assert store.poll_counts(code, "q") == {"yes": 1, "no": 0}
    with pytest.raises(rs.UnknownRoom):
        store.poll_counts(code, "never asked")


def test_answers_after_the_reveal_are_dropped_and_counts_stay(store):
    code, key = _room(store)
    store.open_poll(code, key, "p", OPTIONS, T0)
    store.answer(code, "p", "a", OPTIONS[0], T0)
    store.reveal_poll(code, key, "p", T0)
    assert store.snapshot(code, T0).poll == rs.Poll("p", OPTIONS, revealed=True)
    assert not store.answer(code, "p", "a", OPTIONS[1], T0)
    assert not store.answer(code, "p", "b", OPTIONS[1], T0)
    assert store.poll_counts(code, "p") == {OPTIONS[0]: 1, OPTIONS[1]: 0, OPTIONS[2]: 0}


def test_asking_again_keeps_the_answers_so_far(store):
    code, key = _room(store)
    store.open_poll(code, key, "p", OPTIONS, T0)
    store.answer(code, "p", "a", OPTIONS[2], T0)
    store.open_poll(code, key, "q", ("yes", "no"), T0)
    store.open_poll(code, key, "p", OPTIONS, T0)
    assert store.poll_counts(code, "p")[OPTIONS[2]] == 1
    assert store.answer(code, "p", "a", OPTIONS[0], T0)                    # a's answer still moves
    assert store.poll_counts(code, "p") == {OPTIONS[0]: 1, OPTIONS[1]: 0, OPTIONS[2]: 0}


def test_a_followers_chosen_option_is_theirs_alone_until_the_reveal_or_the_next_round(store):
    code, key = _room(store)
    store.open_poll(code, key, "p", OPTIONS, T0)
    for f in "ab":
        store.heartbeat(code, f, T0)
    assert store.chosen(code, "p", "a", T0) is None                        # asked, not answered yet
    store.vote(code, "p", "a", OPTIONS[1], T0)
    store.vote(code, "p", "b", OPTIONS[2], T0)
    store.vote(code, "p", "a", OPTIONS[0], T0)                             # a changes their mind
    assert [store.chosen(code, "p", f, T0) for f in "abc"] == [OPTIONS[0], OPTIONS[2], None]
    assert store.chosen(code, "never asked", "a", T0) is None
    store.ask_again(code, key, "p", T0)                                    # a new round starts blank
    assert store.chosen(code, "p", "a", T0) is None
    store.vote(code, "p", "a", OPTIONS[1], T0)
    assert store.chosen(code, "p", "a", T0) == OPTIONS[1]
    store.reveal_poll(code, key, "p", T0)                                  # who chose what is forgotten
    assert store.chosen(code, "p", "a", T0) is None
    with pytest.raises(ValueError):
        store.chosen(code, "p", "", T0)


answers = hs.lists(hs.tuples(hs.sampled_from("abcdef"), hs.sampled_from((*OPTIONS, "junk", ""))), max_size=40)


@settings(max_examples=80, suppress_health_check=FACTORY_OK)
@given(sequence=answers)
def test_counts_equal_each_followers_last_valid_answer(store_factory, sequence):
    store = store_factory()
    code, key = _room(store)
    store.open_poll(code, key, "p", OPTIONS, T0)
    last: dict[str, str] = {}
    for follower, option in sequence:
        assert store.answer(code, "p", follower, option, T0) == (option in OPTIONS)
        if option in OPTIONS:
            last[follower] = option
    expected = Counter(last.values())
    assert store.poll_counts(code, "p") == {o: expected[o] for o in OPTIONS}


def test_concurrent_answers_are_all_counted(store):
    code, key = _room(store)
    store.open_poll(code, key, "p", OPTIONS, T0)

    def answer_many(worker: int) -> None:
        for i in range(100):                          # 400 in all: under MAX_FOLLOWERS answerers
            store.answer(code, "p", f"w{worker}-{i}", OPTIONS[i % 3], T0)

    threads = [threading.Thread(target=answer_many, args=(w,)) for w in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    counts = store.poll_counts(code, "p")
    assert sum(counts.values()) == 400 and counts[OPTIONS[0]] == 4 * 34


# --- isolation ----------------------------------------------------------------------------------------

def test_two_rooms_never_see_each_others_state(store):
    a, key_a = _room(store)
    b, key_b = _room(store)
    store.publish(a, key_a, "sqrt_dk", 2, {"d_k": ["512"]}, T0)
    store.open_poll(a, key_a, "p", OPTIONS, T0)
    store.answer(a, "p", "f", OPTIONS[1], T0)
    store.heartbeat(a, "f", T0)
    assert store.snapshot(b, T0) == rs.Snapshot(1, "", 0, {}, None)
    assert store.follower_count(b, T0) == 0
    assert not store.answer(b, "p", "f", OPTIONS[1], T0)
    with pytest.raises(rs.UnknownRoom):
        store.poll_counts(b, "p")
    with pytest.raises(rs.NotPresenter):
        store.publish(b, key_a, "home", 0, {}, T0)
    store.open_poll(b, key_b, "p", OPTIONS, T0)                            # the same question, apart
    store.answer(b, "p", "g", OPTIONS[0], T0)
    assert store.poll_counts(a, "p") == {OPTIONS[0]: 0, OPTIONS[1]: 1, OPTIONS[2]: 0}
    assert store.poll_counts(b, "p") == {OPTIONS[0]: 1, OPTIONS[1]: 0, OPTIONS[2]: 0}
    store.end_room(b, key_b)
    assert store.snapshot(a, T0).controls == {"d_k": ["512"]}


# --- the in-process store's insides -------------------------------------------------------------------

def test_memory_store_keeps_only_a_hash_of_the_key():
    store = MemoryRoomStore()
    code, key = store.create_room(T0)
    inside = repr(vars(store._rooms[code]))
    assert key not in inside and key.encode() not in store._rooms[code].key_hash


def test_memory_store_drops_who_chose_what_at_the_reveal():
    store = MemoryRoomStore()
    code, key = store.create_room(T0)
    store.open_poll(code, key, "p", OPTIONS, T0)
    store.answer(code, "p", "follower-1", OPTIONS[0], T0)
    store.reveal_poll(code, key, "p", T0)
    assert "follower-1" not in repr(vars(store._rooms[code]).get("polls"))


def test_memory_store_stays_flat_when_followers_come_and_go():
    store = MemoryRoomStore(max_followers=5)
    code, _ = store.create_room(T0)
    for i in range(1000):
        store.heartbeat(code, f"f{i}", T0 + i * (rs.FOLLOWER_TTL_S + 1) / 4)
    assert len(store._rooms[code].followers) <= 2 * 5       # the live ones, and some within the rejoin grace
