"""The embedded default store: dict-of-sets indexes in process, NetworkX on demand.

Records live in two dicts (``id → Node``, ``(head, relation, tail) → Edge``). Adjacency is
kept node-major (``node → relation → neighbours``, both directions) for neighbours, paths and
BFS, and relation-major (``relation → node → neighbours``) for projection — the inner loop of
query execution — and the two share their set objects, so the second index costs only dict
entries. A 1-hop projection is one dict lookup and one set union per input entity.

``store.graph`` materialises a NetworkX ``MultiDiGraph`` (edge key = relation, attribute
``edge``) for users who want NetworkX algorithms; it is built on first access and rebuilt
after changes. Building it per edge on every load would triple load time (measured in
``benchmarks/kg_io.py``), which is why it is not the primary structure.
"""

from __future__ import annotations

import difflib
import itertools
from collections import deque
from collections.abc import Iterable, Iterator

import networkx as nx

from kgrecall.kg.errors import KGError, UnknownEntityError
from kgrecall.kg.ids import normalize_curie
from kgrecall.kg.model import (
    Edge,
    KGSchema,
    Node,
    merge_edges,
    merge_nodes,
    validate_edge,
    validate_node,
)
from kgrecall.kg.records import content_hash
from kgrecall.kg.store import (
    BFSResult,
    Direction,
    GraphMetadata,
    GraphStore,
    Path,
    order_bfs_edges,
)

#: ``node → relation → neighbours``
NodeIndex = dict[str, dict[str, set[str]]]
#: ``relation → node → neighbours`` (the same set objects as the node-major index)
RelationIndex = dict[str, dict[str, set[str]]]

#: Above this many candidates, closest-match suggestions only look at ids sharing a prefix.
_SUGGESTION_POOL = 20_000


