"""The MCP server (stdio, the official ``mcp`` SDK): ``kg_ask``, ``kg_query``, ``kg_ground``
for chat assistants.

``kgrecall mcp [--kg NAME]`` starts it; a client (Claude Desktop, an IDE, any MCP client)
launches that command and talks JSON-RPC over stdin/stdout. Each tool returns the service's
pydantic response as structured content (and its JSON as text). Errors that name a problem
(unknown KG, unreadable question, bad QueryTree) reach the client as tool errors with that
message.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

import kgrecall
from kgrecall.agents import QueryService
from kgrecall.kg import KGError

INSTRUCTIONS = (
    "kgrecall answers 'find all X related to Y' questions over a biomedical knowledge graph. "
    "kg_ask takes a question and a completeness level (fast, thorough = recall ≥ 0.8, "
    "exhaustive = recall ≥ 0.9) and returns the answers with evidence, a completeness block "
    "saying what is guaranteed, and every claim of the answer checked against the graph. "
    "kg_query takes a structured query tree and a recall_target. kg_ground checks a report."
)


def create_mcp_server(service: QueryService | None = None, *, kg: str = "demo") -> MCPServer:
    """The MCP server over ``service`` for KG ``kg``."""
    core = service or QueryService()

    server: MCPServer = MCPServer(
        "kgrecall", instructions=INSTRUCTIONS, version=kgrecall.__version__
    )

    @server.tool()
    def kg_ask(
        question: str,
        level: str = "fast",
        recall_target: float | None = None,
        max_results: int = 20,
    ) -> dict[str, Any]:
        """Answer a question from the knowledge graph with a completeness guarantee and every
        claim grounded; level is fast, thorough or exhaustive; recall_target (e.g. 0.9)
        overrides it."""
        with _named_errors():
            response = core.ask(
                question, kg=kg, level=level, recall_target=recall_target, max_results=max_results
            )
        return response.model_dump(mode="json")

    @server.tool()
    def kg_query(
        query: dict[str, Any],
        recall_target: float | None = None,
        level: str = "fast",
        max_results: int = 50,
    ) -> dict[str, Any]:
        """Answer a structured query tree, e.g. {"op": "project", "relation":
        "associated_with", "inverse": true, "input": {"op": "entity", "id": "OMIM:605543"}},
        at a recall target."""
        with _named_errors():
            response = core.query(
                query, kg=kg, level=level, recall_target=recall_target, max_results=max_results
            )
        return response.model_dump(mode="json")

    @server.tool()
    def kg_ground(report: str) -> dict[str, Any]:
        """Label every claim of a report grounded / inferred / ungrounded / trivial against the
        knowledge graph, with evidence chains."""
        with _named_errors():
            return core.ground(report, kg=kg).model_dump(mode="json")

    return server


@contextmanager
def _named_errors() -> Iterator[None]:
    """KG errors (and invalid QueryTrees) reach the client as tool errors with their message."""
    try:
        yield
    except KGError as error:
        raise ToolError(str(error)) from None
    except ValueError as error:  # pydantic's ValidationError of a bad QueryTree
        raise ToolError(f"invalid input: {error}") from None
