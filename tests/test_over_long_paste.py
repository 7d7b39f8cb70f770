"""Issue 47, item 15: a paste longer than a text box's limit is cut to the limit and said, on every page whose box
has a limit well under the browser's (the box keeps the paste's start, never the old text in silence)."""

from __future__ import annotations

import re

import pytest

from devtools.apptest import open_page

BOXES = [("multi_head", "mh_text"), ("glossary", "gl_search")]


@pytest.mark.parametrize(("slug", "key"), BOXES)
def test_an_over_long_paste_is_cut_to_the_limit_and_the_page_says_so(slug, key):
    at = open_page(slug)
    pasted = ("bank river money " * 80)[:1234]
    at.text_input(key=key).set_value(pasted).run()
    assert not at.exception, [e.value for e in at.exception]
    said = [w.value for w in at.warning if "1,234 characters" in w.value]
    assert said, [w.value for w in at.warning]
    limit = int(re.search(r"at most ([\d,]+)", said[0]).group(1).replace(",", ""))
    assert 0 < limit < len(pasted)
    assert at.text_input(key=key).value == pasted[:limit]
