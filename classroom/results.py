"""A class's results after the bell: counts per question, round and option; nothing about any one student.

Pure Python (no Streamlit, no store): the store hands over a ``ClassResults``; this module turns it into
the table a presenter reads and downloads (``table``, ``csv_bytes``), the share right per question and
round and its change between rounds, and Hake's normalized gain between a pre-check and an exit check.

The CSV is for a spreadsheet: UTF-8 with a byte-order mark (so dₖ, √ and ⟨g⟩ survive a double-click open), one
row per question, round and option, grouped by ``kind`` (KINDS, in that order), each lesson named by its slug
and its title, each round's percent right and the students present when it was counted.
"""

from __future__ import annotations

import csv
import enum
import io
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime

ROUND_LABELS = {1: "First vote", 2: "After discussion"}
CHECK_LESSON = "concept_check"         # the concept check's questions: round 1 the pre-class check, 2 the exit check
CHECK_ROUND_LABELS = {1: "Pre-class check", 2: "Exit check"}
OWN_PREFIX = "own:"                    # the poll id of a question the presenter typed (not a lesson's own)
LESSON_QUESTION, OWN_QUESTION = "lesson question", "own question"
PRE_CHECK, EXIT_CHECK = "pre-class check", "exit check"
CHECK_GAIN = "check gain"              # the concept check's scores and ⟨g⟩, after the four kinds of question
KINDS = (LESSON_QUESTION, OWN_QUESTION, PRE_CHECK, EXIT_CHECK, CHECK_GAIN)
CSV_HEADER = ("kind", "lesson", "lesson_title", "question", "round", "option", "count", "right", "percent", "present",
              "asked_at", "class_date", "gain", "note")


def round_label(number: int, lesson: str = "") -> str:
    """"First vote" for round 1, "After discussion" for round 2 (and "Round n" past that); for the concept
    check's questions, "Pre-class check" and "Exit check"."""
    labels = CHECK_ROUND_LABELS if lesson == CHECK_LESSON else ROUND_LABELS
    return labels.get(number, f"Round {number}")


@dataclass(frozen=True)
class Round:
    """One vote on a question: ``counts`` per option (every option present), asked at ``asked_at`` (epoch s)."""

    number: int
    asked_at: float
    counts: dict[str, int]
    present: int | None = None       # students following when the round was counted (None: not recorded)

    @property
    def label(self) -> str:
        """The round's label for a lesson's question (a check's rounds: ``round_label(number, lesson)``)."""
        return round_label(self.number)

    @property
    def answered(self) -> int:
        return sum(self.counts.values())


@dataclass(frozen=True)
class Question:
    """A question as the class was asked it, with each round's counts."""

    poll_id: str
    lesson: str                      # the lesson slug ("" when the presenter's page gave none)
    text: str
    options: tuple[str, ...]
    right: str | None                # the right option's text, None for a question without one
    rounds: tuple[Round, ...]


@dataclass(frozen=True)
class ClassResults:
    code: str
    ended_at: float | None           # None while the class is live
    questions: tuple[Question, ...]  # in the order first asked


@dataclass(frozen=True)
class Row:
    """One line of the results table: one question, round and option; or (``gain_rows``) a score or a gain of
    the concept check, with ``percent``, ``gain`` and ``note`` and no option."""

    lesson: str
    question: str
    round: str
    option: str
    count: int | None
    right: bool | None
    asked_at: float | None
    percent: float | None = None     # percent right: of the round (a question's row), or the check's score
    gain: float | None = None
    note: str = ""
    kind: str = LESSON_QUESTION
    title: str = ""                  # the lesson's title ("" when unknown: the slug stands)
    present: int | None = None


def kind(question: Question, round_number: int = 1) -> str:
    """Which of KINDS a question's round is: the concept check's by its round, else own or lesson question."""
    if question.lesson == CHECK_LESSON:
        return PRE_CHECK if round_number == 1 else EXIT_CHECK
    return OWN_QUESTION if question.poll_id.startswith(OWN_PREFIX) else LESSON_QUESTION


# --- to and from the JSON a store keeps ------------------------------------------------------------------

def to_json(results: ClassResults) -> str:
    return json.dumps({"code": results.code, "ended_at": results.ended_at, "questions": [
        {"poll_id": q.poll_id, "lesson": q.lesson, "text": q.text, "options": list(q.options), "right": q.right,
         "rounds": [{"number": r.number, "asked_at": r.asked_at, "counts": r.counts, "present": r.present}
                    for r in q.rounds]}
        for q in results.questions]}, ensure_ascii=False, separators=(",", ":"))


