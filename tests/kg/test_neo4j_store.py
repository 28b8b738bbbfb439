"""Neo4jStore against a driver spec: the statements and parameters it sends, and its guards."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from typing import Any
from unittest.mock import MagicMock

import neo4j
import pytest

from kgrecall.errors import ServiceUnavailableError, http_status
from kgrecall.kg import Edge, KGError, KGSchema, Node, cypher
from kgrecall.kg.neo4j_store import Neo4jStore
from tests.conftest import NEO4J_REASON, small_store

Handler = Callable[[dict[str, Any]], list[dict[str, Any]]]


def fake_driver(handlers: dict[str, Handler]) -> MagicMock:
    """A ``neo4j.Driver`` spec whose ``execute_query`` answers known statements."""
    driver = MagicMock(spec=neo4j.Driver)

    def execute_query(statement: str, parameters_: dict[str, Any], database_: str | None) -> Any:
        handler = handlers.get(statement, lambda _: [])
        return MagicMock(records=handler(parameters_))

    driver.execute_query.side_effect = execute_query
    return driver


def statements(driver: MagicMock) -> list[str]:
    return [call.args[0] for call in driver.execute_query.call_args_list]


def test_new_database_needs_a_schema() -> None:
    driver = fake_driver({})
    with pytest.raises(KGError, match="holds no kgrecall KG schema"):
        Neo4jStore(driver)
    Neo4jStore(driver, schema=KGSchema.biomedical(), database="kg")
    call = driver.execute_query.call_args_list[-1]
    assert call.args[0] == cypher.WRITE_META
    assert call.kwargs["database_"] == "kg"
    assert "associated_with" in json.loads(call.kwargs["parameters_"]["schema_json"])["relations"]


def test_schema_is_read_back_from_the_database() -> None:
    meta = {
        "schema_json": json.dumps({"relations": {"isa": ""}, "node_types": ["umls_concept"]}),
        "metadata_json": json.dumps({"name": "umls"}),
    }
    store = Neo4jStore(fake_driver({cypher.READ_META: lambda _: [meta]}))
    assert set(store.schema.relations) == {"isa"}
    assert store.metadata.name == "umls"


def test_projection_sends_parameters_only() -> None:
    driver = fake_driver(
        {
            cypher.EXISTING_IDS: lambda p: [{"id": i} for i in p["ids"]],
            cypher.project("associated_with", KGSchema.biomedical().relations, inverse=True): (
                lambda p: [{"id": "G1"}, {"id": "G2"}]
            ),
        }
    )
    store = Neo4jStore(driver, schema=KGSchema.biomedical())
    assert store.project(["D1", "D1"], "associated_with", inverse=True) == {"G1", "G2"}
    call = driver.execute_query.call_args_list[-1]
    assert call.kwargs["parameters_"] == {"ids": ["D1"]}
    assert "D1" not in call.args[0]


def test_opening_a_kg_writes_nothing() -> None:
    """A served KG is opened to be read: the meta node is written only when the schema or
    metadata change (a read-only database user can serve it)."""
    meta = {
        "schema_json": json.dumps({"relations": {"isa": ""}, "node_types": ["umls_concept"]}),
        "metadata_json": json.dumps({"name": "umls"}),
    }
    driver = fake_driver({cypher.READ_META: lambda _: [meta]})
    Neo4jStore(driver)
    assert statements(driver) == [cypher.READ_META]
    Neo4jStore(driver, schema=KGSchema.from_relations(["part_of"]))
    assert statements(driver)[-1] == cypher.WRITE_META  # a new relation is recorded


def test_an_unreachable_server_is_a_service_error_not_a_crash() -> None:
    driver = MagicMock(spec=neo4j.Driver)
    driver.execute_query.side_effect = neo4j.exceptions.ServiceUnavailable("connection refused")
    with pytest.raises(ServiceUnavailableError, match="Neo4j server cannot serve: connection"):
        Neo4jStore(driver)
    assert http_status(ServiceUnavailableError("x")) == 503


def test_a_query_hop_is_one_round_trip() -> None:
    """``hop_edges`` sends the hop's entities as one parameter and groups the edges by
    entity in the order asked, each group sorted as ``neighbors`` sorts it."""
    schema = KGSchema.biomedical()
    hop = cypher.hop_edges("associated_with", schema.relations, inverse=True)
    rows = [
        {"h": "G2", "t": "D1", "edge": {"sources": ["x"], "confidence": 1.0}},
        {"h": "G1", "t": "D2", "edge": {"sources": ["x"], "confidence": 0.5}},
        {"h": "G1", "t": "D1", "edge": {"sources": ["x"], "confidence": 1.0}},
    ]
    driver = fake_driver(
        {cypher.EXISTING_IDS: lambda p: [{"id": i} for i in p["ids"]], hop: lambda _: rows}
    )
    store = Neo4jStore(driver, schema=schema)
    edges = store.hop_edges(["D2", "D1"], "associated_with", inverse=True)
    assert [e.triple for e in edges] == [
        ("G1", "associated_with", "D2"),
        ("G1", "associated_with", "D1"),
        ("G2", "associated_with", "D1"),
    ]
    assert edges[0].confidence == 0.5
    sent = [c for c in driver.execute_query.call_args_list if c.args[0] == hop]
    assert len(sent) == 1 and sent[0].kwargs["parameters_"] == {"ids": ["D2", "D1"]}


def test_injection_is_refused_before_anything_is_sent() -> None:
    driver = fake_driver({})
    store = Neo4jStore(driver, schema=KGSchema.biomedical())
    before = len(driver.execute_query.call_args_list)
    with pytest.raises(
        KGError, match="unknown relation 'associated_with\\]->\\(\\) DETACH DELETE n //'"
    ):
        store.project(["D1"], "associated_with]->() DETACH DELETE n //")
    with pytest.raises(KGError, match="field 'relation'"):
        store.add_edges([Edge("A", "x]->() DETACH DELETE n //", "B")])
    assert len(driver.execute_query.call_args_list) == before
    assert not any("DETACH DELETE n //" in s for s in statements(driver))


def test_edges_need_existing_nodes() -> None:
    driver = fake_driver({cypher.EXISTING_IDS: lambda p: [{"id": "G1"}]})
    store = Neo4jStore(driver, schema=KGSchema.biomedical())
    with pytest.raises(KGError, match="refers to unknown node 'D9'"):
        store.add_edges([Edge("G1", "associated_with", "D9")])
    assert not any(s.startswith("UNWIND $rows AS row MATCH (h:Entity") for s in statements(driver))


def test_duplicate_edges_merge_provenance_like_the_embedded_store() -> None:
    relations = KGSchema.biomedical().relations
    existing = {
        "sources": ["curated"],
        "confidence": 0.8,
        "timestamp": None,
        "properties_json": "{}",
    }
    driver = fake_driver(
        {
            cypher.EXISTING_IDS: lambda p: [{"id": i} for i in p["ids"]],
            cypher.fetch_edges("associated_with", relations): (
                lambda p: [{"h": "G1", "t": "D1", "edge": existing}]
            ),
        }
    )
    store = Neo4jStore(driver, schema=KGSchema.biomedical())
    added = store.add_edges(
        [
            Edge("G1", "associated_with", "D1", sources=("gwas",), confidence=0.9),
            Edge("G2", "associated_with", "D1", sources=("gwas",)),
        ]
    )
    assert added == 1
    upsert = next(
        c
        for c in driver.execute_query.call_args_list
        if c.args[0] == cypher.upsert_edges("associated_with", relations)
    )
    rows = {(r["h"], r["t"]): r for r in upsert.kwargs["parameters_"]["rows"]}
    assert rows[("G1", "D1")]["sources"] == ["curated", "gwas"]
    assert rows[("G1", "D1")]["confidence"] == 0.9
    assert rows[("G2", "D1")]["sources"] == ["gwas"]


def test_nodes_merge_and_get_type_labels() -> None:
    stored = {
        "id": "G1", "type": "gene", "name": "SNCA", "synonyms": ["PARK1"], "sources": ["hpo3"],
        "properties_json": "{}",
    }  # fmt: skip
    driver = fake_driver(
        {cypher.FETCH_NODES: lambda p: [{"node": stored}] if "G1" in p["ids"] else []}
    )
    store = Neo4jStore(driver, schema=KGSchema.biomedical())
    assert (
        store.add_nodes(
            [Node("G1", "gene", "SNCA", synonyms=("alpha-synuclein",)), Node("G2", "gene", "LRRK2")]
        )
        == 1
    )
    upsert = next(
        c for c in driver.execute_query.call_args_list if c.args[0] == cypher.UPSERT_NODES
    )
    rows = {r["id"]: r for r in upsert.kwargs["parameters_"]["rows"]}
    assert rows["G1"]["synonyms"] == ["PARK1", "alpha-synuclein"]
    assert rows["G1"]["search_text"] == "G1 SNCA PARK1 alpha-synuclein"
    assert cypher.add_type_label("gene", KGSchema.biomedical().node_types) in statements(driver)


GENE = {"id": "G1", "type": "gene", "name": "SNCA", "synonyms": ["PARK1"]}


@pytest.mark.parametrize(
    ("server", "expected"),
    [("2026.01.0", cypher.VECTOR_SEARCH_CLAUSE), ("5.26.3", cypher.VECTOR_SEARCH_PROCEDURE)],
)
def test_vector_search_uses_the_search_clause_when_the_server_has_it(
    server: str, expected: str
) -> None:
    driver = fake_driver(
        {
            cypher.SERVER_VERSION: lambda _: [{"version": server}],
            expected: lambda p: [{"node": GENE, "score": 0.93}],
        }
    )
    store = Neo4jStore(driver, schema=KGSchema.biomedical())
    [(node, score)] = store.vector_search([0.1, 0.2], k=3)
    assert (node.id, node.name, node.synonyms, score) == ("G1", "SNCA", ("PARK1",), 0.93)
    call = driver.execute_query.call_args_list[-1]
    assert call.args[0] == expected
    assert call.kwargs["parameters_"] == {"vector": [0.1, 0.2], "fetch": 3, "types": None, "k": 3}


def test_fulltext_search_escapes_lucene_syntax_and_filters_types_in_the_database() -> None:
    driver = fake_driver({cypher.FULLTEXT_SEARCH: lambda p: [{"node": GENE, "score": 3.2}]})
    store = Neo4jStore(driver, schema=KGSchema.biomedical())
    assert [(n.id, s) for n, s in store.fulltext_search("GO:0006915")] == [("G1", 3.2)]
    assert driver.execute_query.call_args_list[-1].kwargs["parameters_"] == {
        "query": "GO\\:0006915",
        "fetch": 10,
        "types": None,
        "k": 10,
    }
    store.fulltext_search("synuclein", k=5, node_types={"protein", "gene"})
    assert driver.execute_query.call_args_list[-1].kwargs["parameters_"] == {
        "query": "synuclein",
        "fetch": 50,  # filtered after the index: fetched deeper
        "types": ["gene", "protein"],
        "k": 5,
    }
    assert store.fulltext_search("  ") == []
    with pytest.raises(KGError, match="k must be at least 1"):
        store.fulltext_search("SNCA", k=0)


def test_stored_embeddings_are_read_in_one_round_trip_per_batch() -> None:
    stored = {"G1": [0.5, 0.25], "G2": [0.0, 1.0]}
    driver = fake_driver(
        {
            cypher.GET_EMBEDDINGS: lambda p: [
                {"id": i, "embedding": stored[i]} for i in p["ids"] if i in stored
            ]
        }
    )
    store = Neo4jStore(driver, schema=KGSchema.biomedical())
    assert store.embeddings(["G2", "G9", "G2", "G1"]) == {"G2": [0.0, 1.0], "G1": [0.5, 0.25]}
    [call] = [c for c in driver.execute_query.call_args_list if c.args[0] == cypher.GET_EMBEDDINGS]
    assert call.kwargs["parameters_"] == {"ids": ["G2", "G9", "G1"]}  # each id once


@pytest.mark.neo4j
@pytest.mark.skipif(not os.environ.get("NEO4J_URI"), reason=NEO4J_REASON)
def test_live_embeddings_come_back_as_they_were_stored() -> None:
    source = small_store()
    auth = (os.environ.get("NEO4J_USER", "neo4j"), os.environ["NEO4J_PASSWORD"])
    with neo4j.GraphDatabase.driver(os.environ["NEO4J_URI"], auth=auth) as driver:
        live = Neo4jStore(driver, schema=source.schema, database=os.environ.get("NEO4J_DATABASE"))
        live.clear()
        try:
            live.ensure_indexes()
            live.add_nodes(source.nodes())
            first, second = sorted(node.id for node in source.nodes())[:2]
            vector = [float(i % 7) / 7 for i in range(384)]
            live.set_embeddings({first: vector})
            stored = live.embeddings([second, first, "nowhere:1"])
            assert list(stored) == [first] and stored[first] == pytest.approx(vector)
        finally:
            live.clear()


def test_whether_the_vector_index_exists_is_asked_of_the_server() -> None:
    for count, expected in ((1, True), (0, False)):
        driver = fake_driver({cypher.HAS_VECTOR_INDEX: lambda _, c=count: [{"count": c}]})
        assert Neo4jStore(driver, schema=KGSchema.biomedical()).has_vector_index() is expected


def test_a_grounding_path_is_one_round_trip() -> None:
    hop = {"h": "G1", "r": "associated_with", "t": "D1", "edge": {"sources": ["test"]}}
    statement = cypher.hub_free_path(4)
    driver = fake_driver({statement: lambda p: [{"hops": [hop]}] if "D1" in p["targets"] else []})
    store = Neo4jStore(driver, schema=KGSchema.biomedical())
    [edge] = (
        store.hub_free_path(
            ["G1", "P1"], ["D1"], max_depth=4, hub_degree=200, excluded_source="auto_learned"
        )
        or ()
    )
    assert (edge.head, edge.relation, edge.tail, edge.sources) == (
        "G1", "associated_with", "D1", ("test",)
    )  # fmt: skip
    call = driver.execute_query.call_args_list[-1]
    assert call.args[0] == statement and call.kwargs["parameters_"] == {
        "sources": ["G1", "P1"],
        "targets": ["D1"],
        "hub_degree": 200,
        "excluded": "auto_learned",
    }
    assert (
        store.hub_free_path(
            ["G1"], ["D2"], max_depth=4, hub_degree=None, excluded_source="auto_learned"
        )
        is None
    )
