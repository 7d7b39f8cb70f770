"""Class results in real Chromium against the real server: a presenter and three students take the pre-class
check, answer two polls (one asked again after discussion), take the exit check; the presenter ends the
class, reloads, still reads the results and downloads the CSV, whose counts are what the students chose; no
student page ever shows the results. And a learner alone: their two tries at the concept check survive a
reload.

The tests run in order and share one class (the ``room`` fixture). The students answer only the first two
questions of each check, so the expected counts are a short table written here by hand.
"""

from __future__ import annotations

import re

import pandas as pd
import pytest

from classroom.concept_check import load_concept_check
from devtools import harness
from tests.browser.conftest import SCREENSHOTS, device, server_log, wait_following

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser")]

WAIT_MS = 120_000                 # generous, for a machine shared with other work; not a target
QUESTIONS = load_concept_check()
Q0, Q1 = QUESTIONS[0], QUESTIONS[1]
RESULTS_WORDS = ("Class results", "Download results (CSV)", "Normalized gain", "Share of the class right",
                 "Pre-class check score")


def _wrong(q) -> str:
    return next(o for o in q.options if o != q.right)


# What each student picks for questions 0 and 1 (None: left blank), in each check.
PRE = [(Q0.right, Q1.right), (_wrong(Q0), Q1.right), (Q0.right, None)]
EXIT = [(Q0.right, Q1.right), (Q0.right, _wrong(Q1)), (Q0.right, Q1.right)]


class Room:
    def __init__(self, browser, base: str) -> None:
        self.browser, self.base, self.contexts, self.code = browser, base, [], ""
        self.presenter = self._page(1280, 720, "dark")
        self.students = []

    def _page(self, width: int, height: int, scheme: str = "light"):
        context, page = device(self.browser, width, height, scheme, WAIT_MS, accept_downloads=True)
        self.contexts.append(context)
        return page

    def close(self) -> None:
        for context in self.contexts:
            context.close()


@pytest.fixture(scope="module")
def room(server, browser):
    made = Room(browser, server)
    yield made
    made.close()


def _no_results_shown(page) -> None:
    text = page.inner_text("body")
    for words in RESULTS_WORDS:
        assert words not in text, words
    assert page.locator('[data-testid="stException"]').count() == 0 and not page.errors, page.errors


def _keep(page, name: str) -> str:
    """What a page showed when a wait failed: a screenshot and its text, beside the other screenshots; returns
    its address and the start of its text, for the failure's message (CI keeps the log, not the files)."""
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"))
    shown = page.url + "\n" + page.inner_text("body")
    (SCREENSHOTS / f"{name}.txt").write_text(shown, encoding="utf-8")
    return shown[:1500]


def _follows(student, i: int, path: str, name: str) -> None:
    """Wait until student ``i`` has followed the presenter to ``path``; if it never does, fail saying what its
    page showed instead (a follow that failed once under load was never explained: docs/RELIABILITY.md)."""
    try:
        student.wait_for_url(re.compile(path), timeout=WAIT_MS * 2)
    except Exception as err:
        log = server_log()                                        # the server's warnings
        tail = "\n".join(log.read_text(errors="replace").splitlines()[-30:]) if log.exists() else "(no log)"
        raise AssertionError(f"student {i} did not follow to {path}; its page showed:\n{_keep(student, name)}"
                             f"\n--- the server's log, last lines:\n{tail}") from err


def _stored(page, part: str, present: bool) -> None:
    """Wait until the browser's saved progress holds ``part`` (or no longer does): the app writes it after
    the run, so a reload any sooner would read the old copy."""
    page.wait_for_function("([key, part, present]) => ((localStorage.getItem(key) || '').includes(part)) === present",
                           arg=["attention_progress_v1", f'"{part}"', present], timeout=WAIT_MS)


def _answer(page, picks) -> None:
    """Pick the options of questions 0 and 1 on the class's form, then send it."""
    form = page.locator('[data-testid="stForm"]')
    form.wait_for(timeout=WAIT_MS)
    for i, pick in enumerate(picks):
        if pick is not None:                        # label 0 is the question itself
            form.locator('[data-testid="stRadio"]').nth(i).locator("label").nth(1 + QUESTIONS[i].options.index(pick)) \
                .click()
    page.get_by_role("button", name="Send my answers").click()
    page.get_by_text(f"Sent: {sum(p is not None for p in picks)} of {len(QUESTIONS)} answers").wait_for()


