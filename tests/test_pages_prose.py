"""How much a student reads on each page before opening anything: the prose open by default.

Counted as a learner meets the page on a first visit, every prediction answered and revealed (the trap, the
checks and the later sections wait for that): the words of its markdown, captions, headings, callouts and
formulas that are not inside an expander or a popover (those wait for a click), main area only. The two long
pages of issue 47 must stay a main line a student can follow in a sitting: at most 800 words. Every page's
count is printed (``pytest -s``), for docs.

Also here: accessible names are plain text. A widget's label, a metric's label and a help tooltip reach a
screen reader as they are written, so raw LaTeX (``$W_Q$``) there is read out as dollar signs.
"""

import re

import pytest

from devtools.apptest import open_page, reveal
from ui.content import page_index

PROSE = {"markdown", "caption", "latex", "title", "header", "subheader", "error", "warning", "info", "success"}
FOLDED = {"expander", "popover", "dialog"}
LONG_PAGES_LIMIT = 800
LONG_PAGES = ("multi_head", "rnn_vs_attention")
# Issue 47's pages whose labels were made plain; the others are listed by the test, not failed by it.
PLAIN_LABEL_PAGES = ("rnn_vs_attention", "multi_head", "learned_projections", "kv_cache", "projection",
                     "flash_attention", "masks_and_cross_attention", "glossary")
WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)?")


def words(text: str) -> int:
    """Words as a reader counts them: runs of letters or digits ("it's" is one; "0.90" is two, as said aloud)."""
    return len(WORD.findall(text))


def open_prose(node) -> list[str]:
    """The text of every prose element under ``node`` that no expander or popover hides."""
    kind = getattr(node, "type", None)
    if kind in FOLDED:
        return []
    found = [str(node.value)] if kind in PROSE else []
    for child in getattr(node, "children", {}).values():
        found += open_prose(child)
    return found


def prose_words(slug: str) -> int:
    at = open_page(slug)
    if slug != "home":
        at = reveal(at, slug)
    return sum(words(t) for t in open_prose(at.main))


def test_the_word_count_counts_words_not_markup():
    marked = "**Five words,** eight *numbers*: it's [one](./glossary#x)."
    assert words(marked) == words("Five words eight numbers it's one glossary x")
    assert words("") == 0 and words("— · ‖J‖") == 1


def test_every_page_is_measured_and_the_long_pages_are_at_most_800_words():
    counts = {item.slug: prose_words(item.slug) for item in page_index()}
    print("\nprose open by default (words, predictions revealed):")
    for slug, n in sorted(counts.items(), key=lambda kv: -kv[1]):
        print(f"  {slug:28} {n:5}")
    assert all(n > 0 for n in counts.values()), counts
    too_long = {slug: counts[slug] for slug in LONG_PAGES if counts[slug] > LONG_PAGES_LIMIT}
    assert not too_long, f"more than {LONG_PAGES_LIMIT} words open by default: {too_long}"


def accessible_names(at) -> list[str]:
    """Every label and help text a screen reader announces as written: widgets' and metrics'."""
    names = []
    for node in _walk(at._tree):
        proto = getattr(node, "proto", None)
        if getattr(node, "type", None) == "metric" or hasattr(node, "label"):
            names += [str(getattr(node, "label", "") or ""), str(getattr(proto, "help", "") or "")]
    return [n for n in names if n]


def _walk(node):
    yield node
    for child in getattr(node, "children", {}).values():
        yield from _walk(child)


@pytest.mark.parametrize("slug", PLAIN_LABEL_PAGES)
def test_no_raw_latex_in_an_accessible_name(slug):
    at = open_page(slug)
    if slug != "glossary":
        at = reveal(at, slug)
    raw = [name for name in accessible_names(at) if "$" in name]
    assert not raw, f"{slug}: raw LaTeX in a label or help text: {raw}"


# At 220 px a chart's title has about 24 characters of room on one line (17 px type), and Plotly never wraps
# one itself: a longer title is broken onto a second line (figures._layout) or runs off the chart.
TITLE_ROOM = 24


def chart_titles(at) -> list[str]:
    """Every chart's title as the reader sees it: tags dropped, <br> kept as a line break."""
    import json

    titles = []
    for chart in at.main.get("plotly_chart"):
        text = json.loads(chart.proto.spec)["layout"].get("title", {}).get("text", "")
        titles.append(re.sub(r"<(?!br>)[^>]*>", "", text))
    return titles


@pytest.mark.parametrize("slug", [s for s in PLAIN_LABEL_PAGES if s != "glossary"])
def test_chart_titles_fit_one_line_at_220_px(slug):
    titles = chart_titles(reveal(open_page(slug), slug))
    assert titles, slug
    long = [t for t in titles if "<br>" in t or len(t) > TITLE_ROOM]
    assert not long, f"{slug}: titles that wrap or overflow at 220 px: {long}"


TINY = re.compile(r"× 10⁻([⁰¹²³⁴⁵⁶⁷⁸⁹]+)")
SAYS_WHAT_IT_MEANS = ("effectively zero", "rounding", "underflow", "spacing of 64-bit")


@pytest.mark.parametrize("slug, params", [("rnn_vs_attention", {}), ("rnn_vs_attention", {"rn_len": "500"}),
                                          ("rnn_vs_attention", {"rn_len": "500", "rn_rho": "0.1"}),
                                          ("multi_head", {})])
def test_numbers_below_a_millionth_in_open_prose_say_what_they_mean(slug, params):
    """Issue 47 (the long pages): a number under 10⁻⁶ in running text says what it means ("effectively zero")."""
    at = reveal(open_page(slug, **params), slug)
    bare = []
    for text in open_prose(at.main):
        for match in TINY.finditer(text):
            exponent = int(match.group(1).translate(str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹", "0123456789")))
            after = text[match.end():match.end() + 60]
            if exponent > 6 and not any(words_ in after for words_ in SAYS_WHAT_IT_MEANS):
                bare.append(text[max(0, match.start() - 40):match.end() + 20])
    assert not bare, bare
