"""The HTTP API (FastAPI; OpenAPI at ``/openapi.json``, docs at ``/docs``).

    POST /v1/query                         natural-language question → answer, sources,
                                           completeness, grounding (+ plan, answers, timings)
    POST /v1/query/structured              QueryTree + recall_target (for agents)
    POST /v1/ground                        a report → per-claim labels
    POST /v1/platform/calibration/run      start a calibration job (admin key)
    GET  /v1/platform/calibration/{job_id} job status and progress (admin key)
    POST /v1/platform/ingest               add/remove nodes and edges: a new KG version,
                                           recalibrated by the KG's policy (admin key)
    GET  /v1/platform/monitor              recall of new facts on logged queries (admin key)
    POST /v1/feedback                      "you missed X / Y is wrong" for a served query id
    GET  /v1/search, GET /v1/schema       entities by text; relations and node types (for
                                           callers that write their own query trees)
    GET  /v1/health, GET /v1/databases

Security and reliability: platform routes need ``X-API-Key`` equal to ``KGRECALL_ADMIN_KEY``
(compared in constant time); the app refuses to start without a key unless admin auth is
explicitly disabled for local use, and never without one on a non-loopback host. Bodies
above ``max_body_bytes`` (``max_report_bytes`` for ``/v1/ground``, 64 KB for questions and
query trees) get 413: by ``Content-Length`` before they are read, and for chunked
uploads as soon as the bytes received pass the limit (counted at the ASGI level). Request
models are strict: unknown fields, strings or booleans for numbers, NaN/Infinity and lone
surrogates are refused. ``max_results`` is capped at 1000; query trees are bounded
(:class:`~kgrecall.tools.query.TreeLimits`). Each request has a timeout (504) that also stops
the work: it runs under a cooperative deadline (:mod:`kgrecall.kg.deadline`). Invalid input
is 422 naming the field, never echoing the input; KG errors are 400/404 with their message
(an unknown KG's 404 does not list the others); anything else is a 500 with a request id and
no stack trace (the trace goes to the server log).
"""

from __future__ import annotations

import asyncio
import hmac
import ipaddress
import json
import logging
import uuid
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from functools import partial
from typing import Annotated, Any, Literal, TypeVar

from fastapi import Depends, FastAPI, HTTPException, Query, Request, Security
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.security import APIKeyHeader
from pydantic import AfterValidator, BaseModel, ConfigDict, Field
from starlette.concurrency import run_in_threadpool
from starlette.types import ASGIApp, Message, Receive, Scope, Send

import kgrecall
from kgrecall.agents import MAX_RESULTS_CAP, AskResponse, QueryResponse, QueryService
from kgrecall.agents.monitor import MonitorReport
from kgrecall.agents.service import (
    MAX_SEARCH_HITS,
    Recalibration,
    SchemaResponse,
    SearchResponse,
)
from kgrecall.calibration import Level, Method
from kgrecall.errors import KGRecallError, http_status
from kgrecall.grounding import DEFAULT_MAX_CHARS, GroundingResult
from kgrecall.kg import KGError, KGSchema, normalize_curie
from kgrecall.kg.deadline import deadline, low_priority
from kgrecall.kg.history import ChangeLog
from kgrecall.kg.loaders.base import GraphBatch
from kgrecall.kg.loaders.records import batch_from_records
from kgrecall.service.jobs import CalibrationJobs, CalibrationRequest, Job, JobStatus
from kgrecall.settings import settings
from kgrecall.tools import QueryTree
from kgrecall.tools.query import (
    DEFAULT_TREE_LIMITS,
    QueryTreeLimitError,
    Topology,
    TreeLimits,
    check_tree,
    projections,
)

