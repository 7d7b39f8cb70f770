"""The glossary: every term A to Z with its anchor and its lessons' links, each listed lesson really using the
term, every glossary link in a lesson landing on a term, and the search box keeping what it should."""

import re
from pathlib import Path

from devtools.apptest import open_page, texts
from ui.content import anchor, lessons, load_glossary, matching, page_index

ROOT = Path(__file__).resolve().parent.parent
PAGE = "glossary"
TERMS = load_glossary()


def _lesson_words(slug: str) -> str:
    """What a lesson can show: its lesson file and its page's source, in lower case."""
    return ((ROOT / "assets" / "lessons" / f"{slug}.toml").read_text(encoding="utf-8")
            + (ROOT / "pages" / f"{slug}.py").read_text(encoding="utf-8")).casefold()


def test_terms_are_sorted_a_to_z_with_unique_anchors_and_a_sentence_or_two():
    names = [t.name.casefold() for t in TERMS]
    assert names == sorted(names) and len(TERMS) >= 40
    assert len({t.anchor for t in TERMS}) == len(TERMS)
    assert all(re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", t.anchor) for t in TERMS)
    for t in TERMS:
        sentences = [s for s in re.split(r"(?<=[.!?])\s+(?=[A-Z])", t.text.strip()) if s]
        assert 1 <= len(sentences) <= 3, (t.name, sentences)


def test_the_hard_terms_and_the_listed_ones_are_all_there():
    wanted = {"softmax", "logit", "simplex", "convex hull", "convex combination", "projection", "dot product",
              "query, key and value", "spectral norm", "jacobian", "nats", "entropy", "hbm", "sram", "ridge point",
              "arithmetic intensity", "layernorm", "residual connection", "feed-forward layer", "positional encoding",
              "rotary embedding", "causal mask", "padding mask", "cross-attention", "multi-head attention", "kv cache",
              "grouped-query attention"}
    assert wanted <= {t.name.casefold() for t in TERMS}


def test_each_listed_lesson_that_exists_uses_the_term():
    slugs = {p.slug for p in lessons()}
    missing = []
    for t in TERMS:
        shown = [s for s in t.lessons if s in slugs]
        for slug in shown:
            words = _lesson_words(slug)
            if not any(w.casefold() in words for w in (t.name, *t.seen_as)):
                missing.append((t.name, slug))
    assert not missing, missing
    # Every term but those whose lessons are still to come links to at least one lesson.
    unlinked = [t.name for t in TERMS if not any(s in slugs for s in t.lessons)]
    assert set(unlinked) <= {"Residual connection", "Rotary embedding", "Positional encoding"}, unlinked


def test_every_glossary_link_in_a_lesson_lands_on_a_term():
    anchors = {t.anchor for t in TERMS}
    links = [(path.name, a) for path in (ROOT / "assets" / "lessons").glob("*.toml")
             for a in re.findall(r"\]\(\./glossary#([^)\s]+)\)", path.read_text(encoding="utf-8"))]
    assert len(links) >= 7                                    # HBM, SRAM, ridge point, spectral norm, Jacobian…
    assert [link for link in links if link[1] not in anchors] == []
    for term in ("spectral-norm", "jacobian", "hbm", "sram", "ridge-point"):
        assert term in {a for _, a in links}, term


def test_the_anchor_is_the_name_in_lower_case_joined_by_dashes():
    assert anchor("Query, key and value") == "query-key-and-value"
    assert anchor("KV cache") == "kv-cache" and anchor("Feed-forward layer") == "feed-forward-layer"


def test_the_page_shows_every_term_with_its_anchor_and_links_to_its_lessons():
    at = open_page(PAGE)
    headings = [(h.value, h.proto.anchor) for h in at.main.subheader]
    assert headings == [(t.name, t.anchor) for t in TERMS]
    shown = texts(at)
    titles = {p.slug: p.title for p in page_index()}
    links = [(p.proto.label, p.proto.page) for p in at.main.get("page_link")]
    assert links == [(titles[slug], slug) for t in TERMS for slug in t.lessons if slug in titles]
    assert f"All {len(TERMS)} terms" in shown


def test_lesson_links_open_in_the_same_tab():
    """Polish (issue 47): a Markdown link opens a new tab; the lessons are page links, as in the sidebar."""
    at = open_page(PAGE)
    assert at.main.get("page_link")
    assert not [m.value for m in at.main.markdown if re.search(r"\]\(\./", m.value)]


def test_search_finds_british_and_american_spellings_alike():
    """Polish (issue 47): "normalization" finds what says "normalisation", and the other way round."""
    british = [t.name for t in TERMS if "normalis" in t.text.casefold() or "normalis" in t.name.casefold()]
    assert british, "the glossary spells normalisation the British way somewhere"
    for typed in ("normalization", "normalisation", "NORMALIZATION"):
        assert set(british) <= {t.name for t in matching(TERMS, typed)}, typed
    at = open_page(PAGE)
    at.text_input(key="gl_search").set_value("normalization").run()
    assert set(british) <= {h.value for h in at.main.subheader}
    plain = [t.name for t in TERMS if "hour" in (t.name + " " + t.text).casefold()]
    assert [t.name for t in matching(TERMS, "hour")] == plain          # "hour" is no British "hor"


def test_search_keeps_the_matching_terms_and_escapes_what_was_typed():
    at = open_page(PAGE)
    box = at.text_input(key="gl_search")
    assert box.help == "At most 40 characters."         # a longer paste is cut to 40 and said (test_over_long_paste)
    for typed in ("cache", "  SOFTMAX ", "ridge point", "memory"):
        box.set_value(typed).run()
        expected = [t.name for t in TERMS if " ".join(typed.split()).casefold() in (t.name + " " + t.text).casefold()
                    or " ".join(typed.split()).casefold() in t.name.casefold()]
        assert [h.value for h in at.main.subheader] == expected, typed
        assert f"{len(expected)} of {len(TERMS)} terms hold" in texts(at)
    box.set_value("**<b>[x](y)</b>**").run()
    assert not at.exception and [h.value for h in at.main.subheader] == []
    said = " ".join(c.value for c in at.caption)
    assert "No term holds" in said and r"\*\*\<b\>\[x\]\(y\)\<\/b\>\*\*" in said
    box.set_value("").run()
    assert len(at.main.subheader) == len(TERMS)


def test_matching_ignores_case_and_spacing():
    assert [t.name for t in matching(TERMS, "KV   CACHE")] == [t.name for t in TERMS
                                                               if "kv cache" in (t.name + t.text).casefold()]
    assert matching(TERMS, "") == TERMS and matching(TERMS, "zzqx") == ()


def test_the_glossary_is_not_a_lesson_so_no_lesson_points_to_it_as_next():
    from ui.content import neighbours

    assert PAGE in {p.slug for p in page_index()} and PAGE not in {p.slug for p in lessons()}
    assert neighbours(lessons()[-1].slug)[1] is None
