"""Words typed by a learner: cleaned into short plain labels, never markup."""

from __future__ import annotations

import re

MAX_LABEL = 16
_KEEP = re.compile(r"[^\w\s'·-]|_", re.UNICODE)                  # \w lets "_" through: it is Markdown


def clean_label(text: str, limit: int = MAX_LABEL) -> str:
    """Keep letters, digits, spaces, apostrophes and dashes; trim to ``limit`` characters."""
    cleaned = " ".join(_KEEP.sub("", str(text)).split())
    return cleaned[:limit]


def parse_labels(text: str, n: int, prefix: str = "x") -> tuple[list[str], str | None]:
    """'river, bank, muddy' → n clean labels, plus a message when they had to be filled in.

    Missing or empty labels become prefix1, prefix2, …; extra labels are dropped.
    """
    raw = [clean_label(t) for t in str(text).split(",")] if str(text).strip() else []
    labels = [raw[i] if i < len(raw) and raw[i] else f"{prefix}{i + 1}" for i in range(n)]
    message = None
    if len(raw) != n:
        message = f"Expected {n} labels (one per token row), got {len(raw)}; using {', '.join(labels)}."
    elif len(set(labels)) != n:
        labels = [f"{lab} ({i + 1})" for i, lab in enumerate(labels)]
        message = "Two tokens had the same label, so each label now carries its row number."
    return labels, message
