"""Text a person typed, as it may be shown to others: ``visible_text``. Pure (no Streamlit, no NumPy), so
the ui layer and the room store can both import it.

Control characters (Unicode category Cc) and format characters (Cf: the bidirectional overrides such as
U+202E that make "txt.exe" read "exe.txt", zero-width spaces and joiners, the byte-order mark) are
invisible or rearrange what a reader sees, so a name or answer could pass for another; lone surrogates
(Cs) cannot even be written as UTF-8. All three are dropped. A text area keeps its newlines and tabs.
"""

from __future__ import annotations

import unicodedata

DROPPED = frozenset({"Cc", "Cf", "Cs"})
KEPT_IN_TEXT_AREAS = frozenset("\n\t")


def visible_text(s: str, *, multiline: bool = False) -> str:
    """``s`` without its control and format characters (newline and tab kept when ``multiline``);
    a carriage return goes, so "\\r\\n" reads as one newline."""
    keep = KEPT_IN_TEXT_AREAS if multiline else frozenset()
    return "".join(ch for ch in s if ch in keep or unicodedata.category(ch) not in DROPPED)
