"""Validated input widgets: they return numbers or None, and show their own message on bad input."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import streamlit as st

from attention_core import format_matrix, parse_matrix
from attention_core.parsing import MAX_CHARS
from classroom.text import visible_text
from ui import controls


def matrix_input(label: str, default: np.ndarray, key: str, *, help: str | None = None, cols: int | None = None,
                 rows: int | None = None, height: int | None = None, disabled: bool = False,
                 bind: str | None = "query-params") -> np.ndarray | None:
    """A text area holding a matrix, one row per line, at most MAX_CHARS characters; mirrored in the URL
    under ``key`` (``bind="query-params"``, as a Streamlit widget's argument; None keeps it out of the URL),
    but only once it reads as a matrix.

    Returns the parsed matrix [rows, cols], or None after showing what is wrong with the entry (the URL
    then keeps the last value that was accepted, so a shared link never carries refused text).
    A value that arrived in a link and cannot be read falls back to the default, with a notice.
    """
    default_text = format_matrix(default)
    refused = controls.private_key("refused", key)       # why the link's value was not used
    shown = st.session_state.get(key)
    if shown is None:                                     # first run on this page: take the link's value
        shown = default_text
        if bind and key in st.query_params:
            try:
                parse_matrix(st.query_params[key], _NAME, cols=cols, rows=rows)
                shown = st.query_params[key]
            except ValueError as err:
                # Stored before the address changes: changing it sends a message, and a rerun asked for
                # meanwhile (a component reporting its value) stops this run right there.
                st.session_state[refused] = _named(err, label)
                st.query_params.pop(key, None)
    # The notice stays until the learner edits the box: a rerun they did not cause must not hide it.
    if refused in st.session_state:
        if shown == default_text:
            st.warning(f"The link's value for {label_markdown(label)} could not be used ({st.session_state[refused]}), "
                       "so the default is shown.", icon=":material/link_off:")
        else:
            del st.session_state[refused]
    # The box's default is always the text it should show. A value set only through the session state
    # reaches the browser once, with the run that first draws the box; if a component's rerun overtakes the
    # browser's drawing, the next run no longer sends it, the box mounts at its default and sends that back
    # (seen as three empty boxes on a loaded machine: docs/RELIABILITY.md). With a key, the default is not
    # part of the widget's identity, so the box keeps its state as the default follows it.
    # Mirrored by hand rather than with bind="query-params": a bound widget always takes the URL's
    # value, and a tampered matrix in a link must fall back to the default instead.
    text = st.text_area(label, value=shown, key=key, help=help, height=height, max_chars=MAX_CHARS,
                        disabled=disabled)
    try:
        M = parse_matrix(text, _NAME, cols=cols, rows=rows)
    except ValueError as err:
        st.error(_named(err, label), icon=":material/error:")
        return None
    if not bind:
        return M
    if text == default_text:
        st.query_params.pop(key, None)
    else:
        st.query_params[key] = text
    return M


# What a text box takes from the browser. A box's own limit is enforced here, not by the browser: a browser
# given max_chars drops a longer paste whole and says nothing, leaving the old text in the box.
PASTE_CHARS = 10_000


def text_box(label: str, value: str = "", *, key: str, max_chars: int, area: bool = False, where=st,
             help: str | None = None, **kwargs) -> str:
    """A text input (``area=True``: a text area) holding at most ``max_chars`` characters. A longer paste is cut
    to its first ``max_chars`` characters, and the box says so beside itself; the box never sends more
    than that on, so a link mirrors the cut text. ``where`` is the container (a column) it is drawn in."""
    cut = controls.private_key("cut", key)

    def cut_to_limit() -> None:
        text = st.session_state.get(key) or ""
        if len(text) > max_chars:
            st.session_state[key] = text[:max_chars]
            st.session_state[cut] = len(text)

    widget = where.text_area if area else where.text_input
    text = widget(label, value, key=key, max_chars=max(PASTE_CHARS, max_chars), on_change=cut_to_limit,
                  help=help or f"At most {max_chars:,} characters.", **kwargs)
    if (length := st.session_state.pop(cut, None)) is not None:
        where.warning(f"That text had {length:,} characters; this box keeps at most {max_chars:,}, so only the "
                      f"first {max_chars:,} are used.", icon=":material/content_cut:")
    elif len(text or "") > max_chars:                     # a link's value, which no callback saw
        where.warning(f"That text had {len(text):,} characters; this box keeps at most {max_chars:,}, so only the "
                      f"first {max_chars:,} are used.", icon=":material/content_cut:")
    return (text or "")[:max_chars]


def table(matrix: np.ndarray, row_labels: list[str], col_labels: list[str], digits: int = 6) -> pd.DataFrame:
    """A pandas table of a matrix with labelled rows and columns, rounded for display only."""
    return pd.DataFrame(np.round(np.atleast_2d(matrix), digits), index=row_labels, columns=col_labels)


# Stands in for a matrix's label inside a parse message until the message is escaped; then the label goes
# in as Markdown with its maths kept ("$W_Q$" renders, where escaped it would show its dollar signs).
_NAME = "MatrixInputLabel"


def _named(err: Exception, label: str) -> str:
    return message(err).replace(_NAME, label_markdown(label))


def message(err: Exception, limit: int = 300) -> str:
    """An error's sentence ready for st.error / st.warning / st.info, which render Markdown.

    Core messages may quote a short excerpt of what the learner typed (attention_core._validate.excerpt);
    the whole sentence goes through ``literal``, so that excerpt shows as typed: one escape for every
    message path, whichever part of it came from the learner."""
    return literal(str(err), limit)


def literal(text: str, limit: int = 80) -> str:
    """User text made safe to put inside Markdown: one line, shortened, every ASCII punctuation mark
    backslash-escaped (CommonMark allows it for all of them), so "<b>", "**" or "[x](y)" show as typed.

    Escapes do not stop GitHub-style autolinks: Streamlit's renderer finds "http://…", "www.…" and
    "name@host.tld" in the text after escapes are read. An invisible U+2060 WORD JOINER after "://"'s
    colon, after "www" and after "@" breaks each pattern without changing what the learner sees."""
    text = " ".join(visible_text(str(text)).split())   # no control or format character (U+202E, U+200B)
    text = text if len(text) <= limit else text[: limit - 1] + "…"
    text = _AUTOLINK.sub("\\g<0>" + _JOINER, text)
    return "".join("\\" + ch if ch.isascii() and not ch.isalnum() and not ch.isspace() else ch for ch in text)


def label_markdown(label: str, limit: int = 80) -> str:
    """One of our own control labels, for Markdown: its inline maths ($W_Q$) kept for KaTeX, every other
    character escaped as ``literal`` does. Only for labels the app itself wrote (never for a learner's text)."""
    parts = re.split(r"(\$[^$]+\$)", str(label)[:limit])
    return "".join(p if p.startswith("$") and p.endswith("$") and len(p) > 1
                   else (" " if p[:1].isspace() else "") + literal(p, limit) + (" " if p[-1:].isspace() else "")
                   for p in parts if p)


_JOINER = "\u2060"
_AUTOLINK = re.compile(r"(?i):(?=//)|www(?=\.)|@")
