"""Several presenter screens of one class (issue 46): a publish made from an older version of the room than the
room's changes nothing and raises Outdated, on every backend, so a screen that is behind never puts its older
view back; an unchanged view, or a publish without ``base``, is never refused."""

from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as hs

from classroom import store as rs
from tests.test_classroom_store import FACTORY_OK, T0, store, store_factory  # noqa: F401  (fixtures)


def test_a_publish_from_the_rooms_version_goes_through_and_bumps_it(store):  # noqa: F811
    code, key = store.create_room(T0)
    base = store.version(code, T0)
    v = store.publish(code, key, "sqrt_dk", 1, {"sd_dk": ["72"]}, T0, base=base)
    assert v == base + 1
    assert store.publish(code, key, "sqrt_dk", 2, {"sd_dk": ["72"]}, T0, base=v) == v + 1
    assert store.snapshot(code, T0).step == 2


def test_a_publish_from_an_older_version_changes_nothing(store):  # noqa: F811
    code, key = store.create_room(T0)
    projector = store.publish(code, key, "sqrt_dk", 1, {"sd_dk": ["72"]}, T0)
    console = store.publish(code, key, "sqrt_dk", 1, {"sd_dk": ["74"]}, T0 + 1, base=projector)
    with pytest.raises(rs.Outdated):                  # the projector, still at 72, presses Next
        store.publish(code, key, "sqrt_dk", 2, {"sd_dk": ["72"]}, T0 + 2, base=projector)
    snap = store.snapshot(code, T0 + 2)
    assert (snap.version, snap.step, snap.controls) == (console, 1, {"sd_dk": ["74"]})
    # Rebased on the room's version, the same move goes through, on top of the console's.
    assert store.publish(code, key, "sqrt_dk", 2, {"sd_dk": ["74"]}, T0 + 3, base=console) == console + 1


def test_the_rooms_own_view_is_never_refused_and_no_base_is_never_checked(store):  # noqa: F811
    code, key = store.create_room(T0)
    v = store.publish(code, key, "projection", 0, {"pr_a": ["1"]}, T0)
    store.open_poll(code, key, "projection:predict:x", ("a", "b"), T0)   # another version, the same view
    now = store.version(code, T0)
    assert now > v
    assert store.publish(code, key, "projection", 0, {"pr_a": ["1"]}, T0, base=v) == now
    assert store.publish(code, key, "projection", 0, {"pr_a": ["2"]}, T0) == now + 1


def test_an_outdated_publish_still_needs_the_key(store):  # noqa: F811
    code, key = store.create_room(T0)
    v = store.publish(code, key, "projection", 0, {}, T0)
    store.publish(code, key, "projection", 1, {}, T0)
    with pytest.raises(rs.NotPresenter):
        store.publish(code, "not the key", "projection", 2, {}, T0, base=v)


steps = hs.lists(hs.tuples(hs.sampled_from(["projector", "console"]), hs.integers(1, 5)), min_size=1, max_size=12)


@settings(max_examples=40, suppress_health_check=FACTORY_OK)
@given(moves=steps)
def test_only_a_screen_that_saw_the_rooms_latest_version_changes_it(store_factory, moves):  # noqa: F811
    """Two screens publish in any order, each from the version it last saw; a screen that is told it is behind
    looks again (as the app's screen does). The room ends at the last move made from its latest version."""
    room = store_factory()
    code, key = room.create_room(T0)
    seen = {"projector": room.version(code, T0), "console": room.version(code, T0)}
    last = None
    for who, step in moves:
        try:
            seen[who] = room.publish(code, key, "sqrt_dk", step, {}, T0, base=seen[who])
            last = step
        except rs.Outdated:
            assert seen[who] != room.version(code, T0)
            seen[who] = room.version(code, T0)
    assert room.snapshot(code, T0).step == (last or 0)


# --- two presenter screens of one class, through AppTest (each run is what a wake or a press makes) -----------