POLL_PARTS = ('[class*="st-key-_class_question"], [class*="st-key-_class_tally"], [data-testid="stAlert"], '
              '[class*="st-key-_class_notice"]')


def _poll_text(page) -> str:
    """What a page shows of the class's question: the student's question box, the presenter's tally, every
    notice and warning."""
    parts = page.locator(POLL_PARTS)
    return "\n".join(parts.nth(i).inner_text() for i in range(min(parts.count(), 12)))[:3000]

def _answered(room, n: int, name: str) -> None:
    """Wait until the presenter reads "n of 3 answered"; if it never does, fail with what the presenter and each
    student showed (a student's refusal, or an answer left unchosen), since a lost answer is a defect to explain."""
    try:
        room.presenter.get_by_text(f"{n} of 3 answered").wait_for()
    except Exception as err:
        pages = [("presenter", room.presenter)] + [(f"student_{i}", st) for i, st in enumerate(room.students)]
        shown = "\n".join(f"--- {who}: {page.url}\n{_poll_text(page)}" for who, page in pages)
        for who, page in pages:
            _keep(page, f"{name}_{who}")
        raise AssertionError(f"the presenter never read {n} of 3 answered:\n{shown}") from err


def test_a_class_starts_and_moves_to_the_concept_check(room):
    pg = room.presenter
    pg.goto(room.base)
    harness.click_until(pg.get_by_role("button", name="Start a class"),
                        pg.get_by_text(re.compile(r"Room code: [A-Z2-9]{6}")), each_ms=40_000)
    room.code = re.search(r"Room code: ([A-Z2-9]{6})", pg.inner_text("body")).group(1)
    for _ in range(3):
        st = room._page(390, 2400)
        st.goto(f"{room.base}/?room={room.code}")
        wait_following(st, room.code, who="a student")
        room.students.append(st)
    pg.get_by_text("3 students following").wait_for()
    pg.locator('[data-testid="stSidebar"]').get_by_role("link", name="Pre-class and exit check").click()
    pg.wait_for_url(re.compile(r"/concept_check"))
    pg.get_by_role("button", name="Pre-class check").wait_for()
    for i, st in enumerate(room.students):
        _follows(st, i, r"/concept_check", f"class_results_follow_fail_{i}")
        st.get_by_text("When the presenter opens the check").wait_for()


def test_the_pre_class_check_collects_answers_and_shows_none(room):
    pg = room.presenter
    pg.get_by_role("button", name="Pre-class check").click()
    pg.get_by_text("Pre-class check is open").wait_for()
    for st, picks in zip(room.students, PRE, strict=True):
        _answer(st, picks)
    _answered(room, 3, "class_results_count_1")
    assert pg.get_by_role("button", name="Reveal the answers").count() == 0      # the pre-check never reveals
    pg.get_by_role("button", name="Close the check").click()
    for st in room.students:
        st.get_by_text("When the presenter opens the check").wait_for()
        assert Q0.explanation not in st.inner_text("body")
        _no_results_shown(st)


