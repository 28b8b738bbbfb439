"""The indexes kept next to each KG version, written when the KG is written.

Two indexes are slow to make: the entity-name tables (≈ 2 s for the demo KG) and the entity
embeddings of the vector index (minutes on two cores). The commands that write a KG — ``kg
build-demo``, ``kg import``, ``kg add``, ``kg index``, ``ground --auto-learn`` and the
service's ingestion — write both with :func:`write_indexes` (the embeddings of entities whose
text did not change are reused from the previous version's index). Readers load them: a
query never builds or writes an index. A KG version without a vector index is served without
vector search (logged, naming the command that builds it).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from kgrecall.kg import GraphStore
from kgrecall.tools.name_tables import NAMES_FILE, NameTables
from kgrecall.tools.vector import VectorIndex

__all__ = ["INDEX_FOLDER", "WrittenIndexes", "missing_indexes", "write_indexes"]

#: The folder of a KG's indexes inside its workspace folder (``kgs/NAME/indexes``).
INDEX_FOLDER = "indexes"


@dataclass(frozen=True, slots=True)
class WrittenIndexes:
    """What :func:`write_indexes` wrote, for the command's summary."""

    names: Path | None
    vectors: Path | None
    entities: int


def missing_indexes(store: GraphStore, folder: Path) -> list[str]:
    """The indexes (``names``, ``vectors``) that ``folder`` lacks for ``store``'s version."""
    missing = []
    if NameTables.load(folder / NAMES_FILE, store.version) is None:
        missing.append("names")
    if VectorIndex.saved(store, folder) is None:
        missing.append("vectors")
    return missing


def write_indexes(
    store: GraphStore, folder: Path, *, only_missing: bool = False, progress: bool = True
) -> WrittenIndexes:
    """Write ``store``'s name tables and vector index into ``folder``; with ``only_missing``,
    only those this version lacks."""
    todo = missing_indexes(store, folder) if only_missing else ["names", "vectors"]
    names = vectors = None
    if "names" in todo:
        NameTables.write(store, folder)
        names = folder / NAMES_FILE
    if "vectors" in todo:
        VectorIndex.for_store(store, folder, progress=progress)
        vectors = VectorIndex.path_for(store, folder)
    return WrittenIndexes(names, vectors, store.number_of_nodes())
