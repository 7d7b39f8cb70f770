"""devtools/services.py's copy of deploy/haproxy.cfg for more replicas than the shipped two (benchmarks/lecture_hall.py
--replicas 4): the shipped file for one or two, a copy with one server line per replica past that, which
Debian's haproxy accepts; the shipped file itself is never changed."""

import subprocess

from devtools import services


def _servers(text: str) -> list[str]:
    return [line.split()[1] for line in text.splitlines() if line.strip().startswith("server ")]


def test_one_or_two_replicas_run_the_shipped_file_itself():
    for replicas in (1, services.SHIPPED_REPLICAS):
        assert services.haproxy_cfg(replicas) == services.HAPROXY_CFG


def test_four_replicas_get_a_copy_with_a_server_line_and_a_cookie_each_that_haproxy_accepts():
    services.require(services.HAPROXY)
    shipped = services.HAPROXY_CFG.read_text(encoding="utf-8")
    replicas = services.SHIPPED_REPLICAS + 2
    cfg = services.haproxy_cfg(replicas)
    try:
        text = cfg.read_text(encoding="utf-8")
        names = [f"app{k}" for k in range(1, replicas + 1)]
        assert _servers(text) == names
        assert all(f"cookie {n}" in text for n in names) and f"APP{replicas}_ADDR" in text
        backends = [8000 + k for k in range(replicas)]
        env = services.haproxy_env(services.free_port(), backends)
        assert [env[f"APP{k}_ADDR"] for k in range(1, replicas + 1)] == [f"127.0.0.1:{p}" for p in backends]
        check = subprocess.run([services.HAPROXY, "-c", "-f", str(cfg)], env=env, capture_output=True, text=True)
        assert check.returncode == 0, check.stdout + check.stderr
    finally:
        cfg.unlink()
    assert services.HAPROXY_CFG.read_text(encoding="utf-8") == shipped
    assert _servers(shipped) == ["app1", "app2"]


def test_one_backend_still_fills_both_shipped_addresses():
    env = services.haproxy_env(services.free_port(), [8123])
    assert env["APP1_ADDR"] == env["APP2_ADDR"] == "127.0.0.1:8123"
