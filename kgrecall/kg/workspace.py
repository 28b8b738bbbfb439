"""Named KGs on disk under ``$KGRECALL_HOME`` (default ``~/.cache/kgrecall``)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from kgrecall.kg.errors import KGError, KGNotFoundError
from kgrecall.kg.history import ChangeLog, IngestPolicy, KGHistory, apply_batch
from kgrecall.kg.loaders.base import GraphBatch
from kgrecall.kg.networkx_store import NetworkXStore
from kgrecall.kg.persistence import load_graph, save_graph
from kgrecall.kg.store import GraphStore
from kgrecall.settings import settings

#: KG names: ``\Z``, not ``$``, which would also match before a trailing newline.
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*\Z")
#: Longest KG name (a directory name: file systems refuse more than 255 bytes).
MAX_NAME_CHARS = 100
GRAPH_FILE = "graph.json.gz"


def default_home() -> Path:
    """``KGRECALL_HOME``, else ``~/.cache/kgrecall``."""
    return settings().kgrecall_home or Path.home() / ".cache" / "kgrecall"


class Workspace:
    """Named KGs: ``HOME/kgs/NAME/graph.json.gz`` (later also indexes, models, calibrations)."""

    def __init__(self, home: str | Path | None = None) -> None:
        self.home = Path(home) if home is not None else default_home()

    def kg_dir(self, name: str) -> Path:
        """``HOME/kgs/NAME``; a name that is not a valid KG name raises :class:`KGError`."""
        if not _valid_name(name):
            shown = name if len(name) <= MAX_NAME_CHARS else name[:MAX_NAME_CHARS] + "…"
            raise KGError(
                f"invalid KG name {shown!r}: use up to {MAX_NAME_CHARS} letters, digits, '.', "
                "'_' or '-', no slashes"
            )
        return self.home / "kgs" / name

    def graph_path(self, name: str) -> Path:
        return self.kg_dir(name) / GRAPH_FILE

    def artifact_path(self, name: str, kind: str, filename: str) -> Path:
        """Where a KG's derived artifact lives, e.g. ``models/rotate.pt``: a path only (asking
        creates nothing; writers make the folder when they save)."""
        return self.kg_dir(name) / kind / filename

    def names(self) -> list[str]:
        root = self.home / "kgs"
        if not root.is_dir():
            return []
        return sorted(p.name for p in root.iterdir() if (p / GRAPH_FILE).is_file())

    def exists(self, name: str) -> bool:
        return self.graph_path(name).is_file()

    def save(self, store: GraphStore, name: str) -> Path:
        store.metadata.name = name
        return save_graph(store, self.graph_path(name))

    def load(self, name_or_path: str) -> NetworkXStore:
        """A KG by workspace name, or by file path when the argument names an existing file."""
        candidate = Path(name_or_path)
        if _is_file(candidate):
            return load_graph(candidate)
        if not _valid_name(name_or_path) or not self.exists(name_or_path):
            known = ", ".join(self.names()) or "none yet (try: kgrecall kg build-demo)"
            raise KGNotFoundError(
                name_or_path, f"no KG named {name_or_path!r} in {self.home}; known KGs: {known}"
            )
        return load_graph(self.graph_path(name_or_path))

    def history(self, name: str) -> KGHistory:
        """The change log of KG ``name``."""
        return KGHistory(self.kg_dir(name))

    def policy(self, name: str) -> IngestPolicy:
        """What ingestion does to KG ``name``'s calibrations."""
        return IngestPolicy.read(self.kg_dir(name))

    def ingest(
        self,
        name: str,
        batch: GraphBatch,
        removals: Sequence[tuple[str, str, str]] = (),
        *,
        source: str,
    ) -> tuple[NetworkXStore, ChangeLog]:
        """Add ``batch`` to (and remove ``removals`` from) KG ``name``: the new version is
        written atomically, then logged; a failure leaves the saved KG as it was. One
        ingestion of a KG at a time (a file lock, across processes). Nothing changed → no new
        version and no log entry."""
        history = self.history(name)
        with history.locked():
            store = self.load(name)
            entry = apply_batch(store, batch, removals, source=source)
            if entry.version_after != entry.version_before:
                self.save(store, name)
                history.append(entry)
        return store, entry


def _valid_name(name: str) -> bool:
    return len(name) <= MAX_NAME_CHARS and _NAME.match(name) is not None


def _is_file(path: Path) -> bool:
    """``path.is_file()``, False where the path cannot be a file (a name too long)."""
    try:
        return path.is_file()
    except OSError:
        return False
