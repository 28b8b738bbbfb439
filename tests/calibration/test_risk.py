"""Statistical validity of the risk-control rules: many random calibration/test splits.

A fixed population of 4,000 synthetic queries, each with 1–20 true answers placed along a
50-point threshold grid; the loss at grid point j is the false-negative rate of the answer
set up to j. Each repetition draws n calibration queries, picks a grid point, and measures
the risk on the remaining queries. Tolerances are three standard errors of the repeated
estimate (fast set: 200 repetitions; ``make test-slow``: 2,000).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from kgrecall.calibration.risk import (
    crc_index,
    hoeffding_bentkus_pvalue,
    hoeffding_bentkus_pvalues,
    ltt_index,
    risk_upper_bound,
    split_conformal_quantile,
)
from kgrecall.errors import CalibrationInfeasibleError
from kgrecall.kg import KGError

GRID = 50


def population(n: int = 4000, seed: int = 0) -> np.ndarray:
    """Loss curves (n × GRID), non-increasing, zero at the last grid point."""
    rng = np.random.default_rng(seed)
    losses = np.empty((n, GRID))
    for i in range(n):
        answers = rng.integers(1, 21)
        skew = rng.lognormal(0.0, 0.8)  # some queries need a far larger set than others
        positions = np.floor((GRID - 1) * rng.random(answers) ** (1 / skew)).astype(int)
        losses[i] = [(positions > j).mean() for j in range(GRID)]
    return losses


POPULATION = population()


def splits(repetitions: int, n_cal: int, seed: int = 1):  # type: ignore[no-untyped-def]
    rng = np.random.default_rng(seed)
    for _ in range(repetitions):
        order = rng.permutation(len(POPULATION))
        yield POPULATION[order[:n_cal]], POPULATION[order[n_cal:]]


def three_se(values: list[float]) -> float:
    return 3 * float(np.std(values, ddof=1)) / math.sqrt(len(values))


def check_crc(repetitions: int) -> None:
    for alpha in (0.1, 0.2):
        risks = [test[:, crc_index(cal, alpha)].mean() for cal, test in splits(repetitions, 500)]
        mean = float(np.mean(risks))
        assert mean <= alpha + three_se(risks), (alpha, mean)
        assert mean >= alpha - 0.05, (alpha, mean)  # valid, not vacuous


def check_ltt(repetitions: int) -> None:
    alpha, delta = 0.15, 0.1
    violations = [
        test[:, ltt_index(cal, alpha, delta)].mean() > alpha
        for cal, test in splits(repetitions, 500)
    ]
    share = float(np.mean(violations))
    assert share <= delta + 3 * math.sqrt(delta * (1 - delta) / repetitions), share


def check_upper_bound(repetitions: int) -> None:
    delta = 0.1
    column = GRID // 3
    true_risk = POPULATION[:, column].mean()
    misses = [
        risk_upper_bound(cal[:, column], delta) < true_risk for cal, _ in splits(repetitions, 300)
    ]
    share = float(np.mean(misses))
    assert share <= delta + 3 * math.sqrt(delta * (1 - delta) / repetitions), share


def test_crc_controls_expected_risk() -> None:
    check_crc(200)


def test_ltt_controls_the_probability_of_excess_risk() -> None:
    check_ltt(200)


def test_estimated_recall_bound_holds_with_probability() -> None:
    check_upper_bound(200)


@pytest.mark.slow
def test_validity_long_run() -> None:
    check_crc(2000)
    check_ltt(2000)
    check_upper_bound(2000)


def test_split_conformal_coverage() -> None:
    rng = np.random.default_rng(3)
    scores = rng.exponential(size=5000)
    alpha, covered = 0.1, []
    for _ in range(200):
        order = rng.permutation(len(scores))
        q = split_conformal_quantile(scores[order[:200]], alpha)
        covered.append(float((scores[order[200:]] <= q).mean()))
    assert np.mean(covered) >= 1 - alpha - three_se(covered)
    assert split_conformal_quantile(np.arange(5.0), 0.1) == math.inf  # n too small for 90 %


def test_rules_on_hand_checked_inputs() -> None:
    losses = np.array([[1.0, 0.5, 0.0], [1.0, 0.0, 0.0], [0.5, 0.0, 0.0]] * 10)
    # n = 30: bound(j) = 30/31·mean + 1/31 → j=1: 30/31·(1/6) + 1/31 ≈ 0.194
    assert crc_index(losses, 0.2) == 1
    assert crc_index(losses, 0.1) == 2
    assert hoeffding_bentkus_pvalue(0.3, 0.2, 100) == 1.0
    assert hoeffding_bentkus_pvalue(0.0, 0.2, 100) < 1e-8
    assert ltt_index(losses, 0.3, 0.1) == 2
    with pytest.raises(CalibrationInfeasibleError, match="needs n ≥ 9"):
        crc_index(np.zeros((3, 2)), 0.1)
    with pytest.raises(KGError, match=r"losses must lie in \[0, 1\]"):
        crc_index(np.full((20, 2), 2.0), 0.1)
    with pytest.raises(KGError, match="valid: fixed_sequence, bonferroni"):
        ltt_index(losses, 0.3, 0.1, method="holm")  # type: ignore[arg-type]


@pytest.mark.parametrize("n", [10, 150, 1000])
@pytest.mark.parametrize("alpha", [0.05, 0.1, 0.3])
def test_vector_pvalues_equal_the_scalar_ones(n: int, alpha: float) -> None:
    """LTT tests every grid point at once with the vector form; it must be the same maths."""
    rng = np.random.default_rng(n)
    risks = np.concatenate([rng.uniform(0.0, 0.5, 200), [0.0, alpha, alpha - 1e-9, 1.0]])
    scalar = [hoeffding_bentkus_pvalue(float(risk), alpha, n) for risk in risks]
    assert np.allclose(hoeffding_bentkus_pvalues(risks, alpha, n), scalar, rtol=1e-9, atol=0)


@pytest.mark.parametrize("delta", [0.05, 0.1, 0.2])
def test_the_bound_is_the_smallest_alpha_the_test_rejects_at(delta: float) -> None:
    """Inverting the Hoeffding–Bentkus test: the p-value at the bound is ≤ δ, and just below
    it (by more than the root finder's tolerance) it is not."""
    rng = np.random.default_rng(7)
    for _ in range(40):
        n = int(rng.integers(5, 2000))
        losses = (rng.random(n) < rng.random()) * rng.random(n)
        bound = risk_upper_bound(losses, delta)
        if bound == 1.0:
            continue
        assert hoeffding_bentkus_pvalue(float(losses.mean()), bound, n) <= delta
        assert hoeffding_bentkus_pvalue(float(losses.mean()), bound - 1e-8, n) > delta
