"""The concept check: ten questions over the whole course, before and after it. Alone, the learner's two tries
and their gain (kept in this browser); in a class, the presenter's pre-class and exit check."""

import streamlit as st

from ui import classroom, concept_check, progress
from ui.classroom import checks
from ui.content import page_index
from ui.frame import lesson

frame = lesson("concept_check")                 # the title and the question; the sidebar and the class
frame.heading()
st.info(frame.text.analogy.strip(), icon=":material/lightbulb:")
st.markdown(checks.how(frame.text.notes["how"], frame.text.notes["in_class"]))   # alone: two tries; in class: the class

questions = concept_check.questions()
if not checks.class_check(questions):           # a presenter's controls, or a following student's form
    concept_check.solo_check(questions)

classroom.publish("concept_check")              # a presenter's class follows them here
progress.sync({p.slug for p in page_index()})
