"""The HTTP API (FastAPI; OpenAPI at ``/openapi.json``, docs at ``/docs``).

    POST /v1/query                         natural-language question → answer, sources,
                                           completeness, grounding (+ plan, answers, timings)
    POST /v1/query/structured              QueryTree + recall_target (for agents)
    POST /v1/ground                        a report → per-claim labels
    POST /v1/platform/calibration/run      start a calibration job (admin key)
    GET  /v1/platform/calibration/{job_id} job status and progress (admin key)
    GET  /v1/health, GET /v1/databases

Security and reliability: platform routes need ``X-API-Key`` equal to ``KGRECALL_ADMIN_KEY``
(compared in constant time); the app refuses to start without a key unless admin auth is
explicitly disabled for local use. Bodies above ``max_body_bytes`` get 413 before they are
read; ``max_results`` is capped at 1000; each request has a timeout (504); invalid input is
422 naming the field; KG errors are 400/404 with their message; anything else is a 500
with a request id and no stack trace (the trace goes to the server log).
"""

from __future__ import annotations

import asyncio
import hmac
import logging
import os
import uuid
from collections.abc import Awaitable, Callable
from functools import partial
from typing import Annotated, Any, Literal, TypeVar

from fastapi import Depends, FastAPI, Header, HTTPException, Request, Response
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field
from starlette.concurrency import run_in_threadpool

import kgrecall
from kgrecall.agents import MAX_RESULTS_CAP, AskResponse, PlanningError, QueryResponse, QueryService
from kgrecall.calibration import Method
from kgrecall.grounding import DEFAULT_MAX_CHARS, GroundingResult
from kgrecall.kg import KGError, UnknownEntityError
from kgrecall.service.jobs import CalibrationJobs, CalibrationRequest, Job, JobStatus
from kgrecall.tools import QueryTree

log = logging.getLogger("kgrecall.service")
Level = Literal["fast", "thorough", "exhaustive"]
Topology = Literal["1p", "2p", "3p", "2i", "3i", "ip", "pi", "2u", "up"]
DEFAULT_TOPOLOGIES: tuple[Topology, ...] = ("1p", "2p", "2i", "2u")
DEFAULT_METHODS: tuple[Method, ...] = ("crc",)
T = TypeVar("T")
#: Largest request body accepted (bytes): a 2 M-character report plus JSON overhead.
DEFAULT_MAX_BODY_BYTES = 4 * DEFAULT_MAX_CHARS + 4096
DEFAULT_TIMEOUT_S = 60.0


class QueryRequest(BaseModel):
    """``POST /v1/query``."""

    query: str = Field(min_length=1, max_length=2000, description="A question.")
    completeness: Level = "fast"
    recall_target: float | None = Field(None, gt=0.0, le=1.0)
    max_results: int = Field(20, ge=1, le=MAX_RESULTS_CAP)
    database: str = Field("demo", min_length=1, max_length=200)
    ground: bool = True


class StructuredQueryRequest(BaseModel):
    """``POST /v1/query/structured``."""

    query: QueryTree
    completeness: Level = "fast"
    recall_target: float | None = Field(None, gt=0.0, le=1.0)
    max_results: int = Field(50, ge=1, le=MAX_RESULTS_CAP)
    database: str = Field("demo", min_length=1, max_length=200)
    method: Method | None = None


class GroundRequest(BaseModel):
    """``POST /v1/ground``."""

    report: str = Field(min_length=1, max_length=DEFAULT_MAX_CHARS)
    database: str = Field("demo", min_length=1, max_length=200)


class CalibrationRunRequest(BaseModel):
    """``POST /v1/platform/calibration/run``; ``risk_budgets`` are α (0.1 → recall ≥ 0.9)."""

    database: str = Field("demo", min_length=1, max_length=200)
    topologies: list[Topology] = Field(
        default_factory=lambda: list(DEFAULT_TOPOLOGIES), min_length=1, max_length=9
    )
    risk_budgets: list[float] = Field(
        default_factory=lambda: [0.2, 0.1], min_length=1, max_length=10
    )
    methods: list[Method] = Field(
        default_factory=lambda: list(DEFAULT_METHODS), min_length=1, max_length=3
    )
    queries: int = Field(500, ge=20, le=5000)
    strata: int = Field(1, ge=1, le=5)


class JobView(BaseModel):
    """A calibration job as clients see it."""

    job_id: str
    status: JobStatus
    database: str
    topologies: list[str]
    risk_budgets: list[float]
    progress: list[str]
    result: list[dict[str, Any]]
    error: str | None
    submitted: float
    started: float | None
    finished: float | None


class Health(BaseModel):
    status: Literal["ok"]
    version: str
    llm: bool
    admin_auth: bool


