"""Issue #19's hostile mix: 10 hostile requests kept in flight beside 100 normal questions.

    python benchmarks/service.py --hostile   (runs this module)

Starts ``kgrecall serve`` as its own process on 127.0.0.1 (so its peak RSS is its own, read
from /proc), preloads the demo KG, then sends the same 100 normal ``POST /v1/query`` requests
in rounds — quiet, then with 10 hostile clients each resending one of the issue's reproductions
as soon as it is answered — while a probe polls ``/v1/health`` every 100 ms. Reports per
phase the normal p50/p99, health p50/p99, the hostile replies by status, and the server's RSS
before and at peak. Writes benchmarks/results/service_hostile.md.
"""

from __future__ import annotations

import asyncio
import os
import platform
import socket
import statistics
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import httpx

RESULTS = Path(__file__).resolve().parent / "results"
NORMAL_QUESTIONS = (
    "Which genes are associated with Parkinson disease 4?",
    "What are the phenotypes of Parkinson disease 8?",
    "Which diseases are associated with LRRK2?",
    "Which genes are associated with both Parkinson disease 4 and Parkinson disease 8?",
)
PD4_GENES = {
    "op": "project",
    "relation": "associated_with",
    "inverse": True,
    "input": {"op": "entity", "id": "OMIM:605543"},
}


def _chain(depth: int) -> dict[str, object]:
    tree: dict[str, object] = {"op": "entity", "id": "OMIM:605543"}
    for level in range(depth):
        tree = {"op": "project", "relation": "has_phenotype", "inverse": level % 2 == 1,
                "input": tree}  # fmt: skip
    return tree


def _chunks(total: int) -> object:
    async def body() -> object:
        piece = b'{"report": "' + b"x" * 65_000
        for _ in range(total // 65_000):
            yield piece

    return body()


#: (name, method, path, JSON body or a factory of a streamed body) — the issue's rows.
HOSTILE: list[tuple[str, str, dict[str, object] | Callable[[], object]]] = [
    ("40 k dots", "/v1/ground", {"report": "SNCA is associated with PD4" + "." * 40_000 + "x"}),
    ("!? runs", "/v1/ground", {"report": "SNCA is associated with PD4" + "!?" * 20_000 + "x"}),
    ("table separator", "/v1/ground", {"report": "| --" + " " * 32_000 + "x"}),
    ("8 k identifiers", "/v1/ground", {"report": "SNCA " + "HP:0001300 " * 8_000}),
    ("140 KB report", "/v1/ground", {
        "report": "SNCA is associated with Parkinson disease 4 and binds LRRK2. " * 2_300}),
    ("10 k-branch union", "/v1/query/structured", {
        "query": {"op": "union", "inputs": [PD4_GENES] * 10_000}}),
    ("depth-250 chain", "/v1/query/structured", {"query": _chain(250)}),
    ("largest valid tree", "/v1/query/structured", {
        "query": {"op": "union", "inputs": [_chain(6)] * 9}, "completeness": "exhaustive",
        "max_results": 1000}),
    ("9 MB chunked", "/v1/ground", lambda: _chunks(9_000_000)),
    ("NaN / unknown KG", "/v1/query", {"query": "x", "recall_target": "NaN",
                                        "database": "nope"}),
]  # fmt: skip


@dataclass
class Phase:
    normal_ms: list[float] = field(default_factory=list)
    normal_status: Counter[int] = field(default_factory=Counter)
    health_ms: list[float] = field(default_factory=list)
    hostile: dict[str, Counter[int]] = field(default_factory=dict)
    hostile_ms: dict[str, list[float]] = field(default_factory=dict)
    response_bytes: dict[str, int] = field(default_factory=dict)


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))] if ordered else float("nan")


