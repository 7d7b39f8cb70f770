"""Class polls that are the lesson's own questions (issue 28), with honest counts (issue 29), in real Chromium
against the real server: a presenter and three students on a phone (390×844), a laptop (1280×720) and a
tablet (820×1180).

The tests run in order and share one class (the ``polls`` fixture): the presenter's step is brought into a
phone's view; a "Check yourself" poll reaches students
who never revealed the page's prediction and is revealed with no votes (its answer marked all the same);
then the prediction is asked, with results hidden until "Show the results", asked again after discussion
(both rounds charted side by side), and revealed: each student's page has their class answer committed as
their own prediction, still after "Stop asking" and a reload. Websocket clients then flood the question
with sessions that do not follow, and a follower votes again after a reload: "N of M answered" stays true.
"""

from __future__ import annotations

import asyncio
import json
import re
import time

import pytest

from devtools import harness, ws_client
from devtools.ws_client import Client, widget_state
from tests.browser.conftest import SCREENSHOTS, device, wait_following
from tests.browser.test_step_scroll import step_labels
from ui.content import load_lesson

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser")]

WAIT_MS = 120_000                  # generous waits for a loaded machine, not targets
SIZES = {"phone": (390, 844), "laptop": (1280, 720), "tablet": (820, 1180)}
SPREAD = load_lesson("sqrt_dk").predictions["spread"]
WHY = load_lesson("sqrt_dk").check("why_sqrt")
PREDICT, CHECK = "sqrt_dk:predict:spread", "sqrt_dk:check:why_sqrt"
OWN_RADIO = ".st-key-sqrt_dk__predict__spread"
RESULTS = '[class*="st-key-_class_tally"]'
PRESENTER_ONLY = ("Show the results", "Ask again after discussion", "Hide results until the reveal",
                  "Reveal the answer to the class", "Stop asking", "Ask the class")
QUESTION_IN_VIEW_JS = """() => { const q = document.querySelector('.st-key-_class_question');
    if (!q) return false; const r = q.getBoundingClientRect(); return r.top >= 0 && r.top < innerHeight - 80; }"""
# The presenter's class chart: its traces' names, y labels and counts (null while none is drawn).
CHART_JS = """() => {
    const box = document.querySelector('[class*="st-key-_class_tally"]');
    const el = box && box.querySelector('.js-plotly-plot');
    if (!el || !el.data) return null;
    return JSON.stringify(el.data.map(t => ({name: t.name || '', y: Array.from(t.y), x: Array.from(t.x)})));
}"""


class Polls:
    def __init__(self, browser, base: str) -> None:
        self.browser, self.base, self.contexts, self.code = browser, base, [], ""
        self.presenter = self._page(1280, 720)
        self.students: dict[str, object] = {}

    def _page(self, width: int, height: int, scheme: str = "light"):
        context, page = device(self.browser, width, height, scheme, WAIT_MS)
        self.contexts.append(context)
        return page

    def join(self, name: str):
        page = self._page(*SIZES[name], scheme="dark" if name == "phone" else "light")   # both themes seen
        page.goto(f"{self.base}/?room={self.code}")
        self.students[name] = page
        return page


@pytest.fixture(scope="module")
def polls(server, browser):
    room = Polls(browser, server)
    yield room
    for context in room.contexts:
        context.close()


def _shot(page, name: str, width: int) -> None:
    harness.save_full(page, SCREENSHOTS / name, width)


def _class_radio(page, kind: str):
    # .first: for a moment after a rerun, Streamlit can show the stale copy of an element beside the new one
    return page.locator('[class*="st-key-_class_answer"] [data-testid="stRadio"]', has_text=kind).first


def _vote(page, kind: str, index: int) -> None:
    box = _class_radio(page, kind)
    box.wait_for()
    box.locator("label").nth(1 + index).click()             # label 0 is the question itself


def _chart(page) -> list[dict] | None:
    raw = page.evaluate(CHART_JS)
    return None if raw is None else json.loads(raw)


