"""Versioned JSON persistence (optionally gzip) with atomic writes and validating loads.

File layout (``schema_version`` 1)::

    {"format": "kgrecall.kg", "schema_version": 1, "version": "<sha256 of the content>",
     "metadata": {"name", "created", "sources": [...], "counts": {...}, "extra": {...}},
     "schema": {"relations": {name: meaning}, "node_types": [...]},
     "nodes": [{"id", "type", "name", "synonyms"?, "properties"?, "sources"?}, ...],
     "edges": [{"h", "r", "t", "sources"?, "confidence"?, "timestamp"?, "properties"?}, ...]}

Writes go to a temporary file in the target directory, are flushed to disk, then renamed over
the target: a crash leaves either the old file or the new one, never half of one. Loads build
a fresh store and only return it once everything validated, so a failed load changes nothing.

A process killed mid-write (kill -9) leaves its temporary file behind. Temporary files are
named ``.TARGET.PID.RANDOM.tmp``; the next write to the same target removes those older than
``STALE_TEMP_AGE_S`` whose writer process is gone (never one still in flight).
"""

from __future__ import annotations

import contextlib
import gzip
import os
import re
import tempfile
import time
import zlib
from collections.abc import Callable
from datetime import UTC, datetime
from glob import escape as glob_escape
from pathlib import Path
from typing import Any

import orjson

from kgrecall.kg.errors import KGError, KGFieldError, KGLoadError
from kgrecall.kg.model import KGSchema, check_identifier
from kgrecall.kg.networkx_store import NetworkXStore
from kgrecall.kg.records import (
    edge_to_record,
    node_to_record,
    paused_gc,
    record_to_edge,
    record_to_node,
    schema_to_record,
)
from kgrecall.kg.store import GraphMetadata, GraphStore

FORMAT = "kgrecall.kg"
SCHEMA_VERSION = 1
_GZIP_MAGIC = b"\x1f\x8b"
#: A temporary file untouched this long (seconds), its writer gone, is a crash's leftover.
STALE_TEMP_AGE_S = 600.0
#: What follows ``.TARGET.`` in a temporary file's name: the writer's pid (absent in names
#: from older kgrecall) and mkstemp's random part.
_TEMPORARY = re.compile(r"(?:(\d+)\.)?[a-z0-9_]{8}\.tmp")


