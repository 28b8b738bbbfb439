"""Planning benchmark: templated questions from the demo KG → the offline planner's QueryTrees.

    python benchmarks/planning.py [--per-topology 100] [--seed 0]

For each topology (1p, 2p, 2i, 2u) questions are generated from real anchors of the demo KG
(names unique in the KG) with varied wording: openers ("Which", "List all", "Find", none),
several phrasings per relation and direction ("genes associated with / linked to /
implicated in …", "phenotypes / symptoms / clinical features of …"), and for 2i/2u both
"both … and" / "either … or" and bare "and" / "or", with the same or different relations.
The gold tree is the one the question was written from. Scored: exact match of the tree
(intersections and unions order-insensitive), anchor accuracy (the anchors' ids), relation
accuracy (relations with their directions), failures (PlanningError), anchors flagged
ambiguous, plan latency. Writes benchmarks/results/planning.{md,json}.
Target (issue 7): exact match ≥ 0.9 for 1p/2p/2i/2u with the offline planner.
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import statistics
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from linking import equivalents  # benchmarks/linking.py: same entity under other records

from kgrecall.agents import PlanningError, QueryService
from kgrecall.kg import GraphStore
from kgrecall.tools import execute_sets, parse_query

RESULTS = Path(__file__).resolve().parent / "results"
TOPOLOGIES = ("1p", "2p", "2i", "2u")
OPENERS = ["Which ", "What ", "List all ", "Find the ", "Show me ", ""]


@dataclass(frozen=True)
class Spec:
    """One relation in one direction, and how questions say it."""

    relation: str
    inverse: bool
    given: str  # node type of the input
    answer: str  # node type of the answers
    answer_words: tuple[str, ...]  # "genes"
    phrases: tuple[str, ...]  # "associated with" (after the answer words)


SPECS = [
    Spec("associated_with", True, "disease", "gene", ("genes",),
         ("associated with", "linked to", "implicated in", "that are associated with",
          "that have been linked to", "known to be associated with", "related to")),
    Spec("associated_with", False, "gene", "disease", ("diseases", "disorders"),
         ("associated with", "linked to", "that are associated with")),
    Spec("has_phenotype", False, "disease", "phenotype", ("phenotypes", "symptoms"), ("of",)),
    Spec("has_phenotype", True, "phenotype", "disease", ("diseases", "disorders"),
         ("that have the phenotype", "presenting with", "characterized by", "that show",
          "that manifest with")),
    Spec("has_phenotype", True, "phenotype", "gene", ("genes",), ("that have the phenotype",)),
    Spec("encodes", False, "gene", "protein", ("proteins",), ("encoded by",)),
    Spec("encodes", True, "protein", "gene", ("genes",), ("that encode", "encoding")),
    Spec("interacts_with", False, "protein", "protein", ("proteins",),
         ("that interact with", "interacting with", "that bind")),
    Spec("subclass_of", True, "phenotype", "phenotype", ("",), ("subtypes of", "subclasses of")),
]  # fmt: skip


@dataclass
class Item:
    """One generated question and the tree it was written from."""

    topology: str
    question: str
    gold: dict[str, object]


def unique_names(store: GraphStore) -> dict[str, str]:
    counts = Counter(n.name.casefold() for n in store.nodes())
    return {n.id: n.name for n in store.nodes() if counts[n.name.casefold()] == 1}


def project(spec: Spec, inner: dict[str, object]) -> dict[str, object]:
    return {"op": "project", "relation": spec.relation, "inverse": spec.inverse, "input": inner}


def wording(spec: Spec, rng: random.Random) -> str:
    """ "genes associated with" — the answer words, then the relation phrase."""
    words = rng.choice(spec.answer_words)
    return f"{words} {rng.choice(spec.phrases)}".strip()


def anchors_for(store: GraphStore, spec: Spec, names: dict[str, str]) -> list[str]:
    """Entities of the spec's input type with at least one edge of its relation, named."""
    found = set()
    for edge in store.edges():
        if edge.relation != spec.relation:
            continue
        given = edge.tail if spec.inverse else edge.head
        if given in names and store.get_node(given).type == spec.given:
            found.add(given)
    return sorted(found)