def _wait_chart(page, check) -> list[dict]:
    page.locator(RESULTS).first.scroll_into_view_if_needed()
    found: list = []

    def ready() -> bool:
        data = _chart(page)
        if data is not None and check(data):
            found.append(data)
            return True
        return False

    harness.until(ready, WAIT_MS / 1000, "the class chart", every_s=0.25, pause=page.wait_for_timeout)
    return found[-1]


def _bring(page, selector: str) -> None:
    """Scroll ``selector`` into view and wait until it stays there (the guide's scroll may hold another element in
    view for a moment after a question opens)."""
    box = page.locator(selector).first
    still = []

    def stays() -> bool:
        box.scroll_into_view_if_needed()
        top = box.bounding_box()["y"]
        still.append(0 <= top < page.viewport_size["height"] / 2)
        return len(still) >= 4 and all(still[-4:])

    harness.until(stays, WAIT_MS / 1000, f"{selector} in view", every_s=0.3, pause=page.wait_for_timeout)


def _answered(page, text: str) -> None:
    page.locator(RESULTS).get_by_text(text).wait_for()


def _no_exception(page) -> None:
    assert page.locator('[data-testid="stException"]').count() == 0
    assert not page.errors, page.errors


def test_a_class_follows_the_presenter_to_a_lesson(polls):
    pg = polls.presenter
    pg.goto(f"{polls.base}/?present=1")
    harness.click_until(pg.get_by_role("button", name="Start a class"),
                        pg.get_by_text(re.compile(r"Room code: [A-Z2-9]{6}")), each_ms=40_000)
    pg.get_by_text("0 students following").wait_for()
    polls.code = re.search(r"Room code: ([A-Z2-9]{6})", pg.inner_text("body")).group(1)
    pg.locator('[data-testid="stSidebarNav"] a', has_text="Why divide by").click()
    pg.wait_for_url(re.compile(r"/sqrt_dk"))
    for name in SIZES:
        polls.join(name)
    for name, st in polls.students.items():
        st.wait_for_url(re.compile(r"/sqrt_dk\?.*room=" + polls.code), timeout=WAIT_MS * 2)
        wait_following(st, polls.code, who=f"the {name}")
    pg.get_by_text("3 students following").wait_for()


def test_a_presenters_step_is_brought_into_view(polls):
    phone = polls.students["phone"]
    phone.locator('[class*="st-key-_class_step__1"]').first.wait_for()
    phone.get_by_role("link", name=re.compile("^Next:")).first.scroll_into_view_if_needed()   # far down the page
    polls.presenter.get_by_role("button", name="Next ▶").click()
    phone.locator('[class*="st-key-_class_step__2"]').first.wait_for()
    # The new step's section heading (not the step line) is brought to the top: tests/browser/test_step_scroll.py.
    phone.wait_for_function("""label => { const h = Array.from(document.querySelectorAll('[data-testid="stMain"] h3'))
        .find(e => e.textContent.includes(label) && e.getBoundingClientRect().height > 0);
        if (!h) return false; const r = h.getBoundingClientRect(); return r.top >= 0 && r.top < innerHeight / 2; }""",
                            arg=step_labels("sqrt_dk")[1])


def test_a_check_poll_reaches_students_who_never_revealed_and_its_answer_is_marked_with_no_votes(polls):
    pg = polls.presenter
    for st in polls.students.values():                     # on their own, the check waits for the prediction
        st.get_by_role("button", name="Reveal the answer", exact=True).wait_for(state="attached")
        assert st.locator('[class*="st-key-_class_answer"]').count() == 0
    pg.get_by_role("button", name="Ask the class").last.click()     # the check: the last question on the page
    _answered(pg, "0 of 3 answered")
    for st in polls.students.values():
        _class_radio(st, "Check yourself").wait_for()
    pg.get_by_role("button", name="Reveal the answer to the class").click()
    data = _wait_chart(pg, lambda d: any("(the answer)" in y for y in d[0]["y"]))
    right = WHY.choices[WHY.answer].text
    marked = [y for y in data[0]["y"] if "(the answer)" in y]
    assert len(marked) == 1 and right.split()[0] in marked[0] and sum(data[0]["x"]) == 0
    for name, st in polls.students.items():
        harness.until(lambda st=st: "The answer:" in st.inner_text("body"), WAIT_MS / 1000,
                      f"the answer on the {name}", every_s=0.25, pause=st.wait_for_timeout)
    pg.get_by_role("button", name="Stop asking").click()
    pg.get_by_role("button", name="Ask the class").first.wait_for()


