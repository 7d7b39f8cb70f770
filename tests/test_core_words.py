"""Labels typed by a learner come back short and free of markup."""

import attention_core as core


def test_clean_label_strips_markup_and_trims():
    assert "<" not in core.clean_label("<script>alert(1)</script>")
    assert core.clean_label("  muddy   river ") == "muddy river"
    assert len(core.clean_label("x" * 100)) == core.words.MAX_LABEL


def test_parse_labels_fills_in_and_says_so():
    labels, msg = core.parse_labels("river, bank", 3)
    assert labels == ["river", "bank", "x3"] and "Expected 3" in msg
    labels, msg = core.parse_labels("a, b, c", 3)
    assert labels == ["a", "b", "c"] and msg is None
    labels, msg = core.parse_labels("a, a", 2)
    assert labels[0] != labels[1] and msg
    labels, msg = core.parse_labels("", 2)
    assert labels == ["x1", "x2"]
