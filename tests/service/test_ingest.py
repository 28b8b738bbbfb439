"""``POST /v1/platform/ingest`` (issue #20): admin only, records validated with the field
named, a new version served at once, and the policy's recalibration run as a job."""

from __future__ import annotations

from pathlib import Path

from fastapi.testclient import TestClient

from kgrecall.agents import QueryService
from kgrecall.kg import Workspace
from kgrecall.service import create_app
from tests.agents.test_ingestion import CHEAP, nations_withheld

KEY = {"X-API-Key": "ingest-key"}


def test_ingest_over_http_serves_the_new_version_and_recalibrates(tmp_path: Path) -> None:
    store, withheld = nations_withheld()
    Workspace(tmp_path).save(store, "nations")
    service = QueryService(tmp_path, **CHEAP)
    service.calibrate(
        kg="nations", topologies=["1p"], alphas=[0.2], queries=60, strata=1, neural=False,
        say=lambda _: None,
    )  # fmt: skip
    edges = [{"head": e.head, "relation": e.relation, "tail": e.tail} for e in withheld]
    body = {"database": "nations", "edges": edges, "allow_new_relations": True, "source": "b1"}
    edge = withheld[0]
    tree = {"op": "project", "relation": edge.relation, "input": {"op": "entity", "id": edge.head}}
    with TestClient(create_app(service, admin_key=KEY["X-API-Key"])) as client:
        assert client.post("/v1/platform/ingest", json=body).status_code == 401
        bad = {**body, "edges": [*edges[:2], {"head": edge.head, "relation": edge.relation}]}
        refused = client.post("/v1/platform/ingest", json=bad, headers=KEY)
        assert refused.status_code == 400
        assert "edges[2]: field tail: must be a non-empty string" in refused.text
        unknown = client.post("/v1/platform/ingest", json={**body, "database": "nope"}, headers=KEY)
        assert unknown.status_code == 404
        before = client.post(
            "/v1/query/structured", json={"query": tree, "database": "nations", "max_results": 100}
        ).json()
        assert edge.tail not in {a["id"] for a in before["answers"]}

        reply = client.post("/v1/platform/ingest", json=body, headers=KEY)
        assert reply.status_code == 200, reply.text
        done = reply.json()
        assert sum(done["change"]["edges_added"].values()) == len(withheld)
        assert done["recalibration"]["topologies"] == ["1p"] and done["job_id"]
        after = client.post(
            "/v1/query/structured", json={"query": tree, "database": "nations", "max_results": 100}
        ).json()
        assert edge.tail in {a["id"] for a in after["answers"]}  # served at once

        client.app.state.jobs.wait(done["job_id"], timeout_s=120)  # type: ignore[attr-defined]
        job = client.get(f"/v1/platform/calibration/{done['job_id']}", headers=KEY).json()
        assert job["status"] == "done", job
        assert job["progress"][0].startswith("recalibration after ingesting b1")
        calibrated = client.post(
            "/v1/query/structured",
            json={"query": tree, "database": "nations", "completeness": "thorough"},
        ).json()["completeness"]
    assert calibrated["calibrated_kg_version"] is None
    assert calibrated["calibration_id"] == job["result"][0]["calibration_id"]
