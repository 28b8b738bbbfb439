"""``QueryService``: the one façade (ask, query, ground, calibrate) the CLI, HTTP API and MCP
server call.

It holds, per KG name, the loaded store, the fulltext and vector indexes, the entity linker
and planner, the link predictor (when ``kgrecall train`` saved one), the calibrated retriever
and the grounding validator — built on first use by one loader thread, so concurrent callers
share one copy, never see a half-built one, and a caller that gives up (a request timeout) does
not stop or repeat the build. At most ``max_loaded_kgs`` KGs stay loaded; the least recently
used one is unloaded past that. Everything runs offline; an OpenAI-compatible
LLM (``LLMSettings.from_env()`` or a chat model passed in) adds LLM planning, synthesis and
claim extraction, each with an offline fallback.
"""

from __future__ import annotations

import gc
import hashlib
import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import BaseModel, Field

from kgrecall.agents.monitor import LOG_MODES, QUERY_LOG_FILE, MonitorReport, QueryLog
from kgrecall.agents.planner import LLMPlanner, OfflinePlanner, QueryPlan
from kgrecall.calibration import (
    NO_PREDICTOR,
    CalibratedAnswer,
    CalibratedRetriever,
    Calibration,
    CalibrationKey,
    CalibrationSettings,
    CalibrationStore,
    Completeness,
    Conditioning,
    GateConfig,
    Method,
    ReducedGraph,
    StaleCalibrations,
    Stratum,
    calibrate,
    open_calibration_store,
    reduce_strata,
)
from kgrecall.errors import InvalidRequestError
from kgrecall.grounding import GroundingResult, KGGroundingValidator
from kgrecall.kg import GraphStore, KGError, Workspace
from kgrecall.kg.errors import KGNotFoundError
from kgrecall.kg.history import ChangeLog
from kgrecall.kg.loaders.base import GraphBatch
from kgrecall.llm import LLMSettings, chat_model
from kgrecall.settings import StoreKind, settings
from kgrecall.tools import (
    Candidate,
    EntityIndex,
    EvidenceTriple,
    FulltextIndex,
    QueryNode,
    VectorIndex,
    embed,
    parse_query,
)
from kgrecall.tools.kg_indexes import INDEX_FOLDER, write_indexes
from kgrecall.tools.linkpred import CompletionModel, LinkPredictorError
from kgrecall.tools.linkpred.registry import (
    DEFAULT_MODEL,
    ULTRA_MODELS,
    canonical_name,
    load_completion_model,
    load_like,
    needs_training,
    refit,
    retrain_if_stale,
    ultra_member,
)
from kgrecall.tools.linkpred.table import (
    PROJECTIONS_FILE,
    ProjectionTable,
    TabledCompletion,
    tabulate,
)
from kgrecall.tools.name_tables import NameTables
from kgrecall.tools.store_search import EntitySearch, IndexedStore, store_searches

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel
    from langgraph.types import Checkpointer

    from kgrecall.agents.agent import TwoPhaseAgent
    from kgrecall.tools.linkpred import RankMetrics, TrainingConfig

log = logging.getLogger(__name__)

CALIBRATION_FILE = "calibration.sqlite"
#: Most answers one response may carry (``max_results`` above it is refused).
MAX_RESULTS_CAP = 1000
#: Most evidence triples one response carries; answers past it come without evidence and the
#: response says ``evidence_truncated`` (a 1,000-answer, 8-hop response stays ≈ 1 MB).
MAX_EVIDENCE_TRIPLES = 5000
#: KGs kept loaded at once by default (each holds its graph, indexes and model in memory).
DEFAULT_MAX_LOADED_KGS = 4
#: Most entities one search returns.
MAX_SEARCH_HITS = 50
#: Test triples scored before and after ULTRA fine-tuning (both directions each).
ULTRA_TEST_TRIPLES = 1000
#: Earlier KG versions searched for a calibration that can stand in while one is stale.
MAX_STALE_VERSIONS = 20


