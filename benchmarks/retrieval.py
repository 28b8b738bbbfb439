"""Retrieval latency on the demo KG: traversal per topology, vector and fulltext search.

    python benchmarks/retrieval.py [--queries 200]

Samples queries of each topology grounded in the demo KG (answers non-empty), times exact
set execution and traversal with evidence paths, then fulltext and vector top-10 over the
entities' names; index build times included. Writes benchmarks/results/retrieval.md.
Targets (issue 3, 2 cores): 1p p50 ≤ 2 ms; 3p/ip/up p50 ≤ 50 ms; vector query ≤ 30 ms
(embedding included); fulltext ≤ 5 ms.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from kgrecall.kg import build_demo_kg
from kgrecall.tools import (
    TOPOLOGIES,
    FulltextIndex,
    VectorIndex,
    execute_sets,
    sample_query,
    traverse,
)

RESULTS = Path(__file__).resolve().parent / "results" / "retrieval.md"


def timed(action: Callable[[], object]) -> float:
    start = time.perf_counter()
    action()
    return (time.perf_counter() - start) * 1e3


def percentiles(values: list[float]) -> tuple[float, float]:
    ordered = sorted(values)
    return statistics.median(ordered), ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--queries", type=int, default=200, help="per topology")
    args = parser.parse_args()
    store = build_demo_kg(progress=False)
    rng = random.Random(0)
    rows = []
    for name in TOPOLOGIES:
        print(f"{name} …", file=sys.stderr, flush=True)
        queries = [sample_query(store, name, rng) for _ in range(args.queries)]
        for query in queries[:5]:  # warm-up
            execute_sets(store, query)
        sets = [timed(lambda q=q: execute_sets(store, q)) for q in queries]
        paths = [timed(lambda q=q: traverse(store, q)) for q in queries]
        sizes = [len(execute_sets(store, q)[0]) for q in queries]
        rows.append((name, *percentiles(sets), *percentiles(paths), statistics.median(sizes)))

    start = time.perf_counter()
    fulltext = FulltextIndex(store)
    fulltext_build = time.perf_counter() - start
    with tempfile.TemporaryDirectory() as folder:
        start = time.perf_counter()
        vector = VectorIndex.for_store(store, Path(folder), progress=False)
        vector_build = time.perf_counter() - start
    names = [n.name for n in rng.sample(sorted(store.nodes(), key=lambda n: n.id), 200)]
    vector.search(names[0])  # model warm-up
    fulltext_ms = percentiles([timed(lambda t=t: fulltext.search(t, k=10)) for t in names])
    vector_ms = percentiles([timed(lambda t=t: vector.search(t, k=10)) for t in names])

    lines = [
        "# Retrieval benchmark (demo KG)",
        "",
        f"Command: `python benchmarks/retrieval.py --queries {args.queries}`  ",
        f"Machine: {platform.machine()}, {len(os.sched_getaffinity(0))} cores. Demo KG "
        f"{store.number_of_nodes():,} nodes / {store.number_of_edges():,} edges; "
        f"{args.queries} random grounded queries per topology (seed 0).",
        "",
        "| topology | sets p50 ms | sets p95 ms | with evidence p50 ms | with evidence p95 ms "
        "| median answers |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for name, s50, s95, p50, p95, size in rows:
        lines.append(f"| {name} | {s50:.3f} | {s95:.3f} | {p50:.3f} | {p95:.3f} | {size:.0f} |")
    lines += [
        "",
        "| search (top 10, 200 entity names as queries) | p50 ms | p95 ms | index build s |",
        "|---|---:|---:|---:|",
        f"| fulltext (bm25s) | {fulltext_ms[0]:.2f} | {fulltext_ms[1]:.2f} "
        f"| {fulltext_build:.1f} |",
        f"| vector (MiniLM, embedding included) | {vector_ms[0]:.2f} | {vector_ms[1]:.2f} "
        f"| {vector_build:.1f} |",
        "",
        "Targets: 1p p50 ≤ 2 ms; 3p/ip/up p50 ≤ 50 ms; vector ≤ 30 ms; fulltext ≤ 5 ms.",
    ]
    report = "\n".join(lines) + "\n"
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(report, encoding="utf-8")
    print(report)


if __name__ == "__main__":
    main()
