"""The conformal gate: exact retrieval always, neural completion only below the routing threshold.

**Unified scores** (DESIGN §6). A retrieved edge scores ``δ + (1 − δ)·confidence`` ∈ [δ, 1]; a
predicted edge scores ``δ·p`` ∈ [0, δ), ``p`` being the link predictor's calibrated probability
(δ = :attr:`GateConfig.routing_threshold`). A path scores the *minimum* of its hop scores, an
answer the *maximum* over its paths; intersections take the minimum over their branches and
unions the maximum (the Gödel t-norm and t-conorm). With these rules, keeping the answers with
score ≥ λ gives exactly the answers of running every hop with threshold λ — thresholding
commutes with execution — so a threshold chosen on calibration scores means the same thing at
query time.

**Thresholds per hop.** A hop's threshold depends on its depth ``d``: the number of projections
between it and the answer (the last hop has ``d = 0``). A hop with ``λ_d ≥ δ`` is
retrieval-only and never calls the link predictor; ``λ_d < δ`` adds the predicted edges with
``δ·p ≥ λ_d``.

**Neural expansion** is bounded and identical at calibration and query time:

- per (input entity, relation), the ``neural_top_k`` best-scoring entities with
  ``p ≥ neural_min_probability``;
- inputs are entities reached by retrieval alone (so an answer path holds at most one
  predicted edge per branch), at most ``max_neural_inputs`` of them per hop, best exact score
  first, ties by id. When the cap bites the hop report says so.

Anchors are given as entity ids, so vector and fulltext search do not generate answer
candidates here; they link question text to anchors (planner) and are gated there.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from kgrecall.kg import Direction, Edge, GraphStore, KGError
from kgrecall.tools import (
    Candidate,
    EntityQuery,
    Evidence,
    EvidenceTriple,
    IntersectQuery,
    LinkPredictor,
    ProjectQuery,
    QueryNode,
    ToolName,
    topology,
    validate_query,
)

#: Default routing threshold δ between retrieved facts [δ, 1] and predictions [0, δ).
DEFAULT_ROUTING_THRESHOLD = 0.5

#: The provenance a predicted evidence triple carries.
PREDICTED_SOURCE = "link_predictor"

HopMode = Literal["retrieval_only", "hybrid"]


@dataclass(frozen=True, slots=True)
class GateConfig:
    """The routing threshold and the bounds on neural expansion (see the module docstring)."""

    routing_threshold: float = DEFAULT_ROUTING_THRESHOLD
    neural_top_k: int = 100
    neural_min_probability: float = 0.01
    max_neural_inputs: int = 256

    def __post_init__(self) -> None:
        if not 0.0 < self.routing_threshold < 1.0:
            raise KGError(f"routing_threshold must be in (0, 1), got {self.routing_threshold}")
        if self.neural_top_k < 1 or self.max_neural_inputs < 1:
            raise KGError("neural_top_k and max_neural_inputs must be positive")
        if not 0.0 < self.neural_min_probability < 1.0:
            raise KGError(
                f"neural_min_probability must be in (0, 1), got {self.neural_min_probability}"
            )

    def exact_score(self, confidence: float) -> float:
        """A retrieved edge on the unified scale."""
        return self.routing_threshold + (1.0 - self.routing_threshold) * confidence


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
    neural_inputs: int = 0
    neural_candidates: int = 0
    elapsed_ms: float = 0.0
    note: str | None = None


@dataclass(slots=True)
class GateResult:
    """Answers best first, with the per-hop record of retrieval and neural work."""

    candidates: list[Candidate]
    topology: str
    hops: list[HopReport]
    elapsed_ms: float
    notes: list[str] = field(default_factory=list)

    @property
    def retrieval_only_hops(self) -> int:
        return sum(hop.mode == "retrieval_only" for hop in self.hops)

    @property
    def hybrid_hops(self) -> int:
        return sum(hop.mode == "hybrid" for hop in self.hops)

    @property
    def neural_augmented(self) -> bool:
        return any("neural_completion" in c.tools for c in self.candidates)

    @property
    def ids(self) -> set[str]:
        return {candidate.id for candidate in self.candidates}


# -- evaluated query trees --------------------------------------------------------------------
@dataclass(slots=True)
class _Leaf:
    index: int


@dataclass(slots=True)
class _Hop:
    """One projection's candidate edges: the first ``n_exact`` retrieved, the rest predicted."""

    child: _Tree
    depth: int
    relation: str
    inverse: bool
    src: np.ndarray
    dst: np.ndarray
    score: np.ndarray
    n_exact: int
    edges: list[Edge]
    probabilities: np.ndarray
    report: HopReport


