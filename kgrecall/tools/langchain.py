"""The retrieval tools as LangChain tools for outer LLM agents.

Each tool has a pydantic ``args_schema`` and ``response_format="content_and_artifact"``: the
LLM sees a short text summary, code gets the full ``list[Candidate]`` as the artifact.
Traversal here is exact retrieval only; the calibrated, recall-targeted ``kg_query`` tool (and
``kg_ask``, ``kg_ground``) are in :mod:`kgrecall.agents.tools`.
"""

from __future__ import annotations

from collections.abc import Sequence

from langchain_core.tools import BaseTool, StructuredTool
from pydantic import BaseModel, Field

from kgrecall.kg import GraphStore
from kgrecall.tools.query import QueryTree
from kgrecall.tools.results import Candidate
from kgrecall.tools.store_search import EntitySearch
from kgrecall.tools.traversal import traverse


class TraverseArgs(BaseModel):
    """Arguments of ``kg_traverse``."""

    query: QueryTree = Field(
        description='A query tree, e.g. {"op": "project", "relation": "associated_with", '
        '"inverse": true, "input": {"op": "entity", "id": "OMIM:605543"}}'
    )
    recall_target: float | None = Field(
        None,
        gt=0.0,
        le=1.0,
        description="Share of the true answers wanted (e.g. 0.9). Exact traversal returns what "
        "the KG holds; the answer says whether a calibrated guarantee backs the target.",
    )
    max_results: int = Field(50, ge=1, le=1000, description="How many answers to list.")
    node_types: list[str] | None = Field(None, description="Keep only these entity types.")


class SearchArgs(BaseModel):
    """Arguments of the search tools."""

    text: str = Field(min_length=1, description="Entity name, synonym, id or description.")
    max_results: int = Field(10, ge=1, le=200)
    node_types: list[str] | None = Field(None, description="Keep only these entity types.")


def summarise(candidates: Sequence[Candidate], total: int, note: str = "") -> str:
    """The short text an LLM sees: count, then ``name (id) score`` lines."""
    shown = f"; showing {len(candidates)}" if total > len(candidates) else ""
    lines = [f"{total} result(s){shown}{note}"]
    lines += [f"- {c.name} ({c.id}, {c.type}) score {c.score:.2f}" for c in candidates]
    return "\n".join(lines)


def make_retrieval_tools(
    store: GraphStore, fulltext: EntitySearch | None = None, vector: EntitySearch | None = None
) -> list[BaseTool]:
    """``kg_traverse`` always; ``kg_fulltext_search`` / ``kg_vector_search`` when indexed."""

    def kg_traverse(
        query: QueryTree,
        recall_target: float | None = None,
        max_results: int = 50,
        node_types: list[str] | None = None,
    ) -> tuple[str, list[Candidate]]:
        result = traverse(store, query)
        answers = [c for c in result.candidates if node_types is None or c.type in node_types]
        note = f"; capped: {'; '.join(result.truncations)}" if result.truncated else ""
        if recall_target is not None:
            note += (
                f"; recall target {recall_target:g} requested: no calibration applies to exact "
                "traversal alone (guarantee: none; answers missing from the KG are not found)"
            )
        shown = answers[:max_results]
        summary = summarise(shown, len(answers), f" (exact {result.topology} traversal{note})")
        return summary, answers

    tools: list[BaseTool] = [
        StructuredTool.from_function(
            kg_traverse,
            name="kg_traverse",
            description="Exact answers of a structured query over the knowledge graph, with "
            "the KG paths behind each answer.",
            args_schema=TraverseArgs,
            response_format="content_and_artifact",
        )
    ]
    if fulltext is not None:
        tools.append(
            _search_tool(
                "kg_fulltext_search", "Find entities by name, synonym or id (BM25).", fulltext
            )
        )
    if vector is not None:
        tools.append(
            _search_tool(
                "kg_vector_search",
                "Find entities whose names or descriptions mean something close to the text "
                "(embedding similarity).",
                vector,
            )
        )
    return tools


def _search_tool(name: str, description: str, index: EntitySearch) -> BaseTool:
    def search(
        text: str, max_results: int = 10, node_types: list[str] | None = None
    ) -> tuple[str, list[Candidate]]:
        found = index.search(text, k=max_results, node_types=node_types)
        return summarise(found, len(found)), found

    return StructuredTool.from_function(
        search,
        name=name,
        description=description,
        args_schema=SearchArgs,
        response_format="content_and_artifact",
    )
