"""What the browser sends back as saved progress is user-controlled: clean() keeps only well-formed parts."""

import json

from hypothesis import given, strategies as st

from ui.progress import MAX_CHARS, MAX_ITEMS, clean

SLUGS = {"projection", "polysemy"}


def test_well_formed_progress_comes_back_whole():
    saved = {"visited": ["projection", "polysemy"], "answers": {"projection": {"check:commutative": True,
                                                                               "predict:swap": False}}}
    assert clean(json.dumps(saved), SLUGS) == saved


def test_unknown_pages_bad_ids_and_non_booleans_are_dropped():
    raw = json.dumps({"visited": ["projection", "<script>", 3, "projection"],
                      "answers": {"projection": {"check:ok": True, "check:<b>": True, "predict:x": "yes",
                                                 "other:y": True},
                                  "nowhere": {"check:a": True}}})
    assert clean(raw, SLUGS) == {"visited": ["projection"], "answers": {"projection": {"check:ok": True}}}


def test_oversized_or_broken_text_gives_empty_progress():
    empty = {"visited": [], "answers": {}}
    assert clean("x" * (MAX_CHARS + 1), SLUGS) == empty
    assert clean("{not json", SLUGS) == empty and clean(None, SLUGS) == empty and clean("[1, 2]", SLUGS) == empty
    many = {"answers": {"projection": {f"check:q{i}": True for i in range(MAX_ITEMS + 10)}}}
    assert len(clean(json.dumps(many), SLUGS)["answers"]["projection"]) == MAX_ITEMS


@given(st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=20),
                    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner,
                                                                                max_size=4), max_leaves=20))
def test_any_json_gives_only_known_slugs_checked_ids_and_booleans(value):
    out = clean(json.dumps(value), SLUGS)
    assert set(out["visited"]) <= SLUGS and set(out["answers"]) <= SLUGS
    for items in out["answers"].values():
        assert all(isinstance(v, bool) and k.split(":")[0] in ("check", "predict", "exercise")
                   for k, v in items.items())


def test_the_dark_theme_css_names_the_formula_softmax_shade():
    """ui/present.py swaps the formula's deep blue for sky blue on dark; it must name the shade the palette uses,
    in the rgb() form a browser serialises an inline colour to."""
    from figures import palette
    from ui.present import SITE_CSS

    shade = palette.TEXT_SHADES[palette.WEIGHTS]
    r, g, b = (int(shade[i:i + 2], 16) for i in (1, 3, 5))
    assert f"rgb({r}, {g}, {b})" in SITE_CSS


def test_held_answers_come_back_only_as_an_index_and_a_digest():
    good = {"projection": {"predict:swap": [1, "0123456789abcdef"], "check:commutative": [0, "fedcba9876543210"]}}
    raw = json.dumps({"held": {**good, "nowhere": {"check:a": [0, "0123456789abcdef"]},
                               "polysemy": {"check:x": [1, "not a digest"], "check:y": ["1", "0123456789abcdef"],
                                            "check:z": [99, "0123456789abcdef"], "check:<b>": [0, "0123456789abcdef"],
                                            "check:w": [True, "0123456789abcdef"]}}})
    assert clean(raw, SLUGS) == {"visited": [], "answers": {}, "held": good}


def test_the_concept_check_tries_come_back_only_as_indices_a_digest_and_a_time():
    good = {"pre": {"picked": [0, 2, -1, 1], "digest": "0123456789abcdef", "at": 1700000000.0},
            "post": {"picked": [0, 0, 0, 0], "digest": "0123456789abcdef", "at": 1700003600}}
    want = {**good, "post": {**good["post"], "at": 1700003600.0}}
    assert clean(json.dumps({"concept": good}), SLUGS)["concept"] == want
    bad = {"pre": {"picked": ["0"], "digest": "0123456789abcdef", "at": 1.0},
           "post": {"picked": [0], "digest": "<script>", "at": 1.0}, "other": {"picked": [], "digest": "", "at": 0}}
    assert "concept" not in clean(json.dumps({"concept": bad}), SLUGS)
    assert "concept" not in clean(json.dumps({"concept": {"pre": {"picked": [99], "digest": "0123456789abcdef",
                                                                  "at": 1.0}}}), SLUGS)


def test_kept_class_results_come_back_only_as_a_code_a_key_and_a_time():
    good = ["K7MQ2P", "abc_DEF-123", 1700086400.0]
    assert clean(json.dumps({"class_results": good}), SLUGS)["class_results"] == good
    for bad in (["k7mq2p", "abc", 1.0], ["K7MQ2P", "a b", 1.0], ["K7MQ2P", "x" * 65, 1.0], ["K7MQ2P", "abc", "1"],
                ["K7MQ2P", "abc"], "K7MQ2P"):
        assert "class_results" not in clean(json.dumps({"class_results": bad}), SLUGS), bad