def test_a_question_opens_in_view_with_a_notice_and_results_stay_hidden(polls):
    pg = polls.presenter
    pg.get_by_role("button", name="Ask the class").first.click()   # the prediction
    _answered(pg, "0 of 3 answered")
    phone = polls.students["phone"]
    for name, st in polls.students.items():
        try:
            st.get_by_text("The class is answering a question").wait_for()
            _class_radio(st, "Predict first").wait_for()
        except Exception:
            _shot(st, f"polls_fail_notice_{name}.png", st.viewport_size["width"])
            raise
        assert "Common trap." not in st.inner_text("body")       # nothing gives it away meanwhile
    # The phone's view was brought to the question: its top inside the screen.
    try:
        phone.wait_for_function(QUESTION_IN_VIEW_JS)
    except Exception:
        _shot(phone, "polls_fail_phone_scroll.png", 390)
        raise
    _bring(phone, '[class*="st-key-_class_notice__"]')
    _shot(phone, "polls_student_phone_notice.png", 390)
    right = SPREAD.answer
    wrong = (right + 1) % len(SPREAD.choices)
    for name, index in (("phone", wrong), ("laptop", right), ("tablet", wrong)):
        _vote(polls.students[name], "Predict first", index)
    _answered(pg, "3 of 3 answered")
    for st in polls.students.values():                      # answered: the notice is gone
        st.get_by_text("The class is answering a question").wait_for(state="detached")
    assert pg.locator(f"{RESULTS} [data-testid='stPlotlyChart']").count() == 0    # hidden until shown
    _shot(pg, "polls_presenter_hidden.png", 1280)
    pg.get_by_role("button", name="Show the results").click()
    data = _wait_chart(pg, lambda d: sum(d[0]["x"]) == 3)
    assert not any("(the answer)" in y for y in data[0]["y"])  # shown, the answer not hinted


def test_asked_again_after_discussion_both_rounds_are_charted(polls):
    pg = polls.presenter
    pg.get_by_role("button", name="Ask again after discussion").click()
    _answered(pg, "0 of 3 answered")
    right = SPREAD.answer
    for st in polls.students.values():
        st.get_by_text("After discussion.").wait_for()
        box = _class_radio(st, "Predict first")
        assert box.locator("input:checked").count() == 0         # their first answer is not shown
        assert "The answer:" not in st.inner_text("body")
        _vote(st, "Predict first", right)
    _answered(pg, "3 of 3 answered")
    pg.get_by_role("button", name="Show the results").click()
    data = _wait_chart(pg, lambda d: len(d) == 2 and sum(d[1]["x"]) == 3)
    assert [t["name"] for t in data] == ["First vote", "After discussion"]
    assert sum(data[0]["x"]) == 3 and data[0]["x"][right] == 1 and data[1]["x"][right] == 3
    _shot(pg, "polls_presenter_two_rounds.png", 1280)


def _committed(page) -> int:
    return page.locator(f'{OWN_RADIO} input[type="radio"]').evaluate_all("els => els.findIndex(e => e.checked)")