class NetworkXStore(GraphStore):
    """In-process typed directed multigraph (the embedded default)."""

    def __init__(
        self, schema: KGSchema | None = None, metadata: GraphMetadata | None = None
    ) -> None:
        self._schema = schema if schema is not None else KGSchema.biomedical()
        self.metadata = metadata if metadata is not None else GraphMetadata()
        self._nodes: dict[str, Node] = {}
        self._edges: dict[tuple[str, str, str], Edge] = {}
        self._succ: NodeIndex = {}
        self._pred: NodeIndex = {}
        self._out: RelationIndex = {}
        self._in: RelationIndex = {}
        self._names: dict[str, list[str]] = {}
        self._version: str | None = None
        self._graph: nx.MultiDiGraph | None = None

    # -- schema -------------------------------------------------------------------------
    @property
    def schema(self) -> KGSchema:
        return self._schema

    def extend_schema(self, schema: KGSchema) -> None:
        self._schema = self._schema.merged(schema)
        self._changed()

    def _changed(self) -> None:
        self._version = None
        self._graph = None

    # -- writes -------------------------------------------------------------------------
    def add_nodes(self, nodes: Iterable[Node]) -> int:
        added = 0
        node_types = set(self._schema.node_types)
        for node in nodes:
            validate_node(node)
            existing = self._nodes.get(node.id)
            stored = node if existing is None else merge_nodes(existing, node)
            self._nodes[node.id] = stored
            self._index_names(stored)
            added += existing is None
            node_types.add(node.type)
        if not node_types <= self._schema.node_types:
            self._schema = KGSchema(self._schema.relations, frozenset(node_types))
        self._changed()
        return added

    def add_edges(self, edges: Iterable[Edge]) -> int:
        added = 0
        nodes, records, schema = self._nodes, self._edges, self._schema
        for edge in edges:
            validate_edge(edge, schema)
            head, relation, tail = edge.head, edge.relation, edge.tail
            for endpoint in (head, tail):
                if endpoint not in nodes:
                    raise KGError(
                        f"edge ({head}, {relation}, {tail}) refers to unknown node "
                        f"{endpoint!r}; add the node first"
                    )
            key = (head, relation, tail)
            existing = records.get(key)
            if existing is not None:
                records[key] = merge_edges(existing, edge)
                continue
            records[key] = edge
            self._link(self._succ, self._out, head, relation, tail)
            self._link(self._pred, self._in, tail, relation, head)
            added += 1
        self._changed()
        return added

    def remove_edges(self, keys: Iterable[tuple[str, str, str]]) -> int:
        """Remove the ``(head, relation, tail)`` edges the store holds; how many it held."""
        removed = 0
        for head, relation, tail in keys:
            if self._edges.pop((head, relation, tail), None) is None:
                continue
            self._unlink(self._succ, self._out, head, relation, tail)
            self._unlink(self._pred, self._in, tail, relation, head)
            removed += 1
        self._changed()
        return removed

    @staticmethod
    def _unlink(
        by_node: NodeIndex, by_relation: RelationIndex, node: str, relation: str, other: str
    ) -> None:
        neighbours = by_node[node][relation]
        neighbours.discard(other)
        if not neighbours:
            del by_node[node][relation]
            del by_relation[relation][node]
            if not by_node[node]:
                del by_node[node]
            if not by_relation[relation]:
                del by_relation[relation]

    @staticmethod
    def _link(
        by_node: NodeIndex, by_relation: RelationIndex, node: str, relation: str, other: str
    ) -> None:
        relations = by_node.get(node)
        if relations is None:
            relations = by_node[node] = {}
        neighbours = relations.get(relation)
        if neighbours is None:
            neighbours = relations[relation] = set()
            by_relation.setdefault(relation, {})[node] = neighbours
        neighbours.add(other)

    def _index_names(self, node: Node) -> None:
        for text in (node.name, *node.synonyms):
            ids = self._names.setdefault(text.casefold(), [])
            if node.id not in ids:
                ids.append(node.id)

    # -- reads --------------------------------------------------------------------------
    def has_node(self, node_id: str) -> bool:
        return node_id in self._nodes

    def get_node(self, node_id: str) -> Node:
        try:
            return self._nodes[node_id]
        except KeyError:
            raise self._unknown(node_id) from None

    def _unknown(self, node_id: str) -> UnknownEntityError:
        suggestions = self.closest_ids(node_id)
        names = {s: self._nodes[s].name for s in suggestions}
        return UnknownEntityError(node_id, suggestions, names)

    def closest_ids(self, text: str, limit: int = 5) -> list[str]:
        """Known ids (and ids of nodes whose name is close) nearest to ``text``."""
        ids: list[str] = list(self._nodes)
        if len(ids) > _SUGGESTION_POOL:
            head = text.split(":", 1)[0].casefold()
            ids = [i for i in ids if i.casefold().startswith(head)][:_SUGGESTION_POOL]
        found = difflib.get_close_matches(text, ids, n=limit, cutoff=0.6)
        names = [
            key
            for key in self._names
            if len(self._names) <= _SUGGESTION_POOL or key[:2] == text[:2]
        ]
        for name in difflib.get_close_matches(text.casefold(), names, n=limit, cutoff=0.6):
            found.extend(self._names[name])
        return list(dict.fromkeys(found))[:limit]

    def get_edge(self, head: str, relation: str, tail: str) -> Edge | None:
        return self._edges.get((head, relation, tail))

    def _require(self, node_id: str) -> None:
        if node_id not in self._nodes:
            raise self._unknown(node_id)

    def neighbors(
        self, node_id: str, relation: str | None = None, direction: Direction = "out"
    ) -> list[Edge]:
        self._require(node_id)
        if relation is not None:
            self._schema.check_relation(relation)
        if direction not in ("out", "in", "both"):
            raise KGError(f"invalid direction {direction!r}; valid: out, in, both")
        found: list[Edge] = []
        records = self._edges
        if direction in ("out", "both"):
            for name, tails in self._succ.get(node_id, {}).items():
                if relation in (None, name):
                    found.extend(records[(node_id, name, tail)] for tail in tails)
        if direction in ("in", "both"):
            for name, heads in self._pred.get(node_id, {}).items():
                if relation in (None, name):
                    found.extend(records[(head, name, node_id)] for head in heads)
        found.sort(key=lambda e: (e.head, e.relation, e.tail))
        return found

    def project(self, node_ids: Iterable[str], relation: str, *, inverse: bool = False) -> set[str]:
        self._schema.check_relation(relation)
        adjacency = (self._in if inverse else self._out).get(relation, {})
        result: set[str] = set()
        nodes = self._nodes
        for node_id in node_ids:
            neighbours = adjacency.get(node_id)
            if neighbours is not None:
                result |= neighbours
            elif node_id not in nodes:
                raise self._unknown(node_id)
        return result

    def _adjacent(self, node_id: str, directed: bool) -> Iterator[str]:
        for tails in self._succ.get(node_id, {}).values():
            yield from tails
        if not directed:
            for heads in self._pred.get(node_id, {}).values():
                yield from heads

    def _edges_between(self, first: str, second: str, directed: bool) -> list[Edge]:
        edges = [
            self._edges[(first, relation, second)]
            for relation, tails in self._succ.get(first, {}).items()
            if second in tails
        ]
        if not directed:
            edges.extend(
                self._edges[(second, relation, first)]
                for relation, tails in self._succ.get(second, {}).items()
                if first in tails
            )
        unique = {edge.triple: edge for edge in edges}  # a self-loop is found twice
        return [unique[key] for key in sorted(unique)]

    def shortest_paths(
        self,
        source: str,
        target: str,
        *,
        max_depth: int = 4,
        directed: bool = False,
        max_paths: int = 10,
    ) -> list[Path]:
        self._require(source)
        self._require(target)
        if source == target:
            return [()]
        # Layered BFS from the source that stops at the target's layer or at max_depth.
        parents: dict[str, list[str]] = {source: []}
        frontier = [source]
        depth = 0
        while frontier and target not in parents and depth < max_depth:
            depth += 1
            layer: dict[str, list[str]] = {}
            for node in frontier:
                for neighbour in self._adjacent(node, directed):
                    if neighbour not in parents:
                        layer.setdefault(neighbour, []).append(node)
            parents.update(layer)
            frontier = sorted(layer)
        if target not in parents:
            return []
        node_paths: list[list[str]] = []
        stack: list[list[str]] = [[target]]
        while stack and len(node_paths) < max_paths:
            partial = stack.pop()
            head = partial[-1]
            if head == source:
                node_paths.append(partial[::-1])
                continue
            for parent in sorted(set(parents[head]), reverse=True):
                stack.append([*partial, parent])
        paths: list[Path] = []
        for node_path in sorted(node_paths):
            expanded: list[tuple[Edge, ...]] = [()]
            for first, second in itertools.pairwise(node_path):
                hops = self._edges_between(first, second, directed)
                expanded = [(*prefix, hop) for prefix in expanded for hop in hops]
            paths.extend(expanded)
            if len(paths) >= max_paths:
                break
        return paths[:max_paths]

    def bfs(
        self,
        seeds: Iterable[str],
        *,
        depth: int,
        max_nodes: int,
        relations: Iterable[str] | None = None,
    ) -> BFSResult:
        if depth < 0 or max_nodes < 1:
            raise KGError(f"bfs needs depth >= 0 and max_nodes >= 1 (got {depth}, {max_nodes})")
        allowed = None if relations is None else set(relations)
        for relation in allowed or ():
            self._schema.check_relation(relation)
        seed_list = sorted(dict.fromkeys(seeds))
        for seed in seed_list:
            self._require(seed)
        depth_of: dict[str, int] = {}
        order: list[str] = []
        truncated = False
        queue: deque[str] = deque()
        for seed in seed_list:
            if len(order) >= max_nodes:
                truncated = True
                break
            depth_of[seed] = 0
            order.append(seed)
            queue.append(seed)
        while queue and not truncated:
            node = queue.popleft()
            if depth_of[node] >= depth:
                continue
            neighbours = {
                edge.tail if edge.head == node else edge.head
                for edge in self.neighbors(node, direction="both")
                if allowed is None or edge.relation in allowed
            }
            for neighbour in sorted(neighbours):
                if neighbour in depth_of:
                    continue
                if len(order) >= max_nodes:
                    truncated = True
                    break
                depth_of[neighbour] = depth_of[node] + 1
                order.append(neighbour)
                queue.append(neighbour)
        visited = set(order)
        edges = (
            edge
            for node in order
            for edge in self.neighbors(node, direction="out")
            if edge.tail in visited and (allowed is None or edge.relation in allowed)
        )
        return BFSResult(order, depth_of, order_bfs_edges(edges, depth_of), truncated)

    def lookup(self, text: str) -> list[Node]:
        query = text.strip()
        found: list[str] = []
        for candidate in (query, normalize_curie(query)):
            if candidate in self._nodes:
                found.append(candidate)
        found.extend(self._names.get(query.casefold(), []))
        return [self.get_node(node_id) for node_id in dict.fromkeys(found)]

    def nodes(self) -> Iterator[Node]:
        yield from self._nodes.values()

    def edges(self) -> Iterator[Edge]:
        yield from self._edges.values()

    def number_of_nodes(self) -> int:
        return len(self._nodes)

    def number_of_edges(self) -> int:
        return len(self._edges)

    @property
    def version(self) -> str:
        if self._version is None:
            self._version = content_hash(self._schema, self.nodes(), self.edges())
        return self._version

    @property
    def graph(self) -> nx.MultiDiGraph:
        """The KG as a NetworkX ``MultiDiGraph`` (key = relation; attributes ``node``/``edge``).

        Built on first access after a change; treat it as read-only (changes to it do not
        reach the store).
        """
        if self._graph is None:
            graph = nx.MultiDiGraph()
            graph.add_nodes_from((node.id, {"node": node}) for node in self._nodes.values())
            graph.add_edges_from(
                (edge.head, edge.tail, edge.relation, {"edge": edge})
                for edge in self._edges.values()
            )
            self._graph = graph
        return self._graph