async def run_phase(base: str, normal: int, concurrency: int, hostile: bool) -> Phase:
    phase = Phase()
    done = asyncio.Event()
    timeout = httpx.Timeout(300.0)
    async with httpx.AsyncClient(base_url=base, timeout=timeout) as client:

        async def health() -> None:
            while not done.is_set():
                started = time.perf_counter()
                await client.get("/v1/health")
                phase.health_ms.append((time.perf_counter() - started) * 1000)
                await asyncio.sleep(0.1)

        async def attacker(name: str, path: str, body: object) -> None:
            while not done.is_set():
                started = time.perf_counter()
                try:
                    if callable(body):
                        reply = await client.post(path, content=body())
                    else:
                        reply = await client.post(path, json=body)
                    status, size = reply.status_code, len(reply.content)
                except httpx.HTTPError:
                    status, size = 0, 0  # the server closed the connection
                phase.hostile.setdefault(name, Counter())[status] += 1
                phase.hostile_ms.setdefault(name, []).append((time.perf_counter() - started) * 1000)
                phase.response_bytes[name] = max(phase.response_bytes.get(name, 0), size)

        gate = asyncio.Semaphore(concurrency)

        async def one(i: int) -> None:
            async with gate:
                started = time.perf_counter()
                reply = await client.post(
                    "/v1/query",
                    json={"query": NORMAL_QUESTIONS[i % len(NORMAL_QUESTIONS)],
                          "completeness": "thorough", "max_results": 20},
                )  # fmt: skip
                phase.normal_ms.append((time.perf_counter() - started) * 1000)
                phase.normal_status[reply.status_code] += 1

        background = [asyncio.create_task(health())]
        if hostile:
            background += [asyncio.create_task(attacker(*row)) for row in HOSTILE]
            await asyncio.sleep(1.0)  # the hostile requests are in flight first
        await asyncio.gather(*(one(i) for i in range(normal)))
        done.set()
        await asyncio.gather(*background)
    return phase


def rss_kb(pid: int) -> tuple[int, int]:
    """(current, peak) resident set size of ``pid`` in KiB."""
    fields = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        fields[key] = value.strip()
    return int(fields["VmRSS"].split()[0]), int(fields["VmHWM"].split()[0])


