"""Issue #20: incremental ingestion — new versions with a change log, atomic swaps under
concurrent queries, stale calibrations said so (or none, by policy), recalibration by policy."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest

from kgrecall.agents import QueryService
from kgrecall.agents.service import model_path
from kgrecall.kg import Edge, GraphStore, KGError, NetworkXStore, Workspace
from kgrecall.kg.history import IngestPolicy
from kgrecall.kg.loaders import build_store, load_pykeen_dataset
from kgrecall.kg.loaders.base import GraphBatch
from kgrecall.tools import LinkPredictor, TrainingConfig

CHEAP: dict[str, Any] = {"use_env_llm": False, "progress": False, "model": "rules"}


def nations_withheld() -> tuple[NetworkXStore, list[Edge]]:
    """Nations without every tenth edge, and the edges withheld."""
    full = build_store([load_pykeen_dataset("nations")], name="nations")
    edges = sorted(full.edges(), key=lambda e: (e.head, e.relation, e.tail))
    withheld = edges[::10]
    kept = build_store([], name="nations")
    kept.extend_schema(full.schema)
    kept.add_nodes(full.nodes())
    kept.add_edges(e for i, e in enumerate(edges) if i % 10)
    return kept, withheld


@pytest.fixture
def home(tmp_path: Path) -> tuple[Path, list[Edge]]:
    store, withheld = nations_withheld()
    Workspace(tmp_path).save(store, "nations")
    return tmp_path, withheld


def batch_of(store: GraphStore, edges: list[Edge]) -> GraphBatch:
    return GraphBatch(store.schema, [], edges)


def test_ingestion_makes_a_logged_version_and_a_failure_changes_nothing(
    home: tuple[Path, list[Edge]],
) -> None:
    path, withheld = home
    workspace = Workspace(path)
    before = workspace.load("nations")
    first = (withheld[0].head, withheld[0].relation, withheld[0].tail)
    kept = next(iter(before.edges()))
    store, change = workspace.ingest(
        "nations",
        batch_of(before, withheld[1:]),
        [(kept.head, kept.relation, kept.tail)],
        source="batch-1",
    )
    assert change.version_before == before.version != change.version_after == store.version
    assert sum(change.edges_added.values()) == len(withheld) - 1
    assert change.edges_removed == {kept.relation: 1}
    assert workspace.load("nations").version == store.version  # on disk
    history = workspace.history("nations")
    assert history.versions() == [store.version, before.version]
    assert history.edges_since(before.version) == len(withheld)
    assert history.edges_since(store.version) == 0
    assert history.edges_since("unknown") is None
    # removing an edge the KG lacks: an error naming it, the saved KG and the log untouched
    with pytest.raises(KGError, match=rf"cannot remove.*{first[1]}"):
        workspace.ingest("nations", batch_of(before, []), [first], source="bad")
    assert workspace.load("nations").version == store.version
    assert len(history.entries()) == 1
    # ingesting what is already there: no new version, no log entry
    _, same = workspace.ingest("nations", batch_of(before, withheld[1:2]), source="again")
    assert same.version_after == same.version_before and len(history.entries()) == 1


def test_policy_file_errors_name_the_field(tmp_path: Path) -> None:
    (tmp_path / "policy.json").write_text('{"on_ingest": "sometimes"}')
    with pytest.raises(KGError, match=r"policy.json: field on_ingest: .*recalibrate"):
        IngestPolicy.read(tmp_path)
    (tmp_path / "policy.json").write_text('{"alphas": [1.5]}')
    with pytest.raises(KGError, match=r"field alphas.0"):
        IngestPolicy.read(tmp_path)
    IngestPolicy(on_ingest="mark_stale", topologies=["1p"]).write(tmp_path)
    assert IngestPolicy.read(tmp_path).on_ingest == "mark_stale"


def one_hop(store: GraphStore) -> dict[str, object]:
    """A 1p query whose answers the withheld edges change."""
    edge = next(iter(store.edges()))
    return {
        "op": "project",
        "relation": edge.relation,
        "input": {"op": "entity", "id": edge.head},
    }


def test_stale_calibration_stands_in_and_says_so_then_recalibration_replaces_it(
    home: tuple[Path, list[Edge]],
) -> None:
    path, withheld = home
    service = QueryService(path, **CHEAP)
    records, _ = service.calibrate(
        kg="nations", topologies=["1p"], alphas=[0.2], queries=60, strata=1, neural=False,
        say=lambda _: None,
    )  # fmt: skip
    store = service.resources("nations").store
    query = one_hop(store)
    fresh = service.query(query, kg="nations", level="thorough")
    assert fresh.completeness.calibrated_kg_version is None
    assert fresh.completeness.calibration_id == records[0].id

    ingestion = service.ingest("nations", batch_of(store, withheld), source="batch")
    assert ingestion.recalibration is not None
    assert ingestion.recalibration.topologies == ["1p"]
    assert ingestion.recalibration.alphas == [0.2]
    assert ingestion.recalibration.edges_changed == len(withheld)
    assert not ingestion.recalibration.neural and ingestion.recalibration.queries == 60

    stale = service.query(query, kg="nations", level="thorough").completeness
    assert stale.calibration_id == records[0].id
    assert stale.calibrated_kg_version == records[0].kg_version
    assert stale.edges_since_calibration == len(withheld)
    assert any("stale calibration" in note and f"{len(withheld)} edges" in note
               for note in stale.notes)  # fmt: skip

    IngestPolicy(while_stale="none").write(service.workspace.kg_dir("nations"))
    service.ingest("nations", batch_of(store, []), [_key(withheld[0])], source="removal")
    refused = service.query(query, kg="nations", level="thorough").completeness
    assert refused.guarantee.startswith("none: ") and "another KG version" in refused.guarantee

    IngestPolicy().write(service.workspace.kg_dir("nations"))
    plan = service.recalibration_due("nations")
    assert plan is not None and plan.edges_changed == len(withheld) + 1
    service.recalibrate("nations", plan, say=lambda _: None)
    assert service.recalibration_due("nations") is None
    current = service.query(query, kg="nations", level="thorough").completeness
    assert current.calibrated_kg_version is None and current.calibration_id != records[0].id


def test_mark_stale_and_small_changes_ask_for_no_recalibration(
    home: tuple[Path, list[Edge]],
) -> None:
    path, withheld = home
    service = QueryService(path, **CHEAP)
    service.calibrate(
        kg="nations", topologies=["1p"], alphas=[0.2], queries=60, strata=1, neural=False,
        say=lambda _: None,
    )  # fmt: skip
    store = service.workspace.load("nations")
    IngestPolicy(min_change_edges=10).write(service.workspace.kg_dir("nations"))
    assert (
        service.ingest("nations", batch_of(store, withheld[:3]), source="a").recalibration is None
    )
    assert (
        service.ingest("nations", batch_of(store, withheld[3:8]), source="b").recalibration is None
    )
    due = service.ingest("nations", batch_of(store, withheld[8:12]), source="c").recalibration
    assert due is not None and due.edges_changed == 12  # counted since the calibrated version
    IngestPolicy(on_ingest="mark_stale").write(service.workspace.kg_dir("nations"))
    assert (
        service.ingest("nations", batch_of(store, withheld[12:]), source="d").recalibration is None
    )


def _key(edge: Edge) -> tuple[str, str, str]:
    return (edge.head, edge.relation, edge.tail)


def test_queries_during_an_ingestion_see_one_version(home: tuple[Path, list[Edge]]) -> None:
    """Answers of queries running while versions are swapped are each exactly the old or
    the new version's answers, never a mix."""
    path, withheld = home
    service = QueryService(path, **CHEAP)
    store = service.resources("nations").store
    edge = withheld[0]
    query: dict[str, object] = {
        "op": "project", "relation": edge.relation, "input": {"op": "entity", "id": edge.head}
    }  # fmt: skip
    old = {a.id for a in service.query(query, kg="nations", max_results=1000).answers}
    added = [e for e in withheld if e.head == edge.head and e.relation == edge.relation]
    new = old | {e.tail for e in added}
    assert new != old
    seen: list[set[str]] = []
    stop = threading.Event()

    def ask() -> None:
        while not stop.is_set():
            answers = service.query(query, kg="nations", max_results=1000).answers
            seen.append({a.id for a in answers})

    workers = [threading.Thread(target=ask) for _ in range(3)]
    for worker in workers:
        worker.start()
    try:
        service.ingest("nations", batch_of(store, added), source="swap")
        after = {a.id for a in service.query(query, kg="nations", max_results=1000).answers}
    finally:
        stop.set()
        for worker in workers:
            worker.join()
    assert after == new
    assert seen and all(answers in (old, new) for answers in seen)


