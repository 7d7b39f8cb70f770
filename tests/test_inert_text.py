"""Text that stays text, and inputs bounded in size, on every message path (AppTest).

Each path a learner's text (typed, or carried by a link) can reach a Markdown message is fed the outside
probe's payloads; the Markdown sent must not contain any payload's markup unescaped. What Chromium then
shows (no request, no link, no bold) is tests/browser/test_inert_text.py.
"""

from __future__ import annotations

import re

import pytest

from devtools.apptest import open_page, reveal
from ui.inputs import literal, message

PAYLOADS = ["![x](http://127.0.0.1:9/a.png)", "[phish](http://127.0.0.1:9/login)", "![](//127.0.0.1:9/x.png)",
            "__x__", "<b>x</b>", '"quote"', "$x$", "`code`"]
# Markup that would act if it reached Markdown raw: a link or image, emphasis, a tag, maths, code. The lesson's
# own links to its pages ("](./slug)") are author text, not a payload's, so they do not count.
ACTIVE = re.compile(r"(?<!\\)\]\((?!\s)(?!\./\w+\))|(?<!\\)__\w|(?<!\\)<b>|(?<!\\)\$x(?<!\\)\$|(?<!\\)`code")


def markdown_bodies(at) -> list[str]:
    """Every Markdown string the page sent: messages, captions, markdown, radio options and widget labels."""
    bodies = [str(e.value) for kind in (at.error, at.warning, at.info, at.success, at.caption, at.markdown)
              for e in kind]
    bodies += [str(o) for r in at.radio for o in r.options] + [str(w.label) for w in at.slider]
    return bodies


def active(at) -> list[str]:
    return [b for b in markdown_bodies(at) if ACTIVE.search(b)]


def test_the_detector_finds_raw_markup_and_passes_escaped():
    for p in PAYLOADS:
        if p != '"quote"':
            assert ACTIVE.search(f"Oops: {p}"), p
        assert not ACTIVE.search(f"Oops: {literal(p)}"), literal(p)


def test_message_escapes_the_whole_sentence_once():
    err = ValueError("Q, row 1, entry 1: '![x](http://127.0.0.1:9/a.png)' is not a number.")
    assert message(err) == literal(str(err), 300)
    assert "\\]\\(" in message(err) and "](" not in message(err)


@pytest.mark.parametrize("payload", PAYLOADS)
def test_lab_word_from_a_link_is_inert(payload):
    at = open_page("real_model_lab", lab_word=payload)
    assert any("GloVe" in b for b in markdown_bodies(at)), "the GloVe message path was reached"
    assert not active(at), active(at)
    reveal(at, "real_model_lab", "top_key")                     # and with the sections it holds back shown
    assert not at.exception and not any(b.key == "real_model_lab__predict__top_key__button" for b in at.button)
    assert not active(at), active(at)


@pytest.mark.parametrize("payload", PAYLOADS)
def test_matrix_entry_from_a_link_and_typed_is_inert(payload):
    at = open_page("scaled_formula", sf_q=payload)
    assert any("could not be used" in w for w in map(str, (w.value for w in at.warning)))
    assert not active(at), active(at)
    at.text_area(key="sf_q").set_value(f"1, {payload}").run()
    assert at.error and not active(at), active(at)


def test_refused_matrix_never_reaches_the_url_and_an_accepted_one_does():
    at = open_page("scaled_formula")
    default = at.text_area(key="sf_q").value
    good = "\n".join(", ".join("2" for _ in row.split(",")) for row in default.splitlines())   # same shape
    at.text_area(key="sf_q").set_value("1, 2, 3, x").run()
    assert at.error and "sf_q" not in at.query_params
    at.text_area(key="sf_q").set_value(good).run()
    assert not at.error and at.query_params["sf_q"] == good
    at.text_area(key="sf_q").set_value("1" * 5000).run()                  # refused: the URL keeps the last accepted
    assert at.error and at.query_params["sf_q"] == good


def test_every_text_box_on_every_page_has_a_character_limit():
    from attention_core.parsing import MAX_CHARS
    from ui.content import page_index
    seen = 0
    for slug in [p.slug for p in page_index()]:
        at = open_page(slug)
        for box in [*at.text_area, *at.text_input]:
            seen += 1
            assert 0 < box.proto.max_chars <= 10_000, (slug, box.key)
            if box.key in ("sf_q", "sf_k", "sf_v", "cb_X"):
                assert box.proto.max_chars == MAX_CHARS, (slug, box.key)
    assert seen >= 5


@pytest.mark.parametrize("payload", PAYLOADS)
def test_token_names_and_context_words_are_inert(payload):
    at = open_page("convex_blending")
    at.text_input(key="cb_labels").set_value(f"{payload}, bank, muddy").run()
    assert not active(at), active(at)
    at = open_page("polysemy")
    at.multiselect(key="pl_ctx").set_value(["river", payload]).run()
    assert not active(at), active(at)


def test_lab_tokens_in_the_prediction_are_inert():
    at = open_page("real_model_lab", lab_text="__x__ bank <b>x</b> [phish](http://127.0.0.1:9/login)")
    assert at.radio and not active(at), active(at)
    reveal(at, "real_model_lab", "top_key")          # the feedback and the top-three caption name tokens too
    assert not at.exception and any("Top three" in b for b in markdown_bodies(at))
    assert not active(at), active(at)


def test_context_words_are_capped_in_number_and_length():
    at = open_page("polysemy")
    at.multiselect(key="pl_ctx").set_value(["river"] * 0 + [f"w{i}" for i in range(30)] + ["x" * 500]).run()
    assert not at.exception
    assert any("At most 8 words" in str(w.value) for w in at.warning)


@pytest.mark.parametrize("text", ["http://127.0.0.1:9/login", "see https://x.org now", "www.example.com",
                                  "mail me@example.org", "HTTP://X.ORG"])
def test_literal_breaks_the_autolink_patterns_escapes_cannot_stop(text):
    """GFM autolinks are found in the text after escapes are read: the escaped text, unescaped, must not
    hold a scheme's "://", a "www." or an "@" followed by a host."""
    read = re.sub(r"\\(.)", r"\1", literal(text))
    assert not re.search(r"(?i)https?://|www\.|@\w", read), read
    assert read.replace("\u2060", "") == text
