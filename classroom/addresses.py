"""Who a client is, for the classroom's limits: an address grouped (an IPv6 client by its /64) and hashed, and a
join link's token. Re-exported by ``classroom.store``, where every other limit's number is."""

from __future__ import annotations

import hashlib
import ipaddress

MAX_ADDRESS_CHARS = 100           # a client address as the caller passes it (an IPv6 address is at most 45)
IPV6_PREFIX = 64                  # every per-address limit counts an IPv6 client by its /64 network
JOIN_TOKEN_CHARS = 16             # a join link's token: 64 bits, derived from the presenter key's hash


def address_group(address: str) -> str:
    """The unit every per-address limit counts: an IPv4 address itself, an IPv6 address's /64 network (one
    household or site holds a whole /64, so counting its addresses one by one would count nothing), an
    IPv4-mapped IPv6 address as its IPv4 address. Anything else is kept as given ("unknown")."""
    try:
        ip = ipaddress.ip_address(address.strip())
    except ValueError:
        return address.strip()
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.ip_network(f"{ip}/{IPV6_PREFIX}", strict=False))
    return str(ip)


def address_id(address: object) -> str:
    """A client address as the stores keep it: a short hash of its group (``address_group``), never the address
    itself. Anything that is not a short string (no address known) is one address of its own, "-", limited like
    any other."""
    if not isinstance(address, str) or not 0 < len(address.strip()) <= MAX_ADDRESS_CHARS:
        return "-"
    group = address_group(address)
    return hashlib.sha256(b"attention-classroom:" + group.encode("utf-8", "replace")).hexdigest()[:24]


def join_token_of(key_hash_hex: str) -> str:
    """A join link's token for the room whose presenter key hashes (SHA-256, hex) to ``key_hash_hex``: anyone who
    sees the link may join, without facing the limits on typed codes; it reveals nothing about the key."""
    return hashlib.sha1(b"attention-join:" + key_hash_hex.encode()).hexdigest()[:JOIN_TOKEN_CHARS]


def join_token(key: str) -> str:
    """The join link's token for the presenter key ``key`` (what the presenter's panel puts in the link)."""
    return join_token_of(hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest())
