"""KG I/O benchmark: save/load time, peak RSS and 1-hop projection latency on synthetic graphs.

    python benchmarks/kg_io.py [--sizes 100000 1000000]

Each size is built and saved in this process; loading and projection run in a fresh
subprocess so that its peak RSS is the load's own. Writes benchmarks/results/kg_io.md.
Targets (issue 2): load of 1 M edges ≤ 15 s and ≤ 3 GB RSS; 1-hop projection p50 ≤ 1 ms.
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from kgrecall.kg import Edge, KGSchema, NetworkXStore, Node, load_graph, save_graph

RESULTS = Path(__file__).resolve().parent / "results" / "kg_io.md"
RELATIONS = ("interacts_with", "associated_with", "has_phenotype", "regulates", "subclass_of")
NODE_TYPES = ("gene", "disease", "phenotype", "protein")


def synthetic_graph(n_edges: int, seed: int = 0) -> NetworkXStore:
    """Scale-free-ish random graph: 10 edges per node on average, provenance on every edge."""
    rng = random.Random(seed)
    n_nodes = max(10, n_edges // 10)
    store = NetworkXStore(KGSchema.biomedical())
    store.add_nodes(
        Node(f"N:{i}", NODE_TYPES[i % len(NODE_TYPES)], f"entity {i}", synonyms=(f"E{i}",))
        for i in range(n_nodes)
    )
    edges: list[Edge] = []
    seen: set[tuple[int, int, int]] = set()
    while len(edges) < n_edges:
        head = int(n_nodes * rng.random() ** 2)  # skewed degrees
        tail = rng.randrange(n_nodes)
        relation = rng.randrange(len(RELATIONS))
        if (head, relation, tail) in seen:
            continue
        seen.add((head, relation, tail))
        edges.append(
            Edge(
                f"N:{head}",
                RELATIONS[relation],
                f"N:{tail}",
                sources=("synthetic",),
                confidence=round(rng.random(), 3),
            )
        )
    store.add_edges(edges)
    return store


def measure_load(path: Path, seed: int = 1) -> dict[str, float]:
    """Runs in the subprocess: load, peak RSS, projection latencies."""
    start = time.perf_counter()
    store = load_graph(path)
    load_s = time.perf_counter() - start
    peak_rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    rng = random.Random(seed)
    ids = [f"N:{rng.randrange(store.number_of_nodes())}" for _ in range(2000)]
    single: list[float] = []
    for node_id in ids:
        relation = RELATIONS[rng.randrange(len(RELATIONS))]
        t0 = time.perf_counter()
        store.project([node_id], relation)
        single.append(time.perf_counter() - t0)
    batch: list[float] = []
    for _ in range(200):
        chosen = rng.sample(ids, 100)
        t0 = time.perf_counter()
        store.project(chosen, "interacts_with")
        batch.append(time.perf_counter() - t0)
    return {
        "load_s": load_s,
        "peak_rss_mb": peak_rss_mb,
        "project1_p50_ms": statistics.median(single) * 1e3,
        "project1_p95_ms": statistics.quantiles(single, n=20)[18] * 1e3,
        "project100_p50_ms": statistics.median(batch) * 1e3,
    }


def run_size(n_edges: int, folder: Path) -> dict[str, float]:
    t0 = time.perf_counter()
    store = synthetic_graph(n_edges)
    build_s = time.perf_counter() - t0
    path = folder / f"synthetic-{n_edges}.json.gz"
    t0 = time.perf_counter()
    save_graph(store, path)
    save_s = time.perf_counter() - t0
    del store
    output = subprocess.run(
        [sys.executable, __file__, "--measure-load", str(path)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    result = json.loads(output)
    result.update(
        {
            "edges": n_edges,
            "build_s": build_s,
            "save_s": save_s,
            "file_mb": path.stat().st_size / 2**20,
        }
    )
    return result


def write_report(rows: list[dict[str, float]]) -> str:
    sizes = " ".join(str(int(r["edges"])) for r in rows)
    lines = [
        "# KG I/O benchmark",
        "",
        f"Command: `python benchmarks/kg_io.py --sizes {sizes}`  ",
        f"Machine: {platform.machine()}, {platform.python_implementation()} "
        f"{platform.python_version()}, {_cores()} cores. Synthetic graphs, 10 edges per node, "
        "gzip JSON. Load and projection run in a fresh process (peak RSS is the load's own).",
        "",
        "| edges | file MB | save s | load s | peak RSS MB "
        "| 1-hop p50 ms | 1-hop p95 ms | 100-entity p50 ms |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        lines.append(
            f"| {int(r['edges']):,} | {r['file_mb']:.1f} | {r['save_s']:.1f} | {r['load_s']:.1f} | "
            f"{r['peak_rss_mb']:.0f} | {r['project1_p50_ms']:.4f} | {r['project1_p95_ms']:.4f} | "
            f"{r['project100_p50_ms']:.3f} |"
        )
    lines += [
        "",
        "Targets: load of 1 M edges ≤ 15 s and ≤ 3 GB RSS; 1-hop projection p50 ≤ 1 ms.",
    ]
    return "\n".join(lines) + "\n"


def _cores() -> int:
    import os

    return len(os.sched_getaffinity(0))


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sizes", type=int, nargs="+", default=[100_000, 1_000_000])
    parser.add_argument("--measure-load", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure_load is not None:
        print(json.dumps(measure_load(args.measure_load)))
        return
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        for size in args.sizes:
            print(f"{size:,} edges …", file=sys.stderr, flush=True)
            rows.append(run_size(size, Path(folder)))
    report = write_report(rows)
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(report, encoding="utf-8")
    print(report)


if __name__ == "__main__":
    main()
