"""Every Cypher statement kgrecall sends to Neo4j, in one place.

Values are always query parameters. Relationship types and labels cannot be parameters in
Cypher, so the few statements that need one take it through :func:`quote_relation` /
:func:`quote_label`, which accept only names declared in the KG schema and spelled as
identifiers, and backtick-quote them. ``tests/kg/test_cypher.py`` holds the golden strings.

Graph model: every entity is an ``:Entity`` node (``id`` unique) with properties ``type``,
``name``, ``synonyms`` (list), ``sources`` (list), ``properties_json`` (JSON text),
``search_text`` (id, name and synonyms, for the fulltext index) and optionally ``embedding``;
every edge is a relationship whose type is the relation, with ``sources``, ``confidence``,
``timestamp`` and ``properties_json``. The schema and metadata live on one ``:KGMeta`` node.
"""

from __future__ import annotations

from collections.abc import Collection

from kgrecall.kg.errors import KGError
from kgrecall.kg.model import IDENTIFIER

ENTITY = "Entity"
FULLTEXT_INDEX = "entity_search_text"
VECTOR_INDEX = "entity_embedding"


def quote_relation(relation: str, declared: Collection[str]) -> str:
    """A declared relation type, backtick-quoted for splicing; anything else is refused."""
    if relation not in declared:
        raise KGError(
            f"unknown relation {relation!r}; valid relations: {', '.join(sorted(declared))}"
        )
    if not IDENTIFIER.match(relation):
        raise KGError(f"relation {relation!r} is not an identifier and cannot enter Cypher")
    return f"`{relation}`"


def quote_label(label: str, declared: Collection[str]) -> str:
    """A declared node type as a backtick-quoted label; anything else is refused."""
    if label not in declared or not IDENTIFIER.match(label):
        raise KGError(f"unknown node type {label!r}; valid: {', '.join(sorted(declared))}")
    return f"`{label}`"


# -- schema ----------------------------------------------------------------------------------
CREATE_ID_CONSTRAINT = (
    "CREATE CONSTRAINT entity_id IF NOT EXISTS FOR (n:Entity) REQUIRE n.id IS UNIQUE"
)
CREATE_FULLTEXT_INDEX = (
    "CREATE FULLTEXT INDEX entity_search_text IF NOT EXISTS FOR (n:Entity) ON EACH [n.search_text]"
)


def create_vector_index(dimensions: int) -> str:
    """The vector index; dimensions are an integer option, checked before formatting."""
    if not isinstance(dimensions, int) or isinstance(dimensions, bool) or dimensions < 1:
        raise KGError(f"vector dimensions must be a positive integer, got {dimensions!r}")
    return (
        "CREATE VECTOR INDEX entity_embedding IF NOT EXISTS FOR (n:Entity) ON n.embedding "
        f"OPTIONS {{indexConfig: {{`vector.dimensions`: {dimensions}, "
        "`vector.similarity_function`: 'cosine'}}"
    )


READ_META = "MATCH (m:KGMeta) RETURN m.schema_json AS schema_json, m.metadata_json AS metadata_json"
WRITE_META = (
    "MERGE (m:KGMeta {singleton: true}) "
    "SET m.schema_json = $schema_json, m.metadata_json = $metadata_json"
)

#: Removes kgrecall's nodes and relationships (and nothing else) from the database.
CLEAR = "MATCH (n) WHERE n:Entity OR n:KGMeta DETACH DELETE n"

# -- writes ----------------------------------------------------------------------------------
FETCH_NODES = "MATCH (n:Entity) WHERE n.id IN $ids RETURN n AS node"
UPSERT_NODES = (
    "UNWIND $rows AS row "
    "MERGE (n:Entity {id: row.id}) "
    "SET n.type = row.type, n.name = row.name, n.synonyms = row.synonyms, "
    "n.sources = row.sources, n.properties_json = row.properties_json, "
    "n.search_text = row.search_text"
)


def add_type_label(node_type: str, declared: Collection[str]) -> str:
    """Adds the node type as a second label (for label-filtered browsing in Neo4j tools)."""
    return f"UNWIND $ids AS id MATCH (n:Entity {{id: id}}) SET n:{quote_label(node_type, declared)}"


