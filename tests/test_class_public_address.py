"""A public address that points to this computer (issue 46): the presenter's panel says phones cannot open the
join link, as it does for a class opened at localhost with no public address set."""

from __future__ import annotations

import pytest

from devtools.apptest import start_class
from tests.test_class_presenter import end
from ui.classroom import presenting

LOOPBACK = ["http://127.0.0.1:8501/", "http://127.8.9.10/attention", "http://localhost:8501/", "http://LOCALHOST./",
            "http://class.localhost/", "http://[::1]:8501/", "http://0.0.0.0:8501/", "http://[::]/",
            "http://[::ffff:127.0.0.1]:8501/"]
REACHABLE = ["http://192.168.1.20:8501/", "https://class.example.org/attention", "http://128.0.0.1/",
             "http://localhost.example.org/", "http://[::2]/", "http://10.0.0.127/"]


@pytest.mark.parametrize("url", LOOPBACK)
def test_a_loopback_public_address_is_named_in_the_warning(monkeypatch, url):
    monkeypatch.setenv(presenting.PUBLIC_URL_ENV, url)
    why = presenting.unreachable()
    assert why is not None and "Phones cannot open this link" in why
    host = presenting.loopback(presenting.urlsplit(url).hostname)
    assert host is not None and f"({host})" in why


@pytest.mark.parametrize("url", REACHABLE)
def test_a_reachable_public_address_gets_no_warning(monkeypatch, url):
    monkeypatch.setenv(presenting.PUBLIC_URL_ENV, url)
    assert presenting.public_root() is not None and presenting.unreachable() is None


def test_an_unclosed_ipv6_bracket_is_no_public_address(monkeypatch):
    monkeypatch.setenv(presenting.PUBLIC_URL_ENV, "http://[::1:8501/")
    assert presenting.public_root() is None


def test_the_presenters_panel_warns_of_a_loopback_public_address(monkeypatch):
    monkeypatch.setenv(presenting.PUBLIC_URL_ENV, "http://127.0.0.1:8501/")
    pres, _, _ = start_class()
    warnings = [w.value for w in pres.sidebar.warning]
    assert any("Phones cannot open this link" in w and "public address" in w for w in warnings), warnings
    assert any("127.0.0.1" in c.value for c in pres.sidebar.code)       # the link is still shown, as set
    monkeypatch.setenv(presenting.PUBLIC_URL_ENV, "https://class.example.org/")
    pres.run()
    assert not [w for w in pres.sidebar.warning if "Phones cannot" in w.value]
    end(pres)
