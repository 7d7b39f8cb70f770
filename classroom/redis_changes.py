"""Changes across replicas: a presenter's replica PUBLISHes the room's code, every replica's listener wakes
its own followers. The listener is redis-py's own worker (``PubSub.run_in_thread``): it reads messages on
its connection, redis-py reconnects and subscribes again after Redis comes back, and a failure goes to an
exception handler that logs it (at most once a minute) and pauses briefly before the next read.
"""

from __future__ import annotations

import logging
import time

import redis
from redis.backoff import ExponentialBackoff
from redis.client import PubSubWorkerThread
from redis.retry import Retry

_LOGGER = logging.getLogger(__name__)
READ_WAIT_S = 1.0          # how long one read waits for a message (so stop() takes effect within it)
AWAY_PAUSE_S = 1.0         # after a failed read, before the next (Redis down: no busy loop)
LOG_EVERY_S = 60.0         # at most one warning this often while Redis stays away


def changed_room(message: str) -> tuple[str, tuple[str, str] | None]:
    """An announcement read back: (room code, section or None). Anything malformed names no section
    (followers then rerun the whole page, which is always right)."""
    parts = message[:200].split(" ")
    section = (parts[1], parts[2]) if len(parts) == 3 and all(0 < len(p) <= 64 for p in parts[1:]) else None
    return parts[0][:16], section


class Changes:
    """announce/listen for RedisRoomStore (which sets ``r``, ``url`` and ``prefix``)."""

    r: redis.Redis
    url: str | None
    prefix: str

    @property
    def changes_channel(self) -> str:
        return self.prefix + "changed"

    def announce(self, code: str, section: tuple[str, str] | None = None) -> None:
        """Tell every replica that room ``code`` changed (Redis PUBLISH), and in which lesson section
        (page slug, fragment name) when the change lies inside one; best effort: the watcher also checks."""
        message = code if section is None else " ".join((code, *section))
        try:
            self.r.publish(self.changes_channel, message)
        except redis.RedisError as err:
            _LOGGER.debug("classroom: announcing a change failed (%s)", err)

    def listen(self, on_change) -> PubSubWorkerThread:
        """Call ``on_change(code, section)`` on redis-py's daemon worker thread for each room any replica
        announces. Its own connection, retried with back-off; returns the thread (``stop()`` ends it)."""
        client = (redis.Redis.from_url(self.url, decode_responses=True, socket_connect_timeout=2,
                                       health_check_interval=30, client_name="attention-changes",
                                       retry=Retry(ExponentialBackoff(cap=2.0, base=0.1), 2))
                  if self.url else self.r)
        pubsub = client.pubsub(ignore_subscribe_messages=True)

        def handle(message: dict) -> None:
            if isinstance(message.get("data"), str):
                on_change(*changed_room(message["data"]))

        try:
            pubsub.subscribe(**{self.changes_channel: handle})
        except redis.RedisError as err:                 # Redis away now: redis-py subscribes when it connects
            _LOGGER.warning("classroom: cannot listen for changes yet (%s); trying again", err)
            _subscribe_when_connected(pubsub, self.changes_channel, handle)
        thread = pubsub.run_in_thread(sleep_time=READ_WAIT_S, daemon=True, exception_handler=_Handler())
        thread.client = client                          # a collected client would close the pool under the worker
        thread.name = "attention-classroom-changes"
        return thread


def _subscribe_when_connected(pubsub: redis.client.PubSub, channel: str, handle) -> None:
    """What ``subscribe`` leaves behind when it can reach Redis: a connection (not yet connected) whose
    connect callback subscribes to the channels named, so the worker's first read connects and subscribes."""
    pubsub.connection = pubsub.connection_pool.make_connection()
    pubsub.connection.register_connect_callback(pubsub.on_connect)
    pubsub.channels[channel] = handle
    pubsub.subscribed_event.set()


class _Handler:
    """The worker's exception handler: log a failure (at most one warning a minute, so an outage is one line,
    not one per read), pause, and let the worker read again."""

    def __init__(self) -> None:
        self.failures = 0
        self._warned = -LOG_EVERY_S

    def __call__(self, error: BaseException, pubsub, thread) -> None:
        self.failures += 1                              # only the worker thread calls this
        if time.monotonic() - self._warned >= LOG_EVERY_S:
            self._warned = time.monotonic()
            _LOGGER.warning("classroom: listening for changes failed (%s: %s); reconnecting",
                            type(error).__name__, error)
        time.sleep(AWAY_PAUSE_S)
