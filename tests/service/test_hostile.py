"""Issue #19's reproductions against the HTTP API: nothing a caller sends freezes, exhausts or
crashes the server (in process, and over a loopback port for chunked uploads)."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient

from kgrecall.agents import QueryService
from kgrecall.calibration import SQLiteCalibrationStore
from kgrecall.kg import KGError
from kgrecall.service import create_app
from tests.conftest import PD4_GENES

QUESTION = "Which genes are associated with Parkinson disease 4?"
LIMIT = 200_000  # the session app's max_body_bytes (tests/service/conftest.py)


def test_quadratic_reports_answer_promptly(service: QueryService) -> None:
    """A sentence ending in 40,000 dots took 69 s and froze /v1/health; a table row of
    spaces 26 s for 32 k. (Measured without the heavy lane, which paces large reports.)"""
    unpaced = create_app(service, admin_key="k", heavy_report_chars=10**9)
    client = TestClient(unpaced, raise_server_exceptions=False)
    started = time.perf_counter()
    for report in (
        "SNCA is associated with Parkinson disease 4" + "." * 40_000 + "x",
        "SNCA is associated with Parkinson disease 4" + "!?" * 20_000 + "x",
        "| --" + " " * 32_000 + "x",
        "SNCA " + "HP:0001300 " * 8_000,
    ):
        reply = client.post("/v1/ground", json={"report": report})
        assert reply.status_code == 200, reply.text[:300]
    assert time.perf_counter() - started < 20.0


def test_a_timed_out_request_stops_its_work(
    service: QueryService, monkeypatch: pytest.MonkeyPatch
) -> None:
    """After the 504 the grounding stops at its next deadline check instead of running on
    (a 140 KB report kept 60 % of a core busy for 5+ minutes after its 504)."""
    extractor = service.resources("demo").validator.extractor
    original = extractor.extract

    def slow_extract(text: str, **options: Any) -> object:
        time.sleep(0.02)  # 400 claims × 20 ms: 8 s of work without a deadline
        return original(text, **options)

    finished = threading.Event()
    ground = service.ground

    def watched_ground(report: str, *, kg: str = "demo") -> object:
        try:
            return ground(report, kg=kg)
        finally:
            finished.set()

    monkeypatch.setattr(extractor, "extract", slow_extract)
    monkeypatch.setattr(service, "ground", watched_ground)
    api = create_app(service, admin_key="k", timeout_s=0.5)
    with TestClient(api, raise_server_exceptions=False) as client:
        started = time.perf_counter()
        reply = client.post("/v1/ground", json={"report": "SNCA causes PD. " * 400})
        assert reply.status_code == 504 and "longer than 0.5 s" in reply.text
        assert finished.wait(timeout=2.0), "the work went on after the 504"
    assert time.perf_counter() - started < 3.0


def chunks(total: int, size: int = 64 * 1024) -> Iterator[bytes]:
    """A JSON body of ``total`` bytes in chunks (no Content-Length: chunked upload)."""
    yield b'{"report": "'
    for _ in range(total // size):
        yield b"x" * size
    yield b'"}'


def test_chunked_uploads_over_the_limit_are_refused_in_process(client: TestClient) -> None:
    reply = client.post(
        "/v1/ground", content=chunks(5 * LIMIT), headers={"content-type": "application/json"}
    )
    assert reply.status_code == 413 and "larger than 200,000 bytes" in reply.text
    assert len(reply.content) < 200


def test_reports_too_long_to_ground_in_time_are_refused_before_they_are_read(
    service: QueryService,
) -> None:
    """``/v1/ground`` has its own body limit (1 MiB by default, below the general one): a
    larger report could not be grounded within the request timeout, and reading it cost the
    event loop under a hostile mix. Other routes keep the general limit."""
    app = create_app(service, admin_key="k", max_body_bytes=8_000_000)
    client = TestClient(app, raise_server_exceptions=False)
    headers = {"content-type": "application/json"}
    streamed = client.post("/v1/ground", content=chunks(2_000_000), headers=headers)
    assert streamed.status_code == 413 and "larger than 1,048,576 bytes" in streamed.text
    sized = client.post("/v1/ground", json={"report": "x" * 1_100_000})
    assert sized.status_code == 413 and "larger than 1,048,576 bytes" in sized.text
    ingest = client.post(
        "/v1/platform/ingest",
        content=b"{" + b" " * 1_100_000 + b"}",
        headers={**headers, "X-API-Key": "k"},
    )
    assert ingest.status_code != 413  # read and refused for what it is, not by its size


def test_chunked_uploads_over_the_limit_are_refused_over_loopback(live_server: str) -> None:
    """Through uvicorn with ``Transfer-Encoding: chunked``: 9–200 MB bodies were all read and
    a 100 MB one echoed back in a 100 MB 422."""
    with httpx.Client(base_url=live_server, timeout=30) as http:
        reply = http.post(
            "/v1/ground", content=chunks(50 * LIMIT), headers={"content-type": "application/json"}
        )
        assert reply.status_code == 413 and len(reply.content) < 200
        small = http.post(
            "/v1/ground",
            content=iter([b'{"report": "SNCA is associated ', b'with Parkinson disease 4."}']),
            headers={"content-type": "application/json"},
        )
    assert small.status_code == 200 and small.json()["counts"]["grounded"] == 1


def test_validation_errors_never_echo_the_input(client: TestClient) -> None:
    junk = "y" * 150_000
    reply = client.post("/v1/ground", json={"report": 5, "database": junk})
    assert reply.status_code == 422 and len(reply.content) < 2_000
    fields = {error["field"] for error in reply.json()["detail"]}
    assert fields == {"body.report", "body.database"}
    tag = client.post("/v1/query/structured", json={"query": {"op": junk[:20_000]}})
    assert tag.status_code == 422 and len(tag.content) < 2_000 and "op" in tag.text


@pytest.mark.parametrize(
    ("body", "field"),
    [
        (b'{"query": "Which genes?", "recall_target": NaN}', "recall_target"),
        (b'{"query": "Which genes?", "recall_target": Infinity}', "recall_target"),
        (b'{"query": "Which genes?", "recall_target": -Infinity}', "recall_target"),
        (b'{"query": "\\ud800 genes"}', "query"),
        (b'{"query": "Which genes?", "database": "\\udfff"}', "database"),
    ],
)
def test_unrepresentable_input_is_a_422_not_a_500(
    client: TestClient, body: bytes, field: str
) -> None:
    reply = client.post("/v1/query", content=body, headers={"content-type": "application/json"})
    assert reply.status_code == 422, reply.text
    assert reply.json()["detail"][0]["field"] == f"body.{field}"


def test_surrogates_in_a_query_tree_are_a_422(client: TestClient) -> None:
    body = b'{"query": {"op": "\\ud800"}}'
    reply = client.post(
        "/v1/query/structured", content=body, headers={"content-type": "application/json"}
    )
    assert reply.status_code == 422


@pytest.mark.parametrize(
    ("path", "body", "field"),
    [
        ("/v1/query", {"query": QUESTION, "max_results": "5"}, "max_results"),
        ("/v1/query", {"query": QUESTION, "max_results": True}, "max_results"),
        ("/v1/query", {"query": QUESTION, "max_results": 5.0}, "max_results"),
        ("/v1/query", {"query": QUESTION, "recall_target": "0.9"}, "recall_target"),
        ("/v1/query", {"query": QUESTION, "ground": "yes"}, "ground"),
        ("/v1/query", {"query": QUESTION, "k": 5}, "k"),
        ("/v1/query/structured", {"query": PD4_GENES, "max_results": "5"}, "max_results"),
        ("/v1/query/structured", {"query": {**PD4_GENES, "hops": 2}}, "hops"),
        ("/v1/query/structured", {"query": {**PD4_GENES, "relation": "r" * 10**4}}, "relation"),
        ("/v1/ground", {"report": "SNCA.", "verbose": True}, "verbose"),
    ],
)
def test_lenient_input_is_refused(
    client: TestClient, path: str, body: dict[str, object], field: str
) -> None:
    reply = client.post(path, json=body)
    assert reply.status_code == 422, reply.text
    assert any(error["field"].endswith(field) for error in reply.json()["detail"])


def test_wide_and_deep_trees_are_refused_before_any_work(client: TestClient) -> None:
    """A union of 10 k branches took 17 s and 1.1 GB; a has_phenotype chain of depth 250
    50 s and a 26.6 MB response."""
    wide = {"op": "union", "inputs": [PD4_GENES] * 20}
    huge = {"op": "union", "inputs": [PD4_GENES] * 10_000}  # 1 MB: refused by its size
    deep: dict[str, object] = {"op": "entity", "id": "OMIM:605543"}
    for level in range(250):
        deep = {"op": "project", "relation": "has_phenotype", "inverse": level % 2 == 1,
                "input": deep}  # fmt: skip
    started = time.perf_counter()
    refused = client.post("/v1/query/structured", json={"query": wide})
    too_deep = client.post("/v1/query/structured", json={"query": deep})
    assert time.perf_counter() - started < 5.0
    assert refused.status_code == 422 and "max_branches=16" in refused.text
    too_big = client.post("/v1/query/structured", json={"query": huge})
    assert too_big.status_code == 413 and "65,536 bytes" in too_big.text
    assert too_deep.status_code == 422 and "max_depth=8" in too_deep.text
    real = {"op": "intersect", "inputs": [PD4_GENES, PD4_GENES, PD4_GENES]}
    assert client.post("/v1/query/structured", json={"query": real}).status_code == 200


def test_an_unknown_kg_is_a_404_that_lists_nothing(client: TestClient) -> None:
    for path, body in [
        ("/v1/query", {"query": QUESTION, "database": "nope"}),
        ("/v1/query/structured", {"query": PD4_GENES, "database": "nope"}),
        ("/v1/ground", {"report": "SNCA.", "database": "nope"}),
    ]:
        reply = client.post(path, json=body)
        assert reply.status_code == 404 and "no KG named 'nope'" in reply.text
        assert "demo" not in reply.text and "/v1/databases" in reply.text


def test_admin_auth_cannot_be_disabled_off_loopback(
    service: QueryService, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("KGRECALL_ADMIN_KEY", raising=False)
    for host in ("0.0.0.0", "192.168.1.10", "::", "example.org"):
        with pytest.raises(KGError, match="refusing to serve"):
            create_app(service, allow_unauthenticated_admin=True, host=host)
    monkeypatch.setenv("KGRECALL_ADMIN_AUTH", "disabled")
    with pytest.raises(KGError, match="without admin auth"):
        create_app(service, host="0.0.0.0")
    for host in ("127.0.0.1", "::1", "[::1]", "localhost", "127.0.0.2"):
        create_app(service, host=host)  # local use stays possible
    create_app(service, admin_key="k", host="0.0.0.0")  # with a key: any host


def test_a_broken_calibration_store_answers_uncalibrated_without_its_path(
    client: TestClient, service: QueryService, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A corrupt store was a 400 that disclosed the server path; a moved one a 500."""
    corrupt = tmp_path / "calibration.sqlite"
    corrupt.write_bytes(b"not a database" * 100)
    retriever = service.resources("demo").retriever
    monkeypatch.setattr(retriever, "calibrations", SQLiteCalibrationStore(corrupt))
    reply = client.post("/v1/query", json={"query": QUESTION, "completeness": "thorough"})
    assert reply.status_code == 200, reply.text
    guarantee = reply.json()["completeness"]["guarantee"]
    assert "calibration store cannot be read" in guarantee and str(tmp_path) not in reply.text
    assert "NCBIGene:6622" in {answer["id"] for answer in reply.json()["answers"]}  # SNCA
    moved = tmp_path / "moved" / "calibration.sqlite"
    monkeypatch.setattr(retriever, "calibrations", SQLiteCalibrationStore(moved))
    reply = client.post("/v1/query", json={"query": QUESTION, "completeness": "thorough"})
    assert reply.status_code == 200 and "has no" in reply.json()["completeness"]["guarantee"]


