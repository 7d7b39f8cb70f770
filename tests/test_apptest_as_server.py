"""devtools.apptest.as_the_server, which every AppTest of the suite runs under (tests/conftest.py): AppTest
then runs pages as the server does. If a Streamlit upgrade renames what it patches, these fail first."""

from __future__ import annotations

from devtools.apptest import as_the_server, open_page


def test_two_sessions_share_one_component_registry_found_once():
    """A server looks for installed components once; AppTest as shipped does it for every new session
    (0.4 s each, most of the page tests' time before)."""
    first, second = open_page("polysemy"), open_page("home")
    registry = first._bidi_component_manager
    assert registry is second._bidi_component_manager
    assert registry._found


def test_the_patches_are_undone_on_leaving():
    import streamlit.testing.v1.app_test as app_test

    before = app_test.ScriptCache, app_test.PagesManager, app_test.BidiComponentManager
    with as_the_server():
        assert app_test.BidiComponentManager is not before[2]
    assert (app_test.ScriptCache, app_test.PagesManager, app_test.BidiComponentManager) == before