def from_json(text: str) -> ClassResults:
    data = json.loads(text)
    questions = tuple(
        Question(q["poll_id"], q["lesson"], q["text"], tuple(q["options"]), q["right"],
                 tuple(Round(int(r["number"]), float(r["asked_at"]), {o: int(r["counts"].get(o, 0))
                                                                        for o in q["options"]},
                             None if r.get("present") is None else int(r["present"]))
                       for r in q["rounds"]))
        for q in data["questions"])
    return ClassResults(data["code"], data["ended_at"], questions)


# --- the table ---------------------------------------------------------------------------------------------

def share_right(question: Question, round_: Round) -> float | None:
    """The share (0..1) of this round's answers that chose the right option; None if it has no right
    option or no answers."""
    if question.right is None or round_.answered == 0:
        return None
    return round_.counts.get(question.right, 0) / round_.answered


def change(question: Question) -> float | None:
    """Share right in the last round minus the first (None with one round, or a share undefined)."""
    if len(question.rounds) < 2:
        return None
    first, last = share_right(question, question.rounds[0]), share_right(question, question.rounds[-1])
    return None if first is None or last is None else last - first


def most_missed_first(results: ClassResults) -> list[Question]:
    """Questions by their first round's share right, lowest first; those without a share at the end."""
    def key(q: Question) -> tuple[int, float]:
        share = share_right(q, q.rounds[0]) if q.rounds else None
        return (1, 0.0) if share is None else (0, share)

    return sorted(results.questions, key=key)       # stable: ties keep the order asked


def rows(results: ClassResults, titles: Mapping[str, str] | None = None) -> list[Row]:
    """One row per question, round and option, grouped by kind (lesson questions, own questions, the pre-class
    check, the exit check); the questions most-missed first, the check's in the order asked. ``titles``: lesson
    slug -> title."""
    titles = titles or {}
    found = [(kind(q, r.number), q, r) for q in most_missed_first(results) for r in q.rounds]
    checks = {q.poll_id: n for n, q in enumerate(check_results(results).questions)}
    found.sort(key=lambda f: (KINDS.index(f[0]), checks.get(f[1].poll_id, 0)))     # stable within a kind
    return [Row(q.lesson, q.text or q.poll_id, round_label(r.number, q.lesson), option, r.counts.get(option, 0),
                None if q.right is None else option == q.right, r.asked_at,
                None if (share := share_right(q, r)) is None else 100.0 * share, kind=k,
                title=titles.get(q.lesson, ""), present=r.present)
            for k, q, r in found for option in q.options]


def table(results: ClassResults, titles: Mapping[str, str] | None = None) -> list[Row]:
    """Everything the CSV holds: ``rows`` then the concept check's scores and gain (``gain_rows``)."""
    return rows(results, titles) + gain_rows(results, titles)


def lesson_questions(results: ClassResults) -> ClassResults:
    """The questions of the lessons (polls), without the concept check's."""
    return ClassResults(results.code, results.ended_at, tuple(q for q in results.questions if q.lesson != CHECK_LESSON))


def check_results(results: ClassResults) -> ClassResults:
    """The concept check's questions only, in the order asked."""
    return ClassResults(results.code, results.ended_at, tuple(q for q in results.questions if q.lesson == CHECK_LESSON))


def class_date(results: ClassResults) -> float | None:
    """When the class began, as its results know it: its first question's first round (None: nothing asked)."""
    return min((q.rounds[0].asked_at for q in results.questions if q.rounds), default=None)


def csv_bytes(table: Iterable[Row], began: float | None = None) -> bytes:
    """The table as CSV: UTF-8 with a byte-order mark, a header row (CSV_HEADER). ``asked_at`` and ``class_date``
    (``began``, e.g. ``class_date(results)``) in UTC, ISO 8601; ``right`` is yes/no/blank; ``percent`` one
    decimal; ``present`` blank when not recorded. A cell a spreadsheet would run as a formula (= + - @ first) is
    prefixed with a quote mark."""
    out = io.StringIO(newline="")
    writer = csv.writer(out)
    writer.writerow(CSV_HEADER)
    for row in table:
        right = "" if row.right is None else ("yes" if row.right else "no")
        writer.writerow([row.kind, _cell(row.lesson), _cell(row.title), _cell(row.question), row.round,
                         _cell(row.option), "" if row.count is None else row.count, right,
                         "" if row.percent is None else f"{row.percent:.1f}",
                         "" if row.present is None else row.present, _when(row.asked_at), _when(began),
                         "" if row.gain is None else f"{row.gain:.3f}", row.note])
    return out.getvalue().encode("utf-8-sig")


