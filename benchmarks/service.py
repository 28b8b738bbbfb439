"""HTTP service benchmark: throughput and latency of ``POST /v1/query`` per level, loopback.

    python benchmarks/service.py [--requests 200] [--concurrency 50]
    python benchmarks/service.py --hostile   (issue #19's hostile mix: service_hostile.py)

Starts the API (uvicorn) in this process on 127.0.0.1, warms it, then for each level sends
``--requests`` questions (the planning generator's 1p/2p/2i/2u questions, in turn) with at
most ``--concurrency`` in flight, and records each request's latency, errors and the
throughput. Thorough and exhaustive use the workspace's calibrations (run ``make demo``
first). Writes benchmarks/results/service.md.
"""

from __future__ import annotations

import argparse
import asyncio
import platform
import socket
import statistics
import threading
import time
from pathlib import Path

import httpx
import uvicorn
from planning import generate

from kgrecall.agents import QueryService
from kgrecall.service import create_app

RESULTS = Path(__file__).resolve().parent / "results"
LEVELS = ("fast", "thorough", "exhaustive")


async def run_level(
    base: str, questions: list[str], level: str, total: int, concurrency: int
) -> dict[str, float]:
    gate = asyncio.Semaphore(concurrency)
    latencies: list[float] = []
    statuses: list[int] = []
    limits = httpx.Limits(max_connections=concurrency)
    async with httpx.AsyncClient(base_url=base, timeout=300, limits=limits) as client:

        async def one(i: int) -> None:
            async with gate:
                started = time.perf_counter()
                reply = await client.post(
                    "/v1/query",
                    json={"query": questions[i % len(questions)], "completeness": level,
                          "max_results": 20},
                )  # fmt: skip
                latencies.append((time.perf_counter() - started) * 1000)
                statuses.append(reply.status_code)

        started = time.perf_counter()
        await asyncio.gather(*(one(i) for i in range(total)))
        wall = time.perf_counter() - started
    ordered = sorted(latencies)
    return {
        "p50_ms": statistics.median(ordered),
        "p99_ms": ordered[int(0.99 * (len(ordered) - 1))],
        "throughput_rps": total / wall,
        "errors": float(sum(status != 200 for status in statuses)),
        "planning_422": float(sum(status == 422 for status in statuses)),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--concurrency", type=int, default=50)
    parser.add_argument(
        "--hostile",
        action="store_true",
        help="3 rounds of 100 normal questions, quiet then beside 10 hostile clients",
    )
    args = parser.parse_args()
    if args.hostile:
        from service_hostile import main as hostile

        hostile()
        return
    service = QueryService(use_env_llm=False)
    store = service.resources("demo").store
    questions = [item.question for item in generate(store, 10, seed=2)]
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    app = create_app(service, admin_key="benchmark")
    config = uvicorn.Config(
        app, host="127.0.0.1", port=port, log_level="error", timeout_keep_alive=300
    )
    server = uvicorn.Server(config)  # long keep-alive: pooled connections wait in the queue
    threading.Thread(target=server.run, daemon=True).start()
    while not server.started:
        time.sleep(0.05)
    base = f"http://127.0.0.1:{port}"
    asyncio.run(run_level(base, questions, "fast", 10, 2))  # warm up
    rows = {
        level: asyncio.run(run_level(base, questions, level, args.requests, args.concurrency))
        for level in LEVELS
    }
    server.should_exit = True
    fast = rows["fast"]["p50_ms"]
    lines = [
        "# HTTP service benchmark (demo KG, loopback, no LLM)",
        "",
        f"`python benchmarks/service.py --requests {args.requests} --concurrency "
        f"{args.concurrency}` — uvicorn in-process on 127.0.0.1, `POST /v1/query` with "
        f"templated 1p/2p/2i/2u questions, max_results 20, grounding on; Python "
        f"{platform.python_version()}, 2 CPU cores.",
        "",
        "| level | requests | errors | p50 ms | p99 ms | p50 / fast | requests/s |",
        "|---|---|---|---|---|---|---|",
    ]
    for level, row in rows.items():
        lines.append(
            f"| {level} | {args.requests} | {row['errors']:.0f} | {row['p50_ms']:.0f} | "
            f"{row['p99_ms']:.0f} | {row['p50_ms'] / fast:.2f}× | {row['throughput_rps']:.1f} |"
        )
    lines.append("")
    page = "\n".join(lines)
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "service.md").write_text(page)
    print(page)


if __name__ == "__main__":
    main()
