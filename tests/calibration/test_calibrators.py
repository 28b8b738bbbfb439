"""Calibrators on real gate scores: rule consistency and statistical validity over many draws.

The score matrix comes from the gate on UMLS (a reduced graph and a predictor trained on it).
The validity checks take those scored queries as the population and calibrate many times on
i.i.d. draws from it, as MAPIE's long tests repeat calibration: each chosen threshold's risk
and coverage are then exact population means, so the only allowance is the Monte-Carlo error
over the draws. Mutation tests run the same checks against deliberately wrong rules (LTT
without a test, the raw mean as the recall bound), which must fail them.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest

from kgrecall.calibration import (
    Calibration,
    CalibrationSettings,
    ScoredQueries,
    ThresholdChoice,
    build_calibrations,
    calibrators,
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
    """(losses, covered) of the rows at (γ, t)."""
    g = data.gammas.index(gamma)
    losses = data.losses(g, np.array([t]), rows)[:, 0]
    return losses, losses < 1.0


def population_runs(
    data: ScoredQueries,
    method: str,
    alpha: float,
    repeats: int,
    n_calibration: int,
    grid: np.ndarray,
    delta: float = 0.1,
) -> dict[str, np.ndarray]:
    """Calibrate ``repeats`` times on i.i.d. draws (with replacement) from the scored queries,
    taken as the population: the risk and coverage of each chosen threshold are then exact
    (population means), so the checks need no tolerance for a finite test split."""
    rng = np.random.default_rng(123)
    population = np.arange(data.n)
    risks, covered, estimated = [], [], []
    for repeat in range(repeats):
        rows = rng.integers(0, data.n, size=n_calibration)
        choice = choose(
            data, method, alpha, delta=delta, rows=rows, grid=grid, seed=repeat,  # type: ignore[arg-type]
        )  # fmt: skip
        losses, hit = split_losses(data, choice.gamma, choice.t, population)
        risks.append(losses.mean())
        covered.append(hit.mean())
        estimated.append(choice.estimated_recall)
    return {
        "risk": np.array(risks),
        "coverage": np.array(covered),
        "estimated": np.array(estimated),
    }


def monte_carlo(values: np.ndarray) -> float:
    """Three standard errors of a mean over independent random draws."""
    return 3 * max(float(values.std()), 1e-3) / math.sqrt(len(values))


def check_validity(
    data: ScoredQueries,
    repeats: int,
    *,
    n_calibration: int = 300,
    grid: np.ndarray = GRID,
    methods: tuple[str, ...] = ("crc", "ltt", "coverage"),
    delta: float = 0.1,
) -> None:
    """Every guarantee against the population truth; the only allowance is the Monte-Carlo
    error over ``repeats`` draws (three standard errors / three binomial deviations)."""
    binomial = 3 * math.sqrt(delta * (1 - delta) / repeats)
    for alpha in (0.1, 0.2, 0.3):
        if "crc" in methods:
            crc = population_runs(data, "crc", alpha, repeats, n_calibration, grid)
            # CRC: E[risk] ≤ α over calibration draws.
            mean_risk = crc["risk"].mean()
            assert mean_risk <= alpha + monte_carlo(crc["risk"]), f"CRC risk {mean_risk:.3f}"
            # The estimate is a (1 − δ) lower bound on the recall the threshold achieves.
            above = (crc["estimated"] > 1 - crc["risk"]).mean()
            assert above <= delta + binomial, f"estimate above the truth in {above:.0%}"
        if "ltt" in methods:
            ltt = population_runs(data, "ltt", alpha, repeats, n_calibration, grid, delta)
            violated = (ltt["risk"] > alpha).mean()
            assert violated <= delta + binomial, f"LTT risk above alpha in {violated:.0%}"
        if "coverage" in methods:
            coverage = population_runs(data, "coverage", alpha, repeats, n_calibration, grid)
            rate = coverage["coverage"]
            assert rate.mean() >= 1 - alpha - monte_carlo(rate), f"coverage {rate.mean():.3f}"


def test_validity_over_repeated_splits(scores_2p: ScoredQueries) -> None:
    """Reduced version for CI: 100 calibrations on draws of 300 of 600 scored 2p queries."""
    check_validity(scores_2p, repeats=100)


#: A fine grid (300 prediction thresholds): the risk moves in small steps, so a rule that
#: stops where the *empirical* risk meets α lands above α in the population about half the
#: time — the tests below can fail.
FINE_GRID = np.concatenate([np.linspace(1.0, 0.5, 6), 0.5 * np.geomspace(0.99, 0.001, 300), [0.0]])


def naive_ltt(losses: np.ndarray, alpha: float, delta: float, method: str = "") -> int:
    """A wrong LTT: the smallest grid index whose empirical risk (and every larger set's) is
    ≤ α, with no test at all."""
    ok = np.flip(np.logical_and.accumulate(np.flip(losses.mean(axis=0) <= alpha)))
    if not ok[-1]:
        raise KGError("nothing meets alpha")
    return int(np.argmax(ok))


def raw_mean_bound(losses: np.ndarray, delta: float) -> float:
    """A wrong upper bound: the calibration mean itself."""
    return float(np.mean(losses))


@pytest.mark.mutation
def test_the_validity_check_passes_on_the_real_rules_with_a_fine_grid(
    scores_1p: ScoredQueries,
) -> None:
    check_validity(
        scores_1p, repeats=150, n_calibration=150, grid=FINE_GRID, methods=("crc", "ltt")
    )


@pytest.mark.mutation
@pytest.mark.parametrize(
    ("target", "wrong", "message"),
    [
        ("ltt_index", naive_ltt, "LTT risk above alpha"),
        ("risk_upper_bound", raw_mean_bound, "estimate above the truth"),
    ],
)
def test_the_validity_check_catches_a_wrong_rule(
    scores_1p: ScoredQueries,
    monkeypatch: pytest.MonkeyPatch,
    target: str,
    wrong: object,
    message: str,
) -> None:
    """Mutation tests (issue #14.7): the check passed with LTT replaced by "empirical risk ≤ α"
    and the bound replaced by the raw mean; now each wrong variant must fail it."""
    monkeypatch.setattr(calibrators, target, wrong)
    with pytest.raises(AssertionError, match=message):
        check_validity(
            scores_1p, repeats=150, n_calibration=150, grid=FINE_GRID, methods=("crc", "ltt")
        )


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


def subset(data: ScoredQueries, rows: np.ndarray, labels: list[str]) -> ScoredQueries:
    """The queries ``rows`` of ``data`` (with repeats), each in the degree group ``labels[row]``."""
    gammas = range(len(data.gammas))
    return ScoredQueries(
        data.topology,
        data.gammas,
        data.depths,
        data.n_entities,
        [[data.answer_scores[g][i] for i in rows] for g in gammas],
        [[data.set_scores[g][i] for i in rows] for g in gammas],
        {"degree": [labels[i] for i in rows]},
        [[data.hard_scores[g][i] for i in rows] for g in gammas],
        data.type_sizes[rows],
    )


def group_risks(
    data: ScoredQueries, labels: list[str], alpha: float, repeats: int, n_calibration: int
) -> dict[str, np.ndarray]:
    """Per group, the population risk of the thresholds each repeated Mondrian calibration
    deploys for that group's queries (through the record's routing, as at query time)."""
    rng = np.random.default_rng(7)
    settings = CalibrationSettings(min_group_size=50)
    members = {g: np.flatnonzero(np.asarray(labels) == g) for g in sorted(set(labels))}
    risks: dict[str, list[float]] = {g: [] for g in members}
    for repeat in range(repeats):
        rows = rng.integers(0, data.n, size=n_calibration)
        (record,) = build_calibrations(
            subset(data, rows, labels), kg_name="umls", kg_version="v", predictor_id="p",
            hide_fractions=[0.25], alphas=[alpha], methods=["crc"], conditionings=["degree"],
            settings=replace(settings, seed=repeat),
        )  # fmt: skip
        for group, population in members.items():
            choice, _cell = record.choice_for((group,))
            assert choice is not None, f"no calibrated cell covers group {group}"
            risks[group].append(split_losses(data, choice.gamma, choice.t, population)[0].mean())
    return {g: np.array(r) for g, r in risks.items()}


def hard_minority(data: ScoredQueries, share: float = 0.05) -> list[str]:
    """Group labels: the ``share`` of queries the pooled thresholds serve worst — the highest
    false-negative rate at the pooled CRC point for α = 0.1 ("hard"; too few for its own
    cell at the sizes below) — and everything else ("easy")."""
    pooled = choose(data, "crc", 0.1, delta=0.1, grid=GRID, seed=0)
    losses, _ = split_losses(data, pooled.gamma, pooled.t, np.arange(data.n))
    hard = set(np.argsort(-losses, kind="stable")[: int(share * data.n)].tolist())
    return ["hard" if i in hard else "easy" for i in range(data.n)]


def check_group_validity(data: ScoredQueries, repeats: int) -> None:
    labels = hard_minority(data)
    for group, risks in group_risks(data, labels, 0.1, repeats, 300).items():
        mean = risks.mean()
        assert mean <= 0.1 + monte_carlo(risks), f"group {group}: risk {mean:.3f} above 0.1"


def test_a_small_hard_group_keeps_its_guarantee_in_the_residual_cell(
    scores_1p: ScoredQueries,
) -> None:
    """Issue #14.2: a 5 % group below ``min_group_size`` was given the pooled thresholds and
    lost its recall; now it is calibrated in the residual cell, on its own queries."""
    check_group_validity(scores_1p, repeats=60)


@pytest.mark.mutation
def test_the_group_check_catches_the_pooled_fallback(
    scores_1p: ScoredQueries, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The old rule — small groups use the pooled thresholds — must fail the same check."""

    def pooled_fallback(
        self: Calibration, chain: tuple[str, ...]
    ) -> tuple[ThresholdChoice, str | None]:
        if chain[0] in self.groups:
            return self.groups[chain[0]], chain[0]
        return self.pooled, None

    monkeypatch.setattr(Calibration, "choice_for", pooled_fallback)
    with pytest.raises(AssertionError, match="group hard"):
        check_group_validity(scores_1p, repeats=60)