@dataclass(slots=True)
class _Join:
    intersect: bool
    children: list[_Tree]


_Tree = _Leaf | _Hop | _Join
#: Maps a hop to the scores its entries count with (a cut at a threshold, a power transform).
HopScores = Callable[[_Hop], np.ndarray]


class ScoredGraph:
    """A store and (optionally) a link predictor over one entity index, ready for gating."""

    def __init__(
        self,
        store: GraphStore,
        predictor: LinkPredictor | None = None,
        config: GateConfig | None = None,
    ) -> None:
        self.store = store
        self.predictor = predictor
        self.config = config or GateConfig()
        self.entity_ids = sorted(node.id for node in store.nodes())
        self.position = {entity: i for i, entity in enumerate(self.entity_ids)}
        if predictor is not None:
            self._from_predictor = np.array(
                [self.position.get(entity, -1) for entity in predictor.entities], dtype=np.int64
            )
            self._relations = set(predictor.relations)

    @property
    def n_entities(self) -> int:
        return len(self.entity_ids)

    def evaluate(self, query: QueryNode, neural_depths: Callable[[int], bool]) -> _Tree:
        """Candidate tables for every hop; neural expansion where ``neural_depths(d)``."""
        validate_query(self.store, query)
        tree, _, _ = self._build(query, 0, neural_depths)
        return tree

    def _build(
        self, node: QueryNode, depth: int, neural: Callable[[int], bool]
    ) -> tuple[_Tree, np.ndarray, np.ndarray]:
        """(tree, reached mask, exact-only level) for ``node``."""
        n = self.n_entities
        if isinstance(node, EntityQuery):
            index = self.position[node.id]
            reached = np.zeros(n, dtype=bool)
            reached[index] = True
            exact = np.zeros(n)
            exact[index] = 1.0
            return _Leaf(index), reached, exact
        if isinstance(node, ProjectQuery):
            return self._project(node, depth, neural)
        built = [self._build(child, depth, neural) for child in node.inputs]
        intersect = isinstance(node, IntersectQuery)
        combine_mask = np.logical_and if intersect else np.logical_or
        combine_level = np.minimum if intersect else np.maximum
        reached = combine_mask.reduce([mask for _, mask, _ in built])
        exact = combine_level.reduce([level for _, _, level in built])
        return _Join(intersect, [tree for tree, _, _ in built]), reached, exact

    def _project(
        self, node: ProjectQuery, depth: int, neural: Callable[[int], bool]
    ) -> tuple[_Tree, np.ndarray, np.ndarray]:
        start = time.perf_counter()
        child, child_reached, child_exact = self._build(node.input, depth + 1, neural)
        direction: Direction = "in" if node.inverse else "out"
        src: list[int] = []
        dst: list[int] = []
        score: list[float] = []
        edges: list[Edge] = []
        inputs = np.flatnonzero(child_reached)
        for source in inputs.tolist():
            for edge in self.store.neighbors(self.entity_ids[source], node.relation, direction):
                src.append(source)
                dst.append(self.position[edge.head if node.inverse else edge.tail])
                score.append(self.config.exact_score(edge.confidence))
                edges.append(edge)
        n_exact = len(src)
        report = HopReport(
            depth, node.relation, node.inverse, math.nan, "retrieval_only", len(inputs), n_exact
        )
        probabilities = np.zeros(0, dtype=np.float32)
        if neural(depth):
            report.mode = "hybrid"
            probabilities = self._expand(node, child_exact, src, dst, score, report)
        hop = _Hop(
            child, depth, node.relation, node.inverse,
            np.asarray(src, dtype=np.int64), np.asarray(dst, dtype=np.int64),
            np.asarray(score, dtype=np.float64), n_exact, edges, probabilities, report,
        )  # fmt: skip
        reached = np.zeros(self.n_entities, dtype=bool)
        reached[hop.dst] = True
        exact = np.zeros(self.n_entities)
        exact_src, exact_dst = hop.src[:n_exact], hop.dst[:n_exact]
        np.maximum.at(exact, exact_dst, np.minimum(child_exact[exact_src], hop.score[:n_exact]))
        report.elapsed_ms = (time.perf_counter() - start) * 1e3
        return hop, reached, exact

    def _expand(
        self,
        node: ProjectQuery,
        child_exact: np.ndarray,
        src: list[int],
        dst: list[int],
        score: list[float],
        report: HopReport,
    ) -> np.ndarray:
        """Append predicted edges from the best exact-reached inputs; return their p."""
        predictor, config = self.predictor, self.config
        if predictor is None:
            report.note = "no link predictor: retrieval only"
            return np.zeros(0, dtype=np.float32)
        if node.relation not in self._relations:
            report.note = f"the link predictor does not know relation {node.relation!r}"
            return np.zeros(0, dtype=np.float32)
        candidates = [
            i
            for i in np.flatnonzero(child_exact > 0).tolist()
            if self.entity_ids[i] in predictor.entity_to_id
        ]
        candidates.sort(key=lambda i: (-child_exact[i], self.entity_ids[i]))
        if len(candidates) > config.max_neural_inputs:
            report.note = (
                f"neural expansion from the best {config.max_neural_inputs} of "
                f"{len(candidates)} retrieved inputs"
            )
            candidates = candidates[: config.max_neural_inputs]
        report.neural_inputs = len(candidates)
        if not candidates:
            return np.zeros(0, dtype=np.float32)
        tails, probabilities = predictor.top_tails_indexed(
            [self.entity_ids[i] for i in candidates],
            node.relation,
            inverse=node.inverse,
            k=config.neural_top_k,
        )
        mapped = self._from_predictor[tails]
        keep = (probabilities >= config.neural_min_probability) & (mapped >= 0)
        rows, columns = np.nonzero(keep)
        sources = np.asarray(candidates, dtype=np.int64)[rows]
        kept_probabilities = probabilities[rows, columns]
        src.extend(sources.tolist())
        dst.extend(mapped[rows, columns].tolist())
        score.extend((config.routing_threshold * kept_probabilities).tolist())
        report.neural_candidates = len(rows)
        return kept_probabilities


