"""End-to-end ``ask`` latency on the demo KG without an LLM: fast vs thorough vs exhaustive.

    python benchmarks/ask_latency.py [--questions 60] [--seed 1]

Questions come from the planning benchmark's generator (1p / 2p / 2i / 2u, real anchors).
Each question is asked at every level in turn (interleaved, same process, warm caches), the
whole pipeline timed: plan, gated execution, template synthesis and grounding. Thorough and
exhaustive use the calibrations in the workspace (``make demo`` calibrates 1p/2p/2i/2u); a
level without a calibration runs retrieval-only and is reported as such. Writes
benchmarks/results/ask_latency.md. Targets (issue 7): fast p50 ≤ 300 ms; thorough ≤ 1.10×
fast.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import time
from collections import Counter
from pathlib import Path
from typing import Any

from planning import generate

from kgrecall.agents import PlanningError, QueryService

RESULTS = Path(__file__).resolve().parent / "results"
LEVELS = ("fast", "thorough", "exhaustive")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--questions", type=int, default=60)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    service = QueryService(use_env_llm=False)
    store = service.resources("demo").store
    items = generate(store, max(1, args.questions // 4), args.seed)
    service.ask(items[0].question)  # warm the embedding model and caches
    times: dict[str, list[float]] = {level: [] for level in LEVELS}
    sizes: dict[str, list[int]] = {level: [] for level in LEVELS}
    guarantees: dict[str, Counter[str]] = {level: Counter() for level in LEVELS}
    for item in items:
        for level in LEVELS:
            started = time.perf_counter()
            try:
                response = service.ask(item.question, level=level, max_results=20)
            except PlanningError:
                break
            times[level].append((time.perf_counter() - started) * 1000)
            sizes[level].append(response.total)
            guarantee = response.completeness.guarantee
            guarantees[level]["calibrated" if not guarantee.startswith("none") else "none"] += 1
    fast = statistics.median(times["fast"])
    rows: list[dict[str, Any]] = []
    for level in LEVELS:
        p50 = statistics.median(times[level])
        rows.append(
            {
                "level": level,
                "n": len(times[level]),
                "p50_ms": p50,
                "p95_ms": sorted(times[level])[int(0.95 * (len(times[level]) - 1))],
                "ratio_to_fast": p50 / fast,
                "median_answers": statistics.median(sizes[level]),
                "guarantees": dict(guarantees[level]),
            }
        )
    figures = {"rows": rows, "seed": args.seed, "python": platform.python_version()}
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "ask_latency.json").write_text(json.dumps(figures, indent=2) + "\n")
    lines = [
        "# `ask` latency on the demo KG (no LLM)",
        "",
        f"`python benchmarks/ask_latency.py --questions {args.questions}` — end to end (plan, "
        "gated execution, template report, grounding), interleaved levels, warm process; "
        f"Python {figures['python']}.",
        "",
        "| level | n | p50 ms | p95 ms | p50 / fast | median answers | calibrated / none |",
        "|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        counts = row["guarantees"]
        lines.append(
            f"| {row['level']} | {row['n']} | {row['p50_ms']:.1f} | {row['p95_ms']:.1f} | "
            f"{row['ratio_to_fast']:.2f}× | {row['median_answers']:.0f} | "
            f"{counts.get('calibrated', 0)} / {counts.get('none', 0)} |"
        )
    thorough = rows[1]["ratio_to_fast"]
    lines += [
        "",
        f"Targets: fast p50 ≤ 300 ms — {fast:.1f} ms, {'met' if fast <= 300 else '**missed**'}; "
        f"thorough ≤ 1.10× fast — {thorough:.2f}×, "
        f"{'met' if float(thorough) <= 1.10 else '**missed**'}.",
        "",
    ]
    page = "\n".join(lines)
    (RESULTS / "ask_latency.md").write_text(page)
    print(page)


if __name__ == "__main__":
    main()
