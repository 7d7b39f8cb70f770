"""app.py's navigation: the pages are made once per process, and every run gets its own copies."""

import json
from pathlib import Path

from streamlit.testing.v1 import AppTest

from ui.content import page_index

ROOT = Path(__file__).resolve().parent.parent

# Runs inside a script run, where st.Page can be made; reports what two calls handed out.
PROBE = """
import json
import streamlit as st
from ui import navigation

navigation._page_templates.cache_clear()
first, second = navigation.navigation_pages(), navigation.navigation_pages()
pages = [p for name in first for p in first[name]]
again = [p for name in second for p in second[name]]
st.text(json.dumps({
    "sections": list(first),
    "titles": [p.title for p in pages],
    "files": [str(p._page) for p in pages],
    "defaults": [p._default for p in pages],
    "same_files": [str(a._page) == str(b._page) and a.url_path == b.url_path for a, b in zip(pages, again)],
    "shared": sum(a is b for a, b in zip(pages, again)),
    "made": navigation._page_templates.cache_info().misses,
}))
"""


def test_the_pages_follow_the_index_and_each_run_gets_its_own():
    at = AppTest.from_string(PROBE, default_timeout=60).run()
    assert not at.exception, at.exception
    got = json.loads(at.text[0].value)
    index = page_index()
    assert got["sections"] == list(dict.fromkeys(p.section for p in index))
    assert got["titles"] == [p.title for p in index]
    assert got["files"] == [str(ROOT / "pages" / f"{p.slug}.py") for p in index]
    assert got["defaults"] == [p.slug == "home" for p in index]
    # Made once for both calls; handed out as copies, so st.navigation marking one never reaches another run.
    assert got["made"] == 1 and got["shared"] == 0 and all(got["same_files"])


def test_every_lesson_has_one_name_in_the_sidebar_the_title_and_the_lesson_map():
    from ui.content import load_lesson

    for item in page_index():
        if item.slug != "home":                          # the home page is the lesson map, titled as the app
            assert load_lesson(item.slug).title == item.title, item.slug


def test_the_sidebar_shows_every_lesson_without_view_more(monkeypatch):
    """Streamlit collapses a menu of more than twelve pages to ten and a "View more" button unless the
    navigation is expanded; the app's call must expand it whatever the number of lessons."""
    import streamlit

    calls = []
    real = streamlit.navigation

    def recording(pages, **kwargs):
        calls.append(kwargs)
        return real(pages, **kwargs)

    monkeypatch.setattr(streamlit, "navigation", recording)
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60).run()
    assert not at.exception and calls
    assert all(c.get("expanded") is True and c.get("position", "sidebar") == "sidebar" for c in calls)


def test_each_browser_tab_is_named_after_its_lesson():
    """Polish (issue 47): a page_title given to st.set_page_config names every tab the same (the browser keeps it
    over the page's own title); with none, Streamlit names each tab after the page's title, the lesson's."""
    import ast

    for path in [ROOT / "app.py", *ROOT.glob("pages/*.py"), *ROOT.glob("ui/**/*.py")]:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "set_page_config":
                assert "page_title" not in {k.arg for k in node.keywords}, path
    at = AppTest.from_string(PROBE, default_timeout=60).run()
    titles = json.loads(at.text[0].value)["titles"]
    from ui.content import load_lesson

    lessons = [(title, p.slug) for title, p in zip(titles, page_index(), strict=True) if p.slug != "home"]
    assert all(title == load_lesson(slug).title for title, slug in lessons)   # home's tab: "Lesson map", its name
