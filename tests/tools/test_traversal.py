"""Exact traversal equals a brute-force evaluator on random queries of all nine topologies."""

from __future__ import annotations

import random

import pytest
from pydantic import ValidationError

from kgrecall.kg import GraphStore, KGError, NetworkXStore, Triple, UnknownEntityError
from kgrecall.kg.loaders import build_store, load_pykeen_dataset
from kgrecall.tools.query import (
    SHAPES,
    TOPOLOGIES,
    EntityQuery,
    IntersectQuery,
    ProjectQuery,
    QueryNode,
    anchors,
    parse_query,
    projections,
    sample_query,
    topology,
)
from kgrecall.tools.traversal import execute_sets, traverse
from tests.conftest import small_store


@pytest.fixture(scope="module")
def umls() -> NetworkXStore:
    return build_store([load_pykeen_dataset("umls")], name="umls")


def brute_force(triples: list[Triple], node: QueryNode) -> set[str]:
    """An independent evaluator that only scans the list of triples."""
    if isinstance(node, EntityQuery):
        return {node.id}
    if isinstance(node, ProjectQuery):
        sources = brute_force(triples, node.input)
        if node.inverse:
            return {h for h, r, t in triples if r == node.relation and t in sources}
        return {t for h, r, t in triples if r == node.relation and h in sources}
    sets = [brute_force(triples, child) for child in node.inputs]
    if isinstance(node, IntersectQuery):
        return set.intersection(*sets)
    return set.union(*sets)


@pytest.mark.parametrize("name", TOPOLOGIES)
def test_traversal_equals_brute_force(umls: NetworkXStore, name: str) -> None:
    rng = random.Random(TOPOLOGIES.index(name))
    triples = list(umls.triples())
    entities = sorted(n.id for n in umls.nodes())
    for _ in range(25):
        target = rng.choice(entities)
        query = sample_query(umls, name, rng, target=target)
        assert topology(query) == name
        expected = brute_force(triples, query)
        assert target in expected
        answers, notes = execute_sets(umls, query)
        assert answers == expected and notes == []
        result = traverse(umls, query, max_paths=2)
        assert result.ids == expected
        assert result.topology == name
        for candidate in result.candidates:
            assert candidate.evidence, candidate.id
            for evidence in candidate.evidence:
                for triple in evidence.triples:
                    assert umls.get_edge(triple.head, triple.relation, triple.tail) is not None
                touched = {t.head for t in evidence.triples} | {t.tail for t in evidence.triples}
                assert candidate.id in touched
                assert set(anchors(query)) & touched


def test_evidence_paths_follow_the_chain(graph_store: GraphStore) -> None:
    query = parse_query(
        {
            "op": "project",
            "relation": "associated_with",
            "input": {
                "op": "project",
                "relation": "targets",
                "input": {"op": "entity", "id": "X"},
            },
        }
    )
    result = traverse(graph_store, query)
    [candidate] = result.candidates
    assert candidate.id == "D1" and candidate.tools == ["graph_traversal"]
    [evidence] = candidate.evidence
    assert [(t.head, t.relation, t.tail) for t in evidence.triples] == [
        ("X", "targets", "G1"),
        ("G1", "associated_with", "D1"),
    ]
    assert evidence.triples[1].sources == ["curated"]


def test_scores_are_the_best_paths_weakest_edge(graph_store: GraphStore) -> None:
    query = parse_query(
        {
            "op": "project",
            "relation": "associated_with",
            "inverse": True,
            "input": {"op": "entity", "id": "D1"},
        }
    )
    result = traverse(graph_store, query)
    assert [(c.id, c.score) for c in result.candidates] == [("G1", 1.0), ("G2", 0.8)]


def test_caps_are_parameters_and_reported(graph_store: GraphStore) -> None:
    query = parse_query(
        {"op": "project", "relation": "co_occurs_with", "input": {"op": "entity", "id": "H"}}
    )
    answers, notes = execute_sets(graph_store, query, max_intermediate=2)
    assert answers == {"G1", "G2"}
    assert notes == ["projection p(e) via co_occurs_with: 3 entities, kept the first 2 by id"]
    capped = traverse(graph_store, query, max_intermediate=2)
    assert capped.truncated and capped.ids == {"G1", "G2"}
    assert not traverse(graph_store, query).truncated


