"""``kg_ask``, ``kg_query`` and ``kg_ground`` as LangChain tools for outer agents.

Each has a pydantic ``args_schema`` and ``response_format="content_and_artifact"``: the
calling LLM reads a short text (answers, completeness, grounding counts), code gets the full
pydantic response as the artifact. All three go through one :class:`QueryService`.
"""

from __future__ import annotations

from langchain_core.tools import BaseTool, StructuredTool
from pydantic import BaseModel, Field

from kgrecall.agents.service import (
    MAX_RESULTS_CAP,
    AskResponse,
    QueryResponse,
    QueryService,
)
from kgrecall.calibration import Completeness
from kgrecall.grounding import GroundingResult
from kgrecall.tools import QueryTree

LEVEL_HELP = (
    "fast (retrieval only, no guarantee), thorough (recall ≥ 0.8) or exhaustive (recall ≥ 0.9)"
)


class AskArgs(BaseModel):
    """Arguments of ``kg_ask``."""

    question: str = Field(min_length=1, description="A question about the knowledge graph.")
    level: str = Field("fast", description=LEVEL_HELP)
    recall_target: float | None = Field(
        None, gt=0.0, le=1.0, description="Share of the true answers wanted; overrides level."
    )
    max_results: int = Field(20, ge=1, le=MAX_RESULTS_CAP)


class QueryArgs(BaseModel):
    """Arguments of ``kg_query``."""

    query: QueryTree = Field(
        description='A query tree, e.g. {"op": "project", "relation": "associated_with", '
        '"inverse": true, "input": {"op": "entity", "id": "OMIM:605543"}}'
    )
    recall_target: float | None = Field(
        None, gt=0.0, le=1.0, description="Share of the true answers wanted (e.g. 0.9)."
    )
    level: str = Field("fast", description=LEVEL_HELP)
    max_results: int = Field(50, ge=1, le=MAX_RESULTS_CAP)


class GroundArgs(BaseModel):
    """Arguments of ``kg_ground``."""

    report: str = Field(min_length=1, description="A report whose claims are to be checked.")


def completeness_line(completeness: Completeness) -> str:
    """The completeness block in one line."""
    estimated, confidence = completeness.estimated_recall, completeness.estimated_recall_confidence
    bound = (
        "n/a"
        if estimated is None
        else f"{estimated:.3f}"
        + ("" if confidence is None else f" (lower bound at {confidence:.0%} confidence)")
    )
    return (
        f"completeness: level {completeness.level}, estimated recall {bound}; "
        f"guarantee {completeness.guarantee}"
    )


def make_agent_tools(service: QueryService, *, kg: str = "demo") -> list[BaseTool]:
    """The three tools over ``service`` for KG ``kg``."""

    def kg_ask(
        question: str,
        level: str = "fast",
        recall_target: float | None = None,
        max_results: int = 20,
    ) -> tuple[str, AskResponse]:
        response = service.ask(
            question, kg=kg, level=level, recall_target=recall_target, max_results=max_results
        )
        return f"{response.answer}\n{completeness_line(response.completeness)}", response

    def kg_query(
        query: QueryTree,
        recall_target: float | None = None,
        level: str = "fast",
        max_results: int = 50,
    ) -> tuple[str, QueryResponse]:
        response = service.query(
            query, kg=kg, level=level, recall_target=recall_target, max_results=max_results
        )
        names = ", ".join(f"{a.name} ({a.id})" for a in response.answers)
        more = f" (showing {len(response.answers)})" if response.truncated else ""
        text = f"{response.total} answers{more}: {names}\n"
        return text + completeness_line(response.completeness), response

    def kg_ground(report: str) -> tuple[str, GroundingResult]:
        result = service.ground(report, kg=kg)
        return result.to_markdown(), result

    return [
        StructuredTool.from_function(
            kg_ask,
            name="kg_ask",
            description="Answer a natural-language question from the knowledge graph, with a "
            "completeness guarantee and every claim of the answer checked against the graph.",
            args_schema=AskArgs,
            response_format="content_and_artifact",
        ),
        StructuredTool.from_function(
            kg_query,
            name="kg_query",
            description="Answer a structured query tree at a recall target (calibrated: the "
            "answer says how complete it is guaranteed to be).",
            args_schema=QueryArgs,
            response_format="content_and_artifact",
        ),
        StructuredTool.from_function(
            kg_ground,
            name="kg_ground",
            description="Label every claim of a report grounded / inferred / ungrounded / "
            "trivial against the knowledge graph, with evidence chains.",
            args_schema=GroundArgs,
            response_format="content_and_artifact",
        ),
    ]