def create_app(
    service: QueryService | None = None,
    *,
    admin_key: str | None = None,
    allow_unauthenticated_admin: bool = False,
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
    timeout_s: float = DEFAULT_TIMEOUT_S,
) -> FastAPI:
    """The API over ``service`` (a fresh QueryService by default). ``admin_key`` defaults to
    ``$KGRECALL_ADMIN_KEY``; without one the app refuses to start unless
    ``allow_unauthenticated_admin`` (or ``KGRECALL_ADMIN_AUTH=disabled``) says so."""
    key = admin_key if admin_key is not None else os.environ.get("KGRECALL_ADMIN_KEY") or None
    unauthenticated = allow_unauthenticated_admin or (
        os.environ.get("KGRECALL_ADMIN_AUTH", "").lower() == "disabled"
    )
    if key is None and not unauthenticated:
        raise KGError(
            "the platform routes need an admin key: set KGRECALL_ADMIN_KEY, or disable admin "
            "auth for local use (KGRECALL_ADMIN_AUTH=disabled / --no-admin-auth)"
        )
    core = service or QueryService()
    jobs = CalibrationJobs(core)
    app = FastAPI(
        title="kgrecall",
        version=kgrecall.__version__,
        description="Find all X related to Y in a biomedical knowledge graph, with a "
        "calibrated recall guarantee and every claim grounded in the graph.",
    )

    async def bounded(call: Callable[[], T]) -> T:
        """Run blocking work off the event loop, with the request timeout."""
        try:
            return await asyncio.wait_for(run_in_threadpool(call), timeout=timeout_s)
        except TimeoutError:
            raise HTTPException(504, f"the request took longer than {timeout_s:g} s") from None

    def require_admin(x_api_key: Annotated[str | None, Header()] = None) -> None:
        if key is None:
            return
        if x_api_key is None or not hmac.compare_digest(x_api_key.encode(), key.encode()):
            raise HTTPException(401, "a valid X-API-Key header is required for platform routes")

    @app.middleware("http")
    async def limit_body(
        request: Request, call_next: Callable[[Request], Awaitable[Response]]
    ) -> Response:
        length = request.headers.get("content-length")
        if length is not None and (not length.isdigit() or int(length) > max_body_bytes):
            return JSONResponse(
                {"error": f"request body larger than {max_body_bytes:,} bytes"}, status_code=413
            )
        return await call_next(request)

    @app.exception_handler(UnknownEntityError)
    async def unknown_entity(_: Request, error: UnknownEntityError) -> JSONResponse:
        return JSONResponse({"error": str(error).strip('"')}, status_code=404)

    @app.exception_handler(PlanningError)
    async def unreadable(_: Request, error: PlanningError) -> JSONResponse:
        return JSONResponse({"error": f"could not read the question: {error}"}, status_code=422)

    @app.exception_handler(KGError)
    async def bad_request(_: Request, error: KGError) -> JSONResponse:
        status = 404 if str(error).startswith("no KG named") else 400
        return JSONResponse({"error": str(error)}, status_code=status)

    @app.exception_handler(Exception)
    async def internal(request: Request, error: Exception) -> JSONResponse:
        request_id = uuid.uuid4().hex[:12]
        log.exception("request %s %s failed (id %s)", request.method, request.url.path, request_id)
        return JSONResponse({"error": "internal error", "request_id": request_id}, status_code=500)

    @app.get("/v1/health")
    async def health() -> Health:
        return Health(status="ok", version=kgrecall.__version__, llm=core.llm is not None,
                      admin_auth=key is not None)  # fmt: skip

    @app.get("/v1/databases")
    async def databases() -> list[dict[str, Any]]:
        return await bounded(core.databases)

    @app.post("/v1/query")
    async def query(body: QueryRequest) -> AskResponse:
        return await bounded(
            partial(
                core.ask,
                body.query,
                kg=body.database,
                level=body.completeness,
                recall_target=body.recall_target,
                max_results=body.max_results,
                ground=body.ground,
            )
        )

    @app.post("/v1/query/structured")
    async def structured(body: StructuredQueryRequest) -> QueryResponse:
        return await bounded(
            partial(
                core.query,
                body.query,
                kg=body.database,
                level=body.completeness,
                recall_target=body.recall_target,
                method=body.method,
                max_results=body.max_results,
            )
        )

    @app.post("/v1/ground")
    async def ground(body: GroundRequest) -> GroundingResult:
        return await bounded(partial(core.ground, body.report, kg=body.database))

    @app.post(
        "/v1/platform/calibration/run",
        status_code=202,
        dependencies=[Depends(require_admin)],
    )
    async def run_calibration(body: CalibrationRunRequest) -> JobView:
        for budget in body.risk_budgets:
            if not 0.0 < budget < 1.0:
                raise HTTPException(422, f"risk_budgets: {budget} is not in (0, 1)")
        if not core.workspace.exists(body.database):
            raise KGError(
                f"no KG named {body.database!r}; known KGs: {', '.join(core.workspace.names())}"
            )
        job = jobs.submit(
            CalibrationRequest(
                database=body.database,
                topologies=list(body.topologies),
                risk_budgets=body.risk_budgets,
                methods=body.methods,
                queries=body.queries,
                strata=body.strata,
            )
        )
        return _view(job)

    @app.get("/v1/platform/calibration/{job_id}", dependencies=[Depends(require_admin)])
    async def calibration_status(job_id: str) -> JobView:
        try:
            return _view(jobs.get(job_id))
        except KeyError:
            raise HTTPException(404, f"no calibration job {job_id!r}") from None

    app.state.service = core
    app.state.jobs = jobs
    return app


def _view(job: Job) -> JobView:
    return JobView(
        job_id=job.id,
        status=job.status,
        database=job.request.database,
        topologies=job.request.topologies,
        risk_budgets=job.request.risk_budgets,
        progress=list(job.progress),
        result=list(job.result),
        error=job.error,
        submitted=job.submitted,
        started=job.started,
        finished=job.finished,
    )
