"""Where the demo KG's calibrated set sizes come from: how large sets must be to meet a recall
target under other set-selection policies and calibration rules (issue 13's open target: mean
set size at 0.9 ≤ 25 % of the answer type on every topology).

    python benchmarks/set_sizes.py [--topologies 2p 3p ip] [--dataset demo]

Same protocol as ``benchmarks/completeness.py`` (G → hide 25 % → O; calibration queries on
three strata of O hiding 10 / 25 / 40 % more; test queries sampled on G and answered on O;
zero-shot ``ultra+rules``), all hops hybrid, γ = 0. Per query the scores of every entity and
of its true answers are kept, so each policy is evaluated exactly:

- **threshold** — one score threshold t for every query (what the gate deploys);
- **cumulative share** — per query, the retrieved answers and then the best predictions until
  their share of the query's predicted score mass reaches τ (adaptive prediction sets, APS,
  applied to recall): a query whose predictions are spread out gets a larger set;
- **degree groups** — one threshold per anchor-degree bucket (the Mondrian groups of
  ``--conditioning degree``), fitted jointly so that the *mean* recall meets the target with
  the smallest mean size (a Lagrangian over the buckets);
- **per-query oracle** — each test query its own threshold, fitted on the test queries
  themselves: a bound no calibration reaches, showing how much the queries differ.

Two calibration rules pick the operating point on the calibration queries: **mixture** (mean
recall over all strata ≥ target) and **every stratum** (≥ target on each stratum, the rule the
deployed calibration follows: valid whether 10 % or 40 % of the facts are missing). Both use
the plain calibration mean, without CRC's finite-sample correction or the vector-γ fit split:
this page compares policies, it certifies nothing. Figures: recall and mean set size (share
of the answer type) on the test queries. Writes benchmarks/results/set_sizes.{md,json}.
"""

from __future__ import annotations

import argparse
import json
import platform
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
from completeness import load, model_for

from kgrecall.calibration import (
    CalibrationSettings,
    ScoredQueries,
    Stratum,
    make_calibration_set,
    reduce_strata,
    score_queries,
    score_strata,
    split_graph,
    threshold_grid,
)
from kgrecall.calibration.gate import DEFAULT_ROUTING_THRESHOLD
from kgrecall.tools import TOPOLOGIES

RESULTS = Path(__file__).resolve().parent / "results"
TARGETS = (0.8, 0.9)
#: Cumulative-share points τ: a fine grid, denser towards 1, and "everything" (above 1).
SHARES = np.append(
    np.unique(np.concatenate([np.linspace(0.0, 1.0, 201), 1.0 - np.geomspace(1e-2, 1e-7, 60)])),
    1.5,
)

#: Per query, recall and set size (share of the answer type) at each point of a policy's grid.
Curves = tuple[np.ndarray, np.ndarray]


def threshold_curves(scored: ScoredQueries) -> Curves:
    """Recall and relative size of every query at each score threshold of the gate's grid."""
    grid = threshold_grid(DEFAULT_ROUTING_THRESHOLD)
    recall, size = [], []
    for answers, scores, type_size in _queries(scored):
        recall.append([_hits(answers, t) / len(answers) for t in grid])
        size.append([((scores >= t).sum() if t > 0 else type_size) / type_size for t in grid])
    return np.array(recall), np.array(size)


def share_curves(scored: ScoredQueries) -> Curves:
    """Recall and relative size of every query at each cumulative share τ of its predicted
    score mass (retrieved answers always in; τ > 1: the whole answer type)."""
    delta = DEFAULT_ROUTING_THRESHOLD
    recall, size = [], []
    for answers, scores, type_size in _queries(scored):
        predicted = scores[scores < delta][::-1]  # best first
        retrieved = int((scores >= delta).sum())
        share = np.cumsum(predicted) / predicted.sum() if len(predicted) else predicted
        row_recall, row_size = [], []
        for tau in SHARES:
            if tau > 1.0:
                row_recall.append(_hits(answers, 0.0) / len(answers))
                row_size.append(1.0)
                continue
            kept = min(int(np.searchsorted(share, tau, side="left")) + 1, len(predicted))
            kept = kept if tau > 0 else 0
            cut = predicted[kept - 1] if kept else delta
            row_recall.append(_hits(answers, cut) / len(answers))
            row_size.append((retrieved + kept) / type_size)
        recall.append(row_recall)
        size.append(row_size)
    return np.array(recall), np.array(size)


