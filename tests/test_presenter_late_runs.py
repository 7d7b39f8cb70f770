"""A presenter's late timer or section run of a page left publishes nothing (ui.classroom.presenting.publish).

The presenter's page has a timer fragment (the follower count, publishing a section's controls) and lesson
sections of its own. A run of one of them that the browser sent just before the presenter opened another page
can reach the server after that page's full run has published: it ran the page left, and publishing its view
sent the whole class back there while the presenter stayed on the new page (seen in benchmarks/cloud_class.py:
a class of 60 left on the old lesson for two minutes). The rule: a timer's or a section's run publishes only the
page last published; a full run publishes whatever page it is.
"""

from __future__ import annotations

import pytest

from ui.classroom import presenting
from ui.classroom.session import ClassState


class Store:
    def __init__(self) -> None:
        self.published: list[str] = []

    def publish(self, code, key, page, step, controls, now, base=None) -> int:
        self.published.append(page)
        return len(self.published)


@pytest.fixture
def presenter(monkeypatch):
    state = ClassState(role="presenter", code="K7MQ2P", key="k" * 32, seen=1)
    store = Store()
    monkeypatch.setattr(presenting, "state", lambda: state)
    monkeypatch.setattr(presenting, "room_store", lambda: store)
    monkeypatch.setattr(presenting, "changed", lambda code, section: None)
    monkeypatch.setattr(presenting, "late", lambda slug: False)
    views = {"sqrt_dk": ("sqrt_dk", 1, {"sd_dk": ["64"]}), "projection": ("projection", 1, {})}
    monkeypatch.setattr(presenting.screens, "view", lambda slug: views[slug])
    return state, store, views


def test_a_late_timer_or_section_run_of_the_page_left_publishes_nothing(presenter):
    state, store, views = presenter
    presenting.publish("sqrt_dk")                                  # the full run of the first lesson
    presenting.publish("projection")                               # the presenter opens the next one
    assert store.published == ["sqrt_dk", "projection"]
    views["sqrt_dk"] = ("sqrt_dk", 1, {"sd_dk": ["128"]})          # the page left, as its late run draws it
    presenting.publish("sqrt_dk", from_tick=True)
    presenting.publish("sqrt_dk", section=("sqrt_dk", "_draws"))
    assert store.published == ["sqrt_dk", "projection"], "a late run sent the class back"
    assert state.published[0] == "projection"


def test_a_timer_or_section_run_of_the_page_on_screen_still_publishes(presenter):
    _, store, views = presenter
    presenting.publish("sqrt_dk")
    views["sqrt_dk"] = ("sqrt_dk", 1, {"sd_dk": ["128"]})          # a section's slider moved
    presenting.publish("sqrt_dk", section=("sqrt_dk", "_draws"))
    views["sqrt_dk"] = ("sqrt_dk", 1, {"sd_dk": ["256"]})
    presenting.publish("sqrt_dk", from_tick=True)
    presenting.publish("projection")                               # and a full run publishes any page
    assert store.published == ["sqrt_dk", "sqrt_dk", "sqrt_dk", "projection"]
