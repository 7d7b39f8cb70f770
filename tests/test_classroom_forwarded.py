"""classroom.client.client_address when Streamlit's web server has already believed X-Forwarded-For (issue 45).

Streamlit 1.67 serves through uvicorn, whose proxy-header handling is on by default and believes the header from
FORWARDED_ALLOW_IPS (127.0.0.1 and ::1 when unset): the peer Streamlit reports is then an address taken from the
header. The app must believe that only when the hosts uvicorn trusts are proxies the deployer named.
"""

from __future__ import annotations

import pytest

from classroom.client import SERVER_TRUST_ENV, client_address, trusted_proxies

NONE, LOOPBACK = trusted_proxies(""), trusted_proxies("127.0.0.1, ::1")


@pytest.mark.parametrize("reported, forwarded, trusted, environ, expected", [
    ("203.0.113.7", "203.0.113.7", NONE, {}, "127.0.0.1"),                  # forged from this host: ignored
    ("203.0.113.7", "6.6.6.6, 203.0.113.7", NONE, {}, "127.0.0.1"),
    ("203.0.113.7", "203.0.113.7", LOOPBACK, {}, "203.0.113.7"),             # a proxy on this host, named
    ("203.0.113.7", "203.0.113.7:4711", LOOPBACK, {}, "203.0.113.7"),        # uvicorn reads ports too
    ("2001:db8::9", "[2001:db8::9]:4711", NONE, {}, "127.0.0.1"),
    ("203.0.113.7", "203.0.113.7", trusted_proxies("127.0.0.1"), {}, "203.0.113.7"),  # this host: ::1 as well
    ("203.0.113.7", "203.0.113.7", trusted_proxies("10.0.0.0/8"), {SERVER_TRUST_ENV: "10.0.0.2"}, "203.0.113.7"),
    ("203.0.113.7", "203.0.113.7", trusted_proxies("10.0.0.2"), {SERVER_TRUST_ENV: "10.0.0.0/8"}, "10.0.0.0"),
    ("203.0.113.7", "203.0.113.7", LOOPBACK, {SERVER_TRUST_ENV: "*"}, None),   # anyone may forge: no address
    ("198.51.100.9", "203.0.113.7", LOOPBACK, {}, "198.51.100.9"),          # not rewritten: an untrusted peer
    (None, "203.0.113.7", LOOPBACK, {}, "203.0.113.7"),                    # not rewritten: a named loopback proxy
    (None, "203.0.113.7", NONE, {}, "127.0.0.1"),
])
def test_a_header_the_web_server_believed_counts_only_from_a_named_proxy(reported, forwarded, trusted, environ,
                                                                          expected):
    assert client_address(reported, forwarded, trusted, environ) == expected


def test_without_a_header_the_reported_peer_stands():
    assert client_address("127.0.0.7", None, NONE, {}) == "127.0.0.7"
    assert client_address("2001:db8::1", None, LOOPBACK, {}) == "2001:db8::1"