def test_a_poll_on_a_lesson(room):
    pg = room.presenter
    pg.locator('[data-testid="stSidebarNav"] a', has_text="Why divide by").click()
    pg.wait_for_url(re.compile(r"/sqrt_dk"))
    harness.click_until(pg.get_by_role("button", name="Ask the class").first,
                        pg.get_by_role("button", name="Reveal the answer to the class"), each_ms=40_000)
    for i, st in enumerate(room.students):
        box = st.locator('[class*="st-key-_class_answer"] [data-testid="stRadio"]')
        try:
            box.wait_for(timeout=WAIT_MS * 2)
        except Exception:
            _keep(st, f"class_results_poll_fail_{i}")
            _keep(pg, "class_results_poll_fail_presenter")
            raise
        box.locator("label").nth(1 + (i == 2)).click()          # two pick the first option, one the second
    _answered(room, 3, "class_results_count_2")
    # Peer instruction: a second round after discussion, where all three pick the second option.
    pg.get_by_role("button", name="Ask again after discussion").click()
    _answered(room, 0, "class_results_count_3")
    for st in room.students:
        st.get_by_text("After discussion.").wait_for()
        _class_box(st, "Predict first").locator("label").nth(2).click()
    _answered(room, 3, "class_results_count_4")
    pg.get_by_role("button", name="Reveal the answer to the class").click()
    # Each student's page (390 px wide) shows the class's answers: labels of 12 px at least, none on another.
    for st in room.students[:1]:
        chart = st.locator(".js-plotly-plot", has_text="The class's answers").first
        chart.wait_for(timeout=WAIT_MS)
        _readable(chart, 12, 390)
        chart.scroll_into_view_if_needed()
        chart.screenshot(path=str(SCREENSHOTS / "class_poll_chart_390.png"))
    pg.get_by_role("button", name="Stop asking").click()
    # A second poll: the page's "Check yourself" question, the last one asked on it; one round.
    harness.click_until(pg.get_by_role("button", name="Ask the class").last, pg.get_by_text("0 of 3 answered"),
                        each_ms=40_000)
    for i, st in enumerate(room.students):
        _class_box(st, "Check yourself").locator("label").nth(1 + (i == 0)).click()   # two the first, one the second
    _answered(room, 3, "class_results_count_5")
    pg.get_by_role("button", name="Reveal the answer to the class").click()
    pg.get_by_role("button", name="Stop asking").click()


# Every label a Plotly chart draws as text: its annotations (a question's or an option's words) and its bars'
# numbers, each with its font size and its box on screen.
LABELS_JS = """(plot) => [...plot.querySelectorAll('text.annotation-text, text.bartext')]
  .filter(t => t.textContent.trim())
  .map(t => { const r = t.getBoundingClientRect();
              return {text: t.textContent, size: parseFloat(getComputedStyle(t).fontSize),
                      box: [r.left, r.top, r.right, r.bottom]}; })"""


def _labels(plot) -> list[dict]:
    plot.wait_for()
    labels = plot.evaluate(LABELS_JS)
    assert labels, "the chart drew no labels"
    return labels


def _overlaps(labels: list[dict]) -> list[tuple[str, str]]:
    """Pairs of labels whose boxes overlap by more than a pixel each way."""
    def meet(a, b) -> bool:
        return min(a[2], b[2]) - max(a[0], b[0]) > 1 and min(a[3], b[3]) - max(a[1], b[1]) > 1
    return [(a["text"], b["text"]) for i, a in enumerate(labels) for b in labels[i + 1:] if meet(a["box"], b["box"])]


def _readable(plot, smallest: float, width: float) -> None:
    labels = _labels(plot)
    assert min(label["size"] for label in labels) >= smallest, labels
    assert not _overlaps(labels), _overlaps(labels)
    assert all(label["box"][0] >= 0 and label["box"][2] <= width + 1 for label in labels), labels   # on screen


OWN_TEXT = "Quick one: which <b>way</b> does q·k spread?"
OWN_OPTIONS = ("Wider", "Narrower", "The same")         # the first is marked right
OWN_PICKS = [(0, 1, 1), (0, 0, 0)]                      # each student's option, in the first vote and after


