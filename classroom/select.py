"""Which RoomStore this process uses: Redis when configured, else the in-process store.

Configured by the environment variable ATTENTION_REDIS_URL (a container, deploy/compose.yaml) or by
``[classroom] redis_url`` in .streamlit/secrets.toml, which the ui layer reads and passes in (this package
never imports Streamlit). Without either, the in-process store: one process, as on Community Cloud.
"""

from __future__ import annotations

import os
from urllib.parse import urlsplit

from classroom.store import RoomStore

ENV_VAR = "ATTENTION_REDIS_URL"


def redis_url(secret_url: str | None = None) -> str | None:
    """The Redis URL to use, if any: the environment first, then the secrets file's value."""
    for url in (os.environ.get(ENV_VAR), secret_url):
        if isinstance(url, str) and url.strip():
            url = url.strip()
            if urlsplit(url).scheme not in ("redis", "rediss", "unix"):
                raise ValueError(f"{ENV_VAR} / [classroom] redis_url must be a redis://, rediss:// or unix:// URL")
            return url
    return None


def open_store(secret_url: str | None = None) -> RoomStore:
    """A new store (the caller keeps one per process: ui.classroom.room_store, which no cleared cache drops).

    A Redis store does not connect here: the first call does, and an unreachable Redis then raises
    StoreUnavailable there, where the page shows "Reconnecting to the class…".
    """
    url = redis_url(secret_url)
    if url:
        from classroom.redis_store import RedisRoomStore

        return RedisRoomStore.from_url(url)
    from classroom.memory import MemoryRoomStore

    return MemoryRoomStore()