log = logging.getLogger("kgrecall.service")
DEFAULT_TOPOLOGIES: tuple[Topology, ...] = ("1p", "2p", "2i", "2u")
DEFAULT_METHODS: tuple[Method, ...] = ("crc",)
T = TypeVar("T")
#: Largest request body accepted (bytes): a 2 M-character report plus JSON overhead.
DEFAULT_MAX_BODY_BYTES = 4 * DEFAULT_MAX_CHARS + 4096
DEFAULT_TIMEOUT_S = 60.0
#: Most node, edge or removal records one ingestion request may carry (the body limit
#: usually binds first; larger files go through ``kgrecall kg add``).
MAX_INGEST_RECORDS = 100_000
#: How long a request waits for its KG to finish loading before 503 + Retry-After.
DEFAULT_LOAD_WAIT_S = 10.0
_RETRY_AFTER_S = 5
#: Reports longer than this, and structured queries with more projections than
#: ``HEAVY_PROJECTIONS`` (every named topology has at most 3), take the heavy lane: at most
#: ``heavy_slots`` such requests run at once, so a few large ones cannot take every core
#: from normal requests.
DEFAULT_HEAVY_REPORT_CHARS = 20_000
HEAVY_PROJECTIONS = 6
#: Heavy-lane work pauses at its deadline checks to use at most this share of the wall time.
HEAVY_SHARE = 0.5
#: Body limit of the question and query-tree routes (a 64-node tree is ≈ 10 KB): a larger body
#: is refused by its size, before the event loop spends time parsing it.
SMALL_BODY_BYTES = 64 * 1024
#: Body limit of ``/v1/ground``. Grounding takes ≈ 4.7 s of CPU per 140 KB of report on the
#: demo KG, and a report this long runs in the heavy lane at half the wall time: ≈ 70 s, past
#: the default request timeout. A larger body is refused before it is read (it cost the
#: event loop a megabyte-a-request of parsing under a hostile mix); ``kgrecall ground`` takes
#: reports up to 2 M characters.
DEFAULT_MAX_REPORT_BYTES = 1024 * 1024
#: The OpenAPI link from a submitted calibration job to its status (clients and stateful
#: API fuzzers follow it).
_JOB_LINK = {
    "operationId": "calibration_status",
    "parameters": {"job_id": "$response.body#/job_id"},
}
#: At most this many validation errors are reported, each field name cut to this length.
_MAX_ERRORS, _MAX_FIELD_CHARS = 20, 100


