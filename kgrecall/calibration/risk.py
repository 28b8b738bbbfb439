"""Risk-control rules on a grid of thresholds (MAPIE's vocabulary: alpha, delta, crc / ltt).

Inputs are loss matrices ``losses[i, j]``: the loss in [0, 1] of calibration query ``i`` at
grid point ``j``, the grid ordered from the smallest answer set (``j = 0``) to the largest
(the last point should be "return everything"), so that for recall-type losses each row is
non-increasing in ``j``. Every rule returns the grid index of the smallest answer set it
certifies.

- :func:`crc_index` — conformal risk control (Angelopoulos et al.): the smallest ``j`` with
  ``(n/(n+1))·R̂ₙ(j') + B/(n+1) ≤ α`` for every ``j' ≥ j`` (B = 1, the loss bound). For a new
  exchangeable query, E[loss] ≤ α.
- :func:`ltt_index` — Learn-then-Test: a Hoeffding–Bentkus p-value for "risk > α" per grid
  point, family-wise error control by fixed-sequence testing from the largest set down (or
  Bonferroni); P(risk of the chosen point ≤ α) ≥ 1 − δ.
- :func:`split_conformal_quantile` — the ⌈(n+1)(1−α)⌉-th smallest nonconformity score, for
  path-level coverage P(at least one true answer kept) ≥ 1 − α.
- :func:`risk_upper_bound` — a (1 − δ) upper confidence bound on the mean loss (Hoeffding–
  Bentkus inverted by Brent's method, scipy); ``1 − bound`` is the honest ``estimated_recall``.
"""

from __future__ import annotations

import math
from typing import Literal

import numpy as np

from kgrecall.errors import CalibrationInfeasibleError
from kgrecall.kg import KGError


def _check(losses: np.ndarray, alpha: float) -> np.ndarray:
    matrix = np.asarray(losses, dtype=float)
    if matrix.ndim != 2 or matrix.shape[0] == 0 or matrix.shape[1] == 0:
        raise KGError(
            f"losses must be a non-empty (queries × grid) matrix, got shape {matrix.shape}"
        )
    if not 0.0 < alpha < 1.0:
        raise KGError(f"alpha must be in (0, 1), got {alpha}")
    if np.isnan(matrix).any() or (matrix < 0).any() or (matrix > 1).any():
        raise KGError("losses must lie in [0, 1]")
    return matrix


def crc_index(losses: np.ndarray, alpha: float) -> int:
    """Conformal risk control: the smallest certified grid index (see module docstring)."""
    matrix = _check(losses, alpha)
    n = matrix.shape[0]
    bound = n / (n + 1) * matrix.mean(axis=0) + 1.0 / (n + 1)
    ok = bound <= alpha
    # Certify j only if every larger set is certified too (monotone in j).
    suffix_ok = np.flip(np.logical_and.accumulate(np.flip(ok)))
    if not suffix_ok[-1]:
        raise CalibrationInfeasibleError(
            f"CRC cannot reach alpha={alpha} with n={n} calibration queries even returning the "
            f"largest set (needs n ≥ {math.ceil(1 / alpha - 1)} and a zero-loss last grid point)"
        )
    return int(np.argmax(suffix_ok))


def hoeffding_bentkus_pvalue(risk_hat: float, alpha: float, n: int) -> float:
    """p-value of H₀: risk > α given the mean of n losses in [0, 1] (Bates et al. 2021)."""
    if risk_hat >= alpha:
        return 1.0
    kl = risk_hat * math.log(risk_hat / alpha) if risk_hat > 0 else 0.0
    kl += (1 - risk_hat) * math.log((1 - risk_hat) / (1 - alpha))
    hoeffding = math.exp(-n * kl)
    from scipy import stats  # scipy.stats costs ~0.7 s to import: only where LTT runs

    bentkus = math.e * float(stats.binom.cdf(math.ceil(n * risk_hat), n, alpha))
    return min(hoeffding, bentkus, 1.0)


