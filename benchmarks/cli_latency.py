"""Wall time of the ``kgrecall`` command in fresh processes, imports and loading included.

    python benchmarks/cli_latency.py [--runs 5]

What a user waits for on a warm demo home (after ``make demo``): ``kgrecall --help``,
``kgrecall ground`` of a one-page report, and ``kgrecall ask`` at the fast level (no LLM) — also
of a question with a word the reader does not know, which it looks up by fuzzy search (BM25 and
the sentence embedder) — and at the thorough level (reported: it loads torch and the completion
model). One untimed run of each command first (what a previous run left in the home — mined
rules, the fulltext index — is part of a warm home), then the median (and min / max) of
``--runs`` runs each. Writes ``benchmarks/results/cli_latency.md``.
Targets (issue #18): ``--help`` ≤ 1 s, ``ask`` ≤ 3 s; (issue #17) ``ground`` ≤ 3 s.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"
REPORT = HERE / "data" / "grounding" / "r01.md"
QUESTION = "Which genes are associated with Parkinson disease 4?"
#: "like" is no word of the reader's grammar: the run of words around it is looked up fuzzily.
FREE_QUESTION = "What genes cause phenotypes like chorea?"
#: command → (arguments, target in seconds; None: reported, no target).
COMMANDS: dict[str, tuple[list[str], float | None]] = {
    "kgrecall --help": (["--help"], 1.0),
    "kgrecall ground r01.md": (["ground", str(REPORT), "--kg", "demo"], 3.0),
    "kgrecall ask (fast)": (["ask", QUESTION, "--level", "fast"], 3.0),
    "kgrecall ask (fast, fuzzy lookup)": (["ask", FREE_QUESTION, "--level", "fast"], 3.0),
    # loads torch, ULTRA and the rules: what a calibrated answer costs a fresh process
    "kgrecall ask (thorough)": (["ask", QUESTION, "--level", "thorough"], None),
}


def wall_times(arguments: list[str], runs: int) -> list[float]:
    """Seconds per run of ``kgrecall ARGUMENTS`` in a fresh process."""
    command = shutil.which("kgrecall") or "kgrecall"
    environment = {**os.environ, "HF_HUB_OFFLINE": "1"}
    subprocess.run([command, *arguments], check=True, capture_output=True, env=environment)
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run([command, *arguments], check=True, capture_output=True, env=environment)
        times.append(time.perf_counter() - started)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    rows = []
    figures: dict[str, dict[str, float]] = {}
    for name, (arguments, target) in COMMANDS.items():
        times = wall_times(arguments, args.runs)
        median = statistics.median(times)
        figures[name] = {"median_s": median, "min_s": min(times), "max_s": max(times)}
        if target is None:
            verdict = "–"
        else:
            verdict = f"≤ {target:g} s: " + ("met" if median <= target else "**missed**")
        rows.append(
            f"| `{name}` | {median:.2f} s | {min(times):.2f}–{max(times):.2f} s | {verdict} |"
        )
    page = "\n".join(
        [
            "# Command-line latency (demo KG, warm home)",
            "",
            f"`python benchmarks/cli_latency.py --runs {args.runs}` — fresh process per run, "
            f"imports and loading included; {platform.machine()}, {os.cpu_count()} cores, "
            f"Python {platform.python_version()}.",
            "",
            "| command | median | range | target |",
            "|---|---|---|---|",
            *rows,
            "",
        ]
    )
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "cli_latency.json").write_text(json.dumps(figures, indent=2) + "\n")
    (RESULTS / "cli_latency.md").write_text(page)
    print(page)


if __name__ == "__main__":
    main()