def test_the_presenters_own_question_through_two_rounds(room):
    pg = room.presenter
    side = pg.locator('[data-testid="stSidebar"]')
    # A click on an expander can be lost while the panel's timers rerun it (docs/RELIABILITY.md): click again.
    harness.click_until(side.get_by_text("Your own question"), side.locator('.st-key-_class_own_text textarea'),
                        each_ms=15_000)
    side.locator('.st-key-_class_own_text textarea').fill(OWN_TEXT)
    side.locator('.st-key-_class_own_options textarea').fill("\n".join(("*" + OWN_OPTIONS[0], *OWN_OPTIONS[1:])))
    side.get_by_role("button", name="Ask your question").click()
    side.get_by_text("0 of 3 answered").wait_for()
    for number, picks in enumerate(OWN_PICKS, 1):
        for st, pick in zip(room.students, picks, strict=True):
            box = st.locator('[class*="st-key-_class_own_student"]')
            box.get_by_text(OWN_TEXT).wait_for(timeout=WAIT_MS * 2)          # the typed words, shown as typed
            if number == 2:
                box.get_by_text("After discussion.").wait_for()
            box.locator('[data-testid="stRadio"] label').nth(1 + pick).click()
        _answered(room, 3, f"class_results_own_count_{number}")
        if number == 1:
            assert side.locator(".js-plotly-plot").count() == 0                # hidden until shown or revealed
            side.get_by_role("button", name="Ask again after discussion").click()
            _answered(room, 0, "class_results_own_count_again")
    side.get_by_role("button", name="Reveal the answer to the class").click()
    side.locator(".js-plotly-plot", has_text="(the answer)").wait_for()
    for st in room.students:
        st.locator('[class*="st-key-_class_own_student"] .js-plotly-plot').wait_for()   # the class's counts
    room.students[0].screenshot(path=str(SCREENSHOTS / "class_own_question_student_390.png"))
    pg.screenshot(path=str(SCREENSHOTS / "class_own_question_presenter_1280.png"))
    side.get_by_role("button", name="Stop asking").click()
    for st in room.students:
        st.locator('[class*="st-key-_class_own_student"]').wait_for(state="detached")


def _class_box(page, kind: str):
    """A student's class question of that kind ("Predict first", "Check yourself"), once it is on screen."""
    box = page.locator('[class*="st-key-_class_answer"] [data-testid="stRadio"]', has_text=kind).first
    box.wait_for(timeout=WAIT_MS * 2)
    return box


def test_the_exit_check_reveals_the_answers_to_the_students(room):
    pg = room.presenter
    pg.locator('[data-testid="stSidebar"]').get_by_role("link", name="Pre-class and exit check").click()
    pg.wait_for_url(re.compile(r"/concept_check"))
    pg.get_by_role("button", name="Exit check").click()
    pg.get_by_text("Exit check is open").wait_for()
    for i, (st, picks) in enumerate(zip(room.students, EXIT, strict=True)):
        _follows(st, i, r"/concept_check", f"class_results_exit_follow_fail_{i}")
        _answer(st, picks)
    _answered(room, 3, "class_results_count_6")
    pg.get_by_role("button", name="Reveal the answers").click()
    for st, picks in zip(room.students, EXIT, strict=True):
        right = sum(p == q.right for p, q in zip(picks, (Q0, Q1), strict=True))
        st.get_by_text(f"You got {right} of {len(QUESTIONS)} right").wait_for()
        _no_results_shown(st)
    harness.save_full(room.students[0], SCREENSHOTS / "class_check_student_reveal.png", 390)


