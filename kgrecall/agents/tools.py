"""``kg_ask``, ``kg_query``, ``kg_ground``, ``kg_search`` and ``kg_schema`` as LangChain tools
for outer agents.

Each has a pydantic ``args_schema`` and ``response_format="content_and_artifact"``: the
calling LLM reads a short text (answers, completeness, grounding counts), code gets the full
pydantic response as the artifact. All go through one :class:`QueryService`. An outer LLM
that plans itself calls ``kg_schema`` (relations, the node types they join, example trees)
and ``kg_search`` (text → entity ids), then ``kg_query`` with its own QueryTree.
"""

from __future__ import annotations

from langchain_core.tools import BaseTool, StructuredTool
from pydantic import BaseModel, Field

from kgrecall.agents.service import (
    MAX_RESULTS_CAP,
    MAX_SEARCH_HITS,
    AskResponse,
    QueryResponse,
    QueryService,
    SchemaResponse,
    SearchResponse,
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


class SearchArgs(BaseModel):
    """Arguments of ``kg_search``."""

    text: str = Field(min_length=1, max_length=500, description="A name, alias or id.")
    k: int = Field(10, ge=1, le=MAX_SEARCH_HITS, description="How many entities.")
    node_types: list[str] | None = Field(None, description="Only these types (kg_schema).")


class SchemaArgs(BaseModel):
    """``kg_schema`` takes no arguments."""


#: What ``kg_query`` needs from a model that writes its own trees.
QUERY_TREE_HELP = (
    'A QueryTree is JSON: an entity {"op": "entity", "id": ID} (ids from kg_search); '
    'a projection {"op": "project", "relation": R, "inverse": false, "input": '
    'TREE} follows R from the input\'s entities (head → tail; "inverse": true goes tail → '
    'head; relations and the node types they join from kg_schema; an optional "types": '
    '[T, ...] keeps only answers of those node types); {"op": "intersect" | "union", '
    '"inputs": [TREE, TREE, ...]} combines branches.'
)


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
    """The five tools over ``service`` for KG ``kg``."""

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

    def kg_search(
        text: str, k: int = 10, node_types: list[str] | None = None
    ) -> tuple[str, SearchResponse]:
        found = service.search(text, kg=kg, k=k, node_types=node_types)
        lines = [
            f"{hit.id}\t{hit.type}\t{hit.name}\t{hit.score:.2f} ({hit.match})" for hit in found.hits
        ]
        head = "entities" if found.linked else "nothing linked; closest entities"
        return f"{head} for {text!r}:\n" + "\n".join(lines), found

    def kg_schema() -> tuple[str, SchemaResponse]:
        schema = service.schema(kg=kg)
        lines = [f"KG {schema.kg} version {schema.version[:12]}; node types: "
                 + ", ".join(f"{t} ({n})" for t, n in schema.node_types.items())]  # fmt: skip
        for relation in schema.relations:
            joins = ", ".join(
                f"{s.head_type}→{s.tail_type} ({s.edges})" for s in relation.signatures
            )
            lines.append(f"{relation.name}: {relation.meaning}; {joins}")
        return "\n".join(lines) + "\n" + QUERY_TREE_HELP, schema

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
            "answer says how complete it is guaranteed to be). " + QUERY_TREE_HELP,
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
        StructuredTool.from_function(
            kg_search,
            name="kg_search",
            description="Find entities of the knowledge graph by name, alias, abbreviation or "
            "id: ids, types, names, scores (for writing kg_query trees).",
            args_schema=SearchArgs,
            response_format="content_and_artifact",
        ),
        StructuredTool.from_function(
            kg_schema,
            name="kg_schema",
            description="The knowledge graph's node types and relations: meaning, the node "
            "types each relation joins with edge counts, wordings and an example query tree.",
            args_schema=SchemaArgs,
            response_format="content_and_artifact",
        ),
    ]
