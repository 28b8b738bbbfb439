"""Link-prediction spike: accuracy, training time, model size and scoring latency.

    python benchmarks/linkpred.py [--datasets umls kinships nations demo] [--demo-budget 600]
                                  [--budget SECONDS]
    python benchmarks/linkpred.py --compare [--datasets ...] [--budget 300] [--threads 1]
                                  [--models ultra ultra-ft rotate rules ultra+rules]

``--compare`` puts the completion models of the registry side by side on the same splits:
ULTRA zero-shot, ULTRA fine-tuned (``--budget`` seconds), RotatE (``--budget`` seconds), the
path rules mined from the train split and the ``ultra+rules`` ensemble (the default model);
filtered MRR / Hits@10 overall and per relation, scoring ms per 1,000 triples and per
all-tails query; writes benchmarks/results/linkpred_models.{md,json} (rows kept by dataset and
model, so ``--models`` reruns some of them).

Rows are kept in benchmarks/results/linkpred.json by label (dataset, plus the budget when one
is set), so runs of single datasets add to the table instead of replacing it.

Trains RotatE (dim 200, LCWA up to 2,000 entities, sLCWA above, early stopping on filtered
validation MRR) per dataset and measures, in the same process, the fast scorer against
PyKEEN's own ``score_hrt`` on the same 1,000 triples. Writes benchmarks/results/linkpred.md.
Targets (issue 4): UMLS MRR ≥ 0.85 in ≤ 5 min; 1,000-triple scoring p50 ≤ 5 ms; all tails
for one (h, r) on the demo KG p50 ≤ 10 ms.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import torch

from kgrecall.kg import NetworkXStore, build_demo_kg
from kgrecall.kg.loaders import build_store, load_pykeen_dataset
from kgrecall.tools.linkpred import (
    CompletionModel,
    LinkPredictor,
    RankMetrics,
    TrainingConfig,
    UltraCompletion,
    evaluate_triples,
    fine_tune,
)
from kgrecall.tools.linkpred.evaluation import evaluate_completion, graph_of
from kgrecall.tools.linkpred.predictor import _resolve_splits
from kgrecall.tools.linkpred.registry import pretrained

RESULTS = Path(__file__).resolve().parent / "results" / "linkpred.md"
ROWS = RESULTS.with_suffix(".json")
#: Published / previously measured anchors for comparison.
ANCHORS = {"umls": "0.84–0.89 (H@10 ≈ 0.99)", "kinships": "≈ 0.84", "nations": "≈ 0.70"}


def p50_ms(action: Callable[[], object], repeats: int = 50) -> float:
    action()  # warm-up
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e3


def load(name: str) -> NetworkXStore:
    if name == "demo":
        return build_demo_kg(progress=False)
    return build_store([load_pykeen_dataset(name)], name=name)


def run(name: str, budget: float | None) -> dict[str, object]:
    store = load(name)
    config = TrainingConfig(time_budget_s=budget)
    predictor = LinkPredictor.train(store, config, progress=True)
    with tempfile.TemporaryDirectory() as folder:
        size_mb = predictor.save(Path(folder) / "m.pt").stat().st_size / 2**20
    generator = torch.Generator().manual_seed(0)
    n_entities, n_relations = len(predictor.entities), 2 * len(predictor.relations)
    batch = torch.stack(
        [
            torch.randint(n_entities, (1000,), generator=generator),
            torch.randint(n_relations, (1000,), generator=generator),
            torch.randint(n_entities, (1000,), generator=generator),
        ],
        dim=1,
    )
    labels = [
        (predictor.entities[h], predictor.relations[r // 2], predictor.entities[t])
        for h, r, t in batch.tolist()
    ]
    with torch.no_grad():
        pykeen_ms = p50_ms(lambda: predictor.model.score_hrt(batch))
    fast_ms = p50_ms(lambda: predictor.raw_scores(batch[:, 0], batch[:, 1], batch[:, 2]))
    api_ms = p50_ms(lambda: predictor.score(labels))
    head, relation = labels[0][0], labels[0][1]
    all_tails_ms = p50_ms(
        lambda: predictor.raw_scores_all_tails(batch[:1, 0], batch[:1, 1]), repeats=200
    )
    all_tails_api_ms = p50_ms(lambda: predictor.predict_tails([head], relation, k=100))
    report = predictor.report
    return {
        "dataset": name if budget is None else f"{name} (budget {budget:.0f} s)",
        "command": "python benchmarks/linkpred.py " + " ".join(sys.argv[1:]),
        "entities": n_entities,
        "triples": report.n_train + report.n_valid + report.n_test,
        "loop": report.training_loop,
        "epochs": f"{report.epochs} (best {report.best_epoch}, {report.stopped_by})",
        "train_s": report.seconds,
        "mrr": report.test.mrr,
        "h1": report.test.hits_at_1,
        "h3": report.test.hits_at_3,
        "h10": report.test.hits_at_10,
        "ece": report.calibration_ece,
        "params": report.n_parameters,
        "size_mb": size_mb,
        "pykeen_ms": pykeen_ms,
        "fast_ms": fast_ms,
        "api_ms": api_ms,
        "all_tails_ms": all_tails_ms,
        "all_tails_api_ms": all_tails_api_ms,
        "verdict": "GO" if report.test.go else "NO-GO",
    }


def write_report(rows: list[dict[str, object]]) -> str:
    commands = sorted({str(r["command"]).strip() for r in rows})
    lines = [
        "# Link-prediction spike",
        "",
        "Commands: " + ", ".join(f"`{c}`" for c in commands) + "  ",
        f"Machine: {platform.machine()}, {len(os.sched_getaffinity(0))} cores, torch "
        f"{torch.__version__}, CPU. RotatE, embedding dim 200, inverse relations, Adam lr 0.01, "
        "early stopping on filtered validation MRR (patience 3 × 10 epochs). Metrics: filtered, "
        "both sides, realistic ranks, on each dataset's test split (demo KG: seeded 80/10/10 "
        "split).",
        "",
        "| dataset | entities | triples | loop | epochs | train s | MRR | H@1 | H@3 | H@10 "
        "| anchor MRR | ECE | params | file MB | verdict |",
        "|---|---:|---:|---|---|---:|---:|---:|---:|---:|---|---:|---:|---:|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['dataset']} | {r['entities']:,} | {r['triples']:,} | {r['loop']} | "
            f"{r['epochs']} | {r['train_s']:.0f} | {r['mrr']:.3f} | {r['h1']:.3f} | "
            f"{r['h3']:.3f} | {r['h10']:.3f} | "
            f"{ANCHORS.get(str(r['dataset']).split(' ')[0], '—')} | "
            f"{r['ece']:.3f} | {r['params']:,} | {r['size_mb']:.1f} | {r['verdict']} |"
        )
    lines += [
        "",
        "Scoring latency (p50, same process, same random triples):",
        "",
        "| dataset | 1,000 triples: PyKEEN score_hrt ms | fast scorer ms | ratio | "
        "score() API ms | all tails one (h, r) ms | predict_tails k=100 ms |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        lines.append(
            f"| {r['dataset']} | {r['pykeen_ms']:.2f} | {r['fast_ms']:.2f} | "
            f"{float(r['pykeen_ms']) / float(r['fast_ms']):.1f}× | {r['api_ms']:.2f} | "
            f"{r['all_tails_ms']:.2f} | {r['all_tails_api_ms']:.2f} |"
        )
    lines += [
        "",
        "Targets: UMLS MRR ≥ 0.85 trained in ≤ 5 min; 1,000-triple scoring ≤ 5 ms p50 (spec "
        "limit 200 ms); all tails for one (h, r) on the demo KG ≤ 10 ms. The score() API adds "
        "label lookup and result objects to the fast scorer.",
    ]
    return "\n".join(lines) + "\n"


COMPARED = RESULTS.with_name("linkpred_models.md")
#: Test triples per dataset in the comparison (both directions each); None: the whole split.
COMPARE_TEST_LIMIT = 1000


def splits_of(store: NetworkXStore) -> dict[str, list[tuple[str, str, str]]]:
    """The split every model is measured on: PyKEEN's own, else the seeded 80/10/10."""
    return {k: list(v) for k, v in _resolve_splits(store, TrainingConfig(), None).items()}


