"""The HTTP app over the session's demo QueryService (built once, offline), in process and
on a loopback port."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator

import pytest
import uvicorn
from fastapi import FastAPI
from fastapi.testclient import TestClient

from kgrecall.agents import QueryService
from kgrecall.service import create_app

ADMIN_KEY = "test-admin-key"


@pytest.fixture(scope="session")
def api(service: QueryService) -> FastAPI:
    return create_app(service, admin_key=ADMIN_KEY, max_body_bytes=200_000)


@pytest.fixture
def client(api: FastAPI) -> Iterator[TestClient]:
    with TestClient(api, raise_server_exceptions=False) as test_client:
        yield test_client


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture(scope="module")
def live_server(api: FastAPI) -> Iterator[str]:
    """``api`` served by uvicorn on 127.0.0.1 (a free port) for the module's tests."""
    port = free_port()
    config = uvicorn.Config(
        api,
        host="127.0.0.1",
        port=port,
        log_level="error",
        timeout_keep_alive=60,
        http="httptools",  # as `kgrecall serve`
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(timeout=10)
