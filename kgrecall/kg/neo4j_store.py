"""The production store: the ``GraphStore`` interface on Neo4j through the official driver.

All Cypher comes from :mod:`kgrecall.kg.cypher`; every value is a parameter and relation
types and labels are checked against the KG schema before they are spliced. Merge rules are
the same as the embedded store's (applied client-side, batch by batch), so both stores hold
the same content and the same content hash for the same input.

    from neo4j import GraphDatabase
    driver = GraphDatabase.driver("neo4j://localhost:7687", auth=("neo4j", "secret"))
    store = Neo4jStore(driver, schema=KGSchema.biomedical())
    store.ensure_indexes(vector_dimensions=384)
"""

from __future__ import annotations

import json
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from typing import Any

from neo4j.exceptions import AuthError, Neo4jError, ServiceUnavailable, SessionExpired

from kgrecall.errors import InvalidRequestError, ServiceUnavailableError
from kgrecall.kg import cypher
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
from kgrecall.kg.records import content_hash, schema_to_record
from kgrecall.kg.store import (
    BFSResult,
    Direction,
    GraphMetadata,
    GraphStore,
    Path,
    order_bfs_edges,
)
from kgrecall.settings import settings

BATCH = 1_000
#: The first Neo4j release whose Cypher has the SEARCH clause for vector indexes.
SEARCH_CLAUSE_SINCE = (2026, 1)
#: How many hits per wanted one a type-filtered search fetches from an index.
TYPED_FETCH = 10


def _node_row(node: Node) -> dict[str, Any]:
    return {
        "id": node.id,
        "type": node.type,
        "name": node.name,
        "synonyms": list(node.synonyms),
        "sources": list(node.sources),
        "properties_json": json.dumps(dict(node.properties), sort_keys=True),
        "search_text": " ".join(dict.fromkeys([node.id, node.name, *node.synonyms])),
    }


def _node_from(properties: Any) -> Node:
    data = dict(properties)
    return Node(
        data["id"],
        data["type"],
        data.get("name", ""),
        synonyms=tuple(data.get("synonyms") or ()),
        properties=json.loads(data.get("properties_json") or "{}"),
        sources=tuple(data.get("sources") or ()),
    )


def _edge_row(edge: Edge) -> dict[str, Any]:
    return {
        "h": edge.head,
        "t": edge.tail,
        "sources": list(edge.sources),
        "confidence": float(edge.confidence),
        "timestamp": edge.timestamp,
        "properties_json": json.dumps(dict(edge.properties), sort_keys=True),
    }


def _edge_from(head: str, relation: str, tail: str, properties: Any) -> Edge:
    data = dict(properties)
    return Edge(
        head,
        relation,
        tail,
        sources=tuple(data.get("sources") or ()),
        confidence=float(data.get("confidence", 1.0)),
        timestamp=data.get("timestamp"),
        properties=json.loads(data.get("properties_json") or "{}"),
    )