def levels(tree: _Tree, n_entities: int, hop_scores: HopScores) -> np.ndarray:
    """Every entity's answer score (0 = not an answer) under the given per-hop scores."""
    return _trace(tree, n_entities, hop_scores, keep_best=False).scores[id(tree)]


def power_scores(gamma: float) -> HopScores:
    """Hop scores ``s^(e^{γ·d})``: an answer scores ≥ t iff each hop's score is ≥ ``t^(e^{−γ·d})``.

    ``γ = 0`` is one scalar threshold for every hop; ``γ > 0`` holds earlier hops (larger d)
    to stricter thresholds than the last one, ``γ < 0`` the reverse.
    """

    def scores(hop: _Hop) -> np.ndarray:
        return np.asarray(hop.score ** math.exp(gamma * hop.depth))

    return scores


def hop_thresholds(gamma: float, t: float, depths: int) -> list[float]:
    """The per-depth thresholds ``λ_d = t^(e^{−γ·d})`` of grid point (γ, t)."""
    return [t ** math.exp(-gamma * depth) for depth in range(depths)]


def cut_scores(thresholds: Mapping[int, float]) -> HopScores:
    """Hop scores with every entry below its depth's threshold removed (set to 0)."""

    def scores(hop: _Hop) -> np.ndarray:
        return np.where(hop.score >= thresholds[hop.depth], hop.score, 0.0)

    return scores


