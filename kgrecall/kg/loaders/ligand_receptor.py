"""Ligand–receptor interactions (protein ``interacts_with`` protein).

The bundled table ``kgrecall/data/ligand_receptor.tsv.gz`` is derived from liana's
``omni_resource.csv`` (BSD-3-Clause) by ``scripts/derive_ligand_receptor.py`` with
:func:`derive_ligand_receptor_table`: human resources only, single proteins only (complexes
dropped and counted), the reporting resources merged per pair. The loader reads that
five-column format or liana's own ``omni_resource.csv``.
"""

from __future__ import annotations

import csv
import io
from collections import defaultdict
from collections.abc import Collection
from importlib.resources import files
from pathlib import Path

from kgrecall.kg.errors import KGLoadError
from kgrecall.kg.loaders.base import GraphBatch, SourceInfo, read_text_lines
from kgrecall.kg.model import BIOMEDICAL_RELATIONS, Edge, KGSchema, Node

COLUMNS = ("ligand_uniprot", "receptor_uniprot", "ligand_symbol", "receptor_symbol", "resources")
LIANA_COLUMNS = ("source", "target", "source_genesymbol", "target_genesymbol", "resource")
SOURCE = "liana:omnipath"
NON_HUMAN_RESOURCES = frozenset({"mouseconsensus"})


def derive_ligand_receptor_table(liana_csv: str) -> tuple[list[tuple[str, ...]], int]:
    """Rows in :data:`COLUMNS` order from liana's ``omni_resource.csv`` text, and the number
    of complex rows dropped. Sorted, so the derived file is reproducible."""
    resources: dict[tuple[str, str, str, str], set[str]] = defaultdict(set)
    dropped_complexes = 0
    for row in csv.DictReader(io.StringIO(liana_csv)):
        if row["resource"] in NON_HUMAN_RESOURCES:
            continue
        if "_" in row["source"] or "_" in row["target"]:
            dropped_complexes += 1
            continue
        key = (row["source"], row["target"], row["source_genesymbol"], row["target_genesymbol"])
        resources[key].add(row["resource"])
    table: list[tuple[str, ...]] = [
        (*key, ",".join(sorted(found))) for key, found in sorted(resources.items())
    ]
    return table, dropped_complexes


def bundled_ligand_receptor_path() -> Path:
    return Path(str(files("kgrecall") / "data" / "ligand_receptor.tsv.gz"))


def load_ligand_receptor(
    path: str | Path | None = None, *, symbols: Collection[str] | None = None
) -> GraphBatch:
    """Protein nodes (``uniprot:`` ids, named by gene symbol) and ligand→receptor edges.

    ``symbols`` keeps only pairs where the ligand or the receptor symbol is in the collection.
    """
    file_path = Path(path) if path is not None else bundled_ligand_receptor_path()
    lines = read_text_lines(file_path)
    liana_header = next(csv.reader([lines[0]])) if lines else []
    dropped = 0
    if set(LIANA_COLUMNS) <= set(liana_header):
        table, dropped = derive_ligand_receptor_table("\n".join(lines))
        lines = ["\t".join(COLUMNS), *("\t".join(row) for row in table)]
    elif not lines or tuple(lines[0].split("\t")) != COLUMNS:
        raise KGLoadError(
            file_path,
            f"expected the header {' '.join(COLUMNS)} or liana's omni_resource.csv columns",
            line=1,
        )
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
    if dropped:
        batch.skip("protein complex (not split into subunits)", dropped)
    batch.source = SourceInfo(
        name="ligand–receptor (liana / OmniPath)",
        version="liana 1.10.0 omni_resource.csv",
        licence="BSD-3-Clause (liana); underlying resources under their own licences",
        url="https://github.com/saezlab/liana-py",
        note="derived by scripts/derive_ligand_receptor.py",
    )
    return batch