def _no_surrogates(text: str) -> str:
    """Refuse lone surrogates ("\\ud800"): not text, and not encodable as UTF-8."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as error:
        raise ValueError(f"not valid Unicode text (lone surrogate at {error.start})") from None
    return text


#: Text fields: valid Unicode only.
Text = Annotated[str, AfterValidator(_no_surrogates)]
#: KG names as requests give them.
DatabaseName = Annotated[Text, Field(min_length=1, max_length=200)]


class _Request(BaseModel):
    """Strict request bodies: unknown fields are errors, numbers must be JSON numbers (no
    "5" or true for 5), floats finite."""

    model_config = ConfigDict(extra="forbid", strict=True, allow_inf_nan=False)


class QueryRequest(_Request):
    """``POST /v1/query``."""

    query: Text = Field(min_length=1, max_length=2000, description="A question.")
    completeness: Level = "fast"
    recall_target: float | None = Field(None, gt=0.0, le=1.0)
    max_results: int = Field(20, ge=1, le=MAX_RESULTS_CAP)
    database: DatabaseName = "demo"
    ground: bool = True


class StructuredQueryRequest(_Request):
    """``POST /v1/query/structured``."""

    query: QueryTree
    completeness: Level = "fast"
    recall_target: float | None = Field(None, gt=0.0, le=1.0)
    max_results: int = Field(50, ge=1, le=MAX_RESULTS_CAP)
    database: DatabaseName = "demo"
    method: Method | None = None


class GroundRequest(_Request):
    """``POST /v1/ground``."""

    report: Text = Field(min_length=1, max_length=DEFAULT_MAX_CHARS)
    database: DatabaseName = "demo"


class CalibrationRunRequest(_Request):
    """``POST /v1/platform/calibration/run``; ``risk_budgets`` are α (0.1 → recall ≥ 0.9)."""

    database: DatabaseName = "demo"
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


class IngestRequest(_Request):
    """``POST /v1/platform/ingest``: node and edge records (see
    :mod:`kgrecall.kg.loaders.records`) to add, ``[head, relation, tail]`` edges to remove."""

    database: DatabaseName = "demo"
    nodes: list[dict[str, Any]] = Field(default_factory=list, max_length=MAX_INGEST_RECORDS)
    edges: list[dict[str, Any]] = Field(default_factory=list, max_length=MAX_INGEST_RECORDS)
    remove: list[tuple[Text, Text, Text]] = Field(
        default_factory=list, max_length=MAX_INGEST_RECORDS
    )
    allow_new_relations: bool = False
    source: Text = Field("api", min_length=1, max_length=200)


class FeedbackRequest(_Request):
    """``POST /v1/feedback``: what a served answer set (``completeness.query_id``) missed or
    got wrong. Stored for the monitor; never written into the KG."""

    query_id: Text = Field(min_length=1, max_length=64)
    missed: list[Annotated[Text, Field(min_length=1, max_length=200)]] = Field(
        default_factory=list, max_length=1000
    )
    wrong: list[Annotated[Text, Field(min_length=1, max_length=200)]] = Field(
        default_factory=list, max_length=1000
    )


class IngestView(BaseModel):
    """What an ingestion changed, and the recalibration job its policy started (if any)."""

    change: ChangeLog
    recalibration: Recalibration | None
    job_id: str | None


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


class SafeJSONResponse(JSONResponse):
    """JSON with every non-ASCII character escaped: renders any string, lone surrogates
    included (the default UTF-8 rendering fails on them with a 500)."""

    def render(self, content: Any) -> bytes:
        return json.dumps(content, ensure_ascii=True, allow_nan=False).encode("ascii")


class BodyLimit:
    """ASGI middleware: 413 for a body over ``limit`` bytes, by ``Content-Length`` before it
    is read, and for chunked uploads (no length) as soon as the bytes received pass the
    limit. The admitted body is buffered and replayed to the app."""

    def __init__(self, app: ASGIApp, limit: int, path_limits: Mapping[str, int]) -> None:
        self.app = app
        self.limit = limit
        self.path_limits = path_limits

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = min(self.limit, self.path_limits.get(scope["path"], self.limit))
        length = dict(scope["headers"]).get(b"content-length")
        if length is not None and (not length.isdigit() or int(length) > limit):
            await self._refuse(scope, receive, send, limit)
            return
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > limit:
                await self._refuse(scope, receive, send, limit)
                return
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if replayed:
                return await receive()  # after the body: only the disconnect is left
            replayed = True
            return {"type": "http.request", "body": b"".join(chunks), "more_body": False}

        await self.app(scope, replay, send)

    async def _refuse(self, scope: Scope, receive: Receive, send: Send, limit: int) -> None:
        response = SafeJSONResponse(
            {"error": f"request body larger than {limit:,} bytes"},
            status_code=413,
            headers={"Connection": "close"},
        )
        await response(scope, receive, send)


def _is_loopback(host: str) -> bool:
    """Whether ``host`` (an address or "localhost") only listens on this machine."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def field_errors(errors: Sequence[Any]) -> list[dict[str, str]]:
    """Field and message of each pydantic error (the first few): never the input, which may
    be huge, unserialisable (NaN) or not text (a lone surrogate)."""
    shown = []
    for item in errors[:_MAX_ERRORS]:
        field = ".".join(str(part)[:_MAX_FIELD_CHARS] for part in item.get("loc", ()))
        message = str(item.get("msg", "invalid"))
        if item.get("type") == "union_tag_invalid":  # its message quotes the input's tag
            message = f"unknown {item['ctx']['discriminator']}; expected one of: "
            message += str(item["ctx"]["expected_tags"])
        shown.append({"field": field, "message": message[:300]})
    return shown


