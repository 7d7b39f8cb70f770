"""app.py's navigation: the lessons' pages by section, in teaching order (assets/lessons/index.toml)."""

from __future__ import annotations

import copy
import functools

import streamlit as st

from ui.content import APP_DIR, PAGE_FILES, page_index

# The tab icon: a local image, served by the app itself (a Material icon name would make every browser fetch
# it from Google's font server, which fails offline, in a classroom behind a firewall, and logs a console
# error). Its bytes, read once: app.py runs on every rerun, and Streamlit resolves and reads a path's file on each
# (docs/PERFORMANCE.md, "Timings moved out of the code").
ICON = (APP_DIR / "assets" / "icon.png").read_bytes()


def navigation_pages() -> dict[str, list[st.Page]]:
    """The lessons' pages for st.navigation, by section, in teaching order.

    Copies of pages made once per process: st.Page resolves and checks its file on the disk each time it
    is made, on every rerun, and st.navigation marks the page it picks to run on the object itself, so no
    two runs share one.
    """
    sections: dict[str, list[st.Page]] = {}
    for item in page_index():
        sections.setdefault(item.section, []).append(page(item.slug))
    return sections


@functools.cache                                          # no arguments: made once per process
def url_paths() -> list[str]:
    """Every page's URL path under the app's root, "" for the default page (which also answers to its own name),
    for scripts that must know each page's address (``ui.streamlit_private.keep_in_browser``)."""
    paths = [p.url_path for p in _page_templates().values()]
    return paths + [slug for slug, p in _page_templates().items() if p.url_path == "" and slug not in paths]


def page(slug: str) -> st.Page:
    """Lesson ``slug``'s page (a copy), for st.page_link and st.switch_page: a page object, not a path,
    since Streamlit resolves a path on the disk for every link and switch on every run."""
    return copy.copy(_page_templates()[slug])


@functools.cache                                          # no arguments: made once per process
def _page_templates() -> dict[str, st.Page]:
    """Every lesson's page by slug, in teaching order."""
    return {item.slug: st.Page(str(APP_DIR / PAGE_FILES.format(slug=item.slug)), title=item.title,
                               icon=item.icon, default=item.slug == "home")
            for item in page_index()}
