"""Path verification: label a claim by the KG paths between the entities it mentions.

For consecutive entity mentions of a claim (in text order) kgrecall searches the KG, ignoring
direction, for the shortest path of at most ``max_depth`` hops whose *intermediate* nodes are
not hubs (degree ≥ ``hub_degree``: ontology roots and generic terms connect almost anything,
so a path through them proves nothing). Labels per pair: **grounded** (1–2 hops),
**inferred** (3+ hops, or only through hubs), **ungrounded** (no path: unverifiable, not
false); a claim takes its weakest pair's label. A claim with no biological entity at all is
**trivial**; one with entities of which fewer than two are in the KG is **ungrounded**
(nothing to connect).

Relation awareness: a predicate word in the claim ("inhibits", "activates", "treats",
"associated with", …) is mapped to KG relations and compared with *every* direct edge between
the pair. Conflicts (reported, and they cut confidence): the direct edges carry only the
*opposite* relation (activates vs inhibits, up- vs down-regulation); they carry only other
relations (the claim says "treats", the KG says "has_phenotype" — "associated with" is generic
and matches any relation); the claim states a directed relation (inhibits, activates, treats,
targets, encodes, regulates) against the edge's direction ("B encodes A" when the KG says
A encodes B; the passive "A is encoded by B" reverses the order); the claim is negated ("does
not", "no association", "fails to") yet the KG connects the pair. A pair without a direct edge
(2+ hops) is not checked for relation or direction: the claim may be an indirect statement.
Edges with provenance ``auto_learned`` never count (no self-grounding).

Confidence (documented rule): base 1.0 (1 hop), 0.85 (2), 0.6 (3), 0.45 (4+), 0.3 (only via
hubs), 0 (no path); × 1.0 when the predicate matches the first edge's relation, 0.8 when no
predicate is recognised, 0.6 when it differs from the first edge of a longer path; × 0.2 on
a conflict.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field
from typing import Literal

from kgrecall.kg import Edge, GraphStore
from kgrecall.kg.deadline import check_deadline
from kgrecall.kg.relations import CLAIM_WORDINGS, RELATIONS

Label = Literal["grounded", "inferred", "ungrounded", "trivial"]
_ORDER: dict[str, int] = {"grounded": 3, "inferred": 2, "ungrounded": 1, "trivial": 0}
AUTO_LEARNED = "auto_learned"

#: Claim wording → (KG relations it asserts, whether its subject is the edge's tail); the
#: first match wins (from the relation registry).
PREDICATES: list[tuple[re.Pattern[str], frozenset[str], bool]] = [
    (re.compile(pattern, re.IGNORECASE), relations, inverse)
    for pattern, relations, inverse in CLAIM_WORDINGS
]
#: Relations that contradict each other on the same pair.
OPPOSITES: dict[str, frozenset[str]] = {
    name: relation.opposites for name, relation in RELATIONS.items() if relation.opposites
}
#: Claimed relations that say nothing about the kind of link: any direct edge matches them.
GENERIC = frozenset(name for name, relation in RELATIONS.items() if relation.generic)
#: Relations whose claim wording fixes a direction (subject → object).
DIRECTED = frozenset(name for name, relation in RELATIONS.items() if relation.directed_claims)
_PASSIVE = re.compile(
    r"\b(?:is|are|was|were|be|been|being)\s+(?:\w+ly\s+)?\w+(?:ed|en|d)\s+by\b", re.IGNORECASE
)
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
    """Labels entity pairs and claims by degree-bounded, hub-avoiding KG paths.

    Neighbourhoods are cached: the verifier reads the KG as it was when first asked about
    a node, so build a new one after changing curated edges (auto-learned edges never count).
    """

    def __init__(self, store: GraphStore, *, max_depth: int = 4, hub_degree: int = 200) -> None:
        self.store = store
        self.max_depth = max_depth
        self.hub_degree = hub_degree
        self._adjacency: dict[str, list[tuple[str, Edge]]] = {}

    def degree(self, entity: str) -> int:
        """Number of edges at ``entity`` (either direction, auto-learned ones left out)."""
        return len(self._neighbours(entity))

    def _neighbours(self, entity: str) -> list[tuple[str, Edge]]:
        """(other end, edge) for each counted edge at ``entity``, in a fixed order."""
        cached = self._adjacency.get(entity)
        if cached is None:
            edges = [
                e for e in self.store.neighbors(entity, direction="both")
                if AUTO_LEARNED not in e.sources
            ]  # fmt: skip
            edges.sort(key=lambda e: (e.head, e.relation, e.tail))
            cached = [(e.tail if e.head == entity else e.head, e) for e in edges]
            self._adjacency[entity] = cached
        return cached

    def _edges(self, entity: str) -> list[Edge]:
        return [edge for _, edge in self._neighbours(entity)]

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
        """Bidirectional breadth-first search (undirected) for a shortest path of at most
        ``max_depth`` hops; with ``avoid_hubs`` no hub may be an intermediate node."""
        if source == target:
            return ()
        sides = (_Side(source), _Side(target))
        while sides[0].frontier and sides[1].frontier:
            if sides[0].depth + sides[1].depth >= self.max_depth:
                return None
            grow, other = sides if len(sides[0].frontier) <= len(sides[1].frontier) else sides[::-1]
            meetings: list[str] = []
            grow.depth += 1
            next_frontier: list[str] = []
            for node in grow.frontier:
                check_deadline()  # a search can visit much of the KG: stop when timed out
                if node != grow.root and avoid_hubs and self.degree(node) >= self.hub_degree:
                    continue  # a hub may end a path, never carry one
                for neighbour, edge in self._neighbours(node):
                    if neighbour in grow.parents:
                        continue
                    grow.parents[neighbour] = (node, edge)
                    next_frontier.append(neighbour)
                    if neighbour in other.parents and (
                        not avoid_hubs
                        or neighbour in (source, target)
                        or self.degree(neighbour) < self.hub_degree
                    ):
                        meetings.append(neighbour)
            grow.frontier = next_frontier
            if meetings:
                meet = min(meetings, key=lambda m: (sides[1].distance(m), m))
                return sides[0].path_to(meet) + sides[1].path_to(meet)[::-1]
        return None

    def verify_claim(self, text: str, entities: list[str]) -> ClaimVerdict:
        """Label a claim from its mentioned entity ids (in text order; ids outside the KG make
        the claim unverifiable, not trivial)."""
        mentioned = list(dict.fromkeys(entities))
        unique = [e for e in mentioned if self.store.has_node(e)]
        predicate, inverse_wording = next(
            ((r, inverse) for pattern, r, inverse in PREDICATES if pattern.search(text)),
            (frozenset(), False),
        )
        negated = NEGATION.search(text) is not None
        if not mentioned:
            return ClaimVerdict("trivial", predicate=predicate, negated=negated)
        if len(unique) < 2:
            return ClaimVerdict("ungrounded", predicate=predicate, negated=negated, confidence=0.0)
        pairs = [self.verify_pair(a, b) for a, b in itertools.pairwise(unique)]
        verdict = ClaimVerdict(
            min((p.label for p in pairs), key=_ORDER.__getitem__),
            pairs=pairs,
            predicate=predicate,
            negated=negated,
        )
        # "B is inhibited by A" and "dystonia is a symptom of X" name the edge's tail first
        reversed_wording = (_PASSIVE.search(text) is not None) != inverse_wording
        for pair in pairs:
            if negated and pair.path:
                verdict.conflicts.append(
                    f"the claim is negated but the KG connects {pair.source} and {pair.target}"
                )
            if len(pair.path) == 1 and predicate:
                subject, obj = (
                    (pair.target, pair.source) if reversed_wording else (pair.source, pair.target)
                )
                verdict.conflicts.extend(self._relation_conflicts(predicate, subject, obj))
        verdict.confidence = _confidence(verdict)
        return verdict

    def _relation_conflicts(self, claimed: frozenset[str], subject: str, obj: str) -> list[str]:
        """What the direct edges between ``subject`` and ``obj`` say against the claim."""
        direct = [e for e in self._edges(subject) if obj in (e.head, e.tail) and e.head != e.tail]
        relations = {e.relation for e in direct}
        if not direct or claimed & GENERIC or relations & claimed - DIRECTED:
            return []
        forward = {e.relation for e in direct if e.head == subject}
        if forward & claimed:
            return []
        if relations & claimed:
            relation = sorted(relations & claimed)[0]
            return [f"direction: the KG says {obj} {relation} {subject}, the claim the reverse"]
        opposite = {r for c in claimed for r in OPPOSITES.get(c, ())}
        if relations & opposite:
            relation = sorted(relations & opposite)[0]
            return [f"the KG says {_arrow(direct, relation)}, the claim the opposite"]
        return [
            f"the claim says {'/'.join(sorted(claimed))}, the KG relates {subject} and {obj} "
            f"only by {', '.join(sorted(relations))}"
        ]


def _arrow(edges: list[Edge], relation: str) -> str:
    edge = next(e for e in edges if e.relation == relation)
    return f"{edge.head} {relation} {edge.tail}"


class _Side:
    """One end of a bidirectional search: what it reached, and how."""

    def __init__(self, root: str) -> None:
        self.root = root
        self.depth = 0
        self.frontier = [root]
        self.parents: dict[str, tuple[str, Edge] | None] = {root: None}

    def path_to(self, node: str) -> tuple[Edge, ...]:
        """Edges from the root to ``node``."""
        edges: list[Edge] = []
        while (step := self.parents[node]) is not None:
            node, edge = step
            edges.append(edge)
        return tuple(reversed(edges))

    def distance(self, node: str) -> int:
        return len(self.path_to(node))


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
