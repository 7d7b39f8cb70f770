"""The lesson frame every page shares: question, analogy, goal, foundations, trap, takeaways, next.

A page calls ``frame = lesson("slug")`` once, then ``frame.header()`` at the top and
``frame.footer()`` at the bottom; ``frame.check(...)`` and ``frame.predict(...)`` place the
questions whose text lives in the lesson's TOML file.
"""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from ui import progress
from ui.content import Check, Lesson, load_lesson, neighbours

PAGE_FILES = "pages/{slug}.py"


@dataclass
class Frame:
    text: Lesson

    @property
    def slug(self) -> str:
        return self.text.slug

    def header(self) -> None:
        t = self.text
        st.title(t.title)
        st.markdown(f"#### {t.question}")
        st.info(t.analogy.strip(), icon=":material/lightbulb:")
        st.markdown(f"**Learning goal.** {t.goal}")
        with st.expander("Helpful foundations"):
            st.markdown("\n".join(f"- {f}" for f in t.foundations))

    def note(self, name: str) -> None:
        """A named paragraph from the lesson file's [notes] table."""
        st.markdown(self.text.notes[name].strip())

    def trap(self) -> None:
        st.warning(f"**Common trap.** {self.text.trap.strip()}", icon=":material/warning:")

    def check(self, check_id: str) -> bool | None:
        """A multiple-choice check with feedback on each option. Returns True/False once answered."""
        c = self.text.check(check_id)
        return _ask(self.slug, c, key=f"{self.slug}__check__{c.id}")

    def predict(self, prediction_id: str) -> bool:
        """Ask for a prediction; return True once the learner has committed and asked to reveal."""
        p = self.text.predictions[prediction_id]
        key = f"{self.slug}__predict__{p.id}"
        revealed_key = f"{key}__revealed"
        with st.container(border=True):
            st.markdown(f"**Predict first.** {p.prompt}")
            choice = st.radio("Your prediction", [c.text for c in p.choices], index=None, key=key,
                              label_visibility="collapsed")
            if not st.session_state.get(revealed_key):
                if st.button("Reveal the answer", key=f"{key}__button", disabled=choice is None):
                    st.session_state[revealed_key] = True
                    progress.record(self.slug, f"predict:{p.id}", choice == p.choices[p.answer].text)
                else:
                    return False
            picked = next((c for c in p.choices if c.text == choice), p.choices[p.answer])
            (st.success if picked.correct else st.error)(picked.feedback)
            if p.explanation:
                st.markdown(p.explanation.strip())
        return True

    def footer(self) -> None:
        t = self.text
        if t.more:
            with st.expander("More context and the mechanics"):
                st.markdown(t.more.strip())
        st.subheader("Takeaways")
        for title, body in t.takeaways:
            st.markdown(f"- **{title}.** {body}")
        before, after = neighbours(self.slug)
        st.markdown(f"**Next connection.** {t.next_text}")
        cols = st.columns(2)
        if before is not None:
            cols[0].page_link(PAGE_FILES.format(slug=before.slug), label=f"Previous: {before.title}",
                              icon=":material/arrow_back:")
        if after is not None:
            cols[1].page_link(PAGE_FILES.format(slug=after.slug), label=f"Next: {after.title}",
                              icon=":material/arrow_forward:")


def _ask(slug: str, c: Check, key: str) -> bool | None:
    with st.container(border=True):
        st.markdown(f"**Check yourself.** {c.prompt}")
        choice = st.radio("Your answer", [ch.text for ch in c.choices], index=None, key=key,
                          label_visibility="collapsed")
        if choice is None:
            return None
        picked = next(ch for ch in c.choices if ch.text == choice)
        (st.success if picked.correct else st.error)(picked.feedback)
        if picked.correct and c.explanation:
            st.markdown(c.explanation.strip())
        progress.record(slug, f"check:{c.id}", picked.correct)
        return picked.correct


def lesson(slug: str) -> Frame:
    """The frame for one lesson page; records the visit for the progress view on the home page."""
    progress.visit(slug)
    return Frame(load_lesson(slug))