def fetch_edges(relation: str, declared: Collection[str]) -> str:
    return (
        "UNWIND $pairs AS pair "
        f"MATCH (h:Entity {{id: pair.h}})-[e:{quote_relation(relation, declared)}]->"
        "(t:Entity {id: pair.t}) RETURN h.id AS h, t.id AS t, e AS edge"
    )


def upsert_edges(relation: str, declared: Collection[str]) -> str:
    return (
        "UNWIND $rows AS row "
        "MATCH (h:Entity {id: row.h}), (t:Entity {id: row.t}) "
        f"MERGE (h)-[e:{quote_relation(relation, declared)}]->(t) "
        "SET e.sources = row.sources, e.confidence = row.confidence, "
        "e.timestamp = row.timestamp, e.properties_json = row.properties_json "
        "RETURN count(e) AS written"
    )


SET_EMBEDDINGS = (
    "UNWIND $rows AS row MATCH (n:Entity {id: row.id}) "
    "CALL db.create.setNodeVectorProperty(n, 'embedding', row.vector)"
)

# -- reads -----------------------------------------------------------------------------------
GET_NODE = "MATCH (n:Entity {id: $id}) RETURN n AS node"
#: The stored embeddings of the entities of ``$ids`` that have one.
GET_EMBEDDINGS = (
    "UNWIND $ids AS id MATCH (n:Entity {id: id}) WHERE n.embedding IS NOT NULL "
    "RETURN n.id AS id, n.embedding AS embedding"
)
EXISTING_IDS = "MATCH (n:Entity) WHERE n.id IN $ids RETURN n.id AS id"
COUNT_NODES = "MATCH (n:Entity) RETURN count(n) AS count"
COUNT_EDGES = "MATCH (:Entity)-[e]->(:Entity) RETURN count(e) AS count"
PAGE_NODES = "MATCH (n:Entity) WHERE n.id > $after RETURN n AS node ORDER BY n.id LIMIT $limit"
#: Edges paged by head entity; heads without out-edges yield one row with a null edge.
PAGE_EDGES = (
    "MATCH (h:Entity) WHERE h.id > $after WITH h ORDER BY h.id LIMIT $limit "
    "OPTIONAL MATCH (h)-[e]->(t:Entity) RETURN h.id AS h, type(e) AS r, t.id AS t, e AS edge"
)
LOOKUP = (
    "MATCH (n:Entity) WHERE n.id IN $ids OR toLower(n.name) = $text "
    "OR any(s IN n.synonyms WHERE toLower(s) = $text) RETURN n AS node"
)


def get_edge(relation: str, declared: Collection[str]) -> str:
    return (
        f"MATCH (h:Entity {{id: $h}})-[e:{quote_relation(relation, declared)}]->"
        "(t:Entity {id: $t}) RETURN e AS edge"
    )


NEIGHBOURS = {
    "out": "MATCH (n:Entity {id: $id})-[e]->(m:Entity) "
    "WHERE $relation IS NULL OR type(e) = $relation "
    "RETURN n.id AS h, type(e) AS r, m.id AS t, e AS edge",
    "in": "MATCH (n:Entity {id: $id})<-[e]-(m:Entity) "
    "WHERE $relation IS NULL OR type(e) = $relation "
    "RETURN m.id AS h, type(e) AS r, n.id AS t, e AS edge",
}
FRONTIER_EDGES = (
    "MATCH (n:Entity)-[e]-(m:Entity) WHERE n.id IN $ids "
    "AND ($relations IS NULL OR type(e) IN $relations) "
    "RETURN startNode(e).id AS h, type(e) AS r, endNode(e).id AS t, e AS edge"
)


def project(relation: str, declared: Collection[str], *, inverse: bool) -> str:
    quoted = quote_relation(relation, declared)
    arrow = f"<-[:{quoted}]-" if inverse else f"-[:{quoted}]->"
    return f"MATCH (n:Entity){arrow}(m:Entity) WHERE n.id IN $ids RETURN DISTINCT m.id AS id"


def hop_edges(relation: str, declared: Collection[str], *, inverse: bool) -> str:
    """Every ``relation`` edge leaving the entities ``$ids`` (entering them when
    ``inverse``): one projection hop of a query, answered by the server in one round trip."""
    quoted = quote_relation(relation, declared)
    if inverse:
        return (
            f"MATCH (n:Entity)<-[e:{quoted}]-(m:Entity) WHERE n.id IN $ids "
            "RETURN m.id AS h, n.id AS t, e AS edge"
        )
    return (
        f"MATCH (n:Entity)-[e:{quoted}]->(m:Entity) WHERE n.id IN $ids "
        "RETURN n.id AS h, m.id AS t, e AS edge"
    )