def _when(epoch: float | None) -> str:
    return "" if epoch is None else datetime.fromtimestamp(epoch, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _cell(text: str) -> str:
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


# --- Hake's normalized gain ----------------------------------------------------------------------------------

class GainStatus(enum.Enum):
    GAIN = "gain"                    # ⟨g⟩ is defined
    NO_ROOM = "no room to gain"      # the pre score was already 100 %
    UNDEFINED = "undefined"          # no answers before, or none after


@dataclass(frozen=True)
class Score:
    """How many answered a question, and how many of them chose the right option."""

    right: int
    answered: int

    @property
    def percent(self) -> float | None:
        return None if self.answered == 0 else 100.0 * self.right / self.answered


@dataclass(frozen=True)
class Gain:
    pre: float | None                # class average score in percent, None without answers
    post: float | None
    pre_answered: int
    post_answered: int
    g: float | None                  # ⟨g⟩ = (post − pre) / (100 − pre), only when status is GAIN
    status: GainStatus

    def describe(self) -> str:
        """The gain in a sentence, saying why when there is none."""
        if self.status is GainStatus.UNDEFINED:
            return "Undefined: " + ("no one answered the pre-check." if self.pre is None
                                    else "no one answered the exit check.")
        if self.status is GainStatus.NO_ROOM:
            return "No room to gain: every pre-check answer was already right."
        return f"⟨g⟩ = {self.g:.2f} ({self.pre:.0f} % → {self.post:.0f} %)"

    @property
    def note(self) -> str:
        """Why there is no ⟨g⟩ ("" when there is one): for a table cell."""
        if self.status is GainStatus.NO_ROOM:
            return "no room to gain (100 % before)"
        if self.status is GainStatus.UNDEFINED:
            return "no pre-check answers" if self.pre is None else "no exit check answers"
        return ""


def normalized_gain(pre: Score, post: Score) -> Gain:
    """Hake's ⟨g⟩ = (post − pre) / (100 − pre), in percent scores; never divides by zero."""
    before, after = pre.percent, post.percent
    if before is None or after is None:
        return Gain(before, after, pre.answered, post.answered, None, GainStatus.UNDEFINED)
    if pre.right == pre.answered:                    # 100 %, exactly (no float comparison)
        return Gain(before, after, pre.answered, post.answered, None, GainStatus.NO_ROOM)
    return Gain(before, after, pre.answered, post.answered, (after - before) / (100.0 - before), GainStatus.GAIN)


def scores(results: ClassResults, round_number: int) -> dict[str, Score]:
    """Per question with a right option and that round: its Score."""
    found = {}
    for q in results.questions:
        for r in q.rounds:
            if r.number == round_number and q.right is not None:
                found[q.poll_id] = Score(r.counts.get(q.right, 0), r.answered)
    return found


@dataclass(frozen=True)
class GainReport:
    per_question: dict[str, Gain]
    overall: Gain                    # over every answer to the questions both checks asked


def hake_gain(pre: Mapping[str, Score], post: Mapping[str, Score]) -> GainReport:
    """⟨g⟩ per question asked in both checks, and overall: the class average is every answer's score
    (right answers over answers), so a question only some students answered weighs what they gave."""
    both = [q for q in pre if q in post]
    per = {q: normalized_gain(pre[q], post[q]) for q in both}
    total_pre = Score(sum(pre[q].right for q in both), sum(pre[q].answered for q in both))
    total_post = Score(sum(post[q].right for q in both), sum(post[q].answered for q in both))
    return GainReport(per, normalized_gain(total_pre, total_post))


def check_gain(results: ClassResults) -> GainReport:
    """⟨g⟩ of the concept check: its questions' first round (the pre-class check) against their second (the exit
    check). A question asked only once (no exit check yet) is left out, so a pre-check alone has no gain."""
    check = check_results(results)
    return hake_gain(scores(check, 1), scores(check, 2))


OVERALL = "All questions"


def gain_rows(results: ClassResults, titles: Mapping[str, str] | None = None) -> list[Row]:
    """The concept check's scores and gain as table rows (kind CHECK_GAIN): per question (in the order asked), then
    overall. For each: the pre-class score, the exit score (percent right, count = how many answered), and ⟨g⟩."""
    report, check = check_gain(results), check_results(results)
    title = (titles or {}).get(CHECK_LESSON, "")
    texts = {q.poll_id: q.text or q.poll_id for q in check.questions}
    found = [(texts[p], g) for p, g in report.per_question.items()]
    if found:
        found.append((OVERALL, report.overall))
    scored = []
    for text, g in found:
        scored += [Row(CHECK_LESSON, text, "Pre-class check score", "", g.pre_answered, None, None, g.pre,
                       kind=CHECK_GAIN, title=title),
                   Row(CHECK_LESSON, text, "Exit check score", "", g.post_answered, None, None, g.post,
                       kind=CHECK_GAIN, title=title),
                   Row(CHECK_LESSON, text, "Normalized gain", "", None, None, None, None, g.g, g.note,
                       kind=CHECK_GAIN, title=title)]
    return scored