def test_the_presenter_still_reads_the_results_after_the_end_and_a_reload(room):
    pg = room.presenter
    ended = pg.get_by_text(f"Class {room.code} has ended")
    try:                                            # a click can coalesce with the live count's own run: again
        for attempt in range(3):
            confirm = pg.get_by_role("button", name="Yes, end the class")
            if not confirm.is_visible():            # "End the class" asks first, in a popover
                pg.get_by_role("button", name="End the class", exact=True).click()
            keep = pg.get_by_role("checkbox", name="Keep results on this computer")
            if not keep.is_checked():               # this browser keeps them (off: nothing stays after a reload)
                keep.check(force=True)
            confirm.click()
            try:
                ended.wait_for(timeout=40_000)
                break
            except Exception:
                if attempt == 2:
                    raise
    except Exception:
        _keep(pg, "class_results_end_fail")
        raise
    _stored(pg, "class_results", True)             # written to this browser once the run is over
    pg.reload()
    pg.get_by_text(f"Class {room.code} has ended").wait_for()       # kept in this browser, read back
    pg.get_by_role("button", name="Class results").first.click()
    dialog = pg.get_by_role("dialog")
    dialog.get_by_text("Normalized gain ⟨g⟩").wait_for()
    dialog.locator(".js-plotly-plot").first.wait_for()
    pg.screenshot(path=str(SCREENSHOTS / "class_results_1280_dark.png"))
    pg.mouse.move(640, 400)
    pg.mouse.wheel(0, 700)                          # the dialog scrolls by itself: down to the concept check
    harness.still(pg, dialog.get_by_text("Normalized gain ⟨g⟩"))
    pg.screenshot(path=str(SCREENSHOTS / "class_results_check_1280_dark.png"))
    pg.set_viewport_size({"width": 390, "height": 844})
    dialog.get_by_text("Normalized gain ⟨g⟩").wait_for()
    pg.screenshot(path=str(SCREENSHOTS / "class_results_390_dark.png"))
    _readable(dialog.locator(".js-plotly-plot", has_text="Share of the class right").first, 12, 390)
    pg.set_viewport_size({"width": 1280, "height": 720})
    with pg.expect_download() as download:
        dialog.get_by_role("button", name="Download results (CSV)").click()
    raw = open(download.value.path(), "rb").read()
    assert raw.startswith("\ufeff".encode())                  # a byte-order mark: a spreadsheet reads UTF-8
    table = pd.read_csv(download.value.path(), encoding="utf-8-sig", keep_default_na=False)
    assert {"kind", "lesson", "lesson_title", "question", "round", "option", "count", "right", "percent", "present",
            "asked_at", "class_date"} <= set(table.columns)
    kinds = list(table.kind)
    assert kinds == sorted(kinds, key=["lesson question", "own question", "pre-class check", "exit check",
                                       "check gain"].index)                  # each kind in one block, in order
    assert set(table[table.lesson == "sqrt_dk"].lesson_title) == {"Why divide by √dₖ"}
    assert set(table[table.lesson == "sqrt_dk"].kind) == {"lesson question", "own question"}
    assert table.class_date.nunique() == 1 and table.class_date.iloc[0] == min(table.asked_at[table.asked_at != ""])
    assert set(table.present[table.kind != "check gain"].astype(int)) == {3}
    for (_, _), one in table[table.kind != "check gain"].groupby(["question", "round"]):   # share right per round
        right = one[one.right == "yes"]["count"].astype(int).sum()
        answered = one["count"].astype(int).sum()
        expected = round(100 * right / answered, 1) if answered else ""          # no answers: no share
        assert {"" if v == "" else round(float(v), 1) for v in one.percent} == {expected}

    def count(question, round_, option) -> int:
        (found,) = table[(table.question == question.prompt) & (table["round"] == round_)
                         & (table.option == option)]["count"]
        return int(found)

    for round_, picks in (("Pre-class check", PRE), ("Exit check", EXIT)):
        for i, q in enumerate((Q0, Q1)):
            chosen = [p[i] for p in picks if p[i] is not None]
            assert {o: count(q, round_, o) for o in q.options} == {o: chosen.count(o) for o in q.options}
    own = table[table.kind == "own question"]
    assert set(own.question) == {OWN_TEXT} and set(own.lesson_title) == {"Why divide by √dₖ"}
    for round_, picks in (("First vote", OWN_PICKS[0]), ("After discussion", OWN_PICKS[1])):
        counted = own[own["round"] == round_]
        assert dict(zip(counted.option, counted["count"].astype(int), strict=True)) == \
            {o: list(picks).count(i) for i, o in enumerate(OWN_OPTIONS)}
        assert set(counted.percent.astype(float)) == {round(100 * list(picks).count(0) / len(picks), 1)}
    polls = table[table.kind == "lesson question"]
    first = polls[polls["round"] == "First vote"]
    assert first.question.nunique() == 2                    # the prediction and the check
    for _, asked in first.groupby("question"):
        assert sorted(asked["count"].astype(int), reverse=True)[:3] == [2, 1, 0] and set(asked.right) == {"yes", "no"}
    again = polls[polls["round"] == "After discussion"]
    assert again.question.nunique() == 1 and again["count"].astype(int).tolist()[1] == 3
    assert again["count"].astype(int).sum() == 3
    gain = table[(table["round"] == "Normalized gain") & (table.question == "All questions")]
    # By hand over questions 0 and 1: before 4 right of 5 answers (80 %); after 5 of 6.
    assert float(gain["gain"].iloc[0]) == pytest.approx((100 * 5 / 6 - 80) / 20, abs=1e-3)
    for st in room.students:
        _no_results_shown(st)


