"""The pure-Python BERT uncased tokenizer, piece by piece (parity with HF is in test_bert.py)."""

from __future__ import annotations

import functools

import pytest
from hypothesis import given, settings, strategies as st

from attention_core import load_model
from attention_core.wordpiece import (
    MAX_INPUT_CHARS,
    WordPieceTokenizer,
    basic_tokenize,
    clean_text,
    space_cjk,
    split_punctuation,
    strip_accents,
    wordpiece,
)

TOY = {t: i for i, t in enumerate(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "un", "##aff", "##able", "aff", "a", "!"])}


def test_clean_text_drops_controls_and_normalises_whitespace():
    assert clean_text("a\x00b\ufffdc\x07d\u200be") == "abcde"
    assert clean_text("a\tb\nc\rd\u00a0e\u3000f") == "a b c d e f"


def test_cjk_ideographs_become_separate_words_but_kana_does_not():
    assert space_cjk("我爱") == " 我  爱 "
    assert space_cjk("タワー") == "タワー"


def test_strip_accents():
    assert strip_accents("café naïve résumé") == "cafe naive resume"
    assert strip_accents("ß") == "ß"


def test_split_punctuation_includes_ascii_symbols():
    assert split_punctuation("isn't") == ["isn", "'", "t"]
    assert split_punctuation("$5^2") == ["$", "5", "^", "2"]
    assert split_punctuation("...") == [".", ".", "."]
    assert split_punctuation("«a»") == ["«", "a", "»"]


def test_basic_tokenize_lowercases_and_splits():
    assert basic_tokenize("Hello!!! (World)") == ["hello", "!", "!", "!", "(", "world", ")"]
    assert basic_tokenize("Café") == ["cafe"]
    assert basic_tokenize("  ") == []


def test_wordpiece_greedy_longest_match_first():
    assert wordpiece("unaffable", TOY) == ["un", "##aff", "##able"]
    assert wordpiece("a", TOY) == ["a"]


def test_wordpiece_whole_word_unknown_if_any_piece_fails():
    assert wordpiece("unaffablex", TOY) == ["[UNK]"]


def test_wordpiece_overlong_word_is_unknown():
    vocab = {"a": 0, "##a": 1}
    assert wordpiece("a" * 100, vocab) == ["a"] + ["##a"] * 99
    assert wordpiece("a" * 101, vocab) == ["[UNK]"]


def test_encode_adds_specials_and_truncates():
    tok = WordPieceTokenizer(TOY)
    enc = tok.encode("unaffable a!")
    assert enc.tokens == ["[CLS]", "un", "##aff", "##able", "a", "!", "[SEP]"]
    assert enc.token_ids == [2, 4, 5, 6, 8, 9, 3] and not enc.truncated
    cut = tok.encode("unaffable a!", max_tokens=4)
    assert cut.tokens == ["[CLS]", "un", "##aff", "[SEP]"] and cut.truncated


def test_encode_caps_the_input_length():
    tok = WordPieceTokenizer(TOY)
    enc = tok.encode("a" * (MAX_INPUT_CHARS + 50))                  # one long word: [UNK], but the text was cut
    assert enc.tokens == ["[CLS]", "[UNK]", "[SEP]"] and enc.truncated


@pytest.mark.parametrize("text", ["", " ", "\t\n", "\x00"])
def test_encode_rejects_empty_text(text):
    with pytest.raises(ValueError):
        WordPieceTokenizer(TOY).encode(text)


def test_encode_rejects_non_text():
    with pytest.raises(TypeError, match="string"):
        WordPieceTokenizer(TOY).encode(None)


@functools.cache
def _tokenizer() -> WordPieceTokenizer:
    return load_model().tokenizer                 # loaded once for all the examples below


@settings(max_examples=200, deadline=None)
@given(st.text(min_size=1, max_size=300))
def test_any_text_encodes_or_raises_value_error(text):
    tok = _tokenizer()
    try:
        enc = tok.encode(text)
    except ValueError:
        assert not basic_tokenize(text)
        return
    assert enc.tokens[0] == "[CLS]" and enc.tokens[-1] == "[SEP]" and 3 <= len(enc.tokens) <= 128
    assert all(0 <= i < len(tok.vocab) for i in enc.token_ids)