def atomic_write_bytes(path: Path, payload: bytes | Callable[[Any], None]) -> None:
    """Write ``payload`` (bytes, or a function writing to a binary file) atomically to ``path``;
    stale temporary files of earlier writes to ``path`` are removed first."""
    path.parent.mkdir(parents=True, exist_ok=True)
    remove_stale_temporaries(path)
    descriptor, temporary = tempfile.mkstemp(
        dir=path.parent, prefix=f".{path.name}.{os.getpid()}.", suffix=".tmp"
    )
    try:
        umask = os.umask(0)
        os.umask(umask)
        Path(temporary).chmod(0o666 & ~umask)  # mkstemp creates 0600; give the usual mode
        with os.fdopen(descriptor, "wb") as handle:
            if isinstance(payload, bytes):
                handle.write(payload)
            else:
                payload(handle)
            handle.flush()
            os.fsync(handle.fileno())
        Path(temporary).replace(path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            Path(temporary).unlink()
        raise
    # Make the rename itself durable.
    directory = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(directory)
    finally:
        os.close(directory)


def remove_stale_temporaries(path: Path, *, max_age_s: float = STALE_TEMP_AGE_S) -> list[Path]:
    """Remove the temporary files that writes to ``path`` left behind (``.NAME.*.tmp``) that
    are older than ``max_age_s`` and whose writer process is not running; the removed paths.
    """
    removed = []
    prefix = f".{path.name}."
    now = time.time()
    for candidate in path.parent.glob(f".{glob_escape(path.name)}.*.tmp"):
        ours = _TEMPORARY.fullmatch(candidate.name[len(prefix) :])
        if ours is None:  # e.g. the temporary file of "graph.json.gz" when path is graph.json
            continue
        try:
            if now - candidate.stat().st_mtime < max_age_s or _running(ours.group(1)):
                continue
            candidate.unlink()
        except FileNotFoundError:
            continue  # another writer removed it first
        removed.append(candidate)
    return removed


def _running(pid: str | None) -> bool:
    """Whether ``pid`` (from a temporary file's name) is a running process (on this machine:
    the directory is local to the writers). Names without a pid (older kgrecall) say no."""
    if pid is None:
        return False
    try:
        os.kill(int(pid), 0)
    except PermissionError:
        return True  # running, as another user
    except (ProcessLookupError, OverflowError):
        return False
    return True


def graph_document(store: GraphStore) -> dict[str, Any]:
    """The JSON document of ``store`` in canonical order."""
    nodes = sorted(store.nodes(), key=lambda n: n.id)
    edges = sorted(store.edges(), key=lambda e: (e.head, e.relation, e.tail))
    stats = store.stats()
    metadata = store.metadata
    return {
        "format": FORMAT,
        "schema_version": SCHEMA_VERSION,
        "version": store.version,
        "metadata": {
            "name": metadata.name,
            "created": metadata.created or datetime.now(UTC).isoformat(timespec="seconds"),
            "sources": metadata.sources,
            "counts": stats.as_dict(),
            "extra": metadata.extra,
        },
        "schema": schema_to_record(store.schema),
        "nodes": [node_to_record(n) for n in nodes],
        "edges": [edge_to_record(e) for e in edges],
    }


def save_graph(store: GraphStore, path: str | Path, *, compress: bool | None = None) -> Path:
    """Save atomically; gzip when ``compress`` or when the name ends in ``.gz``."""
    target = Path(path)
    gzip_it = target.suffix == ".gz" if compress is None else compress
    with paused_gc():
        payload = orjson.dumps(graph_document(store))

    def write(handle: Any) -> None:
        if gzip_it:
            with gzip.GzipFile(fileobj=handle, mode="wb", compresslevel=5, mtime=0) as zipped:
                zipped.write(payload)
        else:
            handle.write(payload)

    atomic_write_bytes(target, write)
    return target


def _read_document(path: Path) -> Any:
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise KGLoadError(path, "no such file") from None
    except OSError as error:
        raise KGLoadError(path, f"cannot read: {error.strerror}") from None
    if raw[:2] == _GZIP_MAGIC:
        try:
            raw = gzip.decompress(raw)
        except (EOFError, OSError, zlib.error) as error:  # zlib.error: corrupt deflate data
            raise KGLoadError(path, f"corrupt or truncated gzip data ({error})") from None
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError as error:
        raise KGLoadError(
            path, f"invalid or truncated JSON at byte {error.pos}: {error.msg}"
        ) from None


def _schema_from(document: dict[str, Any], path: Path) -> KGSchema:
    schema = document.get("schema")
    if not isinstance(schema, dict):
        raise KGLoadError(path, "missing or not an object", field="schema")
    relations = schema.get("relations")
    node_types = schema.get("node_types", [])
    if not isinstance(relations, dict) or not all(isinstance(v, str) for v in relations.values()):
        raise KGLoadError(path, "expected an object {name: meaning}", field="schema.relations")
    if not isinstance(node_types, list):
        raise KGLoadError(path, "expected a list", field="schema.node_types")
    try:
        for relation in relations:
            check_identifier(relation, "relation")
        for node_type in node_types:
            check_identifier(node_type, "node type")
    except KGError as error:
        raise KGLoadError(path, str(error), field="schema") from None
    return KGSchema(dict(relations), frozenset(node_types))


def _metadata_from(document: dict[str, Any], path: Path) -> GraphMetadata:
    metadata = document.get("metadata", {})
    if not isinstance(metadata, dict):
        raise KGLoadError(path, "expected an object", field="metadata")
    sources = metadata.get("sources", [])
    if not isinstance(sources, list) or not all(isinstance(s, dict) for s in sources):
        raise KGLoadError(path, "expected a list of objects", field="metadata.sources")
    extra = metadata.get("extra", {})
    if not isinstance(extra, dict):
        raise KGLoadError(path, "expected an object", field="metadata.extra")
    return GraphMetadata(
        name=str(metadata.get("name", path.stem)),
        sources=sources,
        created=metadata.get("created"),
        extra=extra,
    )


def _load_records(
    source: Path, document: dict[str, Any], section: str, add: Callable[[Any], object]
) -> None:
    """Add each record of ``document[section]``; errors name the record (``edges[41].r``)."""
    records = document.get(section)
    if not isinstance(records, list):
        raise KGLoadError(source, "missing or not a list", field=section)
    for index, record in enumerate(records):
        try:
            add(record)
        except KGFieldError as error:
            raise KGLoadError(
                source, error.message, field=f"{section}[{index}].{error.field}"
            ) from None
        except KGError as error:
            raise KGLoadError(source, str(error), field=f"{section}[{index}]") from None


def load_graph(path: str | Path, *, verify_version: bool = True) -> NetworkXStore:
    """Load and validate a saved KG into a new :class:`NetworkXStore`.

    Errors name the file and the offending record (``edges[41].r``). With ``verify_version``
    the recomputed content hash must equal the stored one (detects edited or corrupted files).
    """
    with paused_gc():
        return _load_graph(Path(path), verify_version)


def _load_graph(source: Path, verify_version: bool) -> NetworkXStore:
    document = _read_document(source)
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise KGLoadError(source, f"not a kgrecall KG file (expected format {FORMAT!r})")
    if document.get("schema_version") != SCHEMA_VERSION:
        raise KGLoadError(
            source,
            f"unsupported schema_version {document.get('schema_version')!r} "
            f"(this kgrecall reads {SCHEMA_VERSION})",
            field="schema_version",
        )
    store = NetworkXStore(_schema_from(document, source), _metadata_from(document, source))
    _load_records(source, document, "nodes", lambda r: store.add_nodes([record_to_node(r)]))
    _load_records(source, document, "edges", lambda r: store.add_edges([record_to_edge(r)]))
    if verify_version:
        stored = document.get("version")
        if stored != store.version:
            raise KGLoadError(
                source,
                f"content hash mismatch: the file says {stored!r} but its content hashes to "
                f"{store.version!r} (edited or corrupted; load with verify_version=False "
                "to accept it as a new version)",
                field="version",
            )
    return store
