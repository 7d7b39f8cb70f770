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


def client_address(peer: str | None, forwarded_for: str | None,
                   trusted: tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...]) -> str | None:
    """The address to limit by: the last X-Forwarded-For entry when ``peer`` (None: loopback) is a trusted
    proxy and the entry is an address, else ``peer`` (127.0.0.1 for a loopback peer). None when the peer is
    not an address at all (the caller then limits every such request as one address)."""
    try:
        peer_ip = ipaddress.ip_address(peer if peer is not None else LOOPBACK)
    except ValueError:
        return None
    if forwarded_for and any(peer_ip in network for network in trusted):
        last = forwarded_for.split(",")[-1].strip()
        try:
            return str(ipaddress.ip_address(last))
        except ValueError:
            pass
    return str(peer_ip)