def test_bad_queries_are_named(graph_store: GraphStore) -> None:
    with pytest.raises(UnknownEntityError, match="closest matches: G1"):
        execute_sets(
            graph_store,
            parse_query(
                {"op": "project", "relation": "treats", "input": {"op": "entity", "id": "G1x"}}
            ),
        )
    with pytest.raises(KGError, match=r"unknown relation 'cures'; valid relations: .*treats"):
        execute_sets(
            graph_store,
            parse_query(
                {"op": "project", "relation": "cures", "input": {"op": "entity", "id": "X"}}
            ),
        )
    with pytest.raises(ValidationError, match=r"project\.input"):
        parse_query('{"op": "project", "relation": "treats", "input": {"op": "entiy", "id": "X"}}')
    with pytest.raises(ValidationError, match="inputs"):
        parse_query({"op": "intersect", "inputs": [{"op": "entity", "id": "X"}]})


def test_topology_names_and_hops() -> None:
    chain = parse_query(
        '{"op":"project","relation":"a","input":{"op":"project","relation":"b",'
        '"input":{"op":"entity","id":"x"}}}'
    )
    assert topology(chain) == "2p"
    assert [hop.relation for hop in projections(chain)] == ["b", "a"]
    odd = parse_query(
        {"op": "union", "inputs": [{"op": "entity", "id": "x"}, {"op": "entity", "id": "y"}]}
    )
    assert topology(odd) == "custom"
    assert set(SHAPES) == set(TOPOLOGIES)
    with pytest.raises(KGError, match="unknown topology '4p'"):
        sample_query(small_store(), "4p", random.Random(0))


def test_a_hop_keeps_only_the_node_types_it_names(graph_store: GraphStore) -> None:
    """``has_phenotype`` read backwards from parkinsonism reaches SNCA and Parkinson disease;
    a hop naming ``disease`` keeps the disease, in sets and in traversal alike."""
    hop = {"op": "project", "relation": "has_phenotype", "inverse": True}
    untyped = parse_query({**hop, "input": {"op": "entity", "id": "P1"}})
    assert execute_sets(graph_store, untyped)[0] == {"G1", "D1"}
    typed = parse_query({**hop, "types": ["disease"], "input": {"op": "entity", "id": "P1"}})
    assert execute_sets(graph_store, typed)[0] == {"D1"}
    assert traverse(graph_store, typed).ids == {"D1"}
    # an inner hop: drugs targeting what has parkinsonism (SNCA), none of them a disease
    drugs = {"op": "project", "relation": "targets", "inverse": True}
    for inner, expected in ((untyped, {"X"}), (typed, set())):
        chain = parse_query({**drugs, "input": inner.model_dump()})
        assert execute_sets(graph_store, chain)[0] == expected
    with pytest.raises(KGError, match=r"unknown node type 'illness'; valid node types: .*disease"):
        execute_sets(graph_store, parse_query({**hop, "types": ["illness"], "input": {
            "op": "entity", "id": "P1"}}))  # fmt: skip


def test_node_types_in_the_json_form() -> None:
    """Sorted and unique; left out of the JSON form when a hop names none; never empty."""
    hop = {"op": "project", "relation": "has_phenotype", "input": {"op": "entity", "id": "P1"}}
    typed = parse_query({**hop, "types": ["gene", "disease", "gene"]})
    assert isinstance(typed, ProjectQuery) and typed.types == ("disease", "gene")
    assert parse_query(typed.model_dump_json()) == typed
    assert '"types":["disease","gene"]' in typed.model_dump_json()
    assert "types" not in parse_query(hop).model_dump_json()
    assert "types" not in parse_query(hop).model_dump()
    with pytest.raises(ValidationError, match="types"):
        parse_query({**hop, "types": []})