def _queries(scored: ScoredQueries) -> list[tuple[np.ndarray, np.ndarray, int]]:
    """(true answers' scores, every entity's non-zero score, answer-type size) per query."""
    return list(
        zip(scored.answer_scores[0], scored.set_scores[0], scored.type_sizes.tolist(), strict=True)
    )


def _hits(answers: np.ndarray, t: float) -> int:
    """True answers at or above ``t`` (t = 0: every answer inside the answer type)."""
    return int((answers >= t).sum()) if t > 0 else int((answers >= 0).sum())


def first_meeting(recall: np.ndarray, target: float) -> int:
    """The first (smallest-set) grid point whose mean recall meets ``target``."""
    meeting = np.flatnonzero(recall.mean(axis=0) >= target)
    return int(meeting[0]) if len(meeting) else recall.shape[1] - 1


def per_rule(recall: np.ndarray, strata: np.ndarray, target: float) -> dict[str, int]:
    """The grid point each calibration rule picks."""
    every = max(first_meeting(recall[strata == key], target) for key in np.unique(strata))
    return {"mixture": first_meeting(recall, target), "every stratum": every}


def group_points(
    recall: np.ndarray,
    size: np.ndarray,
    groups: Sequence[str],
    target: float,
    feasible: Callable[[np.ndarray], bool],
) -> dict[str, int]:
    """One grid point per group, the smallest total size whose per-query points pass
    ``feasible`` (a Lagrangian sweep: each group maximises λ·recall − size)."""
    keys = sorted(set(groups))
    members = {key: np.array([g == key for g in groups]) for key in keys}
    for weight in np.geomspace(1e-3, 1e5, 500):
        points = {
            k: int(np.argmax(weight * recall[m].sum(0) - size[m].sum(0)))
            for k, m in members.items()
        }
        if feasible(np.array([points[g] for g in groups])):
            return points
    return dict.fromkeys(keys, recall.shape[1] - 1)


def at(curves: Curves, points: np.ndarray) -> dict[str, float]:
    """Mean recall and mean relative size with each query at its own grid point."""
    recall, size = curves
    rows = np.arange(len(recall))
    return {
        "recall": round(float(recall[rows, points].mean()), 4),
        "size": round(float(size[rows, points].mean()), 4),
    }


def analyse(calibration: ScoredQueries, test: ScoredQueries) -> list[dict[str, object]]:
    """Every policy × rule × target on one topology's scored queries."""
    strata = np.asarray(calibration.groups["stratum"])
    degree_cal = [key.split(" | ")[0] for key in calibration.groups["degree"]]
    degree_test = [key.split(" | ")[0] for key in test.groups["degree"]]
    rows: list[dict[str, object]] = []
    threshold_cal, threshold_test = threshold_curves(calibration), threshold_curves(test)
    share_cal, share_test = share_curves(calibration), share_curves(test)
    n_test = len(threshold_test[0])
    for target in TARGETS:
        for rule in ("mixture", "every stratum"):
            row: dict[str, object] = {"target": target, "rule": rule}
            point = per_rule(threshold_cal[0], strata, target)[rule]
            row["threshold"] = at(threshold_test, np.full(n_test, point))
            point = per_rule(share_cal[0], strata, target)[rule]
            row["cumulative share"] = at(share_test, np.full(n_test, point))

            def feasible(points: np.ndarray, rule: str = rule, target: float = target) -> bool:
                recall = threshold_cal[0][np.arange(len(points)), points]
                if rule == "mixture":
                    return bool(recall.mean() >= target)
                return all(recall[strata == key].mean() >= target for key in np.unique(strata))

            fitted = group_points(*threshold_cal, degree_cal, target, feasible)
            fallback = per_rule(threshold_cal[0], strata, target)[rule]
            points = np.array([fitted.get(g, fallback) for g in degree_test])
            row["degree groups"] = at(threshold_test, points)
            rows.append(row)
        oracle = group_points(
            *threshold_test,
            [str(i) for i in range(n_test)],
            target,
            lambda points, target=target: bool(
                threshold_test[0][np.arange(len(points)), points].mean() >= target
            ),
        )
        points = np.array([oracle[str(i)] for i in range(n_test)])
        rows.append({"target": target, "rule": "fitted on the test queries",
                     "per-query oracle": at(threshold_test, points)})  # fmt: skip
    return rows


