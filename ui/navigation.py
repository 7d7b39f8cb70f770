"""app.py's navigation: the lessons' pages by section, in teaching order (assets/lessons/index.toml)."""

from __future__ import annotations

import copy
import functools

import streamlit as st

from ui.content import APP_DIR, PAGE_FILES, page_index

# The tab icon: a local image, served by the app itself (a Material icon name would make every browser fetch
# it from Google's font server, which fails offline, in a classroom behind a firewall, and logs a console
# error). A string made once: app.py runs on every rerun, and resolving a path reads the disk.
ICON = str(APP_DIR / "assets" / "icon.png")


def navigation_pages() -> dict[str, list[st.Page]]:
    """The lessons' pages for st.navigation, by section, in teaching order.

    Copies of pages made once per process: st.Page resolves and checks its file on the disk each time it
    is made, on every rerun, and st.navigation marks the page it picks to run on the object itself, so no
    two runs share one.
    """
    return {name: [copy.copy(p) for p in pages] for name, pages in _page_templates().items()}


def page(slug: str) -> st.Page:
    """Lesson ``slug``'s page, for st.page_link: a page object, not a path, since Streamlit resolves a path
    on the disk for every link on every run."""
    index = page_index()
    section = next(item.section for item in index if item.slug == slug)
    position = [item.slug for item in index if item.section == section].index(slug)
    return copy.copy(_page_templates()[section][position])


@functools.cache                                          # no arguments: made once per process
def _page_templates() -> dict[str, tuple[st.Page, ...]]:
    sections: dict[str, list[st.Page]] = {}
    for item in page_index():
        sections.setdefault(item.section, []).append(
            st.Page(str(APP_DIR / PAGE_FILES.format(slug=item.slug)), title=item.title, icon=item.icon,
                    default=item.slug == "home")
        )
    return {name: tuple(pages) for name, pages in sections.items()}