#: The admin key of the platform routes, documented in the OpenAPI schema as a security
#: scheme (not an error here when missing: ``require_admin`` answers 401 with a reason).
ADMIN_KEY_HEADER = APIKeyHeader(
    name="X-API-Key",
    scheme_name="AdminKey",
    description="KGRECALL_ADMIN_KEY: required by the /v1/platform routes and ingestion.",
    auto_error=False,
)


def create_app(
    service: QueryService | None = None,
    *,
    admin_key: str | None = None,
    allow_unauthenticated_admin: bool = False,
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
    max_report_bytes: int = DEFAULT_MAX_REPORT_BYTES,
    timeout_s: float = DEFAULT_TIMEOUT_S,
    load_wait_s: float = DEFAULT_LOAD_WAIT_S,
    heavy_report_chars: int = DEFAULT_HEAVY_REPORT_CHARS,
    heavy_slots: int = 1,
    tree_limits: TreeLimits = DEFAULT_TREE_LIMITS,
    host: str = "127.0.0.1",
    preload: Sequence[str] = (),
) -> FastAPI:
    """The API over ``service`` (a fresh QueryService by default). ``admin_key`` defaults to
    ``$KGRECALL_ADMIN_KEY``; without one the app refuses to start unless
    ``allow_unauthenticated_admin`` (or ``KGRECALL_ADMIN_AUTH=disabled``) says so, and
    always when ``host`` (the interface it will listen on) is not a loopback address.

    A KG is loaded (indexes built) by the service's loader thread, never inside a request: a
    request for a KG still loading waits up to ``load_wait_s``, then gets 503 with
    ``Retry-After``. ``preload`` names KGs to start loading at once. Reports over
    ``heavy_report_chars`` are grounded ``heavy_slots`` at a time; one that waits longer than
    ``load_wait_s`` for a slot gets 503 + ``Retry-After``."""
    environment = settings()
    configured = environment.kgrecall_admin_key
    key = admin_key
    if key is None and configured is not None:
        key = configured.get_secret_value()
    unauthenticated = allow_unauthenticated_admin or environment.kgrecall_admin_auth == "disabled"
    if key is None and not unauthenticated:
        raise KGError(
            "the platform routes need an admin key: set KGRECALL_ADMIN_KEY, or disable admin "
            "auth for local use (KGRECALL_ADMIN_AUTH=disabled / --no-admin-auth)"
        )
    if key is None and not _is_loopback(host):
        raise KGError(
            f"refusing to serve on {host} without admin auth: disabling it is for local use "
            "only (a loopback host such as 127.0.0.1); set KGRECALL_ADMIN_KEY"
        )
    core = service or QueryService()
    for name in preload:
        core.load(name, warm=True)  # unknown names fail here, before the app serves
    jobs = CalibrationJobs(core)

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        """The calibration worker runs while the app serves, not from its creation."""
        jobs.start()
        try:
            yield
        finally:
            await run_in_threadpool(jobs.stop)

    app = FastAPI(
        lifespan=lifespan,
        title="kgrecall",
        version=kgrecall.__version__,
        description="Find all X related to Y in a biomedical knowledge graph, with a "
        "calibrated recall guarantee and every claim grounded in the graph.",
    )

    def within_deadline(call: Callable[[], T], share: float) -> T:
        with deadline(timeout_s), low_priority(share):
            return call()

    async def bounded(call: Callable[[], T], *, share: float = 1.0) -> T:
        """Run blocking work off the event loop, with the request timeout: the work runs
        under a deadline of the same length, so a timed-out request stops computing too.
        ``share`` < 1 paces it (heavy-lane work) so normal requests keep their speed."""
        try:
            return await asyncio.wait_for(
                run_in_threadpool(within_deadline, call, share), timeout=timeout_s
            )
        except TimeoutError:  # the wait, or the work's own DeadlineExceededError
            raise HTTPException(504, f"the request took longer than {timeout_s:g} s") from None

    heavy = asyncio.Semaphore(heavy_slots)

    @asynccontextmanager
    async def heavy_lane() -> AsyncIterator[None]:
        try:
            await asyncio.wait_for(heavy.acquire(), load_wait_s)
        except TimeoutError:
            raise HTTPException(
                503,
                "the server is busy with other large requests; retry shortly",
                headers={"Retry-After": str(_RETRY_AFTER_S)},
            ) from None
        try:
            yield
        finally:
            heavy.release()

    async def lane(call: Callable[[], T], *, heavy: bool) -> T:
        """:func:`bounded`, through the paced heavy lane when ``heavy``."""
        if not heavy:
            return await bounded(call)
        async with heavy_lane():
            return await bounded(call, share=HEAVY_SHARE)

    def served(database: str) -> None:
        """404 for a KG the service does not serve, naming only the one asked for."""
        if not core.serves(database):
            raise HTTPException(
                404, f"no KG named {database!r}; GET /v1/databases lists the KGs served"
            )

    async def ready(database: str) -> None:
        """:func:`served`, then wait up to ``load_wait_s`` for the KG to be loaded; 503 while
        it still loads."""
        served(database)
        loading = core.load(database, warm=True)  # a server warms what it loads
        if not loading.done():
            try:  # shield: a request that stops waiting must not cancel the shared load
                await asyncio.wait_for(asyncio.shield(asyncio.wrap_future(loading)), load_wait_s)
            except TimeoutError:
                raise HTTPException(
                    503,
                    f"KG {database!r} is loading (its indexes are being built); retry shortly",
                    headers={"Retry-After": str(_RETRY_AFTER_S)},
                ) from None
        loading.result()  # a failed load raises its error here (and is retried next time)

    def require_admin(x_api_key: Annotated[str | None, Security(ADMIN_KEY_HEADER)] = None) -> None:
        if key is None:
            return
        if x_api_key is None or not hmac.compare_digest(x_api_key.encode(), key.encode()):
            raise HTTPException(401, "a valid X-API-Key header is required for platform routes")

    path_limits = dict.fromkeys(("/v1/query", "/v1/query/structured"), SMALL_BODY_BYTES)
    path_limits["/v1/ground"] = min(max_body_bytes, max_report_bytes)
    app.add_middleware(BodyLimit, limit=max_body_bytes, path_limits=path_limits)

    @app.exception_handler(RequestValidationError)
    async def invalid(_: Request, error: RequestValidationError) -> JSONResponse:
        return SafeJSONResponse(
            {"error": "invalid request", "detail": field_errors(error.errors())}, status_code=422
        )

    @app.exception_handler(HTTPException)
    async def http_error(_: Request, error: HTTPException) -> JSONResponse:
        return SafeJSONResponse(
            {"detail": error.detail}, status_code=error.status_code, headers=error.headers
        )

    @app.exception_handler(KGRecallError)
    async def classified(_: Request, error: KGRecallError) -> JSONResponse:
        return SafeJSONResponse({"error": error.public_message()}, status_code=http_status(error))

    @app.exception_handler(Exception)
    async def internal(request: Request, error: Exception) -> JSONResponse:
        request_id = uuid.uuid4().hex[:12]
        log.exception("request %s %s failed (id %s)", request.method, request.url.path, request_id)
        return SafeJSONResponse(
            {"error": "internal error", "request_id": request_id}, status_code=500
        )

    @app.get("/v1/health")
    async def health() -> Health:
        return Health(status="ok", version=kgrecall.__version__, llm=core.llm is not None,
                      admin_auth=key is not None)  # fmt: skip

    @app.get("/v1/databases")
    async def databases() -> list[dict[str, Any]]:
        return await bounded(core.databases)

    @app.post("/v1/query")
    async def query(body: QueryRequest) -> AskResponse:
        await ready(body.database)
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
        try:
            check_tree(body.query, tree_limits)
        except QueryTreeLimitError as error:
            raise HTTPException(422, f"query: {error}") from None
        await ready(body.database)
        work = partial(
            core.query,
            body.query,
            kg=body.database,
            level=body.completeness,
            recall_target=body.recall_target,
            method=body.method,
            max_results=body.max_results,
        )
        return await lane(work, heavy=len(projections(body.query)) > HEAVY_PROJECTIONS)

    @app.post("/v1/ground")
    async def ground(body: GroundRequest) -> GroundingResult:
        await ready(body.database)
        work = partial(core.ground, body.report, kg=body.database)
        return await lane(work, heavy=len(body.report) > heavy_report_chars)

    @app.post(
        "/v1/platform/calibration/run",
        status_code=202,
        dependencies=[Depends(require_admin)],
        openapi_extra={"responses": {"202": {"links": {"GetCalibrationJob": _JOB_LINK}}}},
    )
    async def run_calibration(body: CalibrationRunRequest) -> JobView:
        for budget in body.risk_budgets:
            if not 0.0 < budget < 1.0:
                raise HTTPException(422, f"risk_budgets: {budget} is not in (0, 1)")
        served(body.database)
        job = jobs.submit(
            CalibrationRequest(
                database=body.database,
                plan=Recalibration(
                    topologies=list(body.topologies),
                    alphas=body.risk_budgets,
                    methods=body.methods,
                    queries=body.queries,
                    strata=body.strata,
                ),
            )
        )
        return _view(job)

    @app.post("/v1/platform/ingest", dependencies=[Depends(require_admin)])
    async def ingest(body: IngestRequest) -> IngestView:
        served(body.database)

        def work() -> IngestView:
            batch = (
                batch_from_records(
                    ((f"nodes[{i}]", record) for i, record in enumerate(body.nodes)),
                    ((f"edges[{i}]", record) for i, record in enumerate(body.edges)),
                    source=body.source,
                    allow_new_relations=body.allow_new_relations,
                )
                if body.nodes or body.edges
                else GraphBatch(KGSchema({}, frozenset()))
            )
            removals = [
                (normalize_curie(head), relation, normalize_curie(tail))
                for head, relation, tail in body.remove
            ]
            done = core.ingest(body.database, batch, removals, source=body.source)
            plan, job_id = done.recalibration, None
            if plan is not None:
                job_id = jobs.submit(
                    CalibrationRequest(
                        database=body.database,
                        plan=plan,
                        reason=f"recalibration after ingesting {body.source} (version "
                        f"{done.change.version_after[:12]})",
                    )
                ).id
            return IngestView(change=done.change, recalibration=plan, job_id=job_id)

        # no request deadline: a half-done ingestion must not be cut off (its writes are
        # atomic either way); the body limit bounds its size
        return await run_in_threadpool(work)

    @app.get("/v1/search")
    async def search(
        text: Annotated[str, Query(min_length=1, max_length=500)],
        database: Annotated[str, Query(max_length=200)] = "demo",
        k: Annotated[int, Query(ge=1, le=MAX_SEARCH_HITS)] = 10,
        node_types: Annotated[list[str] | None, Query()] = None,
    ) -> SearchResponse:
        await ready(database)
        return await bounded(partial(core.search, text, kg=database, k=k, node_types=node_types))

    @app.get("/v1/schema")
    async def schema(database: Annotated[str, Query(max_length=200)] = "demo") -> SchemaResponse:
        await ready(database)
        return await bounded(partial(core.schema, kg=database))

    @app.post("/v1/feedback", status_code=201)
    async def feedback(body: FeedbackRequest) -> dict[str, str]:
        await run_in_threadpool(
            partial(core.feedback, body.query_id, missed=body.missed, wrong=body.wrong)
        )
        return {"stored": body.query_id}

    @app.get("/v1/platform/monitor", dependencies=[Depends(require_admin)])
    async def monitor(database: str | None = None) -> MonitorReport:
        return await run_in_threadpool(partial(core.monitor, database))

    @app.get(
        "/v1/platform/calibration/{job_id}",
        dependencies=[Depends(require_admin)],
        operation_id="calibration_status",
    )
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
        topologies=job.request.plan.topologies,
        risk_budgets=job.request.plan.alphas,
        progress=list(job.progress),
        result=list(job.result),
        error=job.error,
        submitted=job.submitted,
        started=job.started,
        finished=job.finished,
    )
