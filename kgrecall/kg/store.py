"""The ``GraphStore`` interface every backend implements (NetworkX embedded, Neo4j production)."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, runtime_checkable

from kgrecall.kg.model import Edge, KGSchema, Node, Triple

Direction = Literal["out", "in", "both"]
#: A path as the edges it crosses, in order; an edge may be crossed against its direction.
Path = tuple[Edge, ...]


@dataclass(frozen=True, slots=True)
class KGStats:
    """Counts of a KG: totals, per node type and per relation."""

    nodes: int
    edges: int
    nodes_by_type: dict[str, int]
    edges_by_relation: dict[str, int]

    def as_dict(self) -> dict[str, Any]:
        return {
            "nodes": self.nodes,
            "edges": self.edges,
            "nodes_by_type": self.nodes_by_type,
            "edges_by_relation": self.edges_by_relation,
        }


@dataclass(frozen=True, slots=True)
class BFSResult:
    """A bounded breadth-first neighbourhood.

    ``nodes`` are in visit order (by depth, then by id); ``edges`` join visited nodes, ordered
    by the depths of their ends (nearest first), then head, relation, tail; ``truncated`` says
    ``max_nodes`` stopped the search before ``depth`` was exhausted.
    """

    nodes: list[str]
    depth_of: dict[str, int]
    edges: list[Edge]
    truncated: bool


def order_bfs_edges(edges: Iterable[Edge], depth_of: Mapping[str, int]) -> list[Edge]:
    """BFS edges nearest first: by the depths of their ends, then head, relation, tail."""
    return sorted(
        edges,
        key=lambda e: (
            min(depth_of[e.head], depth_of[e.tail]),
            max(depth_of[e.head], depth_of[e.tail]),
            e.head,
            e.relation,
            e.tail,
        ),
    )


@dataclass(slots=True)
class GraphMetadata:
    """What a KG is and where it came from; not part of its content hash."""

    name: str = "kg"
    sources: list[dict[str, str]] = field(default_factory=list)
    created: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)


@runtime_checkable
class PathServer(Protocol):
    """A store that finds the grounding verifier's paths itself, server-side (Neo4j): one
    round trip per pair instead of one per visited node."""

    def hub_free_path(
        self,
        sources: Sequence[str],
        targets: Sequence[str],
        *,
        max_depth: int,
        hub_degree: int | None,
        excluded_source: str,
    ) -> Path | None:
        """A shortest undirected path of at most ``max_depth`` hops from any source to any
        target without edges from ``excluded_source`` and, unless ``hub_degree`` is None,
        without intermediate nodes of that degree or more; None when there is none."""
        ...


class GraphStore(ABC):
    """A typed directed multigraph: one edge per (head, relation, tail), provenance merged."""

    metadata: GraphMetadata

    @property
    @abstractmethod
    def schema(self) -> KGSchema:
        """Declared relation and node types."""

    @abstractmethod
    def extend_schema(self, schema: KGSchema) -> None:
        """Declare further relation and node types."""

    @abstractmethod
    def add_nodes(self, nodes: Iterable[Node]) -> int:
        """Add or merge nodes; return how many were new."""

    @abstractmethod
    def add_edges(self, edges: Iterable[Edge]) -> int:
        """Add edges between known nodes, merging duplicates; return how many were new."""

    @abstractmethod
    def has_node(self, node_id: str) -> bool: ...

    @abstractmethod
    def get_node(self, node_id: str) -> Node:
        """The node, or :class:`~kgrecall.kg.errors.UnknownEntityError` with close matches."""

    @abstractmethod
    def get_edge(self, head: str, relation: str, tail: str) -> Edge | None: ...

    @abstractmethod
    def neighbors(
        self, node_id: str, relation: str | None = None, direction: Direction = "out"
    ) -> list[Edge]:
        """Edges at ``node_id``, optionally of one relation, in a deterministic order."""

    def hop_edges(
        self, node_ids: Sequence[str], relation: str, *, inverse: bool = False
    ) -> list[Edge]:
        """Every ``relation`` edge leaving ``node_ids`` (entering them when ``inverse``), grouped
        by the entity in the order given, each group as :meth:`neighbors` orders it — one hop
        of a query at once (a server-backed store answers it in one round trip)."""
        direction: Direction = "in" if inverse else "out"
        return [edge for node in node_ids for edge in self.neighbors(node, relation, direction)]

    @abstractmethod
    def project(self, node_ids: Iterable[str], relation: str, *, inverse: bool = False) -> set[str]:
        """One hop along ``relation`` (or against it when ``inverse``) from a set of entities."""

    @abstractmethod
    def shortest_paths(
        self,
        source: str,
        target: str,
        *,
        max_depth: int = 4,
        directed: bool = False,
        max_paths: int = 10,
    ) -> list[Path]:
        """Shortest paths of at most ``max_depth`` hops (none if farther), at most ``max_paths``."""

    @abstractmethod
    def bfs(
        self,
        seeds: Iterable[str],
        *,
        depth: int,
        max_nodes: int,
        relations: Iterable[str] | None = None,
    ) -> BFSResult:
        """Bounded breadth-first search over both edge directions."""

    @abstractmethod
    def lookup(self, text: str) -> list[Node]:
        """Nodes whose id (after CURIE normalisation), name or synonym equals ``text``."""

    @abstractmethod
    def nodes(self) -> Iterator[Node]: ...

    @abstractmethod
    def edges(self) -> Iterator[Edge]: ...

    @abstractmethod
    def number_of_nodes(self) -> int: ...

    @abstractmethod
    def number_of_edges(self) -> int: ...

    @property
    @abstractmethod
    def version(self) -> str:
        """Content hash of the KG (see :func:`kgrecall.kg.records.content_hash`)."""

    def triples(self) -> Iterator[Triple]:
        for edge in self.edges():
            yield edge.triple

    def stats(self) -> KGStats:
        nodes_by_type: dict[str, int] = {}
        for node in self.nodes():
            nodes_by_type[node.type] = nodes_by_type.get(node.type, 0) + 1
        edges_by_relation: dict[str, int] = {}
        for edge in self.edges():
            edges_by_relation[edge.relation] = edges_by_relation.get(edge.relation, 0) + 1
        return KGStats(
            self.number_of_nodes(),
            self.number_of_edges(),
            dict(sorted(nodes_by_type.items())),
            dict(sorted(edges_by_relation.items())),
        )
