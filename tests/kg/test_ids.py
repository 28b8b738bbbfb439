"""CURIE normalisation through bioregistry."""

from __future__ import annotations

import pytest

from kgrecall.kg import normalize_curie


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("taxonomy:9606", "NCBITaxon:9606"),
        ("NCBITaxon:9606", "NCBITaxon:9606"),
        ("UniProtKB:P04637", "uniprot:P04637"),
        ("uniprot:P04637", "uniprot:P04637"),
        ("go:0006915", "GO:0006915"),
        ("hp:0001300", "HP:0001300"),
        ("ncbigene:6622", "NCBIGene:6622"),
        ("omim:168601", "OMIM:168601"),
        ("MIM:168601", "OMIM:168601"),
        ("  GO:0006915 ", "GO:0006915"),
        ("notaprefix:123", "notaprefix:123"),
        ("SNCA", "SNCA"),
        ("GO:", "GO:"),
    ],
)
def test_normalize_curie(given: str, expected: str) -> None:
    assert normalize_curie(given) == expected
