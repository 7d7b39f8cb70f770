"""Debian's redis-server and haproxy as child processes: shared by the tests and benchmarks/ (pytest only in require).

redis-server runs on a free port on 127.0.0.1 with no persistence (``--save "" --appendonly no``), so a
restart loses every key, as a fresh container would. haproxy runs deploy/haproxy.cfg itself, with its
addresses given through environment variables (HAProxy expands "${VAR}" in its configuration), so the
test and the compose file use one file. For more replicas than the shipped file's two (a benchmark's four), a
copy of it gets one more "server" line per replica, made from app2's (``haproxy_cfg``): the shipped file
keeps naming only the services deploy/compose.yaml starts.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
import time
import urllib.request
from contextlib import contextmanager
from pathlib import Path

from devtools.harness import free_port, stop  # one free port, one way to take down a server

ROOT = Path(__file__).resolve().parent.parent
HAPROXY_CFG = ROOT / "deploy" / "haproxy.cfg"
REDIS_SERVER = shutil.which("redis-server") or "/usr/bin/redis-server"
HAPROXY = shutil.which("haproxy") or "/usr/sbin/haproxy"


def require(*programs: str) -> None:
    """Skip the calling test when a Debian program it runs is missing (fail on CI: scripts/test.sh installs them)."""
    import pytest

    missing = [p for p in programs if not Path(p).exists()]
    if missing:
        message = f"{', '.join(missing)} missing: install Debian's redis-server and haproxy (scripts/test.sh does)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)


def _listening(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.2):
            return True
    except OSError:
        return False


class RedisServer:
    """One redis-server on a fixed port; stop() and start() again keep the port (a restart mid-class)."""

    def __init__(self, port: int | None = None) -> None:
        self.port = port or free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.proc: subprocess.Popen | None = None

    def start(self) -> RedisServer:
        cmd = [REDIS_SERVER, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
               "--protected-mode", "yes", "--daemonize", "no", "--loglevel", "warning"]
        self.proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT,
                                     start_new_session=True)
        deadline = time.monotonic() + 20
        while not _listening(self.port):
            if self.proc.poll() is not None:
                raise RuntimeError(f"redis-server exited with code {self.proc.returncode}")
            if time.monotonic() > deadline:
                self.stop()
                raise TimeoutError(f"redis-server did not listen on {self.port} within 20 s")
            time.sleep(0.02)
        return self

    def stop(self) -> None:
        if self.proc is not None:
            stop(self.proc)
            self.proc = None

    def info(self, section: str = "stats") -> dict[str, str]:
        """INFO <section> as a dict (redis-cli is not needed: one raw RESP command)."""
        import redis

        return redis.Redis(host="127.0.0.1", port=self.port, decode_responses=True).info(section)


@contextmanager
def redis_server():
    """with redis_server() as server: server.url ..."""
    server = RedisServer().start()
    try:
        yield server
    finally:
        server.stop()


SHIPPED_REPLICAS = 2           # the "server" lines deploy/haproxy.cfg has (app1, app2)


def haproxy_env(port: int, backends: list[int]) -> dict[str, str]:
    """The variables deploy/haproxy.cfg (or its copy from ``haproxy_cfg``) reads, for app processes on 127.0.0.1
    at ``backends`` (with one, both of the shipped server lines point at it)."""
    env = dict(os.environ)
    env["HAPROXY_BIND"] = f"127.0.0.1:{port}"
    for k in range(1, max(SHIPPED_REPLICAS, len(backends)) + 1):
        env[f"APP{k}_ADDR"] = f"127.0.0.1:{backends[min(k, len(backends)) - 1]}"
    return env


def haproxy_cfg(replicas: int) -> Path:
    """deploy/haproxy.cfg for ``replicas`` app servers: the shipped file itself up to its two; past that, a copy in
    a temporary file with one more "server" line per replica, made from app2's (``app3 "${APP3_ADDR-app3:8501}"
    cookie app3`` and so on)."""
    if replicas <= SHIPPED_REPLICAS:
        return HAPROXY_CFG
    text = HAPROXY_CFG.read_text(encoding="utf-8")
    line = next(x for x in text.splitlines() if x.strip().startswith("server app2 "))
    extra = [line.replace("app2", f"app{k}").replace("APP2_", f"APP{k}_")
             for k in range(SHIPPED_REPLICAS + 1, replicas + 1)]
    copy = tempfile.NamedTemporaryFile("w", suffix=".cfg", prefix="haproxy-", delete=False, encoding="utf-8")
    with copy:
        copy.write(text.replace(line, "\n".join([line, *extra])))
    return Path(copy.name)


@contextmanager
def haproxy(backends: list[int], log=None):
    """Debian's haproxy running deploy/haproxy.cfg (``haproxy_cfg``: a copy with more server lines past two) in
    front of app servers on ``backends``; yields (its URL, its process)."""
    port = free_port()
    env = haproxy_env(port, backends)
    cfg = haproxy_cfg(len(backends))
    check = subprocess.run([HAPROXY, "-c", "-f", str(cfg)], env=env, capture_output=True, text=True)
    if check.returncode != 0:
        raise RuntimeError(f"haproxy -c rejected {cfg}:\n{check.stdout}{check.stderr}")
    proc = subprocess.Popen([HAPROXY, "-db", "-f", str(cfg)], env=env,
                            stdout=log or subprocess.DEVNULL, stderr=subprocess.STDOUT, start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    try:
        while True:                                # healthy once a backend answers through it
            try:
                with urllib.request.urlopen(f"{base}/_stcore/health", timeout=2) as r:
                    if r.status == 200:
                        break
            except OSError:
                pass
            if proc.poll() is not None:
                raise RuntimeError(f"haproxy exited with code {proc.returncode}")
            if time.monotonic() > deadline:
                raise TimeoutError("haproxy did not pass /_stcore/health within 30 s")
            time.sleep(0.1)
        yield base, proc
    finally:
        stop(proc)
        if cfg != HAPROXY_CFG:
            cfg.unlink(missing_ok=True)
