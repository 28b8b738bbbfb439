"""Calibrators: pick the gate thresholds of one topology from scored calibration queries.

A grid point is a pair (γ, t): hop scores are transformed by ``s ↦ s^(e^{γ·d})`` (d = hop
depth; :func:`~kgrecall.calibration.gate.power_scores`) and an answer is kept when its score is
≥ t — equivalently each hop of depth d runs with threshold ``λ_d = t^(e^{−γ·d})``. For a fixed
γ the sets are nested in t: that is the one-dimensional nested path the risk-control rules need.
The t grid runs from 1 (retrieved facts only, best first) through δ (all retrieved facts) down
into the predictions, and ends at t = 0: "return every entity", whose loss is 0 by design.

Methods (MAPIE's vocabulary: ``alpha`` = 1 − target level, ``delta`` = 1 − confidence level):

- ``crc`` — conformal risk control on the false-negative rate. With one γ (``gamma=0``: one
  scalar threshold for all hops) the path is fixed in advance. With several γ (the vector
  form, as ConRAD), γ is chosen on a separate ``fit_fraction`` of the queries (smallest mean
  set meeting α there) and CRC runs on the rest. Guarantee: E[recall] ≥ 1 − α.
- ``ltt`` — Learn-then-Test over the whole (γ, t) grid: Hoeffding–Bentkus p-values, fixed-
  sequence testing along t within each γ at level δ/|Γ| (Bonferroni across γ); among the
  certified points the smallest mean set wins. Guarantee: P(risk ≤ α) ≥ 1 − δ.
- ``coverage`` — split conformal on each query's best true answer: P(S ∩ Y ≠ ∅) ≥ 1 − α.

``estimated_recall`` is 1 − a Hoeffding–Bentkus upper confidence bound on the risk at the
chosen point, made simultaneous over every grid point the method looked at (δ divided by
their number), so choosing the point on the same data does not make it optimistic. It holds
with probability ≥ 1 − δ; it is never the raw calibration mean.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from pydantic import BaseModel, ConfigDict

from kgrecall.calibration.gate import hop_thresholds
from kgrecall.calibration.risk import (
    crc_index,
    ltt_index,
    risk_upper_bound,
    split_conformal_quantile,
)
from kgrecall.calibration.vocabulary import METHODS, Method
from kgrecall.errors import CalibrationInfeasibleError
from kgrecall.kg import KGError

#: Directions of the threshold vector (γ); γ = 0 is the scalar threshold.
DEFAULT_GAMMAS: tuple[float, ...] = (-1.0, -0.5, 0.0, 0.5, 1.0)


#: The grid's smallest prediction threshold, relative to δ: the least kept probability
#: (0.002) divided by ``1 + K`` for a query with up to 199 retrieved answers (the gate's recall
#: weighting); smaller scores are reached only by "everything".
PREDICTED_FLOOR = 1e-5
#: Grid points from 0.96·δ down to the floor (about 15 per decade).
PREDICTED_POINTS = 72


def threshold_grid(routing_threshold: float, *, retrieval_points: int = 6) -> np.ndarray:
    """Descending t values: 1 → δ through retrieved facts, δ → 10⁻⁵·δ through predictions,
    then 0 ("everything"). Index 0 is the smallest set."""
    retrieved = np.linspace(1.0, routing_threshold, retrieval_points)
    predicted = routing_threshold * np.geomspace(0.96, PREDICTED_FLOOR, PREDICTED_POINTS)
    return np.concatenate([retrieved, predicted, [0.0]])


@dataclass(slots=True)
class ScoredQueries:
    """Per calibration query and per γ: the scores of its true answers and of its whole set.

    ``answer_scores[g][i]`` is sorted ascending, with −1 for a true answer outside the
    query's answer type (no threshold returns it, so it counts as missed even at t = 0);
    ``set_scores[g][i]`` holds the non-zero scores of every entity, sorted ascending (the set
    at t > 0 is those ≥ t; at t = 0 it is the whole answer type, ``type_sizes[i]`` entities).
    Only one operating point per query needs them, so evaluation
    (:mod:`kgrecall.calibration.evaluation`) reuses them for every method and target.
    """

    topology: str
    gammas: tuple[float, ...]
    depths: int
    n_entities: int
    answer_scores: list[list[np.ndarray]]
    set_scores: list[list[np.ndarray]]
    groups: dict[str, list[str]]
    #: Scores of the hard answers (those retrieval alone misses), sorted, per γ and query.
    hard_scores: list[list[np.ndarray]]
    #: Size of each query's answer type: the set threshold 0 returns.
    type_sizes: np.ndarray

    @property
    def n(self) -> int:
        return len(self.answer_scores[0])

    @classmethod
    def concat(cls, parts: Sequence[ScoredQueries]) -> ScoredQueries:
        """Queries of one topology scored on several strata, as one set."""
        if not parts:
            raise KGError("nothing to concatenate")
        first = parts[0]
        if any(p.gammas != first.gammas or p.topology != first.topology for p in parts):
            raise KGError("scored queries differ in topology or directions")
        if any(p.n_entities != first.n_entities for p in parts):
            raise KGError("scored queries come from graphs with different entity sets")
        gammas = range(len(first.gammas))
        kinds = {kind for p in parts for kind in p.groups}
        return cls(
            first.topology,
            first.gammas,
            max(p.depths for p in parts),
            first.n_entities,
            [[a for p in parts for a in p.answer_scores[g]] for g in gammas],
            [[a for p in parts for a in p.set_scores[g]] for g in gammas],
            {kind: [k for p in parts for k in p.groups[kind]] for kind in kinds},
            [[a for p in parts for a in p.hard_scores[g]] for g in gammas],
            np.concatenate([p.type_sizes for p in parts]),
        )

    def only(self, gammas: Sequence[float]) -> ScoredQueries:
        """The same queries with only the given directions (e.g. ``(0.0,)``: scalar)."""
        keep = [self.gammas.index(gamma) for gamma in gammas]
        return ScoredQueries(
            self.topology,
            tuple(gammas),
            self.depths,
            self.n_entities,
            [self.answer_scores[g] for g in keep],
            [self.set_scores[g] for g in keep],
            self.groups,
            [self.hard_scores[g] for g in keep],
            self.type_sizes,
        )

    def losses(self, gamma_index: int, grid: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """False-negative rate of each query in ``rows`` at each t of ``grid``."""
        answers = self.answer_scores[gamma_index]
        return np.stack(
            [np.searchsorted(answers[i], grid, side="left") / len(answers[i]) for i in rows]
        )

    def set_sizes(self, gamma_index: int, grid: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """Answer-set size of each query in ``rows`` at each t of ``grid``."""
        sets = self.set_scores[gamma_index]
        sizes = np.stack(
            [len(sets[i]) - np.searchsorted(sets[i], grid, side="left") for i in rows]
        ).astype(float)
        sizes[:, grid == 0.0] = self.type_sizes[rows, None]
        return sizes


class ThresholdChoice(BaseModel):
    """One calibrated operating point and what the calibration data say about it."""

    model_config = ConfigDict(frozen=True)

    gamma: float
    t: float
    thresholds: list[float]
    n: int
    risk_hat: float
    risk_upper: float
    estimated_recall: float
    mean_set_size: float
    everything: bool
    note: str | None = None

    def thresholds_by_depth(self) -> dict[int, float]:
        return dict(enumerate(self.thresholds))


def choose(
    data: ScoredQueries,
    method: Method,
    alpha: float,
    *,
    delta: float = 0.1,
    rows: Sequence[int] | None = None,
    grid: np.ndarray,
    fit_fraction: float = 0.3,
    seed: int = 0,
) -> ThresholdChoice:
    """Calibrate ``method`` at level ``alpha`` on the queries ``rows`` (default: all)."""
    if method not in METHODS:
        raise KGError(f"unknown calibration method {method!r}; valid: {', '.join(METHODS)}")
    if not 0.0 < alpha < 1.0 or not 0.0 < delta < 1.0:
        raise KGError(f"alpha and delta must be in (0, 1), got {alpha}, {delta}")
    selected = np.arange(data.n) if rows is None else np.asarray(rows, dtype=np.int64)
    if len(selected) == 0:
        raise KGError("no calibration queries to calibrate on")
    if method == "coverage":
        return _coverage(data, alpha, delta, selected, grid)
    if method == "ltt":
        return _ltt(data, alpha, delta, selected, grid)
    return _crc(data, alpha, delta, selected, grid, fit_fraction, seed)


def choose_across_strata(
    data: ScoredQueries,
    method: Method,
    alpha: float,
    *,
    strata: Sequence[str],
    delta: float = 0.1,
    rows: Sequence[int] | None = None,
    grid: np.ndarray,
    fit_fraction: float = 0.3,
    seed: int = 0,
) -> ThresholdChoice:
    """A threshold valid at *every* simulated missingness level, not only on their mixture.

    ``strata[i]`` names the stratum (hidden fraction) of query ``i``. One direction γ is
    chosen for all strata on a ``fit_fraction`` split (as :func:`choose` does); then the
    method calibrates each stratum on its own remaining queries (LTT at δ/K for K strata) and
    the most conservative threshold is deployed: for a fixed γ the sets are nested in t, so
    the smallest t contains every stratum's calibrated set and meets each stratum's
    guarantee. ``estimated_recall`` is the smallest of the strata's bounds.

    ``rows`` restricts calibration to some queries (a Mondrian group); every stratum of the
    whole data must still be covered, so a stratum with none of those queries left gets the
    only threshold that is safe without data: t = 0, every entity of the answer type.
    """
    labels = np.asarray(strata)
    if len(labels) != data.n:
        raise KGError(f"strata names {len(labels)} queries, the data hold {data.n}")
    selected = np.arange(data.n) if rows is None else np.asarray(rows, dtype=np.int64)
    keys = sorted(set(labels.tolist()))
    if len(keys) < 2:
        return choose(
            data, method, alpha, delta=delta, rows=rows, grid=grid,
            fit_fraction=fit_fraction, seed=seed,
        )  # fmt: skip
    gamma_index, certify = _direction(data, alpha, selected, grid, fit_fraction, seed, labels)
    single = data.only((data.gammas[gamma_index],))
    level_delta = delta / len(keys) if method == "ltt" else delta
    per_stratum = []
    for key in keys:
        stratum_rows = certify[labels[certify] == key]
        if len(stratum_rows) == 0:
            per_stratum.append((key, _without_data(single, key)))
            continue
        per_stratum.append((key, choose(single, method, alpha, delta=level_delta,
                                        rows=stratum_rows, grid=grid, seed=seed)))  # fmt: skip
    binding_key, binding = min(per_stratum, key=lambda item: item[1].t)
    notes = [c.note for _, c in per_stratum if c.note]
    notes.append(
        f"most conservative of {len(keys)} per-stratum calibrations (binding: {binding_key} hidden)"
    )
    return binding.model_copy(
        update={
            "n": len(certify),
            "estimated_recall": min(c.estimated_recall for _, c in per_stratum),
            "risk_upper": max(c.risk_upper for _, c in per_stratum),
            "note": "; ".join(dict.fromkeys(notes)),
        }
    )


def _direction(
    data: ScoredQueries,
    alpha: float,
    rows: np.ndarray,
    grid: np.ndarray,
    fit_fraction: float,
    seed: int,
    strata: np.ndarray | None = None,
) -> tuple[int, np.ndarray]:
    """(γ index, rows left to certify): with several γ, the one with the smallest mean set at
    the empirical CRC point on a seeded ``fit_fraction`` of ``rows``, chosen away from the
    rows that then certify it. With ``strata`` (a label per query) the point is the one the
    deployment rule takes: the most conservative of the strata's CRC points, so a γ that is
    small on the mixture but needs "everything" at one missingness level is not chosen."""
    if len(data.gammas) == 1:
        return 0, rows
    if not 0.0 < fit_fraction < 1.0:
        raise KGError(f"fit_fraction must be in (0, 1), got {fit_fraction}")
    n_fit = int(len(rows) * fit_fraction)
    if n_fit < 1 or n_fit >= len(rows):
        # Too few queries to split (a small Mondrian group): the scalar direction, chosen
        # without looking at the data, keeps every query for certification.
        return (data.gammas.index(0.0) if 0.0 in data.gammas else 0), rows
    permuted = np.random.default_rng(seed).permutation(rows)
    fit, certify = permuted[:n_fit], permuted[n_fit:]
    groups = [fit]
    if strata is not None:
        groups = [fit[strata[fit] == key] for key in np.unique(strata[fit])]
    # ties (every direction needs "everything" on the few fitting queries) go to the scalar
    # threshold, then to the smallest |γ|: the direction that assumes least about the data
    gamma_index = min(
        range(len(data.gammas)),
        key=lambda g: (_fit_size(data, g, alpha, fit, groups, grid), abs(data.gammas[g])),
    )
    return gamma_index, np.sort(certify)


def _crc(
    data: ScoredQueries,
    alpha: float,
    delta: float,
    rows: np.ndarray,
    grid: np.ndarray,
    fit_fraction: float,
    seed: int,
) -> ThresholdChoice:
    gamma_index, rows = _direction(data, alpha, rows, grid, fit_fraction, seed)
    losses = data.losses(gamma_index, grid, rows)
    try:
        index, note = crc_index(losses, alpha), None
    except CalibrationInfeasibleError as error:  # "everything" (loss 0) is the only safe point
        index, note = len(grid) - 1, f"{error}; returning every entity"
    return _point(data, gamma_index, index, grid, rows, delta / len(grid), note)


def _fit_size(
    data: ScoredQueries,
    gamma_index: int,
    alpha: float,
    rows: np.ndarray,
    groups: Sequence[np.ndarray],
    grid: np.ndarray,
) -> float:
    """Mean set size over the fitting ``rows`` at the most conservative of the ``groups``'
    empirical CRC points of one γ (one group: the plain CRC point)."""
    index = 0
    for group in groups:
        try:
            index = max(index, crc_index(data.losses(gamma_index, grid, group), alpha))
        except CalibrationInfeasibleError:
            index = len(grid) - 1
    return float(data.set_sizes(gamma_index, grid[index : index + 1], rows).mean())


def _ltt(
    data: ScoredQueries, alpha: float, delta: float, rows: np.ndarray, grid: np.ndarray
) -> ThresholdChoice:
    certified: list[tuple[float, int, int]] = []
    for gamma_index in range(len(data.gammas)):
        losses = data.losses(gamma_index, grid, rows)
        try:
            index = ltt_index(losses, alpha, delta / len(data.gammas))
        except CalibrationInfeasibleError:
            continue
        size = float(data.set_sizes(gamma_index, grid[index : index + 1], rows).mean())
        certified.append((size, gamma_index, index))
    n_points = len(grid) * len(data.gammas)
    if not certified:
        note = f"LTT certifies no grid point at alpha={alpha} with n={len(rows)}"
        zero = data.gammas.index(0.0) if 0.0 in data.gammas else 0
        return _point(data, zero, len(grid) - 1, grid, rows, delta / n_points, note)
    _, gamma_index, index = min(certified)
    return _point(data, gamma_index, index, grid, rows, delta / n_points, None)


def _coverage(
    data: ScoredQueries, alpha: float, delta: float, rows: np.ndarray, grid: np.ndarray
) -> ThresholdChoice:
    gamma_index = data.gammas.index(0.0) if 0.0 in data.gammas else 0
    best = np.array([data.answer_scores[gamma_index][i][-1] for i in rows])
    # Nonconformity = −(best true answer's score): covered iff that score ≥ t = −quantile.
    quantile = split_conformal_quantile(-best, alpha)
    t = 0.0 if math.isinf(quantile) else max(0.0, -quantile)
    note = None if not math.isinf(quantile) else f"n={len(rows)} too small for alpha={alpha}"
    # estimated_recall at t uses the nearest grid point with a set no larger (conservative).
    index = int(np.flatnonzero(grid >= t)[-1]) if t > 0 else len(grid) - 1
    point = _point(data, gamma_index, index, grid, rows, delta / len(grid), note)
    size = float(data.set_sizes(gamma_index, np.array([t]), rows).mean())
    thresholds = hop_thresholds(data.gammas[gamma_index], t, data.depths)
    return point.model_copy(
        update={"t": t, "thresholds": thresholds, "mean_set_size": size, "everything": t == 0}
    )


def _without_data(data: ScoredQueries, stratum: str) -> ThresholdChoice:
    """The choice for a stratum with no calibration queries: every entity (t = 0), and no
    recall bound (estimated 0) since nothing was measured."""
    gamma = data.gammas[0]
    return ThresholdChoice(
        gamma=gamma,
        t=0.0,
        thresholds=hop_thresholds(gamma, 0.0, data.depths),
        n=0,
        risk_hat=0.0,
        risk_upper=1.0,
        estimated_recall=0.0,
        mean_set_size=float(data.n_entities),
        everything=True,
        note=f"no calibration queries of this group in stratum {stratum}; returning every entity",
    )


def _point(
    data: ScoredQueries,
    gamma_index: int,
    index: int,
    grid: np.ndarray,
    rows: np.ndarray,
    bound_delta: float,
    note: str | None,
) -> ThresholdChoice:
    gamma, t = data.gammas[gamma_index], float(grid[index])
    point = grid[index : index + 1]
    losses = data.losses(gamma_index, point, rows)[:, 0]
    upper = risk_upper_bound(losses, bound_delta)
    return ThresholdChoice(
        gamma=gamma,
        t=t,
        thresholds=hop_thresholds(gamma, t, data.depths),
        n=len(rows),
        risk_hat=float(losses.mean()),
        risk_upper=upper,
        estimated_recall=1.0 - upper,
        mean_set_size=float(data.set_sizes(gamma_index, point, rows).mean()),
        everything=t == 0.0,
        note=note,
    )
