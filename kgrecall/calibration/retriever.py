"""Calibrated querying: a QueryTree at a completeness level → gated answers + completeness.

Levels (DESIGN §5): ``fast`` is retrieval only with no guarantee; ``thorough`` targets recall
0.8 (α = 0.2); ``exhaustive`` 0.9 (α = 0.1). An explicit ``recall_target`` overrides the level.
The thresholds come from the calibration of the query's topology at the largest calibrated
α ≤ the requested one (a stricter calibration still honours the request). Without a valid
calibration — stale KG version, another link predictor, uncalibrated topology or target — the
query runs retrieval-only and says ``guarantee: none`` with the reason (also when the
calibration store cannot be read).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel

from kgrecall.calibration.gate import (
    ConformalGate,
    GateConfig,
    GateResult,
    ScoredGraph,
)
from kgrecall.calibration.pipeline import group_chain
from kgrecall.calibration.store import (
    NO_PREDICTOR,
    Calibration,
    CalibrationKey,
    CalibrationStore,
    CalibrationStoreError,
)
from kgrecall.calibration.vocabulary import Conditioning, Level, Method
from kgrecall.kg import GraphStore, KGError
from kgrecall.tools import Candidate, QueryNode, hop_depths, topology
from kgrecall.tools.linkpred import CompletionModel

log = logging.getLogger(__name__)

#: Risk level α of each completeness level (fast: no calibration, retrieval only).
LEVEL_ALPHA: dict[str, float] = {"fast": 1.0, "thorough": 0.2, "exhaustive": 0.1}


class Completeness(BaseModel):
    """How complete an answer set is claimed to be, and on what grounds."""

    level: Level | Literal["custom"]
    recall_target: float | None
    #: A lower confidence bound on expected recall, from the calibration queries …
    estimated_recall: float | None
    #: … holding with this probability (1 − δ; None without calibration).
    estimated_recall_confidence: float | None = None
    guarantee: str
    method: Method | None = None
    neural_augmented: bool
    retrieval_only_hops: int
    hybrid_hops: int
    calibration_id: str | None = None
    calibration_group: str | None = None
    thresholds: list[float]
    abstained: bool = False
    abstention_reason: str | None = None
    answer_type_size: int | None = None
    retrieved_answers: int = 0
    predicted_answers: int = 0
    #: The KG version the calibration was made on, when it is not the version served (a
    #: stale calibration standing in until the KG is recalibrated) …
    calibrated_kg_version: str | None = None
    #: … and how many edges were added or removed since (None: unknown).
    edges_since_calibration: int | None = None
    #: The id this answer was logged under (for feedback; None when queries are not logged).
    query_id: str | None = None
    notes: list[str] = []


class AnswerPage(BaseModel):
    """The best answers of a calibrated answer set, plain data (serialisable in agent state)."""

    completeness: Completeness
    answers: list[Candidate]
    #: How many answers the whole set holds (``len(answers)`` may be fewer).
    total: int


@dataclass(slots=True)
class CalibratedAnswer:
    """Gated answers with their completeness block and the gate's per-hop record."""

    completeness: Completeness
    gate: GateResult

    @property
    def total(self) -> int:
        """How many answers the operating point returns (answer objects are built lazily)."""
        return self.gate.total

    def top(self, limit: int | None = None) -> list[Candidate]:
        """The best ``limit`` answers (all when None), with evidence."""
        return self.gate.top(limit)

    @property
    def candidates(self) -> list[Candidate]:
        """Every answer (builds them all: prefer :meth:`top`)."""
        return self.gate.top()

    def page(self, limit: int) -> AnswerPage:
        """The best ``limit`` answers with the completeness block and the set's size."""
        return AnswerPage(completeness=self.completeness, answers=self.top(limit), total=self.total)


def resolve_level(
    level: str, recall_target: float | None
) -> tuple[Level | Literal["custom"], float]:
    """(level label, α): a recall target overrides the level."""
    if level not in LEVEL_ALPHA:
        raise KGError(f"unknown completeness level {level!r}; valid: {', '.join(LEVEL_ALPHA)}")
    if recall_target is None:
        return level, LEVEL_ALPHA[level]  # type: ignore[return-value]
    if not 0.0 < recall_target <= 1.0:
        raise KGError(f"recall_target must be in (0, 1], got {recall_target}")
    alpha = round(1.0 - recall_target, 10)
    named = next((name for name, a in LEVEL_ALPHA.items() if abs(a - alpha) < 1e-9), "custom")
    return named, alpha  # type: ignore[return-value]


