"""The glossary: every technical term the lessons use, in plain words, A to Z, each linked to its lessons."""

import streamlit as st

from ui import classroom, navigation, progress
from ui.content import Term, load_glossary, matching, page_index
from ui.frame import lesson
from ui.inputs import literal, text_box

SEARCH_CHARS = 40

frame = lesson("glossary")                      # the title, the question and the search box's key and lock


def intro() -> None:
    """The title, the question, the analogy and how to use the page."""
    frame.heading()
    st.info(frame.text.analogy.strip(), icon=":material/lightbulb:")
    st.markdown(frame.text.notes["how"].strip())


def used_in(term: Term, titles: dict[str, str]) -> None:
    """The lessons that use ``term``, as page links: they open in this tab, as the sidebar's do (a Markdown link
    would open a new one)."""
    slugs = [slug for slug in term.lessons if slug in titles]
    if not slugs:
        return
    row = st.container(horizontal=True, gap="small", vertical_alignment="center")
    row.caption("Used in:")
    for slug in slugs:
        row.page_link(navigation.page(slug), label=titles[slug], width="content")


@frame.fragment
def glossary(terms: tuple[Term, ...], titles: dict[str, str]) -> None:
    query = frame.control(text_box, "search", "Search the glossary", max_chars=SEARCH_CHARS,
                          placeholder="e.g. softmax, cache, memory")
    found = matching(terms, query or "")
    typed = " ".join((query or "").split())
    if query and not typed:
        st.info(f"The box holds only spaces, so all {len(terms)} terms are shown.", icon=":material/info:")
    elif typed and not found:
        st.caption(f"No term holds “{literal(typed, SEARCH_CHARS)}”. Clear the box to see all {len(terms)}.")
    elif typed:
        st.caption(f"{len(found)} of {len(terms)} terms hold “{literal(typed, SEARCH_CHARS)}” (British or "
                   "American spelling).")
    else:
        st.caption(f"All {len(terms)} terms, A to Z.")
    for term in found:
        st.subheader(term.name, anchor=term.anchor)
        st.markdown(term.text)
        used_in(term, titles)


intro()
glossary(load_glossary(), {p.slug: p.title for p in page_index()})
classroom.publish("glossary")                   # a presenter's class follows them here, as on the lesson map
progress.sync({p.slug for p in page_index()})
