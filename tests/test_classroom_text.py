"""classroom/text.py's visible_text and classroom/client.py's client_address: pure functions, checked on
examples and against a direct filter over every character."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given, strategies as hs

from classroom.client import client_address, trusted_proxies
from classroom.text import visible_text


@pytest.mark.parametrize("typed, shown", [
    ("K7MQ2P", "K7MQ2P"),
    ("report\u202eexe.txt", "reportexe.txt"),                 # right-to-left override
    ("a\u200bb\u200c\u200dc\ufeff", "abc"),                    # zero-width space, joiners, byte-order mark
    ("\u2066isolate\u2069 \u061c", "isolate "),                # bidirectional isolates, Arabic letter mark
    ("bell\x07 nul\x00 del\x7f", "bell nul del"),
    ("two\r\nlines\tand tab", "twolinesand tab"),
    ("Ünïcödé ½ → αβγ 日本", "Ünïcödé ½ → αβγ 日本"),             # visible characters stay
    ("lone \ud800 surrogate", "lone  surrogate"),
])
def test_invisible_and_reordering_characters_go(typed, shown):
    assert visible_text(typed) == shown


def test_a_text_area_keeps_its_newlines_and_tabs():
    assert visible_text("line one\r\nline two\n\tindented\u202e", multiline=True) == "line one\nline two\n\tindented"


@given(hs.text(), hs.booleans())
def test_visible_text_is_the_visible_characters_in_order(s, multiline):
    out = visible_text(s, multiline=multiline)
    kept = "\n\t" if multiline else ""
    assert out == "".join(c for c in s if c in kept or unicodedata.category(c) not in ("Cc", "Cf", "Cs"))
    assert all(c in kept or unicodedata.category(c)[0] != "C" or unicodedata.category(c) in ("Cn", "Co")
               for c in out)
    assert visible_text(out, multiline=multiline) == out
    out.encode("utf-8")                                            # always writable


PROXY = trusted_proxies("10.0.0.0/8, 127.0.0.1")


@pytest.mark.parametrize("peer, forwarded, expected", [
    ("10.0.0.5", "203.0.113.7", "203.0.113.7"),                     # the proxy's word for it
    (None, "203.0.113.7", "203.0.113.7"),                           # a proxy on this host (loopback peer)
    ("10.0.0.5", "6.6.6.6, 203.0.113.7", "203.0.113.7"),            # only the proxy's own (last) entry
    ("198.51.100.9", "203.0.113.7", "198.51.100.9"),                # not a proxy: its claim is ignored
    ("10.0.0.5", "not an address", "10.0.0.5"),
    ("10.0.0.5", None, "10.0.0.5"),
    ("2001:db8::1", "203.0.113.7", "2001:db8::1"),
    ("garbage", "203.0.113.7", None),
])
def test_the_forwarded_address_is_believed_from_a_trusted_proxy_only(peer, forwarded, expected):
    assert client_address(peer, forwarded, PROXY) == expected


def test_no_trusted_proxy_means_the_peer_always():
    assert client_address("10.0.0.5", "203.0.113.7", trusted_proxies("")) == "10.0.0.5"
    with pytest.raises(ValueError):
        trusted_proxies("10.0.0.0/33")