SLUG = "sqrt_dk"
DK, SEED = "sd_dk", "sd_seed"
NEXT, BACK = f"{SLUG}__step__next", f"{SLUG}__step__back"


def _room(code: str):
    import time

    from ui import classroom

    return classroom.room_store().snapshot(code, time.time())


def _screens():
    """The projector (it started the class, in presenter mode, on the √dₖ lesson) and a laptop that opened the
    presenter link: two presenter screens of one class, both showing the room's view."""
    from devtools.apptest import class_state, fresh, start_class

    projector, code, key = start_class(present="1")
    projector.switch_page(f"pages/{SLUG}.py").run()
    laptop = fresh(room=code, key=key)
    for at in (projector, laptop):
        assert not at.exception, [e.value for e in at.exception]
        assert class_state(at).role == "presenter"
    assert laptop.slider(key=DK).value == projector.slider(key=DK).value
    return projector, laptop, code


def _moved(value: int) -> int:
    """Another value of the dₖ slider (1 to 1024) than ``value``."""
    return value + 7 if value + 7 <= 1024 else value - 7


def test_a_move_on_either_screen_shows_on_the_other_and_its_rerun_sends_nothing():
    projector, laptop, code = _screens()
    dk = _moved(laptop.slider(key=DK).value)
    laptop.slider(key=DK).set_value(dk).run()
    assert _room(code).controls[DK] == [str(dk)]
    version = _room(code).version
    projector.run()                                    # what its fragment's look at the room starts
    assert projector.slider(key=DK).value == dk
    assert _room(code).version == version, "the projector sent the view it had just taken"
    projector.button(key=NEXT).click().run()
    laptop.run()
    assert _room(code).step == 2 and laptop.session_state[f"{SLUG}__step"] == 2
    assert laptop.slider(key=DK).value == dk


def test_a_screen_that_is_behind_never_moves_the_class_back():
    projector, laptop, code = _screens()
    old = projector.slider(key=DK).value
    dk = _moved(old)
    laptop.slider(key=DK).set_value(dk).run()          # the projector still shows the old dₖ...
    projector.button(key=NEXT).click().run()           # ...and its Next moves the class one step on, keeping dₖ
    room = _room(code)
    assert (room.step, room.controls[DK]) == (2, [str(dk)]), (room.step, room.controls.get(DK), old)
    assert projector.slider(key=DK).value == dk
    laptop.button(key=NEXT).click().run()              # the laptop, at step 1, is behind now: Next goes to 3
    assert _room(code).step == 3
    projector.button(key=BACK).click().run()           # and the projector's Back, from 2, goes to 2, not 1
    assert _room(code).step == 2 and projector.session_state[f"{SLUG}__step"] == 2
    assert _room(code).controls[DK] == [str(dk)]


def test_a_control_moved_on_a_screen_that_is_behind_keeps_both_moves():
    projector, laptop, code = _screens()
    dk = _moved(laptop.slider(key=DK).value)
    seed = projector.number_input(key=SEED).value + 1
    laptop.slider(key=DK).set_value(dk).run()
    projector.number_input(key=SEED).set_value(seed).run()   # behind on dₖ, moving the seed
    room = _room(code)
    assert (room.controls[DK], room.controls[SEED]) == ([str(dk)], [str(seed)])
    assert projector.slider(key=DK).value == dk
    laptop.run()
    assert (laptop.slider(key=DK).value, laptop.number_input(key=SEED).value) == (dk, seed)


def test_a_question_asked_on_one_screen_is_asked_on_the_other():
    from devtools.apptest import class_state

    projector, laptop, code = _screens()
    asked = next(b.key for b in laptop.button if b.key and b.key.startswith("_class_ask__"))
    laptop.button(key=asked).click().run()
    projector.run()
    poll = _room(code).poll
    assert poll is not None and class_state(projector).poll == (poll.poll_id, poll.options, poll.revealed)
