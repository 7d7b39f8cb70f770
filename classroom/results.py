"""A class's results after the bell: counts per question, round and option; nothing about any one student.

Pure Python (no Streamlit, no store): the store hands over a ``ClassResults``; this module turns it into
the table a presenter reads and downloads (``rows``, ``csv_bytes``), the share right per question and
round and its change between rounds, and Hake's normalized gain between a pre-check and an exit check.
"""

from __future__ import annotations

import csv
import enum
import io
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

ROUND_LABELS = {1: "First vote", 2: "After discussion"}
CSV_HEADER = ("lesson", "question", "round", "option", "count", "right", "asked_at")


def round_label(number: int) -> str:
    """"First vote" for round 1, "After discussion" for round 2 (and "Round n" past that)."""
    return ROUND_LABELS.get(number, f"Round {number}")


@dataclass(frozen=True)
class Round:
    """One vote on a question: ``counts`` per option (every option present), asked at ``asked_at`` (epoch s)."""

    number: int
    asked_at: float
    counts: dict[str, int]

    @property
    def label(self) -> str:
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
    """One line of the results table: one question, round and option."""

    lesson: str
    question: str
    round: str
    option: str
    count: int
    right: bool | None
    asked_at: float


# --- to and from the JSON a store keeps ------------------------------------------------------------------

def to_json(results: ClassResults) -> str:
    return json.dumps({"code": results.code, "ended_at": results.ended_at, "questions": [
        {"poll_id": q.poll_id, "lesson": q.lesson, "text": q.text, "options": list(q.options), "right": q.right,
         "rounds": [{"number": r.number, "asked_at": r.asked_at, "counts": r.counts} for r in q.rounds]}
        for q in results.questions]}, ensure_ascii=False, separators=(",", ":"))


def from_json(text: str) -> ClassResults:
    data = json.loads(text)
    questions = tuple(
        Question(q["poll_id"], q["lesson"], q["text"], tuple(q["options"]), q["right"],
                 tuple(Round(int(r["number"]), float(r["asked_at"]), {o: int(r["counts"].get(o, 0))
                                                                        for o in q["options"]})
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


def rows(results: ClassResults) -> list[Row]:
    """One row per question, round and option, most-missed question first."""
    return [Row(q.lesson, q.text or q.poll_id, r.label, option, r.counts.get(option, 0),
                None if q.right is None else option == q.right, r.asked_at)
            for q in most_missed_first(results) for r in q.rounds for option in q.options]


def csv_bytes(table: Iterable[Row]) -> bytes:
    """The table as CSV (UTF-8, a header row). ``asked_at`` in epoch seconds; ``right`` is yes/no/blank.
    A cell a spreadsheet would run as a formula (= + - @ first) is prefixed with a quote mark."""
    out = io.StringIO(newline="")
    writer = csv.writer(out)
    writer.writerow(CSV_HEADER)
    for row in table:
        right = "" if row.right is None else ("yes" if row.right else "no")
        writer.writerow([_cell(row.lesson), _cell(row.question), row.round, _cell(row.option), row.count, right,
                         f"{row.asked_at:.0f}"])
    return out.getvalue().encode("utf-8")


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