def _chunks(items: Sequence[Any], size: int = BATCH) -> Iterator[Sequence[Any]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


class Neo4jStore(GraphStore):
    """A KG in a Neo4j database (``database`` None = the server's default)."""

    def __init__(
        self,
        driver: Any,
        *,
        database: str | None = None,
        schema: KGSchema | None = None,
        metadata: GraphMetadata | None = None,
    ) -> None:
        self._driver = driver
        self._database = database
        self._version: str | None = None
        stored = self._read_meta()
        if schema is None and stored is None:
            raise KGError(
                "this Neo4j database holds no kgrecall KG schema; pass schema= (e.g. "
                "KGSchema.biomedical()) to start one"
            )
        if stored is not None:
            stored_schema, stored_metadata = stored
            self._schema = stored_schema if schema is None else stored_schema.merged(schema)
            self.metadata = metadata or stored_metadata
            if self._schema != stored_schema or self.metadata != stored_metadata:
                self._write_meta()  # opening a KG to read it writes nothing
        else:
            assert schema is not None
            self._schema = schema
            self.metadata = metadata or GraphMetadata()
            self._write_meta()

    @classmethod
    def from_settings(
        cls,
        *,
        database: str | None = None,
        schema: KGSchema | None = None,
        metadata: GraphMetadata | None = None,
    ) -> Neo4jStore:
        """The KG in the server of ``NEO4J_URI`` / ``NEO4J_USER`` / ``NEO4J_PASSWORD``, in
        ``database`` (default ``NEO4J_DATABASE``, else the server's default database)."""
        from neo4j import GraphDatabase

        environment = settings()
        if environment.neo4j_uri is None:
            raise InvalidRequestError("set NEO4J_URI (and NEO4J_USER, NEO4J_PASSWORD) to use Neo4j")
        auth = (environment.neo4j_user, environment.neo4j_password.get_secret_value())
        driver = GraphDatabase.driver(environment.neo4j_uri, auth=auth)
        return cls(
            driver,
            database=database or environment.neo4j_database,
            schema=schema,
            metadata=metadata,
        )

    # -- plumbing -------------------------------------------------------------------------
    def _run(self, statement: str, /, **parameters: Any) -> list[Any]:
        try:
            result = self._driver.execute_query(
                statement, parameters_=parameters, database_=self._database
            )
        except (ServiceUnavailable, SessionExpired, AuthError) as error:
            # the server, not the request: 503 over HTTP, with the driver's reason
            raise ServiceUnavailableError(f"the Neo4j server cannot serve: {error}") from error
        return list(result.records)

    def _read_meta(self) -> tuple[KGSchema, GraphMetadata] | None:
        records = self._run(cypher.READ_META)
        if not records:
            return None
        schema_record = json.loads(records[0]["schema_json"])
        metadata = json.loads(records[0]["metadata_json"] or "{}")
        schema = KGSchema(dict(schema_record["relations"]), frozenset(schema_record["node_types"]))
        return schema, GraphMetadata(
            name=metadata.get("name", "kg"),
            sources=metadata.get("sources", []),
            created=metadata.get("created"),
            extra=metadata.get("extra", {}),
        )

    def _write_meta(self) -> None:
        metadata = {
            "name": self.metadata.name,
            "sources": self.metadata.sources,
            "created": self.metadata.created,
            "extra": self.metadata.extra,
        }
        self._run(
            cypher.WRITE_META,
            schema_json=json.dumps(schema_to_record(self._schema), sort_keys=True),
            metadata_json=json.dumps(metadata, sort_keys=True),
        )

    def clear(self) -> None:
        """Delete this KG's nodes and relationships (other data in the database stays)."""
        self._run(cypher.CLEAR)
        self._version = None
        self._write_meta()

    def ensure_indexes(self, *, vector_dimensions: int | None = None) -> None:
        """Uniqueness constraint, fulltext index and (optionally) the vector index."""
        self._run(cypher.CREATE_ID_CONSTRAINT)
        self._run(cypher.CREATE_FULLTEXT_INDEX)
        if vector_dimensions is not None:
            self._run(cypher.create_vector_index(vector_dimensions))

    # -- schema ---------------------------------------------------------------------------
    @property
    def schema(self) -> KGSchema:
        return self._schema

    def extend_schema(self, schema: KGSchema) -> None:
        self._schema = self._schema.merged(schema)
        self._write_meta()
        self._version = None

    # -- writes ---------------------------------------------------------------------------
    def add_nodes(self, nodes: Iterable[Node]) -> int:
        added = 0
        new_types: set[str] = set()
        for batch in _chunks(list(nodes)):
            incoming: dict[str, Node] = {}
            for node in batch:
                validate_node(node)
                incoming[node.id] = (
                    merge_nodes(incoming[node.id], node) if node.id in incoming else node
                )
            existing = {
                record["node"]["id"]: _node_from(record["node"])
                for record in self._run(cypher.FETCH_NODES, ids=list(incoming))
            }
            merged = [
                merge_nodes(existing[i], n) if i in existing else n for i, n in incoming.items()
            ]
            added += sum(1 for i in incoming if i not in existing)
            self._run(cypher.UPSERT_NODES, rows=[_node_row(n) for n in merged])
            by_type: dict[str, list[str]] = {}
            for node in merged:
                by_type.setdefault(node.type, []).append(node.id)
            new_types |= set(by_type) - self._schema.node_types
            types = self._schema.node_types | set(by_type)
            for node_type, ids in sorted(by_type.items()):
                self._run(cypher.add_type_label(node_type, types), ids=ids)
        if new_types:
            self._schema = KGSchema(self._schema.relations, self._schema.node_types | new_types)
            self._write_meta()
        self._version = None
        return added

    def add_edges(self, edges: Iterable[Edge]) -> int:
        added = 0
        relations = self._schema.relations
        for batch in _chunks(list(edges)):
            incoming: dict[tuple[str, str, str], Edge] = {}
            for edge in batch:
                validate_edge(edge, self._schema)
                key = edge.triple
                incoming[key] = merge_edges(incoming[key], edge) if key in incoming else edge
            endpoints = sorted({e for h, _, t in incoming for e in (h, t)})
            known = {r["id"] for r in self._run(cypher.EXISTING_IDS, ids=endpoints)}
            for edge in incoming.values():
                for endpoint in (edge.head, edge.tail):
                    if endpoint not in known:
                        raise KGError(
                            f"edge ({edge.head}, {edge.relation}, {edge.tail}) refers to unknown "
                            f"node {endpoint!r}; add the node first"
                        )
            by_relation: dict[str, list[Edge]] = {}
            for edge in incoming.values():
                by_relation.setdefault(edge.relation, []).append(edge)
            for relation, group in sorted(by_relation.items()):
                pairs = [{"h": e.head, "t": e.tail} for e in group]
                existing = {
                    (r["h"], r["t"]): _edge_from(r["h"], relation, r["t"], r["edge"])
                    for r in self._run(cypher.fetch_edges(relation, relations), pairs=pairs)
                }
                rows = [
                    _edge_row(merge_edges(existing[(e.head, e.tail)], e))
                    if (e.head, e.tail) in existing
                    else _edge_row(e)
                    for e in group
                ]
                added += sum(1 for e in group if (e.head, e.tail) not in existing)
                self._run(cypher.upsert_edges(relation, relations), rows=rows)
        self._version = None
        return added

    def set_embeddings(self, vectors: Mapping[str, Sequence[float]]) -> None:
        """Store entity embeddings for the vector index."""
        rows = [{"id": i, "vector": [float(x) for x in v]} for i, v in vectors.items()]
        for batch in _chunks(rows):
            self._run(cypher.SET_EMBEDDINGS, rows=list(batch))

    # -- reads ----------------------------------------------------------------------------
    def embeddings(self, ids: Sequence[str]) -> dict[str, list[float]]:
        """The stored embeddings of these entities (those without one are left out), in
        batches of one round trip each."""
        found: dict[str, list[float]] = {}
        for batch in _chunks(list(dict.fromkeys(ids))):
            for record in self._run(cypher.GET_EMBEDDINGS, ids=list(batch)):
                found[str(record["id"])] = [float(x) for x in record["embedding"]]
        return found

    def has_node(self, node_id: str) -> bool:
        return bool(self._run(cypher.GET_NODE, id=node_id))

    def get_node(self, node_id: str) -> Node:
        records = self._run(cypher.GET_NODE, id=node_id)
        if not records:
            raise UnknownEntityError(node_id, self._closest(node_id))
        return _node_from(records[0]["node"])

    def _closest(self, text: str) -> list[str]:
        """Suggestions from the fulltext index; none when the index does not exist yet."""
        try:
            hits = self.fulltext_search(text, k=5)
        except Neo4jError:
            return []
        return [node.id for node, _ in hits]

    def get_edge(self, head: str, relation: str, tail: str) -> Edge | None:
        records = self._run(cypher.get_edge(relation, self._schema.relations), h=head, t=tail)
        return _edge_from(head, relation, tail, records[0]["edge"]) if records else None

    def _require(self, node_ids: Sequence[str]) -> None:
        known = {r["id"] for r in self._run(cypher.EXISTING_IDS, ids=list(node_ids))}
        for node_id in node_ids:
            if node_id not in known:
                raise UnknownEntityError(node_id, self._closest(node_id))

    def neighbors(
        self, node_id: str, relation: str | None = None, direction: Direction = "out"
    ) -> list[Edge]:
        if direction not in ("out", "in", "both"):
            raise KGError(f"invalid direction {direction!r}; valid: out, in, both")
        if relation is not None:
            self._schema.check_relation(relation)
        self._require([node_id])
        found: list[Edge] = []
        for side in ("out", "in") if direction == "both" else (direction,):
            for r in self._run(cypher.NEIGHBOURS[side], id=node_id, relation=relation):
                found.append(_edge_from(r["h"], r["r"], r["t"], r["edge"]))
        unique = {e.triple: e for e in found}
        return [unique[k] for k in sorted(unique)]

    def project(self, node_ids: Iterable[str], relation: str, *, inverse: bool = False) -> set[str]:
        query = cypher.project(relation, self._schema.relations, inverse=inverse)
        ids = sorted(set(node_ids))
        if not ids:
            return set()
        self._require(ids)
        return {r["id"] for r in self._run(query, ids=ids)}

    def hop_edges(
        self, node_ids: Sequence[str], relation: str, *, inverse: bool = False
    ) -> list[Edge]:
        ids = list(dict.fromkeys(node_ids))
        if not ids:
            self._schema.check_relation(relation)
            return []
        query = cypher.hop_edges(relation, self._schema.relations, inverse=inverse)
        self._require(ids)
        by_entity: dict[str, list[Edge]] = {node: [] for node in ids}
        for r in self._run(query, ids=ids):
            edge = _edge_from(r["h"], relation, r["t"], r["edge"])
            by_entity[edge.tail if inverse else edge.head].append(edge)
        for found in by_entity.values():
            found.sort(key=lambda e: e.triple)
        return [edge for node in node_ids for edge in by_entity[node]]

    def shortest_paths(
        self,
        source: str,
        target: str,
        *,
        max_depth: int = 4,
        directed: bool = False,
        max_paths: int = 10,
    ) -> list[Path]:
        self._require([source, target])
        if source == target:
            return [()]
        records = self._run(
            cypher.shortest_paths(max_depth, directed=directed),
            source=source,
            target=target,
            max_paths=max_paths,
        )
        paths = [
            tuple(_edge_from(h["h"], h["r"], h["t"], h["edge"]) for h in record["hops"])
            for record in records
        ]
        return sorted(paths, key=lambda p: [e.triple for e in p])[:max_paths]

    def hub_free_path(
        self,
        sources: Sequence[str],
        targets: Sequence[str],
        *,
        max_depth: int,
        hub_degree: int | None,
        excluded_source: str,
    ) -> Path | None:
        """A shortest path found by the server (one round trip; see
        :func:`~kgrecall.kg.cypher.hub_free_path`), or None within ``max_depth``."""
        records = self._run(
            cypher.hub_free_path(max_depth),
            sources=list(sources),
            targets=list(targets),
            hub_degree=hub_degree,
            excluded=excluded_source,
        )
        if not records:
            return None
        return tuple(_edge_from(h["h"], h["r"], h["t"], h["edge"]) for h in records[0]["hops"])

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
        allowed = None if relations is None else sorted(set(relations))
        for relation in allowed or ():
            self._schema.check_relation(relation)
        seed_list = sorted(set(seeds))
        self._require(seed_list)
        order = seed_list[:max_nodes]
        depth_of = dict.fromkeys(order, 0)
        truncated = len(seed_list) > max_nodes
        frontier = list(order)
        edges: dict[tuple[str, str, str], Edge] = {}
        level = 0
        while frontier and level < depth and not truncated:
            level += 1
            found = [
                _edge_from(r["h"], r["r"], r["t"], r["edge"])
                for r in self._run(cypher.FRONTIER_EDGES, ids=frontier, relations=allowed)
            ]
            discovered = sorted(
                {e.tail if e.head in frontier else e.head for e in found} - set(depth_of)
            )
            frontier = []
            for node_id in discovered:
                if len(order) >= max_nodes:
                    truncated = True
                    break
                depth_of[node_id] = level
                order.append(node_id)
                frontier.append(node_id)
            for edge in found:
                if edge.head in depth_of and edge.tail in depth_of:
                    edges[edge.triple] = edge
        return BFSResult(order, depth_of, order_bfs_edges(edges.values(), depth_of), truncated)

    def lookup(self, text: str) -> list[Node]:
        query = text.strip()
        ids = sorted({query, normalize_curie(query)})
        records = self._run(cypher.LOOKUP, ids=ids, text=query.casefold())
        nodes = {r["node"]["id"]: _node_from(r["node"]) for r in records}
        return [nodes[i] for i in sorted(nodes)]

    def nodes(self) -> Iterator[Node]:
        after = ""
        while True:
            records = self._run(cypher.PAGE_NODES, after=after, limit=BATCH)
            for record in records:
                yield _node_from(record["node"])
            if len(records) < BATCH:
                return
            after = records[-1]["node"]["id"]

    def edges(self) -> Iterator[Edge]:
        after = ""
        while True:
            records = self._run(cypher.PAGE_EDGES, after=after, limit=BATCH)
            heads = {r["h"] for r in records}
            for record in records:
                if record["edge"] is not None:
                    yield _edge_from(record["h"], record["r"], record["t"], record["edge"])
            if len(heads) < BATCH:
                return
            after = max(heads)

    def number_of_nodes(self) -> int:
        return int(self._run(cypher.COUNT_NODES)[0]["count"])

    def number_of_edges(self) -> int:
        return int(self._run(cypher.COUNT_EDGES)[0]["count"])

    @property
    def version(self) -> str:
        if self._version is None:
            self._version = content_hash(self._schema, self.nodes(), self.edges())
        return self._version

    # -- search indexes -------------------------------------------------------------------
    def fulltext_search(
        self, text: str, *, k: int = 10, node_types: Collection[str] | None = None
    ) -> list[tuple[Node, float]]:
        """(node, Lucene score) from the fulltext index, best first; the text is matched
        literally; with ``node_types`` only nodes of those types (fetched ``TYPED_FETCH`` × k
        deep, then filtered)."""
        query = cypher.escape_lucene(text.strip())
        if not query:
            return []
        return self._search(cypher.FULLTEXT_SEARCH, k, node_types, query=query)

    def _search(
        self, statement: str, k: int, node_types: Collection[str] | None, **parameters: Any
    ) -> list[tuple[Node, float]]:
        if k < 1:
            raise KGError(f"k must be at least 1, got {k}")
        types = None if node_types is None else sorted(node_types)
        fetch = k if types is None else TYPED_FETCH * k
        records = self._run(statement, **parameters, fetch=fetch, types=types, k=k)
        return [(_node_from(r["node"]), float(r["score"])) for r in records]

    def has_vector_index(self) -> bool:
        """Whether the database has kgrecall's vector index (``kg push-neo4j`` creates it
        when the KG has embeddings)."""
        return bool(self._run(cypher.HAS_VECTOR_INDEX)[0]["count"])

    def server_version(self) -> tuple[int, int]:
        """(major, minor) of the Neo4j kernel, e.g. (2026, 1) or (5, 26)."""
        parts = str(self._run(cypher.SERVER_VERSION)[0]["version"]).split(".")
        return int(parts[0]), int(parts[1]) if len(parts) > 1 else 0

    def vector_search(
        self, vector: Sequence[float], *, k: int = 10, node_types: Collection[str] | None = None
    ) -> list[tuple[Node, float]]:
        """(node, cosine score) from the vector index, best first: the SEARCH clause on
        servers that have it, ``db.index.vector.queryNodes`` otherwise; ``node_types`` as in
        :meth:`fulltext_search`."""
        use_clause = self.server_version() >= SEARCH_CLAUSE_SINCE
        query = cypher.VECTOR_SEARCH_CLAUSE if use_clause else cypher.VECTOR_SEARCH_PROCEDURE
        return self._search(query, k, node_types, vector=[float(x) for x in vector])
