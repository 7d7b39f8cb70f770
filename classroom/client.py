"""Which address a request came from, for the limits per address (classroom/store.py, docs/SECURITY.md).

Streamlit's ``st.context.ip_address`` is the TCP peer (None for a loopback peer). Behind the shipped
HAProxy the peer is the proxy, which sets X-Forwarded-For to the client's address (deploy/haproxy.cfg,
replacing any value the client sent). So the forwarded address is believed only when the peer is one of
the trusted proxies, named in ATTENTION_TRUSTED_PROXIES (addresses or networks, comma-separated); from
anyone else, the header is the client's own claim and is ignored.
"""

from __future__ import annotations

import ipaddress
import os

ENV_VAR = "ATTENTION_TRUSTED_PROXIES"
LOOPBACK = "127.0.0.1"            # what st.context.ip_address reports as None


def trusted_proxies(text: str | None = None) -> tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...]:
    """The networks named in ``text`` (default: the environment variable); ValueError for a malformed one."""
    text = os.environ.get(ENV_VAR, "") if text is None else text
    return tuple(ipaddress.ip_network(part.strip(), strict=False) for part in text.split(",") if part.strip())


SERVER_TRUST_ENV = "FORWARDED_ALLOW_IPS"     # uvicorn's own list of proxies it believes X-Forwarded-For from
SERVER_TRUST_DEFAULT = "127.0.0.1,::1"     # ...when unset: any same-host peer


def _ip_of(hop: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """The address in one X-Forwarded-For entry ("192.0.2.1", "192.0.2.1:4711", "[2001:db8::1]:4711"), or None."""
    hop = hop.strip()
    for text in (hop, hop.rsplit(":", 1)[0] if hop.count(":") == 1 else hop, hop[1:].split("]")[0]):
        try:
            return ipaddress.ip_address(text)
        except ValueError:
            continue
    return None


def _server_believed(peer_ip, forwarded_for: str) -> bool:
    """Whether Streamlit's web server (uvicorn, whose proxy-header handling is on by default and believes
    X-Forwarded-For from FORWARDED_ALLOW_IPS, by default 127.0.0.1 and ::1) has already put an address from the
    header in place of the TCP peer. It picks one of the header's entries, so a peer found among them is taken
    as rewritten: the real peer was one of the hosts uvicorn trusts."""
    return any(_ip_of(hop) == peer_ip for hop in forwarded_for.split(","))


def _server_trusted(environ) -> list:
    """The hosts and networks uvicorn believes X-Forwarded-For from; None stands for "*" (anyone)."""
    found = []
    for part in environ.get(SERVER_TRUST_ENV, SERVER_TRUST_DEFAULT).split(","):
        part = part.strip()
        if part == "*":
            found.append(None)
        elif part:
            try:
                found.append(ipaddress.ip_network(part, strict=False))
            except ValueError:
                continue                                # a unix socket's literal: not a TCP peer of ours
    return found


def _named(host, trusted) -> bool:
    """Whether a host uvicorn trusts is one of the deployer's proxies; this host's loopback counts as one host
    (127.0.0.1 named trusts ::1 too: both are a proxy on this machine)."""
    return any(host.subnet_of(t) for t in trusted if t.version == host.version) \
        or (host.is_loopback and any(t.is_loopback for t in trusted))


def client_address(peer: str | None, forwarded_for: str | None,
                   trusted: tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...], environ=None) -> str | None:
    """The address to limit by: the last X-Forwarded-For entry when the TCP peer is a trusted proxy and the entry
    is an address, else the peer (127.0.0.1 for a loopback one). None when the peer is not an address at all
    (the caller then limits every such request as one address).

    ``peer`` is what Streamlit reports (None: loopback). Its web server may already have replaced the real peer
    with an address from the header (``_server_believed``): then the real peer was one of the hosts the server
    trusts (FORWARDED_ALLOW_IPS in ``environ``), and the header is believed only if every one of those is also
    in ``trusted``; otherwise the request counts as coming from the first of them (127.0.0.1 by default), so a
    forged header from a same-host peer gains nothing."""
    try:
        peer_ip = ipaddress.ip_address(peer if peer is not None else LOOPBACK)
    except ValueError:
        return None
    if forwarded_for and _server_believed(peer_ip, forwarded_for):
        hosts = _server_trusted(os.environ if environ is None else environ)
        if not hosts or None in hosts or not all(_named(h, trusted) for h in hosts):
            first = next((h for h in hosts if h is not None), None)
            return str(first.network_address) if first is not None else None
        peer_ip = hosts[0].network_address             # a trusted proxy: its header is believed below
    if forwarded_for and any(peer_ip in network for network in trusted):
        last = _ip_of(forwarded_for.split(",")[-1])
        if last is not None:
            return str(last)
    return str(peer_ip)