@pytest.mark.parametrize("level", ["fast", "thorough", "exhaustive"])
def test_an_entity_only_tree_is_answered(client: TestClient, level: str) -> None:
    """``{"op": "entity", …}`` alone raised ``max() arg is an empty sequence`` → HTTP 500."""
    tree = {"op": "entity", "id": "OMIM:605543"}
    reply = client.post("/v1/query/structured", json={"query": tree, "completeness": level})
    assert reply.status_code == 200, reply.text
    assert [answer["id"] for answer in reply.json()["answers"]] == ["OMIM:605543"]


def test_large_reports_take_one_lane_and_small_ones_pass(
    service: QueryService, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Five clients resending large reports took every core (normal queries 14× slower); now
    large reports are grounded one at a time, a second waits ``load_wait_s`` then gets 503,
    and small reports are not held up."""
    release, holding = threading.Event(), threading.Event()
    ground = service.ground

    def held_ground(report: str, *, kg: str = "demo") -> object:
        if len(report) > 100:
            holding.set()
            release.wait(20)
        return ground(report, kg=kg)

    monkeypatch.setattr(service, "ground", held_ground)
    api = create_app(service, admin_key="k", heavy_report_chars=100, load_wait_s=0.5)
    large = {"report": "SNCA is associated with Parkinson disease 4. " * 10}
    replies: list[httpx.Response] = []
    with TestClient(api, raise_server_exceptions=False) as client:
        first = threading.Thread(
            target=lambda: replies.append(client.post("/v1/ground", json=large))
        )
        first.start()
        assert holding.wait(30)  # the first large report holds the lane
        second = client.post("/v1/ground", json=large)
        small = client.post("/v1/ground", json={"report": "SNCA binds LRRK2."})
        release.set()
        first.join(30)
    assert second.status_code == 503 and second.headers["retry-after"] == "5"
    assert "busy with other large requests" in second.text
    assert small.status_code == 200 and replies[0].status_code == 200
