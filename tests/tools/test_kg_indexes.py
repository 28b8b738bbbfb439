"""The indexes kept next to a KG version: written by the commands that write a KG (and by
``kgrecall kg index``), loaded by readers, never built or written by a query."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kgrecall.agents import QueryService
from kgrecall.cli import app
from kgrecall.kg import Workspace
from kgrecall.kg.derived import DERIVED_DIR
from kgrecall.kg.errors import KGNotFoundError
from kgrecall.kg.loaders import build_store, load_pykeen_dataset
from kgrecall.tools.kg_indexes import INDEX_FOLDER, missing_indexes, write_indexes
from kgrecall.tools.name_tables import NAMES_FILE
from kgrecall.tools.vector import VectorIndex


@pytest.fixture
def nations_home(tmp_path: Path) -> Path:
    """A workspace holding the Nations KG saved without any index."""
    home = tmp_path / "home"
    Workspace(home).save(build_store([load_pykeen_dataset("nations")], name="nations"), "nations")
    return home


def files_under(folder: Path) -> dict[Path, int]:
    return {p.relative_to(folder): p.stat().st_mtime_ns for p in folder.rglob("*") if p.is_file()}


def test_write_indexes_writes_both_and_only_what_is_missing(nations_home: Path) -> None:
    workspace = Workspace(nations_home)
    store = workspace.load("nations")
    folder = workspace.kg_dir("nations") / INDEX_FOLDER
    assert missing_indexes(store, folder) == ["names", "vectors"]
    written = write_indexes(store, folder, progress=False)
    assert written.names == folder / NAMES_FILE and written.names.is_file()
    assert written.vectors == VectorIndex.path_for(store, folder) and written.vectors.is_file()
    assert written.entities == store.number_of_nodes() == 14
    assert missing_indexes(store, folder) == []
    saved = VectorIndex.saved(store, folder)
    assert saved is not None and sorted(saved.ids) == sorted(n.id for n in store.nodes())
    before = files_under(folder)
    again = write_indexes(store, folder, only_missing=True, progress=False)
    assert (again.names, again.vectors) == (None, None) and files_under(folder) == before
    (folder / NAMES_FILE).unlink()
    assert write_indexes(store, folder, only_missing=True, progress=False).vectors is None
    assert missing_indexes(store, folder) == []


def test_a_query_never_builds_or_writes_an_index(
    nations_home: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A KG saved without indexes is served at once: names folded in memory, no vector search
    (said in the log with the command that builds it), nothing written next to the KG (what a
    process derives — the BM25 tables — goes to the workspace's ``derived/`` cache only)."""
    # a library's logging.config may have disabled loggers created before it ran
    monkeypatch.setattr(logging.getLogger("kgrecall.agents.service"), "disabled", False)
    before = files_under(nations_home)
    service = QueryService(nations_home, use_env_llm=False, progress=False, model="rules")
    with caplog.at_level(logging.WARNING, logger="kgrecall.agents.service"):
        resources = service.resources("nations")
    assert resources.index.vector is None
    assert "has no vector index" in caplog.text and "kgrecall kg index nations" in caplog.text
    edge = next(iter(resources.store.edges()))
    tree = {"op": "project", "relation": edge.relation, "input": {"op": "entity", "id": edge.head}}
    assert edge.tail in {a.id for a in service.query(tree, kg="nations").answers}
    assert service.search("usa", kg="nations").hits[0].id.lower().endswith("usa")
    after = files_under(nations_home)
    assert {p: t for p, t in after.items() if p.parts[0] != DERIVED_DIR} == before
    assert [p.name.split("-")[0] for p in after if p not in before] == ["fulltext"]


def test_kg_index_command_writes_the_indexes_the_service_then_loads(nations_home: Path) -> None:
    result = CliRunner().invoke(app, ["kg", "index", "nations", "--home", str(nations_home)])
    assert result.exit_code == 0, result.output
    assert "entity names indexed: 14 entities" in result.output
    assert "entity embeddings indexed: 14 entities" in result.output
    service = QueryService(nations_home, use_env_llm=False, progress=False, model="rules")
    assert service.resources("nations").index.vector is not None
    missing = CliRunner().invoke(app, ["kg", "index", "nowhere", "--home", str(nations_home)])
    assert isinstance(missing.exception, KGNotFoundError)
    assert "no KG named 'nowhere'" in str(missing.exception)


def test_a_damaged_vector_index_is_reported_and_never_trusted(
    nations_home: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(logging.getLogger("kgrecall.tools.vector"), "disabled", False)
    workspace = Workspace(nations_home)
    store = workspace.load("nations")
    folder = workspace.kg_dir("nations") / INDEX_FOLDER
    write_indexes(store, folder, progress=False)
    VectorIndex.path_for(store, folder).write_bytes(b"not an npz archive")
    with caplog.at_level(logging.WARNING, logger="kgrecall.tools.vector"):
        assert VectorIndex.saved(store, folder) is None
    assert "not a readable vector index" in caplog.text and "kgrecall kg index" in caplog.text
    assert missing_indexes(store, folder) == ["vectors"]
    write_indexes(store, folder, only_missing=True, progress=False)
    assert VectorIndex.saved(store, folder) is not None
