"""Phase 1: a question → a ``QueryPlan`` (QueryTree, linked anchors and relations).

The offline planner needs no LLM. It reads a question's phrase structure first
(:mod:`kgrecall.agents.chart`: names found by the entity index, relation phrases, noun phrases
with their clauses), each clause a projection whose relation is the worded one or, for a bare
joint ("genes for X"), the one the KG's type signatures allow; when that reading fails, the
patterns below read the question (and guess an unknown relation wording by embedding). The
patterns read questions of the forms

- 1p  "Which genes are associated with Parkinson disease 4?",
  "What phenotypes does Parkinson disease 4 have?"
- 2p  "Which phenotypes do diseases associated with SNCA have?" /
  "phenotypes of diseases associated with SNCA" (a chain: type words between relations)
- 2i  "genes associated with both X and Y", "genes associated with X that have phenotype Y"
- 2u  "genes associated with either X or Y"
- as people also write them: anchor first ("Parkinson disease 13 is linked to which genes"),
  possessive or bare ("SNCA's diseases", "DJ-1 phenotypes"), what anchors share ("receptors
  shared by NGF and progranulin", "phenotypes do parkin and PINK1 have in common", "do apoE
  and APP both bind") — with no relation word, the only KG relation joining the two types
  (method ``signature``); "ligands" / "receptors" fix the direction of ligand → receptor edges
- a hyphenated relation adjective before a type word reads as its relation ("SNCA-associated
  diseases that …" = "diseases associated with SNCA that …")

Relations are found by a phrase lexicon (``RELATION_PHRASES``), else by embedding
similarity between the phrase and the relations' names, meanings and example wordings
(``RELATION_EXAMPLES``; the best match, at least ``MIN_RELATION_SIMILARITY``); a worded
relation that cannot join the anchor's type to the asked type gives way to the one relation
that can ("phenotypes associated with SNCA" → has_phenotype). The direction
of each hop follows from the node types the KG's edges of that relation connect (gene
associated_with disease: genes of a disease → inverse), and the phrase's own hint for
same-type relations ("subtypes of" → inverse). Anchors are linked by the KG's
:class:`~kgrecall.tools.EntityIndex` (names as people write them, then fuzzy candidates above
a minimum score) restricted to the node types the relation accepts; when another entity
matches in the same tier (two diseases with the name, two with the acronym) within
``AMBIGUITY_MARGIN`` of the best, or any fuzzy candidate scores that close, the anchor is
marked ambiguous and the alternatives travel with the plan — never a guess presented as
certain; a mention nothing matches above the minimum is refused, naming the closest entity.
When neither reading can, the schema reader (:mod:`kgrecall.agents.schema_reading`) fits the
question's names and relation words to the KG's type signatures and plans the cheapest tree
as a guess (``QueryPlan.guessed``: flagged, with a note and the runner-up reading). A
question none of them can read is a :class:`PlanningError` that says what was missing.
``LLMPlanner`` asks an OpenAI-compatible model instead and falls back to the offline planner
on any error.
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import logging
import re
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

import numpy as np
from pydantic import BaseModel, Field, ValidationError

from kgrecall.agents import chart
from kgrecall.agents.chart import TYPE_HINTS, TYPE_WORDS
from kgrecall.agents.schema_reading import GUESSED, read_by_schema
from kgrecall.errors import NotFoundError, UnreadableQuestionError
from kgrecall.grounding import EntityExtractor
from kgrecall.grounding.entities import vocabulary_labels, vocabulary_terms
from kgrecall.kg import GraphStore, KGError
from kgrecall.kg.relations import HIERARCHY_RELATIONS, RELATIONS, Hint
from kgrecall.llm import LLMError, structured_call
from kgrecall.prompts import load_prompt
from kgrecall.tools import (
    EntityIndex,
    EntityQuery,
    IntersectQuery,
    LinkedEntity,
    ProjectQuery,
    QueryNode,
    QueryTree,
    UnionQuery,
    execute_sets,
    fold,
    parse_query,
    projections,
    topology,
    validate_query,
)
from kgrecall.tools import anchors as query_anchors
from kgrecall.tools.names import americanize
from kgrecall.tools.names import fold as casefold_name

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

log = logging.getLogger(__name__)

#: An anchor whose runner-up links within this margin is reported as ambiguous.
AMBIGUITY_MARGIN = 0.05
#: How many subclass levels below a disease group its answers are looked for when neither
#: the group nor its direct subtypes have any (MONDO puts genes two to four levels down:
#: "epilepsy", "dementia", "peripheral neuropathy").
SUBTYPE_LEVELS = 4
#: A family name the KG holds only as numbered members ("Spinocerebellar ataxia 1" … "50")
#: is read as the class whose subtypes (to SUBTYPE_LEVELS) match at least this many of them
#: with at least this F1 between the class's subtypes and the members.
FAMILY_MIN_MEMBERS = 4
FAMILY_MIN_F1 = 0.8
#: The outside vocabulary's id prefixes a refusal names a missing term of, as "<source>'s
#: <kind>".
_OUTSIDE_KINDS = {"HP": "HPO's phenotype", "MONDO": "MONDO's disease", "HGNC": "HGNC's gene"}
#: Verbs that name a relation only by default ("which phenotypes do X have"): when its types
#: do not fit, the one relation joining the types is meant.
_GENERIC_VERBS = frozenset(
    {"have", "has", "having", "show", "shows", "showing", "carry", "carries", "carrying"}
)
#: The end of a sentence inside a question ("… shuffling gait. YOPD genes with …"), not of
#: an abbreviation ("i.e.", "e.g.", "vs.").
_SENTENCE_END = re.compile(
    r"(?<=[A-Za-z0-9)][.!?])(?<!\bi\.e\.)(?<!\be\.g\.)(?<!\bvs\.)(?<!\bcf\.)\s+(?=\S)"
)

#: A question or exclamation mark said more than once ("which diseases??", "?!").
_REPEATED_MARK = re.compile(r"([?!])[?!]+")


#: What the asker knows or heard, before what they say about it ("I understand X is …").
_HEARD = re.compile(
    r"^(?:(?:I|we)\s+(?:understand|read|know|heard|believe|think|learned|learnt|was\s+told|"
    r"were\s+told)|I['’]ve\s+(?:read|heard))(?:\s+that)?\s+",
    re.IGNORECASE,
)


def _subject_named(context: str, named: list[tuple[str, set[str]]]) -> str | None:
    """The name a pronoun refers to when the context names several: the subject of its last
    sentence ("I understand presenilin-1 is the protein most often mutated in early-onset
    Alzheimer's. What … the gene that codes for it?": presenilin-1); None without one."""
    last = _HEARD.sub("", _SENTENCE_END.split(context.strip())[-1].strip())
    for name, _ in named:
        if re.match(rf"(?:the\s+)?{re.escape(name)}\s+(?:is|are|was|were|has|have)\b", last, re.I):
            return name
    return None


#: A sentence after the question that says it again in other words.
_RESTATED = re.compile(r"(?:i\.?e\.?|that\s+is|in\s+other\s+words|meaning)[,:]?\s", re.I)


def _question_last(question: str) -> str:
    """``question`` with a remark after its last question mark moved before it, as context
    ("What binds both LRP4 and LRP5? thinking sclerostin/DKK axis" → "thinking sclerostin/DKK
    axis. What binds both LRP4 and LRP5?"): the sentence asked is read as the question. A
    remark of one word ("… ? (GO)") stays where it is; one in brackets ("? (the whole PARK
    crew basically)") is read without them."""
    text = _REPEATED_MARK.sub(r"\1", question.strip())  # "which diseases??"
    sentences = _SENTENCE_END.split(text)
    asking = [i for i, sentence in enumerate(sentences) if sentence.rstrip().endswith("?")]
    if not asking or asking[-1] == len(sentences) - 1:
        return text
    after = [sentence.rstrip() for sentence in sentences[asking[-1] + 1 :]]
    if sum(len(sentence.split()) for sentence in after) < 2:
        return text
    if _RESTATED.match(after[0]):  # "…-> grandchildren? i.e. terms two levels below it."
        return " ".join(sentences[: asking[-1] + 1])
    after = [s[1:-1].strip() if s.startswith("(") and s.endswith(")") else s for s in after]
    remark = [s if s.endswith((".", "!", "?")) else f"{s}." for s in after]
    return " ".join([*remark, *sentences[: asking[-1] + 1]])


#: A request for the whole list after the question ("ApoE receptors - full list pls", "…,
#: union list"): it asks for nothing more than the question.
_LIST_ADJECTIVE = r"(?:full|complete|whole|entire)"  # "union list": the chart reads it
_TRAILING_REQUEST = re.compile(
    rf"(?:\s*[-–—,:]\s*(?:(?:the|a)\s+)?(?:{_LIST_ADJECTIVE}\s+)?|\s+(?:(?:the|a)\s+)?"
    rf"{_LIST_ADJECTIVE}\s+)list(?:\s+(?:pls|please|plz|thx|thanks))?$",
    re.IGNORECASE,
)
#: A last sentence that only asks for the result of the steps before it ("… -> their
#: diseases. What's the final disease set?", "… What's the combined list?").
_RESULT_REQUEST = re.compile(
    r"(?<=[.?!])\s+(?:so\s+)?(?:what(?:['’]s|\s+is|\s+are)|give\s+me|list)\s+(?:the\s+)?"
    r"(?:(?:final|combined|whole|full|complete|resulting|merged|overall)\s+)?(?:[\w-]+\s+)?"
    r"(?:set|list)s?$",
    re.IGNORECASE,
)
#: A colon or a spaced dash after a scene-setting phrase, before the question itself.
_SCENE_BREAK = re.compile(r"(?::|\s[-–—])\s+(?=(?:\S+\s+){2})")
#: A spaced dash inside the question's sentence, after its topic.
_DASH_TOPIC = re.compile(r"\s[-–—]\s")
#: An asked phrase that ends on what quantifies the topic after it ("… that hit both").
_ENDS_WITH_QUANTIFIER = re.compile(r"\b(?:both|either|all|each|any)$", re.IGNORECASE)
#: Two words joined by a slash ("HER3/HER4", "TrkA/TrkB"): a list when each is a name.
_SLASHED = re.compile(r"(?<![\w/])(?P<a>[\w-]+)/(?P<b>[\w-]+)(?![\w/])")
#: A relation written by its KG name ("part_of", "has_phenotype"): read as words.
_RELATION_NAME = re.compile(r"\b[a-z]+(?:_[a-z]+)+\b")
#: A reference back to an earlier sentence: "that sign", "this gene", "it", "they" — not a
#: comparison with a name ("the same genes as Rett").
_BACK_REFERENCE = re.compile(
    r"\b(?:(?:that|this|these|those|the\s+same)\s+(?:signs?|symptoms?|features?|phenotypes?|"
    r"findings?|genes?|diseases?|disorders?|conditions?|proteins?|terms?|processes)\b"
    r"(?!\s+as\b)|"
    r"it|its|they|them|their)\b",
    re.IGNORECASE,
)
#: A back reference the context's names can fill: "both genes", "either gene", "those
#: features", "both of those features", "that protein", "it"; without a noun ("both of
#: those", "either one", "those two") the last two names of any kind; "is that one of …"
#: asks about the one name before it.
_REFERRING = re.compile(
    r"\b(?P<det>both(?:\s+of\s+(?:these|those|them))?|either(?:\s+of\s+(?:these|those))?|"
    r"(?:these|those)\s+two|these|those|the\s+two|this|that)\s+(?P<noun>genes?|proteins?|"
    r"diseases?|disorders?|conditions?|syndromes?|features?|symptoms?|signs?|phenotypes?|"
    r"findings?|peptides?|hormones?)\b"
    r"|\b(?P<pair>both\s+of\s+(?:these|those|them)|either\s+(?:one|of\s+(?:these|those|them))|"
    r"(?:these|those|the)\s+two(?:\s+of\s+them)?)(?![\w-])"
    r"|\b(?P<pronoun>it|its|(?<=\bis\s)that(?=\s+(?:one\s+of|an?)\s))\b",
    re.IGNORECASE,
)
#: What the asker expects or watches for, after the asked type word ("What symptoms should
#: we expect", "what problems might she develop"): the asking, not a relation.
_EXPECTING = re.compile(
    r"\s+(?:should|can|could|would|might|may|will|do|to)\s+(?:(?:we|I|you|he|she|they)\s+)?"
    r"(?:expect|anticipate|look\s+(?:out\s+)?for|watch\s+(?:out\s+)?for|develop)\b",
    re.IGNORECASE,
)
#: A reference to what the context describes, not to a name in it.
#: "the same gene" with no "as" after it (nor a clause saying whose: "the same diseases it's
#: linked to").
_SAME_WITHOUT_AS = re.compile(
    r"\bthe\s+same\s+(?:genes?|diseases?|disorders?|conditions?|phenotypes?|proteins?)\b"
    r"(?!\s+(?:as|it|its|they|that|which|he|she|we|you|I)\b)",
    re.IGNORECASE,
)
_NAME_FIRST = re.compile(r"^\s*(?P<name>[^.?!:]+?)\s*(?:\s[-–—]+|:)\s+")
#: A last clause on the asker's own plans: "…, going to stain for all of them", "… — I need
#: guides for all of them", "; want to check expression in our cultures".
_OWN_PLANS = re.compile(
    r"(?:\s*[,;]\s*|\s+[-–—]\s+)(?:(?:I|we)(?:['’]m|['’]re|['’]ll|\s+am|\s+are|\s+will)?\s+"
    r"(?:need|want|going|gonna|plan|hope|have)|going\s+to|want\s+to|gonna|planning\s+to)\b"
    r"[^,;–—?]*$",
    re.IGNORECASE,
)
_THOSE = re.compile(r"\b(?:those|these|they|them|their)\b", re.IGNORECASE)
#: A person's condition referred to: "the same gene as hers", "his condition's symptoms".
_TOPIC_REFERENCE = re.compile(
    r"\b(?:(?:his|her|their|my|our)\s+(?:condition|disease|disorder|diagnosis)(?P<of>['’]s)?|"
    r"(?<=\bas\s)(?:hers|his|theirs|mine|ours))(?![\w-])",
    re.IGNORECASE,
)


def _as_topic(match: re.Match[str], topic: str) -> str:
    return f"{topic}'s" if match["of"] else topic


#: The node types a referring noun names.
_REFERRED_TYPES: dict[str, frozenset[str]] = {
    "gene": frozenset({"gene", "protein"}),
    "protein": frozenset({"protein", "gene"}),
    "peptide": frozenset({"protein", "gene"}),
    "hormone": frozenset({"protein", "gene"}),
    "disease": frozenset({"disease"}),
    "disorder": frozenset({"disease"}),
    "condition": frozenset({"disease"}),
    "syndrome": frozenset({"disease"}),
    "feature": frozenset({"phenotype"}),
    "symptom": frozenset({"phenotype"}),
    "sign": frozenset({"phenotype"}),
    "phenotype": frozenset({"phenotype"}),
    "finding": frozenset({"phenotype"}),
}
#: How a refusal of clauses that ask for different kinds of answers begins.
_MIXED_KINDS = "the question's clauses ask for different kinds of answers"
#: Below this embedding similarity no relation is guessed for an unknown phrase.
MIN_RELATION_SIMILARITY = 0.35

#: Question phrase → (relation, direction hint for relations between nodes of one type),
#: from the relation registry.
RELATION_PHRASES: list[tuple[re.Pattern[str], str, Hint]] = [
    (re.compile(phrase, re.IGNORECASE), name, hint)
    for name, relation in RELATIONS.items()
    for phrase, hint in relation.question_phrases
]
#: Plain examples of each relation's wording, for matching unknown phrases by embedding.
RELATION_EXAMPLES: dict[str, tuple[str, ...]] = {
    name: relation.examples for name, relation in RELATIONS.items() if relation.examples
}
_LEAD = re.compile(
    r"^\s*(?:(?:which|what|list|find|show(?: me)?|name|give(?: me)?|return|get|"
    r"tell me)\s+)?(?:(?:all|the|known|any|every|of)\s+)*",
    re.IGNORECASE,
)
_CONNECTOR = re.compile(
    r"^\s*(?:(?:that|which|who|are|is|were|also|both|all|the|(?:have|has)\s+been|known\s+to\s+be|"
    r"reported\s+to\s+be)\s+)*",
    re.IGNORECASE,
)
#: "X is linked to which genes", "X binds what receptors": the question word after the anchor.
_ANCHOR_FIRST = [
    re.compile(
        rf"^(?P<subject>(?!(?:which|what)\b).+?)\s+{aux}(?P<verb>\S.*?)\s+(?P<wh>which|what)\s+"
        r"(?P<rest>.+)$",
        re.IGNORECASE,
    )
    for aux in (r"(?P<aux>is|are|was|were|does|do|has|have)\s+", "")
]
_POSSESSIVE_QUESTION = re.compile(
    r"^(?:(?:what|which)\s+)?(?:(?:is|are)\s+)?(?P<anchor>.+?)(?:['’]s)?\s+"
    r"(?P<type>(?:\w+\s+)?\w+)$",
    re.IGNORECASE,
)
_HYPHENATED = re.compile(
    r"(?P<anchor>[A-Za-z0-9α-ω]+)-(?P<verb>associated|linked|related)\s+(?P<type>\w+)",
    re.IGNORECASE,
)
_PREPOSITION = {"associated": "with", "linked": "to", "related": "to"}
_SHARED_QUESTION = [
    re.compile(
        r"^(?P<type>.+?)\s+(?:(?:that\s+are\s+)?shared\s+by|common\s+to|in\s+common\s+"
        r"(?:to|between))\s+(?P<anchors>.+)$",
        re.IGNORECASE,
    ),
    re.compile(
        r"^(?P<type>.+?)\s+(?:do|does)\s+(?P<anchors>.+?)\s+(?:have\s+in\s+common|share|"
        r"both\s+have)$",
        re.IGNORECASE,
    ),
]
#: A trailing "both" after coordinated subjects ("do apoE and APP both bind").
#: Words around a gene or protein name that do not change which entity is meant ("the
#: protein encoded by the APOE gene", "the APOE gene product", "GRN (progranulin)").
_NAME_WRAPPERS = (
    re.compile(
        r"^(?:the\s+)?(?:(?:gene\s+)?products?|proteins?)\s+(?:encoded\s+by|of)\s+(?:the\s+)?",
        re.IGNORECASE,
    ),
    re.compile(r"\s+(?:gene(?:\s+products?)?|proteins?)$", re.IGNORECASE),
    re.compile(r"^the\s+", re.IGNORECASE),
    re.compile(r"\s*\([^()]*\)$"),
)
#: "… of X's phenotypes" at the end of a question: a possessive object.
_POSSESSIVE_OBJECT = re.compile(
    r"(?P<joint>\b(?:of|in|for|to|with|by))\s+(?P<anchor>[^,;]+?)['’]s\s+(?P<type>\w+)$",
    re.IGNORECASE,
)
#: A yes/no question: an auxiliary verb, then a clause "X <relation phrase> Y".
_YES_NO = re.compile(r"^\s*(?:is|are|does|do|did|can|was|were)\s+(?P<clause>.+)$", re.IGNORECASE)
#: Words between a yes/no question's subject and its relation phrase ("X a feature of Y").
_ARTICLE_AFTER = re.compile(r"\s+(?:a|an|the|one\s+of\s+the)\s*$", re.IGNORECASE)
_BOTH_AFTER = re.compile(r"\s+both\s*$", re.IGNORECASE)
_AUXILIARY_SUBJECT = re.compile(r"^\s*(?:does|do|did|is|are|can)\s+(.+?)\s*$", re.IGNORECASE)
_BOTH = re.compile(r"^\s*both\s+", re.IGNORECASE)
#: Words that make a question ask for what the KG does not say.
_NEGATION = re.compile(
    r"\b(?:never|no|none|without|except|excluding|other than|lacks?|lacking|absent)\b"
    r"|\bnot\b(?!\s+(?:via|through|by\s+way\s+of|indirectly)\b)|n't\b",
    re.IGNORECASE,
)  # "(… annotated to the gene itself, not via its diseases)" says which edges, not what not
_WORD = re.compile(r"\S+")
_EITHER = re.compile(r"^\s*either\s+", re.IGNORECASE)


class PlanningError(UnreadableQuestionError):
    """The question could not be turned into a QueryTree; the message says why."""


class NegatedQuestionError(PlanningError):
    """The question asks what the KG does not link: refused whatever else it names."""


class AnchorLink(BaseModel):
    """A question span linked to a KG entity, with the alternatives when it is ambiguous."""

    mention: str
    id: str
    name: str
    type: str
    score: float
    ambiguous: bool = False
    alternatives: list[dict[str, str | float]] = Field(default_factory=list)


class RelationLink(BaseModel):
    """A question phrase mapped to a KG relation and a direction."""

    phrase: str
    relation: str
    inverse: bool
    method: Literal["lexicon", "embedding", "signature", "llm"]
    score: float = 1.0


class QueryPlan(BaseModel):
    """What phase 2 executes, and how the question was read."""

    question: str
    query: QueryTree
    topology: str
    answer_type: str | None
    anchors: list[AnchorLink]
    relations: list[RelationLink]
    planner: Literal["offline", "llm"] = "offline"
    notes: list[str] = Field(default_factory=list)
    #: Everyday words of the question the offline reader could not place and left out.
    unread: list[str] = Field(default_factory=list)
    #: A yes/no question's entity ("Is LRRK2 associated with PD8?": LRRK2): the answer is
    #: yes when the query's answers hold it.
    candidate: AnchorLink | None = None
    #: The tree was fitted to the KG's type signatures from the question's names and
    #: relation words (its phrase structure was not recognised): a guess to check.
    guessed: bool = False

    @property
    def ambiguous(self) -> bool:
        """Whether the reading needs the user's check: an anchor with close alternatives, a
        relation guessed from an unknown wording by embedding similarity, words left out, or
        a tree guessed from the schema."""
        return (
            self.guessed
            or any(anchor.ambiguous for anchor in self.anchors)
            or any(relation.method == "embedding" for relation in self.relations)
            or bool(self.unread)
        )

    @classmethod
    def of(
        cls,
        question: str,
        tree: QueryNode,
        answer_type: str | None,
        anchors: list[AnchorLink],
        relations: list[RelationLink],
        **rest: object,
    ) -> QueryPlan:
        """The plan of ``tree`` (its topology filled in)."""
        return cls.model_validate(
            {
                "question": question,
                "query": tree,
                "topology": topology(tree),
                "answer_type": answer_type,
                "anchors": anchors,
                "relations": relations,
                **rest,
            }
        )


@dataclass(frozen=True, slots=True)
class _Relation:
    name: str
    hint: Hint
    phrase: str
    method: Literal["lexicon", "embedding", "signature"]
    score: float


#: Node types one kind of answer spans: a question for genes is answered by proteins too.
_KINDS_OF: dict[str, set[str]] = {
    "gene": {"gene", "protein"},
    "protein": {"gene", "protein"},
}


class OfflinePlanner:
    """Reads a question with patterns, the KG's type signatures and entity linking."""

    def __init__(
        self,
        store: GraphStore,
        linker: EntityIndex,
        *,
        embed: Callable[[Sequence[str]], np.ndarray] | None = None,
    ) -> None:
        self.store = store
        self.linker = linker
        self.embed = embed
        self.signatures: dict[str, set[tuple[str, str]]] = defaultdict(set)
        types = {node.id: node.type for node in store.nodes()}
        for edge in store.edges():
            self.signatures[edge.relation].add((types[edge.head], types[edge.tail]))
        # relation names and their description embeddings, computed once (shared by the
        # per-question copies: the dict is the same object)
        self._relation_vectors: dict[str, tuple[list[str], np.ndarray]] = {}
        # What one question links, filled on the per-question copy that ``plan`` reads with.
        self.anchors: list[AnchorLink] = []
        self.relations: list[RelationLink] = []
        self.answer_hint: Hint = None
        #: how a mention was read beyond its name, said in the plan's notes
        self.readings: list[str] = []
        #: anchors read as a family's class (:meth:`_family`) → how many subclass_of levels
        #: below it its members sit
        self.families: dict[str, int] = {}

    # -- the grammar -------------------------------------------------------------------------

    def plan(self, question: str) -> QueryPlan:
        """The QueryPlan for ``question``; :class:`PlanningError` when it cannot be read.

        The phrase structure (:mod:`kgrecall.agents.chart`) reads first; when it cannot,
        the patterns (which also guess an unknown relation wording by embedding) do. The
        answers are then kept to the kind the question asks for (:meth:`_of_asked_type`).
        A refusal names the question's phenotypes, diseases and genes the KG lacks."""
        try:
            return self._of_asked_type(self._plan(question))
        except NegatedQuestionError:
            raise  # refused for the negation, whatever the KG holds
        except PlanningError as error:
            try:
                lacking = self._lacking(question)
            except KGError as unreadable:  # a broken name table: the refusal's reason stands
                log.warning("cannot name the terms the KG lacks: %s", unreadable)
                lacking = ""
            if not lacking:
                raise
            raise PlanningError(f"{error}; {lacking}") from None

    def _lacking(self, question: str) -> str:
        """ "'hypotonia' is HPO's phenotype Hypotonia (HP:0001252), which this KG does not
        hold": the question's names of phenotypes, diseases and genes that HPO, MONDO or HGNC
        know and the KG lacks, else "" — why "which diseases have hypotonia" cannot be
        answered, where "could not read" alone would not say. A disease or gene counts only
        when the KG knows nothing by its name (the KG keys its records by OMIM, Orphanet and
        NCBI Gene ids, so the vocabulary's MONDO or HGNC id alone does not tell)."""
        said = []
        for phrase, term in vocabulary_terms(question):
            prefix = term.partition(":")[0]
            if prefix not in _OUTSIDE_KINDS or self.store.has_node(term):
                continue
            if prefix != "HP" and self.linker.lookup(phrase):
                continue
            if prefix == "HGNC" and len(phrase) < 3:
                continue  # "C2", "AR": a two-letter symbol is as often a subtype or a mode
            label = vocabulary_labels().get(term, term)
            said.append(f"{phrase!r} is {_OUTSIDE_KINDS[prefix]} {label} ({term})")
        if not said:
            return ""
        if len(said) == 1:
            return f"{said[0]}, which this KG does not hold"
        return f"{'; '.join(said)}: this KG holds none of them"

    def _of_asked_type(self, plan: QueryPlan) -> QueryPlan:
        """``plan`` kept to its answer type (:meth:`_kept_to`)."""
        if plan.answer_type is None:
            return plan
        tree = self._kept_to(plan.query, plan.answer_type)
        return plan if tree == plan.query else plan.model_copy(update={"query": tree})

    def _kept_to(self, node: QueryNode, kind: str) -> QueryNode:
        """``node`` with its last hops kept to answers of ``kind`` where their relation also
        reaches other types ("which diseases present with dystonia": ``has_phenotype`` read
        backwards reaches genes too); genes and proteins count as one kind."""
        wanted = _KINDS_OF.get(kind, {kind})
        reached = self._reached(node)
        if not reached & wanted or not reached - wanted:
            return node  # nothing of that kind, or nothing else: kept as it is
        if isinstance(node, IntersectQuery | UnionQuery):
            inputs = [self._kept_to(child, kind) for child in node.inputs]
            return node.model_copy(update={"inputs": inputs})
        if isinstance(node, ProjectQuery):
            return node.model_copy(update={"types": tuple(sorted(reached & wanted))})
        return node

    def _reached(self, node: QueryNode) -> set[str]:
        """The node types ``node``'s answers can have, by the relations' type signatures."""

        def project(hop: ProjectQuery, given: set[str]) -> set[str]:
            ends = {
                head if hop.inverse else tail
                for head, tail in self.signatures.get(hop.relation, set())
                if (tail if hop.inverse else head) in given
            }
            return ends if hop.types is None else ends & set(hop.types)

        def join(node: IntersectQuery | UnionQuery, kinds: list[set[str]]) -> set[str]:
            return set.intersection(*kinds) if node.op == "intersect" else set.union(*kinds)

        return fold(node, lambda leaf: {self.store.get_node(leaf.id).type}, project, join)

    def _plan(self, question: str) -> QueryPlan:
        text = _RESULT_REQUEST.sub("", _question_last(question).rstrip("?.! "))
        text = _TRAILING_REQUEST.sub("", text.rstrip("?.! ")).strip()
        text = self._without_own_plans(text)
        text = _RELATION_NAME.sub(
            lambda m: m[0].replace("_", " ") if m[0] in self.signatures else m[0], text
        )
        if not text:
            raise PlanningError("the question is empty")
        self.refuse_negation(question)
        text = self._same_as_named(text)
        sentences = _SENTENCE_END.split(text)
        # "designing a panel: genes implicated in …", "we're phenotyping a cohort - what …"
        *scene, last = _SCENE_BREAK.split(sentences[-1])
        if scene and len(sentences) > 1 and self._names_entity(" ".join(scene)):
            # "(the whole PARK crew basically) PINK1 - which genes … it's linked to?": a last
            # sentence that puts its own topic first is the question, what comes before it
            # a remark
            plan = self._read(question, sentences[-1])
            if plan is not None:
                return self._noted(plan, " ".join(sentences[:-1]))
        sentences[-1:] = [" ".join(scene), last] if scene else [last]
        # "HER3/HER4 - ligands that hit both": a topic, then what is asked about it
        topic = " ".join(scene) if len(sentences) == 2 and _DASH_TOPIC.search(text) else None
        # "Planning a dementia panel. Genes implicated in bvFTD?": the sentences before the
        # question set the scene; read without them when the whole cannot be read
        asked = sentences[-1].rstrip("?.! ").strip() if len(sentences) > 1 else None
        if asked and not scene and _REFERRING.search(asked):
            # "my son has an SCN8A variant. is that one of the genes for Dravet?": the last
            # sentence is the question, its reference filled from the sentences before it (a
            # scene before a colon is read with it: "Wilson disease gene: … is it annotated
            # with?" refers to the gene, not to the disease its tag names)
            with contextlib.suppress(PlanningError):  # else read as a whole, as below
                plan = self._asked_alone(question, asked, " ".join(sentences[:-1]))
                if plan is not None:
                    return plan
        try:
            return self._reading()._phrases(question, text)
        except PlanningError as unread:
            if str(unread).startswith(_MIXED_KINDS):
                raise  # read, but it asks for two kinds at once: no pattern guesses further
            try:
                return self._reading()._patterns(question, text)
            except PlanningError as error:
                if topic and asked:
                    plan = self._about_topic(question, asked, topic)
                    if plan is not None:
                        return plan
                if asked:
                    plan = self._asked_alone(question, asked, " ".join(sentences[:-1]))
                    if plan is not None:
                        return plan
                guessed = self._by_schema(question, text)
                if guessed is not None:
                    return guessed
                # the words neither reading knows, else the patterns' reason (it names the
                # closest entity or relation)
                raise (unread if str(unread).startswith(chart.UNREAD) else error) from None

    def _read(self, question: str, text: str) -> QueryPlan | None:
        """``text`` read by its phrase structure, else by the patterns; ``None`` when neither
        reads it."""
        try:
            return self._reading()._phrases(question, text)
        except PlanningError:
            try:
                return self._reading()._patterns(question, text)
            except PlanningError:
                return None

    def _slash_list(self, match: re.Match[str]) -> str:
        """ "HER3/HER4" as "HER3 and HER4" when each side names an entity and the whole does
        not (a name with a slash, "hypocretin/orexin" as one, stays)."""
        if self._exact(match[0]) or not (self._exact(match["a"]) and self._exact(match["b"])):
            return match[0]
        return f"{match['a']} and {match['b']}"

    def _about_topic(self, question: str, asked: str, topic: str) -> QueryPlan | None:
        """A search-style "TOPIC - what is asked" read as the asked phrase about the topic
        ("parkin (PRKN) - annotated HPO phenotypes": "annotated HPO phenotypes of parkin
        (PRKN)"; "HER3/HER4 - ligands that hit both": "ligands that hit both HER3 and HER4"),
        flagged with a note; ``None`` when that cannot be read either."""
        joint = " " if _ENDS_WITH_QUANTIFIER.search(asked) else " of "
        topic = _SLASHED.sub(self._slash_list, topic)  # a search topic lists by slashes
        text = f"{asked}{joint}{topic}"
        plan = self._read(question, text)
        if plan is None:
            return None
        plan.notes.insert(0, f"read {question.strip()!r} as {text!r}")
        plan.unread.insert(0, f"{topic} -")  # the reordering is a guess: flagged
        return plan

    def _referents_filled(self, asked: str, context: str) -> tuple[str, str] | None:
        """``asked`` with its back references replaced by the names the context gives them
        ("I'm weighing PRRT2 against SLC2A1. Which conditions have both genes been tied to?":
        "PRRT2 and SLC2A1"), and what was read for what; ``None`` when a reference has no
        name of its kind in the context, or several where it means one."""
        named = self._context_names(context)
        readings: list[str] = []

        def fill(match: re.Match[str]) -> str:
            if match["pair"]:  # "both of those", "either one": the last two names
                pair = list(dict.fromkeys(text for text, _ in named))[-2:]
                if len(pair) < 2:
                    raise LookupError(match[0])
                first = match["pair"].split()[0].lower()
                joined = (
                    f"either {pair[0]} or {pair[1]}" if first == "either" else " and ".join(pair)
                )
                joined = f"both {joined}" if first == "both" else joined
                readings.append(f"{match[0]!r} as {joined!r}")
                return joined
            if match["pronoun"]:
                name = named[0][0] if len(named) == 1 else _subject_named(context, named)
                if name is None:
                    raise LookupError(match[0])
                readings.append(f"{match[0]!r} as {name!r}")
                return f"{name}'s" if match["pronoun"].lower() == "its" else name
            noun = match["noun"].lower().rstrip("s")
            kinds = _REFERRED_TYPES[noun]
            names = list(dict.fromkeys(text for text, types in named if types & kinds))
            det = match["det"].lower()
            plural = match["noun"].lower().endswith("s") or det.startswith(("both", "either"))
            if not names or (plural and len(names) < 2):
                raise LookupError(match[0])
            if not plural:
                names = names[-1:]  # "that protein": the last one named
            elif det.startswith(("both", "either", "the two")):
                names = names[-2:]  # "both of those features": the last two named
            joined = (" or " if det.startswith("either") else " and ").join(names)
            if det.startswith(("both", "either")):  # "both genes" asks for what they share
                joined = f"{det.split()[0]} {joined}"
            readings.append(f"{match[0]!r} as {joined!r}")
            return joined

        try:
            filled = _REFERRING.sub(fill, asked)
        except LookupError:
            return None
        if not readings or _BACK_REFERENCE.search(_REFERRING.sub("", asked)):
            return None  # a reference left that the context does not fill
        return filled, ", ".join(readings)

    def _context_names(self, context: str) -> list[tuple[str, set[str]]]:
        """The names the context gives, each once, with the node types they may be."""
        named: list[tuple[str, set[str]]] = []
        seen: set[str] = set()
        for tag in chart.tag(context, self.linker):
            everyday = tag.text.islower() and chart.everyday(tag.text)  # "jerky movements"
            if tag.kind == "entity" and tag.entities and not tag.fuzzy and not everyday:
                if tag.entities[0].id not in seen:  # "the GLUT1 gene SLC2A1" names one gene
                    named.append((tag.text, {e.type for e in tag.entities}))
                seen.update(e.id for e in tag.entities)
        return named

    def _topic_filled(self, asked: str, context: str) -> list[str]:
        """Readings of a last sentence that names nothing, about the one name its context
        gives ("My daughter was just diagnosed with Friedreich's ataxia. What symptoms should
        we expect?": "What symptoms of Friedreich's ataxia"); none when the sentence names
        something or the context names no single topic."""
        if _THOSE.search(asked) or any(
            tag.kind == "entity" for tag in chart.tag(asked, self.linker)
        ):
            return []  # "… those specific forms" refers to what the context describes
        named = self._context_names(context)
        if len(named) != 1:
            return []
        topic = named[0][0]
        asked = _EXPECTING.sub("", asked)
        if _TOPIC_REFERENCE.search(asked):  # "the same gene as hers", "his condition's"
            return [_TOPIC_REFERENCE.sub(lambda m: _as_topic(m, topic), asked)]
        return [f"{asked} {joint} {topic}" for joint in ("of", "for", "in")]

    def _asked_alone(self, question: str, asked: str, context: str) -> QueryPlan | None:
        """The plan of a question's last sentence read alone, with a note saying what was
        taken as context; a reference back to the context ("… annotated with that sign") is
        read as the names the context gives it (:meth:`_referents_filled`). ``None`` when it
        cannot be read either, or refers back to what the context does not name: then it is
        no question of its own."""
        if _BACK_REFERENCE.search(asked) or _REFERRING.search(asked):
            resolved = self._referents_filled(asked, context)
            if resolved is not None:
                asked, filled = resolved
                context = f"{context} (read {filled})"
            elif reference := _BACK_REFERENCE.search(asked):
                named_before = self._names_entity(asked[: reference.start()])
                if self._context_names(context) and not named_before:
                    return None
                # a context that names nothing is referred to by nothing, and a name before
                # the reference is what it refers to ("SHH receptors -> their genes"): the
                # reference is inside the sentence ("For the ALS genes, which ligands bind the
                # proteins they encode?" after a remark), read with it or not at all
                plan = self._read(question, asked)
                return None if plan is None else self._noted(plan, context)
        plan = None
        for filled in self._topic_filled(asked, context):
            plan = self._read(question, filled)
            if plan is not None:
                context = f"{context} (read {filled!r})"
                break
        plan = plan or self._read(question, asked) or self._by_schema(question, asked)
        return None if plan is None else self._noted(plan, context)

    def _without_own_plans(self, text: str) -> str:
        """``text`` without a last remark on what the asker will do with the answer ("…, going
        to stain for all of them", "… — I need guides for all of them") when it names
        nothing."""
        tail = _OWN_PLANS.search(text)
        if tail is None or tail.start() == 0 or self._names_entity(tail[0]):
            return text
        return text[: tail.start()]

    def _same_as_named(self, text: str) -> str:
        """ "the same gene" said of the one name before it ("Kufor-Rakeb — which disorders
        linked to the same gene show …"): the same gene as that name."""
        match = _SAME_WITHOUT_AS.search(text)
        if match is None:
            return text
        before = text[: match.start()]
        named = self._context_names(before)
        if len(named) != 1:
            return text
        topic = _NAME_FIRST.match(before)  # the name was only the topic: the question is after
        start = topic.end() if topic and named[0][0] in topic["name"] else 0
        return f"{text[start : match.end()]} as {named[0][0]}{text[match.end() :]}"

    def _names_entity(self, text: str) -> bool:
        """Whether ``text`` names an entity (not by fuzzy search)."""
        return any(tag.kind == "entity" and not tag.fuzzy for tag in chart.tag(text, self.linker))

    @staticmethod
    def _noted(plan: QueryPlan, context: str) -> QueryPlan:
        """``plan`` of the last sentence, flagged: what the context says is not checked."""
        plan.notes.insert(0, f"read the last sentence as the question; {context!r} before it "
                             "was taken as context, not read")  # fmt: skip
        plan.unread.insert(0, context)
        return plan

    def _by_schema(self, question: str, text: str) -> QueryPlan | None:
        """The last resort: the question's names and relation words fitted to the KG's type
        signatures (:mod:`kgrecall.agents.schema_reading`), planned as a guess."""
        reading = read_by_schema(text, self.linker, self.store, self.signatures, chart.MEANINGFUL)
        if reading is None:
            return None
        anchors = [
            AnchorLink(mention=mention, id=e.id, name=e.name, type=e.type, score=round(e.score, 4))
            for mention, e in reading.anchors
        ]
        relations = [
            RelationLink(phrase=words or f"{hop.source} → {hop.target}", relation=hop.relation,
                         inverse=hop.inverse, method="lexicon" if words else "signature")
            for hop, words in reading.hops
        ]  # fmt: skip
        notes = [f"guessed: {GUESSED}"]
        if reading.runner_up is not None:
            notes.append(f"another reading: {reading.runner_up}")
        candidate, tree = None, reading.query
        if reading.candidate is not None:
            mention, e = reading.candidate
            candidate = AnchorLink(mention=mention, id=e.id, name=e.name, type=e.type,
                                   score=round(e.score, 4))  # fmt: skip
            notes.append(f"a yes/no question: yes when {e.name} is among the answers")
            tree = self._either_way(reading.query, e.id, notes)
        return QueryPlan.of(question, tree, reading.answer_type, anchors, relations,
                            notes=notes, unread=reading.unplaced, candidate=candidate,
                            guessed=True)  # fmt: skip

    def _reading(self) -> OfflinePlanner:
        """A per-question copy (the planner is shared between threads)."""
        reading = copy.copy(self)
        reading.anchors, reading.relations, reading.answer_hint = [], [], None
        reading.readings = []
        reading.families = {}
        return reading

    def _patterns(self, question: str, text: str) -> QueryPlan:
        reading = self
        body = _LEAD.sub("", _anchor_first(_unhyphenated(text)), count=1)
        possessive = _possessive_object(body)
        if possessive is not None and self._relation_at_start(possessive[1]):
            body = possessive[0]  # "<type> of X" is a relation phrase: a chain reads it
        reading.answer_hint = next((h for p, h in TYPE_HINTS if p.match(body)), None)
        answer_type, rest = self._leading_type(body)
        for reader in (reading._possessive, reading._shared):
            read = reader(body)
            if read is not None:
                tree, asked = read
                return QueryPlan.of(question, tree, asked, reading.anchors, reading.relations,
                                    notes=reading.readings)  # fmt: skip
        asked_about = reading._yes_no(text)
        if asked_about is not None:
            tree, candidate = asked_about
            return QueryPlan.of(
                question, tree, candidate.type, reading.anchors, reading.relations,
                candidate=candidate,
                notes=[*reading.readings,
                       f"a yes/no question: yes when {candidate.name} is among the answers"],
            )  # fmt: skip
        opening = self._relation_at_start(body)
        if answer_type is not None and opening is not None:
            rest = body  # "phenotypes of …": the type word is part of the relation phrase
        inverted = reading._subject_question(answer_type, rest)
        tree = inverted if inverted is not None else reading._branches(rest, answer_type)
        return QueryPlan.of(question, tree, answer_type, reading.anchors, reading.relations,
                            notes=reading.readings)  # fmt: skip

    # -- the phrase structure -----------------------------------------------------------------

    def _phrases(self, question: str, text: str) -> QueryPlan:
        """The plan from the question's phrase structure (:func:`chart.read`)."""
        try:
            reading = chart.read(text, self.linker)
        except chart.PhraseError as error:
            raise PlanningError(str(error)) from None
        if reading.candidate is not None:  # "Does HD present with chorea": the disease
            tag = reading.candidate.tag
            tag.entities = _named_for_disease(tag.entities)
        tree = self._phrase(reading.answer)
        if reading.listed_with:
            tree = UnionQuery(inputs=[tree, *map(self._phrase, reading.listed_with)])
        notes = [f"{g!r} linked by fuzzy search: check this reading" for g in reading.guessed]
        notes += [f"read {wrong!r} as {right!r}" for wrong, right in reading.corrected]
        notes += [
            f"left out {words!r}: the reader could not place it; check this reading"
            for words in reading.ignored
        ]
        if reading.listed:
            notes.append("read the question as a request to list what it describes")
        if reading.siblings:
            notes.append("read siblings as the children of its parents: it is among them")
        notes += self.readings
        tree = self._through_subtypes(tree, notes)
        narrowed = self._subtypes_of(tree, reading)
        if narrowed is not None:
            tree, note = narrowed
            notes.append(note)
        else:
            notes += [
                f"read {words!r} as any {kind}: the answers are not checked to be {words}"
                for words, kind in reading.broadened
            ]
        answer_type = self._type_of(tree)
        if reading.candidate is None:
            return QueryPlan.of(question, tree, answer_type, self.anchors, self.relations,
                                notes=notes, unread=reading.ignored)  # fmt: skip
        tag = reading.candidate.tag
        fitting = [e for e in tag.entities if answer_type is None or e.type == answer_type]
        if not fitting:
            raise PlanningError(
                f"{tag.text!r} is no {answer_type}, so it cannot be among the answers"
            )
        best = fitting[0]
        candidate = AnchorLink(mention=tag.text, id=best.id, name=best.name, type=best.type,
                               score=round(best.score, 4))  # fmt: skip
        tree = self._either_way(tree, best.id, notes)
        notes.append(f"a yes/no question: yes when {best.name} is among the answers")
        return QueryPlan.of(question, tree, answer_type, self.anchors, self.relations,
                            candidate=candidate, notes=notes, unread=reading.ignored)  # fmt: skip

    def _either_way(self, tree: QueryNode, candidate: str, notes: list[str]) -> QueryNode:
        """A yes/no question on a relation worded with no direction ("Does agrin bind MuSK",
        "Do A and B interact"): the KG stores each pair one way, so the hop is read the way
        that holds the candidate when only that one does (said in ``notes``)."""
        if (
            self.answer_hint is not None
            or not isinstance(tree, ProjectQuery)
            or not isinstance(tree.input, EntityQuery)
            or not _undirected(tree.relation)
            or candidate in execute_sets(self.store, tree)[0]
        ):
            return tree
        other = tree.model_copy(update={"inverse": not tree.inverse})
        if candidate not in execute_sets(self.store, other)[0]:
            return tree
        notes.append(f"{tree.relation} claims no direction: checked the other way round")
        self.relations[-1] = self.relations[-1].model_copy(update={"inverse": other.inverse})
        return other

    def _through_subtypes(self, tree: QueryNode, notes: list[str]) -> QueryNode:
        """``tree`` with each hop from a disease group that has no such edge of its own
        taken from the group's direct subtypes instead ("the genes of pure HSP": MONDO's
        grouping classes hold no genes, their subtypes do) — or, when those have none
        either, from its subtypes down to :data:`SUBTYPE_LEVELS` levels ("genes linked to
        epilepsy": the genes sit two and more levels down) — each said in ``notes``."""
        if isinstance(tree, ProjectQuery):
            start = tree.input
            if (
                isinstance(start, EntityQuery)
                and tree.relation != "subclass_of"
                and "subclass_of" in self.signatures
                and self.store.has_node(start.id)
                and self.store.get_node(start.id).type == "disease"
                and not execute_sets(self.store, tree)[0]
            ):
                name = self.store.get_node(start.id).name
                subtypes = ProjectQuery(relation="subclass_of", inverse=True, input=start)
                widened = tree.model_copy(update={"input": subtypes})
                if execute_sets(self.store, widened)[0]:
                    notes.append(
                        f"{name} ({start.id}) has no {tree.relation} edges of its own: read "
                        "as those of its direct subtypes"
                    )
                    return widened
                levels: list[QueryNode] = [subtypes]
                while len(levels) < SUBTYPE_LEVELS:
                    levels.append(ProjectQuery(relation="subclass_of", inverse=True,
                                               input=levels[-1]))  # fmt: skip
                widened = tree.model_copy(update={"input": UnionQuery(inputs=levels)})
                if execute_sets(self.store, widened)[0]:
                    notes.append(
                        f"{name} ({start.id}) has no {tree.relation} edges of its own, nor "
                        f"have its direct subtypes: read as those of its subtypes down to "
                        f"{SUBTYPE_LEVELS} levels (an uncalibrated shape: answered by retrieval)"
                    )
                    return widened
            return tree.model_copy(update={"input": self._through_subtypes(start, notes)})
        if isinstance(tree, IntersectQuery | UnionQuery):
            inputs = [self._through_subtypes(child, notes) for child in tree.inputs]
            return tree.model_copy(update={"inputs": inputs})
        return tree

    def _subtypes_of(self, tree: QueryNode, reading: chart.Reading) -> tuple[QueryNode, str] | None:
        """ "Which inherited dystonias feature myoclonus": the answers among the direct
        subtypes of the one category the question opens with, when some are (the KG says
        what a category holds one subclass_of hop at a time); None otherwise."""
        if len(reading.categories) != 1 or "subclass_of" not in self.signatures:
            return None
        (category,), ((_, kind),) = reading.categories, reading.broadened
        kinds = [e for e in category.entities if e.type == kind]
        if not kinds:
            return None
        subtypes = ProjectQuery(
            relation="subclass_of", inverse=True, input=EntityQuery(id=kinds[0].id)
        )
        inputs = tree.inputs if isinstance(tree, IntersectQuery) else [tree]
        narrowed = IntersectQuery(inputs=[subtypes, *inputs])
        if not execute_sets(self.store, narrowed)[0]:
            return None
        self.anchors.append(
            AnchorLink(mention=category.text, id=kinds[0].id, name=kinds[0].name,
                       type=kinds[0].type, score=round(kinds[0].score, 4))
        )  # fmt: skip
        self.relations.append(
            RelationLink(phrase=category.text, relation="subclass_of", inverse=True,
                         method="signature")
        )  # fmt: skip
        return narrowed, (
            f"read {category.text!r} as the direct subtypes of {kinds[0].name} ({kinds[0].id})"
        )

    def _phrase(self, phrase: chart.Phrase) -> QueryNode:
        """The answers of a noun phrase: its clauses, intersected (or united by "or")."""
        head = phrase.head
        answer_type = head.node_type if head is not None else None
        hint = head.hint if head is not None else None
        linked = len(self.anchors), len(self.relations)
        children = self._clauses(phrase, answer_type, hint)
        if not children:
            raise PlanningError("no relation phrase says what the answers are")
        kinds = [self._type_of(child) for child in children]
        if answer_type is None and len(set(kinds)) > 1:
            # "Which forms of dystonia are linked to TOR1A": the clauses must agree on one
            # answer type; a clause that changes type (gene → disease) says which
            changing = [
                kind
                for kind, clause in zip(kinds, phrase.clauses, strict=True)
                if kind and self._changes_type(clause.relation.relation)
            ]
            for kind in dict.fromkeys([*changing, *sorted(k for k in kinds if k)]):
                del self.anchors[linked[0] :], self.relations[linked[1] :]
                try:
                    agreeing = [self._repeated(c, kind, hint) for c in phrase.clauses]
                except PlanningError:
                    continue
                if {self._type_of(child) for child in agreeing} == {kind}:
                    children = agreeing
                    break
            else:
                del self.anchors[linked[0] :], self.relations[linked[1] :]
                children = self._clauses(phrase, answer_type, hint)
                found = sorted({k for k in map(self._type_of, children) if k})
                if len(found) > 1:  # "Which mutations in LRRK2 cause PD8": no one kind
                    raise PlanningError(f"{_MIXED_KINDS} ({', '.join(found)}); say which is meant")
        if len(children) == 1:
            tree = children[0]
        else:
            tree = _combine(children, [clause.joiner for clause in phrase.clauses[1:]])
        return tree if answer_type is None else self._kept_to(tree, answer_type)

    def _clauses(
        self, phrase: chart.Phrase, answer_type: str | None, hint: Hint
    ) -> list[QueryNode]:
        """The phrase's clauses in order; with no answer type said, a clause that needs one
        ("the Parkinson disease subtypes *with* RLS") takes the type of the clauses before it."""
        children: list[QueryNode] = []
        for clause in phrase.clauses:
            linked = len(self.anchors), len(self.relations)
            try:
                children.append(self._repeated(clause, answer_type, hint))
            except PlanningError:
                known = next((kind for kind in map(self._type_of, children) if kind), None)
                if answer_type is not None or known is None:
                    raise
                del self.anchors[linked[0] :], self.relations[linked[1] :]
                children.append(self._repeated(clause, known, hint))
        return children

    def _named_object(self, clause: chart.Clause) -> chart.Clause:
        """ "genes that have a phenotype of tremor": an argument that only repeats its verb's
        relation as "<noun> of" names the object itself (tremor is the phenotype), for a
        relation between two kinds (a hierarchy's "subtypes of subtypes of" goes two levels)."""
        inner = clause.argument
        if inner.head is not None or inner.mentions or len(inner.clauses) != 1:
            return clause
        (named,) = inner.clauses
        relation = clause.relation.relation
        between_kinds = all(h != t for h, t in self.signatures.get(relation, {("", "")}))
        if (
            relation
            and between_kinds
            and named.relation.relation == relation
            and named.relation.text.lower().endswith(" of")
            and not clause.relation.text.lower().endswith(" of")
            and not named.subject
        ):
            return dataclasses.replace(clause, argument=named.argument)
        return clause

    def _clause(self, clause: chart.Clause, answer_type: str | None, hint: Hint) -> QueryNode:
        """One relation phrase with its argument, as projections of the argument; a wording
        of a relation this KG lacks ("receptors targeted by WNT1" where only interacts_with
        joins proteins) means the one relation joining the types, if there is one."""
        clause = self._named_object(clause)
        tag = clause.relation
        if not tag.relation or tag.relation in self.signatures:
            linked = len(self.anchors), len(self.relations)
            try:
                return self._worded_clause(clause, tag, answer_type, hint)
            except PlanningError:
                if tag.text.lower() not in _GENERIC_VERBS:
                    raise
            # "the genes that A and B have in common": "have" says only that the two are
            # joined, by whichever relation joins their types
            del self.anchors[linked[0] :], self.relations[linked[1] :]
            return self._worded_clause(
                clause, dataclasses.replace(tag, relation=""), answer_type, hint
            )
        try:
            return self._worded_clause(
                clause, dataclasses.replace(tag, relation=""), answer_type, hint
            )
        except PlanningError as error:
            raise PlanningError(
                f"the KG has no {tag.relation!r} edges (read from {tag.text!r}); {error}"
            ) from None

    def _worded_clause(
        self, clause: chart.Clause, tag: chart.Tag, answer_type: str | None, hint: Hint
    ) -> QueryNode:
        said = tag.hint
        if clause.subject and said is not None:  # "X is a kind of …": X is the subject
            said = "forward" if said == "inverse" else "inverse"
        relation = _Relation(tag.relation, said, tag.text,
                             "lexicon" if tag.relation else "signature", 1.0)  # fmt: skip
        answer_type = answer_type or tag.node_type  # "is X a ligand for": proteins
        outer, self.answer_hint = self.answer_hint, hint
        try:
            argument = clause.argument
            if argument.mentions:
                children = [
                    self._mentioned(relation, tag, answer_type)
                    for tag in _agreeing([mention.tag for mention in argument.mentions])
                ]
                if len(children) == 1:
                    return children[0]
                if tag.relation in RELATIONS and RELATIONS[tag.relation].same_name:
                    # "the products of APP and PSEN1": one product each, so each one's
                    return UnionQuery(inputs=children)
                return _combine(children, argument.joiners)
            inner = self._phrase(argument)
            inner_type = (argument.head.node_type if argument.head else None) or self._type_of(
                inner
            )
            return self._project_node(relation, inner, inner_type, answer_type)
        finally:
            self.answer_hint = outer

    def _changes_type(self, relation: str) -> bool:
        """Whether every edge of ``relation`` joins two node types (gene → disease)."""
        pairs = self.signatures.get(relation, set())
        return bool(pairs) and all(head != tail for head, tail in pairs)

    def _repeated(self, clause: chart.Clause, answer_type: str | None, hint: Hint) -> QueryNode:
        """A clause whose relation takes several hops ("grandparents of X")."""
        node = self._clause(clause, answer_type, hint)
        tag = clause.relation
        for _ in range(tag.repeat - 1):
            relation = _Relation(tag.relation, tag.hint, tag.text, "lexicon", 1.0)
            node = self._project_node(relation, node, self._type_of(node), answer_type)
        return node

    def _mentioned(self, relation: _Relation, tag: chart.Tag, answer_type: str | None) -> QueryNode:
        anchor = self._link(tag.text, relation.name, answer_type, found=tag.entities,
                            guessed=tag.fuzzy)  # fmt: skip
        self.anchors.append(anchor)
        node = self._project_node(relation, self._anchored(anchor), anchor.type, answer_type)
        if execute_sets(self.store, node)[0]:
            return node
        if not self._grouping(tag, anchor):
            return self._answered_reading(relation, tag, anchor, answer_type) or node
        # "genes implicated in the progressive myoclonus epilepsies": a grouping term the KG
        # annotates only through its members stands for its direct subtypes
        self.relations.pop()
        name = relation.name or (node.relation if isinstance(node, ProjectQuery) else "")
        self.readings.append(
            f"read {tag.text!r} as the direct subtypes of {anchor.name} ({anchor.id}), which "
            f"has no {name + ' ' if name else ''}edges of its own"
        )
        members = ProjectQuery(
            relation="subclass_of", inverse=True, input=EntityQuery(id=anchor.id)
        )
        self.relations.append(
            RelationLink(phrase=tag.text, relation="subclass_of", inverse=True, method="signature")
        )
        return self._project_node(relation, members, anchor.type, answer_type)

    def _answered_reading(
        self, relation: _Relation, tag: chart.Tag, anchor: AnchorLink, answer_type: str | None
    ) -> QueryNode | None:
        """ "Genes linked to dystonia": when the KG holds no answer from the entity a mention
        was linked to (MONDO's dystonic disorder has no genes, nor have its direct subtypes),
        the mention's other reading by name, of another type, that it does answer from (HPO's
        Dystonia: the genes of the diseases with that phenotype, as "genes associated with
        chorea" reads), said in the readings. Only for a wording that says no more than that
        the two are associated; None when no such reading answers."""
        worded = RELATIONS.get(relation.name)
        if tag.fuzzy or (relation.name and not (worded and worded.generic)):
            return None
        if anchor.type == "disease" and "subclass_of" in self.signatures:
            members = ProjectQuery(
                relation="subclass_of", inverse=True, input=EntityQuery(id=anchor.id)
            )
            linked = len(self.relations)
            try:
                widened = self._project_node(relation, members, anchor.type, answer_type)
            except PlanningError:
                widened = None
            del self.relations[linked:]  # only tried
            if widened is not None and execute_sets(self.store, widened)[0]:
                return None  # its subtypes answer: so read by _through_subtypes
        linked = len(self.relations)
        for entity in tag.entities:
            if entity.type == anchor.type or entity.match == "fuzzy":
                continue
            for node in self._readings_from(relation, entity, answer_type):
                if execute_sets(self.store, node)[0]:
                    del self.relations[linked - 1 : linked]  # the first reading's relation
                    self.anchors[-1] = AnchorLink(
                        mention=anchor.mention, id=entity.id, name=entity.name,
                        type=entity.type, score=round(entity.score, 4),
                        alternatives=[{"id": anchor.id, "name": anchor.name,
                                       "score": anchor.score}],
                    )  # fmt: skip
                    self.readings.append(
                        f"read {tag.text!r} as the {entity.type} {entity.name} ({entity.id}): "
                        f"the KG holds no answer from the {anchor.type} {anchor.name} "
                        f"({anchor.id})"
                    )
                    return node
                del self.relations[linked:]
        return None

    def _readings_from(
        self, relation: _Relation, entity: LinkedEntity, answer_type: str | None
    ) -> Iterator[QueryNode]:
        """Queries from ``entity`` to answers of ``answer_type`` by ``relation``'s wording:
        one hop when a relation joins the two types and its answers are of that type only,
        else the worded relation from each type it joins to the answers, reached from the
        entity by the one relation joining them (each relation recorded as it is read)."""
        start = EntityQuery(id=entity.id)
        with contextlib.suppress(PlanningError):
            node = self._project_node(relation, start, entity.type, answer_type)
            if self._reaches_only(node, answer_type):
                yield node
            else:
                del self.relations[-1]
        middles = sorted(
            {
                other
                for head, tail in self.signatures.get(relation.name, set())
                for side, other in ((head, tail), (tail, head))
                if side == answer_type and other not in (answer_type, entity.type)
            }
        )
        for middle in middles:
            linked = len(self.relations)
            bare = _Relation("", None, relation.phrase, "signature", relation.score)
            try:
                inner = self._project_node(bare, start, entity.type, middle)
                node = self._project_node(relation, inner, middle, answer_type)
            except PlanningError:
                del self.relations[linked:]
                continue
            if self._reaches_only(node, answer_type):
                yield node
            else:
                del self.relations[linked:]

    def _reaches_only(self, node: QueryNode, answer_type: str | None) -> bool:
        """Whether every answer of ``node``'s last hop is of ``answer_type`` (has_phenotype
        read backwards reaches genes and diseases: no answer to "which genes")."""
        if answer_type is None or not isinstance(node, ProjectQuery):
            return True
        pairs = self.signatures.get(node.relation, set())
        return {head if node.inverse else tail for head, tail in pairs} == {answer_type}

    def _grouping(self, tag: chart.Tag, anchor: AnchorLink) -> bool:
        """Whether a mention names a category in the plural ("the progressive myoclonus
        epilepsies" for "progressive myoclonus epilepsy") that has direct subtypes."""
        if "subclass_of" not in self.signatures or not tag.text.lower().endswith("s"):
            return False
        if tag.text.lower() == anchor.name.lower() or anchor.type not in ("disease", "phenotype"):
            return False
        return bool(self.store.hop_edges([anchor.id], "subclass_of", inverse=True))

    def _leading_type(self, text: str) -> tuple[str | None, str]:
        for pattern, node_type in TYPE_WORDS:
            match = pattern.match(text)
            if match:
                return node_type, text[match.end() :]
        return None, text

    def _possessive(self, body: str) -> tuple[QueryNode, str] | None:
        """ "SNCA's diseases", "DJ-1 phenotypes", "TrkB's ligands": an anchor and the type of
        its answers, no relation words — the one KG relation joining the two types."""
        match = _POSSESSIVE_QUESTION.match(body)
        if match is None:
            return None
        return self._by_types(match.group("type"), match.group("anchor"))

    def _shared(self, body: str) -> tuple[QueryNode, str] | None:
        """ "receptors shared by NGF and progranulin", "phenotypes common to SCA2 and SCA3",
        "phenotypes do parkin and PINK1 have in common": what the anchors have in common, by
        the one relation joining the answer type to the anchors' type."""
        match = next((m for pattern in _SHARED_QUESTION if (m := pattern.match(body))), None)
        if match is None:
            return None
        return self._by_types(match.group("type"), match.group("anchors"))

    def _by_types(self, type_words: str, anchors: str) -> tuple[QueryNode, str] | None:
        """The answers of type ``type_words`` joined to the anchors (one, or several with
        "and" / "or") by the only relation between the two types; None when the words are
        not a bare type, the first anchor is no exact name or no single relation fits."""
        answer_type, rest = self._leading_type(type_words)
        if answer_type is None or rest.strip() or self._relation_at_start(type_words):
            return None
        first = re.split(r"\s*,\s*|\s+(?:and|or)\s+", _BOTH.sub("", anchors), maxsplit=1)[0]
        named = self.linker.lookup(first)  # a name, never a fuzzy guess
        if not named:
            return None
        hint = next((h for pattern, h in TYPE_HINTS if pattern.match(type_words.strip())), None)
        if hint is not None:  # "TrkB's ligands", "GDNF's receptor": a protein's partners
            self.answer_hint = hint
            named = sorted(named, key=lambda node: node.type != answer_type)
        try:
            relation = self._by_signature(
                _Relation("", None, type_words, "signature", 1.0), answer_type, named[0].type
            )
        except PlanningError:
            return None  # no single relation: the grammar below reads it, or says why not
        return self._anchor_expression(relation, anchors, answer_type), answer_type

    def _yes_no(self, text: str) -> tuple[QueryNode, AnchorLink] | None:
        """ "Is LRRK2 associated with PD8?", "Does HD present with chorea?": the entity before
        the relation phrase is the candidate answer, the rest the query's anchors."""
        match = _YES_NO.match(text)
        if match is None:
            return None
        clause = match.group("clause")
        for pattern, name, hint in RELATION_PHRASES:
            for found in pattern.finditer(clause):
                subject = _ARTICLE_AFTER.sub("", clause[: found.start()]).strip()
                rest = clause[found.end() :].strip()
                if not subject or not rest:
                    continue
                accepted = {side for pair in self.signatures.get(name, set()) for side in pair}
                linked = self.linker.link(_core_name(subject), k=1, node_types=accepted or None)
                if not linked:
                    continue
                node = linked[0]
                candidate = AnchorLink(
                    mention=subject, id=node.id, name=node.name, type=node.type,
                    score=round(node.score, 4), ambiguous=False, alternatives=[],
                )  # fmt: skip
                relation = _Relation(name, hint, found.group(0), "lexicon", 1.0)
                return self._anchor_expression(relation, rest, node.type), candidate
        return None

    def _subject_question(
        self,
        answer_type: str | None,
        rest: str,
    ) -> QueryNode | None:
        """ "What phenotypes does X have", "Which diseases is SNCA associated with": the
        anchor between an auxiliary verb and a relation phrase that ends the question."""
        match = _AUXILIARY_SUBJECT.match(rest)
        if match is None:
            return None
        clause = match.group(1)
        for pattern, name, hint in RELATION_PHRASES:
            for found in pattern.finditer(clause):
                if found.end() == len(clause) and found.start() > 0:
                    subject = clause[: found.start()].strip()
                    relation = _Relation(name, hint, found.group(0), "lexicon", 1.0)
                    inner_type, after_type = self._leading_type(subject)
                    if inner_type is not None and self._relation_at_start(
                        _CONNECTOR.sub("", after_type, count=1)
                    ):  # "do diseases associated with SNCA have": the subject is a chain
                        inner = self._chain(after_type, inner_type)
                        return self._project_node(relation, inner, inner_type, answer_type)
                    if self._relation_at_start(_CONNECTOR.sub("", subject, count=1)):
                        # "do the subtypes of X show": the subject is a projection itself
                        inner = self._chain(subject, None)
                        return self._project_node(
                            relation, inner, self._type_of(inner), answer_type
                        )
                    # "do apoE and APP both bind": one projection per anchor, intersected
                    subject = _BOTH_AFTER.sub("", subject)
                    return self._anchor_expression(relation, subject, answer_type)
        return None

    def _type_of(self, node: QueryNode) -> str | None:
        """The node type a query's answers have, when the KG's signatures fix it."""

        def project(hop: ProjectQuery, given: str | None) -> str | None:
            # from answers of several types (None), whatever the hop reaches from any
            reached = {
                (head if hop.inverse else tail)
                for head, tail in self.signatures.get(hop.relation, set())
                if given is None or (tail if hop.inverse else head) == given
            }
            if hop.types is not None:
                reached &= set(hop.types)
            return reached.pop() if len(reached) == 1 else None

        return fold(
            node, lambda leaf: self.store.get_node(leaf.id).type, project, lambda _, kinds: kinds[0]
        )

    def _branches(
        self,
        text: str,
        answer_type: str | None,
    ) -> QueryNode:
        """Branches joined by "and"/"or" (or "that …" after an anchor) where each starts with
        its own relation phrase: ∩ for "and", ∪ for "or"."""
        parts, separators = self._split_before_relation(text)
        if len(parts) == 1:
            return self._chain(text, answer_type)
        children = [self._chain(p, answer_type) for p in parts]
        return _combine(children, separators)

    def _split_before_relation(self, text: str) -> tuple[list[str], list[str]]:
        """Pieces of ``text`` split where a joiner is followed by a relation phrase of its own
        (a relative "that"/"which"/"who" only after an anchor, not after a type word)."""
        pieces = re.split(
            r"\s*,?\s+((?:and|or)\s+(?:that|which|who)|and|or|that|which|who)\s+",
            text,
            flags=re.IGNORECASE,
        )
        merged, separators = [pieces[0]], []
        for separator, piece in zip(pieces[1::2], pieces[2::2], strict=True):
            relative = separator.lower() in ("that", "which", "who")
            before = merged[-1].split()
            after_type = not before or any(p.fullmatch(before[-1]) for p, _ in TYPE_WORDS)
            opens = self._relation_at_start(_CONNECTOR.sub("", piece, count=1)) is not None
            if opens and before and not (relative and after_type):
                merged.append(piece)
                separators.append(separator)
            else:
                merged[-1] = f"{merged[-1]} {separator} {piece}"
        return merged, separators

    def _chain(
        self,
        text: str,
        answer_type: str | None,
    ) -> QueryNode:
        """ "R rest": rest is either "<type> R' rest'" (a chain) or the anchor expression."""
        text = _CONNECTOR.sub("", text, count=1)
        relation = self._relation_at_start(text)
        if relation is None:
            relation = self._relation_by_embedding(text)
            return self._project_anchor_tail(relation, text, answer_type)
        rest = text[len(relation.phrase) :]
        inner_type, after_type = self._leading_type(_CONNECTOR.sub("", rest, count=1))
        if inner_type is not None:
            if self._relation_at_start(_CONNECTOR.sub("", after_type, count=1)):
                # "… diseases associated with X": a type word, then the next relation
                inner = self._chain(after_type, inner_type)
                return self._project_node(relation, inner, inner_type, answer_type)
            if self._relation_at_start(_CONNECTOR.sub("", rest, count=1)):
                # "… symptoms of X": the type word opens the next relation phrase
                inner = self._chain(rest, inner_type)
                return self._project_node(relation, inner, inner_type, answer_type)
        elif self._relation_at_start(_CONNECTOR.sub("", rest, count=1)):
            # "phenotypes of the subtypes of X": the next relation phrase without a type word
            inner = self._chain(rest, None)
            return self._project_node(relation, inner, self._type_of(inner), answer_type)
        return self._anchor_expression(relation, rest, answer_type)

    def _anchor_expression(
        self,
        relation: _Relation,
        text: str,
        answer_type: str | None,
    ) -> QueryNode:
        """One anchor, or anchors joined by "and" (∩) / "or" (∪), "both … and",
        "either … or". Names may contain "and", "or" and commas themselves ("Spastic
        paraplegia, ataxia, and impaired intellectual development"), so the split that makes
        every part an exact entity name wins; without one, every joiner splits."""
        mention = text.strip().strip(",")
        if not mention:
            raise PlanningError(f"no entity after {relation.phrase!r}")
        either = _EITHER.match(mention) is not None
        stripped = _EITHER.sub("", _BOTH.sub("", mention, count=1), count=1)
        if self._exact(stripped):
            return self._project(relation, stripped, answer_type)
        pieces = re.split(r"(\s*,\s*(?:and\s+|or\s+)?|\s+and\s+|\s+or\s+)", stripped, flags=re.I)
        names, separators = self._exact_segmentation(pieces)
        if names is None:
            names = [p.strip() for p in pieces[::2] if p.strip()]
            separators = [s for s in pieces[1::2]]
        if len(names) < 2:
            return self._project(relation, mention, answer_type)
        if either:
            separators = ["or"] * (len(names) - 1)
        children = [self._project(relation, n, answer_type) for n in names]
        return _combine(children, separators)

    def _exact_segmentation(self, pieces: list[str]) -> tuple[list[str] | None, list[str]]:
        """Fewest exact entity names covering ``pieces`` (text, separator, text, …)."""
        words, joints = pieces[::2], pieces[1::2]
        best: list[tuple[int, list[str], list[str]] | None] = [None] * (len(words) + 1)
        best[0] = (0, [], [])
        for end in range(1, len(words) + 1):
            for start in range(end):
                previous = best[start]
                if previous is None:
                    continue
                name = "".join(
                    words[i] + (joints[i] if i < end - 1 else "") for i in range(start, end)
                ).strip()
                if not name or not self._exact(name):
                    continue
                used = previous[2] + ([joints[start - 1]] if start else [])
                candidate = (previous[0] + 1, [*previous[1], name], used)
                if best[end] is None or candidate[0] < best[end][0]:  # type: ignore[index]
                    best[end] = candidate
        found = best[len(words)]
        return (found[1], found[2]) if found else (None, [])

    def refuse_negation(self, question: str) -> None:
        """:class:`PlanningError` when the question is negated ("genes NOT associated with
        X"): a KG lists what is known, not what is ruled out, so the complement of an answer
        set is not an answer. A negation word inside an entity name ("… with or without
        aura") is not one, nor is one in a sentence before the question ("… but they haven't
        found her gene yet. Which genes are known …?" asks positively). Without a question
        mark no sentence is known to be the question: every one is checked."""
        reordered = _question_last(question)
        asked = _SENTENCE_END.split(reordered)[-1] if reordered.endswith("?") else reordered
        words = list(_WORD.finditer(asked))
        for match in _NEGATION.finditer(asked):
            if not self._inside_name(asked, words, match.start()):
                raise NegatedQuestionError(
                    f"the question is negated ({match.group(0)!r}): kgrecall answers what the "
                    "KG links, not what it does not; ask the positive question and compare "
                    "the answer with your list"
                )

    def _inside_name(self, text: str, words: list[re.Match[str]], position: int) -> bool:
        """Whether a run of up to 8 words with the word at ``position`` strictly inside names
        an entity ("migraine with or without aura"; not "NOT associated", NOT being a gene
        alias)."""
        at = next(i for i, w in enumerate(words) if w.end() > position)
        for start in range(max(0, at - 6), at):
            for end in range(at + 1, min(len(words), start + 8)):
                span = text[words[start].start() : words[end].end()].strip(",.;:?!")
                if self.linker.lookup(span):
                    return True
        return False

    def _exact(self, mention: str) -> bool:
        """Whether ``mention`` names an entity by its id, a name or a synonym as people write
        it (possessives, word order, acronyms: the index's tiers, no fuzzy search)."""
        return bool(self.linker.lookup(mention))

    # -- relations -----------------------------------------------------------------------------

    def _relation_at_start(self, text: str) -> _Relation | None:
        best: _Relation | None = None
        for pattern, name, hint in RELATION_PHRASES:
            match = pattern.match(text)
            if (
                match
                and name in self.signatures
                and (best is None or match.end() > len(best.phrase))
            ):
                best = _Relation(name, hint, match.group(0), "lexicon", 1.0)
        return best

    def _relation_by_embedding(self, text: str) -> _Relation:
        """The KG relation whose description is closest to ``text`` (a phrase + anchor)."""
        if self.embed is None:
            raise PlanningError(f"no relation phrase recognised in {text!r}")
        if "all" not in self._relation_vectors:
            names, descriptions = [], []
            for name in sorted(self.signatures):
                for description in (
                    name.replace("_", " "),
                    self.store.schema.relations.get(name, "") or name.replace("_", " "),
                    *RELATION_EXAMPLES.get(name, ()),
                ):
                    names.append(name)
                    descriptions.append(description)
            self._relation_vectors["all"] = (names, self.embed(descriptions))
        names, vectors = self._relation_vectors["all"]
        words = text.split()
        # The phrase ends where an entity's exact name starts (else after two words).
        cut = next(
            (k for k in range(1, min(5, len(words))) if self._exact(" ".join(words[k:]))),
            max(1, min(2, len(words) - 1)),
        )
        phrase = " ".join(words[:cut])
        similarity = vectors @ self.embed([phrase])[0]
        order = np.argsort(-similarity)
        best = int(order[0])
        if float(similarity[best]) < MIN_RELATION_SIMILARITY:
            raise PlanningError(
                f"no relation phrase recognised in {text!r} (closest relation "
                f"{names[best]!r} at similarity {float(similarity[best]):.2f})"
            )
        return _Relation(names[best], None, phrase, "embedding", round(float(similarity[best]), 4))

    def _project_anchor_tail(
        self,
        relation: _Relation,
        text: str,
        answer_type: str | None,
    ) -> QueryNode:
        mention = text[len(relation.phrase) :].strip()
        if not mention:
            raise PlanningError(f"no entity after {relation.phrase!r}")
        return self._project(relation, mention, answer_type)

    def _direction(
        self,
        relation: _Relation,
        answer: str | None,
        given: str | None,
        inner: QueryNode | None = None,
    ) -> bool:
        """True for inverse: the edge points from the answer to the input.

        Where the types allow both ways, a role word ("ligands") decides, then, for a relation
        whose wording says no direction ("binds": binding is mutual, though the KG stores each
        ligand–receptor pair one way), the way most of the ``inner`` entities' edges go (a
        ligand's to its receptors), then the wording."""
        signatures = self.signatures.get(relation.name, set())
        forward = any(
            (given is None or h == given) and (answer is None or t == answer) for h, t in signatures
        )
        inverse = any(
            (given is None or t == given) and (answer is None or h == answer) for h, t in signatures
        )
        if forward and inverse:
            if self.answer_hint is None and inner is not None and _undirected(relation.name):
                main = self._main_direction(relation.name, inner)
                if main is not None:
                    return main
            return (self.answer_hint or relation.hint) == "inverse"
        if forward or inverse:
            return inverse
        raise PlanningError(
            f"the KG's {relation.name!r} edges do not connect {given or 'any type'} to "
            f"{answer or 'any type'} (they connect "
            + ", ".join(f"{h} → {t}" for h, t in sorted(signatures))
            + ")"
            + self._unjoined(given, answer)
        )

    def _unjoined(self, one: str | None, other: str | None) -> str:
        """ "; no relation of this KG joins gene and go_term" when none does, else ""."""
        if (
            one is None
            or other is None
            or any({(one, other), (other, one)} & pairs for pairs in self.signatures.values())
        ):
            return ""
        return f"; no relation of this KG joins {one} and {other}"

    def _main_direction(self, relation: str, inner: QueryNode) -> bool | None:
        """The direction (inverse or not) in which ``inner``'s entities have most ``relation``
        edges — more than twice as many as the other way — else None."""
        sources = sorted(execute_sets(self.store, inner)[0])
        forward, inverse = (
            len(self.store.hop_edges(sources, relation, inverse=way)) for way in (False, True)
        )
        if forward > 2 * inverse:
            return False
        if inverse > 2 * forward:
            return True
        return None

    def _project_node(
        self,
        relation: _Relation,
        inner: QueryNode,
        inner_type: str | None,
        answer_type: str | None,
    ) -> QueryNode:
        try:
            inverse = self._direction(relation, answer_type, inner_type, inner)
        except PlanningError:
            # "phenotypes associated with ATP7B": the wording's relation cannot join these
            # types, the one relation that can is meant
            relation = self._by_signature(relation, answer_type, inner_type)
            inverse = self._direction(relation, answer_type, inner_type, inner)
        self.relations.append(
            RelationLink(
                phrase=relation.phrase,
                relation=relation.name,
                inverse=inverse,
                method=relation.method,
                score=relation.score,
            )
        )
        return ProjectQuery(relation=relation.name, inverse=inverse, input=inner)

    def _by_signature(
        self, relation: _Relation, answer: str | None, given: str | None
    ) -> _Relation:
        """The only KG relation joining ``given`` and ``answer`` (either way), read in place
        of a worded relation that cannot; :class:`PlanningError` (the worded relation's) when
        the types are unknown or several relations could be meant."""
        joining = sorted(
            name
            for name, signatures in self.signatures.items()
            if answer is not None
            and given is not None
            and name != relation.name
            and ((given, answer) in signatures or (answer, given) in signatures)
        )
        hierarchy = []
        if relation.phrase.lower() in _GENERIC_VERBS:
            hierarchy = [name for name in joining if name in HIERARCHY_RELATIONS]
            joining = [name for name in joining if name not in HIERARCHY_RELATIONS]
        if len(joining) != 1 and not relation.name:
            raise PlanningError(
                f"{relation.phrase!r} does not say how {given or 'the argument'} relates to "
                f"{answer or 'the answers'}: "
                + (f"the KG has {', '.join(joining)} between them" if joining else
                   f"the KG joins them only by {', '.join(hierarchy)}, which "
                   f"{relation.phrase!r} does not mean" if hierarchy else
                   "no KG relation joins them")
            )  # fmt: skip
        if len(joining) != 1:
            self._direction(relation, answer, given)  # raises, naming the worded relation
        # a relation guessed from an unknown wording stays a guess, whichever is read
        method: Literal["embedding", "signature"] = (
            "embedding" if relation.method == "embedding" else "signature"
        )
        return _Relation(joining[0], relation.hint, relation.phrase, method, relation.score)

    def _project(
        self,
        relation: _Relation,
        mention: str,
        answer_type: str | None,
    ) -> QueryNode:
        anchor = self._link(mention, relation.name, answer_type)
        self.anchors.append(anchor)
        return self._project_node(relation, self._anchored(anchor), anchor.type, answer_type)

    def _anchored(self, anchor: AnchorLink) -> QueryNode:
        """The anchor's leaf; for a family's class (:meth:`_family`) its subtypes down to
        the level its members reach: "the genes of spinocerebellar ataxia" are those of the
        numbered members, not the few the class holds itself."""
        depth = self.families.get(anchor.id)
        start = EntityQuery(id=anchor.id)
        if depth is None:
            return start
        levels: list[QueryNode] = [ProjectQuery(relation="subclass_of", inverse=True, input=start)]
        while len(levels) < depth:
            levels.append(ProjectQuery(relation="subclass_of", inverse=True, input=levels[-1]))
        return levels[0] if depth == 1 else UnionQuery(inputs=levels)

    # -- anchors -------------------------------------------------------------------------------

    def _link(
        self,
        mention: str,
        relation: str,
        answer_type: str | None,
        *,
        found: list[LinkedEntity] | None = None,
        guessed: bool = False,
    ) -> AnchorLink:
        """The entity ``mention`` names among those ``relation`` joins to ``answer_type``
        (any relation for a bare joint, ``relation=""``); ``found``: what the index already
        linked the mention to; ``guessed``: a fuzzy link, always reported as ambiguous."""
        mention = _CONNECTOR.sub("", mention, count=1).strip().strip(",").strip()
        if not mention:
            raise PlanningError(f"no entity named for the relation {relation!r}")
        pairs = (
            self.signatures.get(relation, set())
            if relation
            else {pair for signature in self.signatures.values() for pair in signature}
        )
        accepted = {
            side
            for head, tail in pairs
            for side, other in ((head, tail), (tail, head))
            if answer_type is None or other == answer_type
        }
        named = found if found is not None else self.linker.lookup(mention)
        exact = [n for n in named if accepted and n.type not in accepted]
        if exact and not any(n.type in accepted for n in named):
            signature = ", ".join(f"{h} → {t}" for h, t in sorted(pairs))
            raise PlanningError(
                f"{mention!r} is a {exact[0].type} ({exact[0].id}), but the KG's "
                f"{relation or 'relations'!r} edges do not connect it to "
                f"{answer_type or 'any type'} (they connect {signature})"
                + self._unjoined(exact[0].type, answer_type)
            )
        if found is not None:
            found = [e for e in found if not accepted or e.type in accepted]
            if self.answer_hint is not None and any(e.type == answer_type for e in found):
                # "TrkB's ligands": partners of the protein, not what its gene encodes
                found = [e for e in found if e.type == answer_type]
        else:
            found = self.linker.link(mention, k=5, node_types=accepted or None, fuzzy="fallback")
            core = _core_name(mention)
            if not found and core != mention:
                found = self.linker.link(core, k=5, node_types=accepted or None, fuzzy="fallback")
        found = _disease_before_phenotype(_named_for_disease(found))
        if found and all(e.match == "fuzzy" for e in found):
            family = self._family(mention, accepted)
            if family is not None:
                return family
        if not found:
            types = ", ".join(sorted(accepted)) or "any"
            closest = self.linker.fuzzy(mention, k=1, node_types=accepted or None)
            hint = (
                f" (closest: {closest[0].name!r} at {closest[0].score:.2f}, below the minimum "
                f"link score {self.linker.min_score})"
                if closest
                else ""
            )
            raise PlanningError(f"no entity of type {types} matches {mention!r}{hint}")
        best, others = found[0], found[1:]
        # A name match is ambiguous only with another match of the same tier (two entities
        # with that name, two diseases with that acronym); a fuzzy one always is, as in the
        # phrase reader: words around the name may have gone unread ("the inherited forms of
        # essential tremor" → essential tremor).
        close = [
            o
            for o in others
            if (o.match == best.match or best.match == "fuzzy")
            and o.score >= best.score - AMBIGUITY_MARGIN
        ]
        return AnchorLink(
            mention=mention,
            id=best.id,
            name=best.name,
            type=best.type,
            score=round(best.score, 4),
            ambiguous=bool(close) or guessed or best.match == "fuzzy",
            alternatives=[
                {"id": o.id, "name": o.name, "score": round(o.score, 4)}
                for o in (close or others)[:4]
            ],
        )

    def _family(self, mention: str, accepted: set[str]) -> AnchorLink | None:
        """ "genes for spinocerebellar ataxia": a name the KG holds only as numbered members
        ("Spinocerebellar ataxia 1" … "50"; fuzzy search picks one of them) read as the class
        whose subtypes best match those members — the members' ancestor within
        :data:`SUBTYPE_LEVELS` whose subtypes and the members have F1 ≥
        :data:`FAMILY_MIN_F1` (MONDO's autosomal dominant cerebellar ataxia: 77 of its 94
        subtypes are the 77 numbered spinocerebellar ataxias) — said in the readings and
        answered through its subtypes (:meth:`_anchored`); None when no class does."""
        if (accepted and "disease" not in accepted) or "subclass_of" not in self.signatures:
            return None
        stems = {mention.strip(), mention.strip().removesuffix("s")}
        numbered = re.compile(
            rf"(?:{'|'.join(map(re.escape, stems))})\W+(?:type\s+)?[a-z]?\d", re.IGNORECASE
        )
        members = {
            node.id
            for node in self.store.nodes()
            if node.type == "disease" and numbered.match(node.name)
        }
        if len(members) < FAMILY_MIN_MEMBERS:
            return None
        held = Counter(a for m in members for a in self._hierarchy(m, inverse=False))
        scored = []
        for ancestor, count in held.items():
            subtypes = self._hierarchy(ancestor, inverse=True)
            precision, recall = count / len(subtypes), count / len(members)
            scored.append((2 * precision * recall / (precision + recall), count, ancestor))
        f1, count, ancestor = max(scored)
        if f1 < FAMILY_MIN_F1:
            return None
        below = self._hierarchy(ancestor, inverse=True)
        self.families[ancestor] = max(below[m] for m in members if m in below)
        node = self.store.get_node(ancestor)
        self.readings.append(
            f"read {mention!r} as the subtypes of {node.name} ({node.id}): the KG has no class "
            f"of that name; {count} of its {len(members)} numbered {mention!r} diseases are "
            "among them"
        )
        return AnchorLink(mention=mention, id=node.id, name=node.name, type=node.type, score=1.0)

    def _hierarchy(self, start: str, *, inverse: bool) -> dict[str, int]:
        """The classes above ``start`` (its subtypes, ``inverse``) up to
        :data:`SUBTYPE_LEVELS` subclass_of steps away, each with its distance."""
        reached: dict[str, int] = {}
        frontier = [start]
        for level in range(1, SUBTYPE_LEVELS + 1):
            edges = self.store.hop_edges(frontier, "subclass_of", inverse=inverse)
            frontier = sorted({e.head if inverse else e.tail for e in edges} - reached.keys())
            reached.update((node, level) for node in frontier)
        return reached


def _named_for_disease(found: list[LinkedEntity]) -> list[LinkedEntity]:
    """Without a gene or protein matched by an alias when a disease or phenotype matches the
    same words: "HD", "SCA3", "PARK7" are old gene symbols named after the disease, which is
    meant (the gene is written by its symbol, HTT, ATXN3)."""
    clinical = any(e.type in ("disease", "phenotype") for e in found)
    return [
        e
        for e in found
        if not (
            clinical and e.type in ("gene", "protein") and e.matched.casefold() != e.name.casefold()
        )
    ]


def _disease_before_phenotype(found: list[LinkedEntity]) -> list[LinkedEntity]:
    """A disease first when a phenotype of the same name (up to British / American spelling)
    leads within the ambiguity margin ("the subtypes of focal dystonia", "the genes behind
    paroxysmal dyskinesias": MONDO's disease, whose subtypes and genes a question means, not
    HPO's sign) — where the relation allows both."""
    if len(found) < 2 or found[0].type != "phenotype":
        return found

    def spelt(name: str) -> str:  # "Generalised" and "generalized" are one name
        return " ".join(map(americanize, casefold_name(name).split()))

    close = [e for e in found if e.score >= found[0].score - AMBIGUITY_MARGIN]
    same = spelt(found[0].name)
    disease = [e for e in close if e.type == "disease" and spelt(e.name) == same]
    return disease[:1] + [e for e in found if e not in disease[:1]] if disease else found


def _agreeing(tags: list[chart.Tag]) -> list[chart.Tag]:
    """Mentions listed together name entities of one type ("SCA2 and Machado-Joseph
    disease": SCA2 the disease, not the gene of that alias): when a type is open to every
    mention and the only one of some, the others keep their entities of that type."""
    kinds = [{e.type for e in tag.entities} for tag in tags]
    shared = set.intersection(*kinds) if kinds else set()
    sure = {next(iter(k)) for k in kinds if len(k) == 1} & shared
    if len(tags) < 2 or len(sure) != 1:
        return tags
    kind = sure.pop()
    return [
        dataclasses.replace(tag, entities=[e for e in tag.entities if e.type == kind])
        for tag in tags
    ]


def _possessive_object(text: str) -> tuple[str, str] | None:
    """ "parent terms of Huntington disease's phenotypes" → ("parent terms of phenotypes of
    Huntington disease", "phenotypes of Huntington disease"): a possessive after a relation
    phrase as the "<type> of X" phrase the chain grammar reads, and that phrase."""
    match = _POSSESSIVE_OBJECT.search(text)
    if match is None or not any(p.fullmatch(match.group("type")) for p, _ in TYPE_WORDS):
        return None
    tail = f"{match.group('type')} of {match.group('anchor')}"
    return f"{text[: match.start()]}{match.group('joint')} {tail}", tail


def _core_name(mention: str) -> str:
    """``mention`` without the words around a name that leave the entity as it is ("the
    protein encoded by the APOE gene" → "APOE"); the mention itself when nothing is left."""
    core = mention
    for _ in range(3):  # wrappers nest: "the product of the GRN gene (progranulin)"
        for wrapper in _NAME_WRAPPERS:
            core = wrapper.sub("", core).strip()
    return core or mention


class LLMQuery(BaseModel):
    """What the LLM planner must answer."""

    query: dict[str, object]
    answer_type: str | None = None
    reading: str = ""


class LLMPlanner:
    """Plans with an OpenAI-compatible model; validated against the KG; falls back offline.

    The model sees the question, the KG's relations with the node types they connect, and
    candidate anchors (exact names found in the question, then fulltext + vector hits of the
    whole question). Its tree must parse, use declared relations and existing entities, and
    each hop must fit the relation's type signature; otherwise — and on any call failure —
    the offline planner answers and the plan notes why.
    """

    def __init__(
        self,
        model: BaseChatModel,
        offline: OfflinePlanner,
        extractor: EntityExtractor,
    ) -> None:
        self.model = model
        self.offline = offline
        self.extractor = extractor

    def plan(self, question: str) -> QueryPlan:
        self.offline.refuse_negation(question)  # never planned, by the LLM either
        try:
            return self._plan(question)
        except (LLMError, PlanningError) as error:
            plan = self.offline.plan(question)
            plan.notes.append(f"LLM planner not used ({error}); planned offline")
            return plan

    def _plan(self, question: str) -> QueryPlan:
        store = self.offline.store
        relations = "\n".join(
            f"- {name}: " + ", ".join(f"{h} → {t}" for h, t in sorted(signature))
            for name, signature in sorted(self.offline.signatures.items())
        )
        exact = [m for m in self.extractor.extract(question) if m.in_kg]
        linked = self.offline.linker.fuzzy(question, k=10)
        candidates = {m.id: store.get_node(m.id) for m in exact}
        candidates.update({c.id: store.get_node(c.id) for c in linked})
        listing = "\n".join(f"- {n.id} | {n.name} | {n.type}" for n in candidates.values())
        user = (
            f"Question: {question}\n\nRelations (head type → tail type):\n{relations}\n\n"
            f"Candidate anchors (id | name | type):\n{listing}"
        )
        answer = structured_call(self.model, LLMQuery, load_prompt("planning"), user)
        try:
            tree = parse_query(answer.query)
        except ValidationError as error:
            first = error.errors()[0]
            where = ".".join(str(p) for p in first["loc"]) or "query"
            raise LLMError(f"the LLM query is not a QueryTree ({where}: {first['msg']})") from None
        try:
            validate_query(store, tree)
        except (KGError, NotFoundError) as error:
            raise LLMError(f"the LLM query does not fit the KG: {error}") from None
        answer_type = self._check_types(tree)
        anchors = [
            AnchorLink(mention=store.get_node(a).name, id=a, name=store.get_node(a).name,
                       type=store.get_node(a).type, score=1.0)
            for a in query_anchors(tree)
        ]  # fmt: skip
        hops = [
            RelationLink(phrase="", relation=hop.relation, inverse=hop.inverse, method="llm")
            for hop in projections(tree)
        ]
        notes = [f"LLM reading: {answer.reading}"] if answer.reading else []
        return QueryPlan.of(question, tree, answer_type, anchors, hops, planner="llm", notes=notes)

    def _check_types(self, node: QueryNode) -> str | None:
        """The node type a subtree yields; LLMError when a hop fits no edge of its relation."""

        def project(hop: ProjectQuery, given: str | None) -> str | None:
            signatures = self.offline.signatures.get(hop.relation, set())
            ends = {
                (t if not hop.inverse else h)
                for h, t in signatures
                if (given is None or (h if not hop.inverse else t) == given)
                and (hop.types is None or (t if not hop.inverse else h) in hop.types)
            }
            if not ends:
                direction = "inverse " if hop.inverse else ""
                kinds = "" if hop.types is None else f" to {' or '.join(hop.types)}"
                raise LLMError(
                    f"the LLM query follows {direction}{hop.relation!r} from {given}{kinds}, "
                    "which no edge of the KG does"
                )
            return next(iter(ends)) if len(ends) == 1 else None

        def join(_: IntersectQuery | UnionQuery, kinds: list[str | None]) -> str | None:
            return kinds[0] if len(set(kinds)) == 1 else None

        return fold(node, lambda leaf: self.offline.store.get_node(leaf.id).type, project, join)


def _unhyphenated(text: str) -> str:
    """ "GBA1-associated diseases" → "diseases associated with GBA1 that", "SNCA-linked
    genes" → "genes linked to SNCA that": a hyphenated relation adjective before a type word
    read as the relation phrase it stands for (a clause follows, so "that" joins it)."""
    match = _HYPHENATED.search(text)
    if match is None or not any(p.fullmatch(match.group("type")) for p, _ in TYPE_WORDS):
        return text
    rest = text[match.end() :].strip()
    if rest and not rest[0].isalnum():
        return text  # "C9orf72-associated diseases: what …" is another sentence shape
    clause = f" that {rest}" if rest else ""
    phrase = (
        f"{match.group('type')} {match.group('verb')} {_PREPOSITION[match.group('verb').lower()]}"
    )
    return f"{text[: match.start()]}{phrase} {match.group('anchor')}{clause}"


def _anchor_first(text: str) -> str:
    """ "Parkinson disease 13 is linked to which genes" → "which genes is Parkinson disease 13
    linked to", "SNCA causes what diseases" → "what diseases does SNCA causes": the question
    word moved to the front, so the subject-question grammar reads it."""
    match = next((m for pattern in _ANCHOR_FIRST if (m := pattern.match(text))), None)
    if match is None or not any(p.match(match.group("rest")) for p, _ in TYPE_WORDS):
        return text
    aux = match.groupdict().get("aux") or "does"
    return (
        f"{match.group('wh')} {match.group('rest')} {aux} {match.group('subject')} "
        f"{match.group('verb')}"
    )


def _undirected(relation: str) -> bool:
    """Whether the registry says ``relation`` claims no direction (binding, co-occurrence)."""
    known = RELATIONS.get(relation)
    return known is not None and not known.directed_claims


def _combine(children: list[QueryNode], separators: list[str]) -> QueryNode:
    """∪ when the joiners say "or", ∩ when they say "and" (or only commas); both → error."""
    said = [s for s in separators if s.strip(" ,")]  # bare commas join either way
    kinds = {"or" if re.search(r"\bor\b", s, re.I) else "and" for s in said}
    if len(kinds) > 1:
        raise PlanningError("the question mixes 'and' and 'or'; ask one combination at a time")
    return UnionQuery(inputs=children) if kinds == {"or"} else IntersectQuery(inputs=children)
