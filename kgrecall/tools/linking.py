"""Entity linking for the planner: a text span → ranked entity ids (fulltext + vector)."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from kgrecall.kg import KGError
from kgrecall.tools.fulltext import FulltextIndex
from kgrecall.tools.vector import VectorIndex


@dataclass(frozen=True, slots=True)
class LinkedEntity:
    """A linking candidate with the evidence of both engines."""

    id: str
    name: str
    type: str
    score: float
    fulltext_score: float
    vector_score: float
    #: The mention equals the entity's id, name or a synonym.
    exact: bool = False


class EntityLinker:
    """Ranks entities for a mention by ``w·fulltext + (1 − w)·vector`` (both in [0, 1]).

    Fulltext scores are relative (exact name/synonym/id match = 1.0, best BM25 hit 0.99),
    vector scores are cosine similarities; an entity found by one engine only gets 0 from
    the other; an exact match gets vector score 1 (it is one of the entity's names).
    ``fulltext_weight`` defaults to 0.5. An exact id/name/synonym match ranks
    above every inexact one whatever the vector engine says: "Parkinson disease 4" is the
    entity of that name, not the broader "Parkinson disease" it embeds close to.
    """

    def __init__(
        self, fulltext: FulltextIndex, vector: VectorIndex, *, fulltext_weight: float = 0.5
    ) -> None:
        if fulltext.version != vector.version:
            raise KGError("fulltext and vector indexes were built on different KG versions")
        if not 0.0 <= fulltext_weight <= 1.0:
            raise KGError(f"fulltext_weight must be in [0, 1], got {fulltext_weight}")
        self.fulltext, self.vector, self.weight = fulltext, vector, fulltext_weight

    def link(
        self, mention: str, *, k: int = 5, node_types: Collection[str] | None = None
    ) -> list[LinkedEntity]:
        """The ``k`` best entities for ``mention``, best first (ties by id)."""
        pool = max(20, 4 * k)
        exact = set(self.fulltext.exact_ids(mention, node_types=node_types))
        text_hits = {c.id: c for c in self.fulltext.search(mention, k=pool, node_types=node_types)}
        vector_hits = {c.id: c for c in self.vector.search(mention, k=pool, node_types=node_types)}
        linked = []
        for entity_id in text_hits.keys() | vector_hits.keys():
            text = text_hits.get(entity_id)
            vector = vector_hits.get(entity_id)
            reference = text or vector
            assert reference is not None
            text_score = text.score if text else 0.0
            # The mention *is* one of an exact match's names: embedded alone, that name would
            # score cosine 1 (the entity's one vector mixes every synonym and scores lower).
            vector_score = 1.0 if entity_id in exact else (vector.score if vector else 0.0)
            linked.append(
                LinkedEntity(
                    entity_id,
                    reference.name,
                    reference.type,
                    self.weight * text_score + (1 - self.weight) * vector_score,
                    text_score,
                    vector_score,
                    entity_id in exact,
                )
            )
        linked.sort(key=lambda e: (not e.exact, -e.score, e.id))
        return linked[:k]
