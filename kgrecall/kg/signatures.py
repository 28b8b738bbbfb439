"""Relation type signatures learned from a KG: which node types each relation joins.

A relation's answers live inside its *answer type*: the node types its tails have (heads, for
the inverse direction). Neural completion ranks candidates only inside that type, and the
"return everything" point of a calibration means "every entity of the answer type" — not
every entity of the KG. The planner reads the same signatures to choose directions.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from kgrecall.kg.store import GraphStore


@dataclass(frozen=True, slots=True)
class RelationSignature:
    """Node types seen at the head and at the tail of one relation, with edge counts."""

    relation: str
    head_types: frozenset[str]
    tail_types: frozenset[str]
    edges: int

    def answer_types(self, *, inverse: bool) -> frozenset[str]:
        """Types of what a projection along this relation reaches (heads when ``inverse``)."""
        return self.head_types if inverse else self.tail_types


def relation_signatures(store: GraphStore) -> dict[str, RelationSignature]:
    """Every relation with at least one edge in ``store``, with its learned signature."""
    heads: dict[str, set[str]] = defaultdict(set)
    tails: dict[str, set[str]] = defaultdict(set)
    counts: dict[str, int] = defaultdict(int)
    node_type = {node.id: node.type for node in store.nodes()}
    for edge in store.edges():
        heads[edge.relation].add(node_type[edge.head])
        tails[edge.relation].add(node_type[edge.tail])
        counts[edge.relation] += 1
    return {
        relation: RelationSignature(
            relation, frozenset(heads[relation]), frozenset(tails[relation]), counts[relation]
        )
        for relation in sorted(counts)
    }
