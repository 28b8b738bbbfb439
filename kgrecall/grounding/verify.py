"""Path verification: label a claim by the KG paths between the entities it asserts about.

For each pair of mentions the claim asserts a relation between (read by
:mod:`~kgrecall.grounding.reading`: predicates, subjects and objects, clauses) kgrecall searches
the KG, ignoring direction, for the shortest path of at most ``max_depth`` hops whose
*intermediate* nodes are not hubs (degree ≥ ``hub_degree``: ontology roots and generic terms
connect almost anything, so a path through them proves nothing). A gene and the protein it
encodes count as one end (text names both alike). Labels per pair: **grounded** (1–2 hops),
**inferred** (3+ hops, or only through hubs), **ungrounded** (no path, or an end the KG does
not hold: unverifiable, not false); a claim takes its weakest pair's label. A claim with no
biological entity at all, or whose names only name a setting ("the movement disorders
clinic", "a dystonia panel"), is **trivial**; one with a single entity is **ungrounded** (nothing
to connect).

Relation awareness, per pair, against *every* direct edge between it. Conflicts (reported,
and they cut confidence): the direct edges carry only the *opposite* relation (activates vs
inhibits); they carry only other relations (the claim says "treats", the KG says
"has_phenotype" — "associated with" is generic and matches any relation); the claim states a
directed relation (hierarchy, part-of, phenotype, encodes, regulation, targets, treats) against
the edge's direction ("tremor is a type of resting tremor"; the passive "A is encoded by B" and
"Y is a symptom of X" name the tail first); the claim denies a relation the KG holds as a
direct edge. A pair without a direct
edge is not checked for relation or direction (the claim may be an indirect statement), and
denying it is no contradiction: the KG cannot confirm an absence, so a denied pair without a
direct edge is **ungrounded**. Edges with provenance
``auto_learned`` never count (no self-grounding).

Confidence (documented rule): base 1.0 (1 hop), 0.85 (2), 0.6 (3), 0.45 (4+), 0.3 (only via
hubs), 0 (ungrounded); × 1.0 when the pair's claimed relation matches the first edge's
relation, 0.8 when the claim names no relation for it, 0.6 when it differs from the first
edge of a longer path; × 0.2 on a conflict.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Literal

from kgrecall.grounding.reading import NEGATION, Assertion, read_assertions
from kgrecall.kg import Edge, GraphStore, PathServer, RelationSignature, relation_signatures
from kgrecall.kg.deadline import check_deadline
from kgrecall.kg.relations import CLAIM_WORDINGS, RELATIONS

Label = Literal["grounded", "inferred", "ungrounded", "trivial"]
#: After a name, a word that makes it the name of a setting, not a subject: "movement
#: disorders clinic", "dystonia panel", "ligand–receptor resources".
_SETTING = re.compile(
    r"(?:\s*[–-]\s*\w+)?\s+(?:journal\s+)?(?:clinics?|panels?|services?|clubs?|teams?|units?|"
    r"wards?|resources?|databases?|registr(?:y|ies)|consorti(?:um|a)|meetings?|conferences?|"
    r"cent(?:re|er)s?|societ(?:y|ies)|foundations?|rotations?)\b",
    re.IGNORECASE,
)
#: A bracket opening right after a mention, and closing right after the next: a gloss.
_GLOSS_BETWEEN = re.compile(r"\s*\(\s*")
_GLOSS_AFTER = re.compile(r"\s*\)")
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
#: Relations a claimed one is a finer statement of: their edges do not contradict it.
REFINES: dict[str, frozenset[str]] = {
    name: relation.refines for name, relation in RELATIONS.items() if relation.refines
}
#: Claimed relations that say nothing about the kind of link: any direct edge matches them.
GENERIC = frozenset(name for name, relation in RELATIONS.items() if relation.generic)
#: Relations whose claim wording fixes a direction (subject → object).
DIRECTED = frozenset(name for name, relation in RELATIONS.items() if relation.directed_claims)
#: Node types a claim names alike (a gene and the protein it encodes).
_GENE_LIKE = frozenset({"gene", "protein"})
#: Relations whose two ends a claim names alike (a gene and the protein it encodes).
IDENTITY = frozenset(name for name, relation in RELATIONS.items() if relation.same_name)
#: Relations whose wordings ("found in", "seen in", "presents with") also say, loosely, that
#: two things go together.
_LOOSE = frozenset({"has_phenotype"})


@dataclass(frozen=True, slots=True)
class PairVerdict:
    """What the KG says about one pair of mentioned entities."""

    source: str
    target: str
    label: Label
    path: tuple[Edge, ...]
    through_hubs: bool
    conflict: str | None = None
    #: What the claim says of the pair: its relations (empty: none named) and whether denied.
    relations: frozenset[str] = frozenset()
    negated: bool = False
    #: Why the label is what it is, where the path alone does not say.
    note: str | None = None


@dataclass(slots=True)
class ClaimVerdict:
    """A claim's label, its evidence and its confidence."""

    label: Label
    pairs: list[PairVerdict] = field(default_factory=list)
    predicate: frozenset[str] = frozenset()
    negated: bool = False
    conflicts: list[str] = field(default_factory=list)
    confidence: float | None = None
    notes: list[str] = field(default_factory=list)


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
        sources, targets = self.identities(source), self.identities(target)
        path = self._path(sources, targets, avoid_hubs=True)
        through_hubs = False
        if path is None:
            path = self._path(sources, targets, avoid_hubs=False)
            through_hubs = path is not None
        if path is None:
            return PairVerdict(source, target, "ungrounded", (), False)
        # a gene and the protein it encodes are one entity: the step between them is no hop
        hops = sum(edge.relation not in IDENTITY for edge in path)
        label: Label = "grounded" if hops <= 2 and not through_hubs else "inferred"
        return PairVerdict(source, target, label, path, through_hubs)

    def _path(
        self, sources: list[str], targets: list[str], *, avoid_hubs: bool
    ) -> tuple[Edge, ...] | None:
        """A shortest path as :meth:`_search` finds it: asked of the store where it searches
        server-side (a KG in Neo4j), else searched here over the cached neighbourhoods."""
        if set(sources) & set(targets):
            return ()
        if isinstance(self.store, PathServer):
            return self.store.hub_free_path(
                sources,
                targets,
                max_depth=self.max_depth,
                hub_degree=self.hub_degree if avoid_hubs else None,
                excluded_source=AUTO_LEARNED,
            )
        return self._search(sources, targets, avoid_hubs=avoid_hubs)

    def _search(
        self, sources: list[str], targets: list[str], *, avoid_hubs: bool
    ) -> tuple[Edge, ...] | None:
        """Bidirectional breadth-first search (undirected) for a shortest path of at most
        ``max_depth`` hops from any source to any target; with ``avoid_hubs`` no hub may be an
        intermediate node."""
        sides = (_Side(sources), _Side(targets))
        while sides[0].frontier and sides[1].frontier:
            if sides[0].depth + sides[1].depth >= self.max_depth:
                return None
            grow, other = sides if len(sides[0].frontier) <= len(sides[1].frontier) else sides[::-1]
            meetings: list[str] = []
            grow.depth += 1
            next_frontier: list[str] = []
            for node in grow.frontier:
                check_deadline()  # a search can visit much of the KG: stop when timed out
                if node not in grow.roots and avoid_hubs and self.degree(node) >= self.hub_degree:
                    continue  # a hub may end a path, never carry one
                for neighbour, edge in self._neighbours(node):
                    if neighbour in grow.parents:
                        continue
                    grow.parents[neighbour] = (node, edge)
                    next_frontier.append(neighbour)
                    if neighbour in other.parents and (
                        not avoid_hubs
                        or neighbour in grow.roots
                        or neighbour in other.roots
                        or self.degree(neighbour) < self.hub_degree
                    ):
                        meetings.append(neighbour)
            grow.frontier = next_frontier
            if meetings:
                meet = min(meetings, key=lambda m: (sides[1].distance(m), m))
                return sides[0].path_to(meet) + sides[1].path_to(meet)[::-1]
        return None

    def verify_claim(
        self,
        text: str,
        mentions: Sequence[tuple[str, int, int]],
        weak: Collection[int] = (),
        alternatives: Sequence[Sequence[str]] = (),
        places: Collection[int] = (),
        procedures: Collection[int] = (),
        assertions: Sequence[Assertion] | None = None,
    ) -> ClaimVerdict:
        """Label a claim from its mentions ``(entity id, start, end)`` in ``text`` (names
        masked, see :mod:`~kgrecall.grounding.reading`): each pair the claim asserts (read from
        the wording, or the ``assertions`` given: an LLM's reading) is checked
        for a path, its relation, its direction and its negation; the claim takes its weakest
        pair's label. Ids outside the KG make a pair unverifiable, not trivial; ``weak``
        mentions (vocabulary terms) count only in pairs a predicate asserts, ``places`` (body parts
        and cells among them) not as what a claim goes on to say something about, and
        ``procedures`` (tests) in no pair. An asserted pair whose types are none of the claimed
        relation's (head type, tail type) pairs takes the first of its ``alternatives`` that
        are ("VPS35 is associated with PARK17": the disease, not the gene whose old symbol
        PARK17 is)."""
        if not mentions or all(_SETTING.match(text, end) for _, _, end in mentions):
            # nothing biological is said: "the movement disorders clinic", "a dystonia panel"
            predicate = next((r for pattern, r, _ in PREDICATES if pattern.search(text)), None)
            negated = NEGATION.search(text) is not None
            return ClaimVerdict("trivial", predicate=predicate or frozenset(), negated=negated)
        ids = [entity for entity, _, _ in mentions]
        spans = [(start, end) for _, start, end in mentions]
        read = (
            read_assertions(text, spans, weak, ids, places, procedures)
            if assertions is None
            else list(assertions)
        )
        if alternatives:
            self._fit_types(ids, read, alternatives)
        glosses = self._same_type_glosses(text, spans, ids)
        kept = [a for a in read if ids[a.subject] != ids[a.object]]
        twins = _gloss_twins(kept, glosses, ids)
        pairs = _best_of_glosses(
            [*kept, *twins],
            [
                self._assertion(*self._related_readings(ids, alternatives, a), a)
                for a in (*kept, *twins)
            ],
            len(kept),
            glosses,
            ids,
        )
        if not pairs:  # one entity (or one named twice): nothing to connect
            return ClaimVerdict("ungrounded", confidence=0.0)
        verdict = ClaimVerdict(
            min((p.label for p in pairs), key=_ORDER.__getitem__),
            pairs=pairs,
            predicate=frozenset().union(*(p.relations for p in pairs)),
            negated=any(p.negated for p in pairs),
            conflicts=[p.conflict for p in pairs if p.conflict],
            notes=[p.note for p in pairs if p.note and p.negated],  # the rest: entities listed
        )
        verdict.confidence = _confidence(verdict)
        return verdict

    def _same_type_glosses(
        self, text: str, spans: Sequence[tuple[int, int]], ids: Sequence[str]
    ) -> dict[int, int]:
        """Each mention followed by a mention of its own type in brackets, mapped to that
        gloss: "autosomal dominant HSP (SPG4)" names one disease twice, the second time more
        precisely. A gloss of another type names something else ("DGUOK (MTDPS3)": the gene's
        disease, a pair of its own)."""
        return {
            index: index + 1
            for index in range(len(spans) - 1)
            if _GLOSS_BETWEEN.fullmatch(text, spans[index][1], spans[index + 1][0])
            and _GLOSS_AFTER.match(text, spans[index + 1][1])
            and self._type(ids[index]) is not None
            and self._type(ids[index]) == self._type(ids[index + 1])
        }

    @cached_property
    def _signatures(self) -> dict[str, RelationSignature]:
        return relation_signatures(self.store)

    def _type(self, entity: str) -> str | None:
        return self.store.get_node(entity).type if self.store.has_node(entity) else None

    def _fit_types(
        self, ids: list[str], assertions: list[Assertion], alternatives: Sequence[Sequence[str]]
    ) -> None:
        """Swap, in place, the readings of an asserted pair whose types join by no claimed
        relation, either way round, for the first alternatives that do: the relation's learned
        (head type, tail type) pairs, so "X is a subtype of cerebral palsy" reads the disease,
        not the phenotype, beside a disease X (a gene and its protein count as one; a pair that
        fits only the wrong way round is kept, to be said so: "chorea presents with HD")."""
        for assertion in assertions:
            pairs = frozenset().union(
                *(self._signatures[r].pairs for r in assertion.relations if r in self._signatures)
            )
            if not pairs:
                continue
            subject, obj = assertion.subject, assertion.object
            if self._joins(ids[subject], ids[obj], pairs):
                continue
            options = [
                (a, b)
                for a in self._readings(ids, alternatives, subject)
                for b in self._readings(ids, alternatives, obj)
            ]
            ids[subject], ids[obj] = next(
                ((a, b) for a, b in options if self._joins(a, b, pairs)), (ids[subject], ids[obj])
            )

    def _readings(
        self, ids: list[str], alternatives: Sequence[Sequence[str]], index: int
    ) -> list[str]:
        """A mention's entity, then its alternatives."""
        return [ids[index], *(alternatives[index] if index < len(alternatives) else ())]

    def _joins(self, first: str, second: str, pairs: frozenset[tuple[str, str]]) -> bool:
        """Whether the two entities' types are one of the (head type, tail type) ``pairs``,
        either way round (a gene and its protein as one)."""
        return any(
            self._fits(a, frozenset({h})) and self._fits(b, frozenset({t}))
            for h, t in pairs
            for a, b in ((first, second), (second, first))
        )

    def _related_readings(
        self, ids: list[str], alternatives: Sequence[Sequence[str]], assertion: Assertion
    ) -> tuple[str, str]:
        """The asserted pair's ends; where they share no direct edge, the first readings of
        the same words, of the same type, that do ("Creutzfeldt-Jakob disease" names an OMIM,
        an Orphanet and a MONDO record; the KG's hierarchy edge sits on one of them)."""
        subject, obj = ids[assertion.subject], ids[assertion.object]
        known = self.store.has_node(subject) and self.store.has_node(obj)
        if not alternatives or not known or self._direct(subject, obj):
            return subject, obj

        def readings(index: int) -> list[str]:
            if index >= len(alternatives):
                return [ids[index]]
            kind = self._type(ids[index])
            return [ids[index], *(a for a in alternatives[index] if self._type(a) == kind)]

        return next(
            (
                (s, o)
                for s in readings(assertion.subject)
                for o in readings(assertion.object)
                if s != o and self._direct(s, o)
            ),
            (subject, obj),
        )

    def _fits(self, entity: str, allowed: frozenset[str]) -> bool:
        """Whether the entity's type is one of ``allowed`` (a gene and its protein as one)."""
        return self._type(entity) in (_GENE_LIKE | allowed if allowed & _GENE_LIKE else allowed)

    def _assertion(self, subject: str, obj: str, assertion: Assertion) -> PairVerdict:
        """One asserted pair: path label, then relation, direction and negation against the
        direct edges (a pair 2+ hops apart may be an indirect statement: not checked)."""
        claimed, negated = assertion.relations, assertion.negated
        for entity in (subject, obj):
            if not self.store.has_node(entity):
                return PairVerdict(
                    subject, obj, "ungrounded", (), False, relations=claimed, negated=negated,
                    note=f"{entity} is not in the KG",
                )  # fmt: skip
        found = self.verify_pair(subject, obj)
        pair = replace(found, relations=claimed, negated=negated)
        direct = self._direct(subject, obj)
        if negated:
            denied = [
                e for e in direct if not claimed or claimed & GENERIC or e.relation in claimed
            ]
            if denied:
                edge = denied[0]
                return replace(
                    pair,
                    conflict=f"the claim denies it, but the KG says "
                    f"{edge.head} {edge.relation} {edge.tail}",
                )
            return replace(
                pair,
                label="ungrounded",
                note=f"a denial the KG cannot confirm ({subject} and {obj} have no direct edge"
                + (" of that relation)" if direct else ")"),
            )
        if direct and claimed:
            first, second = (obj, subject) if assertion.inverse else (subject, obj)
            conflicts = self._relation_conflicts(claimed, first, second)
            if conflicts:
                return replace(pair, conflict=conflicts[0])
        return pair

    def _direct(self, subject: str, obj: str) -> list[Edge]:
        """Direct edges between the two entities, or between the genes and proteins that stand
        for them."""
        ends = set(self.identities(obj))
        return [
            edge
            for entity in self.identities(subject)
            for edge in self._edges(entity)
            if (edge.tail if edge.head == entity else edge.head) in ends and edge.head != edge.tail
        ]

    def identities(self, entity: str) -> list[str]:
        """``entity`` and the nodes a claim means by the same name: a gene and the protein it
        encodes (relations the registry marks as naming one entity), and other records of the
        same disease (an OMIM and an Orphanet node that share a MONDO id)."""
        named = [other for other, edge in self._neighbours(entity) if edge.relation in IDENTITY]
        return list(dict.fromkeys([entity, *named, *self._records.get(entity, ())]))

    @cached_property
    def _records(self) -> dict[str, tuple[str, ...]]:
        """Node → the other nodes that stand for the same MONDO term (through their xrefs, or
        by being that term's node)."""
        by_term: dict[str, set[str]] = {}
        for node in self.store.nodes():
            terms = [
                str(x) for x in node.properties.get("xrefs", ()) if str(x).startswith("MONDO:")
            ]
            for term in terms + ([node.id] if node.id.startswith("MONDO:") else []):
                by_term.setdefault(term, set()).add(node.id)
        records: dict[str, set[str]] = {}
        for members in by_term.values():
            if len(members) > 1:
                for member in members:
                    records.setdefault(member, set()).update(members - {member})
        return {node: tuple(sorted(others)) for node, others in records.items()}

    def _relation_conflicts(self, claimed: frozenset[str], subject: str, obj: str) -> list[str]:
        """What the direct edges between ``subject`` and ``obj`` say against the claim."""
        direct = self._direct(subject, obj)
        relations = {e.relation for e in direct}
        refined = {r for c in claimed for r in REFINES.get(c, ())}
        if not direct or claimed & GENERIC or relations & claimed - DIRECTED or relations & refined:
            return []
        subjects = set(self.identities(subject))
        forward = {e.relation for e in direct if e.head in subjects}
        if forward & claimed:
            return []
        if relations & claimed:
            relation = sorted(relations & claimed)[0]
            return [f"direction: the KG says {obj} {relation} {subject}, the claim the reverse"]
        opposite = {r for c in claimed for r in OPPOSITES.get(c, ())}
        if relations & opposite:
            relation = sorted(relations & opposite)[0]
            return [f"the KG says {_arrow(direct, relation)}, the claim the opposite"]
        genes = [self._type(entity) in _GENE_LIKE for entity in (subject, obj)]
        feature = self._signatures.get("has_phenotype")
        if (
            feature is not None
            and claimed <= _LOOSE
            and genes[0] != genes[1]
            and not self._joins(subject, obj, feature.pairs)
        ):
            # a feature's wording between a gene and a disease, which no feature joins ("HCRT
            # was found in people with narcolepsy"): loose for "associated", or about another
            # pair of the claim — not a claim that the gene is a feature ("X encodes Y",
            # "X is a subtype of Y" say outright what they say, and stay conflicts)
            return []
        return [
            f"the claim says {'/'.join(sorted(claimed))}, the KG relates {subject} and {obj} "
            f"only by {', '.join(sorted(relations))}"
        ]