def test_a_transductive_model_is_retrained_before_recalibration(
    home: tuple[Path, list[Edge]],
) -> None:
    """A KG embedding cannot score a version it was not trained on: after an ingestion the
    KG is served without it (not refused), and the recalibration retrains it first, says
    so, and saves it for the new version."""
    path, withheld = home
    workspace = Workspace(path)
    store = workspace.load("nations")
    config = TrainingConfig(model="DistMult", embedding_dim=16, max_epochs=5, eval_every=5)
    saved = model_path(workspace, "nations", "DistMult")
    LinkPredictor.train(store, config, progress=False).save(saved)
    service = QueryService(path, use_env_llm=False, progress=False, model="DistMult")
    service.calibrate(kg="nations", topologies=["1p"], alphas=[0.2], queries=60, strata=1,
                      say=lambda _: None)  # fmt: skip
    assert service.resources("nations").retriever.predictor is not None
    ingestion = service.ingest("nations", batch_of(store, withheld), source="new")
    assert service.resources("nations").retriever.predictor is None  # stale: not used
    plan = ingestion.recalibration
    assert plan is not None and plan.neural
    said: list[str] = []
    service.recalibrate("nations", plan, say=said.append)
    assert any("retraining it on version" in line for line in said), said
    assert service.resources("nations").retriever.predictor is not None  # served again
    new_version = workspace.load("nations").version
    assert LinkPredictor.load(saved, kg_version=new_version).kg_version == new_version