def main(normal: int = 100, concurrency: int = 4, rounds: int = 3) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "KGRECALL_ADMIN_KEY": "benchmark"}
    server = subprocess.Popen(
        [sys.executable, "-m", "kgrecall", "serve", "--port", str(port), "--preload", "demo"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{port}"
    measured: list[Round] = []
    try:
        deadline = time.monotonic() + 600
        while time.monotonic() < deadline:
            try:
                warm = httpx.post(
                    f"{base}/v1/query", json={"query": NORMAL_QUESTIONS[0]}, timeout=60
                )
                if warm.status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            time.sleep(1.0)
        else:
            raise SystemExit("the server did not answer within 10 minutes")
        for question in NORMAL_QUESTIONS:  # warm every path once
            httpx.post(f"{base}/v1/query", json={"query": question, "completeness": "thorough"},
                       timeout=120)  # fmt: skip
        before, _ = rss_kb(server.pid)
        for _ in range(rounds):  # adjacent quiet and hostile phases: drift cancels in the ratio
            started = time.perf_counter()
            quiet = asyncio.run(run_phase(base, normal, concurrency, hostile=False))
            quiet_s = time.perf_counter() - started
            _, quiet_peak = rss_kb(server.pid)
            started = time.perf_counter()
            mixed = asyncio.run(run_phase(base, normal, concurrency, hostile=True))
            measured.append(Round(quiet, mixed, quiet_s, time.perf_counter() - started, quiet_peak))
        after, peak = rss_kb(server.pid)
        alive = httpx.get(f"{base}/v1/health", timeout=10).status_code
    finally:
        server.terminate()
        server.wait(30)
    write(normal, concurrency, measured, (before, after, peak), alive)


@dataclass
class Round:
    """One quiet phase and the hostile phase right after it."""

    quiet: Phase
    mixed: Phase
    quiet_s: float
    mixed_s: float
    quiet_peak_kb: int

    @property
    def ratio(self) -> float:
        return statistics.median(self.mixed.normal_ms) / statistics.median(self.quiet.normal_ms)


def write(
    normal: int, concurrency: int, rounds: list[Round], rss: tuple[int, int, int], alive: int
) -> None:
    before, after, peak = rss
    ratio = statistics.median(r.ratio for r in rounds)
    health = [ms for r in rounds for ms in r.mixed.health_ms]
    health_p99 = percentile(health, 0.99)
    normal_status: Counter[int] = sum((r.mixed.normal_status for r in rounds), Counter())
    peak_gb = peak / 1024**2
    lines = [
        "# HTTP service under a hostile mix (demo KG, loopback, no LLM)",
        "",
        f"`python benchmarks/service.py --hostile` — `kgrecall serve --preload demo` in its own "
        f"process (default request timeout 60 s); {len(rounds)} rounds, each {normal} normal "
        f"`POST /v1/query` questions (thorough, max_results 20, grounding on; {concurrency} in "
        f"flight) quiet, then the same with {len(HOSTILE)} hostile clients each resending one "
        f"of issue #19's reproductions; a probe polls `/v1/health` every 100 ms. Each round's "
        f"ratio compares two adjacent phases (the machine's speed drifts between runs); the "
        f"figure is the median over rounds. Python {platform.python_version()}, "
        f"{os.cpu_count()} CPU cores.",
        "",
        "| target (issue #19) | figure | verdict |",
        "|---|---|---|",
        f"| `/v1/health` p99 ≤ 1 s with the hostile requests in flight | {health_p99:.0f} ms "
        f"({len(health)} probes) | {'met' if health_p99 <= 1000 else '**missed**'} |",
        f"| normal `/v1/query` p50 ≤ 2× quiet (median over rounds) | "
        f"{', '.join(f'{r.ratio:.2f}×' for r in rounds)} → **{ratio:.2f}×** | "
        f"{'met' if ratio <= 2 else '**missed**'} |",
        f"| peak RSS ≤ 1.5 GB | {peak_gb:.2f} GB (before the first round {before / 1024**2:.2f} "
        f"GB, after the last {after / 1024**2:.2f} GB) | "
        f"{'met' if peak_gb <= 1.5 else '**missed**'} |",
        f"| the server keeps serving | `/v1/health` {alive} after the mix; normal replies "
        f"{dict(normal_status)} | {'met' if alive == 200 else '**missed**'} |",
        "",
        "| round | phase | wall s | normal p50 ms | normal p99 ms | health p50 ms | health p99 ms "
        "| peak RSS GB so far |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for number, measured in enumerate(rounds, 1):
        phases = (
            ("quiet", measured.quiet, measured.quiet_s),
            ("hostile", measured.mixed, measured.mixed_s),
        )
        for name, phase, wall in phases:
            peak_so_far = f"{measured.quiet_peak_kb / 1024**2:.2f}" if name == "quiet" else "–"
            lines.append(
                f"| {number} | {name} | {wall:.1f} | {statistics.median(phase.normal_ms):.0f} | "
                f"{percentile(phase.normal_ms, 0.99):.0f} | "
                f"{statistics.median(phase.health_ms):.0f} | "
                f"{percentile(phase.health_ms, 0.99):.0f} | {peak_so_far} |"
            )
    lines += [
        "",
        "All hostile phases together:",
        "",
        "| hostile request | replies by status | median ms | largest reply (bytes) |",
        "|---|---|---|---|",
    ]
    for name, _, _ in HOSTILE:
        statuses: Counter[int] = sum(
            (r.mixed.hostile.get(name, Counter()) for r in rounds), Counter()
        )
        times = [ms for r in rounds for ms in r.mixed.hostile_ms.get(name, [])]
        largest = max(r.mixed.response_bytes.get(name, 0) for r in rounds)
        median = f"{statistics.median(times):.0f}" if times else "–"
        listed = ", ".join(f"{k}: {v}" for k, v in sorted(statuses.items()))
        lines.append(f"| {name} | {listed} | {median} | {largest} |")
    lines.append("")
    page = "\n".join(lines)
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "service_hostile.md").write_text(page)
    print(page)


if __name__ == "__main__":
    main()