def _own_prediction_revealed(page, index: int, what: str) -> None:
    try:
        page.locator(OWN_RADIO).first.wait_for()
        harness.until(lambda: _committed(page) == index, WAIT_MS / 1000, f"the committed prediction on {what}",
                      every_s=0.25, pause=page.wait_for_timeout)
    except Exception:
        print(what, page.evaluate("() => localStorage.getItem('attention_progress_v1')"))
        _shot(page, "polls_fail_committed.png", page.viewport_size["width"])
        raise
    assert page.get_by_role("button", name="Reveal the answer", exact=True).count() == 0
    page.get_by_text("Common trap.").first.wait_for()           # unlocked: the trap follows the prediction


def test_the_class_reveal_commits_each_answer_and_it_stays(polls):
    pg = polls.presenter
    pg.get_by_role("button", name="Reveal the answer to the class").click()
    right = SPREAD.answer
    for name, st in polls.students.items():
        _own_prediction_revealed(st, right, name)
    _bring(polls.students["phone"], OWN_RADIO)
    _shot(polls.students["phone"], "polls_student_phone_revealed.png", 390)
    pg.get_by_role("button", name="Stop asking").click()
    pg.get_by_role("button", name="Ask the class").first.wait_for()
    for name, st in polls.students.items():
        harness.until(lambda st=st: "The answer:" not in st.inner_text("body"), WAIT_MS / 1000,
                      f"the class summary gone on the {name}", every_s=0.25, pause=st.wait_for_timeout)
        _own_prediction_revealed(st, right, f"{name} after Stop asking")
    phone = polls.students["phone"]
    phone.reload()
    wait_following(phone, polls.code, who="the phone")
    _own_prediction_revealed(phone, right, "the phone after a reload")
    for st in (pg, *polls.students.values()):
        _no_exception(st)
    for st in polls.students.values():
        text = st.inner_text("body")
        assert not [label for label in PRESENTER_ONLY if label in text]


# --- honest counts: websocket sessions against the same server ----------------------------------------------------

WAIT_S = WAIT_MS / 1000
BROWSER = "b" * 32                   # the follower id one student's browser keeps in localStorage
RIGHT, OTHER = SPREAD.choices[SPREAD.answer].text, SPREAD.choices[SPREAD.answer - 1].text
ANSWERED = re.compile(r"^\*\*(\d+) of (\d+) answered\*\*")


def _counts(presenter: Client) -> list[tuple[int, int]]:
    return [(int(m.group(1)), int(m.group(2))) for m in map(ANSWERED.match, presenter.markdown) if m]


async def _asked(base: str, clients: list) -> tuple[Client, Client, str]:
    """A presenter (websocket client) asks the prediction; one follower answers it. Returns (presenter,
    follower, code) once the presenter reads "1 of 1 answered"."""
    ws_url = harness.stream_url(base)
    presenter = Client(ws_url, "presenter")
    clients.append(presenter)
    code = await ws_client.start_class(presenter, "sqrt_dk", timeout=WAIT_S)
    student = await _follower(ws_url, code, "student", clients, browser=BROWSER)
    ask = presenter.widgets[f"_class_ask__{PREDICT}"]
    await presenter.run([widget_state(ask, trigger_value=True)], fragment_id=ask.fragment_id, timeout=WAIT_S)
    await _answer(student)
    await presenter.until(lambda: (1, 1) in _counts(presenter), WAIT_S)
    return presenter, student, code


async def _follower(ws_url: str, code: str, name: str, clients: list, browser: str | None = None) -> Client:
    """A tab that opens the class's link; ``browser``: the follower id its browser keeps (None: no storage)."""
    student = Client(ws_url, name, query=f"room={code}")
    clients.append(student)
    await student.open()
    await student.run(timeout=WAIT_S)
    if browser is not None:
        await ws_client.browser_says(student, browser, WAIT_S)
    await student.until(lambda: "sd_dk" in student.widgets, WAIT_S)
    return student


async def _answer(student: Client) -> None:
    await student.until(lambda: f"_class_answer__{PREDICT}" in student.widgets, WAIT_S)
    radio = student.widgets[f"_class_answer__{PREDICT}"]
    await student.run([widget_state(radio, string_value=RIGHT)], fragment_id=radio.fragment_id, timeout=WAIT_S)


