"""How RedisRoomStore calls Redis: failures mapped to StoreUnavailable behind a circuit breaker, and the
presenter key as the scripts compare it (hashed). Shared by classroom/redis_store.py and
classroom/redis_questions.py."""

from __future__ import annotations

import functools
import hashlib
import time

import redis

from classroom.store import StoreUnavailable

# Redis down, restarting or loading its data (BusyLoadingError is a ConnectionError), or a replica
# that cannot take writes: the lesson keeps working and the page says it is reconnecting.
_UNREACHABLE = (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError, redis.exceptions.ReadOnlyError)
RETRY_AFTER_S = 1.0     # after a failure, calls fail at once for this long; then one call tries Redis again


def mapped(method):
    """Redis unreachable -> StoreUnavailable. A hung Redis makes each call wait for its timeout, so after
    one failure the store answers StoreUnavailable at once for RETRY_AFTER_S (a circuit breaker): a
    replica's hundred followers then cost one timed-out call a second, not a hundred."""

    @functools.wraps(method)
    def wrapper(self, *args, **kwargs):
        if time.monotonic() < self._down_until:
            raise StoreUnavailable("Reconnecting to the class…")
        try:
            return method(self, *args, **kwargs)
        except _UNREACHABLE as e:
            self._down_until = time.monotonic() + RETRY_AFTER_S
            raise StoreUnavailable("Reconnecting to the class…") from e

    return wrapper


def key_hash(key: object) -> str:
    """SHA-256 of the key; a value that cannot be a key gets a hash no room holds (the scripts still
    check that the room exists first, so an unknown room is reported as such)."""
    if not isinstance(key, str) or not 0 < len(key) <= 64:
        return "-"
    return hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()
