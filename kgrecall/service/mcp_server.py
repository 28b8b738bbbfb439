"""The MCP server (stdio, the official ``mcp`` SDK): ``kg_ask``, ``kg_query``, ``kg_ground``
for chat assistants.

``kgrecall mcp [--kg NAME]`` starts it; a client (Claude Desktop, an IDE, any MCP client)
launches that command and talks JSON-RPC over stdin/stdout. Each tool returns the service's
pydantic response as structured content (and its JSON as text). Errors that name a problem
(unknown KG, unreadable question, bad QueryTree) reach the client as tool errors with that
message, cut to ``MAX_ERROR_CHARS`` (never a huge input echoed back).

Each call has a time limit (``timeout_s``): the work runs in a worker thread under a
cooperative deadline (:mod:`kgrecall.kg.deadline`), so a timed-out call also stops
computing. Questions longer than ``max_question_chars`` and reports longer than
``max_report_chars`` are refused before any work.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import partial
from typing import Any

import anyio.to_thread
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import BaseModel, ValidationError

import kgrecall
from kgrecall.agents import QueryService
from kgrecall.errors import KGRecallError
from kgrecall.grounding import DEFAULT_MAX_CHARS
from kgrecall.kg.deadline import deadline
from kgrecall.service.app import field_errors

log = logging.getLogger("kgrecall.service")

DEFAULT_TIMEOUT_S = 60.0
DEFAULT_MAX_QUESTION_CHARS = 2000
#: Tool error messages are cut to this many characters.
MAX_ERROR_CHARS = 500

INSTRUCTIONS = (
    "kgrecall answers 'find all X related to Y' questions over a biomedical knowledge graph. "
    "kg_ask takes a question and a completeness level (fast, thorough = recall ≥ 0.8, "
    "exhaustive = recall ≥ 0.9) and returns the answers with evidence, a completeness block "
    "saying what is guaranteed, and every claim of the answer checked against the graph. "
    "kg_query takes a structured query tree and a recall_target. kg_ground checks a report."
)


def create_mcp_server(
    service: QueryService | None = None,
    *,
    kg: str = "demo",
    timeout_s: float = DEFAULT_TIMEOUT_S,
    max_question_chars: int = DEFAULT_MAX_QUESTION_CHARS,
    max_report_chars: int = DEFAULT_MAX_CHARS,
) -> MCPServer:
    """The MCP server over ``service`` for KG ``kg``, each call limited to ``timeout_s``."""
    core = service or QueryService()

    def within_deadline(call: Callable[[], BaseModel]) -> dict[str, Any]:
        with _named_errors(), deadline(timeout_s):
            return call().model_dump(mode="json")

    async def bounded(call: Callable[[], BaseModel]) -> dict[str, Any]:
        """Run ``call`` in a worker thread: its JSON, or a tool error after ``timeout_s``."""
        try:
            return await asyncio.wait_for(
                anyio.to_thread.run_sync(within_deadline, call, abandon_on_cancel=True),
                timeout=timeout_s,
            )
        except TimeoutError:
            raise ToolError(f"the call took longer than its limit of {timeout_s:g} s") from None

    def check_length(name: str, text: str, limit: int) -> None:
        if len(text) > limit:
            raise ToolError(
                f"the {name} has {len(text):,} characters, more than the limit of {limit:,}"
            )

    server: MCPServer = MCPServer(
        "kgrecall", instructions=INSTRUCTIONS, version=kgrecall.__version__
    )

    @server.tool()
    async def kg_ask(
        question: str,
        level: str = "fast",
        recall_target: float | None = None,
        max_results: int = 20,
    ) -> dict[str, Any]:
        """Answer a question from the knowledge graph with a completeness guarantee and every
        claim grounded; level is fast, thorough or exhaustive; recall_target (e.g. 0.9)
        overrides it."""
        check_length("question", question, max_question_chars)
        return await bounded(
            partial(
                core.ask,
                question,
                kg=kg,
                level=level,
                recall_target=recall_target,
                max_results=max_results,
            )
        )

    @server.tool()
    async def kg_query(
        query: dict[str, Any],
        recall_target: float | None = None,
        level: str = "fast",
        max_results: int = 50,
    ) -> dict[str, Any]:
        """Answer a structured query tree, e.g. {"op": "project", "relation":
        "associated_with", "inverse": true, "input": {"op": "entity", "id": "OMIM:605543"}},
        at a recall target."""
        return await bounded(
            partial(
                core.query,
                query,
                kg=kg,
                level=level,
                recall_target=recall_target,
                max_results=max_results,
            )
        )

    @server.tool()
    async def kg_search(
        text: str, k: int = 10, node_types: list[str] | None = None
    ) -> dict[str, Any]:
        """Find entities by name, alias, abbreviation or id: ids, types, names, scores
        (``linked`` false: nothing reached the minimum score, the hits are the closest)."""
        check_length("search text", text, max_question_chars)
        return await bounded(partial(core.search, text, kg=kg, k=k, node_types=node_types))

    @server.tool()
    async def kg_schema() -> dict[str, Any]:
        """The node types and relations: meaning, the node types each relation joins with
        edge counts, wordings and an example query tree for kg_query."""
        return await bounded(partial(core.schema, kg=kg))

    @server.tool()
    async def kg_ground(report: str) -> dict[str, Any]:
        """Label every claim of a report grounded / inferred / ungrounded / trivial against the
        knowledge graph, with evidence chains."""
        check_length("report", report, max_report_chars)
        return await bounded(partial(core.ground, report, kg=kg))

    return server


@contextmanager
def _named_errors() -> Iterator[None]:
    """kgrecall's errors (and invalid QueryTrees) reach the client as tool errors with their
    public message, cut short; a bad tree's errors name the fields, never the input. Anything
    else is a bug: logged with an id, and the client gets only the id."""
    try:
        yield
    except KGRecallError as error:
        raise ToolError(_short(error.public_message())) from None
    except ValidationError as error:
        fields = "; ".join(
            f"{item['field']}: {item['message']}"
            for item in field_errors(error.errors(include_input=False))
        )
        raise ToolError(_short(f"invalid query tree: {fields}")) from None
    except Exception:
        error_id = uuid.uuid4().hex[:12]
        log.exception("MCP tool call failed (id %s)", error_id)
        raise ToolError(f"internal error (id {error_id})") from None


def _short(message: str) -> str:
    """``message`` cut to ``MAX_ERROR_CHARS`` characters."""
    if len(message) <= MAX_ERROR_CHARS:
        return message
    return message[: MAX_ERROR_CHARS - 1] + "…"