async def _closed(clients: list) -> None:
    for c in clients:
        try:
            await c.close()
        except Exception:                                   # already closed (a reloaded follower)
            pass


async def _flood(base: str) -> tuple[list[tuple[int, int]], list[str]]:
    """40 sessions that do not follow each send an answer: 20 never joined, 20 joined and then explore on their
    own (the follower's radio, or the one each drew itself while following). Returns the presenter's counts
    from the flood until the explorers' heartbeats have lapsed, and every client's errors."""
    clients: list = []
    try:
        presenter, student, code = await _asked(base, clients)
        ws_url = harness.stream_url(base)
        radio = student.widgets[f"_class_answer__{PREDICT}"]
        strangers = [Client(ws_url, f"stranger {i}") for i in range(20)]
        for c in strangers:
            clients.append(c)
            await c.open()
            await c.run(timeout=WAIT_S)
        explorers = [await _follower(ws_url, code, f"explorer {i}", clients) for i in range(20)]
        await asyncio.gather(*(c.until(lambda c=c: f"_class_answer__{PREDICT}" in c.widgets, WAIT_S)
                               for c in explorers))
        flooded = len(_counts(presenter))
        for c in explorers:
            await c.run([widget_state(c.widgets["_class_explore"], trigger_value=True)], timeout=WAIT_S)
        for c in strangers:
            await c.send([widget_state(radio, string_value=OTHER)])
        for c in explorers:
            await c.send([widget_state(c.widgets[f"_class_answer__{PREDICT}"], string_value=OTHER)])
        await asyncio.gather(*(c.until(lambda c=c: not c.running, WAIT_S) for c in strangers + explorers))
        # Until every explorer's heartbeat has lapsed (FOLLOWER_TTL_S) they count as following, never as answering.
        try:
            await presenter.until(lambda: _counts(presenter)[-1] == (1, 1) and len(_counts(presenter)) > flooded + 20,
                                  90)
        except TimeoutError:
            raise AssertionError(f"the flood: {_counts(presenter)[flooded:]}") from None
        return _counts(presenter)[flooded:], [e for c in clients for e in c.errors]
    finally:
        await _closed(clients)


async def _reload(base: str) -> tuple[list[tuple[int, int]], list[str]]:
    """The follower's tab closes, a new one opens the class again and answers again. Returns the presenter's
    counts for a minute after that answer, and every client's errors."""
    clients: list = []
    try:
        presenter, student, code = await _asked(base, clients)
        await student.close()
        again = await _follower(harness.stream_url(base), code, "student again", clients, browser=BROWSER)
        await _answer(again)
        seen = len(_counts(presenter))
        await presenter.until(lambda: len(_counts(presenter)) > seen + 3 and _counts(presenter)[-1] == (1, 1), 60)
        return _counts(presenter)[seen:], [e for c in clients for e in c.errors]
    finally:
        await _closed(clients)


def test_sessions_that_do_not_follow_cannot_inflate_the_count(server):
    t0 = time.perf_counter()
    flood, errors = ws_client.run(_flood(server))
    print(f"a flood of 40 sessions settled in {time.perf_counter() - t0:.1f} s; counts {sorted(set(flood))}")
    assert not errors, errors
    assert all(answered == 1 and following >= 1 for answered, following in flood), flood
    assert flood[-1] == (1, 1)


# The follower id is kept in the browser (localStorage, ui/classroom/browser.py), so the reloaded tab answers as
# the same follower; the closed tab's session stops beating (ui/wake_queue.py), so it no longer counts either.
def test_a_reloaded_followers_answer_is_not_counted_twice(server):
    counts, errors = ws_client.run(_reload(server))
    print(f"counts after the reload {counts}")
    assert not errors, errors
    assert all(answered <= following for answered, following in counts), counts
    assert counts[-1] == (1, 1), counts
