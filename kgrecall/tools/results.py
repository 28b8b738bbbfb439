"""One result model for every retrieval tool: a scored ``Candidate`` with its evidence."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from kgrecall.kg import Edge

ToolName = Literal["graph_traversal", "vector_search", "fulltext_search", "neural_completion"]


class EvidenceTriple(BaseModel):
    """One KG edge (or predicted edge) as evidence, with its provenance."""

    model_config = ConfigDict(frozen=True)

    head: str
    relation: str
    tail: str
    sources: list[str] = Field(default_factory=list)
    confidence: float = Field(1.0, ge=0.0, le=1.0)

    @classmethod
    def from_edge(cls, edge: Edge) -> EvidenceTriple:
        return cls(
            head=edge.head,
            relation=edge.relation,
            tail=edge.tail,
            sources=list(edge.sources),
            confidence=edge.confidence,
        )


class Evidence(BaseModel):
    """Why a tool returned a candidate: a KG path, a predicted triple or a text match."""

    model_config = ConfigDict(frozen=True)

    kind: Literal["kg_path", "predicted_triple", "vector_match", "fulltext_match"]
    triples: list[EvidenceTriple] = Field(default_factory=list)
    model_score: float | None = None
    matched_text: str | None = None


class Candidate(BaseModel):
    """An entity a tool proposes, with a score in [0, 1] and the evidence behind it."""

    id: str
    name: str
    type: str
    score: float = Field(ge=0.0, le=1.0)
    tools: list[ToolName]
    evidence: list[Evidence] = Field(default_factory=list)
    evidence_truncated: bool = False
