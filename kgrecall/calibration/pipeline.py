"""Calibration end to end: synthetic queries → gate scores → thresholds → records.

The completion model scoring calibration queries must not have seen the hidden edges: a
trained model is trained on the *reduced* graph (the observed KG minus the hidden edges), a
zero-shot one (ULTRA) conditions on the reduced graph only. :func:`calibrate` refuses a model
trained on another graph. The thresholds are then used at query time with the model of the
whole observed KG (its id keys the records): the assumption is that it finds the observed KG's
gaps as the reduced-graph model finds the simulated ones.

Each stratum (hidden share) is calibrated on its own queries and the most conservative
threshold is deployed (:func:`~kgrecall.calibration.calibrators.choose_across_strata`), so the
guarantee holds at every simulated missingness level, not only on their average.
"""

from __future__ import annotations

import hashlib
import time
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import asdict, astuple, dataclass, field

import numpy as np
from tqdm import tqdm

from kgrecall.calibration.calibrators import (
    DEFAULT_GAMMAS,
    ScoredQueries,
    ThresholdChoice,
    choose,
    choose_across_strata,
    threshold_grid,
)
from kgrecall.calibration.data import (
    DEFAULT_HIDE_RANGE,
    CalibrationSet,
    ReducedGraph,
    make_calibration_set,
)
from kgrecall.calibration.gate import (
    GateConfig,
    ScoredGraph,
    answer_mask,
    levels,
    power_scores,
)
from kgrecall.calibration.store import (
    NO_PREDICTOR,
    RESIDUAL_GROUP,
    Calibration,
    CalibrationKey,
    cell_names,
    now_iso,
)
from kgrecall.calibration.vocabulary import Conditioning, Method
from kgrecall.kg import GraphStore, KGError
from kgrecall.tools import ProjectQuery, QueryNode, anchors, hop_depths
from kgrecall.tools.linkpred import CompletionModel

#: Anchor-degree buckets for Mondrian conditioning: lower bounds of each bucket.
DEGREE_BUCKETS = (1, 5, 25, 125)


@dataclass(frozen=True, slots=True)
class CalibrationSettings:
    """How calibration data are made and thresholds chosen."""

    n_queries: int = 1000
    max_answers: int = 100
    hide_fraction: float | tuple[float, float] = DEFAULT_HIDE_RANGE
    seed: int = 0
    delta: float = 0.1
    gammas: tuple[float, ...] = DEFAULT_GAMMAS
    fit_fraction: float = 0.3
    min_group_size: int = 100
    gate: GateConfig = field(default_factory=GateConfig)


#: Joins a query's group chain into the one string per query kept in ``ScoredQueries.groups``.
_LEVELS = " | "


def group_chain(store: GraphStore, query: QueryNode, conditioning: Conditioning) -> tuple[str, ...]:
    """The Mondrian groups of a query, finest first (empty without conditioning).

    ``relation``: every relation by hop depth, then only the relations of the last hop (the
    one that yields the answers) — the coarser level pools the rarer combinations.
    ``degree``: the bucket of the smallest anchor degree.
    """
    if conditioning == "none":
        return ()
    if conditioning == "relation":
        labels = _hop_labels(query, 0)
        last_hop = sorted({label for label in labels if label.endswith("@0")})
        return tuple(dict.fromkeys((";".join(sorted(labels)), ";".join(last_hop))))
    degree = min(len(store.neighbors(anchor, direction="both")) for anchor in anchors(query))
    lower = max((b for b in DEGREE_BUCKETS if b <= degree), default=0)
    return (f"degree≥{lower}",)


def scored_chains(scored: ScoredQueries, conditioning: Conditioning) -> list[list[str]]:
    """The group chain (:func:`group_chain`) of each scored query, as recorded when scored
    with ``conditioning``."""
    if conditioning not in scored.groups:
        raise KGError(f"the queries were not scored with conditioning {conditioning!r}")
    return [key.split(_LEVELS) for key in scored.groups[conditioning]]


def assign_cells(chains: Sequence[Sequence[str]], min_group_size: int) -> list[str]:
    """The Mondrian cell of each calibration query: its finest group with at least
    ``min_group_size`` queries not already placed in a finer one, else the residual cell.

    The cells partition the queries and each is calibrated on its own members only, so every
    cell — the residual one included — keeps its guarantee, and so does their mixture. A query
    at run time takes the first of :func:`cell_names` that was calibrated, which is the cell a
    calibration query with the same groups was placed in.
    """
    cells: list[str | None] = [None] * len(chains)
    for level in range(max((len(chain) for chain in chains), default=0)):
        open_rows = [i for i, chain in enumerate(chains) if cells[i] is None and len(chain) > level]
        counts = Counter(chains[i][level] for i in open_rows)
        for index in open_rows:
            if counts[chains[index][level]] >= min_group_size:
                cells[index] = cell_names(chains[index])[level]
    return [RESIDUAL_GROUP if cell is None else cell for cell in cells]


