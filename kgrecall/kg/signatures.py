"""Relation type signatures learned from a KG: which node types each relation joins.

A relation's answers live inside its *answer type*: the node types its tails have (heads, for
the inverse direction) — and, given the types of what the projection starts from, only the
tail types of the (head type, tail type) pairs the relation joins: ``subclass_of`` leads from
a disease to diseases and from a phenotype to phenotypes, never across. Neural completion
ranks candidates only inside that type, and the "return everything" point of a calibration
means "every entity of the answer type" — not every entity of the KG. The planner reads the
same signatures to choose directions.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection
from dataclasses import dataclass

from kgrecall.kg.store import GraphStore


@dataclass(frozen=True, slots=True)
class RelationSignature:
    """Node types seen at the head and at the tail of one relation, the (head type, tail type)
    pairs its edges join, and its edge count."""

    relation: str
    head_types: frozenset[str]
    tail_types: frozenset[str]
    edges: int
    pairs: frozenset[tuple[str, str]] = frozenset()

    def answer_types(
        self, *, inverse: bool, given: Collection[str] | None = None
    ) -> frozenset[str]:
        """Types of what a projection along this relation reaches (heads when ``inverse``);
        with ``given``, only from inputs of those types."""
        if given is None:
            return self.head_types if inverse else self.tail_types
        if inverse:
            return frozenset(head for head, tail in self.pairs if tail in given)
        return frozenset(tail for head, tail in self.pairs if head in given)


def relation_signatures(store: GraphStore) -> dict[str, RelationSignature]:
    """Every relation with at least one edge in ``store``, with its learned signature."""
    pairs: dict[str, set[tuple[str, str]]] = defaultdict(set)
    counts: dict[str, int] = defaultdict(int)
    node_type = {node.id: node.type for node in store.nodes()}
    for edge in store.edges():
        pairs[edge.relation].add((node_type[edge.head], node_type[edge.tail]))
        counts[edge.relation] += 1
    return {
        relation: RelationSignature(
            relation,
            frozenset(head for head, _ in pairs[relation]),
            frozenset(tail for _, tail in pairs[relation]),
            counts[relation],
            frozenset(pairs[relation]),
        )
        for relation in sorted(counts)
    }
