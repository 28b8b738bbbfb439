"""Issue #20's monitor: served queries logged, re-checked when new facts arrive, feedback
counted, binomial intervals exact, drift flagged."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from scipy.stats import binomtest

from kgrecall.agents import QueryService
from kgrecall.agents.monitor import (
    ALL_RELATIONS,
    MonitorReport,
    MonitorRow,
    clopper_pearson,
    plot_versions,
)
from kgrecall.errors import NotFoundError
from kgrecall.kg import Edge, KGError, Workspace
from kgrecall.service import create_app
from tests.agents.test_ingestion import CHEAP, batch_of, nations_withheld


@pytest.mark.parametrize(("successes", "trials"), [(0, 5), (5, 5), (37, 50), (1, 1000)])
def test_clopper_pearson_matches_scipys_exact_interval(successes: int, trials: int) -> None:
    low, high = clopper_pearson(successes, trials, 0.95)
    expected = binomtest(successes, trials).proportion_ci(0.95, method="exact")
    assert low == pytest.approx(expected.low, abs=1e-9)
    assert high == pytest.approx(expected.high, abs=1e-9)
    with pytest.raises(KGError):
        clopper_pearson(0, 0, 0.95)


def overall(report: MonitorReport) -> MonitorRow:
    """The report's one row over every query (its other rows are per relation)."""
    (row,) = [r for r in report.rows if r.relations == ALL_RELATIONS]
    return row


@pytest.fixture
def logged(tmp_path: Path) -> tuple[QueryService, list[Edge]]:
    store, withheld = nations_withheld()
    Workspace(tmp_path).save(store, "nations")
    service = QueryService(tmp_path, query_log="full", **CHEAP)
    service.calibrate(
        kg="nations", topologies=["1p"], alphas=[0.2], queries=60, strata=1, neural=False,
        say=lambda _: None,
    )  # fmt: skip
    return service, withheld


def test_new_facts_are_checked_against_the_sets_served_before(
    logged: tuple[QueryService, list[Edge]], tmp_path: Path
) -> None:
    service, withheld = logged
    old = service.resources("nations").store
    asked = sorted({(e.head, e.relation) for e in withheld})[:40]
    served: dict[tuple[str, str], set[str]] = {}
    for head, relation in asked:
        tree = {"op": "project", "relation": relation, "input": {"op": "entity", "id": head}}
        reply = service.query(tree, kg="nations", level="thorough", max_results=1000)
        assert reply.completeness.query_id and reply.total <= 1000
        served[(head, relation)] = {a.id for a in reply.answers}
    ingestion = service.ingest("nations", batch_of(old, withheld), source="all")
    assert ingestion.rechecked_queries == len(asked)
    new_store = service.resources("nations").store
    # independently: the truth now is the projection on the new version; new answers its
    # growth; covered, those of the set served before
    recalls, new, new_covered = [], 0, 0
    for (head, relation), answers in served.items():
        truth = new_store.project([head], relation)
        grown = truth - old.project([head], relation)
        new += len(grown)
        new_covered += len(grown & answers)
        recalls.append(len(truth & answers) / len(truth))
    assert new > 0
    row = overall(service.monitor("nations"))
    assert (row.topology, row.target, row.queries) == ("1p", pytest.approx(0.8), len(asked))
    assert row.recall is not None and row.new_facts is not None
    assert row.recall.value == pytest.approx(sum(recalls) / len(recalls))
    assert row.recall.n == len(asked)
    assert (row.new_facts.n, row.new_facts.value) == (new, pytest.approx(new_covered / new))
    assert row.new_facts.interval == pytest.approx(clopper_pearson(new_covered, new, 0.95))
    # per relation asked about: the same recalls, grouped
    by_relation = [r for r in service.monitor("nations").rows if r.relations != ALL_RELATIONS]
    assert sorted(r.relations for r in by_relation) == sorted({rel for _, rel in asked})
    assert sum(r.queries for r in by_relation) == len(asked)
    weighted = sum(r.recall.value * r.recall.n for r in by_relation if r.recall)
    assert weighted / len(asked) == pytest.approx(row.recall.value)
    (version,) = service.monitor("nations").versions
    assert version.kg_version == new_store.version
    assert version.recall.value == pytest.approx(row.recall.value)
    assert service.query_log is not None
    assert service.query_log.recheck("nations", new_store) == 0  # each version once
    assert plot_versions(service.monitor(), tmp_path / "monitor.png").stat().st_size > 1000


