"""Reliability: schemathesis against the OpenAPI spec, a loopback load test, kill -9 of a
server in the middle of a calibration job, and loader fuzzing with hypothesis."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
import schemathesis
from fastapi import FastAPI
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kgrecall.agents import QueryService
from kgrecall.agents.service import calibration_store
from kgrecall.calibration import NO_PREDICTOR, CalibrationKey
from kgrecall.kg import DEMO_NAME, KGError, Workspace, load_graph
from kgrecall.kg.loaders import load_tsv
from tests.conftest import PD4_GENES
from tests.service.conftest import free_port

PUBLIC_OPERATIONS = [
    ("/v1/query", "POST"),
    ("/v1/query/structured", "POST"),
    ("/v1/ground", "POST"),
    ("/v1/health", "GET"),
    ("/v1/databases", "GET"),
]


@pytest.mark.parametrize(("path", "method"), PUBLIC_OPERATIONS)
def test_no_server_errors_on_generated_requests(api: FastAPI, path: str, method: str) -> None:
    """schemathesis generates requests from the published OpenAPI spec (valid and
    invalid): every one gets a deliberate answer, never a 5xx."""
    operation = schemathesis.openapi.from_asgi("/openapi.json", api)[path][method]

    @given(case=operation.as_strategy())
    @settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
    def check(case: schemathesis.Case) -> None:
        response = case.call()
        assert response.status_code < 500, (case.body, response.text)

    check()


@pytest.mark.parametrize("level", ["fast", "thorough"])
def test_concurrent_queries_over_loopback(live_server: str, level: str) -> None:
    questions = [
        "Which genes are associated with Parkinson disease 4?",
        "Which phenotypes do diseases associated with SNCA have?",
        "What phenotypes does Parkinson disease 4 have?",
        "genes associated with either Parkinson disease 4 or Parkinson disease 11",
    ]

    async def burst() -> list[httpx.Response]:
        limits = httpx.Limits(max_connections=100)
        async with httpx.AsyncClient(base_url=live_server, timeout=120, limits=limits) as client:
            return await asyncio.gather(
                *(
                    client.post(
                        "/v1/query",
                        json={"query": questions[i % 4], "completeness": level, "max_results": 5},
                    )
                    for i in range(100)
                )
            )

    replies = asyncio.run(burst())
    assert [r.status_code for r in replies] == [200] * 100
    by_question: dict[str, set[tuple[str, ...]]] = {}
    for i, reply in enumerate(replies):
        ids = tuple(a["id"] for a in reply.json()["answers"])
        by_question.setdefault(questions[i % 4], set()).add(ids)
    assert all(len(seen) == 1 for seen in by_question.values())  # same answers under load


@pytest.mark.timeout(600)
def test_kill_9_during_a_calibration_job_keeps_the_previous_one(fresh_demo_home: Path) -> None:
    home = fresh_demo_home
    service = QueryService(home, use_env_llm=False, progress=False)
    records, _ = service.calibrate(topologies=["1p"], alphas=[0.2], queries=60, strata=1,
                                   neural=False, say=lambda _: None)  # fmt: skip
    previous = records[0].id
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "kgrecall", "serve", "--port", str(port), "--home", str(home),
         "--no-admin-auth"],
        env={**os.environ, "OPENAI_API_KEY": ""},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"{base}/v1/health").status_code == 200:
                    break
            except httpx.TransportError:
                time.sleep(0.2)
        job = httpx.post(
            f"{base}/v1/platform/calibration/run",
            json={"topologies": ["1p", "2p", "2i", "2u", "3p"], "risk_budgets": [0.2, 0.1],
                  "queries": 3000, "strata": 2},
        ).json()  # fmt: skip
        while (
            httpx.get(f"{base}/v1/platform/calibration/{job['job_id']}").json()["status"]
            == "queued"
        ):
            time.sleep(0.1)
        time.sleep(2.0)  # well inside the job (it runs for minutes)
        status = httpx.get(f"{base}/v1/platform/calibration/{job['job_id']}").json()["status"]
        assert status == "running"
    finally:
        server.send_signal(signal.SIGKILL)
        server.wait(timeout=30)
    store = calibration_store(Workspace(home))
    kg = Workspace(home).load(DEMO_NAME)
    key = CalibrationKey(DEMO_NAME, kg.version, NO_PREDICTOR, "1p", 0.2, "crc", "none")
    found = store.find(key)
    assert not isinstance(found, str) and found.id == previous
    assert [r.id for r in store.all()] == [previous]  # nothing half-written
    tree = PD4_GENES
    used = QueryService(home, use_env_llm=False, progress=False).query(tree, level="thorough")
    assert used.completeness.calibration_id == previous  # the previous calibration in use
    # it was calibrated without the (zero-shot ULTRA) model, so it runs without it
    assert used.completeness.notes[0].startswith("calibrated without a completion model")
    assert not used.completeness.neural_augmented


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.binary(max_size=400) | st.text(max_size=400).map(str.encode))
def test_tsv_loader_fuzzing_only_documented_errors(tmp_path: Path, data: bytes) -> None:
    path = tmp_path / "fuzz.tsv"
    path.write_bytes(data)
    with contextlib.suppress(KGError):  # the documented error (file, line, field)
        load_tsv(path)  # anything else escapes and fails the test


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=20,
)


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    st.fixed_dictionaries(
        {"format": st.sampled_from(["kgrecall.kg", "x"]), "schema_version": st.integers(0, 2)},
        optional={"nodes": JSON_VALUES, "edges": JSON_VALUES, "schema": JSON_VALUES,
                  "version": st.text(max_size=8), "metadata": JSON_VALUES},
    ) | JSON_VALUES
)  # fmt: skip
def test_graph_loader_fuzzing_only_documented_errors(tmp_path: Path, document: object) -> None:
    path = tmp_path / "fuzz.json"
    path.write_text(json.dumps(document))
    with contextlib.suppress(KGError):  # KGLoadError names the file and the field
        load_graph(path)
