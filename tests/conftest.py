"""Shared test fixtures: a real Redis Stack server for the Redis-backed tests.

``no_global_cache`` clears the process-wide LLM cache before and after a test; the cache
tests apply it to their whole module with ``pytest.mark.usefixtures``.

``redis_url`` (session) is the URL of a Redis Stack server: ``$RAGLINE_REDIS_URL`` when
set, else a server this session starts with ``scripts/redis-stack.sh`` on a free
127.0.0.1 port and stops at the end. ``redis_server_factory`` starts extra private
servers (for tests that kill and restart one).
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent
REDIS_STACK_SCRIPT = REPO_ROOT / "scripts" / "redis-stack.sh"
# The ONNX export of MiniLM is made once per cache folder: keep the suite's in the checkout
# (git-ignored), not in the user's ~/.cache, unless RAGLINE_CACHE_DIR says where.
os.environ.setdefault("RAGLINE_CACHE_DIR", str(REPO_ROOT / ".cache" / "ragline"))


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class RedisServer:
    """A redis-server (with RediSearch and RedisJSON) started by scripts/redis-stack.sh."""

    def __init__(self, directory: Path, port: int | None = None) -> None:
        self.directory = directory
        self.port = port or _free_port()
        self.pid: int | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}"

    def start(self, *redis_args: str) -> RedisServer:
        """Start the server (again) on its port and wait until it answers PING."""
        result = subprocess.run(
            ["bash", str(REDIS_STACK_SCRIPT), "start", str(self.port), str(self.directory),
             "--", *redis_args],
            capture_output=True, text=True, check=False, timeout=600,
        )  # fmt: skip
        if result.returncode != 0:
            raise RuntimeError(f"could not start Redis Stack on port {self.port}:\n{result.stderr}")
        self.pid = int(result.stdout.strip().splitlines()[-1])
        return self

    def kill(self) -> None:
        """Kill the server abruptly (SIGKILL) and wait until its process is gone."""
        self._signal(signal.SIGKILL)

    def stop(self) -> None:
        """Stop the server (SIGTERM) and wait until its process is gone."""
        self._signal(signal.SIGTERM)

    def _signal(self, signum: int) -> None:
        if self.pid is None:
            return
        try:
            os.kill(self.pid, signum)
        except ProcessLookupError:
            self.pid = None
            return
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                os.kill(self.pid, 0)
            except ProcessLookupError:
                break
            time.sleep(0.02)
        self.pid = None


@pytest.fixture(scope="session")
def redis_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """URL of a Redis Stack server for the whole session (``$RAGLINE_REDIS_URL`` if set)."""
    url = os.environ.get("RAGLINE_REDIS_URL")
    if url:
        yield url
        return
    server = RedisServer(tmp_path_factory.mktemp("redis-session")).start()
    try:
        yield server.url
    finally:
        server.stop()


@pytest.fixture
def redis_server_factory(tmp_path: Path) -> Iterator[Callable[[], RedisServer]]:
    """Start private Redis Stack servers (not yet started: call ``.start()``); all stop after."""
    servers: list[RedisServer] = []

    def make() -> RedisServer:
        server = RedisServer(tmp_path / f"redis-{len(servers)}")
        servers.append(server)
        return server

    yield make
    for server in servers:
        server.stop()


@pytest.fixture(scope="session")
def ray_cluster() -> Iterator[Any]:
    """A local Ray for the session: 2 CPUs, loopback only, no dashboard; shut down at the end.

    Workers inherit this process's environment (so ``RAGLINE_CACHE_DIR`` and
    ``PYTHONPATH``, hence this checkout's ragline).
    """
    import logging

    import ray

    ray.init(
        num_cpus=2,
        include_dashboard=False,
        _node_ip_address="127.0.0.1",
        logging_level=logging.WARNING,
    )
    try:
        yield ray
    finally:
        ray.shutdown()


@pytest.fixture
def no_global_cache() -> Iterator[None]:
    """The test starts and ends without a global LLM cache."""
    from ragline.core.caches import set_llm_cache

    set_llm_cache(None)
    yield
    set_llm_cache(None)
