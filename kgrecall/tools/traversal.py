"""Exact graph traversal: execute a ``QueryTree`` on a ``GraphStore``.

Two entry points. :func:`execute_sets` computes answer sets only (one ``project`` call per
hop — what calibration runs thousands of times). :func:`traverse` also returns, per answer,
the KG paths that produce it, as edges with their sources, and a score: the best path's
weakest edge confidence — the gate's scoring (:mod:`kgrecall.calibration.gate`: a path scores
the minimum over its edges, an answer the maximum over its paths), so ``kg_traverse`` and
``kg_query`` at the fast level rank answers alike. The ``max_paths`` paths kept per answer
are its best ones, so the score is exact however many paths there are.

Nothing is dropped silently. ``max_intermediate`` caps intermediate sets (sorted, first n
kept) and ``max_paths`` caps evidence paths per answer; either cap, when it bites, is
reported in the result.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Iterable
from dataclasses import dataclass, field

from kgrecall.kg import Edge, GraphStore, KGError
from kgrecall.tools.query import (
    EntityQuery,
    IntersectQuery,
    ProjectQuery,
    QueryNode,
    UnionQuery,
    fold,
    shape,
    topology,
)
from kgrecall.tools.results import Candidate, Evidence, EvidenceTriple

Path = tuple[Edge, ...]


@dataclass(slots=True)
class TraversalResult:
    """Answers of a query, best first, with what (if anything) was capped."""

    candidates: list[Candidate]
    topology: str
    truncations: list[str] = field(default_factory=list)
    elapsed_ms: float = 0.0

    @property
    def truncated(self) -> bool:
        return bool(self.truncations)

    @property
    def ids(self) -> set[str]:
        return {candidate.id for candidate in self.candidates}


def validate_query(store: GraphStore, node: QueryNode) -> None:
    """Unknown anchors raise with the closest ids; unknown relations and node types list the
    valid ones."""

    def check_hop(hop: ProjectQuery, _: None) -> None:
        store.schema.check_relation(hop.relation)
        for node_type in hop.types or ():
            store.schema.check_node_type(node_type)

    def check_anchor(leaf: EntityQuery) -> None:
        store.get_node(leaf.id)

    fold(node, check_anchor, check_hop, lambda _, __: None)


def of_types(store: GraphStore, entities: Iterable[str], hop: ProjectQuery) -> set[str]:
    """The ``entities`` the hop keeps: those of its node types (all when it names none)."""
    if hop.types is None:
        return set(entities)
    return {entity for entity in entities if store.get_node(entity).type in hop.types}


def _cap(values: set[str], cap: int | None, where: str, notes: list[str]) -> set[str]:
    if cap is None or len(values) <= cap:
        return values
    notes.append(f"{where}: {len(values)} entities, kept the first {cap} by id")
    return set(sorted(values)[:cap])


def execute_sets(
    store: GraphStore, node: QueryNode, *, max_intermediate: int | None = None
) -> tuple[set[str], list[str]]:
    """The exact answer set and the truncation notes (empty unless ``max_intermediate`` bit)."""
    validate_query(store, node)
    notes: list[str] = []
    return _sets(store, node, max_intermediate, notes), notes


def _sets(store: GraphStore, node: QueryNode, cap: int | None, notes: list[str]) -> set[str]:
    def project(hop: ProjectQuery, inputs: set[str]) -> set[str]:
        result = of_types(store, store.project(inputs, hop.relation, inverse=hop.inverse), hop)
        return _cap(result, cap, f"projection {shape(hop)} via {hop.relation}", notes)

    def join(node: IntersectQuery | UnionQuery, children: list[set[str]]) -> set[str]:
        return set.intersection(*children) if node.op == "intersect" else set.union(*children)

    return fold(node, lambda leaf: {leaf.id}, project, join)


def traverse(
    store: GraphStore,
    node: QueryNode,
    *,
    max_intermediate: int | None = None,
    max_paths: int = 3,
) -> TraversalResult:
    """Answers with evidence paths and scores (the best path's weakest edge confidence)."""
    if max_paths < 1:
        raise KGError(f"max_paths must be at least 1, got {max_paths}")
    start = time.perf_counter()
    validate_query(store, node)
    notes: list[str] = []
    paths = _paths(store, node, max_intermediate, max_paths, notes)
    candidates = []
    # Paths share their first hops; one (frozen) evidence triple per edge serves them all.
    triples: dict[tuple[str, str, str], EvidenceTriple] = {}

    def evidence_triple(edge: Edge) -> EvidenceTriple:
        found = triples.get(edge.triple)
        if found is None:
            found = triples[edge.triple] = _evidence_triple(edge)
        return found

    for answer, answer_paths in paths.items():
        entity = store.get_node(answer)
        ranked = _best_first(answer_paths)
        scores = [_path_score(p) for p in ranked]
        # Validated constructors: pydantic's compiled validation of these flat models is
        # about twice as fast as model_construct's Python loop (nested models already
        # built are not validated again).
        candidates.append(
            Candidate(
                id=answer,
                name=entity.name,
                type=entity.type,
                score=max(scores),
                tools=["graph_traversal"],
                evidence=[
                    Evidence(
                        kind="kg_path",
                        triples=[evidence_triple(e) for e in p],
                        model_score=None,
                        matched_text=None,
                    )
                    for p in ranked
                ],
                evidence_truncated=len(answer_paths) >= max_paths,
            )
        )
    candidates.sort(key=lambda c: (-c.score, c.id))
    elapsed = (time.perf_counter() - start) * 1e3
    return TraversalResult(candidates, topology(node), notes, elapsed)


def _evidence_triple(edge: Edge) -> EvidenceTriple:
    return EvidenceTriple(
        head=edge.head,
        relation=edge.relation,
        tail=edge.tail,
        sources=list(edge.sources),
        confidence=edge.confidence,
    )


def _path_score(path: Path) -> float:
    """A path's score: its weakest edge (Gödel t-norm, as in the gate); 1 for no edge."""
    return min((edge.confidence for edge in path), default=1.0)


def _best_first(paths: list[Path]) -> list[Path]:
    """``paths`` by score, best first (a stable sort: equal paths keep their order)."""
    return sorted(paths, key=lambda path: -_path_score(path))


def _keep_best(found: list[Path], path: Path, max_paths: int) -> None:
    """Add ``path`` to ``found`` (at most ``max_paths``), replacing the weakest kept path when
    ``path`` scores higher: the best path of every answer is always kept."""
    if len(found) < max_paths:
        found.append(path)
        return
    weakest = min(range(len(found)), key=lambda i: _path_score(found[i]))
    if _path_score(path) > _path_score(found[weakest]):
        found[weakest] = path


#: Answer → its best evidence paths.
_AnswerPaths = dict[str, list[Path]]


def _paths(
    store: GraphStore, node: QueryNode, cap: int | None, max_paths: int, notes: list[str]
) -> dict[str, list[Path]]:
    """Answer → its ``max_paths`` best evidence paths (edges from the anchors to the answer)."""

    def project(hop: ProjectQuery, inputs: _AnswerPaths) -> _AnswerPaths:
        result: _AnswerPaths = {}
        for edge in store.hop_edges(sorted(inputs), hop.relation, inverse=hop.inverse):
            source, target = (edge.tail, edge.head) if hop.inverse else (edge.head, edge.tail)
            found = result.setdefault(target, [])
            for prefix in inputs[source]:
                _keep_best(found, (*prefix, edge), max_paths)
        typed = of_types(store, result, hop)
        kept = _cap(typed, cap, f"projection {shape(hop)} via {hop.relation}", notes)
        return {answer: result[answer] for answer in sorted(kept)}

    def join(node: IntersectQuery | UnionQuery, children: list[_AnswerPaths]) -> _AnswerPaths:
        if node.op == "union":
            merged: _AnswerPaths = {}
            for child in children:
                for answer, answer_paths in child.items():
                    bucket = merged.setdefault(answer, [])
                    for path in answer_paths:
                        _keep_best(bucket, path, max_paths)
            return merged
        common = set.intersection(*(set(child) for child in children))
        joined: _AnswerPaths = {}
        for answer in sorted(common):
            # best first per branch: the first combination joins every branch's best path
            combinations = itertools.islice(
                itertools.product(*(_best_first(child[answer]) for child in children)), max_paths
            )
            joined[answer] = [tuple(e for part in combo for e in part) for combo in combinations]
        return joined

    return fold(node, lambda leaf: {leaf.id: [()]}, project, join)
