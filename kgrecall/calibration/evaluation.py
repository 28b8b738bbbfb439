"""Evaluation harness (DESIGN §11): does a calibrated operating point keep its promise?

Protocol: a full graph G; hide 25 % of its edges → observed O. kgrecall sees only O: its
link predictor is trained on O, and calibration hides further edges of O (a reduced graph R
with a predictor trained on R). Test queries are sampled on G, answered on O through the gate
with O's predictor, and scored against G's answers; answers G has and O lacks are the *hard*
answers. :func:`split_graph` makes O; :func:`make_calibration_set` with ``reduced=O`` makes
the test queries; :func:`~kgrecall.calibration.pipeline.score_queries` scores them once, and
every method and target is then evaluated from those scores (the gate's thresholding commutes
with execution, so this equals running each query at each operating point — a test checks it).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import numpy as np

from kgrecall.calibration.calibrators import ScoredQueries
from kgrecall.calibration.data import ReducedGraph, reduce_graph
from kgrecall.kg import GraphStore, KGError

#: Share of G's edges the evaluation protocol hides to make the observed graph O.
EVALUATION_HIDE_FRACTION = 0.25


@dataclass(frozen=True, slots=True)
class OperatingMetrics:
    """Test-set figures of one operating point (means over queries)."""

    recall: float
    share_meeting_target: float
    hard_recall: float
    precision: float
    mean_set_size: float
    coverage: float
    n_queries: int
    n_with_hard_answers: int
    #: Share of queries whose set is their whole answer type (the gate abstains).
    abstained: float
    #: Mean over queries of set size / answer-type size.
    relative_set_size: float

    def as_dict(self) -> dict[str, float]:
        return {key: float(value) for key, value in asdict(self).items()}


def split_graph(full: GraphStore, *, seed: int = 0) -> ReducedGraph:
    """The observed graph O: G without a seeded 25 % of its edges."""
    return reduce_graph(full, seed=seed, hide_fraction=EVALUATION_HIDE_FRACTION)


def evaluate_point(
    test: ScoredQueries, gamma: float, t: float, *, target: float | None = None
) -> OperatingMetrics:
    """Figures of grid point (γ, t) on scored test queries."""
    gamma_index = _gamma_index(test, gamma)
    thresholds = np.full(test.n, t)
    return _metrics(test, gamma_index, thresholds, target)


def evaluate_top_k(test: ScoredQueries, k: int, *, target: float | None = None) -> OperatingMetrics:
    """The neural top-k baseline: each query keeps its k best-scoring entities (γ = 0)."""
    if k < 1:
        raise KGError(f"k must be positive, got {k}")
    gamma_index = _gamma_index(test, 0.0)
    thresholds = np.array(
        [
            scores[-k] if len(scores) >= k else (scores[0] if len(scores) else 1.0)
            for scores in test.set_scores[gamma_index]
        ]
    )
    return _metrics(test, gamma_index, thresholds, target)


def _gamma_index(test: ScoredQueries, gamma: float) -> int:
    for index, value in enumerate(test.gammas):
        if math.isclose(value, gamma):
            return index
    raise KGError(f"test queries were not scored for gamma={gamma} (scored: {test.gammas})")


def _metrics(
    test: ScoredQueries, gamma_index: int, thresholds: np.ndarray, target: float | None
) -> OperatingMetrics:
    recalls, hard, precisions, sizes, covered = [], [], [], [], []
    whole_type, relative = [], []
    for i, t in enumerate(thresholds.tolist()):
        answers = test.answer_scores[gamma_index][i]
        if t == 0.0:  # the whole answer type: every answer inside it
            hits, size = int((answers >= 0).sum()), int(test.type_sizes[i])
        else:
            hits = len(answers) - int(np.searchsorted(answers, t, side="left"))
            scores = test.set_scores[gamma_index][i]
            size = len(scores) - int(np.searchsorted(scores, t, side="left"))
        recalls.append(hits / len(answers))
        covered.append(hits > 0)
        sizes.append(size)
        type_size = int(test.type_sizes[i])
        whole_type.append(t == 0.0 or size >= type_size)
        relative.append(size / type_size if type_size else 0.0)
        if size:
            precisions.append(hits / size)
        hard_answers = test.hard_scores[gamma_index][i]
        if len(hard_answers):
            kept = int((hard_answers >= t).sum())
            hard.append(kept / len(hard_answers))
    recall = np.asarray(recalls)
    return OperatingMetrics(
        recall=float(recall.mean()),
        share_meeting_target=float((recall >= target - 1e-12).mean()) if target else math.nan,
        hard_recall=float(np.mean(hard)) if hard else math.nan,
        precision=float(np.mean(precisions)) if precisions else math.nan,
        mean_set_size=float(np.mean(sizes)),
        coverage=float(np.mean(covered)),
        n_queries=len(recalls),
        n_with_hard_answers=len(hard),
        abstained=float(np.mean(whole_type)),
        relative_set_size=float(np.mean(relative)),
    )
