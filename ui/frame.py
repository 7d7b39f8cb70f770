"""The lesson frame every page shares: question, analogy, goal, foundations, trap, takeaways, next.

A page calls ``frame = lesson("slug")`` once, then ``frame.header()`` at the top and
``frame.footer()`` at the bottom. In between, ``frame.check``, ``frame.predict`` and
``frame.exercise`` place the questions whose words live in the lesson's TOML file, and
``frame.steps`` lets a presenter reveal a page one stage at a time. A section whose controls drive only
its own charts is a ``@frame.fragment``: moving one of them reruns that section alone, and a class
following the presenter reruns the same section alone too.

No answer in sight: while a following class answers a question, the trap, the checks and the takeaways wait
for the reveal, and so do the analogy, the goal, the foundations, the "more" fold and the notes its lesson file
marks as giving that question's answer away (``gives_away``, ``ui.giveaway``); never outside a class, never
for the presenter. Step labels are worded so that none states an answer (tests/test_no_answer_in_sight.py).
"""

from __future__ import annotations

import functools
import re
from contextlib import nullcontext
from dataclasses import dataclass, field

import streamlit as st

from ui import answers, classroom, content, controls, entry, giveaway, navigation, present, progress, warm
from ui.content import Check, Lesson, fill, load_lesson, neighbours
from ui.links import control_label, lasting_notice, link_matches_state, view_link
from ui.numbers import fixed

STEP_PARAM = "step"                     # ?step=N: the presenter step a shared link opens at
RIGHT_ICON, WRONG_ICON, verdict = answers.RIGHT_ICON, answers.WRONG_ICON, answers.verdict


def note_title(text: str) -> str:
    """A note's bold lead-in ("**Swap the roles.** The score…" gives "Swap the roles."), the label of its fold in
    presenter mode; "Note" when it opens without one (a bold word further in is no title: "sliders")."""
    match = re.match(r"\*\*(.+?)\*\*", text.strip())
    return match.group(1) if match else "Note"