def ultra_metrics(
    model: UltraCompletion, store: NetworkXStore, split: dict[str, list[tuple[str, str, str]]]
) -> tuple[RankMetrics, dict[str, RankMetrics], float, float]:
    """Overall and per-relation metrics (graph = train split), ms per 1,000 triples and per
    all-tails query."""
    bound = model.bind_triples(sorted(n.id for n in store.nodes()), split["train"])
    test = split["test"][:COMPARE_TEST_LIMIT]
    known = split["valid"] + split["test"]
    overall = evaluate_triples(bound, test, filter_triples=known)
    per_relation = {
        relation: evaluate_triples(
            bound, [t for t in test if t[1] == relation], filter_triples=known
        )
        for relation in sorted({t[1] for t in test})
    }
    head, relation, _ = test[0]
    bound.tail_logits([head], relation)  # relation pass cached
    query_ms = p50_ms(lambda: bound.tail_logits([head], relation), repeats=10)
    # 1,000 triples: the all-tails passes their distinct (head, relation) pairs need
    pairs = sorted({(h, r) for h, r, _ in test[:1000]})
    start = time.perf_counter()
    for h, r in pairs:
        bound.tail_logits([h], r)
    triples_ms = (time.perf_counter() - start) * 1e3 * 1000 / len(test[:1000])
    return overall, per_relation, triples_ms, query_ms


