"""The conformal gate: exact retrieval always, neural completion only below the routing threshold.

**Unified scores** (DESIGN §6). A retrieved edge scores ``δ + (1 − δ)·confidence`` ∈ [δ, 1]; a
predicted answer scores ``δ·p`` ∈ [0, δ) — strictly below δ — ``p`` being the completion model's
probability (δ = :attr:`GateConfig.routing_threshold`). A path scores the *minimum* of its hop
scores, an answer the *maximum* over its paths; intersections take the minimum over their
branches and unions the maximum (the Gödel t-norm and t-conorm).

**Predictions ranked by the recall they can add.** The guarantee is on each query's recall
``|S ∩ Y| / |Y|``: a true predicted answer adds ``1/|Y|``, and ``|Y|`` grows with the answers
the query already retrieves. Every prediction's probability ``p``, at whatever hop, is
therefore scored ``δ·p / (1 + K)^w`` (``K`` = the query's answers retrieved through retrieved
edges alone, the ones recall counts; ``w`` = :attr:`GateConfig.answer_weighting`), so one
global threshold spends predictions where they buy the most recall: on the demo KG the
calibrated 1p sets at target 0.8 went from 61 to 22 entities and their precision from 0.25 to
0.42 (``benchmarks/completeness.py``). One ``K`` for every hop of a query keeps its hops
comparable: an answer behind a predicted first hop of a chain and one behind a predicted last
hop add the same to recall, so they are ranked by their probabilities alone (dividing each hop
by its own count pushed last-hop predictions, whose hop retrieves more, below first-hop ones).
``K`` depends on retrieved edges only, so it is the same at calibration and at query time.

**Set-level neural projection.** A hop's predictions come from one call of the bound
completion model on the *fuzzy set* of the hop's inputs: every entity the child reaches, by
retrieval (weight 1) or by prediction (weight level/δ), so answers behind two missing edges are
reachable. While the tree is built an input's level uses its own hop's count ``k`` (the answers
that hop, or the join whose branch it is, retrieves); once the query's ``K`` is known every hop
is scored with it, and a predicted answer of a hop counts with the score
``min(best input level, δ·p/(1 + K)^w)``.
The predictions are computed from the child's threshold-free scores, identically at
calibration and at query time; thresholding then commutes with execution: keeping the answers
with score ≥ λ gives exactly the answers of running every hop with threshold λ.

**Answer types.** Predictions live inside the hop's answer type (the node types the relation
reaches from the types of the hop's input, learned from the graph as (head type, tail type)
pairs: :func:`kgrecall.kg.relation_signatures`; ``subclass_of`` from a disease reaches
diseases only), and threshold 0 —
"return everything" — returns every entity of the query's answer type, not every entity of
the KG.

**Thresholds per hop.** A hop's threshold depends on its depth ``d``: the number of projections
between it and the answer (the last hop has ``d = 0``). A hop with ``λ_d ≥ δ`` is
retrieval-only; the completion model runs at a hop only when that hop, or a hop consuming its
output, has ``λ < δ`` (the consumer needs the fuzzy input). A query whose every hop is
retrieval-only never calls the model.

**Answers as arrays.** The result keeps answer positions and scores as arrays; answer objects
and evidence paths are built only for the answers a caller takes (:meth:`GateResult.top`).

Anchors are given as entity ids, so vector and fulltext search do not generate answer
candidates here; they link question text to anchors (planner) and are gated there.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from kgrecall.kg import GraphStore, KGError, relation_signatures
from kgrecall.kg.deadline import check_deadline
from kgrecall.tools import (
    Candidate,
    EntityQuery,
    Evidence,
    EvidenceTriple,
    IntersectQuery,
    ProjectQuery,
    QueryNode,
    ToolName,
    hop_depths,
    topology,
    validate_query,
)
from kgrecall.tools.linkpred import CompletionModel

#: Default routing threshold δ between retrieved facts [δ, 1] and predictions [0, δ).
DEFAULT_ROUTING_THRESHOLD = 0.5

#: The provenance a predicted evidence triple carries.
PREDICTED_SOURCE = "link_predictor"

#: How the note that says why a query has no answer begins.
NO_ANSWER_NOTE = "no answer: "

HopMode = Literal["retrieval_only", "hybrid"]


@dataclass(frozen=True, slots=True)
class GateConfig:
    """The routing threshold, the smallest probability a prediction is kept with, and the
    exponent ``w`` of the recall weighting ``p / (1 + K)^w`` (0: probabilities as they are)."""

    routing_threshold: float = DEFAULT_ROUTING_THRESHOLD
    neural_min_probability: float = 0.002
    answer_weighting: float = 1.0

    def __post_init__(self) -> None:
        if not 0.0 < self.routing_threshold < 1.0:
            raise KGError(f"routing_threshold must be in (0, 1), got {self.routing_threshold}")
        if not 0.0 < self.neural_min_probability < 1.0:
            raise KGError(
                f"neural_min_probability must be in (0, 1), got {self.neural_min_probability}"
            )
        if not 0.0 <= self.answer_weighting <= 4.0:
            raise KGError(f"answer_weighting must be in [0, 4], got {self.answer_weighting}")

    @property
    def scoring(self) -> str:
        """Names how predictions are scored; a calibration holds only for the scoring it was
        made with (stored with it, checked when it is looked up)."""
        return f"p/(1+K)^{self.answer_weighting:g}:min{self.neural_min_probability:g}"

    def exact_score(self, confidence: float) -> float:
        """A retrieved edge on the unified scale."""
        return float(self.exact_scores(np.asarray(confidence)))

    def exact_scores(self, confidences: np.ndarray) -> np.ndarray:
        """Retrieved edges on the unified scale: ``δ + (1 − δ)·confidence``."""
        return np.asarray(self.routing_threshold + (1.0 - self.routing_threshold) * confidences)

    def neural_scores(self, probabilities: np.ndarray, known_answers: int = 0) -> np.ndarray:
        """Predictions on the unified scale: ``δ·p / (1 + k)^w`` for ``k = known_answers``
        retrieved answers, kept strictly below δ."""
        below = np.nextafter(self.routing_threshold, 0.0)
        weight = float((1.0 + known_answers) ** -self.answer_weighting)
        scores = self.routing_threshold * weight * probabilities.astype(np.float64)
        return np.asarray(np.minimum(scores, below))


@dataclass(slots=True)
class HopReport:
    """What the gate did at one projection."""

    depth: int
    relation: str
    inverse: bool
    threshold: float
    mode: HopMode
    inputs: int
    exact_candidates: int
    answer_types: list[str] = field(default_factory=list)
    answer_type_size: int = 0
    predictor_called: bool = False
    neural_inputs: int = 0
    neural_candidates: int = 0
    elapsed_ms: float = 0.0
    note: str | None = None


# -- one relation's edges as arrays -------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class _Adjacency:
    """One relation's edges in one direction, grouped by source position (CSR): row ``i``
    holds the edges leaving entity ``i`` (entering it for an inverse hop), ordered by the
    other end's id as :meth:`GraphStore.hop_edges` orders them."""

    relation: str
    inverse: bool
    indptr: np.ndarray
    targets: np.ndarray
    confidences: np.ndarray
    #: per entry, its edge's provenance as a position in ``sources``
    source_codes: np.ndarray
    sources: tuple[tuple[str, ...], ...]

    @classmethod
    def empty(cls, relation: str, inverse: bool, n_entities: int) -> _Adjacency:
        """A relation the store declares but holds no edge of."""
        none = np.zeros(0, dtype=np.int64)
        return cls(
            relation, inverse, np.zeros(n_entities + 1, dtype=np.int64), none,
            np.zeros(0, dtype=np.float64), none, (),
        )  # fmt: skip

    def hop(self, inputs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(source position, entry) of every edge leaving ``inputs`` (ascending positions),
        grouped by input in the order given."""
        starts = self.indptr[inputs]
        counts = self.indptr[inputs + 1] - starts
        offsets = np.cumsum(counts) - counts
        entries = np.arange(int(counts.sum()), dtype=np.int64) + np.repeat(starts - offsets, counts)
        return np.repeat(inputs, counts), entries

    def triple(self, entry: int, source: int, entity_ids: list[str]) -> EvidenceTriple:
        """The evidence triple of ``entry`` (an edge leaving ``source``)."""
        return _hop_triple(
            entity_ids[source], entity_ids[int(self.targets[entry])], self.relation,
            self.inverse, list(self.sources[int(self.source_codes[entry])]),
            float(self.confidences[entry]),
        )  # fmt: skip


def _adjacencies(
    store: GraphStore, position: Mapping[str, int]
) -> dict[tuple[str, bool], _Adjacency]:
    """Every relation's edges, both directions, as arrays: one pass over the store, so a
    hop over hundreds of fuzzy inputs is a gather, not a call per entity."""
    provenance: dict[tuple[str, ...], int] = {}
    relations: dict[str, int] = {}
    rows = [
        (
            position[edge.head],
            position[edge.tail],
            relations.setdefault(edge.relation, len(relations)),
            edge.confidence,
            provenance.setdefault(tuple(edge.sources), len(provenance)),
        )
        for edge in store.edges()
    ]
    table = np.array(rows, dtype=np.float64).reshape(-1, 5)
    heads, tails, codes = (table[:, column].astype(np.int64) for column in range(3))
    confidences, source_codes = table[:, 3], table[:, 4].astype(np.int64)
    sources = tuple(provenance)
    n = len(position)
    result: dict[tuple[str, bool], _Adjacency] = {}
    for relation, code in relations.items():
        chosen = np.flatnonzero(codes == code)
        for inverse in (False, True):
            rows_at, others = (tails, heads) if inverse else (heads, tails)
            rows_of, others_of = rows_at[chosen], others[chosen]
            order = chosen[np.lexsort((others_of, rows_of))]  # by source, then the other end
            indptr = np.zeros(n + 1, dtype=np.int64)
            np.cumsum(np.bincount(rows_of, minlength=n), out=indptr[1:])
            result[relation, inverse] = _Adjacency(
                relation, inverse, indptr, others[order], confidences[order],
                source_codes[order], sources,
            )  # fmt: skip
    return result


# -- evaluated query trees --------------------------------------------------------------------
@dataclass(slots=True)
class _Leaf:
    index: int
    mask: np.ndarray


@dataclass(slots=True)
class _Hop:
    """One projection: retrieved edges as entry arrays, predictions as a dense score vector."""

    child: _Tree
    depth: int
    relation: str
    inverse: bool
    src: np.ndarray
    dst: np.ndarray
    score: np.ndarray
    #: each entry's position in ``adjacency`` (its edge's evidence is built from there)
    entries: np.ndarray
    adjacency: _Adjacency
    #: δ·p/(1 + K)^w per entity (0 = no prediction), inside the answer type; None: no call
    neural: np.ndarray | None
    probabilities: np.ndarray | None
    mask: np.ndarray
    report: HopReport
    #: threshold-free level through the retrieved edges, and the best input level
    edge_level: np.ndarray
    input_top: float
    #: the node types the hop keeps (None: every type its relation reaches)
    types: tuple[str, ...] | None = None

    def level(self) -> np.ndarray:
        """Threshold-free level of every entity: its best edge, or its prediction capped by
        the best input."""
        if self.neural is None:
            return self.edge_level
        return np.asarray(np.maximum(self.edge_level, np.minimum(self.input_top, self.neural)))


@dataclass(slots=True)
class _Join:
    intersect: bool
    children: list[_Tree]
    mask: np.ndarray


_Tree = _Leaf | _Hop | _Join
#: Maps a hop's scores (retrieved entries or the prediction vector) at a depth to the scores
#: they count with: a cut at the depth's threshold, a power transform.
HopScores = Callable[[np.ndarray, int], np.ndarray]


class ScoredGraph:
    """A store and (optionally) a completion model bound to it, ready for gating."""

    def __init__(
        self,
        store: GraphStore,
        predictor: CompletionModel | None = None,
        config: GateConfig | None = None,
    ) -> None:
        self.store = store
        self.predictor = predictor
        self.config = config or GateConfig()
        nodes = sorted(store.nodes(), key=lambda node: node.id)
        self.entity_ids = [node.id for node in nodes]
        self.position = {entity: i for i, entity in enumerate(self.entity_ids)}
        self.type_names = sorted({node.type for node in nodes})
        codes = {name: code for code, name in enumerate(self.type_names)}
        self.type_codes = np.array([codes[node.type] for node in nodes], dtype=np.int64)
        self.signatures = relation_signatures(store)
        self.completion = predictor.bind(store) if predictor is not None else None
        if self.completion is not None and self.completion.entity_ids != self.entity_ids:
            raise KGError("the completion model was bound to another entity index")
        self._masks: dict[tuple[str, bool, frozenset[str] | None], np.ndarray] = {}
        self._adjacency = _adjacencies(store, self.position)

    @property
    def n_entities(self) -> int:
        return len(self.entity_ids)

    def answer_types(
        self, relation: str, *, inverse: bool, given: Collection[str] | None = None
    ) -> list[str]:
        """Node types a projection along ``relation`` reaches (none if it has no edges);
        with ``given``, only from inputs of those types."""
        signature = self.signatures.get(relation)
        return sorted(signature.answer_types(inverse=inverse, given=given)) if signature else []

    def answer_mask(
        self, relation: str, *, inverse: bool, given: Collection[str] | None = None
    ) -> np.ndarray:
        """Entities inside the answer type of a projection along ``relation`` (from inputs of
        the ``given`` types)."""
        key = (relation, inverse, None if given is None else frozenset(given))
        if key not in self._masks:
            types = self.answer_types(relation, inverse=inverse, given=given)
            self._masks[key] = np.isin(self.type_codes, self._codes(types))
        return self._masks[key]

    def _codes(self, types: Collection[str]) -> list[int]:
        """The codes of those ``types`` some entity has."""
        return [code for code, name in enumerate(self.type_names) if name in types]

    def types_in(self, mask: np.ndarray) -> list[str]:
        """The node types of the entities in ``mask``."""
        return [self.type_names[code] for code in np.unique(self.type_codes[mask]).tolist()]

    def evaluate(self, query: QueryNode, hybrid: Callable[[int], bool]) -> _Tree:
        """Candidate tables for every hop; predictions where ``hybrid(d)`` or a consumer needs
        them (see the module docstring)."""
        validate_query(self.store, query)
        tree, level = self._build(query, 0, hybrid, consumer_neural=False)
        # Recall counts the query's answers: every hop's predictions are weighted by them.
        known = int((level >= self.config.routing_threshold).sum())
        for hop in _hops(tree):
            self._weigh(hop, known)
        return tree

    def _build(
        self, node: QueryNode, depth: int, hybrid: Callable[[int], bool], *, consumer_neural: bool
    ) -> tuple[_Tree, np.ndarray]:
        """(tree, threshold-free level of every entity) for ``node``."""
        check_deadline()  # a timed-out request's query stops between hops
        n = self.n_entities
        if isinstance(node, EntityQuery):
            index = self.position[node.id]
            level = np.zeros(n)
            level[index] = 1.0
            return _Leaf(index, level > 0), level
        if isinstance(node, ProjectQuery):
            return self._project(node, depth, hybrid, consumer_neural=consumer_neural)
        built = [
            self._build(child, depth, hybrid, consumer_neural=consumer_neural)
            for child in node.inputs
        ]
        intersect = isinstance(node, IntersectQuery)
        masks = [tree.mask for tree, _ in built]
        mask = np.logical_and.reduce(masks) if intersect else np.logical_or.reduce(masks)
        join = np.minimum if intersect else np.maximum
        level = join.reduce([lv for _, lv in built])
        # A consumer of the join reads its branches' predictions weighted by the answers the
        # join retrieves, not by each branch's own (the query's count replaces it at the end).
        known = int((level >= self.config.routing_threshold).sum())
        for tree, _ in built:
            if isinstance(tree, _Hop):
                self._weigh(tree, known)
        level = join.reduce([tree.level() if isinstance(tree, _Hop) else lv for tree, lv in built])
        return _Join(intersect, [tree for tree, _ in built], mask), level

    def _project(
        self,
        node: ProjectQuery,
        depth: int,
        hybrid: Callable[[int], bool],
        *,
        consumer_neural: bool,
    ) -> tuple[_Tree, np.ndarray]:
        start = time.perf_counter()
        neural_here = hybrid(depth) or consumer_neural
        child, child_level = self._build(node.input, depth + 1, hybrid, consumer_neural=neural_here)
        inputs = np.flatnonzero(child_level > 0)
        adjacency = self._adjacency.get((node.relation, node.inverse))
        if adjacency is None:  # a declared relation without edges
            adjacency = _Adjacency.empty(node.relation, node.inverse, self.n_entities)
            self._adjacency[node.relation, node.inverse] = adjacency
        # The hop's answer type follows from its input's (static, not thresholded) type and
        # the node types the hop asks for.
        given = self.types_in(child.mask)
        mask = self.answer_mask(node.relation, inverse=node.inverse, given=given)
        answer_types = self.answer_types(node.relation, inverse=node.inverse, given=given)
        sources_at, entries = adjacency.hop(inputs)
        if node.types is not None:
            mask = mask & np.isin(self.type_codes, self._codes(node.types))
            answer_types = [name for name in answer_types if name in node.types]
            kept = mask[adjacency.targets[entries]]
            sources_at, entries = sources_at[kept], entries[kept]
        targets_at = adjacency.targets[entries]
        scores_at = self.config.exact_scores(adjacency.confidences[entries])
        report = HopReport(
            depth, node.relation, node.inverse, math.nan,
            "hybrid" if hybrid(depth) else "retrieval_only", len(inputs), len(entries),
            answer_types, int(mask.sum()),
        )  # fmt: skip
        edge_level = np.zeros(self.n_entities)
        np.maximum.at(edge_level, targets_at, np.minimum(child_level[sources_at], scores_at))
        hop = _Hop(
            child, depth, node.relation, node.inverse, sources_at, targets_at, scores_at, entries,
            adjacency, None, None, mask, report, edge_level, float(child_level.max()), node.types,
        )  # fmt: skip
        if neural_here:
            self._predict(hop, child_level)
        report.elapsed_ms = (time.perf_counter() - start) * 1e3
        return hop, hop.level()

    def _predict(self, hop: _Hop, child_level: np.ndarray) -> None:
        """The hop's predictions from the fuzzy set of its inputs, inside its answer type."""
        report = hop.report
        completion = self.completion
        if completion is None:
            report.note = "no link predictor: retrieval only"
            return
        if not completion.knows(hop.relation):
            report.note = f"the link predictor does not know relation {hop.relation!r}"
            return
        delta = self.config.routing_threshold
        weights = np.minimum(1.0, child_level / delta)
        probabilities = completion.project(weights, hop.relation, inverse=hop.inverse)
        probabilities = np.where(
            hop.mask & (probabilities >= self.config.neural_min_probability), probabilities, 0.0
        )
        hop.probabilities = probabilities
        self._weigh(hop, np.unique(hop.dst[child_level[hop.src] >= delta]).size)
        report.predictor_called = True
        report.neural_inputs = int((weights > 0).sum())
        report.neural_candidates = int((probabilities > 0).sum())
        report.note = completion.last_note

    def _weigh(self, hop: _Hop, known: int) -> None:
        """The hop's prediction scores for ``known`` retrieved answers (see the module
        docstring); nothing when the model did not run there."""
        if hop.probabilities is not None:
            scores = self.config.neural_scores(hop.probabilities, known)
            hop.neural = np.where(hop.probabilities > 0, scores, 0.0)


def levels(tree: _Tree, n_entities: int, hop_scores: HopScores) -> np.ndarray:
    """Every entity's answer score (0 = not an answer) under the given per-hop scores."""
    return _trace(tree, n_entities, hop_scores, keep_best=False).scores[id(tree)]


def answer_mask(tree: _Tree) -> np.ndarray:
    """The entities inside the query's answer type: what threshold 0 returns."""
    return tree.mask


def power_scores(gamma: float) -> HopScores:
    """Hop scores ``s^(e^{γ·d})``: an answer scores ≥ t iff each hop's score is ≥ ``t^(e^{−γ·d})``.

    ``γ = 0`` is one scalar threshold for every hop; ``γ > 0`` holds earlier hops (larger d)
    to stricter thresholds than the last one, ``γ < 0`` the reverse.
    """

    def scores(values: np.ndarray, depth: int) -> np.ndarray:
        return np.asarray(values ** math.exp(gamma * depth))

    return scores


def hop_thresholds(gamma: float, t: float, depths: int) -> list[float]:
    """The per-depth thresholds ``λ_d = t^(e^{−γ·d})`` of grid point (γ, t)."""
    return [t ** math.exp(-gamma * depth) for depth in range(depths)]


def cut_scores(thresholds: Mapping[int, float]) -> HopScores:
    """Hop scores with every entry below its depth's threshold removed (set to 0)."""

    def scores(values: np.ndarray, depth: int) -> np.ndarray:
        return np.where(values >= thresholds[depth], values, 0.0)

    return scores


@dataclass(slots=True)
class _Trace:
    """Per node of an evaluated tree: its scores; per hop each entity's best retrieved entry
    (−1: none) and whether its prediction beats every retrieved entry."""

    scores: dict[int, np.ndarray] = field(default_factory=dict)
    best: dict[int, np.ndarray] = field(default_factory=dict)
    predicted_best: dict[int, np.ndarray] = field(default_factory=dict)


def _trace(tree: _Tree, n_entities: int, hop_scores: HopScores, *, keep_best: bool) -> _Trace:
    """Scores of every node bottom-up; with ``keep_best`` also each hop's best entries."""
    trace = _Trace()

    def walk(node: _Tree) -> np.ndarray:
        result: np.ndarray
        if isinstance(node, _Leaf):
            result = np.zeros(n_entities)
            result[node.index] = 1.0
        elif isinstance(node, _Hop):
            child = walk(node.child)
            values = np.minimum(child[node.src], hop_scores(node.score, node.depth))
            result = np.zeros(n_entities)
            np.maximum.at(result, node.dst, values)
            if keep_best:
                order = np.argsort(values, kind="stable")
                order = order[values[order] > 0]
                best = np.full(n_entities, -1, dtype=np.int64)
                best[node.dst[order]] = order  # the last write per entity is its best entry
                trace.best[id(node)] = best
            if node.neural is not None:
                top = float(child.max()) if len(child) else 0.0
                predicted = np.minimum(hop_scores(node.neural, node.depth), top)
                if keep_best:
                    trace.predicted_best[id(node)] = predicted > result
                result = np.maximum(result, predicted)
        else:
            parts = [walk(child) for child in node.children]
            result = (np.minimum if node.intersect else np.maximum).reduce(parts)
        trace.scores[id(node)] = result
        return result

    walk(tree)
    return trace


@dataclass(slots=True)
class GateResult:
    """Answers best first as arrays, with the per-hop record of retrieval and neural work.

    ``indices`` are positions in the graph's entity index, ``scores`` their unified scores
    (0 for the entities of the answer type that only the "everything" point returns).
    Answer objects with evidence are built on demand: :meth:`top`.
    """

    indices: np.ndarray
    scores: np.ndarray
    topology: str
    hops: list[HopReport]
    elapsed_ms: float
    everything: bool
    answer_type_size: int
    routing_threshold: float
    entity_ids: list[str]
    notes: list[str] = field(default_factory=list)
    build: Callable[[int, float], Candidate] | None = None

    @property
    def total(self) -> int:
        return len(self.indices)

    def top(self, limit: int | None = None) -> list[Candidate]:
        """The best ``limit`` answers (all when None) as candidates with their evidence."""
        if self.build is None:
            raise KGError("this gate result carries no answer builder")
        count = self.total if limit is None else min(limit, self.total)
        return [
            self.build(int(index), float(score))
            for index, score in zip(self.indices[:count], self.scores[:count], strict=True)
        ]

    @property
    def candidates(self) -> list[Candidate]:
        """Every answer as a candidate (builds them all: prefer :meth:`top`)."""
        return self.top()

    @property
    def ids(self) -> set[str]:
        """Every answer's entity id (no answer objects built)."""
        entity_ids = self.entity_ids
        return {entity_ids[int(index)] for index in self.indices}

    @property
    def retrieval_only_hops(self) -> int:
        return sum(hop.mode == "retrieval_only" for hop in self.hops)

    @property
    def hybrid_hops(self) -> int:
        return sum(hop.mode == "hybrid" for hop in self.hops)

    @property
    def retrieved(self) -> int:
        """Answers reached by retrieval alone (score ≥ δ)."""
        return int((self.scores >= self.routing_threshold).sum())

    @property
    def predicted(self) -> int:
        """Answers reached only through predictions (0 < score < δ)."""
        return int(((self.scores > 0) & (self.scores < self.routing_threshold)).sum())

    @property
    def neural_augmented(self) -> bool:
        return self.predicted > 0


class ConformalGate:
    """Runs a query with per-depth thresholds; the completion model only where needed."""

    def __init__(self, graph: ScoredGraph) -> None:
        self.graph = graph

    @property
    def routing_threshold(self) -> float:
        return self.graph.config.routing_threshold

    def run(self, query: QueryNode, thresholds: Mapping[int, float] | None = None) -> GateResult:
        """Answers of ``query``; ``thresholds`` maps hop depth → λ (missing depths: δ).

        ``None`` is retrieval only (every λ = δ). A threshold of 0 at every depth returns
        every entity of the query's answer type (the "return everything" end of a
        calibration grid: abstention).
        """
        start = time.perf_counter()
        delta = self.routing_threshold
        chosen = {d: (thresholds or {}).get(d, delta) for d in range(hop_depths(query))}
        for depth, value in chosen.items():
            if not 0.0 <= value <= 1.0:
                raise KGError(f"threshold for hop depth {depth} must be in [0, 1], got {value}")
        tree = self.graph.evaluate(query, lambda d: chosen[d] < delta)
        hops = [hop.report for hop in _hops(tree)]
        for hop in hops:
            hop.threshold = chosen[hop.depth]
        graph = self.graph
        notes = [f"hop {h.relation} (depth {h.depth}): {h.note}" for h in hops if h.note]
        trace = _trace(tree, graph.n_entities, cut_scores(chosen), keep_best=True)
        answer_levels = trace.scores[id(tree)]
        empty = _emptied_at(tree, trace, chosen, graph)
        if empty is not None:
            notes.append(empty)
        mask = answer_mask(tree)
        everything = bool(chosen) and all(value == 0.0 for value in chosen.values())
        if everything:
            notes.append(
                f"threshold 0: every one of the {int(mask.sum())} entities of the answer type "
                "returned"
            )
            indices = np.flatnonzero(mask)
        else:
            indices = np.flatnonzero(answer_levels > 0)
        scores = answer_levels[indices]
        order = np.argsort(-scores, kind="stable")  # ties stay in id order
        indices, scores = indices[order], scores[order]

        def build(index: int, score: float) -> Candidate:
            path = _best_path(tree, index, trace, graph.entity_ids) if score > 0 else None
            return self._candidate(graph.entity_ids[index], score, path)

        elapsed = (time.perf_counter() - start) * 1e3
        return GateResult(
            indices, scores, topology(query), hops, elapsed, everything, int(mask.sum()),
            delta, graph.entity_ids, notes, build,
        )  # fmt: skip

    def _candidate(self, entity: str, score: float, path: list[EvidenceTriple] | None) -> Candidate:
        node = self.graph.store.get_node(entity)
        if path is None:
            return Candidate(
                id=node.id, name=node.name, type=node.type, score=score, tools=[],
                evidence=[], evidence_truncated=False,
            )  # fmt: skip
        predicted = [t for t in path if t.sources == [PREDICTED_SOURCE]]
        tools: list[ToolName] = []
        if len(predicted) < len(path):
            tools.append("graph_traversal")
        if predicted:
            tools.append("neural_completion")
        evidence = Evidence(
            kind="predicted_triple" if predicted else "kg_path",
            triples=path,
            model_score=min(t.confidence for t in predicted) if predicted else None,
            matched_text=None,
        )
        return Candidate(
            id=node.id, name=node.name, type=node.type, score=score, tools=tools,
            evidence=[evidence], evidence_truncated=True,
        )  # fmt: skip


def _emptied_at(
    tree: _Tree, trace: _Trace, thresholds: Mapping[int, float], graph: ScoredGraph
) -> str | None:
    """Why a query has no answer: the first hop or intersection that reached nothing from
    inputs it had (None when the query has answers or nothing to say)."""
    if isinstance(tree, _Leaf):
        return None
    children = [tree.child] if isinstance(tree, _Hop) else tree.children
    for child in children:
        reason = _emptied_at(child, trace, thresholds, graph)
        if reason is not None:
            return reason
    if (trace.scores[id(tree)] > 0).any():
        return None
    if isinstance(tree, _Join):
        if tree.intersect and all((trace.scores[id(c)] > 0).any() for c in tree.children):
            return NO_ANSWER_NOTE + "the branches of the intersection share no entity"
        return None
    inputs = np.flatnonzero(trace.scores[id(tree.child)] > 0)
    if len(inputs) == 0:
        return None
    kind = "" if tree.types is None else f" ({' or '.join(tree.types)} ends only)"
    if len(inputs) > 1:
        direction = "an incoming" if tree.inverse else "an outgoing"
        edge = f"none of its {len(inputs)} inputs has {direction} {tree.relation} edge{kind}"
    else:
        node = graph.store.get_node(graph.entity_ids[int(inputs[0])])
        what = f"{node.name} ({node.id})"
        edge = (
            f"no {tree.relation} edge{kind} points to {what}"
            if tree.inverse
            else f"{what} has no {tree.relation} edge{kind}"
        )
    reason = f"{NO_ANSWER_NOTE}hop {tree.relation} (depth {tree.depth}) reached nothing: {edge}"
    reason += " in the KG"
    if tree.neural is not None:
        reason += f", and no prediction reached the hop's threshold {thresholds[tree.depth]:.3g}"
    elif tree.report.mode == "hybrid" and tree.report.note:
        reason += f" ({tree.report.note})"
    return reason


def _hops(tree: _Tree) -> list[_Hop]:
    """The tree's projections, inputs before the hops consuming them."""
    if isinstance(tree, _Leaf):
        return []
    if isinstance(tree, _Hop):
        return [*_hops(tree.child), tree]
    return [hop for child in tree.children for hop in _hops(child)]


def _best_path(
    tree: _Tree, entity: int, trace: _Trace, entity_ids: list[str]
) -> list[EvidenceTriple]:
    """The evidence triples of ``entity``'s best path (every branch of an intersection).

    A prediction comes from a set of inputs; its triple names the best-scoring input.
    """
    if isinstance(tree, _Leaf):
        return []
    if isinstance(tree, _Hop):
        predicted = trace.predicted_best.get(id(tree))
        if predicted is not None and predicted[entity]:
            source = int(np.argmax(trace.scores[id(tree.child)]))
            prefix = _best_path(tree.child, source, trace, entity_ids)
            return [*prefix, _predicted_triple(tree, source, entity, entity_ids)]
        entry = int(trace.best[id(tree)][entity])
        source = int(tree.src[entry])
        prefix = _best_path(tree.child, source, trace, entity_ids)
        return [*prefix, tree.adjacency.triple(int(tree.entries[entry]), source, entity_ids)]
    if tree.intersect:
        return [t for c in tree.children for t in _best_path(c, entity, trace, entity_ids)]
    best_child = max(tree.children, key=lambda child: trace.scores[id(child)][entity])
    return _best_path(best_child, entity, trace, entity_ids)


def _predicted_triple(hop: _Hop, source: int, target: int, entity_ids: list[str]) -> EvidenceTriple:
    assert hop.probabilities is not None
    return _hop_triple(
        entity_ids[source], entity_ids[target], hop.relation, hop.inverse, [PREDICTED_SOURCE],
        float(hop.probabilities[target]),
    )  # fmt: skip


def _hop_triple(
    source: str, target: str, relation: str, inverse: bool, sources: list[str], confidence: float
) -> EvidenceTriple:
    """The triple a hop from ``source`` to ``target`` stands for (tail to head if ``inverse``)."""
    head, tail = (target, source) if inverse else (source, target)
    return EvidenceTriple(
        head=head, relation=relation, tail=tail, sources=sources, confidence=confidence
    )
