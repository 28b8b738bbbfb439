"""Subgraph extraction for LLM context: bounded BFS rendered as natural-language triples."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from kgrecall.kg.model import Edge
from kgrecall.kg.store import GraphStore


@dataclass(frozen=True, slots=True)
class Subgraph:
    """The neighbourhood of some seed entities and its edges as text lines."""

    seeds: list[str]
    nodes: list[str]
    edges: list[Edge]
    lines: list[str]
    truncated: bool

    def as_text(self) -> str:
        text = "\n".join(self.lines)
        if self.truncated:
            text += f"\n… (stopped at {len(self.nodes)} nodes; raise max_nodes for more)"
        return text


def describe_edge(store: GraphStore, edge: Edge, *, with_ids: bool = True) -> str:
    """``A —[relation]→ B``, with the ids in brackets when ``with_ids``."""

    def label(node_id: str) -> str:
        name = store.get_node(node_id).name or node_id
        return f"{name} ({node_id})" if with_ids and name != node_id else name

    return f"{label(edge.head)} —[{edge.relation}]→ {label(edge.tail)}"


def extract_subgraph(
    store: GraphStore,
    seeds: Iterable[str],
    *,
    depth: int = 1,
    max_nodes: int = 50,
    relations: Iterable[str] | None = None,
    with_ids: bool = True,
) -> Subgraph:
    """Bounded BFS from ``seeds``; triples ordered by BFS depth, then head, relation, tail."""
    seed_list = list(dict.fromkeys(seeds))
    result = store.bfs(seed_list, depth=depth, max_nodes=max_nodes, relations=relations)
    lines = [describe_edge(store, edge, with_ids=with_ids) for edge in result.edges]
    return Subgraph(seed_list, result.nodes, result.edges, lines, result.truncated)
