"""Golden strings for every Cypher statement, and the splicing guards."""

from __future__ import annotations

import pytest

from kgrecall.kg import KGError, KGSchema, cypher

DECLARED = KGSchema.biomedical().relations
TYPES = KGSchema.biomedical().node_types


def test_golden_static_statements() -> None:
    assert cypher.CREATE_ID_CONSTRAINT == (
        "CREATE CONSTRAINT entity_id IF NOT EXISTS FOR (n:Entity) REQUIRE n.id IS UNIQUE"
    )
    assert cypher.CREATE_FULLTEXT_INDEX == (
        "CREATE FULLTEXT INDEX entity_search_text IF NOT EXISTS FOR (n:Entity) ON EACH [n.search_text]"
    )
    assert cypher.READ_META == (
        "MATCH (m:KGMeta) RETURN m.schema_json AS schema_json, m.metadata_json AS metadata_json"
    )
    assert cypher.WRITE_META == (
        "MERGE (m:KGMeta {singleton: true}) SET m.schema_json = $schema_json, m.metadata_json = $metadata_json"
    )
    assert cypher.CLEAR == "MATCH (n) WHERE n:Entity OR n:KGMeta DETACH DELETE n"
    assert cypher.FETCH_NODES == "MATCH (n:Entity) WHERE n.id IN $ids RETURN n AS node"
    assert cypher.UPSERT_NODES == (
        "UNWIND $rows AS row MERGE (n:Entity {id: row.id}) SET n.type = row.type, n.name = row.name, "
        "n.synonyms = row.synonyms, n.sources = row.sources, n.properties_json = row.properties_json, "
        "n.search_text = row.search_text"
    )
    assert cypher.GET_EMBEDDINGS == (
        "UNWIND $ids AS id MATCH (n:Entity {id: id}) WHERE n.embedding IS NOT NULL "
        "RETURN n.id AS id, n.embedding AS embedding"
    )
    assert cypher.SET_EMBEDDINGS == (
        "UNWIND $rows AS row MATCH (n:Entity {id: row.id}) "
        "CALL db.create.setNodeVectorProperty(n, 'embedding', row.vector)"
    )
    assert cypher.GET_NODE == "MATCH (n:Entity {id: $id}) RETURN n AS node"
    assert cypher.EXISTING_IDS == "MATCH (n:Entity) WHERE n.id IN $ids RETURN n.id AS id"
    assert cypher.COUNT_NODES == "MATCH (n:Entity) RETURN count(n) AS count"
    assert cypher.COUNT_EDGES == "MATCH (:Entity)-[e]->(:Entity) RETURN count(e) AS count"
    assert cypher.PAGE_NODES == (
        "MATCH (n:Entity) WHERE n.id > $after RETURN n AS node ORDER BY n.id LIMIT $limit"
    )
    assert cypher.PAGE_EDGES == (
        "MATCH (h:Entity) WHERE h.id > $after WITH h ORDER BY h.id LIMIT $limit "
        "OPTIONAL MATCH (h)-[e]->(t:Entity) RETURN h.id AS h, type(e) AS r, t.id AS t, e AS edge"
    )
    assert cypher.LOOKUP == (
        "MATCH (n:Entity) WHERE n.id IN $ids OR toLower(n.name) = $text "
        "OR any(s IN n.synonyms WHERE toLower(s) = $text) RETURN n AS node"
    )
    assert cypher.NEIGHBOURS == {
        "out": "MATCH (n:Entity {id: $id})-[e]->(m:Entity) WHERE $relation IS NULL OR type(e) = $relation "
        "RETURN n.id AS h, type(e) AS r, m.id AS t, e AS edge",
        "in": "MATCH (n:Entity {id: $id})<-[e]-(m:Entity) WHERE $relation IS NULL OR type(e) = $relation "
        "RETURN m.id AS h, type(e) AS r, n.id AS t, e AS edge",
    }
    assert cypher.FRONTIER_EDGES == (
        "MATCH (n:Entity)-[e]-(m:Entity) WHERE n.id IN $ids AND ($relations IS NULL OR type(e) IN $relations) "
        "RETURN startNode(e).id AS h, type(e) AS r, endNode(e).id AS t, e AS edge"
    )
    assert cypher.FULLTEXT_SEARCH == (
        "CALL db.index.fulltext.queryNodes('entity_search_text', $query, {limit: $fetch}) "
        "YIELD node, score WHERE $types IS NULL OR node.type IN $types RETURN node, score LIMIT $k"
    )
    assert cypher.VECTOR_SEARCH_PROCEDURE == (
        "CALL db.index.vector.queryNodes('entity_embedding', $fetch, $vector) "
        "YIELD node, score WHERE $types IS NULL OR node.type IN $types RETURN node, score LIMIT $k"
    )
    assert cypher.VECTOR_SEARCH_CLAUSE == (
        "CYPHER 25 MATCH (n:Entity) SEARCH n IN (VECTOR INDEX entity_embedding FOR $vector "
        "LIMIT $fetch) SCORE AS score WITH n, score WHERE $types IS NULL OR n.type IN $types "
        "RETURN n AS node, score LIMIT $k"
    )
    assert cypher.HAS_VECTOR_INDEX == (
        "SHOW INDEXES YIELD name, type WHERE name = 'entity_embedding' AND type = 'VECTOR' "
        "RETURN count(*) AS count"
    )
    assert cypher.SERVER_VERSION == (
        "CALL dbms.components() YIELD name, versions WHERE name = 'Neo4j Kernel' "
        "RETURN versions[0] AS version"
    )


