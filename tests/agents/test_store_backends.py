"""QueryService over a KG held outside the workspace (``KGRECALL_STORE=neo4j``): loading,
asking, querying and grounding go through the ``GraphStore`` interface only.

No Neo4j server runs here, so a store that answers through another store's interface
methods stands in for it; ``tests/service/test_neo4j_live.py`` runs the same requests
against a real server whenever ``NEO4J_URI`` is set.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Collection, Iterable, Iterator, Sequence
from pathlib import Path

import networkx as nx
import numpy as np
import pytest
from fastapi.testclient import TestClient

from kgrecall.agents import QueryService
from kgrecall.errors import InvalidRequestError, NotFoundError
from kgrecall.kg import (
    BFSResult,
    Direction,
    Edge,
    GraphStore,
    KGSchema,
    NetworkXStore,
    Node,
    Workspace,
)
from kgrecall.kg import (
    Path as KGPath,
)
from kgrecall.kg.loaders import GraphBatch
from kgrecall.kg.neo4j_store import Neo4jStore
from kgrecall.service import create_app
from kgrecall.tools import StoreFulltextSearch, StoreVectorSearch, VectorIndex
from kgrecall.tools.fulltext import FulltextIndex
from kgrecall.tools.kg_indexes import INDEX_FOLDER
from tests.conftest import DEMO_NAME, PD4_GENES

#: The real opener (the module's fixture replaces it with a stand-in for its tests).
FROM_SETTINGS = Neo4jStore.__dict__["from_settings"]
QUESTION = "Which genes are associated with Parkinson disease 4?"
REPORT = (
    "# LRRK2 and Parkinson disease\n\nLRRK2 is associated with Parkinson disease 8. "
    "SNCA is associated with Parkinson disease 4."
)


class InterfaceOnlyStore(GraphStore):
    """Answers through ``inner``'s ``GraphStore`` methods only and counts them: nothing
    backend-specific (a NetworkX graph, an in-memory name table) is reachable."""

    def __init__(self, inner: GraphStore) -> None:
        self._inner = inner
        self.metadata = inner.metadata
        self.calls: Counter[str] = Counter()

    def _count(self, name: str) -> GraphStore:
        self.calls[name] += 1
        return self._inner

    @property
    def schema(self) -> KGSchema:
        return self._inner.schema

    def extend_schema(self, schema: KGSchema) -> None:
        self._count("extend_schema").extend_schema(schema)

    def add_nodes(self, nodes: Iterable[Node]) -> int:
        return self._count("add_nodes").add_nodes(nodes)

    def add_edges(self, edges: Iterable[Edge]) -> int:
        return self._count("add_edges").add_edges(edges)

    def has_node(self, node_id: str) -> bool:
        return self._count("has_node").has_node(node_id)

    def get_node(self, node_id: str) -> Node:
        return self._count("get_node").get_node(node_id)

    def get_edge(self, head: str, relation: str, tail: str) -> Edge | None:
        return self._count("get_edge").get_edge(head, relation, tail)

    def neighbors(
        self, node_id: str, relation: str | None = None, direction: Direction = "out"
    ) -> list[Edge]:
        return self._count("neighbors").neighbors(node_id, relation, direction)

    def project(self, node_ids: Iterable[str], relation: str, *, inverse: bool = False) -> set[str]:
        return self._count("project").project(node_ids, relation, inverse=inverse)

    def shortest_paths(
        self,
        source: str,
        target: str,
        *,
        max_depth: int = 4,
        directed: bool = False,
        max_paths: int = 10,
    ) -> list[KGPath]:
        return self._count("shortest_paths").shortest_paths(
            source, target, max_depth=max_depth, directed=directed, max_paths=max_paths
        )

    def bfs(
        self,
        seeds: Iterable[str],
        *,
        depth: int,
        max_nodes: int,
        relations: Iterable[str] | None = None,
    ) -> BFSResult:
        return self._count("bfs").bfs(seeds, depth=depth, max_nodes=max_nodes, relations=relations)

    def lookup(self, text: str) -> list[Node]:
        return self._count("lookup").lookup(text)

    def nodes(self) -> Iterator[Node]:
        return self._count("nodes").nodes()

    def edges(self) -> Iterator[Edge]:
        return self._count("edges").edges()

    def number_of_nodes(self) -> int:
        return self._count("number_of_nodes").number_of_nodes()

    def number_of_edges(self) -> int:
        return self._count("number_of_edges").number_of_edges()

    @property
    def version(self) -> str:
        return self._inner.version


@pytest.fixture(scope="module")
def served_from_neo4j(
    service: QueryService, demo_home: Path
) -> Iterator[tuple[QueryService, InterfaceOnlyStore]]:
    """A QueryService with ``store="neo4j"`` whose Neo4j database holds the demo KG (the
    session's loaded copy behind :class:`InterfaceOnlyStore`)."""
    stand_in = InterfaceOnlyStore(service.resources(DEMO_NAME).store)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(Neo4jStore, "from_settings", classmethod(lambda cls, **_: stand_in))
        yield (
            QueryService(
                demo_home, store="neo4j", use_env_llm=False, progress=False, model="rules"
            ),
            stand_in,
        )


def test_the_served_kg_is_the_databases_and_nothing_else(
    served_from_neo4j: tuple[QueryService, InterfaceOnlyStore],
) -> None:
    neo4j_service, stand_in = served_from_neo4j
    resources = neo4j_service.resources(DEMO_NAME)
    assert resources.store is stand_in and not isinstance(resources.store, NetworkXStore)
    listed = neo4j_service.databases()
    assert [entry["name"] for entry in listed] == [DEMO_NAME]
    assert listed[0]["version"] == stand_in.version
    with pytest.raises(NotFoundError, match="no KG named 'other'"):
        neo4j_service.resources("other")


def test_answers_equal_the_embedded_stores(
    service: QueryService, served_from_neo4j: tuple[QueryService, InterfaceOnlyStore]
) -> None:
    neo4j_service, stand_in = served_from_neo4j
    before = stand_in.calls.copy()
    asked = neo4j_service.ask(QUESTION, kg=DEMO_NAME, level="fast")
    expected = service.ask(QUESTION, kg=DEMO_NAME, level="fast")
    assert [a.id for a in asked.answers] == [a.id for a in expected.answers]
    assert asked.answers and asked.grounding is not None
    queried = neo4j_service.query(PD4_GENES, kg=DEMO_NAME, level="fast", max_results=None)
    reference = service.query(PD4_GENES, kg=DEMO_NAME, level="fast", max_results=None)
    assert [(a.id, a.score) for a in queried.answers] == [
        (a.id, a.score) for a in reference.answers
    ]
    grounded = neo4j_service.ground(REPORT, kg=DEMO_NAME)
    assert [c.label for c in grounded.claims] == [
        c.label for c in service.ground(REPORT, kg=DEMO_NAME).claims
    ]
    used = stand_in.calls - before
    assert used["neighbors"] > 0  # the traversal went through the store


def test_thorough_answers_come_from_the_store_too(
    served_from_neo4j: tuple[QueryService, InterfaceOnlyStore],
) -> None:
    """The completion model is bound to the store through ``edges()`` like any graph."""
    neo4j_service, _ = served_from_neo4j
    answered = neo4j_service.query(PD4_GENES, kg=DEMO_NAME, level="thorough", max_results=None)
    assert answered.total >= 1 and answered.completeness.level == "thorough"


def test_writes_to_a_neo4j_kg_are_refused_with_the_way_to_make_them(
    served_from_neo4j: tuple[QueryService, InterfaceOnlyStore],
) -> None:
    neo4j_service, _ = served_from_neo4j
    batch = GraphBatch(KGSchema.biomedical(), nodes=[Node("X:1", "gene", "x")])
    with pytest.raises(InvalidRequestError, match="held in Neo4j"):
        neo4j_service.ingest(DEMO_NAME, batch, source="test")


def test_neo4j_settings_are_named_when_missing(
    demo_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(Neo4jStore, "from_settings", FROM_SETTINGS)
    monkeypatch.delenv("NEO4J_URI", raising=False)
    monkeypatch.setenv("KGRECALL_STORE", "neo4j")
    unconfigured = QueryService(demo_home, use_env_llm=False, progress=False)
    with pytest.raises(InvalidRequestError, match="NEO4J_URI"):
        unconfigured.resources(DEMO_NAME)
    monkeypatch.setenv("KGRECALL_STORE", "postgres")
    with pytest.raises(InvalidRequestError, match="KGRECALL_STORE"):
        QueryService(demo_home, use_env_llm=False, progress=False)


def test_the_http_api_serves_the_neo4j_kg_by_its_name(
    served_from_neo4j: tuple[QueryService, InterfaceOnlyStore],
) -> None:
    neo4j_service, _ = served_from_neo4j
    with TestClient(create_app(neo4j_service, admin_key="k")) as client:
        listed = client.get("/v1/databases").json()
        assert [entry["name"] for entry in listed] == [DEMO_NAME]
        reply = client.post(
            "/v1/query/structured", json={"query": PD4_GENES, "database": DEMO_NAME}
        )
        assert reply.status_code == 200 and reply.json()["total"] >= 1
        other = client.post("/v1/query/structured", json={"query": PD4_GENES, "database": "x"})
        assert other.status_code == 404


class IndexedInterfaceStore(InterfaceOnlyStore):
    """The stand-in with a Neo4j store's own search and path methods, answered from
    in-memory data the way the database would (raw text scores; cosine from the KG's saved
    embeddings; shortest hub-free paths by networkx, not by the verifier's search)."""

    def __init__(self, inner: GraphStore, vectors: VectorIndex) -> None:
        super().__init__(inner)
        self._text = FulltextIndex(inner)
        self._vectors = vectors
        self._graph = nx.MultiGraph()
        for edge in inner.edges():
            if "auto_learned" not in edge.sources:
                self._graph.add_edge(edge.head, edge.tail, edge=edge)

    def fulltext_search(
        self, text: str, *, k: int = 10, node_types: Collection[str] | None = None
    ) -> list[tuple[Node, float]]:
        self.calls["fulltext_search"] += 1
        found = self._text.search(text, k=k, node_types=node_types)
        return [(self._inner.get_node(c.id), 10.0 * c.score) for c in found]

    def vector_search(
        self, vector: Sequence[float], *, k: int = 10, node_types: Collection[str] | None = None
    ) -> list[tuple[Node, float]]:
        self.calls["vector_search"] += 1
        rows = self._vectors.nearest(
            np.asarray(vector, dtype=np.float32), k=k, node_types=node_types
        )
        return [(self._inner.get_node(self._vectors.ids[row]), score) for row, score in rows]

    def has_vector_index(self) -> bool:
        return True

    def embeddings(self, ids: Sequence[str]) -> dict[str, list[float]]:
        self.calls["embeddings"] += 1
        rows = self._vectors.vectors_of(ids)
        return {entity_id: row.tolist() for entity_id, row in zip(ids, rows, strict=True)}

    def hub_free_path(
        self,
        sources: Sequence[str],
        targets: Sequence[str],
        *,
        max_depth: int,
        hub_degree: int | None,
        excluded_source: str,
    ) -> KGPath | None:
        self.calls["hub_free_path"] += 1
        ends = {*sources, *targets}
        graph = self._graph
        if hub_degree is not None:
            graph = nx.subgraph_view(
                graph, filter_node=lambda n: n in ends or self._graph.degree(n) < hub_degree
            )
        best: list[str] | None = None
        for source in sources:
            for target in targets:
                if source in graph and target in graph and nx.has_path(graph, source, target):
                    path = nx.shortest_path(graph, source, target)
                    best = path if best is None or len(path) < len(best) else best
        if best is None or len(best) - 1 > max_depth:
            return None
        return tuple(
            next(iter(self._graph.get_edge_data(a, b).values()))["edge"]
            for a, b in itertools.pairwise(best)
        )


def test_a_neo4j_kg_is_searched_and_grounded_by_its_own_indexes(
    service: QueryService, demo_home: Path
) -> None:
    folder = Workspace(demo_home).kg_dir(DEMO_NAME) / INDEX_FOLDER
    inner = service.resources(DEMO_NAME).store
    vectors = VectorIndex.saved(inner, folder)
    assert vectors is not None
    stand_in = IndexedInterfaceStore(inner, vectors)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(Neo4jStore, "from_settings", classmethod(lambda cls, **_: stand_in))
        served = QueryService(
            demo_home, store="neo4j", use_env_llm=False, progress=False, model="rules"
        )
        resources = served.resources(DEMO_NAME)
        assert isinstance(resources.index.fulltext, StoreFulltextSearch)
        assert isinstance(resources.index.vector, StoreVectorSearch)
        # no name matches this wording: the database's indexes propose the candidates
        mention = "leucine rich repeat kinase 2 protein"
        linked = resources.index.link(mention, k=2)
        assert linked and linked[0].match == "fuzzy"
        assert [e.id for e in linked] == [
            e.id for e in service.resources(DEMO_NAME).index.link(mention, k=2)
        ]
        assert stand_in.calls["fulltext_search"] and stand_in.calls["vector_search"]
        grounded = served.ground(REPORT, kg=DEMO_NAME)
        assert [c.label for c in grounded.claims] == [
            c.label for c in service.ground(REPORT, kg=DEMO_NAME).claims
        ]
        assert stand_in.calls["hub_free_path"] > 0  # the paths were asked of the server
        # an abbreviation with only a cue word is read against the embeddings the server holds
        skin = "Infants with AD had itchy eczematous plaques on the cheeks, treated by emollients."
        clinic = "Patients with AD develop progressive memory loss and cortical atrophy."
        for text, linked in ((skin, False), (clinic, True)):
            [served_claim] = served.ground(text, kg=DEMO_NAME).claims
            [local_claim] = service.ground(text, kg=DEMO_NAME).claims
            assert served_claim.entities == local_claim.entities
            assert any(m.text == "AD" and m.in_kg for m in served_claim.entities) is linked
        assert stand_in.calls["embeddings"] > 0