def _gloss_twins(
    assertions: list[Assertion], glosses: dict[int, int], ids: Sequence[str]
) -> list[Assertion]:
    """For each assertion about a glossed name (:meth:`PathVerifier._same_type_glosses`) the
    same assertion about its gloss, where the claim holds none."""
    said = {frozenset((ids[a.subject], ids[a.object])) for a in assertions}
    twins = []
    for assertion in assertions:
        for name, other in (
            (assertion.subject, assertion.object),
            (assertion.object, assertion.subject),
        ):
            if name not in glosses or glosses[name] == other:
                continue
            ends = frozenset((ids[glosses[name]], ids[other]))
            if len(ends) == 2 and ends not in said:
                said.add(ends)
                if name == assertion.subject:
                    twins.append(replace(assertion, subject=glosses[name]))
                else:
                    twins.append(replace(assertion, object=glosses[name]))
    return twins


def _best_of_glosses(
    assertions: Sequence[Assertion],
    pairs: list[PairVerdict],
    said: int,
    glosses: dict[int, int],
    ids: Sequence[str],
) -> list[PairVerdict]:
    """The claim's own pairs (the first ``said``) less those about a glossed name that its
    gloss holds with a better label, and the twin pairs (about the gloss) that do so: in "the
    commonest cause of autosomal dominant HSP (SPG4)" SPAST–SPG4 (a direct edge) is the claim
    and SPAST–HSP (none) says nothing more. Only the gloss, the more precise name, speaks for
    the name, never the other way round ("juvenile PD (PARK2)": what PD has, PARK2 need
    not), and a twin only ever raises a label: one with a conflict is dropped (the gloss may
    be a wider abbreviation, "suprabasal EBS (EBS)"), and a pair of the claim's own with a
    conflict is kept."""
    named = {gloss: name for name, gloss in glosses.items()}

    def keys(assertion: Assertion, ends: dict[int, int]) -> list[tuple[str, int]]:
        return [
            (ids[other], min(end, ends[end]))
            for end, other in (
                (assertion.subject, assertion.object),
                (assertion.object, assertion.subject),
            )
            if end in ends and other != ends[end]
        ]

    about_name: dict[tuple[str, int], int] = {}
    for assertion, pair in zip(assertions[:said], pairs[:said], strict=True):
        for name_key in keys(assertion, glosses):
            about_name[name_key] = max(about_name.get(name_key, 0), _ORDER[pair.label])
    about_gloss: dict[tuple[str, int], int] = {}
    twins = []
    for number, (assertion, pair) in enumerate(zip(assertions, pairs, strict=True)):
        gloss_keys = keys(assertion, named)
        if not gloss_keys or pair.conflict:
            continue
        if number >= said:
            if any(_ORDER[pair.label] <= about_name.get(k, 0) for k in gloss_keys):
                continue
            twins.append(pair)
        for gloss_key in gloss_keys:
            about_gloss[gloss_key] = max(about_gloss.get(gloss_key, 0), _ORDER[pair.label])
    return [
        pair
        for assertion, pair in zip(assertions[:said], pairs[:said], strict=True)
        if pair.conflict
        or not any(about_gloss.get(k, 0) > _ORDER[pair.label] for k in keys(assertion, glosses))
    ] + twins


def _arrow(edges: list[Edge], relation: str) -> str:
    edge = next(e for e in edges if e.relation == relation)
    return f"{edge.head} {relation} {edge.tail}"


class _Side:
    """One end of a bidirectional search: what it reached, and how."""

    def __init__(self, roots: list[str]) -> None:
        self.roots = frozenset(roots)
        self.depth = 0
        self.frontier = list(roots)
        self.parents: dict[str, tuple[str, Edge] | None] = dict.fromkeys(roots)

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
    if weakest.label == "ungrounded":
        base = 0.0
    elif weakest.through_hubs:
        base = 0.3
    else:
        base = {0: 1.0, 1: 1.0, 2: 0.85, 3: 0.6}.get(hops, 0.45)
    first = weakest.path[0].relation if weakest.path else None
    if not weakest.relations:
        factor = 0.8
    elif first in weakest.relations or not weakest.path:
        factor = 1.0
    else:
        factor = 0.6
    penalty = 0.2 if verdict.conflicts else 1.0
    return round(base * factor * penalty, 4)
