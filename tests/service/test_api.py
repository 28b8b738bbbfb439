"""The HTTP API in-process: the spec's routes, validation, limits, auth, errors, jobs."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from kgrecall.agents import QueryService
from kgrecall.agents.service import calibration_store
from kgrecall.calibration import CalibrationKey
from kgrecall.kg import DEMO_NAME, KGError, Workspace
from kgrecall.service import create_app
from tests.conftest import PD4_GENES
from tests.service.conftest import ADMIN_KEY

QUESTION = "Which genes are associated with Parkinson disease 4?"
TREE = PD4_GENES


def test_health_databases_and_openapi(client: TestClient, service: QueryService) -> None:
    health = client.get("/v1/health").json()
    assert health == {"status": "ok", "version": "0.1.0", "llm": False, "admin_auth": True}
    (demo,) = client.get("/v1/databases").json()
    store = service.resources("demo").store
    assert demo["name"] == "demo" and demo["nodes"] == store.number_of_nodes() > 8000
    assert demo["edges"] == store.number_of_edges()
    schema = client.get("/openapi.json").json()
    paths = schema["paths"]
    assert {"/v1/query", "/v1/query/structured", "/v1/ground"} <= set(paths)
    assert "/v1/platform/calibration/{job_id}" in paths
    # the admin key is a documented security scheme, required by the platform routes only
    scheme = schema["components"]["securitySchemes"]["AdminKey"]
    assert scheme == {**scheme, "type": "apiKey", "in": "header", "name": "X-API-Key"}
    secured = {
        path
        for path, operations in paths.items()
        for operation in operations.values()
        if {"AdminKey": []} in operation.get("security", [])
    }
    assert secured == {p for p in paths if p.startswith("/v1/platform/")}


def test_query_as_in_the_spec(client: TestClient) -> None:
    reply = client.post(
        "/v1/query", json={"query": QUESTION, "completeness": "thorough", "max_results": 5}
    )
    assert reply.status_code == 200
    body = reply.json()
    assert {"answer", "sources", "completeness", "grounding"} <= set(body)
    assert body["answers"][0]["id"] == "NCBIGene:6622"
    assert body["completeness"]["level"] == "thorough"
    assert body["completeness"]["recall_target"] == pytest.approx(0.8)
    assert set(body["completeness"]) >= {
        "estimated_recall", "guarantee", "neural_augmented", "retrieval_only_hops",
        "hybrid_hops", "calibration_id",
    }  # fmt: skip
    assert body["grounding"]["counts"]["grounded"] == 1
    assert body["sources"][0] == {
        "head": "NCBIGene:6622", "relation": "associated_with", "tail": "OMIM:605543",
        "sources": ["hpo3:derived"], "confidence": body["sources"][0]["confidence"],
    }  # fmt: skip


def test_a_guessed_reading_is_flagged_in_the_response(client: TestClient) -> None:
    # no reader knows "act on": the schema reader's tree comes back marked as a guess
    body = client.post("/v1/query", json={"query": "Which ligands act on TrkA or TrkB?"}).json()
    assert body["plan"]["guessed"] is True
    assert any(note.startswith("guessed: ") for note in body["notes"])
    assert "Guessed: the question's phrase structure was not recognised" in body["answer"]
    assert {a["name"] for a in body["answers"]} >= {"NGF", "BDNF"}


def test_structured_query_and_ground(client: TestClient) -> None:
    reply = client.post("/v1/query/structured", json={"query": TREE, "recall_target": 0.9})
    assert reply.status_code == 200 and reply.json()["answers"][0]["name"] == "SNCA"
    grounded = client.post(
        "/v1/ground", json={"report": "SNCA is associated with Parkinson disease 4."}
    )
    assert grounded.json()["claims"][0]["label"] == "grounded"


@pytest.mark.parametrize(
    ("path", "body", "status", "fragment"),
    [
        ("/v1/query", {"query": ""}, 422, "query"),
        ("/v1/query", {"query": QUESTION, "max_results": 5000}, 422, "max_results"),
        ("/v1/query", {"query": QUESTION, "completeness": "instant"}, 422, "completeness"),
        ("/v1/query", {"query": QUESTION, "database": "nope"}, 404, "no KG named 'nope'"),
        ("/v1/query", {"query": "Which genes encode Parkinson disease 4?"}, 422, "could not read"),
        ("/v1/query/structured", {"query": {"op": "teleport"}}, 422, "query"),
        (
            "/v1/query/structured",
            {"query": {**TREE, "relation": "cures"}},
            400,
            "unknown relation 'cures'",
        ),
        (
            "/v1/query/structured",
            {"query": {**TREE, "input": {"op": "entity", "id": "OMIM:60554"}}},
            404,
            "closest matches",
        ),
        ("/v1/ground", {"report": "abc\u0000def"}, 400, "NUL bytes"),
        ("/v1/ground", {}, 422, "report"),
    ],
)
def test_bad_input_is_a_clear_error(
    client: TestClient, path: str, body: dict[str, object], status: int, fragment: str
) -> None:
    reply = client.post(path, json=body)
    assert reply.status_code == status, reply.text
    assert fragment in reply.text
    assert "Traceback" not in reply.text


def test_bodies_over_the_limit_are_refused_unread(client: TestClient) -> None:
    reply = client.post("/v1/ground", json={"report": "SNCA. " * 50_000})
    assert reply.status_code == 413 and "larger than 200,000 bytes" in reply.text


def test_internal_errors_hide_the_trace(
    service: QueryService, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*_: object, **__: object) -> None:
        raise RuntimeError("secret internals")

    monkeypatch.setattr(service, "ground", broken)
    with TestClient(create_app(service, admin_key="k"), raise_server_exceptions=False) as client:
        reply = client.post("/v1/ground", json={"report": "SNCA."})
    assert reply.status_code == 500
    body = reply.json()
    assert body["error"] == "internal error" and len(body["request_id"]) == 12
    assert "secret" not in reply.text and "Traceback" not in reply.text


def test_requests_time_out(service: QueryService, monkeypatch: pytest.MonkeyPatch) -> None:
    def slow(*_: object, **__: object) -> None:
        time.sleep(1.0)

    monkeypatch.setattr(service, "ground", slow)
    api = create_app(service, admin_key="k", timeout_s=0.2)
    with TestClient(api, raise_server_exceptions=False) as client:
        reply = client.post("/v1/ground", json={"report": "SNCA."})
    assert reply.status_code == 504 and "longer than 0.2 s" in reply.text


def test_admin_routes_need_a_key(client: TestClient, service: QueryService) -> None:
    body = {"database": "demo", "topologies": ["1p"], "risk_budgets": [0.2]}
    assert client.post("/v1/platform/calibration/run", json=body).status_code == 401
    wrong = client.post("/v1/platform/calibration/run", json=body, headers={"X-API-Key": "guess"})
    assert wrong.status_code == 401
    assert client.get("/v1/platform/calibration/x").status_code == 401
    with pytest.raises(KGError, match="need an admin key"):
        create_app(service, admin_key=None)
    open_api = create_app(service, admin_key=None, allow_unauthenticated_admin=True)
    with TestClient(open_api) as local:
        assert local.get("/v1/platform/calibration/x").status_code == 404  # open, no such job


def test_calibration_job_runs_in_the_background(fresh_demo_home: Path) -> None:
    home = fresh_demo_home
    service = QueryService(home, use_env_llm=False, progress=False)
    headers = {"X-API-Key": ADMIN_KEY}
    with TestClient(create_app(service, admin_key=ADMIN_KEY)) as client:
        refused = client.post(
            "/v1/platform/calibration/run",
            json={"topologies": ["1p"], "risk_budgets": [1.5]},
            headers=headers,
        )
        assert refused.status_code == 422 and "risk_budgets" in refused.text
        started = client.post(
            "/v1/platform/calibration/run",
            json={"topologies": ["1p"], "risk_budgets": [0.2], "queries": 60},
            headers=headers,
        )
        assert started.status_code == 202
        job_id = started.json()["job_id"]
        assert started.json()["status"] in ("queued", "running")
        client.app.state.jobs.wait(job_id, timeout_s=300)  # type: ignore[attr-defined]
        status = client.get(f"/v1/platform/calibration/{job_id}", headers=headers).json()
    assert status["status"] == "done", status
    (record,) = status["result"]
    assert record["topology"] == "1p" and record["recall_target"] == pytest.approx(0.8)
    assert status["progress"][-1].startswith("saved 1 calibrations")
    kg = Workspace(home).load(DEMO_NAME)
    model = service.resources(DEMO_NAME).retriever.predictor_id
    # the default: zero-shot ULTRA and mined rules, nothing trained
    assert model.startswith("Ensemble[noisy-or](0.03×ULTRA:ultra_50g:")
    assert "+1×Rules:len2:" in model
    found = calibration_store(Workspace(home)).find(
        CalibrationKey(DEMO_NAME, kg.version, model, "1p", 0.2, "crc", "none")
    )
    assert not isinstance(found, str) and found.id == record["calibration_id"]


def test_search_and_schema_routes(client: TestClient) -> None:
    found = client.get("/v1/search", params={"text": "DJ-1", "k": 2}).json()
    assert found["linked"] and found["hits"][0]["name"] == "PARK7"
    typed = client.get("/v1/search", params=[("text", "SNCA"), ("node_types", "protein")]).json()
    assert {hit["type"] for hit in typed["hits"]} == {"protein"}
    assert client.get("/v1/search", params={"text": "SNCA", "k": 0}).status_code == 422
    assert client.get("/v1/search", params={"text": "x", "database": "nope"}).status_code == 404
    schema = client.get("/v1/schema").json()
    assert schema["node_types"]["gene"] > 100
    names = {r["name"] for r in schema["relations"]}
    assert {"associated_with", "has_phenotype", "subclass_of", "interacts_with"} <= names