def generate(store: GraphStore, per_topology: int, seed: int) -> list[Item]:
    rng = random.Random(seed)
    names = unique_names(store)
    pools = {id(spec): anchors_for(store, spec, names) for spec in SPECS}
    usable = [s for s in SPECS if pools[id(s)]]
    items: list[Item] = []

    def entity(spec: Spec) -> tuple[str, dict[str, object]]:
        anchor = rng.choice(pools[id(spec)])
        return names[anchor], {"op": "entity", "id": anchor}

    def answers(tree: dict[str, object]) -> set[str]:
        found: set[str] = execute_sets(store, parse_query(tree))[0]
        return found

    while sum(i.topology == "1p" for i in items) < per_topology:
        spec = rng.choice(usable)
        name, leaf = entity(spec)
        items.append(
            Item("1p", f"{rng.choice(OPENERS)}{wording(spec, rng)} {name}?", project(spec, leaf))
        )
    chains = [
        (o, i) for o in usable for i in usable if o.given == i.answer and i.answer_words != ("",)
    ]
    while sum(i.topology == "2p" for i in items) < per_topology:
        outer, inner = rng.choice(chains)
        name, leaf = entity(inner)
        tree = project(outer, project(inner, leaf))
        if not answers(tree):
            continue
        text = f"{rng.choice(OPENERS)}{wording(outer, rng)} {wording(inner, rng)} {name}?"
        items.append(Item("2p", text, tree))
    for topology, joiner, marker, op in (
        ("2i", "and", "both", "intersect"),
        ("2u", "or", "either", "union"),
    ):
        made = 0
        while made < per_topology:
            first = rng.choice([s for s in usable if s.answer_words != ("",)])
            same = rng.random() < 0.6
            second = (
                first
                if same
                else rng.choice(
                    [
                        s
                        for s in usable
                        if s.answer == first.answer and s is not first and s.phrases[0] != "of"
                    ]
                    or [first]
                )
            )
            if first.phrases == ("of",) and second is not first:
                continue
            (name_a, leaf_a), (name_b, leaf_b) = entity(first), entity(second)
            if name_a == name_b:
                continue
            tree = {"op": op, "inputs": [project(first, leaf_a), project(second, leaf_b)]}
            if op == "intersect" and not answers(tree):
                continue
            opener, lead = rng.choice(OPENERS), wording(first, rng)
            if second is first:
                glue = f" {marker} " if rng.random() < 0.5 else " "
                text = f"{opener}{lead}{glue}{name_a} {joiner} {name_b}?"
            else:
                text = f"{opener}{lead} {name_a} {joiner} {rng.choice(second.phrases)} {name_b}?"
            items.append(Item(topology, text, tree))
            made += 1
    return items


def canonical(tree: object) -> object:
    """Order-insensitive form of a tree (inputs of ∩ / ∪ sorted), without node types
    (:func:`untyped`)."""
    tree = untyped(tree)
    if isinstance(tree, dict):
        out = {k: canonical(v) for k, v in tree.items()}
        if "inputs" in out and isinstance(out["inputs"], list):
            out["inputs"] = sorted(out["inputs"], key=lambda t: json.dumps(t, sort_keys=True))
        return out
    return tree


def untyped(tree: object) -> object:
    """The tree without the node types its hops keep: the gold trees cannot name them, and
    the planner names only the type the question asks for ("disorders presenting with …":
    diseases)."""
    if isinstance(tree, dict):
        return {k: untyped(v) for k, v in tree.items() if k != "types"}
    if isinstance(tree, list):
        return [untyped(item) for item in tree]
    return tree


def up_to_records(tree: object, same: dict[str, set[str]]) -> object:
    """The tree with each anchor replaced by one id of its entity (a disease has an OMIM and
    an Orphanet record sharing a MONDO id: either is the entity the question names)."""
    if isinstance(tree, dict):
        if tree.get("op") == "entity":
            return {**tree, "id": min(same.get(str(tree["id"]), {str(tree["id"])}))}
        return {k: up_to_records(v, same) for k, v in tree.items()}
    if isinstance(tree, list):
        return [up_to_records(v, same) for v in tree]
    return tree


