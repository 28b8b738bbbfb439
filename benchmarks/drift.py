"""A KG that changes (issue #20): ingestion in batches, recalibration by policy, monitored recall.

    python benchmarks/drift.py [--batches 5] [--withhold 0.3] [--queries 100]
        [--calibration-queries 300] [--topologies 1p] [--model ultra+rules] [--seed 0]

**Uniform scenario.** The demo KG G with 30 % of its edges withheld at random is served as
KG version 0 (calibrated as users would: ``kgrecall calibrate``, three strata, targets 0.8
and 0.9). Before each ingestion a stream of queries is served at the thorough and exhaustive
levels with query logging on (queries sampled from the version served, as users ask about
what the KG knows). The withheld edges are then ingested in five batches; the ingestion
policy recalibrates after each. After every batch the monitor re-checks every logged query
against the answers known at the new version and reports mean recall per query with its
95 % interval against the target. After the last batch the KG equals G, so the last row is
recall against the full truth.

**Drift scenario.** Same, except that one relation (``has_phenotype``) is missing far more
than calibration assumes: 80 % of its edges are withheld besides the uniform 30 % of the
rest, and only they are ingested, in one batch (after ``--drift-queries`` queries per level:
queries sampled from the served KG rarely ask about the depleted relation). The monitor
should flag the shift (target above the interval) in the row of the queries asking about
that relation; the row over all queries dilutes it.

Staleness: the seconds from each ingestion to the new version's calibration being saved
(queries meanwhile use the previous version's calibration, said stale). Writes
benchmarks/results/drift.md, drift.json and drift.png.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from tqdm import tqdm

from kgrecall.agents import QueryService
from kgrecall.agents.monitor import MonitorReport, plot_versions
from kgrecall.calibration import reduce_graph
from kgrecall.kg import Edge, NetworkXStore, Workspace, build_demo_kg
from kgrecall.kg.history import IngestPolicy
from kgrecall.kg.loaders.base import GraphBatch
from kgrecall.tools import execute_sets, sample_query

RESULTS = Path(__file__).resolve().parent / "results"
KG = "drift"
LEVELS = {"thorough": 0.8, "exhaustive": 0.9}
DRIFT_RELATION = "has_phenotype"
#: Entity embeddings shared by the scenarios (their entities' texts are identical).
EMBEDDINGS = Path(tempfile.mkdtemp(prefix="kgrecall-drift-embeddings-"))


def withhold(
    full: NetworkXStore, fraction: float, seed: int, extra: float
) -> tuple[NetworkXStore, list[Edge]]:
    """``full`` without a random ``fraction`` of its edges (and ``extra`` of the
    DRIFT_RELATION's remaining ones), and the edges withheld."""
    reduced = reduce_graph(full, seed=seed, hide_fraction=fraction)
    store, hidden = reduced.store, [full.get_edge(*t) for t in sorted(reduced.hidden)]
    if extra:
        rng = random.Random(seed + 1)
        more = [e for e in store.edges() if e.relation == DRIFT_RELATION and rng.random() < extra]
        store.remove_edges([(e.head, e.relation, e.tail) for e in more])
        hidden = [e for e in hidden if e is not None and e.relation == DRIFT_RELATION] + more
    return store, [e for e in hidden if e is not None]


def serve(service: QueryService, topologies: list[str], n: int, seed: int) -> int:
    """Serve ``n`` queries per topology and level (logged by the service); how many."""
    store = service.resources(KG).store
    rng = random.Random(seed)
    served = 0
    for topology in topologies:
        for _ in tqdm(range(n), desc=f"serving {topology}", leave=False):
            while True:
                query = sample_query(store, topology, rng)
                if len(execute_sets(store, query)[0]) <= 100:  # as calibration samples them
                    break
            for level in LEVELS:
                service.query(query, kg=KG, level=level, max_results=1)
                served += 1
    return served


def monitor_rows(report: MonitorReport) -> list[dict[str, Any]]:
    return [
        {
            "topology": row.topology, "relations": row.relations, "target": row.target,
            "queries": row.queries,
            "recall": row.recall.value if row.recall else None,
            "interval": row.recall.interval if row.recall else None,
            "new_facts": row.new_facts.value if row.new_facts else None,
            "new_facts_n": row.new_facts.n if row.new_facts else 0,
            "drift": row.drift,
        }
        for row in report.rows
    ]  # fmt: skip


def scenario(
    name: str, args: argparse.Namespace, *, extra: float, batches: int, queries: int | None = None
) -> dict[str, Any]:
    """One run: withhold, calibrate, then serve / ingest / recalibrate / monitor per batch."""
    home = Path(tempfile.mkdtemp(prefix=f"kgrecall-drift-{name}-"))
    full = build_demo_kg(progress=False)
    start, withheld = withhold(full, args.withhold, args.seed, extra)
    Workspace(home).save(start, KG)
    indexes = Workspace(home).kg_dir(KG) / "indexes"
    indexes.mkdir(parents=True, exist_ok=True)
    for saved in EMBEDDINGS.glob("vectors-*.npz"):  # the entity texts are the same: reuse
        shutil.copy(saved, indexes / saved.name)
    IngestPolicy(topologies=args.topologies, alphas=[0.2, 0.1]).write(Workspace(home).kg_dir(KG))
    service = QueryService(
        home, use_env_llm=False, progress=False, model=args.model, query_log="full"
    )
    began = time.perf_counter()
    service.calibrate(
        kg=KG, topologies=args.topologies, alphas=[0.2, 0.1], queries=args.calibration_queries,
        say=lambda _: None,
    )  # fmt: skip
    rounds: list[dict[str, Any]] = [{
        "batch": 0, "edges": start.number_of_edges(), "calibration_s": time.perf_counter() - began,
    }]  # fmt: skip
    random.Random(args.seed).shuffle(withheld)
    size = -(-len(withheld) // batches)
    for batch in range(batches):
        served = serve(
            service, args.topologies, queries or args.queries, seed=args.seed * 100 + batch
        )
        edges = withheld[batch * size : (batch + 1) * size]
        store = service.resources(KG).store
        ingested = time.perf_counter()
        done = service.ingest(KG, GraphBatch(store.schema, [], edges), source=f"batch {batch + 1}")
        plan = done.recalibration
        if plan is not None:
            service.recalibrate(KG, plan, say=lambda _: None)
        stale_s = time.perf_counter() - ingested
        report = service.monitor(KG)
        rounds.append({
            "batch": batch + 1, "ingested": len(edges), "served_before": served,
            "rechecked": done.rechecked_queries, "recalibrated": plan is not None,
            "stale_s": stale_s, "edges": service.resources(KG).store.number_of_edges(),
            "monitor": monitor_rows(report),
        })  # fmt: skip
        print(f"{name} batch {batch + 1}: {json.dumps(rounds[-1]['monitor'])}", file=sys.stderr)
    plot_versions(service.monitor(KG), RESULTS / f"drift_{name}.png")
    for saved in indexes.glob("vectors-*.npz"):
        shutil.copy(saved, EMBEDDINGS / saved.name)
    return {"name": name, "withheld": len(withheld), "rounds": rounds}


def write_report(runs: list[dict[str, Any]], args: argparse.Namespace, minutes: float) -> None:
    lines = [
        "# A KG that changes: monitored recall under ingestion",
        "",
        f"`python benchmarks/drift.py --batches {args.batches} --withhold {args.withhold} "
        f"--queries {args.queries} --calibration-queries {args.calibration_queries} "
        f"--topologies {' '.join(args.topologies)} --model {args.model}` ({minutes:.0f} min, "
        "2 cores). Recall per query against the answers known at each version (mean, 95 % "
        "Student-t interval); *new facts*: the share of the answers ingested later that the "
        "set served before already held. The policy recalibrates after every ingestion.",
        "",
    ]
    for run in runs:
        lines += [f"## {run['name']} ({run['withheld']} edges withheld)", "",
                  f"![monitored recall](drift_{run['name']}.png)", "",
                  "| batch | ingested | rechecked | recalibration (staleness) s | topology | "
                  "relations asked | target | queries | recall [95 % CI] | new facts covered | "
                  "verdict |",
                  "|---|---|---|---|---|---|---|---|---|---|---|"]  # fmt: skip
        for entry in run["rounds"][1:]:
            for row in entry["monitor"]:
                interval = row["interval"]
                shown = "–" if row["recall"] is None else (
                    f"{row['recall']:.3f} [{interval[0]:.3f}, {interval[1]:.3f}]")  # fmt: skip
                new = "–" if row["new_facts"] is None else (
                    f"{row['new_facts']:.3f} of {row['new_facts_n']}")  # fmt: skip
                verdict = "**drift**" if row["drift"] else "met (target within or below CI)"
                lines.append(
                    f"| {entry['batch']} | {entry['ingested']} | {entry['rechecked']} | "
                    f"{entry['stale_s']:.0f} | {row['topology']} | {row['relations']} | "
                    f"{row['target']:.1f} | {row['queries']} | {shown} | {new} | {verdict} |"
                )
        lines.append("")
    (RESULTS / "drift.md").write_text("\n".join(lines))
    (RESULTS / "drift.json").write_text(json.dumps(runs, indent=1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batches", type=int, default=5)
    parser.add_argument("--withhold", type=float, default=0.3)
    parser.add_argument("--queries", type=int, default=100, help="per topology and batch")
    parser.add_argument("--calibration-queries", type=int, default=300)
    parser.add_argument(
        "--drift-queries",
        type=int,
        default=400,
        help="queries per level before the drift scenario's one ingestion",
    )
    parser.add_argument("--topologies", nargs="+", default=["1p"])
    parser.add_argument("--model", default="ultra+rules")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    started = time.perf_counter()
    runs = [
        scenario("uniform", args, extra=0.0, batches=args.batches),
        scenario("drift", args, extra=0.8, batches=1, queries=args.drift_queries),
    ]
    write_report(runs, args, (time.perf_counter() - started) / 60)


if __name__ == "__main__":
    main()
