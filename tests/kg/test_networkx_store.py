"""The embedded store on a hand-checked graph: projection, neighbours, paths, BFS, lookup."""

from __future__ import annotations

import pytest

from kgrecall.kg import Edge, KGError, NetworkXStore, Node, UnknownEntityError


def test_projection_forward_and_inverse(store: NetworkXStore) -> None:
    assert store.project(["G1"], "associated_with") == {"D1"}
    assert store.project(["G1", "G2", "G3"], "associated_with") == {"D1", "D2"}
    assert store.project(["D1"], "associated_with", inverse=True) == {"G1", "G2"}
    assert store.project(["D1", "D2"], "associated_with", inverse=True) == {"G1", "G2", "G3"}
    assert store.project(["P1"], "has_phenotype", inverse=True) == {"G1", "D1"}
    # A known entity without edges of that relation projects to nothing.
    assert store.project(["P0"], "associated_with") == set()
    assert store.project([], "associated_with") == set()


def test_projection_rejects_unknown_relation_and_entity(store: NetworkXStore) -> None:
    with pytest.raises(
        KGError, match=r"unknown relation 'causes'.*valid relations: .*associated_with"
    ):
        store.project(["G1"], "causes")
    with pytest.raises(UnknownEntityError, match="G11") as caught:
        store.project(["G11"], "associated_with")
    assert "G1" in caught.value.suggestions


def test_duplicate_triple_merges_provenance(store: NetworkXStore) -> None:
    before = store.number_of_edges()
    added = store.add_edges(
        [
            Edge(
                "G2",
                "associated_with",
                "D1",
                sources=("gwas",),
                confidence=0.6,
                timestamp="2024-05-01",
            )
        ]
    )
    assert added == 0
    assert store.number_of_edges() == before
    edge = store.get_edge("G2", "associated_with", "D1")
    assert edge is not None
    assert edge.sources == ("curated", "gwas")
    assert edge.confidence == 0.8  # the higher confidence is kept
    assert edge.timestamp == "2024-05-01"


def test_several_relations_between_one_pair(store: NetworkXStore) -> None:
    store.add_edges([Edge("G2", "regulates", "G1")])
    relations = {e.relation for e in store.neighbors("G2", direction="out") if e.tail == "G1"}
    assert relations == {"interacts_with", "regulates"}


def test_edge_needs_known_nodes_and_valid_fields(store: NetworkXStore) -> None:
    with pytest.raises(KGError, match="unknown node 'NOPE'"):
        store.add_edges([Edge("G1", "associated_with", "NOPE")])
    with pytest.raises(KGError, match="field 'confidence'"):
        store.add_edges([Edge("G1", "associated_with", "D2", confidence=1.5)])
    with pytest.raises(KGError, match="field 'timestamp'"):
        store.add_edges([Edge("G1", "associated_with", "D2", timestamp="yesterday")])
    with pytest.raises(KGError, match=r"type 'gene'.*'disease'"):
        store.add_nodes([Node("G1", "disease", "SNCA")])


def test_neighbors_by_relation_and_direction(store: NetworkXStore) -> None:
    out = store.neighbors("G1")
    assert [(e.relation, e.tail) for e in out] == [
        ("associated_with", "D1"),
        ("has_phenotype", "P1"),
    ]
    incoming = store.neighbors("G1", direction="in")
    assert [(e.head, e.relation) for e in incoming] == [
        ("G2", "interacts_with"),
        ("H", "co_occurs_with"),
        ("X", "targets"),
    ]
    assert [e.head for e in store.neighbors("D1", "associated_with", direction="in")] == [
        "G1",
        "G2",
    ]
    assert len(store.neighbors("G1", direction="both")) == 5
    with pytest.raises(KGError, match="invalid direction"):
        store.neighbors("G1", direction="sideways")  # type: ignore[arg-type]


def test_shortest_paths(store: NetworkXStore) -> None:
    direct = store.shortest_paths("G1", "D1")
    assert [[e.triple for e in path] for path in direct] == [[("G1", "associated_with", "D1")]]
    # G3 to D1: G3 -H- G1 -> D1 and G3 -H- G2 -> D1 are the two 3-hop paths (undirected).
    paths = store.shortest_paths("G3", "D1")
    assert {tuple(e.triple for e in p) for p in paths} == {
        (
            ("H", "co_occurs_with", "G3"),
            ("H", "co_occurs_with", "G1"),
            ("G1", "associated_with", "D1"),
        ),
        (
            ("H", "co_occurs_with", "G3"),
            ("H", "co_occurs_with", "G2"),
            ("G2", "associated_with", "D1"),
        ),
    }
    assert store.shortest_paths("G3", "D1", max_depth=2) == []
    assert store.shortest_paths("G3", "D1", max_paths=1) == paths[:1]
    # Directed search cannot walk back from D1.
    assert store.shortest_paths("D1", "G1", directed=True) == []
    assert store.shortest_paths("G1", "G1") == [()]


def test_bfs_is_bounded_and_deterministic(store: NetworkXStore) -> None:
    result = store.bfs(["D1"], depth=1, max_nodes=100)
    assert result.nodes == ["D1", "G1", "G2", "P1", "X"]
    assert result.depth_of == {"D1": 0, "G1": 1, "G2": 1, "P1": 1, "X": 1}
    assert not result.truncated
    # Only edges between visited nodes are returned.
    assert {e.triple for e in result.edges} == {
        ("G1", "associated_with", "D1"),
        ("G2", "associated_with", "D1"),
        ("D1", "has_phenotype", "P1"),
        ("X", "treats", "D1"),
        ("G1", "has_phenotype", "P1"),
        ("G2", "interacts_with", "G1"),
        ("X", "targets", "G1"),
    }
    limited = store.bfs(["D1"], depth=3, max_nodes=3)
    assert limited.nodes == ["D1", "G1", "G2"]
    assert limited.truncated
    only = store.bfs(["D1"], depth=2, max_nodes=100, relations=["associated_with"])
    assert only.nodes == ["D1", "G1", "G2"]


def test_lookup_by_id_name_synonym_and_curie(store: NetworkXStore) -> None:
    assert [n.id for n in store.lookup("G1")] == ["G1"]
    assert [n.id for n in store.lookup("snca")] == ["G1"]
    assert [n.id for n in store.lookup("Alpha-Synuclein")] == ["G1"]
    assert store.lookup("nothing like it") == []
    store.add_nodes([Node("NCBITaxon:9606", "organism", "Homo sapiens")])
    assert [n.id for n in store.lookup("taxonomy:9606")] == ["NCBITaxon:9606"]


def test_stats_and_version_change_with_content(store: NetworkXStore) -> None:
    stats = store.stats()
    assert (stats.nodes, stats.edges) == (9, 12)
    assert stats.nodes_by_type["gene"] == 3
    assert stats.edges_by_relation == {
        "associated_with": 3,
        "co_occurs_with": 3,
        "has_phenotype": 2,
        "interacts_with": 1,
        "subclass_of": 1,
        "targets": 1,
        "treats": 1,
    }
    version = store.version
    store.add_edges([Edge("G3", "has_phenotype", "P0")])
    assert store.version != version


def test_version_is_independent_of_insertion_order(store: NetworkXStore) -> None:
    reordered = NetworkXStore(store.schema)
    reordered.add_nodes(reversed(list(store.nodes())))
    reordered.add_edges(reversed(list(store.edges())))
    assert reordered.version == store.version