def shortest_paths(max_depth: int, *, directed: bool) -> str:
    """All shortest paths up to ``max_depth`` hops (an integer, checked, then formatted)."""
    if not isinstance(max_depth, int) or isinstance(max_depth, bool) or max_depth < 1:
        raise KGError(f"max_depth must be a positive integer, got {max_depth!r}")
    arrow = "->" if directed else "-"
    return (
        "MATCH (a:Entity {id: $source}), (b:Entity {id: $target}) "
        f"MATCH p = allShortestPaths((a)-[*..{max_depth}]{arrow}(b)) "
        "RETURN [e IN relationships(p) | "
        "{h: startNode(e).id, r: type(e), t: endNode(e).id, edge: e}] AS hops "
        "LIMIT $max_paths"
    )


def hub_free_path(max_depth: int) -> str:
    """One shortest undirected path of at most ``max_depth`` hops from any of ``$sources`` to
    any of ``$targets`` (ids) that uses no edge with source ``$excluded`` and, unless
    ``$hub_degree`` is null, passes through no node with that many such edges (a hub may end a
    path, never carry one): what the grounding verifier asks of every pair."""
    if not isinstance(max_depth, int) or isinstance(max_depth, bool) or max_depth < 1:
        raise KGError(f"max_depth must be a positive integer, got {max_depth!r}")
    return (
        "MATCH (a:Entity) WHERE a.id IN $sources "
        "MATCH (b:Entity) WHERE b.id IN $targets AND b <> a "
        f"MATCH p = shortestPath((a)-[*..{max_depth}]-(b)) "
        "WHERE none(e IN relationships(p) WHERE $excluded IN coalesce(e.sources, [])) "
        "AND ($hub_degree IS NULL OR all(n IN nodes(p)[1..-1] WHERE "
        "COUNT { (n)-[x]-() WHERE NOT $excluded IN coalesce(x.sources, []) } < $hub_degree)) "
        "RETURN [e IN relationships(p) | "
        "{h: startNode(e).id, r: type(e), t: endNode(e).id, edge: e}] AS hops "
        "ORDER BY size(hops) LIMIT 1"
    )


#: Search statements fetch ``$fetch`` hits from the index, keep those of ``$types`` (all when
#: null) and return the best ``$k`` with their nodes: a type filter after the index, so the
#: caller over-fetches when it filters.
FULLTEXT_SEARCH = (
    "CALL db.index.fulltext.queryNodes('entity_search_text', $query, {limit: $fetch}) "
    "YIELD node, score WHERE $types IS NULL OR node.type IN $types "
    "RETURN node, score LIMIT $k"
)
VECTOR_SEARCH_PROCEDURE = (
    "CALL db.index.vector.queryNodes('entity_embedding', $fetch, $vector) "
    "YIELD node, score WHERE $types IS NULL OR node.type IN $types "
    "RETURN node, score LIMIT $k"
)
#: The SEARCH clause (Neo4j ≥ 2026.01, Cypher 25); the procedure above is the fallback. Its
#: in-index WHERE takes only properties the index was created WITH, so the type filter follows.
VECTOR_SEARCH_CLAUSE = (
    "CYPHER 25 MATCH (n:Entity) "
    "SEARCH n IN (VECTOR INDEX entity_embedding FOR $vector LIMIT $fetch) SCORE AS score "
    "WITH n, score WHERE $types IS NULL OR n.type IN $types "
    "RETURN n AS node, score LIMIT $k"
)
HAS_VECTOR_INDEX = (
    "SHOW INDEXES YIELD name, type WHERE name = 'entity_embedding' AND type = 'VECTOR' "
    "RETURN count(*) AS count"
)
SERVER_VERSION = (
    "CALL dbms.components() YIELD name, versions WHERE name = 'Neo4j Kernel' "
    "RETURN versions[0] AS version"
)

#: Lucene query syntax characters escaped in user text sent to the fulltext index.
LUCENE_SPECIAL = set('+-&|!(){}[]^"~*?:\\/')


def escape_lucene(text: str) -> str:
    """User text as a Lucene query that matches its words literally."""
    return "".join(f"\\{c}" if c in LUCENE_SPECIAL else c for c in text)
