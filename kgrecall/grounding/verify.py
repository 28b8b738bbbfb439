"""Path verification: label a claim by the KG paths between the entities it mentions.

For consecutive entity mentions of a claim (in text order) kgrecall searches the KG, ignoring
direction, for the shortest path of at most ``max_depth`` hops whose *intermediate* nodes are
not hubs (degree ≥ ``hub_degree``: ontology roots and generic terms connect almost anything,
so a path through them proves nothing). Labels per pair: **grounded** (1–2 hops),
**inferred** (3+ hops, or only through hubs), **ungrounded** (no path: unverifiable, not
false); a claim takes its weakest pair's label, and a claim without two entities in the KG is
**trivial** (no biological entities) or **ungrounded** (one entity, nothing to connect).

Relation awareness: a predicate word in the claim ("inhibits", "activates", "treats",
"associated with", …) is mapped to KG relations; the direct edge's relation either matches,
differs, or is the *opposite* (activates vs inhibits, up- vs down-regulation) — a conflict.
A negated claim ("does not", "no association", "fails to") with a path is a conflict too.
Edges with provenance ``auto_learned`` never count (no self-grounding).

Confidence (documented rule): base 1.0 (1 hop), 0.85 (2), 0.6 (3), 0.45 (4+), 0.3 (only via
hubs), 0 (no path); × 1.0 when the predicate matches the first edge's relation, 0.8 when no
predicate is recognised, 0.6 when it differs; × 0.2 on a conflict.
"""

from __future__ import annotations

import itertools
import re
from collections import deque
from dataclasses import dataclass, field
from typing import Literal

from kgrecall.kg import Edge, GraphStore

Label = Literal["grounded", "inferred", "ungrounded", "trivial"]
_ORDER: dict[str, int] = {"grounded": 3, "inferred": 2, "ungrounded": 1, "trivial": 0}
AUTO_LEARNED = "auto_learned"

_UP = {"positively_regulates", "activates"}
_DOWN = {"negatively_regulates", "inhibits"}
#: Claim wording → KG relations it asserts (first match wins, longest phrases first).
PREDICATES: list[tuple[re.Pattern[str], frozenset[str]]] = [
    (re.compile(p, re.IGNORECASE), frozenset(r))
    for p, r in [
        (r"\b(up-?regulat\w*|increas\w*|enhanc\w*|promot\w*|induc\w*)", _UP),
        (r"\b(down-?regulat\w*|decreas\w*|suppress\w*|reduc\w*|repress\w*)", _DOWN),
        (r"\b(inhibit\w*|block\w*|antagoni\w*)", {"inhibits", "negatively_regulates"}),
        (r"\b(activat\w*|stimulat\w*|agonis\w*)", {"activates", "positively_regulates"}),
        (r"\btreat\w*", {"treats"}),
        (r"\btarget\w*", {"targets"}),
        (r"\bencod\w*", {"encodes"}),
        (r"\b(interact\w*|bind\w*|binds)", {"interacts_with"}),
        (r"\bexpress\w*", {"expressed_in"}),
        (r"\b(phenotype|manifest\w*|present\w* with|symptom\w*|feature\w*)", {"has_phenotype"}),
        (r"\b(involved in|participat\w*|pathway)", {"involved_in"}),
        (r"\bpart of\b", {"part_of"}),
        (r"\b(associat\w*|linked|cause\w*|implicated|risk)", {"associated_with"}),
        (r"\bregulat\w*", {"regulates", "positively_regulates", "negatively_regulates"}),
        (r"\b(is an?|subtype of|kind of|type of)\b", {"subclass_of"}),
    ]
]  # fmt: skip
#: Relations that contradict each other on the same pair.
OPPOSITES: dict[str, frozenset[str]] = {
    "activates": frozenset({"inhibits", "negatively_regulates"}),
    "positively_regulates": frozenset({"inhibits", "negatively_regulates"}),
    "inhibits": frozenset({"activates", "positively_regulates"}),
    "negatively_regulates": frozenset({"activates", "positively_regulates"}),
}
NEGATION = re.compile(
    r"\b(not|no|never|none|neither|nor|cannot|fails? to|failed to|lack of|absence of|"
    r"without|(?:is|are|was|were|does|do|did|has|have)n't)\b",
    re.IGNORECASE,
)


@dataclass(frozen=True, slots=True)
class PairVerdict:
    """What the KG says about one pair of mentioned entities."""

    source: str
    target: str
    label: Label
    path: tuple[Edge, ...]
    through_hubs: bool
    conflict: str | None = None


@dataclass(slots=True)
class ClaimVerdict:
    """A claim's label, its evidence and its confidence."""

    label: Label
    pairs: list[PairVerdict] = field(default_factory=list)
    predicate: frozenset[str] = frozenset()
    negated: bool = False
    conflicts: list[str] = field(default_factory=list)
    confidence: float | None = None


