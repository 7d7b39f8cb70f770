"""deploy/haproxy.cfg, run by Debian's haproxy in front of a stand-in backend: what it logs (never a query
string: a presenter's link carries the class key there), the headers it adds, and the client address it
forwards (its own, never one a client sent)."""

from __future__ import annotations

import http.server
import json
import threading
import time
import urllib.request

import pytest

from devtools import harness, services

SECRET = "k3y-Sh0uld-N3ver-b3-L0gg3d"


class _Echo(http.server.BaseHTTPRequestHandler):
    """200 with the request's X-Forwarded-For as JSON (and 200 on the health check)."""

    def do_GET(self) -> None:
        body = json.dumps({"xff": self.headers.get_all("X-Forwarded-For") or []}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args) -> None:
        pass


@pytest.fixture(scope="module")
def proxied(tmp_path_factory):
    services.require(services.HAPROXY)
    port = harness.free_port()
    backend = http.server.ThreadingHTTPServer(("127.0.0.1", port), _Echo)
    threading.Thread(target=backend.serve_forever, daemon=True).start()
    log_path = tmp_path_factory.mktemp("haproxy") / "haproxy.log"
    try:
        with open(log_path, "w") as log, services.haproxy([port], log=log) as (base, _):
            yield base, log_path
    finally:
        backend.shutdown()


def _get(url: str, **headers) -> tuple:
    with urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=5) as r:
        return r.headers, json.loads(r.read())          # r.headers: names read case-insensitively


def test_the_log_names_the_path_but_never_the_query_string(proxied):
    base, log_path = proxied
    _get(f"{base}/sqrt_dk?room=K7MQ2P&key={SECRET}&present=1")
    deadline = time.monotonic() + 5
    while "/sqrt_dk" not in log_path.read_text() and time.monotonic() < deadline:
        time.sleep(0.05)
    log = log_path.read_text()
    line = next(line for line in log.splitlines() if "/sqrt_dk" in line)
    assert '"GET /sqrt_dk HTTP/1.1"' in line and "replicas/app" in line
    assert SECRET not in log and "room=" not in log and "?" not in line


def test_every_response_carries_the_security_headers(proxied):
    base, _ = proxied
    headers, _ = _get(f"{base}/")
    assert headers["X-Frame-Options"] == "SAMEORIGIN"
    assert headers["Content-Security-Policy"] == "frame-ancestors 'self'"
    assert headers["X-Content-Type-Options"] == "nosniff"
    assert headers["Referrer-Policy"] == "no-referrer"              # a presenter link's key never in a Referer


def test_the_forwarded_address_is_the_proxys_view_never_the_clients_claim(proxied):
    base, _ = proxied
    _, seen = _get(f"{base}/", **{"X-Forwarded-For": "6.6.6.6"})
    assert seen["xff"] == ["127.0.0.1"]