class ConformalGate:
    """Runs a query with per-depth thresholds; the link predictor only where ``λ_d < δ``."""

    def __init__(self, graph: ScoredGraph) -> None:
        self.graph = graph

    @property
    def routing_threshold(self) -> float:
        return self.graph.config.routing_threshold

    def run(self, query: QueryNode, thresholds: Mapping[int, float] | None = None) -> GateResult:
        """Answers of ``query``; ``thresholds`` maps hop depth → λ (missing depths: δ).

        ``None`` is retrieval only (every λ = δ). A threshold of 0 at every depth returns
        every entity of the KG (the "return everything" end of a calibration grid).
        """
        start = time.perf_counter()
        delta = self.routing_threshold
        depth_count = _max_depth(query) + 1
        chosen = {d: (thresholds or {}).get(d, delta) for d in range(depth_count)}
        for depth, value in chosen.items():
            if not 0.0 <= value <= 1.0:
                raise KGError(f"threshold for hop depth {depth} must be in [0, 1], got {value}")
        tree = self.graph.evaluate(query, lambda d: chosen[d] < delta)
        hops = _hop_reports(tree)
        for hop in hops:
            hop.threshold = chosen[hop.depth]
        graph = self.graph
        notes = [f"hop {h.relation} (depth {h.depth}): {h.note}" for h in hops if h.note]
        everything = all(value == 0.0 for value in chosen.values())
        if everything:
            notes.append(f"threshold 0: every one of the {graph.n_entities} entities returned")
        candidates = self._candidates(tree, chosen, everything=everything)
        elapsed = (time.perf_counter() - start) * 1e3
        return GateResult(candidates, topology(query), hops, elapsed, notes)

    def _candidates(
        self, tree: _Tree, thresholds: Mapping[int, float], *, everything: bool
    ) -> list[Candidate]:
        graph = self.graph
        trace = _trace(tree, graph.n_entities, cut_scores(thresholds), keep_best=True)
        answer_levels = trace.scores[id(tree)]
        indices = range(graph.n_entities) if everything else np.flatnonzero(answer_levels > 0)
        candidates = []
        for index in indices:
            node = graph.store.get_node(graph.entity_ids[index])
            has_path = answer_levels[index] > 0
            path = _best_path(tree, int(index), trace, graph.entity_ids) if has_path else None
            candidates.append(
                self._candidate(node.id, node.name, node.type, float(answer_levels[index]), path)
            )
        candidates.sort(key=lambda c: (-c.score, c.id))
        return candidates

    def _candidate(
        self,
        entity: str,
        name: str,
        entity_type: str,
        score: float,
        path: list[EvidenceTriple] | None,
    ) -> Candidate:
        if path is None:
            return Candidate.model_construct(
                id=entity, name=name, type=entity_type, score=score, tools=[],
                evidence=[], evidence_truncated=False,
            )  # fmt: skip
        predicted = [t for t in path if t.sources == [PREDICTED_SOURCE]]
        tools: list[ToolName] = []
        if len(predicted) < len(path):
            tools.append("graph_traversal")
        if predicted:
            tools.append("neural_completion")
        evidence = Evidence.model_construct(
            kind="predicted_triple" if predicted else "kg_path",
            triples=path,
            model_score=min(t.confidence for t in predicted) if predicted else None,
            matched_text=None,
        )
        return Candidate.model_construct(
            id=entity, name=name, type=entity_type, score=score, tools=tools,
            evidence=[evidence], evidence_truncated=True,
        )  # fmt: skip


def _max_depth(node: QueryNode) -> int:
    if isinstance(node, EntityQuery):
        return -1
    if isinstance(node, ProjectQuery):
        return _max_depth(node.input) + 1
    return max(_max_depth(child) for child in node.inputs)


def _hop_reports(tree: _Tree) -> list[HopReport]:
    if isinstance(tree, _Leaf):
        return []
    if isinstance(tree, _Hop):
        return [*_hop_reports(tree.child), tree.report]
    return [report for child in tree.children for report in _hop_reports(child)]


@dataclass(slots=True)
class _Trace:
    """Per node of an evaluated tree: its scores, and per hop the best entry per entity."""

    scores: dict[int, np.ndarray] = field(default_factory=dict)
    best: dict[int, np.ndarray] = field(default_factory=dict)


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
            values = np.minimum(child[node.src], hop_scores(node))
            if keep_best:
                order = np.argsort(values, kind="stable")
                order = order[values[order] > 0]
                best = np.full(n_entities, -1, dtype=np.int64)
                best[node.dst[order]] = order  # the last write per entity is its best entry
                trace.best[id(node)] = best
            result = np.zeros(n_entities)
            np.maximum.at(result, node.dst, values)
        else:
            parts = [walk(child) for child in node.children]
            result = (np.minimum if node.intersect else np.maximum).reduce(parts)
        trace.scores[id(node)] = result
        return result

    walk(tree)
    return trace


def _best_path(
    tree: _Tree, entity: int, trace: _Trace, entity_ids: list[str]
) -> list[EvidenceTriple]:
    """The evidence triples of ``entity``'s best path (every branch of an intersection)."""
    if isinstance(tree, _Leaf):
        return []
    if isinstance(tree, _Hop):
        entry = int(trace.best[id(tree)][entity])
        prefix = _best_path(tree.child, int(tree.src[entry]), trace, entity_ids)
        return [*prefix, _entry_triple(tree, entry, entity_ids)]
    if tree.intersect:
        return [t for c in tree.children for t in _best_path(c, entity, trace, entity_ids)]
    best_child = max(tree.children, key=lambda child: trace.scores[id(child)][entity])
    return _best_path(best_child, entity, trace, entity_ids)


def _entry_triple(hop: _Hop, entry: int, entity_ids: list[str]) -> EvidenceTriple:
    if entry < hop.n_exact:
        return EvidenceTriple.from_edge(hop.edges[entry])
    source, target = entity_ids[int(hop.src[entry])], entity_ids[int(hop.dst[entry])]
    head, tail = (target, source) if hop.inverse else (source, target)
    return EvidenceTriple.model_construct(
        head=head,
        relation=hop.relation,
        tail=tail,
        sources=[PREDICTED_SOURCE],
        confidence=float(hop.probabilities[entry - hop.n_exact]),
    )
