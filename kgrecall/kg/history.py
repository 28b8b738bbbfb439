"""A KG's versions and what changed between them: incremental ingestion and its change log.

``kgrecall kg add`` and ``POST /v1/platform/ingest`` add (and remove) nodes and edges of a
named KG without rebuilding it. Each ingestion writes the new graph atomically, then appends
one :class:`ChangeLog` line to ``HOME/kgs/NAME/changes.jsonl``: the versions before and after
and the edges added and removed per relation. Calibrations are tied to a KG version; the log
says how far the KG has moved since a calibration's version (``edges_since``), which is what a
stale calibration's note reports and what an ingestion policy compares with its minimum.
"""

from __future__ import annotations

import fcntl
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from kgrecall.kg.errors import KGError
from kgrecall.kg.ids import normalize_curie
from kgrecall.kg.loaders.base import GraphBatch
from kgrecall.kg.networkx_store import NetworkXStore
from kgrecall.kg.persistence import atomic_write_bytes

CHANGES_FILE = "changes.jsonl"
LOCK_FILE = ".ingest.lock"
#: The node type the TSV loader gives an id it has no type for.
UNTYPED = "entity"


class ChangeLog(BaseModel):
    """One ingestion: the version it started from, the version it made, and the change."""

    version_before: str
    version_after: str
    at: str
    source: str
    nodes_added: int = 0
    edges_added: dict[str, int] = {}
    edges_removed: dict[str, int] = {}

    @property
    def edges_changed(self) -> int:
        """Edges added plus edges removed."""
        return sum(self.edges_added.values()) + sum(self.edges_removed.values())


def apply_batch(
    store: NetworkXStore,
    batch: GraphBatch,
    removals: Sequence[tuple[str, str, str]] = (),
    *,
    source: str,
) -> ChangeLog:
    """Add ``batch`` to ``store`` and remove the ``(head, relation, tail)`` edges in
    ``removals``; the change it made. An untyped node (the TSV loader's default for an id it
    has no type for) that the store already holds is taken as that node, not a conflict; a
    removal of an edge the store lacks, or a new untyped node in a KG of typed nodes, is an
    error naming it (nothing is changed then)."""
    before = store.version
    missing = [key for key in removals if store.get_edge(*key) is None]
    if missing:
        shown = ", ".join(f"({h}, {r}, {t})" for h, r, t in missing[:5])
        more = f" and {len(missing) - 5} more" if len(missing) > 5 else ""
        raise KGError(f"cannot remove edges the KG does not hold: {shown}{more}")
    known = {(edge.head, edge.relation, edge.tail) for edge in batch.edges}
    both = known & set(removals)
    if both:
        head, relation, tail = sorted(both)[0]
        raise KGError(f"edge ({head}, {relation}, {tail}) is both added and removed")
    store.extend_schema(batch.schema)
    new_nodes = [
        node for node in batch.nodes if not (store.has_node(node.id) and node.type == UNTYPED)
    ]
    typed = store.schema.node_types - {UNTYPED}
    untyped = [
        node.id for node in new_nodes if node.type == UNTYPED and not store.has_node(node.id)
    ]
    if typed and untyped:
        raise KGError(
            f"unknown node {untyped[0]!r} has no type, and the KG's nodes are typed "
            f"({', '.join(sorted(typed))}): give it a type (TSV head_type/tail_type columns, "
            "or a JSONL node record)"
        )
    nodes_added = store.add_nodes(new_nodes)
    added = Counter(
        relation for head, relation, tail in known if not store.get_edge(head, relation, tail)
    )
    store.add_edges(batch.edges)
    if batch.source is not None and batch.source.as_dict() not in store.metadata.sources:
        store.metadata.sources.append(batch.source.as_dict())
    removed = Counter(relation for _, relation, _ in set(removals))
    store.remove_edges(removals)
    return ChangeLog(
        version_before=before,
        version_after=store.version,
        at=datetime.now(UTC).isoformat(timespec="seconds"),
        source=source,
        nodes_added=nodes_added,
        edges_added=dict(sorted(added.items())),
        edges_removed=dict(sorted(removed.items())),
    )


