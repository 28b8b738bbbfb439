"""Nodes, edges and the schema of a knowledge graph.

Plain slotted dataclasses rather than pydantic models: a KG holds millions of edges, and the
hot paths (load, projection, path search) must not pay for per-object validation. Validation
happens once, where data enters (loaders, persistence), through :func:`validate_node` /
:func:`validate_edge`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, NamedTuple

from kgrecall.kg.errors import KGError, KGFieldError
from kgrecall.kg.relations import relation_meanings

#: Relation types and node types are spliced (backtick-quoted) into Cypher by the Neo4j store,
#: so their spelling is restricted: a letter, then letters, digits, '_' or '-' (UMLS has
#: ``co-occurs_with``).
IDENTIFIER = re.compile(r"^[A-Za-z][A-Za-z0-9_-]*\Z")  # \Z: "$" matches before a final "\n"

#: Relation vocabulary of biomedical KGs built by kgrecall, with a one-line meaning each (the
#: registry in :mod:`kgrecall.kg.relations` also holds how each relation is worded).
BIOMEDICAL_RELATIONS: dict[str, str] = relation_meanings()

#: Node types of biomedical KGs; other identifiers are accepted (datasets bring their own).
BIOMEDICAL_NODE_TYPES: tuple[str, ...] = (
    "gene",
    "protein",
    "drug",
    "disease",
    "pathway",
    "go_term",
    "phenotype",
    "cell_type",
    "organism",
    "tool",
    "dataset",
    "protocol",
    "publication",
    "domain",
    "entity",
)


class Triple(NamedTuple):
    """A (head, relation, tail) fact."""

    head: str
    relation: str
    tail: str


@dataclass(slots=True)
class Node:
    """An entity: a CURIE id where one exists, a type, a display name and provenance."""

    id: str
    type: str
    name: str
    synonyms: tuple[str, ...] = ()
    properties: Mapping[str, Any] = field(default_factory=dict)
    sources: tuple[str, ...] = ()


@dataclass(slots=True)
class Edge:
    """A typed directed fact with provenance, a confidence in [0, 1] and an optional timestamp."""

    head: str
    relation: str
    tail: str
    sources: tuple[str, ...] = ()
    confidence: float = 1.0
    timestamp: str | None = None
    properties: Mapping[str, Any] = field(default_factory=dict)

    @property
    def triple(self) -> Triple:
        return Triple(self.head, self.relation, self.tail)


@dataclass(frozen=True, slots=True)
class KGSchema:
    """The relation types a KG declares (with meanings) and the node types it uses."""

    relations: Mapping[str, str]
    node_types: frozenset[str]

    @classmethod
    def biomedical(cls) -> KGSchema:
        return cls(dict(BIOMEDICAL_RELATIONS), frozenset(BIOMEDICAL_NODE_TYPES))

    @classmethod
    def from_relations(
        cls, relations: Iterable[str], node_types: Iterable[str] = ("entity",)
    ) -> KGSchema:
        """A schema for a dataset that brings its own relation names (e.g. UMLS)."""
        return cls({name: "" for name in relations}, frozenset(node_types))

    def merged(self, other: KGSchema) -> KGSchema:
        relations = dict(self.relations)
        for name, meaning in other.relations.items():
            relations.setdefault(name, meaning)
        return KGSchema(relations, self.node_types | other.node_types)

    def check_relation(self, relation: str) -> None:
        """Raise naming the valid choices when ``relation`` is not declared."""
        if relation not in self.relations:
            valid = ", ".join(sorted(self.relations))
            raise KGError(f"unknown relation {relation!r}; valid relations: {valid}")

    def check_node_type(self, node_type: str) -> None:
        """Raise naming the valid choices when ``node_type`` is not one the KG uses."""
        if node_type not in self.node_types:
            valid = ", ".join(sorted(self.node_types))
            raise KGError(f"unknown node type {node_type!r}; valid node types: {valid}")


def check_identifier(value: str, what: str) -> None:
    """Relation and node-type names must be identifiers (they are spliced into Cypher)."""
    if not isinstance(value, str) or not IDENTIFIER.match(value):
        raise KGError(
            f"invalid {what} {value!r}: use letters, digits, '_' or '-', starting with a letter"
        )


def validate_node(node: Node) -> None:
    """Raise :class:`KGError` naming the field that makes ``node`` invalid."""
    if not isinstance(node.id, str) or not node.id or node.id != node.id.strip():
        raise KGFieldError("id", f"invalid node id {node.id!r} (empty or padded with spaces)")
    try:
        check_identifier(node.type, "node type")
    except KGError as error:
        raise KGFieldError("type", str(error)) from None
    if not isinstance(node.name, str):
        raise KGFieldError("name", f"expected a string, got {node.name!r}")
    if not all(isinstance(s, str) for s in node.synonyms):
        raise KGFieldError("synonyms", "expected a list of strings")


def validate_edge(edge: Edge, schema: KGSchema) -> None:
    """Raise :class:`KGFieldError` naming the field that makes ``edge`` invalid."""
    for field_name, value in (("head", edge.head), ("tail", edge.tail)):
        if type(value) is not str or not value:
            raise KGFieldError(field_name, f"invalid entity id {value!r}")
    if edge.relation not in schema.relations:
        try:
            schema.check_relation(edge.relation)
        except KGError as error:
            raise KGFieldError("relation", str(error)) from None
    confidence = edge.confidence
    fast_ok = type(confidence) is float and 0.0 <= confidence <= 1.0
    if not fast_ok and (
        isinstance(confidence, bool)
        or not isinstance(confidence, int | float)
        or not math.isfinite(confidence)
        or not 0.0 <= confidence <= 1.0
    ):
        raise KGFieldError("confidence", f"{confidence!r} is not a number in [0, 1]")
    if edge.timestamp is not None:
        try:
            datetime.fromisoformat(edge.timestamp)
        except (TypeError, ValueError):
            raise KGFieldError(
                "timestamp", f"{edge.timestamp!r} is not an ISO 8601 date/time"
            ) from None


def merge_sources(first: tuple[str, ...], second: tuple[str, ...]) -> tuple[str, ...]:
    """Union of provenance lists, first-seen order kept."""
    return tuple(dict.fromkeys((*first, *second)))


def merge_edges(existing: Edge, incoming: Edge) -> Edge:
    """Merge a duplicate (h, r, t): provenance unioned, highest confidence, latest timestamp,
    properties of the existing edge win over the incoming ones."""
    timestamps = [t for t in (existing.timestamp, incoming.timestamp) if t is not None]
    return Edge(
        existing.head,
        existing.relation,
        existing.tail,
        sources=merge_sources(existing.sources, incoming.sources),
        confidence=max(existing.confidence, incoming.confidence),
        timestamp=max(timestamps, key=datetime.fromisoformat) if timestamps else None,
        properties={**incoming.properties, **existing.properties},
    )


def merge_nodes(existing: Node, incoming: Node) -> Node:
    """Merge two records of one entity; a type conflict is an error, not a silent overwrite."""
    if existing.type != incoming.type:
        raise KGError(
            f"node {existing.id!r} has type {existing.type!r} but a second record says "
            f"{incoming.type!r}"
        )
    name = existing.name or incoming.name
    synonyms = tuple(
        s for s in dict.fromkeys((*existing.synonyms, *incoming.synonyms, incoming.name)) if s
    )
    return Node(
        existing.id,
        existing.type,
        name,
        synonyms=tuple(s for s in synonyms if s != name),
        properties={**incoming.properties, **existing.properties},
        sources=merge_sources(existing.sources, incoming.sources),
    )