POLICIES = ("threshold", "cumulative share", "degree groups", "per-query oracle")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dataset", default="demo")
    parser.add_argument(
        "--topologies", nargs="+", default=["2p", "3p", "2i", "ip", "up"], choices=TOPOLOGIES
    )
    parser.add_argument("--calibration-queries", type=int, default=400)
    parser.add_argument("--test-queries", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    if min(args.calibration_queries, args.test_queries) < 3:
        parser.error("--calibration-queries and --test-queries must be at least 3")
    started = time.perf_counter()
    full = load(args.dataset)
    observed = split_graph(full, seed=args.seed)
    model = model_for("ultra+rules", observed.store, 0, "O")
    strata = [
        Stratum(reduced, model)
        for reduced in reduce_strata(observed.store, seed=args.seed + 1, strata=3)
    ]
    settings = CalibrationSettings(
        n_queries=args.calibration_queries, seed=args.seed, gammas=(0.0,)
    )
    results: dict[str, object] = {}
    for topology in args.topologies:
        print(f"scoring {topology} …", flush=True)
        calibration = score_strata(
            observed.store, strata, topology, settings, conditionings=("degree",), progress=False
        )
        test_set = make_calibration_set(
            full, topology, args.test_queries, seed=args.seed + 2, reduced=observed, progress=False
        )
        test = score_queries(test_set, model, settings, conditionings=("degree",), progress=False)
        results[topology] = analyse(calibration, test)
    figures = {
        "dataset": args.dataset,
        "model": model.identifier,
        "calibration_queries": args.calibration_queries,
        "test_queries": args.test_queries,
        "seed": args.seed,
        "seconds": round(time.perf_counter() - started),
        "machine": f"{platform.machine()}, Python {platform.python_version()}",
        "topologies": results,
    }
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "set_sizes.json").write_text(json.dumps(figures, indent=2) + "\n")
    page = markdown(args, figures)
    (RESULTS / "set_sizes.md").write_text(page)
    print(page)


def markdown(args: argparse.Namespace, figures: dict[str, object]) -> str:
    """One table: per topology, target and rule, each policy's test recall / mean size."""
    topologies = figures["topologies"]
    assert isinstance(topologies, dict)
    lines = [
        "# Set sizes under other selection policies (analysis for issue 13)",
        "",
        f"`python benchmarks/set_sizes.py --dataset {args.dataset} --topologies "
        f"{' '.join(args.topologies)}` ({figures['seconds']} s, {figures['machine']}); model "
        f"`{figures['model']}`; {args.calibration_queries} calibration queries over three strata "
        f"(10 / 25 / 40 % more hidden), {args.test_queries} test queries. The script's "
        "docstring defines the policies and rules; the operating point is the plain "
        "calibration mean (no finite-sample correction): a comparison, not a guarantee.",
        "",
        "Each cell: recall on the test queries / mean set size as a share of the answer type.",
        "",
        "| topology | target | rule | " + " | ".join(POLICIES) + " |",
        "|---|---|---|" + "---|" * len(POLICIES),
    ]
    for topology, rows in topologies.items():
        for row in rows:
            cells = []
            for policy in POLICIES:
                value = row.get(policy)
                cells.append(f"{value['recall']:.3f} / {value['size']:.3f}" if value else "")
            lines.append(
                f"| {topology} | {row['target']} | {row['rule']} | " + " | ".join(cells) + " |"
            )
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