def embedding_metrics(
    predictor: LinkPredictor, split: dict[str, list[tuple[str, str, str]]]
) -> tuple[RankMetrics, dict[str, RankMetrics], float, float]:
    test = split["test"][:COMPARE_TEST_LIMIT]
    overall = predictor.evaluate(test)
    per_relation = {
        relation: predictor.evaluate([t for t in test if t[1] == relation])
        for relation in sorted({t[1] for t in test})
    }
    ids = torch.tensor(
        [(predictor.entity_to_id[h], predictor.relation_to_id[r] * 2, predictor.entity_to_id[t])
         for h, r, t in test[:1000]]
    )  # fmt: skip
    triples_ms = p50_ms(lambda: predictor.raw_scores(ids[:, 0], ids[:, 1], ids[:, 2]))
    triples_ms *= 1000 / len(ids)
    query_ms = p50_ms(lambda: predictor.raw_scores_all_tails(ids[:1, 0], ids[:1, 1]))
    return overall, per_relation, triples_ms, query_ms


def bound_metrics(
    model: CompletionModel, store: NetworkXStore, split: dict[str, list[tuple[str, str, str]]]
) -> tuple[tuple[RankMetrics, dict[str, RankMetrics], float, float], float]:
    """Metrics through the model's set-level projection (any registered model), and the
    seconds binding took (rule mining)."""
    start = time.perf_counter()
    bound = model.bind(graph_of(store, split["train"]))
    bind_s = time.perf_counter() - start
    test = split["test"][:COMPARE_TEST_LIMIT]
    known = split["train"] + split["valid"] + split["test"]
    per_relation = {
        relation: evaluate_completion(bound, [t for t in test if t[1] == relation], known=known)
        for relation in sorted({t[1] for t in test})
    }
    total = sum(m.n_triples for m in per_relation.values())

    def mean(field: str) -> float:
        return sum(getattr(m, field) * m.n_triples for m in per_relation.values()) / total

    overall = RankMetrics(
        mean("mrr"), mean("hits_at_1"), mean("hits_at_3"), mean("hits_at_10"), total
    )
    position = {entity: i for i, entity in enumerate(bound.entity_ids)}

    def project(head: str, relation: str) -> None:
        weights = np.zeros(len(bound.entity_ids))
        weights[position[head]] = 1.0
        bound.project(weights, relation, inverse=False)

    head, relation, _ = test[0]
    query_ms = p50_ms(lambda: project(head, relation), repeats=10)
    pairs = sorted({(h, r) for h, r, _ in test[:1000]})
    start = time.perf_counter()
    for h, r in pairs:
        project(h, r)
    triples_ms = (time.perf_counter() - start) * 1e3 * 1000 / len(test[:1000])
    return (overall, per_relation, triples_ms, query_ms), bind_s


#: Rows ``--compare`` can produce (``--models``).
COMPARED_MODELS = ("ultra", "ultra-ft", "rotate", "rules", "ultra+rules")


def compare(name: str, budget: float, models: list[str]) -> list[dict[str, object]]:
    store = load(name)
    split = splits_of(store)
    rows: list[dict[str, object]] = []

    def add(label: str, model: CompletionModel, seconds: float, measured: tuple) -> None:  # type: ignore[type-arg]
        overall, per_relation, triples_ms, query_ms = measured
        rows.append(
            {
                "dataset": name, "model": label, "identifier": model.identifier,
                "train_s": seconds, "mrr": overall.mrr, "h10": overall.hits_at_10,
                "test_triples": overall.n_triples, "triples_ms": triples_ms,
                "query_ms": query_ms,
                "per_relation": {
                    r: {"mrr": m.mrr, "h10": m.hits_at_10, "n": m.n_triples}
                    for r, m in per_relation.items()
                },
            }
        )  # fmt: skip
        print(f"{name} {label}: MRR {overall.mrr:.3f} H@10 {overall.hits_at_10:.3f}", flush=True)

    zero_shot = pretrained("ultra")
    assert isinstance(zero_shot, UltraCompletion)
    if "ultra" in models:
        add("ULTRA 50g zero-shot", zero_shot, 0.0, ultra_metrics(zero_shot, store, split))
    if "ultra-ft" in models:
        start = time.perf_counter()
        tuned = fine_tune(zero_shot, store, budget_s=budget, progress=False)
        seconds = time.perf_counter() - start
        label = f"ULTRA 50g fine-tuned ({budget:.0f} s)"
        add(label, tuned, seconds, ultra_metrics(tuned, store, split))
    if "rotate" in models:
        predictor = LinkPredictor.train(store, TrainingConfig(time_budget_s=budget), progress=False)
        add(
            f"RotatE ({budget:.0f} s)",
            predictor,
            predictor.report.seconds,
            embedding_metrics(predictor, split),
        )
    for key, label in (("rules", "rules (mined at bind)"), ("ultra+rules", "ULTRA 50g + rules")):
        if key in models:
            model = pretrained(key)
            measured, bind_s = bound_metrics(model, store, split)
            add(label, model, bind_s, measured)
    return rows


