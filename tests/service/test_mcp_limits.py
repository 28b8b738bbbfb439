"""The MCP server's limits in process (issue #19): per-call timeout that stops the work,
length caps, bounded trees, and errors that never echo a huge input."""

from __future__ import annotations

import threading
import time
from typing import Any

import anyio
import pytest
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

from kgrecall.agents import QueryService
from kgrecall.service import create_mcp_server
from kgrecall.service.mcp_server import MAX_ERROR_CHARS
from tests.conftest import PD4_GENES


def call(server: MCPServer, tool: str, arguments: dict[str, Any]) -> object:
    return anyio.run(server.call_tool, tool, arguments)


def refusal(server: MCPServer, tool: str, arguments: dict[str, Any]) -> str:
    with pytest.raises(ToolError) as raised:
        call(server, tool, arguments)
    message = str(raised.value)
    assert len(message) <= MAX_ERROR_CHARS + 50  # the SDK's "Error executing tool …: "
    return message


def test_long_inputs_are_refused_with_a_short_error(service: QueryService) -> None:
    server = create_mcp_server(service)
    question = refusal(server, "kg_ask", {"question": "Which genes? " * 10_000})
    assert "more than the limit of 2,000" in question
    huge = create_mcp_server(service, max_report_chars=1000)
    assert "limit of 1,000" in refusal(huge, "kg_ground", {"report": "SNCA. " * 1000})
    tree = {"op": "project", "relation": "x" * 100_000, "input": PD4_GENES["input"]}
    assert "at most 200 characters" in refusal(server, "kg_query", {"query": tree})
    unknown = {**tree, "relation": "x" * 200}
    assert "unknown relation" in refusal(server, "kg_query", {"query": unknown})
    tag = refusal(server, "kg_query", {"query": {"op": "y" * 100_000}})
    assert "invalid query tree" in tag


def test_wide_and_deep_trees_are_tool_errors(service: QueryService) -> None:
    server = create_mcp_server(service)
    wide = {"op": "union", "inputs": [PD4_GENES] * 100}
    assert "max_branches=16" in refusal(server, "kg_query", {"query": wide})
    deep: dict[str, object] = PD4_GENES
    for _ in range(10):
        deep = {"op": "project", "relation": "has_phenotype", "input": deep}
    assert "max_depth=8" in refusal(server, "kg_query", {"query": deep})


def test_a_timed_out_call_stops_its_work(
    service: QueryService, monkeypatch: pytest.MonkeyPatch
) -> None:
    extractor = service.resources("demo").validator.extractor
    original = extractor.extract
    finished = threading.Event()
    ground = service.ground

    def slow_extract(text: str, **options: Any) -> object:
        time.sleep(0.02)  # 400 claims × 20 ms: 8 s of work without a deadline
        return original(text, **options)

    def watched_ground(report: str, *, kg: str = "demo") -> object:
        try:
            return ground(report, kg=kg)
        finally:
            finished.set()

    monkeypatch.setattr(extractor, "extract", slow_extract)
    monkeypatch.setattr(service, "ground", watched_ground)
    server = create_mcp_server(service, timeout_s=0.5)
    started = time.perf_counter()
    message = refusal(server, "kg_ground", {"report": "SNCA causes PD. " * 400})
    assert "limit of 0.5 s" in message
    assert finished.wait(timeout=2.0), "the work went on after the timeout"
    assert time.perf_counter() - started < 3.0