def test_the_results_full_screen_on_the_projector(room):
    pg = room.presenter
    pg.set_viewport_size({"width": 1366, "height": 768})
    dialog = pg.get_by_role("dialog")
    if not dialog.get_by_role("button", name="Show results full screen").is_visible():
        pg.get_by_role("button", name="Class results").first.click()
    dialog.get_by_role("button", name="Show results full screen").click()
    back = pg.get_by_role("button", name="Back to the class")
    back.wait_for()
    full = pg.get_by_role("dialog")
    chart = full.locator(".js-plotly-plot", has_text="Share of the class right").first
    _readable(chart, 18, 1366)                                 # read from the back of the room
    box = full.bounding_box()
    assert box["width"] >= 0.9 * 1366, box                      # the screen's width, not a dialog's column
    assert full.get_by_role("button", name="Download results (CSV)").count() == 0   # only the results
    cells = full.locator(".js-plotly-plot", has_text="Answers per option").first
    cells.wait_for()
    sizes = cells.evaluate("(p) => [...p.querySelectorAll('.table text')].filter(t => t.textContent.trim())"
                           ".map(t => parseFloat(getComputedStyle(t).fontSize))")
    assert sizes and min(sizes) >= 18, sizes
    pg.screenshot(path=str(SCREENSHOTS / "class_results_full_1366.png"))
    back.click()
    back.wait_for(state="detached")
    pg.get_by_text(f"Class {room.code} has ended").wait_for()
    pg.set_viewport_size({"width": 1280, "height": 720})


def test_a_solo_learners_two_tries_survive_a_reload(server, browser):
    context = browser.new_context(viewport={"width": 1280, "height": 2400}, color_scheme="dark")
    pg = context.new_page()
    pg.set_default_timeout(WAIT_MS)
    try:
        pg.goto(harness.page_url(server, "concept_check"))
        for n, tries in enumerate(((0, 1), (0, 1, 2, 3, 4, 5, 6, 7, 8, 9))):
            form = pg.locator('[data-testid="stForm"]')
            form.wait_for(timeout=WAIT_MS)
            harness.settle(pg)                      # the page's own first reruns (saved progress) are over
            for i, q in enumerate(QUESTIONS):      # right on the questions in ``tries``, wrong on the others
                pick = q.right if i in tries else _wrong(q)
                form.locator('[data-testid="stRadio"]').nth(i).locator("label").nth(1 + q.options.index(pick)).click()
            shown = pg.get_by_text("Your first try: 2 of 10 (20 %) right" if n == 0 else "Your gain ⟨g⟩")
            harness.click_until(pg.get_by_role("button", name="Send my answers"), shown, each_ms=40_000)
            if n == 0:
                pg.get_by_text("Your first try: 2 of 10 (20 %) right").wait_for()
                _stored(pg, "pre", True)
                pg.reload()
                pg.get_by_text("Your first try: 2 of 10 (20 %) right").wait_for()
        pg.get_by_text("Your gain ⟨g⟩").wait_for()
        _stored(pg, "post", True)
        pg.reload()
        metrics = pg.locator('[data-testid="stMetricValue"]')
        metrics.nth(2).wait_for(timeout=WAIT_MS)
        assert [metrics.nth(i).inner_text() for i in range(3)] == ["20 %", "100 %", "1.00"]
        harness.save_full(pg, SCREENSHOTS / "concept_check_solo_1280_dark.png", 1280)
        pg.set_viewport_size({"width": 390, "height": 2400})
        harness.save_full(pg, SCREENSHOTS / "concept_check_solo_390_dark.png", 390)
        pg.get_by_role("button", name="Take the check again").click()
        pg.locator('[data-testid="stForm"]').wait_for()
        _stored(pg, "concept", False)
        pg.reload()
        pg.locator('[data-testid="stForm"]').wait_for()
        harness.settle(pg)                          # the browser's stored progress has been read back by now
        assert "Your first try:" not in pg.inner_text("body") and pg.locator('[data-testid="stForm"]').count() == 1
    finally:
        context.close()