def test_golden_spliced_statements() -> None:
    assert cypher.hub_free_path(4) == (
        "MATCH (a:Entity) WHERE a.id IN $sources "
        "MATCH (b:Entity) WHERE b.id IN $targets AND b <> a "
        "MATCH p = shortestPath((a)-[*..4]-(b)) "
        "WHERE none(e IN relationships(p) WHERE $excluded IN coalesce(e.sources, [])) "
        "AND ($hub_degree IS NULL OR all(n IN nodes(p)[1..-1] WHERE "
        "COUNT { (n)-[x]-() WHERE NOT $excluded IN coalesce(x.sources, []) } < $hub_degree)) "
        "RETURN [e IN relationships(p) | {h: startNode(e).id, r: type(e), t: endNode(e).id, "
        "edge: e}] AS hops ORDER BY size(hops) LIMIT 1"
    )
    assert cypher.create_vector_index(384) == (
        "CREATE VECTOR INDEX entity_embedding IF NOT EXISTS FOR (n:Entity) ON n.embedding "
        "OPTIONS {indexConfig: {`vector.dimensions`: 384, `vector.similarity_function`: 'cosine'}}"
    )
    assert cypher.add_type_label("gene", TYPES) == (
        "UNWIND $ids AS id MATCH (n:Entity {id: id}) SET n:`gene`"
    )
    assert cypher.fetch_edges("associated_with", DECLARED) == (
        "UNWIND $pairs AS pair MATCH (h:Entity {id: pair.h})-[e:`associated_with`]->(t:Entity {id: pair.t}) "
        "RETURN h.id AS h, t.id AS t, e AS edge"
    )
    assert cypher.upsert_edges("treats", DECLARED) == (
        "UNWIND $rows AS row MATCH (h:Entity {id: row.h}), (t:Entity {id: row.t}) "
        "MERGE (h)-[e:`treats`]->(t) SET e.sources = row.sources, e.confidence = row.confidence, "
        "e.timestamp = row.timestamp, e.properties_json = row.properties_json RETURN count(e) AS written"
    )
    assert cypher.get_edge("targets", DECLARED) == (
        "MATCH (h:Entity {id: $h})-[e:`targets`]->(t:Entity {id: $t}) RETURN e AS edge"
    )
    assert cypher.project("associated_with", DECLARED, inverse=False) == (
        "MATCH (n:Entity)-[:`associated_with`]->(m:Entity) WHERE n.id IN $ids RETURN DISTINCT m.id AS id"
    )
    assert cypher.project("associated_with", DECLARED, inverse=True) == (
        "MATCH (n:Entity)<-[:`associated_with`]-(m:Entity) WHERE n.id IN $ids RETURN DISTINCT m.id AS id"
    )
    assert cypher.hop_edges("associated_with", DECLARED, inverse=False) == (
        "MATCH (n:Entity)-[e:`associated_with`]->(m:Entity) WHERE n.id IN $ids "
        "RETURN n.id AS h, m.id AS t, e AS edge"
    )
    assert cypher.hop_edges("associated_with", DECLARED, inverse=True) == (
        "MATCH (n:Entity)<-[e:`associated_with`]-(m:Entity) WHERE n.id IN $ids "
        "RETURN m.id AS h, n.id AS t, e AS edge"
    )
    assert cypher.shortest_paths(3, directed=False) == (
        "MATCH (a:Entity {id: $source}), (b:Entity {id: $target}) "
        "MATCH p = allShortestPaths((a)-[*..3]-(b)) "
        "RETURN [e IN relationships(p) | {h: startNode(e).id, r: type(e), t: endNode(e).id, edge: e}] AS hops "
        "LIMIT $max_paths"
    )
    assert "-[*..2]->(b)" in cypher.shortest_paths(2, directed=True)


@pytest.mark.parametrize(
    "attack",
    [
        "associated_with]->() DETACH DELETE n //",
        "associated_with`]->() DETACH DELETE n //",
        "treats|targets",
        "",
    ],
)
def test_injection_through_relation_names_is_refused(attack: str) -> None:
    with pytest.raises(KGError, match="unknown relation"):
        cypher.project(attack, DECLARED, inverse=False)
    with pytest.raises(KGError, match="unknown relation"):
        cypher.hop_edges(attack, DECLARED, inverse=True)
    with pytest.raises(KGError, match="unknown relation"):
        cypher.upsert_edges(attack, DECLARED)
    # Even a declared name must be an identifier before it is spliced.
    with pytest.raises(KGError, match="not an identifier"):
        cypher.quote_relation(attack or "x y", {attack or "x y"})


def test_labels_and_integers_are_checked() -> None:
    with pytest.raises(KGError, match="unknown node type"):
        cypher.add_type_label("gene` SET n.admin = true //", TYPES)
    with pytest.raises(KGError, match="positive integer"):
        cypher.create_vector_index("384) DROP")  # type: ignore[arg-type]
    with pytest.raises(KGError, match="positive integer"):
        cypher.shortest_paths(0, directed=False)
    with pytest.raises(KGError, match="positive integer"):
        cypher.hub_free_path("4]-(b) DETACH DELETE b //")  # type: ignore[arg-type]


def test_lucene_escaping() -> None:
    assert cypher.escape_lucene("GO:0006915") == "GO\\:0006915"
    assert cypher.escape_lucene('a+b (c) "d" *') == 'a\\+b \\(c\\) \\"d\\" \\*'
