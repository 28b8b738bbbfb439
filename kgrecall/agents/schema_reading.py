"""A reading by the KG's schema: the offline planner's last resort, always marked a guess.

When neither the phrase structure (:mod:`kgrecall.agents.chart`) nor the patterns read a
question, its tags still say which entities it names, which answer type it asks for and which
relation words it holds. This reader fits them to the KG's type signatures: every small query
tree — a chain of up to three hops from each anchor to the answer type, the anchors' chains met
by intersection or union, or met at an intermediate type and followed by up to two more hops —
is costed by the steps no relation word names (a hop the types imply, gene → disease, costs
less than one they leave open, a subtype or a parent), the type words it passes by ("ALS
genes": through genes), the joiner ("or": a union) and whether it has answers at all. The
cheapest tree is planned as a guess: the plan says so, lists the words left out and the
runner-up reading.

It refuses (returns ``None``, and the planner reports the earlier reason) what it cannot fit
honestly: no entity named, more than :data:`MAX_ANCHORS`, a word beyond the KG's relations
among the unplaced ones (a negation, a drug, a count) or one that is no everyday English, a
relation or a type the KG does not hold, too much of the question unplaced, neither a type
word nor a relation word, a relation word no hop of the best tree takes, or no tree below
:data:`MAX_COST`.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from kgrecall.agents import chart
from kgrecall.kg import GraphStore
from kgrecall.kg.relations import HIERARCHY_RELATIONS, Hint
from kgrecall.tools import (
    EntityIndex,
    EntityQuery,
    IntersectQuery,
    LinkedEntity,
    ProjectQuery,
    QueryNode,
    UnionQuery,
    execute_sets,
    fold,
)

__all__ = ["GUESSED", "MAX_ANCHORS", "MAX_COST", "SchemaReading", "read_by_schema"]

#: What a plan and its report say of a tree this reader guessed.
GUESSED = (
    "the question's phrase structure was not recognised, so its names and relation words "
    "were fitted to the KG's type signatures — check this reading"
)
#: Most entities one question may name for this reader.
MAX_ANCHORS = 3
#: The cheapest tree must cost less than this to be planned (two open hops cost 4).
MAX_COST = 4.0
#: What a tree with no answers costs.
EMPTY_COST = 1.5
#: A hop the words do not name: one the two node types imply (the only relation between
#: them), and one they leave open (several relations, or a hierarchy hop's direction).
IMPLIED_HOP_COST = 1.0
OPEN_HOP_COST = 2.0
#: A relation word (or one repeat of it: "two levels down") no hop of the tree uses, while
#: trees are compared (the tree planned must use every required word).
UNUSED_WORD_COST = 2.0
#: A type word beside an anchor ("ALS genes") that no chain from it passes through.
PASSED_TYPE_COST = 1.0
#: An anchor read as another record than its best link (the protein of a gene symbol).
OTHER_RECORD_COST = 0.5
#: A joiner the tree does not follow ("or" read as an intersection).
JOINER_COST = 1.0
#: A tree whose last hop no word names, when no type word says what the answers are.
OPEN_END_COST = 0.5
#: Unplaced words allowed: at most this many, and at most half the question's words.
MAX_UNPLACED_WORDS = 4
#: How many of the cheapest chains per anchor, and of the cheapest trees, are kept.
CHAINS_KEPT = 4
TREES_EXECUTED = 20

_UNION_WORDS = frozenset({"or", "either"})
_INTERSECT_WORDS = frozenset({"and", "both", "also", "plus", "as well as", "and also", ","})
_YES_NO = frozenset({"is", "are", "was", "were", "do", "does", "did", "can", "has", "have"})
#: Relation words too light to insist on ("Does GBA1 have any link to HD").
_LIGHT_WORDS = frozenset({"have", "has", "had", "having", "show", "shows"})
_LIGAND = re.compile(r"ligands?\b", re.IGNORECASE)
_RECEPTOR = re.compile(r"(?:co-?)?receptors?\b", re.IGNORECASE)
_WORD = re.compile(r"[^\W\d_]+")
#: One word of letters (and hyphens).
_ONE_WORD = re.compile(r"[^\W\d_]+(?:-[^\W\d_]+)*")
#: A walk along a hierarchy ("three levels down"): its direction is the walk's own.
_WALK = re.compile(r"\b(?:levels?|steps?|generations?)\b", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Hop:
    """One projection between node types: ``source`` → ``target`` along ``relation``."""

    relation: str
    inverse: bool
    source: str
    target: str


@dataclass(frozen=True, slots=True)
class _Word:
    """A relation the question words ("subtypes", "linked to", "two levels down");
    ``optional`` when leaving it unused costs nothing (it restates an earlier word, or is a
    word as light as "have")."""

    relation: str
    hint: Hint
    repeat: int
    text: str
    optional: bool = False


@dataclass(frozen=True, slots=True)
class _Anchor:
    mention: str
    entity: LinkedEntity
    cost: float
    #: a type word right after the mention ("ALS genes"): its chain passes through it
    passes: str | None


@dataclass(slots=True)
class _Tree:
    branches: list[tuple[_Anchor, tuple[Hop, ...]]]
    tail: tuple[Hop, ...] = ()
    op: str = "intersect"
    cost: float = 0.0

    def hops(self) -> list[Hop]:
        return [hop for _, chain in self.branches for hop in chain] + list(self.tail)

    def query(self) -> QueryNode:
        inputs = [
            _chain(EntityQuery(id=anchor.entity.id), chain) for anchor, chain in self.branches
        ]
        joined: QueryNode = inputs[0]
        if len(inputs) > 1:
            joined = (IntersectQuery if self.op == "intersect" else UnionQuery)(inputs=inputs)
        return _chain(joined, self.tail)


@dataclass(frozen=True, slots=True)
class SchemaReading:
    """The guessed tree, with what a plan reports about it."""

    query: QueryNode
    answer_type: str
    anchors: list[tuple[str, LinkedEntity]]
    #: every hop, with the words that named it ("" for a hop the types imply)
    hops: list[tuple[Hop, str]]
    candidate: tuple[str, LinkedEntity] | None
    unplaced: list[str]
    runner_up: str | None


def read_by_schema(
    text: str,
    linker: EntityIndex,
    store: GraphStore,
    signatures: Mapping[str, set[tuple[str, str]]],
    meaningful: Iterable[str],
) -> SchemaReading | None:
    """The cheapest tree that fits ``text``'s names and words to the KG's type signatures;
    ``None`` when the question cannot be fitted honestly (module docstring)."""
    tags = chart.tag(text, linker)
    types = {t for pairs in signatures.values() for pair in pairs for t in pair}
    unplaced = [t.text for t in tags if t.kind == "unknown" or (t.kind == "entity" and t.fuzzy)]
    unplaced_words = [w.lower() for run in unplaced for w in _WORD.findall(run)]
    all_words = _WORD.findall(text)
    if (
        set(unplaced_words) & set(meaningful)
        or not all(map(_everyday, _unplaced_runs(tags)))
        or any(c.isdigit() for run in unplaced for c in run)
        or len(unplaced_words) > min(MAX_UNPLACED_WORDS, len(all_words) // 2)
        or any(t.kind == "type" and t.node_type and t.node_type not in types for t in tags)
        or any(t.kind == "relation" and t.relation and t.relation not in signatures for t in tags)
    ):
        return None
    anchors = _anchors(tags)
    if not anchors or len(anchors) > MAX_ANCHORS:
        return None
    asked, hinted = _asked(tags)
    words = _words(tags, hinted)
    yes_no = bool(tags) and tags[0].kind == "aux" and tags[0].text.lower() in _YES_NO
    if asked is None and not yes_no and not any(not w.optional for w in words):
        return None  # neither a type word nor a relation word says what is asked
    joiners = {t.text.lower() for t in tags if t.kind == "conj"} | {
        t.text.lower() for t in tags if t.text.lower() in ("both", "either", "also")
    }
    op = (
        "union"
        if joiners & _UNION_WORDS and not joiners & (_INTERSECT_WORDS - {","})
        else "intersect"
    )
    fitter = _Fitter(signatures, words, op, hinted, open_end=asked is None and not yes_no)
    trees: list[tuple[_Tree, tuple[str, LinkedEntity] | None]] = []
    if yes_no and len(anchors) >= 2:
        for options in anchors:
            for member in options:  # the entity asked about, each in turn
                rest = [other for other in anchors if other is not options]
                for tree in fitter.trees(rest, member.entity.type, len(anchors) - 1):
                    trees.append((tree, (member.mention, member.entity)))
    elif not yes_no:
        ends = [asked] if asked is not None else sorted(types)
        for end in ends:
            trees += [(tree, None) for tree in fitter.trees(anchors, end, len(anchors))]
    if not trees:
        return None
    trees.sort(key=lambda item: item[0].cost)
    checked: list[tuple[float, int, _Tree, tuple[str, LinkedEntity] | None, object]] = []
    for order, (tree, candidate) in enumerate(trees[:TREES_EXECUTED]):
        found = frozenset(execute_sets(store, tree.query())[0])
        cost = tree.cost + (EMPTY_COST if not found else 0.0)
        # what the reading answers: the set, or a yes/no question's yes or no
        answer: object = found if candidate is None else candidate[1].id in found
        checked.append((cost, order, tree, candidate, answer))
    checked.sort(key=lambda item: (item[0], len(item[2].hops()), item[1]))
    cost, _, best, candidate, answer = checked[0]
    if cost >= MAX_COST or fitter.unused(best):
        return None  # a relation word no hop can take asks what the KG cannot answer
    hops = list(zip(best.hops(), fitter.worded(best), strict=True))
    if any(w.text.lower() in _LIGHT_WORDS for w in words) and all(
        hop.relation in HIERARCHY_RELATIONS and not named for hop, named in hops
    ):
        return None  # "which diseases have ataxia": a verb of having names no kind or part
    runner_up = next(
        (_describe(tree.query(), store) for c, _, tree, _, other in checked[1:]
         if other != answer and c < cost + 1.0),
        None,
    )  # fmt: skip
    end = best.hops()[-1].target
    return SchemaReading(
        query=best.query(),
        answer_type=end,
        anchors=[(anchor.mention, anchor.entity) for anchor, _ in best.branches],
        hops=hops,
        candidate=candidate,
        unplaced=unplaced,
        runner_up=runner_up,
    )


def _unplaced_runs(tags: list[chart.Tag]) -> list[str]:
    """The runs of unplaced words, but those before a type word — a modifier of the kind
    asked for ("Frizzled/LRP receptors") narrows it, and the type word is read — and a single
    word right after the question word: the kind asked for, named by a term the KG has no
    type for ("Which neurotrophins bind …"), whose type the relations then decide."""
    before: list[chart.Tag | None] = [None, *tags[:-1]] if tags else []
    after: list[chart.Tag | None] = [*tags[1:], None] if tags else []
    return [
        tag.text
        for previous, tag, following in zip(before, tags, after, strict=True)
        if (tag.kind == "unknown" or (tag.kind == "entity" and tag.fuzzy))
        and not (following is not None and following.kind == "type" and following.node_type)
        and not (previous is not None and previous.kind == "wh" and _ONE_WORD.fullmatch(tag.text))
    ]


def _everyday(run: str) -> bool:
    """Whether every word of ``run`` is an everyday English word or a source's name: a
    term the KG lacks ("frobnicated", "zebrafish") is content, and the question is refused."""
    return all(chart.everyday(w.lower()) for w in _WORD.findall(run))


def _anchors(tags: list[chart.Tag]) -> list[list[_Anchor]]:
    """Each named entity's readings: its best link, and the best of each other type within
    0.1 of it (a gene symbol also names the protein)."""
    found: list[list[_Anchor]] = []
    for index, tag in enumerate(tags):
        if tag.kind != "entity" or tag.fuzzy or not tag.entities:
            continue
        after = tags[index + 1] if index + 1 < len(tags) else None
        passes = after.node_type if after is not None and after.kind == "type" else None
        best = tag.entities[0].score
        options: list[_Anchor] = []
        seen: set[str] = set()
        for entity in tag.entities:
            if entity.type in seen or entity.score < best - 0.1:
                continue
            seen.add(entity.type)
            cost = 0.0 if not options else OTHER_RECORD_COST
            options.append(_Anchor(tag.text, entity, cost, passes))
        found.append(options)
    return found


def _asked(tags: list[chart.Tag]) -> tuple[str | None, Hint]:
    """The answers' node type — a type word before any relation or entity, after the question
    word when there is one — and the direction a "ligands" / "receptors" answer fixes."""
    start = next((i + 1 for i, t in enumerate(tags) if t.kind == "wh"), 0)
    for index, tag in enumerate(tags[start:], start=start):
        following = tags[index + 1] if index + 1 < len(tags) else None
        if tag.kind == "relation" or (
            tag.kind == "entity" and (following is None or following.kind != "type")
        ):
            break  # past the question's own noun phrase ("which PD4 genes": genes)
        if tag.kind == "type" and tag.node_type:
            hint: Hint = "inverse" if _LIGAND.match(tag.text) else None
            if _RECEPTOR.match(tag.text):
                hint = "forward"
            return tag.node_type, hint
    hint = None
    for tag in tags:  # "the RET receptor": the anchor is the receptor, the answers ligands
        if tag.kind == "type" and _RECEPTOR.match(tag.text):
            hint = "inverse"
        elif tag.kind == "type" and _LIGAND.match(tag.text):
            hint = "forward"
    return None, hint


def _words(tags: list[chart.Tag], hinted: Hint) -> list[_Word]:
    """The relation words, each oriented: a relation verb with entities before it and none
    after ("X belongs to which category") is read the other way round; nouns ("dystonia
    subtypes") and walks ("three levels down") keep their direction. Words that say one
    relation and direction more than once ("the subtypes of PD …: genes of those specific
    forms") are one requirement — the most repeated word; the others are optional — unless
    one follows the other directly ("subtypes of the subtypes of X"). "Ligands" or
    "receptors" asked for need an interaction even when no verb names it."""
    found: list[tuple[int, chart.Tag, Hint]] = []
    for position, tag in enumerate(tags):
        if tag.kind not in ("relation", "type") or not tag.relation:
            continue
        hint = tag.hint
        after = any(t.kind == "entity" for t in tags[position + 1 :])
        before = any(t.kind == "entity" for t in tags[:position])
        verb = tag.kind == "relation" and not _WALK.search(tag.text)
        if hint is not None and verb and before and not after:
            hint = "forward" if hint == "inverse" else "inverse"
        found.append((position, tag, hint))
    words: list[_Word] = []
    for position, tag, hint in found:
        same = [(p, t) for p, t, h in found if t.relation == tag.relation and h == hint]
        chained = any(abs(p - position) == 1 for p, _ in same)
        strongest = max(same, key=lambda item: (item[1].repeat, -item[0]))[0] == position
        optional = (not chained and not strongest) or tag.text.lower() in _LIGHT_WORDS
        words.append(_Word(tag.relation, hint, tag.repeat, tag.text, optional))
    if hinted is not None and not any(w.relation == "interacts_with" for w in words):
        words.append(_Word("interacts_with", hinted, 1, "ligands / receptors"))
    return words


class _Fitter:
    """Enumerates and costs the trees of one question."""

    def __init__(
        self,
        signatures: Mapping[str, set[tuple[str, str]]],
        words: list[_Word],
        op: str,
        hinted: Hint,
        *,
        open_end: bool,
    ) -> None:
        self.words, self.op, self.hinted = words, op, hinted
        self.open_end = open_end
        self.steps: dict[str, list[Hop]] = {}
        between: dict[frozenset[str], set[str]] = {}
        for relation, pairs in sorted(signatures.items()):
            for head, tail in sorted(pairs):
                self.steps.setdefault(head, []).append(Hop(relation, False, head, tail))
                self.steps.setdefault(tail, []).append(Hop(relation, True, tail, head))
                between.setdefault(frozenset((head, tail)), set()).add(relation)
        self.between = between
        self.longest = max(3, sum(w.repeat for w in words))

    def chains(self, source: str, target: str, longest: int) -> list[tuple[Hop, ...]]:
        """Every chain of 1 to ``longest`` hops from ``source`` to ``target``."""
        found: list[tuple[Hop, ...]] = []
        frontier: list[tuple[Hop, ...]] = [()]
        for _ in range(longest):
            frontier = [
                (*chain, hop)
                for chain in frontier
                for hop in self.steps.get(chain[-1].target if chain else source, [])
                if not chain or not _back(chain[-1], hop) or self._worded_twice(hop.relation)
            ]
            found += [chain for chain in frontier if chain[-1].target == target]
        return found

    def _worded_twice(self, relation: str) -> bool:
        """Whether the words name ``relation`` twice: only then may a chain step back along
        the hop it came ("the other diseases of the genes of X"; never "genes that encode
        X" read as gene → protein → the same gene)."""
        return sum(w.repeat for w in self.words if w.relation == relation) >= 2

    def trees(self, anchors: list[list[_Anchor]], end: str, count: int) -> list[_Tree]:
        """The costed trees from ``anchors`` (one reading each) to the type ``end``."""
        trees: list[_Tree] = []
        for readings in itertools.product(*anchors):
            per_anchor = [
                self._cheapest(self.chains(a.entity.type, end, self.longest), a) for a in readings
            ]
            if all(per_anchor):
                for chains in itertools.product(*per_anchor):
                    trees.append(self._costed(_Tree(list(zip(readings, chains, strict=True)),
                                                    op=self.op)))  # fmt: skip
            if count < 2:
                continue
            for meeting in self.steps:
                to_meeting = [
                    self._cheapest(self.chains(a.entity.type, meeting, 2), a) for a in readings
                ]
                tails = self._cheapest(self.chains(meeting, end, 2), None)
                if not all(to_meeting) or not tails:
                    continue
                for chains in itertools.product(*to_meeting):
                    for tail in tails:
                        tree = _Tree(list(zip(readings, chains, strict=True)), tail, self.op)
                        trees.append(self._costed(tree))
        return trees

    def _cheapest(
        self, chains: list[tuple[Hop, ...]], anchor: _Anchor | None
    ) -> list[tuple[Hop, ...]]:
        """The :data:`CHAINS_KEPT` cheapest chains, shortest first among equals: a hop some
        word could name costs nothing, others what an unnamed hop costs (the words are
        matched only on whole trees)."""

        def cost(chain: tuple[Hop, ...]) -> float:
            total = anchor.cost if anchor is not None else 0.0
            for hop in chain:
                if not any(self._fits(word, (hop,)) for word in self.words):
                    pair = frozenset((hop.source, hop.target))
                    implied = hop.source != hop.target and len(self.between[pair]) == 1
                    total += IMPLIED_HOP_COST if implied else OPEN_HOP_COST
            if anchor is not None and anchor.passes:
                total += PASSED_TYPE_COST * (anchor.passes not in {h.target for h in chain})
            return total

        return sorted(chains, key=lambda chain: (cost(chain), len(chain)))[:CHAINS_KEPT]

    def worded(self, tree: _Tree) -> list[str]:
        """For each hop of ``tree`` (in :meth:`_Tree.hops` order), the words that name it, or
        "" (greedy: the most repeated words first)."""
        steps, named, _ = self._match(tree)
        return [named[steps.index(key)] for key in _step_keys(tree)]

    def unused(self, tree: _Tree) -> int:
        """How many repeats of the required words no hop of ``tree`` uses."""
        return self._match(tree)[2]

    def _match(self, tree: _Tree) -> tuple[list[tuple[object, ...]], list[str], int]:
        """The tree's steps (:func:`_step_keys`), the words naming each, and how many
        required word repeats no step uses."""
        steps = list(dict.fromkeys(_step_keys(tree)))
        named = [""] * len(steps)
        unused = 0
        for word in sorted(self.words, key=lambda w: -w.repeat):
            for _ in range(word.repeat):
                free = (i for i, key in enumerate(steps) if not named[i] and self._fits(word, key))
                index = next(free, None)
                if index is None:
                    unused += not word.optional
                else:
                    named[index] = word.text
        return steps, named, unused

    def _fits(self, word: _Word, key: tuple[object, ...]) -> bool:
        hop = key[-1]
        assert isinstance(hop, Hop)
        if word.relation != hop.relation:
            return False
        if hop.source != hop.target:
            return True  # the types fix the direction
        hint = self.hinted if hop.relation == "interacts_with" and self.hinted else word.hint
        return hint is None or hop.inverse == (hint == "inverse")

    def _costed(self, tree: _Tree) -> _Tree:
        steps, named, unused = self._match(tree)
        cost = UNUSED_WORD_COST * unused
        for key, words in zip(steps, named, strict=True):
            hop = key[-1]
            assert isinstance(hop, Hop)
            if not words:
                pair = frozenset((hop.source, hop.target))
                implied = hop.source != hop.target and len(self.between[pair]) == 1
                cost += IMPLIED_HOP_COST if implied else OPEN_HOP_COST
        if self.open_end and not self.worded(tree)[-1]:
            cost += OPEN_END_COST
        for anchor, chain in tree.branches:
            cost += anchor.cost
            if anchor.passes and anchor.passes not in {h.target for h in (*chain, *tree.tail)}:
                cost += PASSED_TYPE_COST
        if len(tree.branches) > 1 and tree.op != self.op:
            cost += JOINER_COST
        tree.cost = cost
        return tree


def _step_keys(tree: _Tree) -> list[tuple[object, ...]]:
    """One key per hop of ``tree`` (in :meth:`_Tree.hops` order), equal for the hops that are
    one step: with several branches, the hops at the same distance from where they meet with
    one relation and direction ("ligands of TrkA or TrkB": one interaction for both); every
    hop after the meeting is its own step."""
    keys: list[tuple[object, ...]] = []
    shared = len(tree.branches) > 1
    for number, (_, chain) in enumerate(tree.branches):
        for position, hop in enumerate(chain):
            depth = len(chain) - 1 - position
            keys.append(("branch", depth, hop) if shared else ("branch", number, depth, hop))
    keys += [("tail", position, hop) for position, hop in enumerate(tree.tail)]
    return keys


def _back(previous: Hop, hop: Hop) -> bool:
    """Whether ``hop`` walks ``previous`` back (one relation, the other direction)."""
    return hop.relation == previous.relation and hop.inverse != previous.inverse


def _chain(node: QueryNode, hops: Iterable[Hop]) -> QueryNode:
    for hop in hops:
        node = ProjectQuery(relation=hop.relation, inverse=hop.inverse, input=node)
    return node


def _describe(node: QueryNode, store: GraphStore) -> str:
    """A tree in short words: ``associated_with⁻¹(subclass_of⁻¹(Parkinson disease))``."""
    return fold(
        node,
        lambda e: store.get_node(e.id).name if store.has_node(e.id) else e.id,
        lambda hop, inner: f"{hop.relation}{'⁻¹' if hop.inverse else ''}({inner})",
        lambda join, parts: (
            "(" + (" ∩ " if isinstance(join, IntersectQuery) else " ∪ ").join(parts) + ")"
        ),
    )
