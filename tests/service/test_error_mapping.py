"""HTTP and MCP read one error table: each kind of failure gets its status (HTTP) or a tool
error with its public message (MCP); an unexpected exception is an internal error with an id,
its message never shown."""

from __future__ import annotations

from typing import Any

import anyio
import pytest
from fastapi.testclient import TestClient
from mcp.server.mcpserver.exceptions import ToolError

from kgrecall.agents import QueryService
from kgrecall.errors import CalibrationInfeasibleError, KGRecallError, NotFoundError
from kgrecall.llm import LLMError
from kgrecall.service import create_mcp_server

FAILURES: list[tuple[Exception, int]] = [
    (LLMError("the LLM endpoint answered 500"), 502),
    (CalibrationInfeasibleError("CRC cannot reach alpha=0.01 with n=3"), 422),
    (NotFoundError("no logged query 'abc'"), 404),
]


@pytest.mark.parametrize(("error", "status"), FAILURES)
def test_http_status_follows_the_error_kind(
    client: TestClient,
    service: QueryService,
    monkeypatch: pytest.MonkeyPatch,
    error: Exception,
    status: int,
) -> None:
    def failing(*_: Any, **__: Any) -> None:
        raise error

    monkeypatch.setattr(service, "ground", failing)
    response = client.post("/v1/ground", json={"report": "SNCA causes Parkinson disease."})
    assert response.status_code == status
    assert response.json() == {"error": str(error)}


def test_an_unknown_kg_is_404_without_listing_the_kgs(client: TestClient) -> None:
    response = client.post("/v1/ground", json={"report": "SNCA.", "database": "nope"})
    assert response.status_code == 404
    assert "'nope'" in response.json()["detail"] and "demo" not in response.json()["detail"]


def test_an_entity_only_tree_is_answered(client: TestClient) -> None:
    tree = {"op": "entity", "id": "NCBIGene:6622"}
    response = client.post("/v1/query/structured", json={"query": tree})
    assert response.status_code == 200
    assert [a["id"] for a in response.json()["answers"]] == ["NCBIGene:6622"]


def _tool_error(service: QueryService, arguments: dict[str, Any]) -> str:
    server = create_mcp_server(service)
    with pytest.raises(ToolError) as raised:
        anyio.run(server.call_tool, "kg_ground", arguments)
    return str(raised.value)


@pytest.mark.parametrize(("error", "_status"), FAILURES)
def test_mcp_tool_errors_carry_the_public_message(
    service: QueryService, monkeypatch: pytest.MonkeyPatch, error: KGRecallError, _status: int
) -> None:
    def failing(*_: Any, **__: Any) -> None:
        raise error

    monkeypatch.setattr(service, "ground", failing)
    assert str(error) in _tool_error(service, {"report": "SNCA."})


def test_an_unexpected_exception_is_an_internal_error_with_an_id(
    service: QueryService, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    def crashing(*_: Any, **__: Any) -> None:
        raise ValueError("secret detail of a bug")

    monkeypatch.setattr(service, "ground", crashing)
    message = _tool_error(service, {"report": "SNCA."})
    assert "internal error (id " in message and "secret" not in message
    assert "secret detail of a bug" in caplog.text  # logged for the operator
