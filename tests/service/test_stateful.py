"""Stateful API fuzzing: schemathesis follows the OpenAPI link from a submitted calibration
job to its status route (admin key sent), so job ids produced by the server are fed back to
it; every step must get a deliberate answer, never a 5xx."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest
import schemathesis
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, settings

from kgrecall.agents import QueryService
from kgrecall.kg import Workspace
from kgrecall.kg.loaders import build_store, load_pykeen_dataset
from kgrecall.service import create_app

ADMIN = {"X-API-Key": "stateful-key"}


@pytest.fixture(scope="module")
def small_service(tmp_path_factory: pytest.TempPathFactory) -> QueryService:
    """Nations saved under the default KG name, with the cheap rule model: generated
    calibration jobs finish in seconds."""
    home = tmp_path_factory.mktemp("stateful-home")
    Workspace(home).save(build_store([load_pykeen_dataset("nations")], name="n"), "demo")
    return QueryService(home, use_env_llm=False, progress=False, model="rules")


def test_calibration_job_links_never_give_a_server_error(small_service: QueryService) -> None:
    app = create_app(small_service, admin_key=ADMIN["X-API-Key"])
    schema = schemathesis.openapi.from_asgi("/openapi.json", app)
    steps: list[tuple[str, int]] = []

    class Fuzzer(schema.as_state_machine()):  # type: ignore[misc]
        def before_call(self, case: schemathesis.Case) -> None:
            # the schema declares the admin key (APIKeyHeader): schemathesis then generates
            # one, which would override the call's header; the fuzz is past authentication
            case.headers = {**(case.headers or {}), **ADMIN}
            if case.operation.path.endswith("/run") and isinstance(case.body, dict):
                # bounded cost: the fuzz is about the API, not calibration breadth
                case.body.update(queries=20, strata=1, topologies=["1p"], methods=["crc"])

        def get_call_kwargs(self, case: schemathesis.Case) -> dict[str, Any]:
            return {"headers": ADMIN}

        def validate_response(self, response: Any, case: schemathesis.Case, **_: Any) -> None:
            steps.append((case.operation.label, response.status_code))
            assert response.status_code < 500, (case.body, response.text)

    Fuzzer.run(
        settings=settings(
            max_examples=5,
            stateful_step_count=4,
            deadline=None,
            suppress_health_check=list(HealthCheck),
        )
    )
    statuses = {status for label, status in steps if "calibration/{job_id}" in label}
    assert statuses & {200}, steps  # a server-made job id was followed to its status
    deadline = time.monotonic() + 120
    jobs = app.state.jobs
    while any(j.status in ("queued", "running") for j in jobs._jobs.values()):
        assert time.monotonic() < deadline, "generated calibration jobs did not finish"
        time.sleep(0.2)
    assert all(j.error is None or "internal error" not in j.error for j in jobs._jobs.values())


def test_the_job_link_is_published(small_service: QueryService) -> None:
    spec = create_app(small_service, admin_key="k").openapi()
    links = spec["paths"]["/v1/platform/calibration/run"]["post"]["responses"]["202"]["links"]
    assert links["GetCalibrationJob"]["operationId"] == "calibration_status"
    status = spec["paths"]["/v1/platform/calibration/{job_id}"]["get"]
    assert status["operationId"] == "calibration_status"


def test_the_calibration_worker_lives_with_the_app_not_its_creation(
    small_service: QueryService,
) -> None:
    def workers() -> int:
        return sum(t.name == "calibration" and t.is_alive() for t in threading.enumerate())

    before = workers()
    app = create_app(small_service, admin_key=ADMIN["X-API-Key"])
    jobs = app.state.jobs
    assert not jobs.running and workers() == before  # making the app starts nothing
    with TestClient(app):
        assert jobs.running and workers() == before + 1
    assert not jobs.running and workers() == before  # shutdown ended the worker
    with TestClient(app):  # served again: a fresh worker
        assert jobs.running
    assert not jobs.running
