"""What ui/streamlit_private.py's browser scripts (its item 12) assume of the pinned frontend, checked in its
bundle, so that an upgrade that changes one fails here first: the theme's localStorage item, Markdown links
opened in a new tab unless they start with "#", and the sidebar's collapsed state kept in localStorage (which
is why initial_sidebar_state cannot close it). The scripts themselves parse as JavaScript. The browser tests
(tests/browser/test_theme_kept.py, test_glossary_links.py, test_class_sidebar.py) show they work."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from ui import streamlit_private as private


def _bundle() -> str:
    import streamlit

    return "".join(p.read_text(encoding="utf-8", errors="ignore")
                   for p in (Path(streamlit.__file__).parent / "static").rglob("*.js"))


BUNDLE = _bundle()


def test_the_theme_item_is_the_frontends_per_load_path_and_version():
    found = re.search(r"(\w+)=(\d+),(\w+)=`stActiveTheme-\$\{window\.location\.pathname\}`", BUNDLE)
    assert found, "the frontend no longer keys the theme by the page's path: revisit keep_in_browser"
    version, base = found.group(2), found.group(3)
    assert re.search(rf"`\$\{{{base}\}}-v\$\{{{found.group(1)}\}}`", BUNDLE)    # the item is base + "-v" + version
    assert private.THEME_ITEM == f"stActiveTheme-{{path}}-v{version}"


def test_markdown_links_open_a_new_tab_unless_they_start_with_a_hash():
    renderer = re.search(r"function (\w+)\(e\)\{let\{href:t\}=e;if\(t\?\.startsWith\(`#`\)===!0\)", BUNDLE)
    assert renderer, "the Markdown link renderer changed: revisit the in-app links of keep_in_browser"
    body = BUNDLE[renderer.start():renderer.start() + 400]
    assert "`_blank`" in body


def test_the_sidebars_own_toggle_is_kept_in_local_storage():
    assert "`stSidebarCollapsed-${" in BUNDLE and '"data-collapsed":' in BUNDLE


def _parses(script: str, tmp_path: Path) -> None:
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    path = tmp_path / "script.js"
    path.write_text(script, encoding="utf-8")
    done = subprocess.run([node, "--check", str(path)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr


def test_the_scripts_parse(tmp_path):
    hooks = private.hooks_script(["", "sqrt_dk", "glossary", "home"])
    _parses(hooks, tmp_path)
    inner = re.search(r"w\.Function\((\".*\")\)\.call", hooks).group(1)
    import json

    _parses("function hooks() {" + json.loads(inner) + "}", tmp_path)
    _parses(private._CLOSE_JS.replace("TOKEN", '"K7MQ2P_1"').replace("WIDTH", str(private.TABLET_PX)), tmp_path)


def test_a_broken_script_is_caught(tmp_path):
    with pytest.raises(AssertionError):
        _parses("(() => { if ( })()", tmp_path)