@dataclass(frozen=True, slots=True)
class StaleCalibrations:
    """Earlier versions of the served KG whose calibrations may stand in until the version
    served is calibrated (an ingestion policy's ``while_stale: previous``), newest first, with
    the edges changed since each (None: unknown)."""

    versions: tuple[tuple[str, int | None], ...] = ()


class CalibratedRetriever:
    """Answers QueryTrees on one KG with its link predictor and calibrations."""

    def __init__(
        self,
        store: GraphStore,
        *,
        kg_name: str,
        predictor: CompletionModel | None = None,
        load_predictor: Callable[[], CompletionModel | None] | None = None,
        calibrations: CalibrationStore | None = None,
        gate: GateConfig | None = None,
        method: Method = "crc",
        conditioning: Conditioning = "none",
        stale: StaleCalibrations | None = None,
        on_answer: Callable[[QueryNode, CalibratedAnswer], str | None] | None = None,
    ) -> None:
        self.store = store
        self.stale = stale or StaleCalibrations()
        #: called with every answer served; what it returns is the answer's ``query_id``
        self.on_answer = on_answer
        self.kg_name = kg_name
        if predictor is not None and load_predictor is not None:
            raise KGError("give the predictor or a function that loads it, not both")
        self._predictor = predictor
        self._load_predictor = load_predictor
        self.calibrations = calibrations
        self.method: Method = method
        self.conditioning: Conditioning = conditioning
        self._gate_config = gate
        self._gate: ConformalGate | None = None
        self._retrieval_gate: ConformalGate | None = None
        self._lock = threading.RLock()
        self._retrieval_lock = threading.Lock()

    @property
    def predictor(self) -> CompletionModel | None:
        """The completion model; loaded on first use when given as ``load_predictor`` (the
        retrieval-only level never loads it, nor torch)."""
        with self._lock:
            if self._load_predictor is not None:
                self._predictor, self._load_predictor = self._load_predictor(), None
            return self._predictor

    @property
    def gate_config(self) -> GateConfig:
        """How the gate routes and scores (the default unless one was given)."""
        return self._gate_config or GateConfig()

    @property
    def gate(self) -> ConformalGate:
        """The gate over the store and the completion model bound to it (built once)."""
        with self._lock:
            if self._gate is None:
                self._gate = ConformalGate(
                    ScoredGraph(self.store, self.predictor, self._gate_config)
                )
            return self._gate

    def warm(self) -> None:
        """Load the completion model and bind it to the store now, not on the first query."""
        _ = self.gate

    @property
    def predictor_id(self) -> str:
        return NO_PREDICTOR if self.predictor is None else self.predictor.identifier

    def query(
        self,
        query: QueryNode,
        *,
        level: str = "fast",
        recall_target: float | None = None,
        method: Method | None = None,
        conditioning: Conditioning | None = None,
        neural: bool = True,
    ) -> CalibratedAnswer:
        """Run ``query`` at the requested completeness; ``method`` and ``conditioning`` choose
        among the stored calibrations (default: the retriever's); ``neural=False`` answers by
        retrieval alone, with a calibration made without a completion model."""
        answer = self._answer(query, level, recall_target, method, conditioning, neural)
        if self.on_answer is not None:
            answer.completeness.query_id = self.on_answer(query, answer)
        return answer

    def _answer(
        self,
        query: QueryNode,
        level: str,
        recall_target: float | None,
        method: Method | None,
        conditioning: Conditioning | None,
        neural: bool,
    ) -> CalibratedAnswer:
        label, alpha = resolve_level(level, recall_target)
        chosen_method: Method = method or self.method
        chosen_conditioning: Conditioning = conditioning or self.conditioning
        target = None if alpha >= 1.0 else 1.0 - alpha
        if alpha >= 1.0:
            return self._uncalibrated(
                query, label, target, "fast level: retrieval only, best effort"
            )
        if self.calibrations is None:
            return self._uncalibrated(query, label, target, "no calibration store configured")
        name = topology(query)

        def find(predictor_id: str) -> Calibration | str:
            assert self.calibrations is not None
            key = CalibrationKey(
                self.kg_name, self.store.version, predictor_id, name, alpha, chosen_method,
                chosen_conditioning,
            )  # fmt: skip
            earlier = [version for version, _ in self.stale.versions]
            try:
                return self.calibrations.find(key, earlier, scoring=self.gate_config.scoring)
            except CalibrationStoreError as error:  # answer uncalibrated, never fail the query
                log.warning("calibration lookup failed: %s", error)
                return f"the calibration store cannot be read ({error.problem})"

        fallback: list[str] = []
        if not neural:
            found, gate = find(NO_PREDICTOR), self._retrieval_only_gate()
        else:
            found, gate = find(self.predictor_id), self.gate
        if neural and isinstance(found, str) and self.predictor is not None:
            # A retrieval-only calibration holds for retrieval-only execution: use it so.
            retrieval = find(NO_PREDICTOR)
            if not isinstance(retrieval, str):
                found, gate = retrieval, self._retrieval_only_gate()
                fallback = [
                    f"calibrated without a completion model (none for {self.predictor_id}); "
                    "the model is not used for this query"
                ]
        if isinstance(found, str):
            return self._uncalibrated(query, label, target, found)
        chain = group_chain(self.store, query, chosen_conditioning)
        choice, cell = found.choice_for(chain)
        if choice is None:
            return self._uncalibrated(
                query,
                label,
                target,
                f"calibration {found.id} has no {chosen_conditioning} group covering this query "
                f"(groups {', '.join(chain)}; recalibrate with more queries)",
            )
        result = gate.run(query, choice.thresholds_by_depth())
        if found.max_answers is not None and result.retrieved > found.max_answers:
            return self._uncalibrated(
                query,
                label,
                target,
                f"the query already has {result.retrieved} retrieved answers; calibration "
                f"{found.id} covers queries with ≤ {found.max_answers} answers in the KG "
                "(recalibrate with a larger max_answers to cover it)",
            )
        reason = None
        if result.everything:
            reason = (
                f"no useful guarantee at this level for this query: meeting recall "
                f"{target:.2f} takes every one of the {result.answer_type_size} entities of the "
                f"answer type; shown: the {result.retrieved} retrieved answers first, then the "
                "best predictions"
            )
        stale_notes, edges_since = [], None
        if found.kg_version != self.store.version:
            edges_since = dict(self.stale.versions).get(found.kg_version)
            changed = "an unknown number of" if edges_since is None else str(edges_since)
            stale_notes = [
                f"stale calibration: made on KG version {found.kg_version[:12]}, {changed} "
                f"edges added or removed since (now {self.store.version[:12]}); it stands in "
                "until this version is recalibrated"
            ]
        completeness = Completeness(
            level=label,
            recall_target=target,
            estimated_recall=round(choice.estimated_recall, 4),
            estimated_recall_confidence=found.confidence_level,
            guarantee=found.guarantee(choice, cell),
            method=found.method,
            neural_augmented=result.neural_augmented,
            retrieval_only_hops=result.retrieval_only_hops,
            hybrid_hops=result.hybrid_hops,
            calibration_id=found.id,
            calibration_group=cell,
            thresholds=choice.thresholds,
            abstained=result.everything,
            abstention_reason=reason,
            answer_type_size=result.answer_type_size,
            retrieved_answers=result.retrieved,
            predicted_answers=result.predicted,
            calibrated_kg_version=found.kg_version if stale_notes else None,
            edges_since_calibration=edges_since,
            notes=[*stale_notes, *fallback, *([choice.note] if choice.note else []), *result.notes],
        )
        return CalibratedAnswer(completeness, result)

    def _retrieval_only_gate(self) -> ConformalGate:
        # its own lock: retrieval-only answers never wait for the model to load
        with self._retrieval_lock:
            if self._retrieval_gate is None:
                self._retrieval_gate = ConformalGate(
                    ScoredGraph(self.store, None, self._gate_config)
                )
            return self._retrieval_gate

    def _uncalibrated(
        self,
        query: QueryNode,
        label: Level | Literal["custom"],
        target: float | None,
        reason: str,
    ) -> CalibratedAnswer:
        gate = self._retrieval_only_gate()  # retrieval only: the model is not needed
        result = gate.run(query)
        completeness = Completeness(
            level=label,
            recall_target=target,
            estimated_recall=None,
            guarantee=f"none: {reason}",
            neural_augmented=False,
            retrieval_only_hops=result.retrieval_only_hops,
            hybrid_hops=0,
            thresholds=[gate.routing_threshold] * hop_depths(query),
            answer_type_size=result.answer_type_size,
            retrieved_answers=result.retrieved,
            notes=result.notes,
        )
        return CalibratedAnswer(completeness, result)
