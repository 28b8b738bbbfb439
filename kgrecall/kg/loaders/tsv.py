"""TSV triples: ``head<TAB>relation<TAB>tail`` with optional extra columns named by a header.

Without a header a file has exactly three columns. A header row (first line whose first three
cells are head/relation/tail, or subject/predicate/object) may name extra columns:
``confidence``, ``source``, ``timestamp``, ``head_type``, ``tail_type``, ``head_name``,
``tail_name``; any other column becomes an edge property. Lines starting with ``#`` and blank
lines are ignored. Errors name the file, the line and the column.
"""

from __future__ import annotations

from pathlib import Path

from kgrecall.kg.errors import KGError, KGFieldError, KGLoadError
from kgrecall.kg.ids import normalize_curie
from kgrecall.kg.loaders.base import GraphBatch, SourceInfo, read_text_lines
from kgrecall.kg.model import Edge, KGSchema, Node, check_identifier, validate_edge

_HEADER_NAMES = (
    {"head", "subject", "h", "source_id"},
    {"relation", "predicate", "r"},
    {"tail", "object", "t", "target_id"},
)
_NODE_COLUMNS = {"head_type", "tail_type", "head_name", "tail_name"}


def _is_header(cells: list[str]) -> bool:
    return len(cells) >= 3 and all(
        cell.strip().lower() in names for cell, names in zip(cells, _HEADER_NAMES, strict=False)
    )


def load_tsv(
    path: str | Path,
    *,
    allow_new_relations: bool = False,
    default_node_type: str = "entity",
    normalize_ids: bool = True,
    source_name: str | None = None,
) -> GraphBatch:
    """Read a TSV triple file into a :class:`GraphBatch`.

    Relations must belong to kgrecall's biomedical vocabulary unless ``allow_new_relations``,
    which declares every new (identifier-shaped) relation the file uses.
    """
    file_path = Path(path)
    check_identifier(default_node_type, "node type")
    vocabulary = KGSchema.biomedical()
    declared: dict[str, str] = {}
    source = source_name or file_path.name
    nodes: dict[str, Node] = {}
    edges: list[Edge] = []
    columns = ["head", "relation", "tail"]
    for number, line in enumerate(read_text_lines(file_path), start=1):
        if not line.strip() or line.startswith("#"):
            continue
        cells = line.rstrip("\r").split("\t")
        if not edges and columns == ["head", "relation", "tail"] and _is_header(cells):
            columns = ["head", "relation", "tail", *(c.strip().lower() for c in cells[3:])]
            if len(set(columns)) != len(columns) or "" in columns:
                raise KGLoadError(
                    file_path, "header has empty or repeated column names", line=number
                )
            continue
        if len(cells) != len(columns):
            raise KGLoadError(
                file_path,
                f"expected {len(columns)} tab-separated columns ({', '.join(columns)}), "
                f"found {len(cells)}",
                line=number,
            )
        row = dict(zip(columns, (c.strip() for c in cells), strict=True))
        try:
            edge = _row_to_edge(row, source, normalize_ids)
            relation = edge.relation
            if relation not in vocabulary.relations and relation not in declared:
                if not allow_new_relations:
                    raise KGFieldError(
                        "relation",
                        f"unknown relation {relation!r}; valid relations: "
                        f"{', '.join(sorted(vocabulary.relations))} "
                        "(or allow new relations: --allow-new-relations)",
                    )
                check_identifier(relation, "relation")
                declared[relation] = ""
            validate_edge(edge, vocabulary.merged(KGSchema(declared, frozenset())))
            for end in ("head", "tail"):
                node_id = edge.head if end == "head" else edge.tail
                node_type = row.get(f"{end}_type") or default_node_type
                check_identifier(node_type, "node type")
                name = row.get(f"{end}_name") or node_id
                known = nodes.get(node_id)
                if known is not None and known.type != node_type:
                    raise KGFieldError(
                        f"{end}_type",
                        f"{node_id!r} was typed {known.type!r} earlier but {node_type!r} here",
                    )
                if known is None or (known.name == node_id and name != node_id):
                    nodes[node_id] = Node(node_id, node_type, name, sources=(source,))
        except KGFieldError as error:
            raise KGLoadError(file_path, error.message, line=number, field=error.field) from None
        except KGError as error:
            raise KGLoadError(file_path, str(error), line=number) from None
        edges.append(edge)
    if not edges:
        raise KGLoadError(file_path, "no triples found")
    schema = KGSchema(
        {**vocabulary.relations, **declared},
        frozenset({n.type for n in nodes.values()}),
    )
    return GraphBatch(
        schema,
        list(nodes.values()),
        edges,
        SourceInfo(source, "user file", "as supplied by the user", str(file_path)),
    )


def _row_to_edge(row: dict[str, str], source: str, normalize_ids: bool) -> Edge:
    head, relation, tail = row["head"], row["relation"], row["tail"]
    for field_name, value in (("head", head), ("relation", relation), ("tail", tail)):
        if not value:
            raise KGFieldError(field_name, "empty")
    if normalize_ids:
        head, tail = normalize_curie(head), normalize_curie(tail)
    confidence = 1.0
    if row.get("confidence"):
        try:
            confidence = float(row["confidence"])
        except ValueError:
            raise KGFieldError("confidence", f"{row['confidence']!r} is not a number") from None
    properties = {
        key: value
        for key, value in row.items()
        if key not in {"head", "relation", "tail", "confidence", "source", "timestamp"}
        and key not in _NODE_COLUMNS
        and value
    }
    return Edge(
        head,
        relation,
        tail,
        sources=(row.get("source") or source,),
        confidence=confidence,
        timestamp=row.get("timestamp") or None,
        properties=properties,
    )
