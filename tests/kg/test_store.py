"""Every GraphStore backend on a hand-checked graph: projection, neighbours, paths, BFS, lookup.

The embedded store always runs; the Neo4j store runs when NEO4J_URI is set (see conftest).
"""

from __future__ import annotations

import pytest

from kgrecall.kg import Edge, GraphStore, KGError, NetworkXStore, Node, UnknownEntityError


def test_projection_forward_and_inverse(graph_store: GraphStore) -> None:
    assert graph_store.project(["G1"], "associated_with") == {"D1"}
    assert graph_store.project(["G1", "G2", "G3"], "associated_with") == {"D1", "D2"}
    assert graph_store.project(["D1"], "associated_with", inverse=True) == {"G1", "G2"}
    assert graph_store.project(["D1", "D2"], "associated_with", inverse=True) == {"G1", "G2", "G3"}
    assert graph_store.project(["P1"], "has_phenotype", inverse=True) == {"G1", "D1"}
    # A known entity without edges of that relation projects to nothing.
    assert graph_store.project(["P0"], "associated_with") == set()
    assert graph_store.project([], "associated_with") == set()


def test_projection_rejects_unknown_relation_and_entity(graph_store: GraphStore) -> None:
    with pytest.raises(
        KGError, match=r"unknown relation 'causes'.*valid relations: .*associated_with"
    ):
        graph_store.project(["G1"], "causes")
    with pytest.raises(UnknownEntityError, match="G11") as caught:
        graph_store.project(["G11"], "associated_with")
    assert "G1" in caught.value.suggestions


def test_duplicate_triple_merges_provenance(graph_store: GraphStore) -> None:
    before = graph_store.number_of_edges()
    added = graph_store.add_edges(
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
    assert graph_store.number_of_edges() == before
    edge = graph_store.get_edge("G2", "associated_with", "D1")
    assert edge is not None
    assert edge.sources == ("curated", "gwas")
    assert edge.confidence == 0.8  # the higher confidence is kept
    assert edge.timestamp == "2024-05-01"


def test_several_relations_between_one_pair(graph_store: GraphStore) -> None:
    graph_store.add_edges([Edge("G2", "regulates", "G1")])
    relations = {e.relation for e in graph_store.neighbors("G2", direction="out") if e.tail == "G1"}
    assert relations == {"interacts_with", "regulates"}


def test_edge_needs_known_nodes_and_valid_fields(graph_store: GraphStore) -> None:
    with pytest.raises(KGError, match="unknown node 'NOPE'"):
        graph_store.add_edges([Edge("G1", "associated_with", "NOPE")])
    with pytest.raises(KGError, match="field 'confidence'"):
        graph_store.add_edges([Edge("G1", "associated_with", "D2", confidence=1.5)])
    with pytest.raises(KGError, match="field 'timestamp'"):
        graph_store.add_edges([Edge("G1", "associated_with", "D2", timestamp="yesterday")])
    with pytest.raises(KGError, match=r"type 'gene'.*'disease'"):
        graph_store.add_nodes([Node("G1", "disease", "SNCA")])


def test_neighbors_by_relation_and_direction(graph_store: GraphStore) -> None:
    out = graph_store.neighbors("G1")
    assert [(e.relation, e.tail) for e in out] == [
        ("associated_with", "D1"),
        ("has_phenotype", "P1"),
    ]
    incoming = graph_store.neighbors("G1", direction="in")
    assert [(e.head, e.relation) for e in incoming] == [
        ("G2", "interacts_with"),
        ("H", "co_occurs_with"),
        ("X", "targets"),
    ]
    assert [e.head for e in graph_store.neighbors("D1", "associated_with", direction="in")] == [
        "G1",
        "G2",
    ]
    assert len(graph_store.neighbors("G1", direction="both")) == 5
    with pytest.raises(KGError, match="invalid direction"):
        graph_store.neighbors("G1", direction="sideways")  # type: ignore[arg-type]


def test_shortest_paths(graph_store: GraphStore) -> None:
    direct = graph_store.shortest_paths("G1", "D1")
    assert [[e.triple for e in path] for path in direct] == [[("G1", "associated_with", "D1")]]
    # G3 to D1: G3 -H- G1 -> D1 and G3 -H- G2 -> D1 are the two 3-hop paths (undirected).
    paths = graph_store.shortest_paths("G3", "D1")
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
    assert graph_store.shortest_paths("G3", "D1", max_depth=2) == []
    assert graph_store.shortest_paths("G3", "D1", max_paths=1) == paths[:1]
    # Directed search cannot walk back from D1.
    assert graph_store.shortest_paths("D1", "G1", directed=True) == []
    assert graph_store.shortest_paths("G1", "G1") == [()]


def test_bfs_is_bounded_and_deterministic(graph_store: GraphStore) -> None:
    result = graph_store.bfs(["D1"], depth=1, max_nodes=100)
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
    limited = graph_store.bfs(["D1"], depth=3, max_nodes=3)
    assert limited.nodes == ["D1", "G1", "G2"]
    assert limited.truncated
    only = graph_store.bfs(["D1"], depth=2, max_nodes=100, relations=["associated_with"])
    assert only.nodes == ["D1", "G1", "G2"]


def test_lookup_by_id_name_synonym_and_curie(graph_store: GraphStore) -> None:
    assert [n.id for n in graph_store.lookup("G1")] == ["G1"]
    assert [n.id for n in graph_store.lookup("snca")] == ["G1"]
    assert [n.id for n in graph_store.lookup("Alpha-Synuclein")] == ["G1"]
    assert graph_store.lookup("nothing like it") == []
    graph_store.add_nodes([Node("NCBITaxon:9606", "organism", "Homo sapiens")])
    assert [n.id for n in graph_store.lookup("taxonomy:9606")] == ["NCBITaxon:9606"]


def test_stats_and_version_change_with_content(graph_store: GraphStore) -> None:
    stats = graph_store.stats()
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
    version = graph_store.version
    graph_store.add_edges([Edge("G3", "has_phenotype", "P0")])
    assert graph_store.version != version


def test_version_is_independent_of_insertion_order(graph_store: GraphStore) -> None:
    reordered = NetworkXStore(graph_store.schema)
    reordered.add_nodes(reversed(list(graph_store.nodes())))
    reordered.add_edges(reversed(list(graph_store.edges())))
    assert reordered.version == graph_store.version


def test_a_hop_at_once_equals_neighbors_one_by_one(graph_store: GraphStore) -> None:
    """``hop_edges`` (one round trip on a server) returns what ``neighbors`` returns entity
    by entity, in the order asked."""
    entities = sorted(node.id for node in graph_store.nodes())
    for relation in sorted({edge.relation for edge in graph_store.edges()}):
        for inverse in (False, True):
            direction = "in" if inverse else "out"
            for order in (entities, entities[::-1]):
                expected = [e for n in order for e in graph_store.neighbors(n, relation, direction)]
                assert graph_store.hop_edges(order, relation, inverse=inverse) == expected
    assert graph_store.hop_edges([], "associated_with") == []
