"""A KG served from a live Neo4j server end to end: `kg push-neo4j`, then ask, query and
ground through QueryService with ``KGRECALL_STORE=neo4j``.

Runs whenever ``NEO4J_URI`` (with ``NEO4J_USER`` and ``NEO4J_PASSWORD``; optionally
``NEO4J_DATABASE``) is set, and deletes kgrecall's nodes from that database before and after.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kgrecall.agents import QueryService
from kgrecall.cli import app
from kgrecall.kg import Workspace
from kgrecall.kg.neo4j_store import Neo4jStore
from tests.conftest import DEMO_NAME, PD4_GENES

pytestmark = [
    pytest.mark.neo4j,
    pytest.mark.skipif(
        not os.environ.get("NEO4J_URI"),
        reason="no Neo4j server: set NEO4J_URI, NEO4J_USER and NEO4J_PASSWORD to run",
    ),
]


@pytest.fixture(scope="module")
def neo4j_service(
    service: QueryService, demo_home: Path
) -> Iterator[tuple[QueryService, Neo4jStore]]:
    """The session's demo KG pushed to Neo4j, served from there."""
    database = os.environ.get("NEO4J_DATABASE")
    pushed = CliRunner().invoke(
        app,
        ["kg", "push-neo4j", DEMO_NAME, "--replace", "--home", str(demo_home)]
        + (["--database", database] if database else []),
    )
    assert pushed.exit_code == 0, pushed.output
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("KGRECALL_STORE", "neo4j")
        served = QueryService(demo_home, use_env_llm=False, progress=False)
        store = served.resources(DEMO_NAME).store
        assert isinstance(store, Neo4jStore)
        yield served, store
        store.clear()


def test_the_pushed_kg_is_the_same_version(
    service: QueryService, neo4j_service: tuple[QueryService, Neo4jStore]
) -> None:
    _, store = neo4j_service
    assert store.version == Workspace(service.workspace.home).load(DEMO_NAME).version


def test_ask_query_and_ground_answer_as_the_embedded_store(
    service: QueryService, neo4j_service: tuple[QueryService, Neo4jStore]
) -> None:
    served, _ = neo4j_service
    question = "Which genes are associated with Parkinson disease 4?"
    asked = served.ask(question, kg=DEMO_NAME, level="fast")
    assert [a.id for a in asked.answers] == [
        a.id for a in service.ask(question, kg=DEMO_NAME, level="fast").answers
    ]
    queried = served.query(PD4_GENES, kg=DEMO_NAME, level="thorough", max_results=None)
    expected = service.query(PD4_GENES, kg=DEMO_NAME, level="thorough", max_results=None)
    assert {a.id for a in queried.answers} == {a.id for a in expected.answers}
    report = "SNCA is associated with Parkinson disease 4. LRRK2 is a gene."
    assert [c.label for c in served.ground(report, kg=DEMO_NAME).claims] == [
        c.label for c in service.ground(report, kg=DEMO_NAME).claims
    ]