class PathVerifier:
    """Labels entity pairs and claims by degree-bounded, hub-avoiding KG paths."""

    def __init__(self, store: GraphStore, *, max_depth: int = 4, hub_degree: int = 200) -> None:
        self.store = store
        self.max_depth = max_depth
        self.hub_degree = hub_degree
        self._degree: dict[str, int] = {}

    def degree(self, entity: str) -> int:
        if entity not in self._degree:
            self._degree[entity] = len(self._edges(entity))
        return self._degree[entity]

    def _edges(self, entity: str) -> list[Edge]:
        return [
            e for e in self.store.neighbors(entity, direction="both")
            if AUTO_LEARNED not in e.sources
        ]  # fmt: skip

    def verify_pair(self, source: str, target: str) -> PairVerdict:
        """Shortest hub-free path (else shortest path through hubs), labelled."""
        path = self._search(source, target, avoid_hubs=True)
        through_hubs = False
        if path is None:
            path = self._search(source, target, avoid_hubs=False)
            through_hubs = path is not None
        if path is None:
            return PairVerdict(source, target, "ungrounded", (), False)
        label: Label = "grounded" if len(path) <= 2 and not through_hubs else "inferred"
        return PairVerdict(source, target, label, path, through_hubs)

    def _search(self, source: str, target: str, *, avoid_hubs: bool) -> tuple[Edge, ...] | None:
        """Breadth-first search (undirected) up to ``max_depth`` hops."""
        if source == target:
            return ()
        parents: dict[str, tuple[str, Edge] | None] = {source: None}
        frontier = deque([(source, 0)])
        while frontier:
            node, depth = frontier.popleft()
            if depth >= self.max_depth:
                continue
            if node != source and avoid_hubs and self.degree(node) >= self.hub_degree:
                continue  # a hub may end a path, never carry one
            for edge in sorted(self._edges(node), key=lambda e: e.triple):
                other = edge.tail if edge.head == node else edge.head
                if other in parents:
                    continue
                parents[other] = (node, edge)
                if other == target:
                    return _walk_back(parents, target)
                frontier.append((other, depth + 1))
        return None

    def verify_claim(self, text: str, entities: list[str]) -> ClaimVerdict:
        """Label a claim from its mentioned entity ids (KG ids, in text order)."""
        unique = list(dict.fromkeys(e for e in entities if self.store.has_node(e)))
        predicate = next((r for pattern, r in PREDICATES if pattern.search(text)), frozenset())
        negated = NEGATION.search(text) is not None
        if not unique:
            return ClaimVerdict("trivial", predicate=predicate, negated=negated)
        if len(unique) == 1:
            return ClaimVerdict("ungrounded", predicate=predicate, negated=negated, confidence=0.0)
        pairs = [self.verify_pair(a, b) for a, b in itertools.pairwise(unique)]
        verdict = ClaimVerdict(
            min((p.label for p in pairs), key=_ORDER.__getitem__),
            pairs=pairs,
            predicate=predicate,
            negated=negated,
        )
        for pair in pairs:
            direct = [e.relation for e in pair.path[:1]] if len(pair.path) == 1 else []
            opposite = {r for claimed in predicate for r in OPPOSITES.get(claimed, ())}
            clash = sorted(set(direct) & opposite)
            if clash:
                verdict.conflicts.append(
                    f"the KG says {pair.source} {clash[0]} {pair.target}, the claim the opposite"
                )
            if negated and pair.path:
                verdict.conflicts.append(
                    f"the claim is negated but the KG connects {pair.source} and {pair.target}"
                )
        verdict.confidence = _confidence(verdict)
        return verdict


def _walk_back(parents: dict[str, tuple[str, Edge] | None], target: str) -> tuple[Edge, ...]:
    edges: list[Edge] = []
    node = target
    while (step := parents[node]) is not None:
        node, edge = step
        edges.append(edge)
    return tuple(reversed(edges))


def _confidence(verdict: ClaimVerdict) -> float:
    """The documented rule (module docstring), for the claim's weakest pair."""
    weakest = min(verdict.pairs, key=lambda p: (_ORDER[p.label], -len(p.path)))
    hops = len(weakest.path)
    if not weakest.path:
        base = 0.0
    elif weakest.through_hubs:
        base = 0.3
    else:
        base = {1: 1.0, 2: 0.85, 3: 0.6}.get(hops, 0.45)
    first = weakest.path[0].relation if weakest.path else None
    if not verdict.predicate:
        factor = 0.8
    elif first in verdict.predicate:
        factor = 1.0
    else:
        factor = 0.6
    penalty = 0.2 if verdict.conflicts else 1.0
    return round(base * factor * penalty, 4)