def test_feedback_is_stored_and_counted(
    logged: tuple[QueryService, list[Edge]],
) -> None:
    service, withheld = logged
    edge = withheld[0]
    tree = {"op": "project", "relation": edge.relation, "input": {"op": "entity", "id": edge.head}}
    reply = service.query(tree, kg="nations", level="thorough")
    query_id = reply.completeness.query_id
    assert query_id is not None
    # facts the KG lacks (the feedback loop is how users report them), so unknown ids too
    missed = [f"NEW:{number}" for number in range(6)]
    service.feedback(query_id, missed=missed, wrong=[reply.answers[0].id])
    row = overall(service.monitor("nations"))
    assert row.missed_by_feedback == len(missed) and row.wrong_by_feedback == 1
    assert row.new_facts is not None and row.recall is not None
    assert (row.new_facts.n, row.new_facts.value) == (len(missed), 0.0)
    # known truth: the retrieved answers and the reported ones; covered: the retrieved
    known = reply.completeness.retrieved_answers
    assert row.recall.value == pytest.approx(known / (known + len(missed)))
    assert not row.drift  # one query: its interval is [0, 1]
    with pytest.raises(NotFoundError, match="no logged query 'nope'"):
        service.feedback("nope", missed=["x"], wrong=[])
    with pytest.raises(KGError, match="at least one"):
        service.feedback(query_id, missed=[], wrong=[])
    off = QueryService(service.workspace.home, **CHEAP)
    with pytest.raises(KGError, match="needs query logging"):
        off.feedback(query_id, missed=["x"], wrong=[])


def test_hashed_logging_keeps_no_query_and_feedback_still_counts(tmp_path: Path) -> None:
    store, withheld = nations_withheld()
    Workspace(tmp_path).save(store, "nations")
    service = QueryService(tmp_path, query_log="hashed", **CHEAP)
    edge = withheld[0]
    tree = {"op": "project", "relation": edge.relation, "input": {"op": "entity", "id": edge.head}}
    query_id = service.query(tree, kg="nations").completeness.query_id
    assert query_id is not None
    assert service.query_log is not None
    with service.query_log._connect() as db:
        assert db.execute("SELECT tree, returned FROM queries").fetchall() == [(None, None)]
    assert service.ingest("nations", batch_of(store, withheld), source="x").rechecked_queries == 0
    with pytest.raises(KGError, match="invalid query log mode 'loud'"):
        QueryService(tmp_path, query_log="loud", **CHEAP)


def test_feedback_and_monitor_over_http(logged: tuple[QueryService, list[Edge]]) -> None:
    service, withheld = logged
    edge = withheld[0]
    tree = {"op": "project", "relation": edge.relation, "input": {"op": "entity", "id": edge.head}}
    key = {"X-API-Key": "k"}
    with TestClient(create_app(service, admin_key="k")) as client:
        reply = client.post(
            "/v1/query/structured",
            json={"query": tree, "database": "nations", "completeness": "thorough"},
        ).json()
        query_id = reply["completeness"]["query_id"]
        stored = client.post("/v1/feedback", json={"query_id": query_id, "missed": [edge.tail]})
        assert stored.status_code == 201, stored.text
        unknown = client.post("/v1/feedback", json={"query_id": "nope", "missed": ["x"]})
        assert unknown.status_code == 404 and "no logged query" in unknown.text
        assert client.get("/v1/platform/monitor").status_code == 401
        report = client.get("/v1/platform/monitor?database=nations", headers=key).json()
    assert report["rows"][0]["missed_by_feedback"] == 1


def test_drift_is_flagged_when_the_target_lies_above_the_interval(
    logged: tuple[QueryService, list[Edge]],
) -> None:
    service, withheld = logged
    heads = sorted({(e.head, e.relation) for e in withheld})[:20]
    for number, (head, relation) in enumerate(heads):
        tree = {"op": "project", "relation": relation, "input": {"op": "entity", "id": head}}
        reply = service.query(tree, kg="nations", level="thorough")
        assert reply.completeness.query_id is not None
        if number % 2 == 0:  # half the users report many answers the set missed
            missed = [f"NEW:{number}:{i}" for i in range(4 * reply.completeness.retrieved_answers)]
            service.feedback(reply.completeness.query_id, missed=missed, wrong=[])
    row = overall(service.monitor("nations"))
    assert row.recall is not None and row.recall.n == len(heads)
    assert row.recall.value == pytest.approx(0.5 * 1.0 + 0.5 * 0.2)
    assert row.drift and row.recall.interval[1] < 0.8