@dataclass
class Frame:
    text: Lesson
    link_params: dict[str, list[str]] = field(default_factory=dict)
    _said_wait: bool = False
    bad_step: bool = False
    _notice: object = None

    @property
    def slug(self) -> str:
        return self.text.slug

    @property
    def locked(self) -> bool:
        """True while this session follows a class: the presenter moves the lesson's controls, so every lesson
        control is drawn disabled (``Frame.control`` does it; a test checks each page makes its controls there).
        "Explore on my own" frees them."""
        return classroom.holds_controls()

    def control(self, widget, name: str, *args, idle: str | None = None, **kwargs):
        """A lesson control, declared once: ``widget(*args, **kwargs)`` keyed ``<prefix>_<name>``
        (``controls.control``), mirrored in the page's URL, and disabled while this session follows a class.

        ``widget`` is a Streamlit input (``st.slider``, or a column's ``a.slider``) or ``ui.inputs.matrix_input``;
        ``name`` is the key without the lesson's prefix (``"dk"`` gives ``sd_dk`` on the √dₖ page), so the
        URL a link carries is the key itself. ``idle``, when given, is the one-line reason the control does
        nothing at the current settings: it is then drawn disabled with that reason as its help.
        A page never passes ``key``, ``disabled`` or ``bind`` for a lesson control itself.
        """
        for own in ("key", "disabled", "bind"):
            if own in kwargs:
                raise TypeError(f"frame.control sets {own}= itself; {name!r} passed it")
        if idle is not None:
            kwargs["help"] = idle
        return widget(*args, key=controls.control(self.slug, name), disabled=self.locked or idle is not None,
                      bind="query-params", **kwargs)

    def key(self, name: str) -> str:
        """A key of this page that carries its prefix, for what ``control`` does not make (a chart, a cached table)
        or where a page reads or sets a control's state: ``<prefix>_<name>`` (``controls.page_key``), so no
        page spells its prefix out."""
        return controls.page_key(self.slug, name)

    def fragment(self, body):
        """``st.fragment`` for a lesson section. Moving a control inside it reruns the section alone; a
        presenter's move is published from here naming the section, and each following student reruns
        the same section alone, after applying the presenter's values at its top (``ui.classroom``)."""
        slug, name = self.slug, body.__name__

        @functools.wraps(body)
        def section(*args, **kwargs):
            drawn_before = classroom.section_starts(slug, name)
            body(*args, **kwargs)
            classroom.section_ends(slug, name, drawn_before)

        return st.fragment(section)

    def _folded(self, label: str):
        """Prose sits in an expander in presenter mode, so the projector shows the interactive."""
        return st.expander(label) if present.active() else nullcontext()

    def heading(self) -> None:
        """The title and the question: the top of every lesson, and all of a reference page's own frame."""
        st.title(self.text.title)
        # The question is the page's second heading level (h2, not h4: a screen reader's outline must not
        # jump levels); its size comes from the shared static CSS (ui/present.py).
        with st.container(key="lesson_question"):
            st.markdown(f"## {self.text.question}")

    def header(self) -> None:
        t = self.text
        classroom.guide()                    # a follower: "The class is answering a question", and the scroll
        self.heading()
        # A tampered link's notice goes here, near the top, once the page's controls have all been made.
        self._notice = st.empty()
        with self._folded("Analogy and learning goal"):
            if not giveaway.held_back(t, "analogy"):
                st.info(t.analogy.strip(), icon=":material/lightbulb:")
            if not giveaway.held_back(t, "goal"):
                st.markdown(f"**Learning goal.** {t.goal}")
        with st.expander("Helpful foundations"):
            if not giveaway.held_back(t, "foundations"):
                st.markdown("\n".join(f"- {f}" for f in t.foundations))

    def note(self, name: str) -> None:
        """A named paragraph from the lesson file's [notes] table; its bold lead-in names the presenter's fold."""
        text, piece = self.text.notes[name].strip(), f"note:{name}"
        with self._folded("Note" if giveaway.gives_away(self.text, piece) else note_title(text)):   # its lead-in too
            if not giveaway.held_back(self.text, piece):
                st.markdown(text)

    def revealed(self, prediction_id: str) -> bool:
        """True once the learner has revealed this prediction's answer."""
        return bool(st.session_state.get(controls.revealed_key(self.slug, prediction_id)))

    def _held_back(self, after: tuple[str, ...] | None) -> bool:
        """True (and says why) while a prediction whose answer the next box would give away is unanswered.

        ``after`` names those predictions; None means every prediction of the lesson.
        """
        if classroom.asking() is not None:                   # the class is answering: nothing gives it away
            if not self._said_wait:
                self._said_wait = True
                st.caption("The common trap and a check follow once the presenter reveals the class's answer.")
            return True
        waiting = [p for p in (self.text.predictions if after is None else after) if not self.revealed(p)]
        if waiting and not self._said_wait:                  # one notice for the trap and the check below it
            self._said_wait = True
            st.caption("The common trap and a check follow once you have revealed this page's prediction"
                       + ("s" if len(waiting) > 1 else "") + ": they would give its answer away.")
        return bool(waiting)

    def trap(self, after: tuple[str, ...] | None = None) -> None:
        """The common trap, held back until the predictions it would answer (``after``) are revealed."""
        if not self._held_back(after):
            st.warning(f"**Common trap.** {self.text.trap.strip()}", icon=":material/warning:")

    def check(self, check_id: str, after: tuple[str, ...] | None = None, **values: object) -> bool | None:
        """A multiple-choice check with feedback on each option. Returns True/False once answered.

        Held back, like the trap, until the predictions named in ``after`` (all, by default) are revealed.
        """
        c = self.text.check(check_id).with_values(**values)
        key = controls.check_key(self.slug, c.id)
        poll_id = f"{self.slug}:check:{c.id}"
        asked_now = classroom.class_poll(poll_id)           # the class's question: shown whatever was revealed
        presenting = classroom.role() == "presenter"       # who may ask the class it before revealing
        # Held back while the class answers another question, and on one's own until the predictions are revealed
        # (unless a class reveal already answered it here).
        hold = asked_now is None and not presenting and (classroom.asking() is not None or not answers.adopted(key))
        if hold and self._held_back(after):
            return None
        with st.container(border=True):
            label = f"**Check yourself.** {c.prompt}"
            if classroom.student_poll(poll_id, label, c):    # the class is asked this one: answer for the room
                return None
            item, question = f"check:{c.id}", _digest(c)
            if asked_now is not None:                       # revealed to the class: the class answer is mine
                answers.adopt(self.slug, item, key, c, classroom.my_vote(asked_now), once=asked_now.round)
            held = _held(key)
            answered = held or st.session_state.get(key) is not None    # (a run before the progress came: empty)
            kept = None if answered else progress.held(self.slug, item, question)
            if kept is not None and kept < len(c.choices):   # answered in this browser before a reload
                st.session_state[key] = c.choices[kept].text
            asked: Check = held["question"] if held else c   # graded on the question as it was answered
            # The question is the radio's own label: a screen reader announces it with the choices.
            choice = st.radio(f"**Check yourself.** {asked.prompt}", [ch.text for ch in asked.choices], index=None,
                              key=key)
            classroom.presenter_poll(poll_id, c)
            if choice is None:
                classroom.class_summary(poll_id, c)          # revealed to a student who did not answer
                return None
            _hold(key, asked, choice)
            picked = next(ch for ch in asked.choices if ch.text == choice)
            progress.hold(self.slug, item, asked.choices.index(picked), _digest(asked))
            verdict(picked.correct, picked.feedback)
            if picked.correct and asked.explanation:
                st.markdown(asked.explanation.strip())
            classroom.class_summary(poll_id, c)
        progress.record(self.slug, f"check:{c.id}", picked.correct)
        return picked.correct

    def predict(self, prediction_id: str, options: list[str] | None = None, answer: int | None = None,
                **values: object) -> bool:
        """Ask for a prediction; return True once the learner has committed to one and revealed the answer.

        Choices come from the TOML file, or from the page (``options`` and the index of the ``answer``)
        when the right answer depends on what the learner has set; ``values`` fill the ``{name}`` fields
        of either, and ``answer`` alone picks which of the file's choices is right for the current state.
        """
        p: Check = self.text.predictions[prediction_id]
        p = p.with_options(options, answer, **values) if options is not None else p.with_values(answer, **values)
        key = controls.prediction_key(self.slug, p.id)
        revealed_key = controls.revealed_key(self.slug, p.id)
        poll_id = f"{self.slug}:predict:{p.id}"
        with st.container(border=True):
            label = f"**Predict first.** {p.prompt}"
            if classroom.student_poll(poll_id, label, p):    # the class is asked this one: answer for the room
                return False
            item, question = f"predict:{p.id}", _digest(p)
            if (asked_now := classroom.class_poll(poll_id)) is not None:   # revealed to the class: as my own reveal
                answers.adopt(self.slug, item, key, p, classroom.my_vote(asked_now), revealed_key, once=asked_now.round)
            kept = None if st.session_state.get(revealed_key) else progress.held(self.slug, item, question)
            if kept is not None and kept < len(p.choices):   # revealed in this browser before a reload
                st.session_state[revealed_key] = True
                # Over the widget's value too: the run before the browser's progress arrived drew it empty.
                st.session_state[key] = p.choices[kept].text
                _hold(key, p, p.choices[kept].text)
            held = _held(key) if st.session_state.get(revealed_key) else None
            asked: Check = held["question"] if held else p    # once revealed, the question as it was answered
            choice = st.radio(f"**Predict first.** {asked.prompt}", [c.text for c in asked.choices], index=None,
                              key=key)
            classroom.presenter_poll(poll_id, p)
            if not st.session_state.get(revealed_key):
                if not st.button("Reveal the answer", key=f"{key}__button", disabled=choice is None):
                    if choice is None:
                        st.caption("Pick an answer to unlock the reveal.")
                    return False
                st.session_state[revealed_key] = True
                _hold(key, p, choice)
                progress.hold(self.slug, item, [c.text for c in p.choices].index(choice), question)
                progress.record(self.slug, f"predict:{p.id}", choice == p.choices[p.answer].text)
                # The whole page again, not only this fragment: the trap and the check held back below
                # (outside the fragment) can show now.
                st.rerun()
            if held is None and choice is not None:          # revealed before this session held it (a class reveal)
                _hold(key, asked, choice)
                progress.hold(self.slug, item, [c.text for c in asked.choices].index(choice), _digest(asked))
            answers.graded(asked, held["answer"] if held else choice, choice)
            if asked.explanation:
                st.markdown(asked.explanation.strip())
            if asked != p:
                st.caption("Your answer stays with the question as it was when you revealed it; the controls have "
                           "moved since, and the page below follows them.")
                st.button("Predict again at these settings", key=f"{key}__again", on_click=_forget_answer,
                          args=(self.slug, item, key, revealed_key), icon=":material/restart_alt:")
            classroom.class_summary(poll_id, p)
        return True

    def exercise(self, exercise_id: str, answer: float, **values: object) -> bool | None:
        """A number to work out by hand: right when it rounds, at the lesson's ``decimals``, to the exact
        ``answer`` rounded the same way (0.2741 for 0.274069; 0.2740 is not).

        A typed answer stays with the exercise as it was asked (its numbers and its answer): when the controls
        move, or the box is emptied, it is still the answer, graded on that exercise, until the learner asks for
        the exercise at the new settings. A number too large to be an answer is refused, and not kept.
        """
        ex = self.text.exercises[exercise_id]
        now = Exercise(fill(ex.prompt, answer=answer, **values), answer, {"answer": answer, **values})
        key = controls.exercise_key(self.slug, ex.id)
        with st.container(border=True):
            held = _held(key)
            asked: Exercise = held["question"] if held else now
            st.markdown(f"**Work it out by hand.** {asked.prompt}")
            typed = answers.typed_number(st.number_input("Your answer", value=None, format=f"%.{ex.decimals}f",
                                                         step=10.0 ** -ex.decimals, key=key), ex.decimals)
            if typed is not None:
                _hold(key, asked, typed)
            guess = typed if typed is not None else held["answer"] if held else None
            if guess is None:
                return None
            if typed is None:
                st.caption(f"The box is empty; your answer {fixed(guess, ex.decimals)} stays with this exercise.")
            correct = round(guess, ex.decimals) == round(asked.answer, ex.decimals)
            verdict(correct, fill(ex.right if correct else ex.wrong, guess=guess, **asked.values))
            if asked != now:
                st.caption("Your answer stays with the numbers above, as they were when you typed it; the controls "
                           "have moved since, and the page below follows them.")
                st.button("Work it out again at these settings", key=f"{key}__again", on_click=_forget_answer,
                          args=(self.slug, f"exercise:{ex.id}", key, None), icon=":material/restart_alt:")
        progress.record(self.slug, f"exercise:{ex.id}", correct)
        return correct

    def steps(self, labels: list[str]) -> int:
        """How many reveal stages to show: all of them, or in presenter mode as many as the presenter
        has stepped to with the buttons (or a clicker's Page Down / Page Up)."""
        followed = classroom.followed_step(self.slug)
        if followed is not None:                          # a following student sees the presenter's stage
            shown = min(max(followed, 1), len(labels))
            with st.container(key=f"_class_step__{shown}"):     # ui.classroom.guide scrolls to a new step
                st.caption(f"Step {shown} of {len(labels)}: {labels[shown - 1]} (the presenter moves the steps)")
            return shown
        key = controls.step_key(self.slug)
        if not present.active():
            if STEP_PARAM in st.query_params:
                del st.query_params[STEP_PARAM]
            return len(labels)
        if key not in st.session_state and STEP_PARAM in self.link_params:
            asked = self.link_params[STEP_PARAM][0] if self.link_params[STEP_PARAM] else ""
            if asked.isdigit() and 1 <= int(asked) <= len(labels):
                st.session_state[key] = int(asked)
            else:
                self.bad_step = True
        shown = min(max(st.session_state.get(key, 1), 1), len(labels))
        st.query_params[STEP_PARAM] = str(shown)        # so "Link to this view" and a reload keep the step

        def move(by: int) -> None:
            st.session_state[key] = min(max(st.session_state.get(key, 1) + by, 1), len(labels))

        classroom.console.draw(self.slug, labels, shown)   # a presenter's own console (never the projector's)
        with st.container(border=True, key=f"{key}__bar"):
            back, status, forward = st.columns([1, 3, 1], vertical_alignment="center")
            back.button("◀ Back", key=f"{key}__back", disabled=shown <= 1, on_click=move, args=(-1,))
            forward.button("Next ▶", key=f"{key}__next", disabled=shown >= len(labels), on_click=move, args=(1,))
            status.markdown(f"**Step {shown} of {len(labels)}:** {labels[shown - 1]}")
        present.clicker_keys(f"{key}__next", f"{key}__back", f"{key}__bar")
        return shown

    def footer(self) -> None:
        t = self.text
        if t.more:
            with st.expander("More context and the mechanics"):
                if not giveaway.held_back(t, "more"):
                    st.markdown(t.more.strip())
        if classroom.asking() is not None:                   # they would give the class's question away
            st.caption("The takeaways follow once the presenter reveals the class's answer.")
        else:
            self._takeaways()
        before, after = neighbours(self.slug)
        cols = st.columns(2)
        if before is not None:
            cols[0].page_link(navigation.page(before.slug), label=f"Previous: {before.title}",
                              icon=":material/arrow_back:")
        if after is not None:
            cols[1].page_link(navigation.page(after.slug), label=f"Next: {after.title}",
                              icon=":material/arrow_forward:")
        self._link_notice()
        # Made when opened (on_change="rerun" reruns the page as it opens), so the link is never stale, even
        # after controls inside a fragment have rerun only their own section.
        with st.popover("Link to this view", icon=":material/link:", key=f"{self.slug}__link",
                        on_change="rerun") as pop:
            if pop.open:
                st.caption("Copy this link to open the page with every control exactly as it is now.")
                st.code(view_link(self.slug), language=None, wrap_lines=True)
        classroom.publish(self.slug)                     # a presenter's class follows this run's view
        progress.sync({p.slug for p in content.page_index()})

    def _takeaways(self) -> None:
        t = self.text
        with self._folded("Takeaways and what comes next"):
            # One element, not three: every element costs the server a little on every run.
            st.markdown("### Takeaways\n\n" + "\n".join(f"- **{title}.** {body}" for title, body in t.takeaways)
                        + f"\n\n**Next connection.** {t.next_text}")

    def _link_notice(self) -> None:
        """Streamlit drops a bound parameter it cannot use; say so, so a tampered link is not silent."""
        dropped = sorted(k for k, v in self.link_params.items()
                         if k not in st.query_params and not link_matches_state(k, v))
        names = [control_label(self.slug, k) for k in dropped[:10]] + (["Presenter step"] if self.bad_step else [])
        names = lasting_notice(self.slug, names)
        if names:
            (self._notice or st).warning(
                "This link had settings this page could not use, so their defaults are shown instead: "
                + ", ".join(names) + ".", icon=":material/link_off:")


@dataclass(frozen=True)
class Exercise:
    """An exercise as it was asked: its text with the numbers filled in, its answer, and the values behind both."""
    prompt: str
    answer: float
    values: dict = field(default_factory=dict, compare=False)


_held_key, _held, _hold = answers.held_key, answers.held, answers.hold
_forget_answer, _digest = answers.forget, answers.digest


def lesson(slug: str) -> Frame:
    """The frame for one lesson page; records the visit for the progress view on the home page."""
    entry.ensure_entry()
    present.sidebar_toggle()
    controls.adopt_legacy_params(slug)
    snapshot = {k: st.query_params.get_all(k) for k in st.query_params if k not in controls.CLASS_PARAMS}
    if classroom.sidebar(slug):                # the presenter's view was just applied: no link to judge
        snapshot = {}
    lasting_notice(slug, None)                 # another page: that link's notice is no longer about this one
    progress.visit(slug)
    warm.lesson(slug)                          # once per process: what its later sections compute, meanwhile
    return Frame(load_lesson(slug), link_params=snapshot)