def parts(tree: object, key: str) -> Counter[str]:
    """The multiset of anchors (key "id") or of relation+direction (key "relation")."""
    found: Counter[str] = Counter()
    if isinstance(tree, dict):
        if key == "id" and tree.get("op") == "entity":
            found[str(tree["id"])] += 1
        if key == "relation" and tree.get("op") == "project":
            found[f"{tree['relation']}{'⁻¹' if tree['inverse'] else ''}"] += 1
        for value in tree.values():
            found += parts(value, key)
    elif isinstance(tree, list):
        for value in tree:
            found += parts(value, key)
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--per-topology", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--show-misses", type=int, default=10)
    args = parser.parse_args()
    service = QueryService(use_env_llm=False)
    planner = service.resources("demo").planner
    store = service.resources("demo").store
    items = generate(store, args.per_topology, args.seed)
    same = equivalents(store)
    planner.plan(items[0].question)  # warm the embedding model
    rows: dict[str, Counter[str]] = {t: Counter() for t in TOPOLOGIES}
    latencies: list[float] = []
    misses: list[str] = []
    for item in items:
        row = rows[item.topology]
        row["n"] += 1
        started = time.perf_counter()
        try:
            plan = planner.plan(item.question)
        except PlanningError as error:
            row["failed"] += 1
            misses.append(f"{item.topology} | {item.question} | PlanningError: {error}")
            continue
        latencies.append((time.perf_counter() - started) * 1000)
        planned = plan.query.model_dump()
        exact = canonical(planned) == canonical(item.gold)
        row["exact"] += exact
        row["exact_up_to_records"] += canonical(up_to_records(planned, same)) == canonical(
            up_to_records(item.gold, same)
        )
        row["anchors"] += parts(planned, "id") == parts(item.gold, "id")
        row["relations"] += parts(planned, "relation") == parts(item.gold, "relation")
        row["ambiguous"] += plan.ambiguous
        if not exact:
            misses.append(f"{item.topology} | {item.question} | got {json.dumps(planned)}")
    figures = {
        "per_topology": {t: dict(r) for t, r in rows.items()},
        "plan_ms_p50": statistics.median(latencies),
        "plan_ms_p95": sorted(latencies)[int(0.95 * (len(latencies) - 1))],
        "questions": len(items),
        "seed": args.seed,
        "python": platform.python_version(),
        "misses": misses,
    }
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "planning.json").write_text(json.dumps(figures, indent=2, ensure_ascii=False) + "\n")
    page = markdown(figures, args.show_misses)
    (RESULTS / "planning.md").write_text(page)
    print(page)


def markdown(figures: dict[str, object], show: int) -> str:
    rows: dict[str, dict[str, int]] = figures["per_topology"]  # type: ignore[assignment]
    misses: list[str] = figures["misses"]  # type: ignore[assignment]
    lines = [
        "# Planning benchmark (demo KG, offline planner)",
        "",
        f"`python benchmarks/planning.py` — {figures['questions']} templated questions, seed "
        f"{figures['seed']}, Python {figures['python']}; plan latency p50 "
        f"{float(figures['plan_ms_p50']):.1f} ms, p95 {float(figures['plan_ms_p95']):.1f} ms "  # type: ignore[arg-type]
        "(entity linking included).",
        "",
        "Exact match compares anchor ids; *up to records* counts an anchor right when it is "
        "another record of the same entity (a disease's OMIM and Orphanet records share a "
        "MONDO id, and since the KG carries MONDO names both answer to them; the planner flags "
        "such anchors ambiguous).",
        "",
        "| topology | n | exact match | target ≥ 0.9 | up to records | anchors | relations "
        "| failed | ambiguous |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for name, row in rows.items():
        n = row.get("n", 0) or 1
        exact = row.get("exact", 0) / n
        verdict = "met" if exact >= 0.9 else "**missed**"
        lines.append(
            f"| {name} | {row.get('n', 0)} | {exact:.3f} | {verdict} "
            f"| {row.get('exact_up_to_records', 0) / n:.3f} | {row.get('anchors', 0) / n:.3f} "
            f"| {row.get('relations', 0) / n:.3f} "
            f"| {row.get('failed', 0)} | {row.get('ambiguous', 0)} |"
        )
    lines += ["", f"First {min(show, len(misses))} of {len(misses)} misses:", ""]
    lines += [f"- {miss}" for miss in misses[:show]]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