class KGHistory:
    """The change log of one KG (``changes.jsonl`` in its folder), oldest entry first."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.path = folder / CHANGES_FILE

    def entries(self) -> list[ChangeLog]:
        """Every ingestion so far; a damaged line raises an error naming file and line."""
        if not self.path.is_file():
            return []
        entries = []
        for number, line in enumerate(self.path.read_text().splitlines(), start=1):
            if not line.strip():
                continue
            try:
                entries.append(ChangeLog.model_validate_json(line))
            except ValidationError as error:
                raise KGError(
                    f"{self.path}:{number}: unreadable change log entry "
                    f"({error.error_count()} errors)"
                ) from None
        return entries

    def append(self, entry: ChangeLog) -> None:
        """Add ``entry`` (the whole file is rewritten atomically)."""
        lines = [e.model_dump_json() for e in self.entries()]
        lines.append(entry.model_dump_json())
        atomic_write_bytes(self.path, ("\n".join(lines) + "\n").encode())

    def versions(self) -> list[str]:
        """The KG's versions known to the log, newest first."""
        entries = self.entries()
        if not entries:
            return []
        return [*(e.version_after for e in reversed(entries)), entries[0].version_before]

    def edges_since(self, version: str) -> int | None:
        """Edges added or removed since ``version`` (None: the log does not know it)."""
        total = 0
        for entry in reversed(self.entries()):
            if entry.version_after == version:
                return total
            total += entry.edges_changed
            if entry.version_before == version:
                return total
        return None

    @contextmanager
    def locked(self) -> Iterator[None]:
        """Hold the KG's ingestion lock (one ingestion at a time, across processes)."""
        self.folder.mkdir(parents=True, exist_ok=True)
        with (self.folder / LOCK_FILE).open("a") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)


def removal_keys(lines: Iterable[str], path: Path) -> list[tuple[str, str, str]]:
    """``head<TAB>relation<TAB>tail`` lines (``#`` comments and blank lines skipped) as edge
    keys; a line of another shape raises an error naming file and line."""
    keys = []
    for number, line in enumerate(lines, start=1):
        if not line.strip() or line.startswith("#"):
            continue
        cells = [cell.strip() for cell in line.split("\t")]
        if len(cells) < 3 or not all(cells[:3]):
            raise KGError(f"{path}:{number}: expected head<TAB>relation<TAB>tail")
        keys.append((normalize_curie(cells[0]), cells[1], normalize_curie(cells[2])))
    return keys


POLICY_FILE = "policy.json"
OnIngest = Literal["recalibrate", "mark_stale"]
WhileStale = Literal["previous", "none"]


class IngestPolicy(BaseModel):
    """What happens to a KG's calibrations when data is ingested (``HOME/kgs/NAME/policy.json``).

    - ``on_ingest``: ``recalibrate`` runs a calibration job for the new version once at least
      ``min_change_edges`` edges changed since the calibrated version; ``mark_stale`` never does.
    - ``while_stale``: until the new version is calibrated, queries use the ``previous``
      version's calibration (their completeness block says which version and how many edges
      ago), or answer with guarantee ``none``.
    - ``topologies`` / ``alphas``: what a recalibration refreshes (empty: what the previous
      version had calibrated).
    """

    model_config = ConfigDict(extra="forbid")

    on_ingest: OnIngest = "recalibrate"
    while_stale: WhileStale = "previous"
    min_change_edges: int = Field(default=1, ge=1)
    topologies: list[str] = []
    alphas: list[Annotated[float, Field(gt=0.0, lt=1.0)]] = []

    @classmethod
    def read(cls, folder: Path) -> IngestPolicy:
        """The KG's policy (the defaults when it has none); a bad file names the field."""
        path = folder / POLICY_FILE
        if not path.is_file():
            return cls()
        try:
            return cls.model_validate_json(path.read_bytes())
        except ValidationError as error:
            problem = error.errors()[0]
            where = ".".join(str(part) for part in problem["loc"]) or "(file)"
            raise KGError(f"{path}: field {where}: {problem['msg']}") from None

    def write(self, folder: Path) -> None:
        atomic_write_bytes(folder / POLICY_FILE, self.model_dump_json(indent=2).encode())