def write_comparison(rows: list[dict[str, object]]) -> str:
    commands = sorted({str(r["command"]).strip() for r in rows})
    lines = [
        "# Completion models compared",
        "",
        "Commands: " + ", ".join(f"`{c}`" for c in commands) + "  ",
        f"Machine: {platform.machine()}, {len(os.sched_getaffinity(0))} cores, torch "
        f"{torch.__version__}, CPU, {torch.get_num_threads()} thread(s). Same split per dataset "
        "(PyKEEN's own; demo KG: seeded 80/10/10); ULTRA conditions on the train split; "
        f"filtered MRR / Hits@10 on both sides of the first {COMPARE_TEST_LIMIT} test triples. "
        "Fine-tuning and RotatE training share one wall-time budget; for the rules (and the "
        "ensemble) 'train s' is the rule mining when binding to the train split. ms / 1,000 "
        "triples: ULTRA, the rules and the ensemble run one all-tails projection per distinct "
        "(head, relation), RotatE scores the triples directly.",
        "",
        "| dataset | model | train s | MRR | H@10 | test triples | ms / 1,000 triples | "
        "ms / all-tails query |",
        "|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        lines.append(
            f"| {r['dataset']} | {r['model']} | {float(r['train_s']):.0f} | "
            f"{float(r['mrr']):.3f} | {float(r['h10']):.3f} | {r['test_triples']} | "
            f"{float(r['triples_ms']):.1f} | {float(r['query_ms']):.2f} |"
        )
    demo = [r for r in rows if r["dataset"] == "demo"]
    if demo:
        relations = sorted({rel for r in demo for rel in r["per_relation"]})  # type: ignore[attr-defined]
        lines += [
            "",
            "Demo KG, filtered MRR per relation (test triples in brackets):",
            "",
            "| relation | " + " | ".join(str(r["model"]) for r in demo) + " |",
            "|---|" + "---:|" * len(demo),
        ]
        for relation in relations:
            cells = []
            for r in demo:
                m = r["per_relation"].get(relation)  # type: ignore[attr-defined]
                cells.append(f"{m['mrr']:.3f} ({m['n']})" if m else "–")
            lines.append(f"| {relation} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--datasets", nargs="+", default=["umls", "kinships", "nations", "demo"])
    parser.add_argument("--demo-budget", type=float, default=600.0, help="seconds (demo KG)")
    parser.add_argument("--budget", type=float, default=None, help="seconds (other datasets)")
    parser.add_argument("--compare", action="store_true", help="ULTRA vs RotatE (see above)")
    parser.add_argument("--threads", type=int, default=len(os.sched_getaffinity(0)))
    parser.add_argument(
        "--models", nargs="+", choices=COMPARED_MODELS, default=list(COMPARED_MODELS)
    )
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    if args.compare:
        stored = COMPARED.with_suffix(".json")
        old = json.loads(stored.read_text()) if stored.exists() else []
        for name in args.datasets:
            print(f"== {name}", file=sys.stderr, flush=True)
            new = compare(name, args.budget or 300.0, args.models)
            for row in new:
                row["command"] = "python benchmarks/linkpred.py " + " ".join(sys.argv[1:])
            replaced = {(r["dataset"], r["model"]) for r in new}
            old = [r for r in old if (r["dataset"], r["model"]) not in replaced] + new
            order = {"umls": 0, "kinships": 1, "nations": 2, "demo": 3}
            old.sort(key=lambda r: order.get(str(r["dataset"]), 9))
            stored.write_text(json.dumps(old, indent=1), encoding="utf-8")
        COMPARED.write_text(write_comparison(old), encoding="utf-8")
        print(COMPARED.read_text())
        return
    rows = {str(r["dataset"]): r for r in json.loads(ROWS.read_text())} if ROWS.exists() else {}
    for name in args.datasets:
        print(f"== {name}", file=sys.stderr, flush=True)
        row = run(name, args.demo_budget if name == "demo" else args.budget)
        rows[str(row["dataset"])] = row
        ROWS.parent.mkdir(parents=True, exist_ok=True)
        ROWS.write_text(json.dumps(list(rows.values()), indent=1), encoding="utf-8")
    report = write_report(list(rows.values()))
    RESULTS.write_text(report, encoding="utf-8")
    print(report)


if __name__ == "__main__":
    main()
