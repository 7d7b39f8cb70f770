"""Results stay with the presenter (issue 45), through AppTest: after "End the class" the key is in no browser
storage unless the presenter ticked "Keep results on this computer"; the tab that ended the class still reads
them, and so does the presenter link for the day; "Forget these results" asks to confirm.
"""

from __future__ import annotations

import time

from classroom import results as cr
from devtools.apptest import class_state, fresh, start_class, texts
from ui import classroom
from ui.classroom import results_view

PROGRESS = "_progress"          # ui.progress: what the browser's localStorage gets written from


def _stored(at) -> list | None:
    return at.session_state[PROGRESS].get("class_results") if PROGRESS in at.session_state else None


def _asked_and_ended(keep: bool):
    pres, code, key = start_class()
    student = fresh(room=code)
    classroom.room_store().open_poll(code, key, "p", ("yes", "no"), time.time())
    classroom.room_store().vote(code, "p", class_state(student).me, "yes", time.time())
    checkbox = pres.sidebar.checkbox(key=results_view.KEEP_KEY)
    assert checkbox.label == "Keep results on this computer" and checkbox.value is False   # off by default
    if keep:
        checkbox.check().run()
    pres.sidebar.button(key="_class_end").click().run()
    assert not pres.exception and class_state(pres).role is None
    return pres, code, key


def test_after_the_end_the_key_stays_in_no_browser_unless_the_presenter_keeps_it():
    pres, code, key = _asked_and_ended(keep=False)
    assert _stored(pres) is None and key not in texts(pres)        # nothing for localStorage: a shared computer
    assert f"Class {code} has ended" in texts(pres)                # this tab still reads them
    pres.button(key="_class_results_after").click().run()
    assert "Download results (CSV)" in [b.label for b in pres.get("download_button")]
    kept, kept_code, kept_key = _asked_and_ended(keep=True)
    assert _stored(kept)[:2] == [kept_code, kept_key]
    assert _stored(kept)[2] > time.time()


def test_the_presenter_link_opens_an_ended_class_results_for_that_tab_only():
    _, code, key = _asked_and_ended(keep=False)
    again = fresh(room=code, key=key)
    assert class_state(again).role is None and f"Class {code} has ended" in texts(again)
    assert _stored(again) is None
    again.button(key="_class_results_after").click().run()
    assert not again.exception
    expected = cr.rows(classroom.room_store().results(code, key, time.time()))
    assert {r.option: r.count for r in expected} == {"yes": 1, "no": 0}
    stranger = fresh(room=code, key="not-the-key")
    assert f"Class {code} has ended" not in texts(stranger)


def test_forget_these_results_asks_first():
    pres, code, _ = _asked_and_ended(keep=True)
    forget = next(p for p in pres.get("popover") if "Forget these results" in str(p.proto))
    assert [b.label for b in forget.children.values() if b.type == "button"] == ["Yes, forget these results"]
    assert f"Class {code} has ended" in texts(pres)                # nothing forgotten until confirmed
    pres.button(key="_class_results_forget").click().run()
    assert _stored(pres) is None and f"Class {code} has ended" not in texts(pres)
