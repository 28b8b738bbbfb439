"""The HTTP app over the session's demo QueryService (built once, offline)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
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
