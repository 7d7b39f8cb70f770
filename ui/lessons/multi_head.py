"""The multi-head page's cached computations: each head's favourite keys in the lab's run of a sentence."""

from __future__ import annotations

import streamlit as st

import attention_core as core
from ui.models import encode


@st.cache_data(max_entries=64, show_spinner=False)
def head_roles(text: str) -> core.HeadRoles:
    """Each head's favourite key per token in the lab's cached run of ``text`` (the same run the lab draws)."""
    r = encode(text)
    return core.head_roles(r.attentions, r.tokens)
