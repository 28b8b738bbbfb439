"""Calibrators on real gate scores: rule consistency and statistical validity over many splits.

The score matrix comes from the gate on UMLS (a reduced graph and a predictor trained on it);
the validity checks repeat random calibration/test splits of those queries, as MAPIE's long
tests do. Tolerances come from the split sizes: a test-split mean of n losses has a standard
deviation of about σ/√n (σ: the losses' standard deviation), and a mean over r independent
splits a standard error of sd/√r.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from kgrecall.calibration import (
    CalibrationSettings,
    ScoredQueries,
    choose,
    crc_index,
    make_calibration_set,
    score_queries,
    threshold_grid,
)
from kgrecall.calibration.data import ReducedGraph
from kgrecall.kg import KGError, NetworkXStore
from kgrecall.tools import LinkPredictor

GRID = threshold_grid(0.5)


def scored(
    umls: NetworkXStore,
    reduced: ReducedGraph,
    predictor: LinkPredictor,
    topology: str,
    n: int,
    seed: int = 0,
) -> ScoredQueries:
    data = make_calibration_set(
        umls, topology, n, seed=seed, reduced=reduced, max_answers=60, progress=False
    )
    return score_queries(data, predictor, CalibrationSettings(), progress=False)


@pytest.fixture(scope="module")
def scores_2p(
    umls: NetworkXStore, umls_reduced: ReducedGraph, reduced_predictor: LinkPredictor
) -> ScoredQueries:
    return scored(umls, umls_reduced, reduced_predictor, "2p", 600)


@pytest.fixture(scope="module")
def scores_1p(
    umls: NetworkXStore, umls_reduced: ReducedGraph, reduced_predictor: LinkPredictor
) -> ScoredQueries:
    return scored(umls, umls_reduced, reduced_predictor, "1p", 600)


def test_losses_and_sizes_are_monotone_along_the_grid(scores_2p: ScoredQueries) -> None:
    rows = np.arange(scores_2p.n)
    for g in range(len(scores_2p.gammas)):
        losses = scores_2p.losses(g, GRID, rows)
        sizes = scores_2p.set_sizes(g, GRID, rows)
        assert (np.diff(losses, axis=1) <= 1e-12).all()
        assert (np.diff(sizes, axis=1) >= 0).all()
        # t = 0 returns the whole answer type: it misses only answers outside that type.
        outside = [np.mean(scores_2p.answer_scores[g][i] < 0) for i in rows]
        assert np.allclose(losses[:, -1], outside)
        assert (sizes[:, -1] == scores_2p.type_sizes).all()
    assert (scores_2p.type_sizes <= scores_2p.n_entities).all()
    assert np.mean(outside) < 0.05  # signatures learned on the reduced graph rarely miss a type


def test_scalar_crc_equals_the_rule_on_its_loss_matrix(scores_1p: ScoredQueries) -> None:
    scalar = scores_1p.only((0.0,))
    for alpha in (0.1, 0.2, 0.3):
        choice = choose(scalar, "crc", alpha, grid=GRID)
        index = crc_index(scalar.losses(0, GRID, np.arange(scalar.n)), alpha)
        assert choice.t == GRID[index] and choice.gamma == 0.0
        assert choice.thresholds == [GRID[index]]
        assert choice.estimated_recall <= 1 - choice.risk_hat


def test_retrieval_alone_is_chosen_when_it_already_meets_the_target(
    scores_1p: ScoredQueries,
) -> None:
    rows = np.arange(scores_1p.n)
    retrieval_risk = scores_1p.losses(0, np.array([0.5]), rows).mean()
    choice = choose(scores_1p.only((0.0,)), "crc", min(0.99, retrieval_risk + 0.05), grid=GRID)
    assert choice.t >= 0.5  # every hop retrieval-only


def test_more_recall_costs_larger_sets(scores_2p: ScoredQueries) -> None:
    for method in ("crc", "ltt", "coverage"):
        loose = choose(scores_2p, method, 0.3, grid=GRID)  # type: ignore[arg-type]
        strict = choose(scores_2p, method, 0.1, grid=GRID)  # type: ignore[arg-type]
        assert strict.mean_set_size >= loose.mean_set_size


def test_too_few_queries_fall_back_to_everything_and_say_so(scores_1p: ScoredQueries) -> None:
    choice = choose(scores_1p.only((0.0,)), "crc", 0.05, rows=range(10), grid=GRID)
    assert choice.everything and choice.t == 0.0
    assert choice.note is not None and "returning every entity" in choice.note
    with pytest.raises(KGError, match="unknown calibration method"):
        choose(scores_1p, "magic", 0.1, grid=GRID)  # type: ignore[arg-type]


def split_losses(
    data: ScoredQueries, gamma: float, t: float, rows: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """(losses, covered) of the test rows at (γ, t)."""
    g = data.gammas.index(gamma)
    losses = data.losses(g, np.array([t]), rows)[:, 0]
    return losses, losses < 1.0


def repeated_splits(
    data: ScoredQueries, method: str, alpha: float, repeats: int, delta: float = 0.1
) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(123)
    n_cal = data.n // 2
    risks, covered, estimated = [], [], []
    for repeat in range(repeats):
        order = rng.permutation(data.n)
        calibration, test = order[:n_cal], order[n_cal:]
        choice = choose(
            data,
            method,
            alpha,
            delta=delta,
            rows=calibration,
            grid=GRID,
            seed=repeat,  # type: ignore[arg-type]
        )
        losses, hit = split_losses(data, choice.gamma, choice.t, test)
        risks.append(losses.mean())
        covered.append(hit.mean())
        estimated.append(choice.estimated_recall)
    return {
        "risk": np.array(risks),
        "coverage": np.array(covered),
        "estimated": np.array(estimated),
    }


def tolerance(data: ScoredQueries, n_test: int) -> float:
    """Three standard deviations of a test-split mean of losses."""
    losses = data.losses(0, np.array([0.5]), np.arange(data.n))[:, 0]
    return 3 * max(float(losses.std()), 0.05) / math.sqrt(n_test)


def monte_carlo(values: np.ndarray) -> float:
    """Three standard errors of a mean over independent random splits."""
    return 3 * max(float(values.std()), 1e-3) / math.sqrt(len(values))


def check_validity(data: ScoredQueries, repeats: int, delta: float = 0.1) -> None:
    n_test = data.n - data.n // 2
    tol = tolerance(data, n_test)
    binomial = 3 * math.sqrt(delta * (1 - delta) / repeats)
    for alpha in (0.1, 0.2, 0.3):
        crc = repeated_splits(data, "crc", alpha, repeats)
        # CRC: E[risk] ≤ α over random splits; Monte-Carlo error of the mean over splits.
        assert crc["risk"].mean() <= alpha + monte_carlo(crc["risk"])
        # The estimate is a (1 − δ) lower bound: above the achieved recall in ≤ δ of splits.
        above = (crc["estimated"] > 1 - crc["risk"] + tol).mean()
        assert above <= delta + binomial
        ltt = repeated_splits(data, "ltt", alpha, repeats, delta)
        # LTT: P(risk > α) ≤ δ; risk measured on a finite test split, hence the tolerance.
        assert (ltt["risk"] > alpha + tol).mean() <= delta + binomial
        coverage = repeated_splits(data, "coverage", alpha, repeats)
        assert coverage["coverage"].mean() >= 1 - alpha - monte_carlo(coverage["coverage"])


def test_validity_over_repeated_splits(scores_2p: ScoredQueries) -> None:
    """Reduced version for CI: 100 random splits of 600 scored 2p queries."""
    check_validity(scores_2p, repeats=100)


@pytest.mark.slow
@pytest.mark.parametrize("topology", ["1p", "2p", "3p", "2i", "ip", "pi", "2u", "up"])
def test_validity_over_repeated_splits_long(
    umls: NetworkXStore,
    umls_reduced: ReducedGraph,
    reduced_predictor: LinkPredictor,
    topology: str,
) -> None:
    """`make validity`: 500 splits of 1,000 scored queries for every topology."""
    data = scored(umls, umls_reduced, reduced_predictor, topology, 1000, seed=11)
    check_validity(data, repeats=500)