def _hop_labels(node: QueryNode, depth: int) -> list[str]:
    if isinstance(node, ProjectQuery):
        label = f"{node.relation}{'⁻¹' if node.inverse else ''}@{depth}"
        return [label, *_hop_labels(node.input, depth + 1)]
    if hasattr(node, "inputs"):
        return [label for child in node.inputs for label in _hop_labels(child, depth)]
    return []


def score_queries(
    data: CalibrationSet,
    predictor: CompletionModel | None,
    settings: CalibrationSettings,
    *,
    conditionings: Sequence[Conditioning] = ("none",),
    progress: bool = True,
) -> ScoredQueries:
    """Run every calibration query through the gate (all hops hybrid) on the reduced graph."""
    graph = ScoredGraph(data.reduced, predictor, settings.gate)
    transforms = [power_scores(gamma) for gamma in settings.gammas]
    answer_scores: list[list[np.ndarray]] = [[] for _ in settings.gammas]
    set_scores: list[list[np.ndarray]] = [[] for _ in settings.gammas]
    hard_scores: list[list[np.ndarray]] = [[] for _ in settings.gammas]
    groups: dict[str, list[str]] = defaultdict(list)
    type_sizes: list[int] = []
    depths = 0
    for item in tqdm(data.queries, desc=f"scoring {data.topology}", disable=not progress):
        tree = graph.evaluate(item.query, lambda _depth: True)
        depths = max(depths, hop_depths(item.query))
        mask = answer_mask(tree)
        type_sizes.append(int(mask.sum()))
        answer_index = np.array([graph.position[a] for a in item.answers], dtype=np.int64)
        hard_index = np.array([graph.position[a] for a in item.hard_answers], dtype=np.int64)
        for g, transform in enumerate(transforms):
            # −1 marks an answer outside the answer type: missed at every threshold.
            scores = np.where(mask, levels(tree, graph.n_entities, transform), -1.0)
            answer_scores[g].append(np.sort(scores[answer_index]))
            set_scores[g].append(np.sort(scores[scores > 0]))
            hard_scores[g].append(np.sort(scores[hard_index]))
        for conditioning in conditionings:
            if conditioning != "none":
                chain = group_chain(data.reduced, item.query, conditioning)
                groups[conditioning].append(_LEVELS.join(chain))
    return ScoredQueries(
        data.topology,
        tuple(settings.gammas),
        depths,
        graph.n_entities,
        answer_scores,
        set_scores,
        dict(groups),
        hard_scores,
        np.asarray(type_sizes, dtype=np.int64),
    )


@dataclass(frozen=True, slots=True)
class Stratum:
    """One reduced graph and the link predictor trained on it (None: retrieval only)."""

    reduced: ReducedGraph
    predictor: CompletionModel | None

    def check(self) -> None:
        """Refuse a predictor trained on another graph: it may have seen the hidden edges.

        A zero-shot model (``kg_version`` None: pretrained elsewhere) has seen no edge of
        this KG and scores any reduced graph without leakage.
        """
        version = None if self.predictor is None else self.predictor.kg_version
        if version is not None and version != self.reduced.store.version:
            raise KGError(
                f"the calibration link predictor was trained on KG version "
                f"{version[:12]}, not on the reduced calibration graph "
                f"({self.reduced.store.version[:12]}); a predictor that has seen the hidden "
                "edges makes the guarantee false — train one on the reduced graph"
            )


def score_strata(
    observed: GraphStore,
    strata: Sequence[Stratum],
    topology: str,
    settings: CalibrationSettings,
    *,
    conditionings: Sequence[Conditioning] = ("none",),
    progress: bool = True,
) -> ScoredQueries:
    """``settings.n_queries`` calibration queries of ``topology``, split over the strata."""
    if not strata:
        raise KGError("calibration needs at least one reduced graph")
    parts = []
    for index, stratum in enumerate(strata):
        stratum.check()
        share = settings.n_queries // len(strata) + (index < settings.n_queries % len(strata))
        data = make_calibration_set(
            observed,
            topology,
            share,
            seed=settings.seed * 1000 + index,
            reduced=stratum.reduced,
            max_answers=settings.max_answers,
            progress=progress,
        )
        part = score_queries(
            data, stratum.predictor, settings, conditionings=conditionings, progress=progress
        )
        part.groups[STRATUM] = [stratum_name(stratum.reduced.hide_fraction)] * part.n
        parts.append(part)
    return ScoredQueries.concat(parts)


#: The group kind that names each calibration query's missingness stratum.
STRATUM = "stratum"


def stratum_name(hide_fraction: float) -> str:
    """How a stratum is named in notes and groups: its hidden share, e.g. ``25%``."""
    return f"{hide_fraction:.0%}"


