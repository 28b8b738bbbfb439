"""Canonical JSON records of nodes and edges, and the content hash that versions a KG.

One canonical form serves persistence and versioning: defaults are omitted, lists keep their
order, and the hash covers the schema, the nodes sorted by id and the edges sorted by
(head, relation, tail). Two graphs with the same content have the same version, whatever
order they were built in.
"""

from __future__ import annotations

import contextlib
import gc
import hashlib
from collections.abc import Iterable, Iterator
from typing import Any

import orjson

from kgrecall.kg.errors import KGFieldError
from kgrecall.kg.model import Edge, KGSchema, Node

Record = dict[str, Any]


@contextlib.contextmanager
def paused_gc() -> Iterator[None]:
    """Pause the cyclic garbage collector while building millions of acyclic objects.

    Each generation-0 collection walks the ever-growing young heap; on a 1 M-edge load that
    costs more than the load itself. Nothing built here forms cycles.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def node_to_record(node: Node) -> Record:
    record: Record = {"id": node.id, "type": node.type, "name": node.name}
    if node.synonyms:
        record["synonyms"] = list(node.synonyms)
    if node.properties:
        record["properties"] = dict(node.properties)
    if node.sources:
        record["sources"] = list(node.sources)
    return record


def edge_to_record(edge: Edge) -> Record:
    record: Record = {"h": edge.head, "r": edge.relation, "t": edge.tail}
    if edge.sources:
        record["sources"] = list(edge.sources)
    if edge.confidence != 1.0:
        record["confidence"] = edge.confidence
    if edge.timestamp is not None:
        record["timestamp"] = edge.timestamp
    if edge.properties:
        record["properties"] = dict(edge.properties)
    return record


def schema_to_record(schema: KGSchema) -> Record:
    return {
        "relations": {name: schema.relations[name] for name in sorted(schema.relations)},
        "node_types": sorted(schema.node_types),
    }


def _string_list(record: Record, key: str) -> tuple[str, ...]:
    value = record.get(key)
    if value is None:
        return ()
    if type(value) is list:
        items = tuple(value)
        if all(type(item) is str for item in items):
            return items
    raise KGFieldError(key, f"expected a list of strings, got {value!r}")


def _mapping(record: Record, key: str) -> dict[str, Any]:
    value = record.get(key, {})
    if not isinstance(value, dict):
        raise KGFieldError(key, f"expected an object, got {value!r}")
    return value


def _required_string(record: Record, key: str) -> str:
    value = record.get(key)
    if not isinstance(value, str):
        raise KGFieldError(key, f"missing or not a string (got {value!r})")
    return value


def record_to_node(record: Any) -> Node:
    if not isinstance(record, dict):
        raise KGFieldError("node", f"expected an object, got {type(record).__name__}")
    return Node(
        _required_string(record, "id"),
        _required_string(record, "type"),
        _required_string(record, "name"),
        synonyms=_string_list(record, "synonyms"),
        properties=_mapping(record, "properties"),
        sources=_string_list(record, "sources"),
    )


def record_to_edge(record: Any) -> Edge:
    if not isinstance(record, dict):
        raise KGFieldError("edge", f"expected an object, got {type(record).__name__}")
    timestamp = record.get("timestamp")
    if timestamp is not None and not isinstance(timestamp, str):
        raise KGFieldError("timestamp", f"expected an ISO 8601 string, got {timestamp!r}")
    return Edge(
        _required_string(record, "h"),
        _required_string(record, "r"),
        _required_string(record, "t"),
        sources=_string_list(record, "sources"),
        confidence=record.get("confidence", 1.0),
        timestamp=timestamp,
        properties=_mapping(record, "properties"),
    )


def content_hash(schema: KGSchema, nodes: Iterable[Node], edges: Iterable[Edge]) -> str:
    """SHA-256 of the canonical content (schema, nodes by id, edges by h/r/t): the KG version."""
    with paused_gc():
        node_records = [node_to_record(n) for n in sorted(nodes, key=lambda n: n.id)]
        edge_records = [
            edge_to_record(e) for e in sorted(edges, key=lambda e: (e.head, e.relation, e.tail))
        ]
    digest = hashlib.sha256()
    for part in (schema_to_record(schema), node_records, edge_records):
        digest.update(orjson.dumps(part, option=orjson.OPT_SORT_KEYS))
        digest.update(b"\n")
    return digest.hexdigest()
