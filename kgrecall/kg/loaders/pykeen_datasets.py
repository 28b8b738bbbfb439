"""PyKEEN's bundled link-prediction benchmarks (UMLS, Kinships, Nations), splits kept.

The triple files ship inside PyKEEN's wheel; they are read directly (no download, and no
import of PyKEEN/torch just to read three text files). Each edge records its split in
``properties["split"]`` (``train`` | ``valid`` | ``test``).
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

from kgrecall.kg.errors import KGError, KGLoadError
from kgrecall.kg.loaders.base import GraphBatch, SourceInfo
from kgrecall.kg.model import Edge, KGSchema, Node

#: Dataset name → (folder inside pykeen/datasets, node type, licence/provenance note).
PYKEEN_DATASETS: dict[str, tuple[str, str, str]] = {
    "umls": (
        "umls",
        "umls_concept",
        "UMLS semantic network (Kok & Domingos 2007), as bundled by PyKEEN (MIT)",
    ),
    "kinships": (
        "kinships",
        "person",
        "Alyawarra kinship data (Denham 1973; Kemp et al. 2006), as bundled by PyKEEN (MIT)",
    ),
    "nations": (
        "nations",
        "nation",
        "Nations (Rummel 1950-1965; Kemp et al. 2006), as bundled by PyKEEN (MIT)",
    ),
}
SPLITS = ("train", "valid", "test")


def pykeen_dataset_dir(name: str) -> Path:
    """The folder holding the bundled triple files of dataset ``name``."""
    key = name.lower()
    if key not in PYKEEN_DATASETS:
        raise KGError(f"unknown PyKEEN dataset {name!r}; valid: {', '.join(PYKEEN_DATASETS)}")
    spec = importlib.util.find_spec("pykeen")
    if spec is None or not spec.submodule_search_locations:
        raise KGError("PyKEEN is not installed (pip install pykeen)")
    return Path(next(iter(spec.submodule_search_locations))) / "datasets" / PYKEEN_DATASETS[key][0]


def _pykeen_version() -> str:
    from importlib.metadata import version

    return version("pykeen")


def load_pykeen_dataset(name: str) -> GraphBatch:
    """All triples of a bundled PyKEEN dataset, each tagged with its split."""
    key = name.lower()
    folder = pykeen_dataset_dir(key)
    node_type, note = PYKEEN_DATASETS[key][1], PYKEEN_DATASETS[key][2]
    entities: set[str] = set()
    relations: set[str] = set()
    edges: list[Edge] = []
    source = f"pykeen:{key}"
    for split in SPLITS:
        path = folder / f"{split}.txt"
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if not line.strip():
                continue
            cells = line.split("\t")
            if len(cells) != 3:
                raise KGLoadError(path, f"expected 3 columns, found {len(cells)}", line=number)
            head, relation, tail = cells
            entities.update((head, tail))
            relations.add(relation)
            edges.append(Edge(head, relation, tail, sources=(source,), properties={"split": split}))
    nodes = [
        Node(entity, node_type, entity.replace("_", " "), sources=(source,))
        for entity in sorted(entities)
    ]
    return GraphBatch(
        KGSchema.from_relations(sorted(relations), (node_type,)),
        nodes,
        edges,
        SourceInfo(
            f"PyKEEN {key}",
            _pykeen_version(),
            "MIT (PyKEEN); see the dataset's publication",
            note=note,
        ),
    )
