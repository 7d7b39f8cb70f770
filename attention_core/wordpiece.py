"""BERT's uncased WordPiece tokenizer in pure Python.

Two passes, as in the original BERT code:
1. basic_tokenize: clean the text, space out CJK characters, lowercase, strip accents, split on
   whitespace and punctuation.                      "Café, naïve!" → ["cafe", ",", "naive", "!"]
2. wordpiece: greedy longest-match-first against the vocabulary, continuations marked "##".
                                                    "transformers" → ["transformers"], "muddy" → ["mud", "##dy"]
Anything the vocabulary cannot spell becomes [UNK]; nothing raises except empty text.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from pathlib import Path

MAX_INPUT_CHARS = 10_000          # cut before tokenising, so a pasted book stays fast
MAX_TOKENS = 128                  # including [CLS] and [SEP]
MAX_CHARS_PER_WORD = 100          # longer "words" become [UNK], as in BERT
CLS, SEP, UNK = "[CLS]", "[SEP]", "[UNK]"


@dataclass(frozen=True)
class Encoding:
    """tokens: [T] strings incl. [CLS]/[SEP]; token_ids: [T] vocabulary ids; truncated: text or tokens were cut."""

    tokens: list[str]
    token_ids: list[int]
    truncated: bool


def load_vocab(path: str | Path) -> dict[str, int]:
    """vocab.txt, one token a line, id = line number."""
    lines = Path(path).read_text(encoding="utf-8").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return {token: i for i, token in enumerate(lines)}


def _is_whitespace(ch: str) -> bool:
    return ch in " \t\n\r" or unicodedata.category(ch) == "Zs"


def _is_control(ch: str) -> bool:
    return ch not in "\t\n\r" and unicodedata.category(ch).startswith("C")


def _is_punctuation(ch: str) -> bool:
    # BERT counts every non-alphanumeric printable ASCII symbol ($, +, ^, `…) as punctuation too.
    cp = ord(ch)
    if 33 <= cp <= 47 or 58 <= cp <= 64 or 91 <= cp <= 96 or 123 <= cp <= 126:
        return True
    return unicodedata.category(ch).startswith("P")


def _is_cjk(cp: int) -> bool:
    # CJK Unified Ideographs and their extensions; not Hangul, Hiragana or Katakana (those are spelled).
    return (
        0x4E00 <= cp <= 0x9FFF or 0x3400 <= cp <= 0x4DBF or 0x20000 <= cp <= 0x2A6DF
        or 0x2A700 <= cp <= 0x2B73F or 0x2B740 <= cp <= 0x2B81F or 0x2B820 <= cp <= 0x2CEAF
        or 0xF900 <= cp <= 0xFAFF or 0x2F800 <= cp <= 0x2FA1F
    )


def clean_text(text: str) -> str:
    """Drop NUL, U+FFFD and control characters; every kind of whitespace becomes one space."""
    out = []
    for ch in text:
        cp = ord(ch)
        if cp == 0 or cp == 0xFFFD or _is_control(ch):
            continue
        out.append(" " if _is_whitespace(ch) else ch)
    return "".join(out)


def space_cjk(text: str) -> str:
    """Put spaces around each CJK ideograph, so each becomes its own word."""
    return "".join(f" {ch} " if _is_cjk(ord(ch)) else ch for ch in text)


def strip_accents(word: str) -> str:
    """NFD, then drop combining marks (Mn): "café" → "cafe"."""
    return "".join(ch for ch in unicodedata.normalize("NFD", word) if unicodedata.category(ch) != "Mn")


def split_punctuation(word: str) -> list[str]:
    """Each punctuation character stands alone: "isn't" → ["isn", "'", "t"]."""
    pieces: list[str] = []
    start_new = True
    for ch in word:
        if _is_punctuation(ch):
            pieces.append(ch)
            start_new = True
        else:
            if start_new:
                pieces.append("")
                start_new = False
            pieces[-1] += ch
    return pieces


def basic_tokenize(text: str) -> list[str]:
    """Clean, space out CJK, lowercase, strip accents, split on whitespace and punctuation."""
    text = unicodedata.normalize("NFC", space_cjk(clean_text(text)))
    words = []
    for word in text.split():
        words.extend(split_punctuation(strip_accents(word.lower())))
    return words


def wordpiece(word: str, vocab: dict[str, int]) -> list[str]:
    """Greedy longest-match-first: the longest vocabulary prefix, then "##"-prefixed pieces; else [UNK]."""
    if len(word) > MAX_CHARS_PER_WORD:
        return [UNK]
    pieces = []
    start = 0
    while start < len(word):
        end = len(word)
        while end > start:
            piece = word[start:end] if start == 0 else "##" + word[start:end]
            if piece in vocab:
                break
            end -= 1
        if end == start:                     # no prefix matched: the whole word is unknown
            return [UNK]
        pieces.append(piece)
        start = end
    return pieces


class WordPieceTokenizer:
    """Text → [CLS] wordpieces [SEP], at most MAX_TOKENS, with vocabulary ids."""

    def __init__(self, vocab: dict[str, int]):
        self.vocab = vocab

    def tokenize(self, text: str) -> list[str]:
        """Wordpieces of the text, no special tokens, no truncation."""
        return [piece for word in basic_tokenize(text) for piece in wordpiece(word, self.vocab)]

    def encode(self, text: str, max_tokens: int = MAX_TOKENS) -> Encoding:
        """[CLS] + wordpieces + [SEP], cut to max_tokens. Raises ValueError for empty text."""
        if not isinstance(text, str):
            raise TypeError(f"The text must be a string, got {type(text).__name__}.")
        if not text.strip():
            raise ValueError("Type a sentence first: the text is empty.")
        cut = len(text) > MAX_INPUT_CHARS
        pieces = self.tokenize(text[:MAX_INPUT_CHARS])
        if not pieces:
            raise ValueError("The text has no readable characters (only control characters).")
        if len(pieces) > max_tokens - 2:
            pieces, cut = pieces[: max_tokens - 2], True
        tokens = [CLS, *pieces, SEP]
        return Encoding(tokens=tokens, token_ids=[self.vocab[t] for t in tokens], truncated=cut)
