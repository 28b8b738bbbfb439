"""A KG is loaded by the service's loader, never inside a request: a request for a KG still
loading gets 503 + Retry-After and the server keeps serving (on a fresh home the first demo
requests used to 504 while the index build ran inside them)."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from kgrecall.agents import QueryService
from kgrecall.kg import Workspace
from kgrecall.kg.errors import KGNotFoundError
from kgrecall.kg.loaders import build_store, load_pykeen_dataset
from kgrecall.service import create_app

TREE = {"op": "project", "relation": "embassy", "input": {"op": "entity", "id": "uk"}}

#: The rule model loads in well under a second (ULTRA takes seconds): loading is what is
#: tested here, not the model.
CHEAP: dict[str, Any] = {"use_env_llm": False, "progress": False, "model": "rules"}


@pytest.fixture(scope="module")
def nations_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    home = tmp_path_factory.mktemp("nations-home")
    Workspace(home).save(build_store([load_pykeen_dataset("nations")], name="n"), "nations")
    return home


def test_a_loading_kg_is_a_503_and_the_server_keeps_serving(
    nations_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    service = QueryService(nations_home, **CHEAP)
    release = threading.Event()
    original = service._load

    def slow_load(kg: str) -> object:
        release.wait(30)
        return original(kg)

    monkeypatch.setattr(service, "_load", slow_load)
    api = create_app(service, admin_key="k", load_wait_s=0.2)
    body = {"query": TREE, "database": "nations"}
    with TestClient(api, raise_server_exceptions=False) as client:
        for _ in range(3):  # repeated requests neither restart nor duplicate the build
            busy = client.post("/v1/query/structured", json=body)
            assert busy.status_code == 503 and busy.headers["retry-after"] == "5"
            assert "is loading" in busy.json()["detail"]
        assert client.get("/v1/health").status_code == 200
        release.set()
        service.load("nations").result(timeout=60)
        served = client.post("/v1/query/structured", json=body)
        assert served.status_code == 200, served.text
        assert served.json()["answers"]


def test_preload_starts_loading_and_refuses_unknown_kgs(nations_home: Path) -> None:
    service = QueryService(nations_home, **CHEAP)
    create_app(service, admin_key="k", preload=["nations"])
    assert service.load("nations").result(timeout=60).store.number_of_nodes() == 14
    with pytest.raises(KGNotFoundError, match="no KG named 'nope'"):
        create_app(QueryService(nations_home, use_env_llm=False), admin_key="k", preload=["nope"])


def test_a_kg_a_request_loads_is_warmed_like_a_preloaded_one(
    nations_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first request for a KG that was not preloaded starts its load with the warm-up
    (fulltext index, completion model), so the request after it does not pay for them."""
    from kgrecall.agents.service import KGResources

    warmed: list[str] = []
    monkeypatch.setattr(KGResources, "warm", lambda self: warmed.append(self.store.version))
    service = QueryService(nations_home, **CHEAP)
    with TestClient(create_app(service, admin_key="k")) as client:
        reply = client.post("/v1/query/structured", json={"query": TREE, "database": "nations"})
        assert reply.status_code == 200, reply.text
        client.post("/v1/query/structured", json={"query": TREE, "database": "nations"})
    assert warmed == [service.resources("nations").store.version]
