"""Shared fixtures: a small hand-checked graph and an isolated KGRECALL_HOME."""

from __future__ import annotations

from pathlib import Path

import pytest

from kgrecall.kg import Edge, KGSchema, NetworkXStore, Node

DATA = Path(__file__).parent / "data"


def small_store() -> NetworkXStore:
    r"""A graph small enough to check by hand.

    genes G1..G3, diseases D1, D2, phenotypes P1 ⊂ P0, drug X::

        G1 -associated_with-> D1      G1 -has_phenotype-> P1     X -targets-> G1
        G2 -associated_with-> D1      G2 -interacts_with-> G1    X -treats-> D1
        G3 -associated_with-> D2      D1 -has_phenotype-> P1     P1 -subclass_of-> P0
        H (hub) -co_occurs_with-> every gene
    """
    store = NetworkXStore(KGSchema.biomedical())
    store.add_nodes(
        [
            Node("G1", "gene", "SNCA", synonyms=("alpha-synuclein", "PARK1")),
            Node("G2", "gene", "LRRK2"),
            Node("G3", "gene", "CFTR"),
            Node("D1", "disease", "Parkinson disease"),
            Node("D2", "disease", "Cystic fibrosis"),
            Node("P0", "phenotype", "Abnormality of movement"),
            Node("P1", "phenotype", "Parkinsonism"),
            Node("X", "drug", "Levodopa"),
            Node("H", "entity", "hub"),
        ]
    )
    store.add_edges(
        [
            Edge("G1", "associated_with", "D1", sources=("curated",)),
            Edge("G2", "associated_with", "D1", sources=("curated",), confidence=0.8),
            Edge("G3", "associated_with", "D2", sources=("curated",)),
            Edge("G1", "has_phenotype", "P1"),
            Edge("G2", "interacts_with", "G1"),
            Edge("D1", "has_phenotype", "P1"),
            Edge("P1", "subclass_of", "P0"),
            Edge("X", "targets", "G1"),
            Edge("X", "treats", "D1"),
            Edge("H", "co_occurs_with", "G1"),
            Edge("H", "co_occurs_with", "G2"),
            Edge("H", "co_occurs_with", "G3"),
        ]
    )
    return store


@pytest.fixture
def store() -> NetworkXStore:
    return small_store()


@pytest.fixture(autouse=True)
def isolated_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every test gets its own KGRECALL_HOME so nothing touches the user's cache."""
    home = tmp_path / "kgrecall-home"
    monkeypatch.setenv("KGRECALL_HOME", str(home))
    return home
