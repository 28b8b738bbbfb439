"""What every loader returns, and how batches become a store."""

from __future__ import annotations

import gzip
import zlib
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from kgrecall.kg.errors import KGLoadError
from kgrecall.kg.model import Edge, KGSchema, Node
from kgrecall.kg.networkx_store import NetworkXStore
from kgrecall.kg.store import GraphMetadata


def read_text_lines(path: Path) -> list[str]:
    """Lines of a UTF-8 text file, gunzipped when it starts with the gzip magic bytes.

    Unreadable, corrupt-gzip and non-UTF-8 files raise :class:`KGLoadError` naming the file.
    """
    try:
        raw = path.read_bytes()
    except OSError as error:
        raise KGLoadError(path, f"cannot read: {error.strerror}") from None
    if raw[:2] == b"\x1f\x8b":
        try:
            raw = gzip.decompress(raw)
        except (EOFError, OSError, zlib.error) as error:  # zlib.error: corrupt deflate data
            raise KGLoadError(path, f"corrupt or truncated gzip data ({error})") from None
    try:
        return raw.decode("utf-8").splitlines()
    except UnicodeDecodeError as error:
        raise KGLoadError(path, f"not UTF-8 text (byte {error.start})") from None


@dataclass(frozen=True, slots=True)
class SourceInfo:
    """Provenance of a loaded source: what, which version, under which licence."""

    name: str
    version: str
    licence: str
    url: str = ""
    note: str = ""

    def as_dict(self) -> dict[str, str]:
        return {
            "name": self.name,
            "version": self.version,
            "licence": self.licence,
            "url": self.url,
            "note": self.note,
        }


@dataclass(slots=True)
class GraphBatch:
    """Nodes and edges read from one source, with the schema they need.

    ``skipped`` counts what the loader read but did not turn into the KG (obsolete terms,
    unmapped relations, complexes, …) so that nothing is dropped silently.
    """

    schema: KGSchema
    nodes: list[Node] = field(default_factory=list)
    edges: list[Edge] = field(default_factory=list)
    source: SourceInfo | None = None
    skipped: dict[str, int] = field(default_factory=dict)

    def skip(self, reason: str, count: int = 1) -> None:
        self.skipped[reason] = self.skipped.get(reason, 0) + count


def build_store(batches: Iterable[GraphBatch], *, name: str) -> NetworkXStore:
    """One store holding every batch (nodes first, then edges; duplicates merged)."""
    batch_list = list(batches)
    schema = KGSchema({}, frozenset())
    for batch in batch_list:
        schema = schema.merged(batch.schema)
    store = NetworkXStore(
        schema,
        GraphMetadata(name=name, sources=[b.source.as_dict() for b in batch_list if b.source]),
    )
    for batch in batch_list:
        store.add_nodes(batch.nodes)
    for batch in batch_list:
        store.add_edges(batch.edges)
    skipped = {
        f"{batch.source.name if batch.source else 'batch'}: {reason}": count
        for batch in batch_list
        for reason, count in batch.skipped.items()
    }
    if skipped:
        store.metadata.extra["skipped"] = skipped
    return store
