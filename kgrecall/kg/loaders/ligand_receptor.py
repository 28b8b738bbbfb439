"""Ligand–receptor interactions (protein ``interacts_with`` protein).

The bundled table ``kgrecall/data/ligand_receptor.tsv.gz`` is derived from liana's
``omni_resource.csv`` (BSD-3-Clause) by ``scripts/derive_ligand_receptor.py``: human
resources only, single proteins only (complexes dropped), the reporting resources merged per
pair. A user can load another file in the same five-column format.
"""

from __future__ import annotations

import gzip
from collections.abc import Collection
from importlib.resources import files
from pathlib import Path

from kgrecall.kg.errors import KGLoadError
from kgrecall.kg.loaders.base import GraphBatch, SourceInfo
from kgrecall.kg.model import BIOMEDICAL_RELATIONS, Edge, KGSchema, Node

COLUMNS = ("ligand_uniprot", "receptor_uniprot", "ligand_symbol", "receptor_symbol", "resources")
SOURCE = "liana:omnipath"


def bundled_ligand_receptor_path() -> Path:
    return Path(str(files("kgrecall") / "data" / "ligand_receptor.tsv.gz"))


def load_ligand_receptor(
    path: str | Path | None = None, *, symbols: Collection[str] | None = None
) -> GraphBatch:
    """Protein nodes (``uniprot:`` ids, named by gene symbol) and ligand→receptor edges.

    ``symbols`` keeps only pairs where the ligand or the receptor symbol is in the collection.
    """
    file_path = Path(path) if path is not None else bundled_ligand_receptor_path()
    raw = file_path.read_bytes()
    text = (gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw).decode("utf-8")
    lines = text.splitlines()
    if not lines or tuple(lines[0].split("\t")) != COLUMNS:
        raise KGLoadError(file_path, f"expected the header {' '.join(COLUMNS)}", line=1)
    batch = GraphBatch(
        KGSchema({"interacts_with": BIOMEDICAL_RELATIONS["interacts_with"]}, frozenset({"protein"}))
    )
    proteins: dict[str, Node] = {}
    for number, line in enumerate(lines[1:], start=2):
        cells = line.split("\t")
        if len(cells) != len(COLUMNS):
            raise KGLoadError(
                file_path, f"expected {len(COLUMNS)} columns, found {len(cells)}", line=number
            )
        ligand, receptor, ligand_symbol, receptor_symbol, resources = cells
        if not (ligand and receptor):
            raise KGLoadError(
                file_path, "empty UniProt accession", line=number, field="ligand_uniprot"
            )
        if symbols is not None and ligand_symbol not in symbols and receptor_symbol not in symbols:
            batch.skip("pair outside the symbol filter")
            continue
        for accession, symbol in ((ligand, ligand_symbol), (receptor, receptor_symbol)):
            proteins.setdefault(
                accession,
                Node(
                    f"uniprot:{accession}",
                    "protein",
                    symbol or accession,
                    synonyms=(accession,),
                    sources=(SOURCE,),
                ),
            )
        batch.edges.append(
            Edge(
                f"uniprot:{ligand}",
                "interacts_with",
                f"uniprot:{receptor}",
                sources=(SOURCE,),
                properties={"resources": resources.split(","), "role": "ligand→receptor"},
            )
        )
    batch.nodes = [proteins[key] for key in sorted(proteins)]
    batch.source = SourceInfo(
        name="ligand–receptor (liana / OmniPath)",
        version="liana 1.10.0 omni_resource.csv",
        licence="BSD-3-Clause (liana); underlying resources under their own licences",
        url="https://github.com/saezlab/liana-py",
        note="derived by scripts/derive_ligand_receptor.py",
    )
    return batch