def hoeffding_bentkus_pvalues(risk_hats: np.ndarray, alpha: float, n: int) -> np.ndarray:
    """:func:`hoeffding_bentkus_pvalue` of every empirical risk in ``risk_hats`` at once."""
    risk = np.asarray(risk_hats, dtype=float)
    safe = np.clip(risk, 1e-300, 1.0 - 1e-16)
    with np.errstate(divide="ignore", invalid="ignore"):
        kl = np.where(risk > 0, risk * np.log(safe / alpha), 0.0)
        kl += (1 - risk) * np.log((1 - safe) / (1 - alpha))
    hoeffding = np.exp(-n * kl)
    from scipy import stats

    bentkus = math.e * stats.binom.cdf(np.ceil(n * risk), n, alpha)
    return np.where(risk >= alpha, 1.0, np.minimum(np.minimum(hoeffding, bentkus), 1.0))


def ltt_index(
    losses: np.ndarray,
    alpha: float,
    delta: float,
    method: Literal["fixed_sequence", "bonferroni"] = "fixed_sequence",
) -> int:
    """Learn-then-Test: the smallest grid index whose null "risk > α" is rejected under
    family-wise error control at level δ."""
    matrix = _check(losses, alpha)
    if not 0.0 < delta < 1.0:
        raise KGError(f"delta must be in (0, 1), got {delta}")
    n, m = matrix.shape
    p_values = hoeffding_bentkus_pvalues(matrix.mean(axis=0), alpha, n)
    if method == "bonferroni":
        rejected = [j for j in range(m) if p_values[j] <= delta / m]
        if not rejected:
            raise CalibrationInfeasibleError(
                f"LTT (Bonferroni) certifies no grid point at alpha={alpha}, delta={delta}, n={n}"
            )
        return min(rejected)
    if method != "fixed_sequence":
        raise KGError(f"unknown LTT method {method!r}; valid: fixed_sequence, bonferroni")
    chosen = None
    for j in range(m - 1, -1, -1):  # from the largest set down, stop at the first acceptance
        if p_values[j] > delta:
            break
        chosen = j
    if chosen is None:
        raise CalibrationInfeasibleError(
            f"LTT (fixed sequence) certifies no grid point at alpha={alpha}, delta={delta}, n={n}"
        )
    return chosen


def split_conformal_quantile(scores: np.ndarray, alpha: float) -> float:
    """The ⌈(n+1)(1−α)⌉-th smallest score; +inf when n is too small for 1 − α."""
    values = np.sort(np.asarray(scores, dtype=float))
    n = len(values)
    if n == 0:
        raise KGError("no calibration scores")
    if not 0.0 < alpha < 1.0:
        raise KGError(f"alpha must be in (0, 1), got {alpha}")
    rank = math.ceil((n + 1) * (1 - alpha))
    return math.inf if rank > n else float(values[rank - 1])


#: How close the Hoeffding–Bentkus bound is found (it is then rounded up by twice this).
_BOUND_XTOL = 1e-10


def risk_upper_bound(losses: np.ndarray, delta: float) -> float:
    """The smallest α whose Hoeffding–Bentkus p-value is ≤ δ: P(risk ≤ bound) ≥ 1 − δ."""
    values = np.asarray(losses, dtype=float)
    if values.ndim != 1 or len(values) == 0:
        raise KGError("risk_upper_bound needs a non-empty vector of losses")
    risk_hat, n = float(values.mean()), len(values)
    highest = 1.0 - 1e-12
    if hoeffding_bentkus_pvalue(risk_hat, highest, n) > delta:
        return 1.0
    from scipy.optimize import brentq

    # the p-value falls with α (it is 1 at α = risk_hat > δ's side): Brent's method finds the
    # crossing within XTOL, and one step of it up is on the bound's safe side
    crossing = brentq(
        lambda alpha: hoeffding_bentkus_pvalue(risk_hat, alpha, n) - delta,
        risk_hat,
        highest,
        xtol=_BOUND_XTOL,
    )
    return min(1.0, float(crossing) + 2 * _BOUND_XTOL)
