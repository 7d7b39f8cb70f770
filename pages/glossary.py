"""The glossary: every technical term the lessons use, in plain words, A to Z, each linked to its lessons."""

import streamlit as st

from ui import classroom, progress
from ui.content import load_glossary, matching, page_index
from ui.frame import lesson
from ui.inputs import literal

SEARCH_CHARS = 40

frame = lesson("glossary")                      # the title, the question and the search box's key and lock
frame.heading()
st.info(frame.text.analogy.strip(), icon=":material/lightbulb:")
st.markdown(frame.text.notes["how"].strip())

terms = load_glossary()
titles = {p.slug: p.title for p in page_index()}


@frame.fragment
def glossary() -> None:
    query = frame.control(st.text_input, "search", "Search the glossary", max_chars=SEARCH_CHARS,
                          placeholder="e.g. softmax, cache, memory")
    found = matching(terms, query or "")
    typed = " ".join((query or "").split())
    if query and not typed:
        st.info(f"The box holds only spaces, so all {len(terms)} terms are shown.", icon=":material/info:")
    elif typed and not found:
        st.caption(f"No term holds “{literal(typed, SEARCH_CHARS)}”. Clear the box to see all {len(terms)}.")
    elif typed:
        st.caption(f"{len(found)} of {len(terms)} terms hold “{literal(typed, SEARCH_CHARS)}”.")
    else:
        st.caption(f"All {len(terms)} terms, A to Z.")
    for term in found:
        st.subheader(term.name, anchor=term.anchor)
        used = [f"[{titles[slug]}](./{slug})" for slug in term.lessons if slug in titles]
        st.markdown(term.text + (f"  \n*Used in:* {' · '.join(used)}" if used else ""))


glossary()

classroom.publish("glossary")                   # a presenter's class follows them here, as on the lesson map
progress.sync({p.slug for p in page_index()})
