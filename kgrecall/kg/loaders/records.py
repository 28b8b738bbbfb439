"""Nodes and edges as JSON records: a JSONL file for ``kgrecall kg add``, or the lists of
``POST /v1/platform/ingest``.

A node record is ``{"id", "type", "name"?, "synonyms"?}``; an edge record is
``{"head", "relation", "tail", "confidence"?, "source"?, "timestamp"?}``. In a JSONL file each
line holds one record and ``"kind": "node" | "edge"`` may say which (else the keys do). Records
are validated like TSV rows: relations from kgrecall's vocabulary unless new ones are allowed;
ids are normalised to CURIEs. Errors name the file and line (or the list and position) and
the field.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from kgrecall.kg.errors import KGError, KGFieldError, KGLoadError
from kgrecall.kg.ids import normalize_curie
from kgrecall.kg.loaders.base import GraphBatch, SourceInfo, read_text_lines
from kgrecall.kg.model import Edge, KGSchema, Node, check_identifier, validate_edge, validate_node

_NODE_KEYS = {"kind", "id", "type", "name", "synonyms"}
_EDGE_KEYS = {"kind", "head", "relation", "tail", "confidence", "source", "timestamp"}


def batch_from_records(
    nodes: Iterable[tuple[str, Mapping[str, Any]]],
    edges: Iterable[tuple[str, Mapping[str, Any]]],
    *,
    source: str,
    allow_new_relations: bool = False,
) -> GraphBatch:
    """A batch from ``(where, record)`` pairs — ``where`` names the record in errors."""
    vocabulary = KGSchema.biomedical()
    declared: dict[str, str] = {}
    read_nodes: list[Node] = []
    read_edges: list[Edge] = []
    for where, record in nodes:
        try:
            read_nodes.append(_node(record, source))
        except KGFieldError as error:
            raise KGError(f"{where}: field {error.field}: {error.message}") from None
        except KGError as error:
            raise KGError(f"{where}: {error}") from None
    for where, record in edges:
        try:
            edge = _edge(record, source)
            if edge.relation not in vocabulary.relations and edge.relation not in declared:
                if not allow_new_relations:
                    raise KGFieldError(
                        "relation",
                        f"unknown relation {edge.relation!r}; valid relations: "
                        f"{', '.join(sorted(vocabulary.relations))} (or allow new relations)",
                    )
                check_identifier(edge.relation, "relation")
                declared[edge.relation] = ""
            validate_edge(edge, vocabulary.merged(KGSchema(declared, frozenset())))
        except KGFieldError as error:
            raise KGError(f"{where}: field {error.field}: {error.message}") from None
        except KGError as error:
            raise KGError(f"{where}: {error}") from None
        read_edges.append(edge)
    if not read_nodes and not read_edges:
        raise KGError(f"{source}: no nodes and no edges")
    schema = KGSchema(
        {**vocabulary.relations, **declared}, frozenset(node.type for node in read_nodes)
    )
    return GraphBatch(
        schema, read_nodes, read_edges, SourceInfo(source, "user records", "as supplied")
    )


def load_jsonl(path: str | Path, *, allow_new_relations: bool = False) -> GraphBatch:
    """A JSONL file of node and edge records (blank lines and ``#`` lines skipped)."""
    file_path = Path(path)
    nodes: list[tuple[str, Mapping[str, Any]]] = []
    edges: list[tuple[str, Mapping[str, Any]]] = []
    for number, line in enumerate(read_text_lines(file_path), start=1):
        if not line.strip() or line.startswith("#"):
            continue
        where = f"{file_path}:{number}"
        try:
            record = json.loads(line)
        except json.JSONDecodeError as error:
            raise KGLoadError(file_path, f"not JSON ({error.msg})", line=number) from None
        if not isinstance(record, dict):
            raise KGLoadError(file_path, "a record must be a JSON object", line=number)
        kind = record.get("kind") or ("edge" if "relation" in record else "node")
        if kind not in ("node", "edge"):
            raise KGLoadError(
                file_path, f"kind {kind!r}: valid kinds: node, edge", line=number, field="kind"
            )
        (nodes if kind == "node" else edges).append((where, record))
    return batch_from_records(
        nodes, edges, source=file_path.name, allow_new_relations=allow_new_relations
    )


def _text(record: Mapping[str, Any], key: str, *, required: bool = True) -> str:
    value = record.get(key)
    if value is None and not required:
        return ""
    if not isinstance(value, str) or not value.strip():
        raise KGFieldError(key, f"must be a non-empty string, got {value!r}")
    return value.strip()


def _unknown_keys(record: Mapping[str, Any], valid: set[str]) -> None:
    unknown = sorted(set(record) - valid)
    if unknown:
        raise KGFieldError(unknown[0], f"unknown field; valid fields: {', '.join(sorted(valid))}")


def _node(record: Mapping[str, Any], source: str) -> Node:
    _unknown_keys(record, _NODE_KEYS)
    node_id = normalize_curie(_text(record, "id"))
    synonyms = record.get("synonyms") or []
    if not isinstance(synonyms, list) or not all(isinstance(s, str) for s in synonyms):
        raise KGFieldError("synonyms", "must be a list of strings")
    node = Node(
        node_id,
        _text(record, "type"),
        _text(record, "name", required=False) or node_id,
        synonyms=tuple(s.strip() for s in synonyms if s.strip()),
        sources=(source,),
    )
    validate_node(node)
    return node


def _edge(record: Mapping[str, Any], source: str) -> Edge:
    _unknown_keys(record, _EDGE_KEYS)
    confidence = record.get("confidence", 1.0)
    if isinstance(confidence, bool) or not isinstance(confidence, int | float):
        raise KGFieldError("confidence", f"must be a number, got {confidence!r}")
    timestamp = record.get("timestamp")
    if timestamp is not None and not isinstance(timestamp, str):
        raise KGFieldError("timestamp", f"must be a string, got {timestamp!r}")
    return Edge(
        normalize_curie(_text(record, "head")),
        _text(record, "relation"),
        normalize_curie(_text(record, "tail")),
        sources=(_text(record, "source", required=False) or source,),
        confidence=float(confidence),
        timestamp=timestamp,
    )
