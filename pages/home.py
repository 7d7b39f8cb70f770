"""The lesson map: each lesson's question and goal, where to start, and what this learner has done."""

import streamlit as st

from ui import classroom, entry as entry_point, navigation, present, progress
from ui.content import load_lesson, page_index

entry_point.ensure_entry()
present.sidebar_toggle()
classroom.sidebar("home")
progress.sync({p.slug for p in page_index()})          # the browser's saved progress, and "Forget my progress"


def introduction(home) -> None:
    """The map's question, analogy and goal, and where a newcomer starts."""
    st.title(home.title)
    with st.container(key="lesson_question"):                # h2, styled as on every lesson (ui/present.py)
        st.markdown(f"## {home.question}")
    st.info(home.analogy.strip(), icon=":material/lightbulb:")
    st.markdown(f"**What you will be able to do.** {home.goal}")
    st.markdown(home.notes["how_to_use"].strip())
    st.markdown(home.notes["start"].strip())
    st.page_link(navigation.page("first_look"), label=f"New here? Start with {load_lesson('first_look').title}",
                 icon=":material/play_arrow:")
    st.page_link(navigation.page("concept_check"), label="Before you start, and after: the concept check",
                 icon=":material/quiz:")


def lesson_list(lessons: list, visited: set[str]) -> None:
    """Every lesson under its section: its link, question, goal and this learner's progress."""
    section = None
    for entry in lessons:
        if entry.section != section:
            section = entry.section
            st.subheader(section)
        text = load_lesson(entry.slug)
        answers = progress.answers(entry.slug)
        with st.container(border=True):
            status = "visited" if entry.slug in visited else "not visited yet"
            if answers:
                status += f" · {sum(answers.values())} of {len(answers)} questions right first time"
            st.page_link(navigation.page(entry.slug), label=text.title, icon=entry.icon)
            st.markdown(f"*{text.question}*")
            # A reference page (the glossary) has no goal to reach nor questions to count: what it is for, only.
            st.caption(f"Goal: {text.goal}  \nProgress: {status}" if entry.is_lesson else text.goal)


introduction(load_lesson("home"))
lesson_list([p for p in page_index() if p.slug != "home"], set(progress.visited()))
classroom.publish("home")                          # a presenter's class follows them to this page