@contextmanager
def collector_paused() -> Iterator[None]:
    """Pause Python's cyclic garbage collector while a KG loads, then freeze what is loaded.

    A load allocates about a million objects that live as long as the KG is served; every
    full collection on the way walks all of them again (≈ 0.6 s of a 3 s ``kgrecall ask``).
    Frozen, later collections skip them too. The collector's state is restored after."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if enabled:
            gc.enable()


def model_path(workspace: Workspace, kg: str, model: str) -> Path:
    """Where ``kgrecall train`` saves the model ``model`` of KG ``kg``."""
    return workspace.artifact_path(kg, "models", f"{canonical_name(model).lower()}.pt")


def calibration_store(workspace: Workspace) -> CalibrationStore:
    """``$KGRECALL_CALIBRATION_STORE`` (a path, sqlite:/// or redis:// URL), else the
    workspace's SQLite file."""
    location = settings().kgrecall_calibration_store or workspace.home / CALIBRATION_FILE
    return open_calibration_store(location)


def load_predictor(
    workspace: Workspace, kg: str, store: GraphStore, model: str
) -> CompletionModel | None:
    """The completion model ``model`` of ``kg`` (the saved one, else zero-shot ULTRA for an
    ULTRA name), or None for a KG embedding nobody trained. Rules mined from the KG (and
    from its calibration graphs) are kept in the workspace's ``derived/`` cache for the next
    process (never next to the KG: a query writes nothing there)."""
    return load_completion_model(
        model, model_path(workspace, kg, model), store, cache_home=workspace.home
    )


def calibration_predictor(
    workspace: Workspace,
    kg: str,
    deployed: CompletionModel,
    reduced: ReducedGraph,
    *,
    say: Callable[[str], None] = print,
) -> CompletionModel:
    """The model of one stratum: ``deployed`` itself when zero-shot, else its recipe refitted
    on the reduced graph (cached per deployed model and reduced graph version)."""
    if deployed.kg_version is None:
        return deployed
    key = hashlib.sha256(deployed.identifier.encode()).hexdigest()[:16]
    name = f"calibration-{key}-{reduced.store.version[:16]}.pt"
    path = workspace.artifact_path(kg, "models", name)
    if path.is_file():
        return load_like(deployed, path, reduced.store.version)
    say(
        f"the calibration graph hides {reduced.hide_fraction:.0%} of the edges; "
        "the stratum's model must not see them"
    )
    model = refit(deployed, reduced.store, say=say)
    model.save(path)
    return model


class Answer(BaseModel):
    """One answer entity with its score, the tool that found it and its evidence."""

    id: str
    name: str
    type: str
    score: float
    found_by: str
    evidence: list[EvidenceTriple] = Field(default_factory=list)


class QueryResponse(BaseModel):
    """A structured query's answers and completeness block."""

    answers: list[Answer]
    total: int
    truncated: bool
    evidence_truncated: bool = False
    completeness: Completeness
    timings: dict[str, float]


class AskResponse(BaseModel):
    """The spec's response: answer (the report), sources, completeness, grounding, plan."""

    answer: str
    answers: list[Answer]
    total: int
    truncated: bool
    evidence_truncated: bool = False
    sources: list[EvidenceTriple]
    completeness: Completeness
    grounding: GroundingResult | None
    plan: QueryPlan
    synthesis: str
    notes: list[str]
    timings: dict[str, float]


class EntityHit(BaseModel):
    """An entity found for a search text."""

    id: str
    name: str
    type: str
    synonyms: list[str]
    score: float
    #: how it matched: id, name, synonym … or fuzzy (see :class:`kgrecall.tools.EntityIndex`)
    match: str


class SearchResponse(BaseModel):
    """``kg_search``: entities for a text, best first."""

    text: str
    #: False when nothing reached the linker's minimum score: ``hits`` are then only the
    #: closest entities, not links
    linked: bool
    hits: list[EntityHit]


class RelationSignatureCount(BaseModel):
    head_type: str
    tail_type: str
    edges: int


class RelationInfo(BaseModel):
    """One relation of a KG, as an outer LLM needs it to write a QueryTree."""

    name: str
    meaning: str
    #: whether head → tail reads differently from tail → head ("inhibits")
    directed: bool
    signatures: list[RelationSignatureCount]
    wordings: list[str]
    #: a QueryTree projecting along the relation from a real head (``inverse`` for tails)
    example: dict[str, object]


class SchemaResponse(BaseModel):
    """``kg_schema``: node types and relations of a KG version."""

    kg: str
    version: str
    node_types: dict[str, int]
    relations: list[RelationInfo]


class Recalibration(BaseModel):
    """What to calibrate: asked for by an ingestion policy, or by a caller (a job)."""

    topologies: list[str]
    alphas: list[float]
    methods: list[Method]
    conditioning: Conditioning = "none"
    queries: int = 1000
    strata: int = 3
    #: with the completion model (when the KG has one)
    neural: bool = True
    #: edges added or removed since the newest calibrated version (None: never calibrated,
    #: or not asked for by an ingestion)
    edges_changed: int | None = None


@dataclass(frozen=True, slots=True)
class Training:
    """What :meth:`QueryService.train` did: the model trained and where it went (both None
    when the model has nothing to train); for ULTRA, the filtered test metrics of the
    zero-shot weights and of the fine-tuned ones."""

    name: str
    model: CompletionModel | None
    path: Path | None
    before: RankMetrics | None = None
    after: RankMetrics | None = None


class Ingestion(BaseModel):
    """What one ingestion changed, and the recalibration it calls for."""

    change: ChangeLog
    recalibration: Recalibration | None
    #: logged queries of earlier versions run again on the new one (for the monitor)
    rechecked_queries: int = 0


@dataclass(slots=True)
class KGResources:
    """Everything loaded for one KG."""

    store: GraphStore
    retriever: CalibratedRetriever
    validator: KGGroundingValidator
    planner: OfflinePlanner
    index: EntityIndex

    def warm(self) -> None:
        """Build now what the first query would otherwise wait for: the fulltext index, the
        completion model bound to the store, the sentence-embedding model."""
        self.retriever.warm()
        if self.index.fulltext is not None:
            self.index.fulltext.warm()
        if self.index.vector is not None:
            self.index.vector.warm()


def _searches(
    kg: str, store: GraphStore, folder: Path, cache_home: Path
) -> tuple[EntitySearch, EntitySearch | None]:
    """Where the KG lives, its search lives: a KG held in Neo4j is searched by the database's
    fulltext and vector indexes, an embedded one by BM25 here (its built tables cached under
    ``cache_home``'s ``derived/``) and the vectors saved with it in ``folder``."""
    fulltext: EntitySearch
    vector: EntitySearch | None
    if isinstance(store, IndexedStore):
        fulltext, vector = store_searches(store)
        build = f"push it with its vectors: `kgrecall kg index {kg}`, then `kgrecall kg push-neo4j`"
    else:
        fulltext = FulltextIndex(store, cache_home=cache_home)
        vector = VectorIndex.saved(store, folder)  # built when the KG is written, not here
        build = f"build it with `kgrecall kg index {kg}`"
    if vector is None:
        log.warning(
            "KG %r (version %s) has no vector index: entity linking goes without vector search; %s",
            kg,
            store.version[:12],
            build,
        )
    return fulltext, vector


class QueryService:
    """Loaded KGs, indexes, models and calibrations behind ask / query / ground / calibrate."""

    def __init__(
        self,
        home: str | Path | None = None,
        *,
        llm: BaseChatModel | None = None,
        use_env_llm: bool = True,
        model: str = DEFAULT_MODEL,
        checkpointer: Checkpointer = None,
        progress: bool = True,
        max_loaded_kgs: int = DEFAULT_MAX_LOADED_KGS,
        query_log: str | None = None,
        store: StoreKind | None = None,
    ) -> None:
        if max_loaded_kgs < 1:
            raise KGError(f"max_loaded_kgs must be at least 1, not {max_loaded_kgs}")
        self.workspace = Workspace(home)
        #: where the KGs served live: the workspace's files, or the Neo4j database of the
        #: settings (models, indexes and calibrations stay in the workspace either way)
        self.store_kind: StoreKind = store or settings().kgrecall_store
        mode = query_log or settings().kgrecall_query_log or "off"
        if mode not in LOG_MODES:
            raise KGError(f"invalid query log mode {mode!r}; valid: {', '.join(LOG_MODES)}")
        #: served queries, re-checked on ingestion (None: logging off — the default)
        self.query_log = (
            None if mode == "off" else QueryLog(self.workspace.home / QUERY_LOG_FILE, mode)
        )
        llm_settings = LLMSettings.from_env() if llm is None and use_env_llm else None
        self.llm = llm if llm is not None else (chat_model(llm_settings) if llm_settings else None)
        self.model = canonical_name(model)
        self.checkpointer = checkpointer
        self.progress = progress
        self.max_loaded_kgs = max_loaded_kgs
        self._resources: OrderedDict[str, KGResources] = OrderedDict()  # least recent first
        self._loads: dict[str, Future[KGResources]] = {}
        self._loader = ThreadPoolExecutor(max_workers=1, thread_name_prefix="kgrecall-load")
        self._agents: dict[str, TwoPhaseAgent] = {}
        self._listing: dict[str, tuple[float, dict[str, object]]] = {}
        self._schemas: dict[str, SchemaResponse] = {}
        self._guard = threading.Lock()
        self._neo4j_store: GraphStore | None = None

    # -- loading ---------------------------------------------------------------------------

    def resources(self, kg: str) -> KGResources:
        """The KG's loaded resources, built once (thread-safe; waits for the loader)."""
        return self.load(kg).result()

    def load(self, kg: str, *, warm: bool = False) -> Future[KGResources]:
        """The KG's resources as a future: done when loaded, else the loader's build (started
        now if none runs). The name is checked first: an unknown KG costs nothing.

        ``warm`` (a server at start) also builds what is otherwise built on first use (see
        :meth:`KGResources.warm`); a command that asks one question leaves it off."""
        with self._guard:
            if kg in self._resources or kg in self._loads:
                return self._loaded_or_loading(kg)
        self._check_served(kg)
        with self._guard:
            if kg not in self._resources and kg not in self._loads:
                self._loads[kg] = self._loader.submit(self._load_and_keep, kg, warm)
            return self._loaded_or_loading(kg)

    def _loaded_or_loading(self, kg: str) -> Future[KGResources]:
        """The loaded KG as a done future (marked most recently used), else its load; call
        with the guard held."""
        loaded = self._resources.get(kg)
        if loaded is None:
            return self._loads[kg]
        self._resources.move_to_end(kg)
        done: Future[KGResources] = Future()
        done.set_result(loaded)
        return done

    def served_names(self) -> list[str]:
        """The KGs this service serves: the workspace's, or the one KG in Neo4j."""
        if self.store_kind == "neo4j":
            return [self._neo4j().metadata.name]
        return self.workspace.names()

    def serves(self, kg: str) -> bool:
        """Whether ``kg`` is one of :meth:`served_names` (nothing is loaded to tell)."""
        if self.store_kind == "neo4j":
            return kg in self.served_names()
        return self.workspace.exists(kg)

    def _check_served(self, kg: str) -> None:
        if self.serves(kg):
            return
        if self.store_kind == "neo4j":
            raise KGNotFoundError(kg, f"no KG named {kg!r} in the Neo4j database")
        else:
            known = ", ".join(self.workspace.names()) or "none"
            hint = " (run `kgrecall kg build-demo`)" if kg == "demo" else ""
            raise KGNotFoundError(kg, f"no KG named {kg!r}{hint}; known KGs: {known}")

    def open_store(self, kg: str) -> GraphStore:
        """KG ``kg`` as a store: read from the workspace, or the Neo4j database itself."""
        self._check_served(kg)
        return self._neo4j() if self.store_kind == "neo4j" else self.workspace.load(kg)

    def _neo4j(self) -> GraphStore:
        """The Neo4j KG, connected once: read as it is when first loaded (its version is
        computed once), like a workspace KG is read once per load."""
        from kgrecall.kg.neo4j_store import Neo4jStore

        with self._guard:
            if self._neo4j_store is None:
                self._neo4j_store = Neo4jStore.from_settings()
            return self._neo4j_store

    def loaded(self) -> list[str]:
        """The KGs in memory, least recently used first."""
        with self._guard:
            return list(self._resources)

    def _load_and_keep(self, kg: str, warm: bool) -> KGResources:
        try:
            resources = self._load(kg)
            if warm:
                resources.warm()
            with self._guard:
                self._resources[kg] = resources
                while len(self._resources) > self.max_loaded_kgs:
                    unloaded, _ = self._resources.popitem(last=False)
                    self._agents.pop(unloaded, None)
            return resources
        finally:
            with self._guard:
                self._loads.pop(kg, None)  # a failed load is retried by the next call

    def _load(self, kg: str) -> KGResources:
        with collector_paused():
            return self._build_resources(kg)

    def _build_resources(self, kg: str) -> KGResources:
        store = self.open_store(kg)
        folder = self.workspace.kg_dir(kg) / INDEX_FOLDER
        fulltext, vector = _searches(kg, store, folder, self.workspace.home)
        # one entity index per KG version, shared by the planner and the grounding NER
        tables = NameTables.for_store(store, folder)
        index = EntityIndex(store, fulltext, vector, tables=tables)
        planner = OfflinePlanner(store, index, embed=embed)
        retriever = CalibratedRetriever(
            store,
            kg_name=kg,
            load_predictor=partial(self._predictor, kg, store),
            calibrations=calibration_store(self.workspace),
            stale=self._stale_calibrations(kg, store),
            on_answer=None if self.query_log is None else partial(self._log, kg, store.version),
        )
        validator = KGGroundingValidator(store, llm=self.llm, index=index)
        return KGResources(store, retriever, validator, planner, index)

    def _log(self, kg: str, version: str, query: QueryNode, answer: CalibratedAnswer) -> str:
        assert self.query_log is not None
        return self.query_log.record(kg, version, query, answer)

    def _predictor(self, kg: str, store: GraphStore) -> TabledCompletion | None:
        """The KG's completion model, its projections kept in the KG's
        projection table (:mod:`kgrecall.tools.linkpred.table`); None (with a warning) when
        the saved one was trained on an earlier version of the KG — ingestion made it stale,
        and the recalibration job retrains it first."""
        try:
            model = load_predictor(self.workspace, kg, store, self.model)
        except LinkPredictorError as error:
            if not self.workspace.history(kg).entries():
                raise
            log.warning("%s; serving %s without a completion model until retrained", error, kg)
            return None
        if model is None:
            return None
        table = ProjectionTable(self.workspace.kg_dir(kg) / INDEX_FOLDER / PROJECTIONS_FILE)
        # the retriever gates with the default configuration: rows keep what its gate keeps
        return TabledCompletion(model, table, GateConfig().neural_min_probability)

    def tabulate(self, kg: str = "demo", *, progress: bool = True) -> tuple[int, int]:
        """Fill KG ``kg``'s projection table for every single-anchor input its relations'
        type signatures allow; (projections computed now, stored before)."""
        store = self.open_store(kg)
        model = self._predictor(kg, store)
        if model is None:
            raise InvalidRequestError(
                f"KG {kg!r} has no completion model {self.model!r} to tabulate (train it first)"
            )
        return tabulate(model.bind(store), store, progress=progress)

    def _stale_calibrations(self, kg: str, store: GraphStore) -> StaleCalibrations:
        """The earlier versions whose calibrations may stand in (none when the KG's ingestion
        policy says ``while_stale: none``)."""
        if self.workspace.policy(kg).while_stale == "none":
            return StaleCalibrations()
        history = self.workspace.history(kg)
        earlier = [v for v in history.versions() if v != store.version][:MAX_STALE_VERSIONS]
        return StaleCalibrations(tuple((v, history.edges_since(v)) for v in earlier))

    # -- ingestion ---------------------------------------------------------------------------

    def ingest(
        self,
        kg: str,
        batch: GraphBatch,
        removals: Sequence[tuple[str, str, str]] = (),
        *,
        source: str,
    ) -> Ingestion:
        """Add ``batch`` to (and remove ``removals`` from) KG ``kg`` as a new version; what
        changed and the recalibration its policy asks for (None: none).

        A loaded KG is reloaded at the new version and swapped in at once: a query that
        started before keeps the version it started on, later ones see the new one — never a
        mix. Until the new version is calibrated, queries use the previous calibration or
        none, as the policy says."""
        if self.store_kind == "neo4j":
            raise InvalidRequestError(
                f"KG {kg!r} is held in Neo4j: change it there (or ingest into the workspace "
                "copy and `kgrecall kg push-neo4j --replace` it)"
            )
        store, change = self.workspace.ingest(kg, batch, removals, source=source)
        if change.version_after == change.version_before:
            return Ingestion(change=change, recalibration=None)
        write_indexes(store, self.workspace.kg_dir(kg) / INDEX_FOLDER, progress=self.progress)
        self._reload(kg)
        rechecked = 0
        if self.query_log is not None:
            rechecked = self.query_log.recheck(kg, self.open_store(kg))
        return Ingestion(
            change=change, recalibration=self.recalibration_due(kg), rechecked_queries=rechecked
        )

    def feedback(self, query_id: str, *, missed: Sequence[str], wrong: Sequence[str]) -> None:
        """Store a user's report on a served answer set ("you missed X", "Y is wrong")."""
        if self.query_log is None:
            raise KGError("feedback needs query logging (KGRECALL_QUERY_LOG=full or hashed)")
        self.query_log.feedback(query_id, missed, wrong)

    def monitor(self, kg: str | None = None) -> MonitorReport:
        """The recall users got on new facts, per topology and target."""
        if self.query_log is None:
            raise KGError("the monitor needs query logging (KGRECALL_QUERY_LOG=full or hashed)")
        return self.query_log.report(kg)

    def _reload(self, kg: str) -> None:
        """Build the KG's resources again (when loaded) and swap them in at once: calls that
        started before keep the old ones."""
        with self._guard:
            loaded = kg in self._resources
        if loaded:
            fresh = self._loader.submit(self._load, kg).result()
            fresh.warm()  # the swap must not make the next query wait
            with self._guard:
                self._resources[kg] = fresh
                self._agents.pop(kg, None)

    def recalibration_due(self, kg: str) -> Recalibration | None:
        """What the KG's policy asks to recalibrate now (None: nothing — the policy says
        ``mark_stale``, too few edges changed since the newest calibration, or nothing was
        ever calibrated and the policy names no topology)."""
        policy = self.workspace.policy(kg)
        if policy.on_ingest != "recalibrate":
            return None
        records = calibration_store(self.workspace).all(kg)
        current = self.open_store(kg).version
        if any(r.kg_version == current for r in records):
            return None
        history = self.workspace.history(kg)
        previous = next(
            (v for v in history.versions() if any(r.kg_version == v for r in records)), None
        )
        changed = None if previous is None else history.edges_since(previous)
        if changed is not None and changed < policy.min_change_edges:
            return None
        latest = [r for r in records if r.kg_version == previous]
        topologies = policy.topologies or sorted({r.topology for r in latest})
        alphas = policy.alphas or sorted({r.alpha for r in latest})
        if not topologies or not alphas:
            return None
        return Recalibration(
            topologies=topologies,
            alphas=alphas,
            methods=sorted({r.method for r in latest}) or ["crc"],
            conditioning=max((r.conditioning for r in latest), default="none"),
            queries=max((r.n_queries for r in latest), default=1000),
            strata=max((len(r.hide_fractions) for r in latest), default=3),
            neural=not latest or any(r.predictor_id != NO_PREDICTOR for r in latest),
            edges_changed=changed,
        )

    def recalibrate(
        self, kg: str, plan: Recalibration, *, say: Callable[[str], None] = print
    ) -> tuple[list[Calibration], str]:
        """Run ``plan`` on the KG's current version (retraining a transductive model first);
        the records and where they went."""
        if plan.edges_changed is not None:
            say(f"recalibrating KG {kg!r} after ingestion ({plan.edges_changed} edges changed)")
        return self.calibrate(
            kg=kg,
            topologies=plan.topologies,
            alphas=plan.alphas,
            methods=plan.methods,
            conditioning=plan.conditioning,
            queries=plan.queries,
            strata=plan.strata,
            neural=plan.neural and self.has_predictor(kg),
            say=say,
        )

    def agent(self, kg: str) -> TwoPhaseAgent:
        """The KG's TwoPhaseAgent (LLM planner when an LLM is configured)."""
        # LangGraph is imported with the first agent (≈ 0.9 s): grounding and structured
        # queries do without it
        from kgrecall.agents.agent import TwoPhaseAgent

        resources = self.resources(kg)
        with self._guard:
            if kg not in self._agents:
                offline = resources.planner
                plan: Callable[[str], QueryPlan] = offline.plan
                if self.llm is not None:
                    plan = LLMPlanner(self.llm, offline, resources.validator.extractor).plan
                self._agents[kg] = TwoPhaseAgent(
                    plan,
                    resources.retriever,
                    resources.validator,
                    llm=self.llm,
                    checkpointer=self.checkpointer,
                )
            return self._agents[kg]

    def saved_model(self, kg: str) -> Path | None:
        """The file of the served model trained or fine-tuned on ``kg``, if one was saved."""
        path = model_path(self.workspace, kg, self.model)
        return path if path.is_file() else None

    def has_predictor(self, kg: str) -> bool:
        """Whether ``kg`` has a completion model (ULTRA and rules always; a KG embedding once
        ``kgrecall train`` saved one)."""
        return self.saved_model(kg) is not None or not needs_training(self.model)

    def databases(self) -> list[dict[str, object]]:
        """The served KGs with their size and version (loaded ones from memory)."""
        listed = []
        for name in self.served_names():
            # a workspace KG is listed anew when its file changed; a Neo4j KG once
            embedded = self.store_kind == "embedded"
            stamp = self.workspace.graph_path(name).stat().st_mtime if embedded else 0.0
            cached = self._listing.get(name)
            if cached is None or cached[0] != stamp:
                resources = self._resources.get(name)
                store = resources.store if resources else self.open_store(name)
                summary: dict[str, object] = {
                    "name": name,
                    "version": store.version,
                    "nodes": store.number_of_nodes(),
                    "edges": store.number_of_edges(),
                }
                cached = self._listing[name] = (stamp, summary)
            listed.append({**cached[1], "link_predictor": self.has_predictor(name)})
        return listed

    # -- the four operations -------------------------------------------------------------------

    def ask(
        self,
        question: str,
        *,
        kg: str = "demo",
        level: str = "fast",
        recall_target: float | None = None,
        max_results: int = 50,
        ground: bool = True,
        thread_id: str | None = None,
        on_node: Callable[[str], None] | None = None,
    ) -> AskResponse:
        """Question → plan → gated execution → report → grounding."""
        _check_max_results(max_results)
        started = time.perf_counter()
        state = self.agent(kg).run(
            {
                "question": question,
                "level": level,
                "recall_target": recall_target,
                "max_results": max_results,
                "ground": ground,
                "notes": [],
                "timings": {},
            },
            thread_id=thread_id,
            on_node=on_node,
        )
        answer = state["answer"]
        answers, evidence_truncated = _answers(answer.answers)
        timings = dict(state.get("timings", {}))
        timings["total_ms"] = round((time.perf_counter() - started) * 1000, 3)
        plan = state["plan"]
        return AskResponse(
            answer=state["report"],
            answers=answers,
            total=answer.total,
            truncated=len(answers) < answer.total,
            evidence_truncated=evidence_truncated,
            sources=_sources(answers),
            completeness=answer.completeness,
            grounding=state.get("grounding"),
            plan=plan,
            synthesis=state.get("synthesis", "template"),
            notes=[*plan.notes, *state.get("notes", [])],
            timings=timings,
        )

    def query(
        self,
        query: QueryNode | dict[str, object] | str,
        *,
        kg: str = "demo",
        level: str = "fast",
        recall_target: float | None = None,
        method: Method | None = None,
        conditioning: Conditioning | None = None,
        neural: bool = True,
        max_results: int | None = 50,
    ) -> QueryResponse:
        """A QueryTree at a completeness level (for agents that plan themselves).

        ``conditioning`` picks a Mondrian calibration (default: none), ``neural=False``
        answers by retrieval alone; ``max_results=None`` returns every answer (the command
        line's batch files — the HTTP and MCP adapters cap it)."""
        if max_results is not None:
            _check_max_results(max_results)
        tree = query if not isinstance(query, dict | str) else parse_query(query)
        started = time.perf_counter()
        answer = self.resources(kg).retriever.query(
            tree,
            level=level,
            recall_target=recall_target,
            method=method,
            conditioning=conditioning,
            neural=neural,
        )
        execute_ms = round((time.perf_counter() - started) * 1000, 3)
        return query_response(answer, max_results, timings={"execute_ms": execute_ms})

    def search(
        self, text: str, *, kg: str = "demo", k: int = 10, node_types: Sequence[str] | None = None
    ) -> SearchResponse:
        """Entities for ``text`` (names, synonyms, abbreviations, ids; then fuzzy), best first,
        from the KG's entity index; ``linked`` says whether any reached the minimum score."""
        if not 1 <= k <= MAX_SEARCH_HITS:
            raise KGError(f"k must be between 1 and {MAX_SEARCH_HITS}, got {k}")
        if not text.strip():
            raise KGError("the search text is empty")
        resources = self.resources(kg)
        index = resources.planner.linker
        types = list(node_types) if node_types else None
        found = index.link(text, k=k, node_types=types)
        linked = bool(found)
        if not found:
            found = index.fuzzy(text, k=k, node_types=types)
        store = resources.store
        return SearchResponse(
            text=text,
            linked=linked,
            hits=[
                EntityHit(
                    id=hit.id, name=hit.name, type=hit.type,
                    synonyms=list(store.get_node(hit.id).synonyms[:10]),
                    score=round(hit.score, 4), match=hit.match,
                )
                for hit in found
            ],
        )  # fmt: skip

    def schema(self, *, kg: str = "demo") -> SchemaResponse:
        """The KG's node types and relations: meaning, type signatures with edge counts,
        wordings and an example QueryTree each (what an outer LLM needs to plan)."""
        from kgrecall.kg.relations import RELATIONS

        store = self.resources(kg).store
        cached = self._schemas.get(kg)
        if cached is not None and cached.version == store.version:
            return cached
        types = {node.id: node.type for node in store.nodes()}
        pairs: dict[str, dict[tuple[str, str], int]] = {}
        first: dict[str, str] = {}
        for edge in store.edges():
            key = (types[edge.head], types[edge.tail])
            counts = pairs.setdefault(edge.relation, {})
            counts[key] = counts.get(key, 0) + 1
            first[edge.relation] = min(first.get(edge.relation, edge.head), edge.head)
        relations = []
        for name in sorted(pairs):
            known = RELATIONS.get(name)
            relations.append(
                RelationInfo(
                    name=name,
                    meaning=known.meaning if known else store.schema.relations.get(name, ""),
                    directed=bool(known and known.directed_claims),
                    signatures=[
                        RelationSignatureCount(head_type=h, tail_type=t, edges=n)
                        for (h, t), n in sorted(pairs[name].items())
                    ],
                    wordings=list(known.examples) if known else [],
                    example={
                        "op": "project", "relation": name, "inverse": False,
                        "input": {"op": "entity", "id": first[name]},
                    },
                )
            )  # fmt: skip
        node_types: dict[str, int] = {}
        for node_type in types.values():
            node_types[node_type] = node_types.get(node_type, 0) + 1
        schema = self._schemas[kg] = SchemaResponse(
            kg=kg, version=store.version, node_types=dict(sorted(node_types.items())),
            relations=relations,
        )  # fmt: skip
        return schema

    def ground(
        self, report: str, *, kg: str = "demo", hub_degree: int | None = None
    ) -> GroundingResult:
        """Label every claim of ``report`` against the KG; ``hub_degree`` overrides the
        validator's (nodes with that many edges never carry a path)."""
        resources = self.resources(kg)
        validator = resources.validator
        if hub_degree is not None and hub_degree != validator.verifier.hub_degree:
            validator = KGGroundingValidator(
                resources.store, hub_degree=hub_degree, llm=self.llm, index=resources.index
            )
        return validator.validate(report)

    def train(
        self,
        kg: str,
        *,
        config: TrainingConfig | None = None,
        budget_minutes: float = 10.0,
        seed: int = 0,
    ) -> Training:
        """Train the service's model on KG ``kg`` and save it where the service loads it from;
        a loaded KG then serves it. ULTRA (and an ensemble's ULTRA member) is fine-tuned from
        the shipped weights for ``budget_minutes``; a KG embedding is trained with ``config``
        (default: PyKEEN defaults of its model); mined rules have nothing to train."""
        from kgrecall.tools.linkpred import (
            LinkPredictor,
            TrainingConfig,
            UltraCompletion,
            evaluate_split,
            fine_tune,
        )

        store = self.open_store(kg)
        path = model_path(self.workspace, kg, self.model)
        ultra = ultra_member(self.model)
        if ultra is not None:
            base = UltraCompletion.from_pretrained(ULTRA_MODELS[ultra])
            before = evaluate_split(base, store, seed=seed, limit=ULTRA_TEST_TRIPLES)
            tuned = fine_tune(base, store, budget_s=budget_minutes * 60, seed=seed)
            after = evaluate_split(tuned, store, seed=seed, limit=ULTRA_TEST_TRIPLES)
            trained = Training(self.model, tuned, tuned.save(path), before, after)
        elif not needs_training(self.model):
            return Training(self.model, None, None)
        else:
            config = config or TrainingConfig(model=self.model)
            if canonical_name(config.model) != canonical_name(self.model):
                raise KGError(
                    f"the training configuration names {config.model!r}, the service serves "
                    f"{self.model!r}"
                )
            predictor = LinkPredictor.train(store, config)
            trained = Training(self.model, predictor, predictor.save(path))
        self._reload(kg)
        return trained

    def calibrate(
        self,
        *,
        kg: str = "demo",
        topologies: Sequence[str],
        alphas: Sequence[float] = (0.2, 0.1),
        methods: Sequence[Method] = ("crc",),
        conditioning: Conditioning = "none",
        queries: int = 1000,
        strata: int = 3,
        neural: bool = True,
        seed: int = 0,
        only_missing: bool = False,
        say: Callable[[str], None] = print,
    ) -> tuple[list[Calibration], str]:
        """Calibrate and store the gate thresholds; the records and where they went.

        ``only_missing`` skips the topologies whose every (α, method) already has a valid
        calibration for this KG version and predictor (nothing to do → no records)."""
        if conditioning not in ("none", "relation", "degree"):
            raise KGError(f"invalid conditioning {conditioning!r}; valid: none, relation, degree")
        store = self.open_store(kg)
        path = model_path(self.workspace, kg, self.model)
        if neural and retrain_if_stale(self.model, path, store, say=say) is not None:
            self._reload(kg)  # serve the retrained model
        deployed = load_predictor(self.workspace, kg, store, self.model) if neural else None
        if neural and deployed is None:
            path = model_path(self.workspace, kg, self.model)
            raise KGError(
                f"KG {kg!r} has no trained {self.model} model ({path}); run "
                f"`kgrecall train --kg {kg} --model {self.model}`, use the zero-shot model "
                f"(--model ultra) or calibrate retrieval only (--no-neural)"
            )
        target = calibration_store(self.workspace)
        settings = CalibrationSettings(n_queries=queries, seed=seed)
        if only_missing:
            predictor_id = NO_PREDICTOR if deployed is None else deployed.identifier
            topologies = [
                name
                for name in topologies
                if any(
                    isinstance(
                        target.find(
                            CalibrationKey(kg, store.version, predictor_id, name, alpha,
                                           method, conditioning),
                            scoring=settings.gate.scoring,
                        ),
                        str,
                    )
                    for alpha in alphas
                    for method in methods
                )
            ]  # fmt: skip
            if not topologies:
                return [], target.location
        layers = [
            Stratum(
                reduced,
                None
                if deployed is None
                else calibration_predictor(self.workspace, kg, deployed, reduced, say=say),
            )
            for reduced in reduce_strata(store, seed=seed, strata=strata)
        ]
        records = calibrate(
            store,
            layers,
            kg_name=kg,
            predictor_id=NO_PREDICTOR if deployed is None else deployed.identifier,
            topologies=list(topologies),
            alphas=list(alphas),
            methods=list(methods),
            conditionings=[conditioning],
            settings=settings,
        )
        target.save(records)
        return records, target.location


def _check_max_results(max_results: int) -> None:
    if not 1 <= max_results <= MAX_RESULTS_CAP:
        raise KGError(f"max_results must be between 1 and {MAX_RESULTS_CAP}, got {max_results}")


def query_response(
    answer: CalibratedAnswer, max_results: int | None, *, timings: dict[str, float] | None = None
) -> QueryResponse:
    """The one serialisation of a calibrated answer set (HTTP, MCP, the CLI's ``query``): the
    best ``max_results`` answers (all: None) with their evidence, the total and the
    completeness block."""
    answers, evidence_truncated = _answers(answer.top(max_results))
    return QueryResponse(
        answers=answers,
        total=answer.total,
        truncated=len(answers) < answer.total,
        evidence_truncated=evidence_truncated,
        completeness=answer.completeness,
        timings=timings or {},
    )


def _answers(candidates: list[Candidate]) -> tuple[list[Answer], bool]:
    """The answers with one evidence chain each while ``MAX_EVIDENCE_TRIPLES`` last, and
    whether some answers' evidence was left out for it."""
    answers, left_out, evidence_budget = [], False, MAX_EVIDENCE_TRIPLES
    for c in candidates:
        chain = [t for e in c.evidence[:1] for t in e.triples]
        if len(chain) > evidence_budget:
            chain, left_out = [], True
        evidence_budget -= len(chain)
        answers.append(
            Answer(
                id=c.id,
                name=c.name,
                type=c.type,
                score=round(c.score, 6),
                found_by=c.tools[-1] if c.tools else "graph_traversal",
                evidence=chain,
            )
        )
    return answers, left_out


def _sources(answers: list[Answer]) -> list[EvidenceTriple]:
    """The distinct evidence triples behind the returned answers, in first-use order."""
    seen: dict[tuple[str, str, str], EvidenceTriple] = {}
    for answer in answers:
        for triple in answer.evidence:
            seen.setdefault((triple.head, triple.relation, triple.tail), triple)
    return list(seen.values())
