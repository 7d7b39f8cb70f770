"""The multi-head page's cached computations: each head's favourite keys in the lab's run of a sentence."""

from __future__ import annotations

import attention_core as core
from ui.lru import shared
from ui.models import encode


@shared(max_entries=64)
def head_roles(text: str) -> core.HeadRoles:
    """Each head's favourite key per token in the lab's cached run of ``text`` (the same run the lab draws)."""
    r = encode(text)
    return core.head_roles(r.attentions, r.tokens)
