"""The MCP server through a real MCP client session over stdio (a subprocess)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import anyio
import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from kgrecall.agents import QueryService
from tests.conftest import PD4_GENES

TREE = PD4_GENES


@pytest.mark.timeout(300)
def test_chat_assistant_session(demo_home: Path, service: QueryService) -> None:
    """``service`` has built the vector index in ``demo_home``, so the server starts warm."""
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "kgrecall", "mcp", "--kg", "demo", "--home", str(demo_home)],
        env={"OPENAI_API_KEY": "", "HF_HUB_OFFLINE": "1"},
    )

    async def session() -> dict[str, object]:
        async with stdio_client(params) as (read, write), ClientSession(read, write) as client:
            await client.initialize()
            tools = await client.list_tools()
            queried = await client.call_tool("kg_query", {"query": TREE, "recall_target": 0.9})
            asked = await client.call_tool(
                "kg_ask", {"question": "Which genes are associated with Parkinson disease 4?"}
            )
            grounded = await client.call_tool(
                "kg_ground", {"report": "SNCA is associated with Parkinson disease 4."}
            )
            bad = await client.call_tool(
                "kg_ask", {"question": "Which genes encode Parkinson disease 4?"}
            )
            searched = await client.call_tool("kg_search", {"text": "alpha-synuclein", "k": 3})
            schema = await client.call_tool("kg_schema", {})
            return {
                "searched": searched,
                "relations": schema,
                "tools": sorted(t.name for t in tools.tools),
                "schema": next(t for t in tools.tools if t.name == "kg_query").input_schema,
                "queried": queried,
                "asked": asked,
                "grounded": grounded,
                "bad": bad,
            }

    seen = anyio.run(session)
    assert seen["tools"] == ["kg_ask", "kg_ground", "kg_query", "kg_schema", "kg_search"]
    assert "recall_target" in seen["schema"]["properties"]  # type: ignore[index]

    def payload(result: object) -> dict[str, object]:
        structured = getattr(result, "structured_content", None)
        if structured:
            return structured  # type: ignore[no-any-return]
        return json.loads(result.content[0].text)  # type: ignore[attr-defined,no-any-return]

    queried = payload(seen["queried"])
    assert queried["answers"][0]["id"] == "NCBIGene:6622"  # type: ignore[index]
    assert queried["completeness"]["recall_target"] == pytest.approx(0.9)  # type: ignore[index]
    asked = payload(seen["asked"])
    assert asked["plan"]["topology"] == "1p" and "SNCA" in asked["answer"]  # type: ignore[index,operator]
    assert payload(seen["grounded"])["claims"][0]["label"] == "grounded"  # type: ignore[index]
    searched = payload(seen["searched"])
    assert searched["linked"] and searched["hits"][0]["name"] == "SNCA"  # type: ignore[index]
    relations = {r["name"]: r for r in payload(seen["relations"])["relations"]}  # type: ignore[union-attr,index]
    assert {"head_type": "gene", "tail_type": "disease"} in [
        {k: s[k] for k in ("head_type", "tail_type")}
        for s in relations["associated_with"]["signatures"]
    ]
    bad = seen["bad"]
    assert getattr(bad, "is_error", False)
    assert "do not connect" in bad.content[0].text  # type: ignore[attr-defined]