def calibrate(
    observed: GraphStore,
    strata: Sequence[Stratum],
    *,
    kg_name: str,
    predictor_id: str,
    topologies: Sequence[str],
    alphas: Sequence[float],
    methods: Sequence[Method] = ("crc",),
    conditionings: Sequence[Conditioning] = ("none",),
    settings: CalibrationSettings | None = None,
    progress: bool = True,
) -> list[Calibration]:
    """Calibration records for every topology × α × method × conditioning.

    Each stratum's reduced graph must come from ``observed`` and its predictor must be trained
    on that reduced graph; ``predictor_id`` names the predictor the thresholds will be used
    with at query time (:attr:`CompletionModel.identifier`, or ``"none"``).
    """
    chosen = settings or CalibrationSettings()
    for stratum in strata:
        stratum.check()
        if (stratum.predictor is None) != (predictor_id == NO_PREDICTOR):
            raise KGError(
                "calibrate with link predictors exactly when querying with one: "
                f"predictor_id={predictor_id!r} but a stratum has "
                f"{'no' if stratum.predictor is None else 'a'} predictor"
            )
    for alpha in alphas:
        if not 0.0 < alpha < 1.0:
            raise KGError(f"alpha must be in (0, 1), got {alpha}")
    records: list[Calibration] = []
    for topology in topologies:
        start = time.perf_counter()
        scored = score_strata(
            observed, strata, topology, chosen, conditionings=conditionings, progress=progress
        )
        records.extend(
            build_calibrations(
                scored,
                kg_name=kg_name,
                kg_version=observed.version,
                predictor_id=predictor_id,
                hide_fractions=[stratum.reduced.hide_fraction for stratum in strata],
                alphas=alphas,
                methods=methods,
                conditionings=conditionings,
                settings=chosen,
                seconds=time.perf_counter() - start,
            )
        )
    return records


def build_calibrations(
    scored: ScoredQueries,
    *,
    kg_name: str,
    kg_version: str,
    predictor_id: str,
    hide_fractions: Sequence[float],
    alphas: Sequence[float],
    methods: Sequence[Method],
    conditionings: Sequence[Conditioning],
    settings: CalibrationSettings,
    seconds: float = 0.0,
) -> list[Calibration]:
    """Records from already scored calibration queries (``seconds``: time spent scoring)."""
    grid = threshold_grid(settings.gate.routing_threshold)
    records = []
    for alpha in alphas:
        for method in methods:
            for conditioning in conditionings:
                start = time.perf_counter()
                pooled, groups = _choose_all(scored, method, alpha, settings, grid, conditioning)
                key = CalibrationKey(
                    kg_name, kg_version, predictor_id, scored.topology, alpha, method,
                    conditioning,
                )  # fmt: skip
                elapsed = seconds + time.perf_counter() - start
                records.append(_record(key, settings, pooled, groups, hide_fractions, elapsed))
    return records


def _choose_all(
    scored: ScoredQueries,
    method: Method,
    alpha: float,
    settings: CalibrationSettings,
    grid: np.ndarray,
    conditioning: Conditioning,
) -> tuple[ThresholdChoice, dict[str, ThresholdChoice]]:
    strata = scored.groups.get(STRATUM)

    def run(rows: list[int] | None) -> ThresholdChoice:
        if strata is None:
            return choose(
                scored, method, alpha, delta=settings.delta, rows=rows, grid=grid,
                fit_fraction=settings.fit_fraction, seed=settings.seed,
            )  # fmt: skip
        return choose_across_strata(
            scored, method, alpha, strata=strata, delta=settings.delta, rows=rows, grid=grid,
            fit_fraction=settings.fit_fraction, seed=settings.seed,
        )  # fmt: skip

    pooled = run(None)
    groups: dict[str, ThresholdChoice] = {}
    if conditioning != "none":
        chains = scored_chains(scored, conditioning)
        members: dict[str, list[int]] = defaultdict(list)
        for index, cell in enumerate(assign_cells(chains, settings.min_group_size)):
            members[cell].append(index)
        groups = {cell: run(rows) for cell, rows in sorted(members.items())}
    return pooled, groups


def _record(
    key: CalibrationKey,
    settings: CalibrationSettings,
    pooled: ThresholdChoice,
    groups: dict[str, ThresholdChoice],
    hide_fractions: Sequence[float],
    seconds: float,
) -> Calibration:
    created = now_iso()
    identifier = hashlib.sha256(f"{astuple(key)}|{created}".encode()).hexdigest()[:16]
    return Calibration(
        id=identifier,
        **asdict(key),
        delta=settings.delta,
        routing_threshold=settings.gate.routing_threshold,
        pooled=pooled,
        groups=groups,
        n_queries=settings.n_queries,
        max_answers=settings.max_answers,
        scoring=settings.gate.scoring,
        hide_fractions=[round(f, 4) for f in hide_fractions],
        seed=settings.seed,
        seconds=round(seconds, 3),
        created_at=created,
    )
