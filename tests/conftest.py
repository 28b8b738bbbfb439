"""Shared fixtures: a small hand-checked graph and an isolated KGRECALL_HOME."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from kgrecall.agents import QueryService
from kgrecall.kg import DEMO_NAME, Edge, GraphStore, KGSchema, NetworkXStore, Node, Workspace
from kgrecall.kg.demo import build_demo_kg
from kgrecall.tools.kg_indexes import INDEX_FOLDER, write_indexes
from tests.llm_server import OpenAIStub, start_stub

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


#: "Genes associated with Parkinson disease 4" as a QueryTree (the demo KG answers SNCA).
PD4_GENES = {
    "op": "project",
    "relation": "associated_with",
    "inverse": True,
    "input": {"op": "entity", "id": "OMIM:605543"},
}

NEO4J_REASON = "live Neo4j tests need NEO4J_URI, NEO4J_USER and NEO4J_PASSWORD"


@pytest.fixture(
    params=[
        "networkx",
        pytest.param(
            "neo4j",
            marks=[
                pytest.mark.neo4j,
                pytest.mark.skipif(not os.environ.get("NEO4J_URI"), reason=NEO4J_REASON),
            ],
        ),
    ]
)
def graph_store(request: pytest.FixtureRequest) -> Iterator[GraphStore]:
    """The hand-checked graph in each backend: embedded always, Neo4j when configured."""
    source = small_store()
    if request.param == "networkx":
        yield source
        return
    from neo4j import GraphDatabase

    from kgrecall.kg.neo4j_store import Neo4jStore

    auth = (os.environ.get("NEO4J_USER", "neo4j"), os.environ["NEO4J_PASSWORD"])
    with GraphDatabase.driver(os.environ["NEO4J_URI"], auth=auth) as driver:
        live = Neo4jStore(driver, schema=source.schema, database=os.environ.get("NEO4J_DATABASE"))
        live.clear()
        live.ensure_indexes()
        live.add_nodes(source.nodes())
        live.add_edges(source.edges())
        yield live
        live.clear()


@pytest.fixture(autouse=True)
def isolated_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every test gets its own KGRECALL_HOME so nothing touches the user's cache."""
    home = tmp_path / "kgrecall-home"
    monkeypatch.setenv("KGRECALL_HOME", str(home))
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)  # offline unless a test sets a stub
    return home


@pytest.fixture
def openai_stub() -> Iterator[OpenAIStub]:
    """A scripted OpenAI-compatible server on 127.0.0.1 (see tests/llm_server.py)."""
    stub, server = start_stub()
    yield stub
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="session")
def demo_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A workspace holding the demo KG and its indexes, written as `kg build-demo` does."""
    home = tmp_path_factory.mktemp("kgrecall-home")
    workspace, store = Workspace(home), build_demo_kg(progress=False)
    workspace.save(store, DEMO_NAME)
    write_indexes(store, workspace.kg_dir(DEMO_NAME) / INDEX_FOLDER, progress=False)
    return home


@pytest.fixture
def demo_embeddings_in_isolated_home(isolated_home: Path, demo_home: Path) -> Path:
    """``isolated_home`` holding the session's demo entity embeddings (embedding the demo KG
    takes minutes): `kg build-demo` there finds them for its version and does not embed."""
    indexes = isolated_home / "kgs" / DEMO_NAME / INDEX_FOLDER
    indexes.mkdir(parents=True)
    for saved in (demo_home / "kgs" / DEMO_NAME / INDEX_FOLDER).glob("vectors-*.npz"):
        shutil.copy2(saved, indexes / saved.name)
    return isolated_home


@pytest.fixture(scope="session")
def service(demo_home: Path) -> QueryService:
    """Offline (no LLM), loaded once."""
    built = QueryService(demo_home, use_env_llm=False, progress=False)
    built.resources(DEMO_NAME)
    return built


@pytest.fixture
def fresh_demo_home(service: QueryService, demo_home: Path, tmp_path: Path) -> Path:
    """A workspace of its own holding the demo KG and its vector index (copied from the
    session's: building the index takes minutes on two cores), no calibration."""
    home = tmp_path / "home"
    shutil.copytree(demo_home / "kgs", home / "kgs", ignore=shutil.ignore_patterns("models"))
    return home
