"""The phrase structure of a question: tagged spans, then noun phrases with their clauses.

The offline planner's first reading (:meth:`~kgrecall.agents.OfflinePlanner.plan` falls back to
its patterns when this one fails). Misspelt question words are put right first
(``SPELLING_CUTOFF``), then the tokens are tagged in this order:

1. **relation phrases** of two or more words from the registry's question wording
   (``associated with``, ``present with``, ``subtypes of``), hyphenated relation adjectives
   ("SNCA-associated") and multi-word type words ("GO processes");
2. **entities** — every span of up to ``MAX_NAME_WORDS`` words that the KG's entity index
   names by a tier (a name, synonym, symbol, acronym; no fuzzy guess), longest first, so
   "Parkinson disease 18" is one name and "of" inside "Abnormality of the retina" no joint;
3. one-word relation phrases and bare joints (``of``, ``for``, ``with``, ``shared by``: the
   relation is whatever the KG has between the two types);
4. **type words** ("genes", "receptors", "subtypes"), joiners ("and", "or", commas, "as well
   as"), relative markers ("that"), auxiliaries and question words;

words left over narrow a neighbouring name ("classic PSP"), else are linked by fuzzy search
(then the reading is marked as a guess), else make the question unreadable — a word is never
dropped silently. The tags are then read as noun
phrases: an answer type followed by clauses, each a relation phrase and its argument (object
clauses "… associated with X", subject clauses "… does X have", "… that NGF binds"); an
argument is an entity list ("X, Y and Z", "X or of Y") or a nested noun phrase ("diseases
linked to SNCA", "bvFTD genes", "SNCA's diseases", "SNCA-associated diseases"). A nested
phrase takes its first clause directly and later ones only after "that"/"which"; another
relation phrase closes it and belongs to the phrase above ("Which diseases linked to bvFTD
genes present with fasciculations": the diseases present). Anchor-first ("X is linked to which
genes") and yes/no questions ("Is LRRK2 associated with PD8?") are reordered into the same
form; a topic put first and referred back to by a pronoun ("Huntingtin: which disorders is it
responsible for") is read in the pronoun's place. The planner turns the phrases into a
QueryTree (relations by type signature, directions, entity linking); this module only reads
the words.
"""

from __future__ import annotations

import difflib
import itertools
import re
from dataclasses import dataclass, field
from functools import partial
from typing import Literal

from kgrecall.kg.relations import RELATIONS, Hint
from kgrecall.tools import EntityIndex, LinkedEntity
from kgrecall.tools.names import abbreviates, americanize, common_words

__all__ = [
    "MAX_NAME_WORDS",
    "MEANINGFUL",
    "SOURCE_WORDS",
    "SPELLING_CUTOFF",
    "TYPE_HINTS",
    "TYPE_WORDS",
    "UNREAD",
    "Clause",
    "Mention",
    "Phrase",
    "PhraseError",
    "Reading",
    "Tag",
    "everyday",
    "read",
    "tag",
]

#: How an error about words no tag reads begins.
UNREAD = "could not read "
#: The longest entity name, in words, looked for in a question.
MAX_NAME_WORDS = 10

#: Words that name node types (plural or singular).
TYPE_WORDS: list[tuple[re.Pattern[str], str]] = [
    (re.compile(rf"(?:{p})\b", re.IGNORECASE), t)
    for p, t in [
        (r"go terms?|biological process(?:es)?|process(?:es)?|go process(?:es)?", "go_term"),
        (r"genes?", "gene"),
        (
            r"proteins?|gene products?|(?:co-?)?receptors?|ligands?|binding partners?|"
            r"peptides?|neuropeptides?|hormones?",
            "protein",
        ),
        (r"diseases?|disorders?|conditions?|syndromes?|illness(?:es)?", "disease"),
        (
            r"(?:hpo |hp |phenotype )terms?|phenotypes?|symptoms?|clinical features?|"
            r"features?|signs?|manifestations?|"
            r"problems?|complications?",
            "phenotype",
        ),
        (r"drugs?|compounds?|medications?", "drug"),
        (r"pathways?", "pathway"),
    ]
]
#: Answer words that fix the direction of a relation between nodes of one type: ligands are
#: the heads of the KG's ligand → receptor interactions, receptors the tails.
TYPE_HINTS: list[tuple[re.Pattern[str], Hint]] = [
    (re.compile(r"ligands?\b", re.IGNORECASE), "inverse"),
    (re.compile(r"(?:co-?)?receptors?\b", re.IGNORECASE), "forward"),
]
#: The kind of a class named after a hierarchy noun ("the parent condition of X").
_KIND_NOUN = r" (?:conditions?|disorders?|diseases?|process(?:es)?|categor(?:y|ies))"
#: Nouns that are a relation by themselves before or after a name ("dystonia subtypes").
_RELATION_NOUNS: list[tuple[re.Pattern[str], str, Hint, int]] = [
    (re.compile(r"great-grandchildren\b", re.I), "subclass_of", "inverse", 3),
    (re.compile(r"great-grandparents?(?: terms?)?\b", re.I), "subclass_of", "forward", 3),
    (re.compile(r"grandchild(?:ren)?\b", re.I), "subclass_of", "inverse", 2),
    (re.compile(r"grandparents?(?: terms?)?\b", re.I), "subclass_of", "forward", 2),
    (re.compile(r"(?:sub ?types?|types(?!\s+(?:\d|[IVX]+\b))|subclass(?:es)?|"
                rf"child(?:ren)?(?: terms?| class(?:es)?|{_KIND_NOUN})?|descendants?|forms?|"
                r"(?:narrower|more specific) (?:terms?|classes|categories))\b", re.I),
     "subclass_of", "inverse", 1),
    (re.compile(rf"(?:(?:parents?|superclass(?:es)?|ancestors?)(?: terms?| class(?:es)?|"
                rf"{_KIND_NOUN})?|"
                r"(?:broader|more general|wider|higher-level) "
                r"(?:terms?|classes|categories|groupings?|headings?|groups?))\b", re.I),
     "subclass_of", "forward", 1),
]  # fmt: skip
#: A hierarchy relation said as a noun: "subtypes (of)", "parent terms (of)", "children".
_HIERARCHY_NOUN = re.compile(
    r"(?:(?:direct|immediate)\s+)?(?:sub ?types?|subclass(?:es)?|child(?:ren)?|descendants?|"
    r"(?:great-)*grand(?:parents?|children)|parents?|superclass(?:es)?|ancestors?|broader|"
    r"narrower)\b",
    re.IGNORECASE,
)
#: Two hierarchy nouns before one "of": "the parent and the child classes of X", "subtypes
#: and parts of X" — each of X, read as "the parents of X or the children of X".
_NOUN_PAIR = re.compile(
    r"\b(?P<a>[\w-]+)(?P<a_tail>\s+(?:terms|classes))?\s+(?:and|as\s+well\s+as)\s+"
    r"(?:the\s+|its\s+|their\s+)?(?:(?:direct|immediate)\s+)?(?P<b>[\w-]+)"
    r"(?P<b_tail>\s+(?:terms|classes))?\s+of\s+"
    r"(?P<x>[^?;,]+)",
    re.IGNORECASE,
)
#: A term described by its parents or children: "has as direct parents both A and B",
#: "whose parents are A and B" — a subtype of A and B; "whose children include X" — a parent.
_BY_KIN = re.compile(
    r"\b(?:has\s+as\s+(?:its\s+)?|(?P<whose>whose)\s+)(?:(?:direct|immediate)\s+)?"
    r"(?P<kin>parents?|children|child\s+terms|subtypes)"
    r"(?:\s+(?:is|are|include|includes))?\s+",
    re.IGNORECASE,
)


def _by_kin(match: re.Match[str]) -> str:
    kin = "subtype" if match["kin"].lower().startswith("parent") else "parent"
    # "whose parents are A and B": each is a parent, so the term is a subtype of both
    both = (
        kin == "subtype"
        and match["kin"].lower().endswith("s")
        and not re.match(r"both\b", match.string[match.end() :], re.IGNORECASE)
    )
    return f"{'that ' if match['whose'] else ''}is a {kin} of {'both ' if both else ''}"


#: "what is directly above X and directly below X (in the hierarchy)": its parents and its
#: children.
_ABOVE_AND_BELOW = re.compile(
    r"\b(?:(?:directly|immediately|right)\s+)?(?P<first>above|below)\s+(?P<x>.+?)\s+and\s+"
    r"(?:(?:directly|immediately|right)\s+)?(?:above|below)\s+(?:it|(?P=x))\b",
    re.IGNORECASE,
)


def _above_and_below(match: re.Match[str]) -> str:
    first, second = ("parents", "children")
    if match["first"].lower() == "below":
        first, second = second, first
    return f"the {first} of {match['x']} or the {second} of {match['x']}"


#: "the parent condition it sits under", "the broader class they fall in": the clause says
#: again what the hierarchy noun says.
_SITS_UNDER = re.compile(
    r"\b(?P<noun>(?:parents?|broader|wider|higher-level)(?:\s+\w+)?)\s+(?:that\s+|which\s+)?"
    r"(?:it|they)\s+(?:(?:directly|immediately)\s+)?(?:sits?|falls?|is|are|belongs?)\s+"
    r"(?:(?:filed|classed|placed|listed)\s+)?(?:under|in|within|to)\b",
    re.IGNORECASE,
)


#: The hierarchy nouns that pair, each as its plural ("parent classes" are the parents).
_PAIRED_NOUNS = {
    "parent": "parents", "parents": "parents", "child": "children", "children": "children",
    "subtypes": "subtypes", "subclasses": "subclasses", "superclasses": "superclasses",
    "ancestors": "ancestors", "descendants": "descendants", "parts": "parts",
    "components": "components",
}  # fmt: skip


def _noun_pair(match: re.Match[str]) -> str:
    a, b = (_PAIRED_NOUNS.get(match[side].lower()) for side in ("a", "b"))
    if a is None or b is None or a == b:
        return match[0]
    x = match["x"].strip()
    source = _SOURCE_CONTEXT.search(x)  # "… of mitophagy in GO": said once, at the end
    if source is not None:
        x = x[: source.start()]
    return f"{a} of {x} or the {b} of {x}{source[0] if source else ''}"


#: Joints that say "related to" without naming the relation: the KG's one relation between
#: the answer type and the argument's type is meant.
_JOINTS = re.compile(
    r"(?:shared (?:by|between|with)|in common (?:to|with|between)|common to|share[sd]?|of|for|"
    r"with|in|to|links?|linking|connects?|connecting|bridges?|bridging)(?![\w-])"
)
#: Question phrases of the registry, as (pattern, relation, hint); a phrase ends on a word's
#: end ("causes?" does not stop inside "caused by").
_PHRASES: list[tuple[re.Pattern[str], str, Hint]] = [
    (re.compile(rf"(?:{phrase})(?![\w-])", re.IGNORECASE), name, hint)
    for name, relation in RELATIONS.items()
    for phrase, hint in relation.question_phrases
]
#: "products of": an encodes phrase whose answers are the proteins.
_PRODUCT_OF = re.compile(r"(?:gene\s+)?products?\s+of", re.IGNORECASE)
#: The relation (and its direction from the name) of "SNCA-associated", "SHH-binding".
_HYPHEN_VERBS: dict[str, tuple[str, Hint]] = {
    "associated": ("associated_with", None),
    "linked": ("associated_with", None),
    "related": ("associated_with", None),
    "binding": ("interacts_with", "forward"),
}
_HYPHEN_RELATION = re.compile(rf"^(?P<name>.+?)-(?P<verb>{'|'.join(_HYPHEN_VERBS)})$", re.I)
_FILLER_PHRASES = re.compile(
    r"(?:(?:have|has) been|(?:known|reported|thought|believed|said) to(?: be)?|in common|"
    r"(?:one|any|each) of(?: the)?|among(?: the)?|all (?:(?:two|three|four|five|\d+) )?of|"
    r"(?:is|are) there|"
    r"when mutated|"
    r"about)(?![\w-])",
    re.IGNORECASE,
)
_COPULA = frozenset({"is", "are", "was", "were", "be"})
_DO = frozenset({"do", "does", "did"})
#: Verbs of having after a relation noun's subject ("what subtypes does PD have").
_HAVING = frozenset({"have", "has", "include", "includes"})
_CONTRACTED = re.compile(r"\b(what|which|who|where)['’]s\b|\b(what)s\b", re.IGNORECASE)
_FRONTED = re.compile(
    r"^(?P<joint>in|for|with|to|from|by|of)\s+(?P<rest>(?:which|what)\b.*)$", re.IGNORECASE
)
#: A walk up or down a hierarchy a number of levels: "three levels above X", "two steps
#: up from X", "three part_of steps from X" (part_of when it says so, else subclass_of).
_NUMBERS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5}
_LEVELS = re.compile(
    r"(?:(?:that |which )?(?:is |are |sits? |lies? ))?(?P<n>one|two|three|four|five|[1-5])\s+"
    r"(?P<part>part[_ ]of\s+)?(?:levels?|steps?|hops?|generations?)\s+"
    r"(?P<way>up|above|higher|down|below|lower)(?:\s+(?:than|from|of))?(?![\w-])",
    re.IGNORECASE,
)
#: "Going up three levels from X, which term do you reach?" → "which term is three levels
#: above X" (any "the HPO hierarchy" or "in GO" on the way is context); the start may come
#: first ("X -> go up three levels in HPO, which term do you land on?"), and the question may
#: be a sentence of its own ("… from X. Where do you end up?").
_CLIMB_WALK = (
    r"(?:(?:go(?:ing)?|walk(?:ing)?|mov(?:e|ing)|climb(?:ing)?|step(?:ping)?)\s+"
    r"(?:(?P<way1>up|down)\s+)?(?P<n>\w+)\s+(?:more\s+|further\s+)?"
    r"(?P<unit>(?:part[_ -]of\s+)?(?:levels?|steps?|hops?))"
    # "following part-of links three steps up"
    r"|follow(?:ing)?\s+(?P<along>part[_ -]of|is[_ -]a)\s+(?:links?|edges?)\s+(?P<n2>\w+)\s+"
    r"(?P<unit2>levels?|steps?))"
    r"(?:\s+(?P<way2>up|down))?"
)
#: Where the walk goes: "the HPO hierarchy", "in GO", "in the disease tree".
_CLIMB_IN = r"(?:\s+(?:in\s+)?(?:GO|HPO|(?:the\s+)?[\w-]+\s+(?:hierarchy|tree|ontology)))?"
_CLIMB_ASKED = (
    r"\s*(?:[,:;.?]|\s[-–—])\s*"
    r"(?P<wh>which|what|where)(?:\s+(?P<t>(?!(?:do|would|will|does|can)\b)[\w-]+"
    r"(?:\s+(?!(?:do|would|will|does|can)\b)[\w-]+)?))?\s+"
    r"(?:do|would|will|does|can)\s+(?:you|one|I|we)\s+"
    r"(?:reach|land(?:\s+(?:on|at|in))?|get\s+to|arrive\s+at|end\s+up(?:\s+(?:at|on|with|in))?|"
    r"hit|come\s+to)$"
)
_CLIMB = re.compile(
    rf"^{_CLIMB_WALK}{_CLIMB_IN}\s+from\s+(?P<x>.+?){_CLIMB_IN}{_CLIMB_ASKED}", re.IGNORECASE
)
_CLIMB_START_FIRST = re.compile(
    rf"^(?:(?:start(?:ing)?\s+)?(?:from|at)\s+)?(?P<x>.+?)\s*(?:->|→|:|,|\s[-–—])\s*"
    rf"(?:then\s+)?{_CLIMB_WALK}{_CLIMB_IN}{_CLIMB_ASKED}",
    re.IGNORECASE,
)


#: "What is the full list of X …": a request to list them.
_LIST_OF = re.compile(
    r"^(?:what|which)\s+(?:is|are)\s+(?:the\s+)?(?:(?:full|complete|entire|whole)\s+)?list\s+of\s+",
    re.IGNORECASE,
)
#: "genes whose products bind X": the genes that encode proteins that bind X.
_WHOSE_PRODUCTS = re.compile(
    r"\bwhose\s+(?:encoded\s+)?(?:proteins?|(?:protein\s+|gene\s+)?products?)\s+",
    re.IGNORECASE,
)
#: "genes that turn up in the same diseases as HTT": those linked to HTT's diseases.
_IN_THE_SAME = re.compile(
    r"\b(?:(?:turns?|shows?)\s+up|appears?|(?:are|is)\s+(?:seen|found|involved))\s+in\s+the\s+"
    r"same\s+(?P<what>diseases|conditions|disorders)\s+as\b",
    re.IGNORECASE,
)
#: "what kinds of symptoms": the symptoms — kinds of a node type are that type, not subtypes
#: ("what kind of disease is X" asks for X's class: left as it is).
_KINDS_OF_TYPE = re.compile(
    r"\b(?P<wh>what|which)\s+(?:kinds|types|sorts)\s+of\s+(?=(?:[\w-]+\s+)?(?:"
    + "|".join(p.pattern.removesuffix(r"\b") for p, _ in TYPE_WORDS)
    + r")\b)",
    re.IGNORECASE,
)
#: "annotated HPO phenotypes of X": the phenotypes of X (every one in the KG is annotated).
_ANNOTATED_NOUN = re.compile(
    r"\b(?:annotated|curated|recorded|listed)\s+(?=(?:HPO\s+)?(?:phenotypes?|features?|"
    r"symptoms?|signs?)\b)",
    re.IGNORECASE,
)
#: "conditions linked to the same genes as Rett", "… caused by the same gene as Rett": the
#: conditions of Rett's genes.
_SAME_GENES_AS = re.compile(
    r"\b(?P<verb>linked|tied|associated|connected|related|caused)\s+(?P<prep>to|with|by)\s+"
    r"the\s+same\s+(?P<what>genes?)\s+as\b",
    re.IGNORECASE,
)
#: "Is chorea a feature shared by A, B and C": a feature of each of them.
_FEATURE_SHARED_BY = re.compile(
    r"\b(?P<article>an?)\s+(?P<noun>feature|symptom|sign|phenotype|finding)\s+shared\s+by\b",
    re.IGNORECASE,
)
#: A word that may be a gene symbol typed in lower case or in mouse style ("Vldlr"): a letter,
#: then lower-case letters or digits.
_LOWER_SYMBOL = re.compile(r"[A-Za-z][a-z0-9]{2,9}")
#: Sibling classes, the children of a class's parents (the class among them: the query
#: language has no difference): "the sibling terms of X", "X's sister disorders", "diseases
#: in the same category as X" (a gloss saying so is dropped).
_SIBLING_GLOSS = re.compile(
    r"\s*(?:\(\s*same parent(?:\s+(?:class|group|category))?\s*\)|"
    r",?\s*i\.e\.,?\s+(?:everything|those|all)\s+in\s+the\s+same\s+parent\s+"
    r"(?:class|group|category))",
    re.IGNORECASE,
)
_SIBLING_NOUN = r"(?:disorders|diseases|conditions|syndromes|terms|phenotypes|classes|nodes)"
_SIBLINGS = re.compile(
    r"(?P<possessive>['’]s\s+(?:sibling|sister)\s+" + _SIBLING_NOUN + r"\b)"
    r"|(?P<share>\bshar(?:e|es|ing)\s+an?\s+(?:parent|(?:parent\s+)?(?:category|group|class))\s+"
    r"with\b)"
    r"|\b(?:siblings?|sister)(?:\s+" + _SIBLING_NOUN + r")?\s+of\b"
    r"|\b" + _SIBLING_NOUN + r"\s+(?:that\s+(?:sit|are|belong|fall)\s+)?in\s+the\s+same\s+"
    r"(?:parent\s+)?(?:category|group|class|family)\s+as\b",
    re.IGNORECASE,
)


def _siblings(text: str) -> tuple[str, int]:
    """Sibling classes said as the children of the parents (:data:`_SIBLINGS`): "siblings of
    X", "X's sister disorders", "diseases in the same category as X", "disorders that share a
    parent category with X"; and how many."""

    def spelt_out(match: re.Match[str]) -> str:
        if match["possessive"]:
            return "'s parent subtypes"
        if match["share"]:  # "disorders that share a parent category with X"
            verb = "that are" if match["share"].lower().startswith("sharing") else "are"
            return f"{verb} children of the parents of"
        return "children of the parents of"

    return _SIBLINGS.subn(spelt_out, _SIBLING_GLOSS.sub("", text))


#: "… and tell me which terms you land on": the destination asked after "and".
_TELL_WHERE = re.compile(
    r"\s+and\s+(?:tell|show|give)\s+me\s+(?P<wh>which|what|where)\b(?P<asked>(?:\s+[\w-]+){0,2}?)"
    r"\s+(?P<who>you|I|we)\s+(?=(?:reach|land|end\s+up|get\s+to|arrive)\b)",
    re.IGNORECASE,
)
#: A count of steps through a hierarchy: "three levels", "two is_a steps", "3 hops".
_COUNTED_STEPS = r"(?:one|two|three|four|five|[1-5])\s+(?:[\w-]+\s+)?(?:levels?|steps?|hops?)"
#: "exactly three levels above": a walk is counted exactly anyway.
_EXACTLY_COUNTED = re.compile(rf"\bexactly\s+(?={_COUNTED_STEPS}\b)", re.IGNORECASE)


#: "the ancestors three superclass hops up": the terms that many levels up.
_COUNTED_KIN = re.compile(
    r"\b(?:ancestors?|descendants?|(?:ancestor|descendant)\s+(?:terms|classes|categories))\s+"
    rf"(?={_COUNTED_STEPS}\s+"
    r"(?:up|down|above|below)\b)",
    re.IGNORECASE,
)


def _climbed(text: str) -> str:
    """A walk through the hierarchy asked as a destination, read as a relation phrase."""
    text = _TELL_WHERE.sub(lambda m: f", {m['wh']}{m['asked']} do {m['who']} ", text)
    text = _COUNTED_KIN.sub("terms ", _EXACTLY_COUNTED.sub("", text))
    match = _CLIMB.match(text) or _CLIMB_START_FIRST.match(text)
    if match is None:
        return text
    way = (match.group("way1") or match.group("way2") or "up").lower()
    where = "above" if way == "up" else "below"
    asked = match.group("t") or "term"
    wh = "which" if match.group("wh").lower() == "where" else match.group("wh")
    unit = match.group("unit") or match.group("unit2")
    if (match.group("along") or "").lower().startswith("part") or unit.lower().startswith("part"):
        unit = f"part of {unit.split()[-1]}"
    count = match.group("n") or match.group("n2")
    return f"{wh} {asked} is {count} {unit} {where} {match.group('x')}"


#: What two things may share in a question: "shares genes with", "sharing a phenotype with".
_SHARED_NOUNS = r"(?:genes?|phenotypes?|symptoms?|features?|receptors?|ligands?|diseases?)"
_SHARES_WITH_WHICH = re.compile(
    rf"^(?P<x>.+?)\s+shares?\s+(?:an?\s+|any\s+)?(?P<via>{_SHARED_NOUNS})\s+with\s+"
    r"(?P<rest>(?:which|what)\b.*)$",
    re.IGNORECASE,
)
_SHARING = re.compile(
    rf"\b(?P<answers>\w+)\s+(?:that\s+|which\s+)?(?:shar(?P<finite>es?)|sharing)\s+"
    rf"(?:an?\s+|any\s+)?"
    rf"(?P<via>{_SHARED_NOUNS})\s+with\s+",
    re.IGNORECASE,
)
#: "Of the disorders …, which are …", "Among the genes of …, which ones have …".
_PARTITIVE = re.compile(
    r"^(?:of|among)\s+the\s+(?P<group>[^,]+),\s*(?:which|what)(?:\s+ones?)?\s+(?P<rest>.+)$",
    re.IGNORECASE,
)
#: Any type word.
_TYPE_WORD = "|".join(p.pattern for p, _ in TYPE_WORDS)
#: "Which of the diseases of LRRK2 …", "Which of LRRK2's diseases …": which diseases.
_WHICH_OF = re.compile(r"^(which|what)\s+of\s+(?:the\s+)?(?=\S)", re.IGNORECASE)
#: A group with an object relative and no "that": "the diseases TBK1 is linked to".
_REDUCED_RELATIVE = re.compile(
    rf"^(?P<head>{_TYPE_WORD})\s+"
    r"(?!(?:that|which|of|for|with|in|to|linked|associated|related)\b)"
    r"(?=\S.*\s(?:is|are|was|were|has|have|do|does)\s)",
    re.IGNORECASE,
)
_THAT = r"\g<head> that "
#: A topic put first, then the question about it: "Huntingtin: which disorders is it …",
#: "For Sonic hedgehog, which genes …".
_TOPIC = re.compile(
    r"^(?:(?:for|regarding|concerning|as for)\s+(?P<named>[^,:;]+?),\s*"
    r"(?=(?:which|what|who|list|name|give|find|show|return|pull|get|fetch|retrieve)\b)|"
    r"(?P<topic>[^:;–—]+?)\s*(?::|;|\s[-–—]\s)\s*)(?P<rest>\S.*)$",
    re.IGNORECASE,
)
_PRONOUN = re.compile(
    r"\b(?:all\s+(?:two|three|four|five|of\s+them)|both\s+of\s+them|it|they|them)\b",
    re.IGNORECASE,
)
#: Adjectives that only say "of the topic": "its associated genes" are the topic's genes.
_OF_ADJECTIVES = r"(?:(?:associated|linked|related|causal|causative|corresponding|encoded)\s+)"
#: "their own child terms" are the child terms of the topic.
_POSSESSIVE_PRONOUN = re.compile(
    rf"\b(?:their|its)\s+(?:own\s+)?{_OF_ADJECTIVES}?"
    r"(\w[\w-]*(?:\s+(?:terms|classes|categories|nodes)\b)?)",
    re.IGNORECASE,
)
#: "For X, what are the associated genes": the genes of X.
_IMPLIED_OF = re.compile(rf"\bthe\s+{_OF_ADJECTIVES}({_TYPE_WORD})", re.IGNORECASE)
#: A relation noun with no argument after it ("which subtypes are listed").
_BARE_RELATION_NOUN = re.compile(
    rf"\b(?:{'|'.join(p.pattern for p, _, _, _ in _RELATION_NOUNS)})(?!\s+(?:of|in|under)\b)",
    re.IGNORECASE,
)
#: "genes that have chorea and dystonia as phenotypes" have them.
_AS_KIND = re.compile(
    r"\s+as\s+(?:(?:its|their|an?)\s+)?(?:phenotypes?|features?|symptoms?|signs?|annotations?)\b",
    re.IGNORECASE,
)
#: "subtypes whose records list X" are the subtypes that have X.
_WHOSE_RECORDS = re.compile(
    r"\bwhose\s+(?:records?|entries|entry|annotations?|(?:phenotype\s+)?profiles?)\s+"
    r"(?:list|include|contain|mention|show)s?\b",
    re.IGNORECASE,
)
#: "genes that carry a dystonia annotation" carry dystonia.
_ANNOTATION = re.compile(
    r"\b(?P<verb>carr(?:y|ies|ying)|ha(?:ve|s|ving)|with)\s+(?:an?\s+|the\s+)?"
    r"(?P<term>[^,;?]+?)\s+annotations?\b",
    re.IGNORECASE,
)
#: Where a question names the KG it asks: "In GO, …", "According to the Gene Ontology, …".
_CONTEXT = re.compile(
    r"^(?:in|within|according to|per)\s+(?:the\s+)?(?:GO|gene ontology|HPO|KG|knowledge graph)"
    r"\s*,?\s*",
    re.IGNORECASE,
)
#: "… does the Gene Ontology distinguish", "… does the KG list", "… in GO": the KG is the
#: context anyway.
_SOURCES = (
    r"(?:GO|gene ontology|HPO|human phenotype ontology|MONDO|Orphanet|OMIM|KG|knowledge graph|"
    r"graph|ontology|database)"
)
#: "Orphanet's young-onset PD": the source's record of a name is the name.
_SOURCE_POSSESSIVE = re.compile(rf"\b{_SOURCES}['’]s\s+(?=\S)", re.IGNORECASE)
_SOURCE_CONTEXT = re.compile(
    rf"\s+(?:(?:does|do)\s+(?:the\s+)?{_SOURCES}\s+(?:distinguish|list|define|have|"
    r"recogni[sz]e|contain|include|record|hold|know)|(?:(?:that|which)\s+)?(?:you|we)\s+"
    r"(?:have|hold|keep|know)(?:\s+of)?(?:\s+(?:in|within)\s+(?:the\s+)?"
    rf"{_SOURCES})?|(?:in|within|according to)\s+(?:the\s+|this\s+)?{_SOURCES})$",
    re.IGNORECASE,
)
#: The KG named as the one who annotates, mid-question: "which phenotypes does the KG annotate
#: to X" → "which phenotypes are annotated to X"; "what sx does the KG list for X".
_KG_DOES = re.compile(
    r"\b(?:does|do)\s+(?:the|this)\s+(?:KG|knowledge\s+graph|graph|database)\s+"
    r"(?P<verb>annotate|list|record|assign|attach|link)\b",
    re.IGNORECASE,
)
_KG_DOES_PAST = {"annotate": "annotated", "list": "listed", "record": "recorded",
                 "assign": "assigned", "attach": "attached", "link": "linked"}  # fmt: skip
#: "hit in the KG —", "in this graph,": the KG as the place, before more of the question.
_IN_THE_KG = re.compile(
    r"\s+(?:in|within|according\s+to)\s+(?:the|this)\s+(?:KG|knowledge\s+graph|graph|database)"
    r"(?=\s*(?:[,;:?.!]|\s[-–—]))",
    re.IGNORECASE,
)
#: "the protein of the VLDLR gene" (as the steps "VLDLR gene -> its protein" read): the
#: protein it encodes, not a protein's gene.
_PROTEIN_OF_GENE = re.compile(
    r"\bthe\s+(?:gene\s+)?(?:proteins?|products?)\s+of\s+(?=(?:the\s+)?[\w-]+\s+gene\b)",
    re.IGNORECASE,
)
#: Curators' "records" (of diseases, in OMIM or Orphanet) are diseases.
_RECORDS = re.compile(r"\b(?:disease\s+)?(?:records|entries)\b", re.IGNORECASE)
_OPENING = re.compile(
    r"(?:show(?: me)?|list|find|tell me|give me|name|return|get|identify)(?![\w-])", re.I
)
_CONJUNCTIONS = re.compile(r"(?:as well as|and also|and|or|plus|,)(?![\w-])", re.IGNORECASE)
_WORD_KINDS: dict[str, Kind] = {
    **dict.fromkeys(
        ("which", "what", "list", "find", "show", "me", "tell", "name", "give", "return", "get",
         "identify"), "wh"),
    **dict.fromkeys(
        ("is", "are", "was", "were", "do", "does", "did", "can", "be", "been"), "aux"),
    **dict.fromkeys(("that", "who", "whose"), "relative"),
    **dict.fromkeys(
        ("the", "a", "an", "all", "any", "known", "every", "also", "both", "either", "together",
         "common",
         "alike", "really", "each", "those", "these", "them", "their", "its", "direct",
         "directly", "immediate", "immediately", "broader", "categories", "category", "classes",
         "groups", "terms", "term",
         "mutations", "mutation", "variants", "variant", "various", "other", "causative",
         "clinical", "kinase", "full", "complete", "entire", "whole"),
        "filler"),
}  # fmt: skip
_TOKEN = re.compile(r"['’]s(?![\w])|[^\s,;:?!()'’]+(?:['’](?!s\b)[^\s,;:?!()]*)?|[,;:]")
#: Fillers that make a subject list joint: "do apoE and APP both bind".
_TOGETHER = frozenset({"both", "together", "alike", "in common", "common"})
#: Relation words that make a subject list joint: "which gene do SCA2 and ALS share".
_JOINT_RELATIONS = ("share", "common")
_PARENTHESES = re.compile(r"\s*\([^()]*\)")
#: An abbreviation with its gloss in brackets: "DRD (dopa-responsive dystonia)".
_GLOSSED = re.compile(r"\b(?P<short>[A-Z][A-Za-z0-9-]{1,9})\s*\((?P<long>[^()]{4,})\)")
#: "the broader GO term", "the parent HPO terms", "broader disease groupings": the source or
#: kind between a hierarchy adjective and its noun says nothing the noun does not.
_SOURCE_BETWEEN = re.compile(
    r"\b(?P<adjective>broader|wider|narrower|parent|child|ancestor|descendant|higher|lower|"
    r"more general|more specific|(?:great-)*grand(?:parent|child))\s+"
    r"(?:GO|HPO|MONDO|ontology|disease|phenotype|symptom)\s+"
    r"(?P<noun>terms?|categor(?:y|ies)|class(?:es)?|concepts?|nodes?|groupings?|headings?)\b",
    re.IGNORECASE,
)
#: "a known cause of", "the established genes": the attribute adds nothing the KG can check.
_KNOWN = re.compile(
    r"\b(?:known|established|recognised|recognized|documented|confirmed)\s+"
    r"(?=(?:causes?|genes?|features?|symptoms?|subtypes?|receptors?|ligands?|"
    r"phenotypes?|associations?)\b)",
    re.IGNORECASE,
)
#: "the different inherited forms of X", "the hereditary types": a disease's forms in the KG
#: are its (inherited) subtypes, so the adjectives add nothing.
_KINDS_ADJECTIVES = re.compile(
    r"\b(?:(?:different|various|inherited|hereditary|heritable|genetic|familial|monogenic)\s+)+"
    r"(?=(?:sub)?types\b|forms\b|kinds\b)",
    re.IGNORECASE,
)
#: "disease types", "symptom kinds": the diseases, the symptoms (not subtypes of them).
_TYPE_KINDS = re.compile(
    r"\b(?P<noun>disease|disorder|condition|syndrome|gene|protein|phenotype|symptom|feature)"
    r"\s+(?:types|kinds|sorts)\b",
    re.IGNORECASE,
)
#: A question put after a request: "Show me what the proteins encoded by X interact with" asks
#: "what do the proteins encoded by X interact with".
_EMBEDDED_WHAT = re.compile(
    r"^(?:(?:can|could)\s+you\s+)?(?:please\s+)?(?:show|tell|list)(?:\s+me)?\s+what\s+"
    r"(?!(?:is|are|was|were|do|does|did|can|could|has|have)\b)(?=(?:the|a|an|its|their)\s)",
    re.IGNORECASE,
)
#: "Union of two lists: A, and B", "merge A and B into a single list": everything of either.
_UNION_OF = re.compile(
    r"^(?:(?:the\s+)?union\s+of\s+(?:the\s+)?(?:two|both)\s+(?:lists|sets)\s*:\s*"
    r"(?P<a>.+?),?\s+and\s+(?P<b>.+)|(?:(?:can|could)\s+you\s+)?(?:please\s+)?"
    r"(?:merge|combine|pool)\s+(?P<merged>.+?)\s+into\s+(?:a\s+|one\s+)?(?:single\s+|"
    r"combined\s+)?list)$",
    re.IGNORECASE,
)


#: A request that the lists be one: "…, one combined list pls", "… - union", "union of A
#: and B", "A plus B": everything of either.
_ONE_LIST = re.compile(
    r"(?:\s*[-–—,:;]\s*|\s+)(?<!\binto\s)(?:(?:as\s+)?(?:one|a\s+single)\s+(?:(?:combined|merged|union)\s+)?"
    r"(?:list|set)|(?:(?:the|a|as\s+a)\s+)?(?:union|combined|merged)(?:\s+(?:list|set))?)"
    r"(?:\s*,?\s*(?:pls|please|plz|thx|thanks))?(?:\s*\([^()]*\))?\s*[.?!]*\s*$",
    re.IGNORECASE,
)
_UNION_FIRST = re.compile(r"^(?:(?:the|a)\s+)?union\s+of\s+(?!(?:the\s+)?(?:two|both)\b)",
                          re.IGNORECASE)  # fmt: skip
_JOINED = re.compile(r"\s+(?:and|plus|\+|together\s+with)\s+", re.IGNORECASE)
_PLUS_WORD = re.compile(r"\s+(?:plus|together\s+with)\s+(?=(?:the|all|every|any)\b)",
                        re.IGNORECASE)  # fmt: skip


#: Ontology editors' is_a: an adjective of a hierarchy word ("the asserted is_a parents", "two
#: is_a levels", "three superclass hops"), or the relation itself ("records that are is_a X").
_IS_A_ADJECTIVE = re.compile(
    r"\b(?:(?:asserted|direct)\s+)?(?:is[_-]a|superclass|subclass)\s+(?=(?:parents?|"
    r"child(?:ren)?|levels?|steps?|hops?|ancestors?|descendants?|grand\w+)\b)",
    re.IGNORECASE,
)
_IS_A_VERB = re.compile(
    r"\b(?:(?:are|is)\s+)?(?:asserted\s+as\s+)?(?:an?\s+)?is[_-]a\s+", re.IGNORECASE
)
#: What "is_a" becomes after "are", after "is", and alone ("records that are is_a X", "Is Y
#: is_a X?", "… AND is_a X").
_IS_A_SAID = {"are": "are subclasses of ", "is": "is a subclass of "}
_ASSERTED_AS = re.compile(r"\basserted\s+as\s+(?=an?\b)", re.IGNORECASE)


#: An id followed by its entity's name ("HP:0002544 Retrocollis", "HP:0002599 'Head
#: titubation'"): the name says again what the id says.
_ID_THEN = re.compile(r"\b(?P<id>[A-Za-z][\w.]*:[\w.]*\d)\s+(?P<rest>\S.*)$", re.DOTALL)


def _id_named(text: str, linker: EntityIndex) -> str:
    """``text`` without the names that repeat the id before them (:data:`_ID_THEN`)."""
    match = _ID_THEN.search(text)
    if match is None:
        return text
    rest = _id_named(match["rest"], linker)
    for entity in linker.lookup(match["id"])[:1]:
        named = re.match(rf"(['‘’\"“]?){re.escape(entity.name)}\1(?!\w)", rest, re.IGNORECASE)
        if named is not None:
            rest = rest[named.end() :].lstrip()
    return f"{text[: match.start()]}{match['id']} {rest}".rstrip()


def _is_a(text: str) -> str:
    """The is_a wordings of :data:`_IS_A_ADJECTIVE` and :data:`_IS_A_VERB` in plain words."""
    text = _ASSERTED_AS.sub("", _IS_A_ADJECTIVE.sub("", text))
    return _IS_A_VERB.sub(lambda m: _IS_A_SAID.get(m[0].split()[0].lower(), "subclasses of "), text)


def _one_list(text: str) -> str:
    """Lists asked for as one (:data:`_ONE_LIST`) joined by "or"; "A plus the B" too."""
    text = _PLUS_WORD.sub(" or ", text)
    if _UNION_FIRST.match(text):
        return "list " + _JOINED.sub(" or ", _UNION_FIRST.sub("", text))
    stripped = _ONE_LIST.sub("", text)
    return text if stripped == text else _JOINED.sub(" or ", stripped)


def _union_of(match: re.Match[str]) -> str:
    merged = match["merged"]
    if merged:  # "the parts and the subtypes of X", else "A and B": each, into one list
        paired = _NOUN_PAIR.sub(_noun_pair, merged)
        return "list " + (paired if paired != merged else re.sub(r"\band\b", "or", merged))
    return f"list {match['a']} or {match['b']}"


#: "… have dystonia among their recorded phenotypes", "… on their own phenotype list": have
#: dystonia (the answers' phenotypes are where the KG records it anyway).
_AMONG_OWN = re.compile(
    r"\s+(?:among|in|on|as\s+part\s+of)\s+(?:their|its|the)\s+(?:own\s+)?(?:(?:recorded|"
    r"annotated|listed|known)\s+)?(?:phenotypes?|symptoms?|features?|signs?|phenotype\s+"
    r"lists?|annotations?)(?=\s*$|\s*[,;?])",
    re.IGNORECASE,
)
#: An aside describing a name at the end: "…, the enzyme that makes L-DOPA".
_DESCRIBED_AS = re.compile(
    r",\s+the\s+(?:enzyme|protein|receptor|hormone|peptide|molecule|transporter|channel|"
    r"kinase|ligand)\s+(?:that|which)\s+[^,;?]+$",
    re.IGNORECASE,
)
#: "the same diseases it's linked to": the diseases it is linked to ("the same … as X" is
#: read by :data:`_IN_THE_SAME`).
_SAME_BEFORE_CLAUSE = re.compile(
    r"\bthe\s+same\s+(?=(?:diseases|conditions|disorders|genes|phenotypes|symptoms)\s+"
    r"(?:that\s+|which\s+)?(?:it|they)(?:['’]s|['’]re|\s+is|\s+are)\s)",
    re.IGNORECASE,
)
#: "share at least one gene with X": share a gene with X.
_AT_LEAST_ONE = re.compile(r"\bat\s+least\s+one\b", re.IGNORECASE)
#: "… are also part of the (clinical) picture of X": phenotypes of X.
_PICTURE = re.compile(
    r"\b(?P<verb>is|are)\s+(?P<also>also\s+)?part\s+of\s+the\s+(?:clinical\s+)?picture\s+"
    r"(?:of|in)\b",
    re.IGNORECASE,
)
#: "Which symptoms of A overlap with B": those shared with B.
_OVERLAP = re.compile(r"\boverlap(?:s|ping)?\s+with\b", re.IGNORECASE)
#: "processes annotated as part of X": the KG's parts of X (every edge is an annotation).
_ANNOTATED_AS = re.compile(
    r"\b(?:(?:directly|immediately)\s+)?(?:annotated|recorded|listed|catalogued|cataloged|"
    r"classed|classified|categori[sz]ed)\s+as\s+(?=(?:an?\s+)?(?:(?:direct|immediate)\s+)?"
    r"(?:parts?|components?|component\s+steps?|subtypes?|children|kinds?|types?|forms?)"
    r"(?:\s+\(\w+\))?\s+of\b)",
    re.IGNORECASE,
)
#: "Comparing A with B: which …": the comparison the question after the colon makes.
_COMPARING = re.compile(r"^(?:comparing|compare|contrasting)\s+[^:?]+:\s*(?=\S)", re.I)
#: "Do A and B bind each other?" asks whether A binds B.
_RECIPROCAL = re.compile(
    r"^(?:do|does|did)\s+(?P<a>.+?)\s+and\s+(?P<b>.+?)\s+(?P<verb>[a-z]+)\s+"
    r"(?:each other|one another)$",
    re.IGNORECASE,
)
#: "Which X genes are also ALS genes?": the X genes that are also of ALS.
_ALSO_KIND = re.compile(
    r"^(?P<head>(?:which|what)\s+.+?\s+(?P<kind>genes|proteins|diseases|phenotypes))\s+"
    r"are\s+(?P<also>also\s+)?(?P<b>.+?)\s+(?P=kind)$",
    re.IGNORECASE,
)
#: A chat opener before the question: "quick q:", "hey,", "question -".
_CHAT_OPENER = re.compile(
    r"^\s*(?:(?:quick\s+)?(?:q|question)|hey|hi|hello|ok(?:ay)?|so)\s*(?:[:,]|\s[-–—])\s*",
    re.IGNORECASE,
)
#: "I need to know …", "I'd like to see …": what follows is the question itself.
_WANT_TO_KNOW = re.compile(
    r"^\s*(?:i\s+(?:need|want|would\s+like)|i['’]d\s+like)\s+to\s+"
    r"(?:know|see|find\s+out|check|learn)\s+",
    re.IGNORECASE,
)
#: "I need …", "I'd like …", "can you give me …": a request to list.
_REQUEST = re.compile(
    r"^\s*(?:i\s+(?:need|want|would\s+like)|i['’]d\s+like|"
    r"(?:can|could)\s+you\s+(?:please\s+)?(?:give|list|show|get)(?:\s+me)?|"
    r"please\s+(?:give|list|show|get)(?:\s+me)?|(?:please\s+)?enumerate)\s+"
    r"(?:(?:a|the)\s+(?:full\s+)?list\s+of\s+)?",
    re.IGNORECASE,
)
#: "the full symptom list for X": the symptoms of X.
_LIST_FOR = re.compile(
    r"\b(?:the\s+)?(?:(?:full|complete|whole)\s+)?(?P<noun>symptom|phenotype|feature|gene|"
    r"disease|sign)\s+list\s+(?:for|of)\b",
    re.IGNORECASE,
)
#: "genes that have myoclonus annotated", "where X and Y are recorded": the annotation
#: verb after the term says nothing more than "have".
_RECORDED = r"(?:annotated|recorded|listed|documented)$"
_ANNOTATED_AFTER = re.compile(
    rf"\b(?P<verb>have|has|having|with)\s+(?P<term>[^,;]+?)\s+{_RECORDED}", re.IGNORECASE
)
_WHERE_ANNOTATED = re.compile(
    rf"\bwhere\s+(?P<term>[^,;]+?)\s+(?:is|are)\s+{_RECORDED}", re.IGNORECASE
)
#: "annotated both to A and to B": annotated to both A and B.
_BOTH_TO = re.compile(r"\bannotated\s+both\s+to\s+(?P<a>.+?)\s+and\s+to\s+", re.IGNORECASE)
#: "what binds TrkB? ligands only pls": an answer type said after the question.
_AFTERTHOUGHT_TYPE = re.compile(
    rf"^(?P<wh>what|who)\s+(?P<rest>[^?]+?)\s*\?\s*(?:(?:just|only)\s+)?(?P<type>{_TYPE_WORD})"
    r"(?:\s+only)?(?:\s*,?\s*(?:pls|please|thanks|thx|ty))?$",
    re.IGNORECASE,
)
#: "What broader disease categories include X", "which groups do X fall under": the parents
#: of X, asked with the category as the subject or X as the one that falls under it.
_CATEGORY_OF = re.compile(
    r"^(?:under\s+|into\s+)?(?P<wh>what|which)\s+(?P<kind>(?P<broad>(?:broader|parent|"
    r"higher(?:-level)?|wider|more general)\s+)?"
    r"(?:(?:disease|phenotype|symptom|GO|HPO|ontology)\s+)?(?:categor(?:y|ies)|class(?:es)?|groups?|groupings?|headings?))"
    r"\s+(?:(?:include|includes|contain|contains|encompass(?:es)?|covers?)\s+(?P<x1>.+)|"
    r"(?:do|does|did)\s+(?P<x2>.+?)\s+(?:fall|belong|sit)(?:\s+(?:under|into|within|to|in))?)$",
    re.IGNORECASE,
)


def _categories_of(match: re.Match[str]) -> str:
    """The parents asked as categories (see :data:`_CATEGORY_OF`), as "the broader … of X"."""
    kind = match["kind"]
    broader = "" if match["broad"] else "broader "
    return f"{match['wh']} are the {broader}{kind} of {match['x1'] or match['x2']}"


#: "Is X a (known) cause of Y?" asks whether X causes Y.
_A_CAUSE_OF = re.compile(
    r"^(?:is|are)\s+(?P<x>.+?)\s+(?:an?|the)\s+(?:[a-z-]+\s+)?causes?\s+of\s+(?P<y>.+)$",
    re.IGNORECASE,
)
#: "What does X look like clinically?" asks for X's clinical features.
_LOOKS_LIKE = re.compile(
    r"^what\s+(?:does|do)\s+(?P<x>.+?)\s+look\s+like(?:\s+clinical(?:ly)?)?$", re.IGNORECASE
)
#: "What diseases has LRRK2 been implicated in" asks "… is LRRK2 implicated in"
_PERFECT = re.compile(
    r"\b(?:has|have|had)\s+(?!been\b)(?P<subject>\S[^?]{0,80}?)\s+been\s+", re.IGNORECASE
)
#: "Can mutations in PINK1 cause …": the gene causes it.
_MUTATIONS_IN = re.compile(
    r"\b(?:(?:pathogenic|causal|causative|biallelic|heterozygous|dominant|recessive)\s+)?"
    r"(?:mutations?|variants?|defects?)\s+(?:in|of)\s+(?=\S)",
    re.IGNORECASE,
)
#: "the APP gene's product" is "the APP gene product"
_GENE_PRODUCT = re.compile(r"\bgene['’]s\s+(?=products?\b)", re.IGNORECASE)
#: "the TH gene's protein": the TH protein.
_GENE_PROTEIN = re.compile(r"\s+gene['’]s\s+(?:encoded\s+)?(?=proteins?\b)", re.IGNORECASE)

#: A capitalised word (no symbol): "Huntington" of "Huntington's".
_EPONYM_WORD = re.compile(r"[A-Z][a-z]+(?:-[A-Z][a-z]+)?")

NOUNS = ("entity", "type")
#: Type words that after a name (or a list of names) say which record is meant: "the LRRK2
#: and SNCA proteins", "the protein of SHH".
#: A relation phrase that opens a relative clause ("that feature", "which cause").
_RELATIVE_PHRASE = re.compile(r"(?:that|which)\s", re.IGNORECASE)
_RECORD_WORDS = frozenset({"gene", "genes", "protein", "proteins", "gene product", "gene products"})
#: Roles in the plural: after a possessive ("NGF's receptors") they ask for the partners.
_PLURAL_ROLES = frozenset({"receptors", "co-receptors", "coreceptors", "ligands"})
#: A protein's role in the singular after its name: the name's protein ("the RET receptor").
_ROLE_WORDS = frozenset({"receptor", "co-receptor", "coreceptor", "ligand"})

Kind = Literal[
    "entity", "relation", "type", "conj", "relative", "aux", "wh", "filler", "possessive",
    "punct", "unknown",
]  # fmt: skip


class PhraseError(ValueError):
    """The words do not form a question the reader knows; the message says where."""


@dataclass(slots=True)
class Tag:
    """A span of the question's tokens read as one thing."""

    kind: Kind
    text: str
    start: int
    end: int
    #: relation: (relation, hint) read from the registry; empty for a bare joint
    relation: str = ""
    hint: Hint = None
    #: type: the node type a type word names (None for "terms", "subtypes"); relation: the
    #: answers' type a role names ("a ligand for": proteins)
    node_type: str | None = None
    #: entity: what the index links the span to (fuzzy hits make the reading a guess)
    entities: list[LinkedEntity] = field(default_factory=list)
    fuzzy: bool = False
    #: relation before a type word by a hyphen ("SNCA-associated diseases")
    hyphen: bool = False
    #: relation: how many hops it takes ("grandparents": two subclass_of hops)
    repeat: int = 1


@dataclass(slots=True)
class Mention:
    """An entity mention: its words and what the index found for them."""

    tag: Tag


@dataclass(slots=True)
class Clause:
    """A relation phrase and its argument; ``subject`` when the argument stands before the
    phrase as its grammatical subject ("does X have", "that NGF binds")."""

    relation: Tag
    argument: Phrase
    subject: bool = False
    joiner: str = "and"
    #: a subject list said with "both", "together", "alike" or "in common" ("do A and B both
    #: bind", "do A and B have in common")
    together: bool = False


@dataclass(slots=True)
class Phrase:
    """A noun phrase: a type word and clauses (the answers), or a list of entity mentions."""

    head: Tag | None = None
    clauses: list[Clause] = field(default_factory=list)
    mentions: list[Mention] = field(default_factory=list)
    joiners: list[str] = field(default_factory=list)


@dataclass(slots=True)
class Reading:
    """The answers' phrase; a yes/no question's candidate entity."""

    answer: Phrase
    candidate: Mention | None = None
    #: further answer phrases listed after the first ("the genes linked to X and the genes
    #: linked to Y"): the answers of each, together
    listed_with: list[Phrase] = field(default_factory=list)
    #: mentions linked by fuzzy search; (misspelt, read as) words
    guessed: list[str] = field(default_factory=list)
    corrected: list[tuple[str, str]] = field(default_factory=list)
    #: plural category names read as the answers' type ("ataxias": diseases)
    broadened: list[tuple[str, str]] = field(default_factory=list)
    #: the entities those category names name ("inherited dystonias": inherited dystonia)
    categories: list[Tag] = field(default_factory=list)
    #: everyday words the reader could not place and left out ("please", "catalogued")
    ignored: list[str] = field(default_factory=list)
    #: the question was a bare noun phrase, read as a list request ("List …")
    listed: bool = False
    #: "siblings of X" read as the children of X's parents (X itself among them)
    siblings: bool = False


def read(question: str, linker: EntityIndex) -> Reading:
    """The phrase structure of ``question``; :class:`PhraseError` when it has none. A question
    that is only a noun phrase ("HD-like syndromes presenting with chorea?") is read as a
    list request when it cannot be read as it stands."""
    try:
        return _read(question, linker)
    except PhraseError as error:
        if not _NOUN_PHRASE_ONLY.match(question):
            raise
        try:
            reading = _read(f"List {question}", linker)
        except PhraseError:
            raise error from None
        reading.listed = True
        return reading


#: A question that opens with neither a question word, an auxiliary, a request nor a
#: preposition: perhaps a bare noun phrase.
_NOUN_PHRASE_ONLY = re.compile(
    r"^\s*(?!(?:which|what|who|whom|whose|where|when|why|how|is|are|was|were|do|does|did|can|"
    r"could|has|have|list|show|find|tell|give|name|return|get|identify|of|among|for|in|"
    r"within|according|regarding|concerning|as)\b)\w",
    re.IGNORECASE,
)


def _spelt_out(match: re.Match[str], linker: EntityIndex) -> str:
    """ "DRD (dopa-responsive dystonia)": the abbreviation's gloss is the name read when the
    index names it; any other bracket is left for :data:`_PARENTHESES` to drop."""
    short, long = match.group("short"), match.group("long").strip()
    if len(long.split()) > 1 and abbreviates(short.replace("-", ""), long) and linker.lookup(long):
        return long
    return match.group(0)


#: A gene's symbol in brackets after a name: "delta-like 1 (DLL1)".
_SYMBOL_GLOSS = re.compile(r"(?P<before>(?:[\w-]+\s+){1,5})\((?P<symbol>[A-Z][A-Z0-9-]{1,9})\)")


def _symbol_glossed(match: re.Match[str], linker: EntityIndex) -> str:
    """ "delta-like 1 (DLL1)": the symbol the writer added names the gene or protein exactly,
    so it replaces the longest run of words before it that names a gene or protein (the run
    may name another one: DLK1, "delta-like 1 homolog"); else the bracket is left for
    :data:`_PARENTHESES` to drop."""
    symbol = match["symbol"]
    exact = [e for e in linker.lookup(symbol) if e.match == "name" and e.name == symbol]
    if not exact or exact[0].type not in ("gene", "protein"):
        return match[0]
    words = match["before"].split()
    for start in range(len(words)):
        found = linker.lookup(" ".join(words[start:]))
        if found:  # a disease named before a gene's symbol keeps its name: "(DCTN1)" is a gloss
            if found[0].type not in ("gene", "protein"):
                return match[0]
            return " ".join([*words[:start], symbol]) + " "
    return match[0]


#: A type word before a name, in apposition: "the protein progranulin", "the hormone leptin".
_APPOSITIVE = re.compile(
    r"\bthe\s+(?P<kind>gene|protein|peptide|hormone|enzyme|receptor|ligand)\s+"
    r"(?P<name>[\w-]+(?:\s+[\w-]+){0,3})",
    re.IGNORECASE,
)
_APPOSITIVE_TYPES = {"gene": ("gene",)}


def _appositive(match: re.Match[str], linker: EntityIndex) -> str:
    """The name without its type word when the words after it (up to four) name an entity
    of that type exactly; else unchanged ("the protein encoded by", "the gene that …")."""
    kind = match["kind"].lower()
    words = match["name"].split()
    for size in range(len(words), 0, -1):
        named = " ".join(words[:size])
        types = _APPOSITIVE_TYPES.get(kind, ("protein",))
        if any(e.exact for e in linker.lookup(named, node_types=types)):
            return match["name"]
    return match[0]


#: A filter said as a second step: "Take the ligands of X and keep only those that bind Y".
_KEEP_ONLY = re.compile(
    r"\s*,?\s+(?:and\s+)?(?:then\s+)?(?:keep(?:ing)?|retain(?:ing)?|filter(?:ing)?\s+(?:down\s+)?"
    r"to)\s+(?:only\s+)?(?:those|the\s+ones)\s+(?=(?:that|which|whose)\b)",
    re.IGNORECASE,
)
#: "Intersect A with those B": A that are also B.
_INTERSECT_WITH = re.compile(
    r"^intersect\s+(?P<a>.+?)\s+with\s+(?:those|the\s+ones)\s+(?P<b>[^,;]+)", re.IGNORECASE
)
#: A step that maps the last result onto another kind: "map them to the proteins they
#: encode", "map the shared receptors back to the genes that encode them".
_MAP_TO = re.compile(
    r"\b(?:map|convert|translate)\s+(?:them\s+|it\s+|(?:those|these|the)\s+(?:[\w()-]+\s+){0,2}?)"
    r"(?:back\s+)?(?:on)?(?:to|into)\s+(?=\S)",
    re.IGNORECASE,
)

#: A role said with "act as": "proteins that act as ligands of TREM2" bind it; "proteins
#: acting as receptors for NGF" are bound by it.
_ACT_AS = re.compile(
    r"\b(?:acts?|acting|serves?|serving|functions?|functioning)\s+as\s+(?:(?:an?|the)\s+)?"
    r"(?P<role>ligands?|receptors?)\s+(?:of|for)\b",
    re.IGNORECASE,
)
#: "return whatever those proteins bind (as receptors)": everything they bind.
_WHATEVER_BOUND = re.compile(
    r"\bwhatever\s+(?P<clause>(?:\w+\s+){1,3}?bind)s?(?:\s+as\s+(?:receptors?|targets?))?\b",
    re.IGNORECASE,
)


#: "What does X bind (as the ligand side)?", "… bind on the receptor side": the side said
#: is a role, X's or the answers', which fixes the direction of the binding.
_BIND_SIDE = re.compile(
    r"\bwhat\s+(?P<verb>does|do|did)\s+(?P<x>[^?]+?)\s+bind(?:\s+to)?\s*[(,]?\s*(?:as\s+"
    r"(?:the\s+|an?\s+)?(?P<own>ligand|receptor)s?(?:\s+side)?|on\s+the\s+(?P<other>ligand|"
    r"receptor)s?\s+side)\s*\)?",
    re.IGNORECASE,
)


def _bind_side(match: re.Match[str]) -> str:
    own, other = (match["own"] or "").lower(), (match["other"] or "").lower()
    ligand = own == "receptor" or other == "ligand"  # the answers are the ligands
    return f"which {'ligands' if ligand else 'receptors'} {match['verb']} {match['x']} bind"


#: A chain told as a riddle: "X is part of some process - what is that process itself a type
#: of", "X is part of a process - and that process is part of what", "X is part of a step
#: that is itself part of which larger process".
_CHAIN_RELATION = r"(?:part\s+of|an?\s+(?:sub)?(?:type|kind|form|subclass)\s+of)"
_CHAINED = re.compile(
    rf"^(?P<a>.+?)\s+(?P<be>is|are)\s+(?P<rel>{_CHAIN_RELATION})\s+(?:an?|some|another)\s+"
    r"(?P<noun>[\w-]+)\s*(?:(?:[-–—,;:]\s*)+(?:and\s+)?(?P<rest>\S.*)|\s+that\s+(?P<that>\S.*))$",
    re.IGNORECASE,
)
_CHAIN_ASKED = re.compile(
    rf"^(?:what\s+(?:is|are)\s+)?(?:(?:that|this|the)\s+(?P<noun>[\w-]+)\s+)?(?:(?:is|are)\s+)?"
    rf"(?:itself\s+|in\s+turn\s+)*(?P<rel>{_CHAIN_RELATION})(?:\s+in\s+turn)?"
    r"(?:\s+(?:what|which\b.*))?$",
    re.IGNORECASE,
)


def _chained(text: str) -> str:
    """A chain told as a riddle (:data:`_CHAINED`) as one noun phrase asked about: "the
    process that X is part of is a type of what"."""
    chain = _CHAINED.match(text)
    if chain is None:
        return text
    asked = _CHAIN_ASKED.match(chain["rest"] or chain["that"])
    if asked is None or (asked["noun"] or chain["noun"]).lower() != chain["noun"].lower():
        return text
    noun = chain["noun"] if any(p.fullmatch(chain["noun"]) for p, _ in TYPE_WORDS) else "process"
    return f"the {noun} that {chain['a']} {chain['be']} {chain['rel']} is {asked['rel']} what"


#: "Is it true that X is linked to Y?": is X linked to Y.
_IS_IT_TRUE = re.compile(
    r"^is\s+it\s+(?:true|the\s+case|correct|right)\s+that\s+(?P<subject>.+?)\s+"
    r"(?P<verb>is|are|can|does|do|has|have)\s+(?=\S)",
    re.IGNORECASE,
)
#: "annotated directly to X", "the gene itself": words that stress what is said anyway.
_STRESS = re.compile(
    r"(?:(?<=annotated)|(?<=linked)|(?<=connected)|(?<=associated)|(?<=attached))\s+"
    r"(?:directly|explicitly)(?=\s+(?:to|with|on)\b)|\s+(?:itself|themselves)\b",
    re.IGNORECASE,
)


#: Clinical shorthand ("which dx", "what sx", "pt w/ chorea"), case by case: "PTS" is a gene.
_SHORTHAND = {
    "dx": "diseases", "Dx": "diseases", "DX": "diseases", "ddx": "diseases",
    "sx": "symptoms", "Sx": "symptoms", "SX": "symptoms",
    "pt": "patient", "Pt": "patient", "pts": "patients", "Pts": "patients",
    "fam": "family", "sibs": "siblings", "w/": "with",
}  # fmt: skip
_SHORTHAND_WORD = re.compile(
    r"(?<![\w/-])(?:" + "|".join(map(re.escape, _SHORTHAND)) + r")(?![\w/-])"
)


def tag(question: str, linker: EntityIndex) -> list[Tag]:
    """The question's tags as the phrase reader sees them, runs of unplaced words included
    (kind ``unknown``): for a reader that fits the words to the KG's schema instead."""
    text, _, _ = _normalized(question, linker)
    return _Tagger(text, linker).tags()


def _normalized(question: str, linker: EntityIndex) -> tuple[str, list[tuple[str, str]], int]:
    """The question rewritten into the forms the tagger reads; the spelling corrections made
    and how many "siblings of" were spelt out."""
    text = _id_named(_SHORTHAND_WORD.sub(lambda m: _SHORTHAND[m[0]], question), linker)
    text = _STRESS.sub("", _BIND_SIDE.sub(_bind_side, text))
    text = _IS_IT_TRUE.sub(lambda m: f"{m['verb'].capitalize()} {m['subject']} ", text)
    text = _KG_DOES.sub(lambda m: f"are {_KG_DOES_PAST[m['verb'].lower()]}", text)
    text = _RECORDS.sub("diseases", _IN_THE_KG.sub("", text))
    text = _GLOSSED.sub(partial(_spelt_out, linker=linker), re.sub(r"(?<=\w)\(s\)", "s", text))
    text = _SYMBOL_GLOSS.sub(partial(_symbol_glossed, linker=linker), text)
    text = _PARENTHESES.sub("", text).replace("and/or", "or")
    text = _APPOSITIVE.sub(partial(_appositive, linker=linker), text)
    text = _PLUS.sub(" and ", _one_list(_is_a(_ANNOTATIONS.sub("phenotypes", text))))
    text = _VERSUS.sub(_versus, _SOURCE_KIND.sub("", text))
    text = _NOUN_PAIR.sub(_noun_pair, _UNION_OF.sub(_union_of, text.strip().rstrip("?.! ")))
    text = _chained(text)
    text = _BY_KIN.sub(_by_kin, _ABOVE_AND_BELOW.sub(_above_and_below, text))
    text = _INTERSECT_WITH.sub(r"take \g<a> that are also \g<b>", _KEEP_ONLY.sub(" ", text))
    text = _MAP_TO.sub("find ", _WHATEVER_BOUND.sub(r"everything \g<clause>", text))
    text = _ACT_AS.sub(lambda m: "bind" if m["role"][0] in "lL" else "are bound by", text)
    text = _SITS_UNDER.sub(r"\g<noun>", text)
    text = _LISTED_GROUP.sub(_listed_group, text)
    text = _SUSPENDED.sub(partial(_suspended, linker=linker), text)
    text = _REQUEST.sub("list ", _WANT_TO_KNOW.sub("", _CHAT_OPENER.sub("", text)))
    text = _AFTERTHOUGHT_TYPE.sub(lambda m: f"which {m['type']} {m['rest']}", text.strip())
    text = _CONTRACTED.sub(lambda m: f"{m.group(1) or m.group(2)} is", text)  # "What's …"
    text = _LIST_OF.sub("list ", text)
    text = _GENE_PRODUCT.sub("gene ", _GENE_PROTEIN.sub(" ", text))
    text = _MUTATIONS_IN.sub(_unless_asked, text)
    text, siblings = _siblings(text)
    text = _PERFECT.sub(lambda m: f"is {m.group('subject')} ", text)
    text = _KNOWN.sub("", _SOURCE_BETWEEN.sub(r"\g<adjective> \g<noun>", text))
    text = _TYPE_KINDS.sub(r"\g<noun>s", _KINDS_ADJECTIVES.sub("", text))
    text = _COMPARING.sub("", _OVERLAP.sub("are shared with", _ANNOTATED_AS.sub("", text)))
    text = _EMBEDDED_WHAT.sub("what do ", _AT_LEAST_ONE.sub("a", text))
    text = _DESCRIBED_AS.sub("", _AMONG_OWN.sub("", _SAME_BEFORE_CLAUSE.sub("the ", text)))
    text = _PICTURE.sub(lambda m: f"{m['verb']} {m['also'] or ''}phenotypes of", text)
    text, corrected = _spelled(text.strip().rstrip("?.! "), linker)
    text = _RECIPROCAL.sub(lambda m: f"Does {m['a']} {m['verb']} {m['b']}", text)
    text = _LOOKS_LIKE.sub(lambda m: f"what are the clinical features of {m['x']}", text)
    text = _FEATURE_SHARED_BY.sub(r"\g<article> \g<noun> of", text)
    text = _WHOSE_PRODUCTS.sub("that encode proteins that ", text)
    text = _IN_THE_SAME.sub(r"are linked to the \g<what> linked to", text)
    text = _SAME_GENES_AS.sub(r"\g<verb> \g<prep> the genes of", text)
    text = _ANNOTATED_NOUN.sub("", text)
    text = _KINDS_OF_TYPE.sub(r"\g<wh> ", text)
    text = _A_CAUSE_OF.sub(lambda m: f"Does {m['x']} cause {m['y']}", text)
    text = _ALSO_KIND.sub(lambda m: f"{m['head']} are {m['also'] or ''}of {m['b']}", text)
    text = _FRONTED.sub(lambda m: f"{m.group('rest')} {m.group('joint').lower()}", text)
    text = _climbed(text)
    # "In which diseases is X seen" → "which diseases is X seen in"
    text = _CONTEXT.sub("", text)  # "In GO, …": the KG is the context anyway
    text = _SOURCE_CONTEXT.sub("", _SOURCE_POSSESSIVE.sub("", text))
    text = _PROTEIN_OF_GENE.sub("the protein encoded by ", _read_in_steps(text))
    text = _procedure(text)
    text = _CATEGORY_OF.sub(_categories_of, text)
    text = _ANNOTATION.sub(lambda m: f"{m.group('verb')} {m.group('term')}", text)
    text = _ANNOTATED_AFTER.sub(lambda m: f"{m.group('verb')} {m.group('term')}", text)
    text = _WHERE_ANNOTATED.sub(lambda m: f"that have {m.group('term')}", text)
    text = _BOTH_TO.sub(lambda m: f"annotated to both {m.group('a')} and ", text)
    text = _LIST_FOR.sub(lambda m: f"the {m.group('noun')}s of", text)
    text = _WHOSE_RECORDS.sub("that have", _AS_KIND.sub("", text))
    text = _shared(text)
    text = _WHICH_OF.sub(lambda m: f"{m.group(1)} ", text)
    text = _PARTITIVE.sub(
        lambda m: f"which {_REDUCED_RELATIVE.sub(_THAT, m.group('group'))} {m.group('rest')}",
        text,
    )
    return text, corrected, siblings


def _read(question: str, linker: EntityIndex) -> Reading:
    text, corrected, siblings = _normalized(question, linker)
    tagger = _Tagger(text, linker)
    tags = tagger.tags()
    unknown = [t for t in tags if t.kind == "unknown"]
    ignored = [t for t in unknown if _ignorable(t.text)]
    ignored_words = sum(len(t.text.split()) for t in ignored)
    if len(ignored) < len(unknown) or ignored_words > MAX_IGNORED_WORDS:
        raise PhraseError(UNREAD + ", ".join(repr(t.text) for t in unknown))
    tags = [t for t in tags if t.kind != "unknown"]
    while ignored and tags and tags[-1].kind in ("conj", "punct") and tags[-1].text in ",;:-":
        tags.pop()  # "…, please": the comma before the word left out
    guessed = [t.text for t in tags if t.kind == "entity" and t.fuzzy]
    parser = _Parser(tags, tagger.together, tagger.also)
    reading = parser.question()
    if reading.candidate is None:
        _each_subject(reading.answer)
    reading.guessed, reading.corrected = guessed, corrected
    reading.broadened, reading.categories = parser.broadened, parser.categories
    # a source named in passing ("the parent HPO terms") changes nothing: no note, no flag
    reading.ignored = [t.text for t in ignored if not SOURCE_WORDS.issuperset(_words(t.text))]
    reading.siblings = bool(siblings)
    return reading


#: At most this many unplaced everyday words are left out of one question; more, and the
#: question is refused (too much of it would go unread).
MAX_IGNORED_WORDS = 3
#: Words never left out unread: they negate, compare, count or ask beyond the KG's relations
#: (a question about a drug's dose is out of scope, not a question about the disease).
MEANINGFUL = frozenset({
    "not", "no", "nor", "never", "neither", "none", "without", "except", "excluding", "other",
    "than", "only", "lack", "lacks", "lacking", "absent", "more", "less", "most", "least",
    "fewer", "better", "best", "worse", "worst", "many", "much", "number", "count", "how", "why",
    "when", "where", "drug", "drugs", "dose", "doses", "dosage", "treatment", "treatments",
    "treat", "treats", "treated", "treating", "therapy", "therapies", "medication", "medications",
    "medicine", "cure", "cures", "risk", "risks", "prevalence", "incidence", "survival",
    "prognosis", "trial", "trials"
})  # fmt: skip


#: Sources named in passing ("the immediate parent HPO terms", "in the disease hierarchy"):
#: the KG and its structure are the context anyway.
SOURCE_WORDS = frozenset({
    "go", "hpo", "mondo", "omim", "orphanet", "kg", "ontology", "graph", "database",
    "hierarchy", "classification", "taxonomy",
})  # fmt: skip


def _ignorable(text: str) -> bool:
    """Whether an unplaced run of words may be left out: every word an everyday English word
    ("please", "listed", "records") or a source's name, none of them :data:`MEANINGFUL`.
    Names and terms the KG lacks are no everyday words, so a question about them is still
    refused."""
    if any(character.isdigit() for character in text):
        return False  # a number unread is a member number or a count: content
    words = _words(text)
    return bool(words) and all(everyday(w) and w not in MEANINGFUL for w in words)


def everyday(word: str) -> bool:
    """Whether ``word`` (lower case) is an everyday English word, in American or British
    spelling ("characterised"), or a source's name."""
    return word in common_words() or americanize(word) in common_words() or word in SOURCE_WORDS


def _unless_asked(match: re.Match[str]) -> str:
    """ "Can mutations in PINK1 cause …" asks about PINK1; "Which mutations in LRRK2 …" asks
    about mutations (the KG has none), so those words stay and the question is refused."""
    asked = re.search(r"\b(?:which|what|how many)\s+$", match.string[: match.start()], re.I)
    return match.group(0) if asked else ""


def _words(text: str) -> list[str]:
    return re.findall(r"[^\W\d_]+", text.lower())


def _each_subject(answer: Phrase) -> None:
    """ "What phenotypes do PINK1 and DJ-1 have": what each has (a union); "both" (or a
    yes/no question: "Do A and B cause X") asks for what they have together."""
    for clause in answer.clauses:
        mentions = clause.argument.mentions
        if clause.subject and not clause.together and len(mentions) > 1:
            clause.argument.joiners = ["or" if j == "and" else j for j in clause.argument.joiners]


def _resolved(text: str) -> str:
    """A topic put first and referred back to by a pronoun, read in place: "Huntingtin: which
    disorders is it responsible for" → "which disorders is Huntingtin responsible for";
    "PANK2 or PLA2G6 - what phenotypes do their diseases show" → "… do the diseases of PANK2
    or PLA2G6 show"."""
    match = _TOPIC.match(text)
    if match is None or _STEP.match(match.group("topic") or ""):
        return text  # "take X's genes; list their diseases" is a procedure
    topic, rest = (match.group("named") or match.group("topic")).strip(), match.group("rest")
    rest = _CONTRACTION.sub(_uncontracted, rest)  # "… it's linked to": "it is", not "its"
    topic = _collected(_LOOK_AT.sub("", _statement_topic(topic, rest)))
    steps = _STEP_BOUNDARY.split(rest)
    if len(steps) > 1 and all(map(_STEP.match, steps)):
        # a procedure ("PMEs: take the subtypes, pull their genes, …"): the topic is what
        # its first step starts from; later steps refer to the step before
        first = _about(topic, steps[0])
        return text if first is None else ", then ".join([first, *steps[1:]])
    about = _about(topic, rest)
    return text if about is None else about


#: A topic said as a statement that ends on what it is about: "torsinA is linked to a few
#: disorders", "SNCA is associated with several diseases".
_STATEMENT_GROUP = re.compile(
    r"^(?P<subject>.+?)\s+(?P<verb>(?:is|are|has been|have been)\s+(?:\w+ly\s+)?"
    r"(?:linked|associated|related|connected|implicated)\s+(?:to|with|in))\s+"
    r"(?:(?:a few|a couple of|a number of|several|some|many|multiple|various|other|two|three|"
    rf"four|five)\s+)?(?P<group>{_TYPE_WORD})$",
    re.IGNORECASE,
)
#: "Perry syndrome shares genes with other diseases": the diseases sharing genes with it.
_STATEMENT_SHARING = re.compile(
    rf"^(?P<subject>.+?)\s+shares?\s+(?:an?\s+|any\s+|some\s+)?(?P<via>{_SHARED_NOUNS})\s+"
    r"with\s+(?:(?:other|several|some|many|a few|various)\s+)?"
    rf"(?P<group>{_TYPE_WORD})$",
    re.IGNORECASE,
)
#: A topic said as a statement about its subject: "Progranulin is made from the GRN gene".
_STATEMENT_SUBJECT = re.compile(r"^(?P<subject>.+?)\s+(?:is|are|was|were)\s+\S", re.IGNORECASE)
#: A back reference to the topic by its type: "that protein", "those genes" ("themselves" is
#: gone by then: :data:`_STRESS`), "the gene" at the end ("For PANK2, return the phenotypes
#: annotated to the gene").
_THAT_ONE = re.compile(
    rf"\b(?:that|this|those|these)\s+(?:{_TYPE_WORD})\b|"
    r"\bthe\s+(?:gene|protein|disease|condition|disorder|syndrome)\s*$",
    re.IGNORECASE,
)


def _statement_topic(topic: str, rest: str) -> str:
    """A topic said as a statement, as the noun phrase the rest refers back to: "torsinA is
    linked to a few disorders — what categories do they fall under" → "the disorders that
    torsinA is linked to"; "Progranulin is made from the GRN gene — what receptors does that
    protein bind" → "Progranulin". Any other topic unchanged."""
    group = _STATEMENT_GROUP.match(topic)
    if group is not None:
        return f"the {group['group']} that {group['subject']} {group['verb']}"
    sharing = _STATEMENT_SHARING.match(topic)
    if sharing is not None:
        return f"the {sharing['group']} sharing {sharing['via']} with {sharing['subject']}"
    subject = _STATEMENT_SUBJECT.match(topic)
    if subject is not None and _THAT_ONE.search(rest):
        return subject["subject"]
    return topic


#: Where one step of a question written as steps ends: "X -> subtypes -> genes", "take X,
#: then its genes, then …", "Which genes encode the receptors NGF binds, and what diseases
#: are those genes linked to", "What receptors does NGF bind? Which diseases …".
_STEP_END = re.compile(
    r"\s*(?:->|→|=>)\s*|\s+[–—]\s+|\s*[,;]\s*(?:and\s+)?then\s+|\s+and\s+then\s+|\s+then\s+|"
    r"[.?;:]\s+|\s*,\s*(?:and\s+)?(?=(?:which|what|go\s+to|list|find|take|get)\s)|"
    # "find the gene that encodes it, that gene's diseases, and the phenotypes of those"
    r"\s*,\s*(?:and\s+)?(?=(?:that|those|these|their|its)\s+[\w-]+(?:['’]s)?\s+\w|"
    r"the\s+[\w-]+\s+of\s+(?:those|these|that|them|it)\b)",
    re.IGNORECASE,
)
#: What opens a step without adding to it: "first find", "go to", "I need", "starting from".
_STEP_OPENER = re.compile(
    r"^(?:(?:and|so|first|next|finally)\s+)*(?:(?:take|find|get|go\s+to|move\s+to|pull|given|"
    r"collect|fetch|look\s+up|give\s+me|list|start(?:ing)?\s+(?:from|with)|begin\s+with|for|"
    r"(?:I|we)\s+(?:need|want))\s+)?",
    re.IGNORECASE,
)
#: A question asking for a group: "which genes encode …", "what other conditions are …".
_ASKED_GROUP = re.compile(
    rf"^(?:which|what)\s+(?P<group>(?:[\w-]+\s+){{0,2}}?(?:{_TYPE_WORD}))\s+(?P<rest>\S.*)$",
    re.IGNORECASE,
)
#: The group's question inverted around its subject: "is HTT linked to", "does NGF bind".
_INVERTED = re.compile(
    r"^(?:(?P<be>is|are|was|were)|do|does|did)\s+(?P<subject>.+?)\s+"
    r"(?P<verb>(?(be)(?:\w+ed|bound|seen|known|found)\b|\w+\b).*)$",
    re.IGNORECASE,
)
#: A last step that only asks for what the steps reached: "Which genes?", "What do you end
#: up with?", "what are they".
_ASKS_RESULT = re.compile(
    rf"^(?:which|what)(?:\s+(?P<type>{_TYPE_WORD}))?(?:\s+(?:are|is)\s+(?:they|those|these|it))?$"
    r"|^what\s+do(?:es)?\s+(?:you|we|I|it)\s+(?:end\s+up\s+with|get|reach)$",
    re.IGNORECASE,
)
#: A bare back reference without a noun: "the subtypes of those", "for that last level".
_BARE_BACK = re.compile(
    r"\b(?:(?:those|these)(?:\s+(?:"
    + "|".join(p.pattern for p, _, _, _ in _RELATION_NOUNS)
    + r"))?(?!\s+\w)|that\s+last\s+(?:level|step|set|list))",
    re.IGNORECASE,
)
#: "whatever is part of …": the processes that are (only processes are parts in the KG).
_WHATEVER = re.compile(r"^whatever\s+(?:is|are)\s+(?=part\s+of\b)", re.IGNORECASE)
_LEADING_THE = re.compile(r"^the\s+", re.IGNORECASE)
#: A step's possessive back reference: "that gene's diseases", "those proteins' receptors".
_REFERENT_POSSESSIVE = re.compile(
    r"^(?:that|this|those|these)\s+[\w-]+?(?:['’]s|s['’])\s+", re.IGNORECASE
)
#: A step that asks: what it says is the answer, not a group to go on from.
_QUESTION_START = re.compile(r"^(?:which|what|how|who|is|are|does|do)\b", re.IGNORECASE)
#: "it's linked to", "they're": spelt out before a back reference is filled.
_CONTRACTION = re.compile(r"\b(it|they)['’](s|re)\b", re.IGNORECASE)
#: A step that is only a relation noun or a type word: "-> subtypes -> genes".
_BARE_STEP = re.compile(
    rf"^(?:the\s+)?(?:{'|'.join(p.pattern for p, _, _, _ in _RELATION_NOUNS)}|{_TYPE_WORD})$",
    re.IGNORECASE,
)


def _steps(text: str) -> str:
    """A question written as steps, each on the last one's result, read as one: "Which genes
    encode the receptors NGF binds, and what diseases are those genes linked to" → "what
    diseases are the genes that encode the receptors NGF binds linked to"; "Inherited
    dystonia -> subtypes -> their subtypes -> genes. Which genes?" → "list the genes of the
    subtypes of the subtypes of Inherited dystonia". Unchanged unless every later step refers
    back ("those genes", "their", "it", "of those", or is a bare relation noun)."""
    parts = [part.strip() for part in _STEP_END.split(text) if part.strip()]
    if len(parts) < 2 or _procedure(text) != text:
        return text  # one step, or steps that each open with a verb (:func:`_procedure`)
    first = _STEP_OPENER.sub("", parts[0])
    result = _asked_as_group(first) or first
    if _QUESTION_START.match(result):
        return text  # "What is X? …" asks something else first
    for number, part in enumerate(parts[1:], start=2):
        step = _STEP_OPENER.sub("", _CONTRACTION.sub(_uncontracted, part))
        last = number == len(parts)
        asked = _ASKS_RESULT.match(step) if last else None
        if asked is not None:  # "Which genes?" after "-> genes"; "-> what phenotypes?"
            kind = asked.group("type")
            reached = kind is None or re.match(rf"(?:the\s+)?{re.escape(kind)}\b", result, re.I)
            return f"list {result}" if reached else f"list the {kind} of {result}"
        if _BARE_STEP.match(step):
            noun = _LEADING_THE.sub("", step)
            result = f"the {noun} of {result}"
            continue
        step = _REFERENT_POSSESSIVE.sub("their ", step)  # "that gene's diseases"
        about = _about(
            result, _BARE_BACK.sub("them", _WHATEVER.sub("the processes that are ", step))
        )
        if about is None:
            return text
        if last:
            return about if _QUESTION_START.match(about) else f"list {about}"
        result = _asked_as_group(about) or about
    return f"list {result}"


def _uncontracted(match: re.Match[str]) -> str:
    return f"{match.group(1)} {'is' if match.group(2).lower() == 's' else 'are'}"


def _read_in_steps(text: str) -> str:
    """A topic put first and referred back to (:func:`_resolved`), or steps (:func:`_steps`):
    with three steps or more the steps decide ("For X: take …, then …, then …"), with two the
    topic ("Perry syndrome shares genes with other diseases; what phenotypes do those
    diseases have")."""
    if len([part for part in _STEP_END.split(text) if part.strip()]) > 2:
        stepped = _steps(text)
        if stepped != text:
            return stepped
    resolved = _resolved(text)
    # "A and B - conditions with both, then their genes": the topic, then the steps
    return _steps(resolved) if resolved != text else _resolved(_steps(text))


def _asked_as_group(question: str) -> str | None:
    """A question for a group as its noun phrase: "which genes encode X" → "the genes that
    encode X"; "what diseases is HTT linked to" → "the diseases that HTT is linked to"."""
    group = _ASKED_GROUP.match(question)
    if group is None:
        return None
    inverted = _INVERTED.match(group.group("rest"))
    if inverted is None:
        clause = group.group("rest")  # "which genes encode …": the group is the subject
    else:
        be = f"{inverted.group('be')} " if inverted.group("be") else ""
        clause = f"{inverted.group('subject')} {be}{inverted.group('verb')}"
    return f"the {group.group('group')} that {clause}"


#: "Look at the genes for …": the topic is what is looked at.
_LOOK_AT = re.compile(r"^(?:look\s+at|consider|starting\s+with)\s+", re.IGNORECASE)
#: A set put first to work on: "the genes for A and B", "all genes linked to A and B".
_COLLECTED = re.compile(
    rf"^(?P<head>(?:(?:all|every|each)\s+)?(?:the\s+)?(?:{_TYPE_WORD})\s+(?:for|of|behind|"
    r"linked\s+to|associated\s+with)\s+)(?P<names>(?!both\b).+\sand\s.+)$",
    re.IGNORECASE,
)


def _collected(topic: str) -> str:
    """A set put first for later steps to work on, "the genes for HDL1 and HDL2", is the
    genes of each ("… for HDL1 or HDL2"), unless "both" says they must share them."""
    match = _COLLECTED.match(topic)
    if match is None:
        return topic
    return match.group("head") + re.sub(r"\band\b", "or", match.group("names"))


#: "GO subtypes of …", "HPO parents of …": the KG's hierarchy is the context anyway.
_SOURCE_KIND = re.compile(
    r"^(?:the\s+)?(?:GO|HPO|MONDO)\s+(?=(?:sub ?types?|child(?:ren)?|parents?|descendants?|"
    r"ancestors?)\b)",
    re.IGNORECASE,
)
#: A question that is only names joined by "or" before a type word: "SCA1 or SCA2 genes?"
#: ("A and B genes" may mean the genes they share: left to the reading as it stands).
_LISTED_GROUP = re.compile(
    r"^(?:list\s+)?(?:the\s+)?(?P<names>[^,]+?\sor\s[^,]+?)\s+"
    rf"(?P<type>{_TYPE_WORD})$",
    re.IGNORECASE,
)


def _listed_group(match: re.Match[str]) -> str:
    """ "SCA1 or SCA2 genes" → "list the genes of SCA1 or SCA2"; unchanged when the names
    hold a question word, a verb or another type word ("which genes are linked to …")."""
    names = match.group("names")
    if _QUESTION_START.match(names) or _NOT_NAMES.search(names):
        return match.group(0)
    return f"list the {_plural(match.group('type').lower())} of {names}"


#: Words that a run of names joined by "or" does not hold: type words, verbs, prepositions.
_NOT_NAMES = re.compile(
    rf"\b(?:{_TYPE_WORD}|is|are|do|does|have|has|linked|associated|bind|binds|cause|causes|"
    r"of|with|to|in|for)\b",
    re.IGNORECASE,
)


#: "dystonia + upgoing plantars": and.
_PLUS = re.compile(r"\s\+\s")
#: "phenotype annotations" are phenotypes.
_ANNOTATIONS = re.compile(r"\b(?:phenotype|HPO)\s+annotations?\b", re.IGNORECASE)
#: Two names set against each other, then what is asked of them: "Dravet vs GEFS+ - overlap
#: in the gene lists", "DYT1 vs DYT6 on the differential - combined phenotype list" (a scene
#: before a comma is left out).
_VERSUS = re.compile(
    r"^(?:.*,\s*)?(?P<a>[^,]+?)\s+(?:vs\.?|versus)\s+(?P<b>[^,]+?)"
    r"(?:\s+on\s+the\s+differential)?\s*(?:\s[-–—:]\s*|,\s*)"
    rf"(?P<rest>.*?\b(?P<type>{_TYPE_WORD}).*)$",
    re.IGNORECASE,
)
_SHARED_WORDS = re.compile(r"\b(?:overlap\w*|shared?|common|both|intersect\w*)\b", re.I)
_COMBINED_WORDS = re.compile(r"\b(?:combined|union|merged?|together|all|either)\b", re.I)


def _versus(match: re.Match[str]) -> str:
    """ "A vs B - overlap in the gene lists" → "which genes do A and B share"; "… combined
    phenotype list" → "list the phenotypes of A or B"; else unchanged."""
    kind = _plural(match.group("type").lower())
    a, b = match.group("a").strip(), match.group("b").strip()
    if _SHARED_WORDS.search(match.group("rest")):
        return f"which {kind} do {a} and {b} share"
    if _COMBINED_WORDS.search(match.group("rest")):
        return f"list the {kind} of {a} or {b}"
    return match.group(0)


#: What a topic's question asks when it only names a type: "PME subtypes with ataxia -
#: which genes", "NBIA - gene list across all the NBIA subtypes".
_TYPE_ONLY = re.compile(
    r"^(?:(?:which|what)\s+)?(?:(?:the|causative|causal|associated|candidate|implicated)\s+)?"
    rf"(?P<type>{_TYPE_WORD})(?:\s+lists?)?"
    r"(?:\s+(?:across|for|of|in)\s+(?:all\s+)?"
    r"(?P<again>(?!(?:them|it|they|those|these)\b)(?:the\s+)?.+))?$",
    re.IGNORECASE,
)


#: A quantifier where a noun phrase should stand, before a comma or the end: it quantifies
#: the topic.
_BARE_QUANTIFIER = re.compile(
    r"(?<=\swith\s)(?:both|either|all\s+(?:two|three|four|five))(?=\s*(?:[,;]|$))", re.I
)


def _about(topic: str, rest: str) -> str | None:
    """``rest`` with its reference to ``topic`` spelt out (see :func:`_resolved`); None when
    it has none."""
    only = _TYPE_ONLY.match(rest)
    if only is not None:  # "X - which genes": the genes of X
        return f"list the {_plural(only.group('type').lower())} of {only.group('again') or topic}"
    if _BARE_QUANTIFIER.search(rest):  # "A and B - conditions with both, then their genes"
        return _BARE_QUANTIFIER.sub(lambda m: f"{m[0]} {topic}", rest, count=1)
    if _THAT_ONE.search(rest):
        return _THAT_ONE.sub(lambda _: topic, rest, count=1)
    if _POSSESSIVE_PRONOUN.search(rest):
        return _POSSESSIVE_PRONOUN.sub(lambda m: f"the {m.group(1)} of {topic}", rest, count=1)
    if _PRONOUN.search(rest):
        return _PRONOUN.sub(lambda _: topic, rest, count=1)  # the topic's text as it is
    if _IMPLIED_OF.search(rest):
        return _IMPLIED_OF.sub(lambda m: f"the {m.group(1)} of {topic}", rest, count=1)
    noun = _BARE_RELATION_NOUN.search(rest)
    if noun:  # "ET: which hereditary subtypes are listed" → "… subtypes of ET …"
        return f"{rest[: noun.end()]} of {topic}{rest[noun.end() :]}"
    return None


def _procedure(text: str) -> str:
    """A question written as steps, each on the last one's result, read as one noun phrase:
    "Take the genes of X, then list every disease those genes are linked to" → "list every
    disease that the genes of X are linked to"; "take its genes, find all diseases they're
    linked to, and give me the features of those diseases" → "give me the features of all
    diseases that the genes of X are linked to". Unchanged unless every later step refers
    back ("their", "its", "those genes", "they", "them")."""
    steps = _STEP_BOUNDARY.split(text)
    parsed = [_STEP.match(step) for step in steps]
    if len(steps) < 2 or not all(parsed):
        return text
    result = ""
    for number, step in enumerate(parsed):
        assert step is not None
        found = step.group("object") if number else _collected(step.group("object"))
        if number:
            asked = bool(_ASKED.match(found))
            spelt = partial(_antecedent, result=result, asked=asked)
            found, referred = _ANAPHOR.subn(spelt, found, count=1)
            if not referred:
                return text
        result = found
    last = parsed[-1]
    assert last is not None
    return f"{last.group('verb')} {result}"


def _antecedent(match: re.Match[str], result: str, asked: bool) -> str:
    """What a step's back reference stands for: the previous step's result, as "the X of
    <result>" after "their"/"its", after "that" where it opens a relative clause ("diseases
    those genes are linked to"), after "do" in an asked step ("what diseases those genes
    cause")."""
    if match.group("possessive"):
        return f"the {match.group('word')} of {result}"
    opener = ("do " if asked else "that ") if match.group("before") is not None else ""
    verb = " are" if match.group("are") else ""
    return f"{match.group('before') or ''}{opener}{result}{verb}"


#: A step that asks rather than names: "tell me what other diseases those genes cause".
_ASKED = re.compile(r"(?:what|which)\b", re.IGNORECASE)


#: The verbs a step of a procedure opens with: "take", "then list", "pull", "tell me".
_STEP_VERB = (
    r"(?:take|start (?:from|with)|begin with|get|find|pull|collect|gather|fetch|list|"
    r"give(?: me)?|show(?: me)?|tell me|name|return|look up|retrieve)"
)
_STEP_BOUNDARY = re.compile(
    rf"\s*[,;]\s*(?:and\s+)?(?:then\s+)?(?={_STEP_VERB}\b)|\s+(?:and\s+)?then\s+(?={_STEP_VERB}\b)"
    rf"|\s+and\s+(?={_STEP_VERB}\b)",
    re.IGNORECASE,
)
_STEP = re.compile(rf"^(?P<verb>{_STEP_VERB})\s+(?P<object>\S.*)$", re.IGNORECASE)
#: A step's reference to the one before: "their (clinical) features", "those diseases",
#: "they're", "them";
#: a noun right before it ("diseases those genes are linked to") makes it a relative clause.
_ANAPHOR = re.compile(
    r"\b(?:(?P<possessive>their|its)\s+(?P<word>(?:(?:clinical|main|key|known|typical|"
    r"reported|encoded|associated|linked)\s+)?\w[\w-]*)"
    r"|(?P<before>(?<=\w)(?<!\bof)(?<!\bto)(?<!\bby)(?<!\bfor)(?<!\bwith)\s)?"
    r"(?:(?:those|these)\s+\w[\w-]*|they(?P<are>['’]re|\s+are)?|them)\b)",
    re.IGNORECASE,
)


def _shared(text: str) -> str:
    """Sharing read as a chain through what is shared: "X shares genes with which
    disorders" → "which disorders of the genes of X"; "the disorders sharing a gene with X" →
    "the disorders of the genes of X" (the joint "of" takes the KG's relation between the
    types)."""
    asked = _SHARES_WITH_WHICH.match(text)
    if asked is not None:
        via = _plural(asked.group("via"))
        return f"{asked.group('rest')} of the {via} of {asked.group('x')}"
    return _SHARING.sub(
        lambda m: (
            f"{m.group('answers')}{' that are' * bool(m.group('finite'))} of the "
            f"{_plural(m.group('via'))} of "
        ),
        text,
    )


def _plural(noun: str) -> str:
    return noun if noun.endswith("s") else f"{noun}s"


#: Question words typed wrong in a chat, too short for the spelling corrector.
_QUESTION_WORD_TYPOS = {
    "wat": "what", "wht": "what", "waht": "what", "whta": "what", "wich": "which",
    "whcih": "which", "whihc": "which", "wihch": "which", "whic": "which",
}  # fmt: skip


#: A prefix whose word is said once for two ("pre- or postsynaptic", "early- or late-onset").
_SUSPENDED = re.compile(
    r"\b(?P<prefix>[A-Za-z]+)-\s+(?P<joint>or|and)\s+(?P<word>[A-Za-z]+(?:-[A-Za-z]+)?)\b"
)


def _suspended(match: re.Match[str], linker: EntityIndex) -> str:
    """The suspended prefix completed with the other word's ending: after its hyphen
    ("late-onset": "early-onset"), else the longest ending that makes a word of a name or an
    everyday word with the prefix ("postsynaptic": "presynaptic"); unchanged when none does."""
    prefix, word = match["prefix"], match["word"]
    if "-" in word:
        completed = f"{prefix}-{word.split('-', 1)[1]}"
    else:
        completed = next(
            (
                prefix + word[cut:]
                for cut in range(1, len(word) - 2)
                if (prefix + word[cut:]).lower() in linker.name_words
                or everyday((prefix + word[cut:]).lower())
            ),
            "",
        )
    if not completed:
        return match[0]
    return f"{completed} {match['joint']} {word}"


def _spelled(text: str, linker: EntityIndex) -> tuple[str, list[tuple[str, str]]]:
    """``text`` with misspelt words put right: a lower-case word of five letters or more that
    is neither a word of the relation and type vocabulary or of a relation phrase of the text
    ("coding for" is no misspelt "encoding"), nor a name, nor an everyday English word, within
    ``SPELLING_CUTOFF`` of one vocabulary word ("asociated" → "associated"), else, unless it
    is a word of some name, of one entity name of one word ("tremmor" → "tremor") or, from six
    letters, of a word of some name ("esential" → "essential"); then a
    capitalised word of six letters or more, or the last part of a hyphenated one, that no
    name holds, within the same cutoff of a word of some name ("Huntingon", "alpha-synuclien")."""
    corrected: list[tuple[str, str]] = []
    phrases = [m.span() for pattern, _, _ in _PHRASES for m in pattern.finditer(text)]

    def fix(match: re.Match[str]) -> str:
        word = match.group(0)
        if word.lower() in _QUESTION_WORD_TYPOS:  # "wat does bdnf bind": too short to guess
            right = _QUESTION_WORD_TYPOS[word.lower()]
            corrected.append((word, right))
            return right.capitalize() if word[0].isupper() else right
        if len(word) < 5 or not word.islower() or word in _VOCABULARY or linker.lookup(word):
            return word
        if word.endswith("s") and not linker.lookup(word[:-1]):
            # "parkinsons": Parkinson's, not a misspelt parkinsonism
            for possessive in (f"{word[:-1]}'s", f"{word[:-1].capitalize()}'s"):
                if linker.lookup(possessive):
                    corrected.append((word, possessive))
                    return possessive
        patterns = [*(p for p, _ in TYPE_WORDS), *(p for p, _, _, _ in _RELATION_NOUNS)]
        if word in _STOP or any(p.fullmatch(word) for p in patterns):
            return word  # "subtypes" is read as it is
        if word in common_words() or any(a <= match.start() < b for a, b in phrases):
            return word  # "coding for" is a relation phrase, not a misspelt "encoding"
        close = difflib.get_close_matches(word, _VOCABULARY, n=1, cutoff=SPELLING_CUTOFF)
        if not close and word not in linker.name_words:
            # "tremmor": a misspelt name ("spastic" is a word of names, not "spastin")
            close = difflib.get_close_matches(
                word, linker.one_word_names, n=1, cutoff=SPELLING_CUTOFF
            )
        if not close and len(word) >= 6 and word not in linker.name_words:
            # "esential tremor": a misspelt word of a longer name, written in lower case
            close = difflib.get_close_matches(word, linker.name_words, n=1, cutoff=SPELLING_CUTOFF)
        if not close:
            return word
        corrected.append((word, close[0]))
        return str(close[0])

    def fix_name_word(match: re.Match[str]) -> str:
        # "Huntingon", the "synuclien" of "alpha-synuclien": a word of a name, misspelt
        word = match.group(0)
        folded = word.casefold()
        if len(word) < 6 or folded in linker.name_words or folded in common_words():
            return word
        if folded in SOURCE_WORDS:
            return word  # "Orphanet" is a source, not a misspelt "orphan"
        if linker.lookup(word) or folded in _VOCABULARY:
            return word
        close = difflib.get_close_matches(folded, linker.name_words, n=1, cutoff=SPELLING_CUTOFF)
        if not close:
            return word
        right = close[0].capitalize() if word[0].isupper() else close[0]
        corrected.append((word, right))
        return right

    text = re.sub(r"(?<![\w-])[a-z]+(?![\w-])", fix, text)
    text = re.sub(r"(?<![\w])[A-Z][a-z]+(?![\w-])|(?<=[a-z]-)[a-z]+(?![\w-])", fix_name_word, text)
    return text, corrected


class _Tagger:
    """Tags the tokens of one question: entities, relation phrases, types, small words."""

    def __init__(self, text: str, linker: EntityIndex) -> None:
        self.text, self.linker = text, linker
        self.tokens: list[tuple[int, int]] = []
        for match in _TOKEN.finditer(text):
            hyphen = _HYPHEN_RELATION.match(match.group(0))
            named = linker.lookup(match.group(0)) if hyphen else []
            if hyphen and not any(e.exact for e in named):  # "SNCA-associated"
                self.tokens.append((match.start(), match.start() + hyphen.end("name")))
                self.tokens.append((match.start() + hyphen.start("verb") - 1, match.end()))
            else:
                self.tokens.append((match.start(), match.end()))
        self.taken: list[Tag | None] = [None] * len(self.tokens)

    def word(self, index: int) -> str:
        start, end = self.tokens[index]
        return self.text[start:end]

    def span(self, start: int, end: int) -> str:
        return self.text[self.tokens[start][0] : self.tokens[end - 1][1]]

    def tags(self) -> list[Tag]:
        opening = _OPENING.match(self.text)
        if opening:  # "Show diseases …": not the relation "show"
            span = self._token_span(0, opening.end())
            if span is not None:
                self._take(Tag("wh", opening.group(0), *span))
        self._phrases(_FILLER_PHRASES, "filler")
        self._relations()
        self._types(words=2)  # "GO processes" before the entity "GO"
        self._entities()
        self._types()
        self._phrases(_CONJUNCTIONS, "conj")
        self._small_words()
        self._unknown()
        tags: list[Tag] = []
        for tag in self.taken:
            if tag is not None and (not tags or tags[-1] is not tag):
                tags.append(tag)
        self.together = {
            t.start
            for i, t in enumerate(tags)
            if t.kind == "filler"
            and (
                t.text.lower() in _TOGETHER
                # "are SNCA, LRRK2 and GBA1 all linked to": "all" after a subject list
                # (and its type word: "do apoE, apoB and APP proteins all bind")
                or (t.text.lower() == "all" and 0 < i < len(tags) - 1
                    and tags[i + 1].kind == "relation"
                    and (tags[i - 1].kind == "entity"
                         or (i > 1 and tags[i - 1].kind == "type"
                             and tags[i - 2].kind == "entity")))
            )
        }  # fmt: skip
        self.also = {t.start for t in tags if t.kind == "filler" and t.text.lower() == "also"}
        return [t for t in tags if t.kind != "filler"]

    def _free(self, start: int, end: int) -> bool:
        return all(self.taken[i] is None for i in range(start, end))

    def _take(self, tag: Tag) -> None:
        for i in range(tag.start, tag.end):
            self.taken[i] = tag

    def _token_span(self, start: int, end: int) -> tuple[int, int] | None:
        """Token indices of a character span that starts and ends on token boundaries."""
        first = next((i for i, (s, _) in enumerate(self.tokens) if s == start), None)
        last = next((i for i, (_, e) in enumerate(self.tokens) if e == end), None)
        if first is None or last is None or last < first:
            return None
        return first, last + 1

    def _matches(self, pattern: re.Pattern[str]) -> list[tuple[int, int, re.Match[str]]]:
        found = []
        for start, _ in self.tokens:
            match = pattern.match(self.text, start)
            if match and match.end() > start:
                span = self._token_span(start, match.end())
                if span is not None:
                    found.append((*span, match))
        return found

    def _phrases(self, pattern: re.Pattern[str], kind: Kind) -> None:
        for start, end, match in self._matches(pattern):
            if self._free(start, end):
                self._take(Tag(kind, match.group(0), start, end))

    def _relations(self) -> None:
        """Registry phrases and bare joints, the longest first (ties: registry order)."""
        found: list[tuple[int, int, int, Tag]] = []
        for order, (pattern, name, hint) in enumerate(_PHRASES):
            for start, end, match in self._matches(pattern):
                # "the product of APP" is a protein, whatever type the sentence asks for
                kind = "protein" if _PRODUCT_OF.fullmatch(match.group(0)) else None
                found.append((start, end, order, Tag("relation", match.group(0), start, end,
                                                     relation=name, hint=hint,
                                                     node_type=kind)))  # fmt: skip
        for start, end, match in self._matches(_LEVELS):
            count = match.group("n").lower()
            up = match.group("way").lower() in ("up", "above", "higher")
            relation = "part_of" if match.group("part") else "subclass_of"
            tag = Tag("relation", match.group(0), start, end, relation=relation,
                      hint="forward" if up else "inverse",
                      repeat=_NUMBERS.get(count) or int(count))  # fmt: skip
            found.append((start, end, -1, tag))
        for start, end, match in self._matches(_JOINTS):
            found.append((start, end, len(_PHRASES), Tag("relation", match.group(0), start, end)))
        for i, (start, end) in enumerate(self.tokens):
            if self.text[start:end].startswith("-"):  # the verb of "SNCA-associated"
                verb = self.text[start + 1 : end].lower()
                if verb in _HYPHEN_VERBS:
                    relation, hint = _HYPHEN_VERBS[verb]
                    tag = Tag("relation", verb, i, i + 1, relation=relation, hint=hint,
                              hyphen=True)  # fmt: skip
                    found.append((i, i + 1, -1, tag))
        # entity names may hold joints ("Abnormality of the retina"): those are kept back
        # until the entities are found; registry phrases of two or more words go first
        found.sort(key=lambda item: (-(item[1] - item[0]), item[2]))
        self._pending: list[Tag] = []
        for start, end, _, tag in found:
            if not self._free(start, end):
                continue
            if tag.hyphen or (end - start >= 2 and tag.relation):
                self._take(tag)
            else:
                self._pending.append(tag)

    def _entities(self) -> None:
        """Spans the index names, the longest first; then the pending short relation phrases."""
        found: list[tuple[int, int, list[LinkedEntity]]] = []
        for start in range(len(self.tokens)):
            for end in range(start + 1, min(len(self.tokens), start + MAX_NAME_WORDS) + 1):
                if not self._free(start, end) or not self._name_like(start, end):
                    continue
                span = self.span(start, end)
                entities = self.linker.lookup(span, bare_eponyms=True) or self._lower_symbol(span)
                if "," in span and not any("," in e.matched for e in entities):
                    continue  # "ALS, FTD with MND" is a list, not the name "ALS-FTD"
                if (
                    entities
                    and not any(e.exact for e in entities)
                    and self._typed_end(start, end, entities)
                ):
                    # "SNCA-associated diseases", "receptors for BDNF" are phrases (though
                    # their words name something); "Frontal release signs" is a name
                    continue
                if entities:
                    found.append((start, end, entities))
        found.sort(key=lambda item: (-(item[1] - item[0]), item[0]))
        for start, end, entities in found:
            if self._free(start, end):
                self._take(Tag("entity", self.span(start, end), start, end, entities=entities))
        for tag in self._pending:
            if self._free(tag.start, tag.end):
                self._take(tag)

    def _lower_symbol(self, span: str) -> list[LinkedEntity]:
        """A gene symbol typed in lower case in a chat ("what does bdnf bind") or in mouse
        style ("Vldlr"): one word, no everyday English word, three characters or more, named
        as the symbol in capitals."""
        if not (_LOWER_SYMBOL.fullmatch(span) and not everyday(span.lower())):
            return []
        return [
            e
            for e in self.linker.lookup(span.upper())
            if e.type in ("gene", "protein") and e.match == "name" and e.name == span.upper()
        ]

    def _typed_end(self, start: int, end: int, entities: list[LinkedEntity]) -> bool:
        """Whether a span that starts or ends on a type word is a phrase, not a name: one
        that starts on it ("receptors for BDNF"), or one that ends on it where the type word
        is not the type of what the whole span names or the other words name something else
        on their own ("SNCA-associated diseases"). "HD-like syndromes" (a disease; "HD-like"
        names nothing) and "dystonic features" (the type word adds nothing to "dystonic")
        are one name."""
        types = {e.type for e in entities}

        def typed(word: str) -> set[str]:
            return {t for p, t in TYPE_WORDS if p.fullmatch(word)}

        if end - start < 2:
            return False
        if typed(self.word(start)):
            return True
        kinds = typed(self.word(end - 1))
        if not kinds:
            return False
        if not kinds & types:
            return True
        alone = {e.id for e in self.linker.lookup(self.span(start, end - 1))}
        return bool(alone) and alone != {e.id for e in entities}

    def _name_like(self, start: int, end: int) -> bool:
        """Whether a span could be a name: it starts and ends on a content word, or ends on
        an eponym's possessive with no noun after it ("young-onset Parkinson's?"), or with a
        list going on ("Huntington's and Wilson's disease": the noun is shared)."""
        inner = [self.word(i) for i in range(start + 1, end - 1)]
        last = self.word(end - 1)
        if any(w in ("'s", "’s") for w in inner) and last.lower() in _PLURAL_ROLES:
            return False  # "NGF's receptors" are the receptors of NGF, not NGFR's name
        if end - start > 1 and self.word(end - 1) in ("'s", "’s"):
            after = self.word(end) if end < len(self.tokens) else ""
            eponym = self.word(end - 2)
            listed = after.lower() in ("and", "or", ",") and bool(_EPONYM_WORD.fullmatch(eponym))
            return eponym[:1].isupper() and (listed or not re.match(r"[\w\u0370-\u03ff]", after))
        for index in (start, end - 1):
            word = self.word(index)
            # a capital letter ending a name is no article: "filamin A", "apolipoprotein E"
            lettered = index == end - 1 > start and len(word) == 1 and word.isupper()
            if not re.match(r"[\w\u0370-\u03ff]", word) or (word.lower() in _STOP and not lettered):
                return False
        if end - start == 1:
            word = self.word(start)
            return not any(p.fullmatch(word) for p, _, _ in _PHRASES) and not any(
                p.fullmatch(word) for p, _ in TYPE_WORDS
            )
        return True

    def _types(self, words: int = 1) -> None:
        """Type words of at least ``words`` words, and nouns that are a relation
        ("subtypes") as type words with it."""
        patterns: list[tuple[re.Pattern[str], str | None, str, Hint, int]]
        patterns = [(p, None, r, h, n) for p, r, h, n in _RELATION_NOUNS]
        patterns += [(p, t, "", None, 1) for p, t in TYPE_WORDS]
        for pattern, node_type, relation, hint, repeat in patterns:
            for start, end, match in self._matches(pattern):
                if end - start >= words and self._free(start, end):
                    word = match.group(0)
                    said = next((h for q, h in TYPE_HINTS if q.match(word)), hint)
                    self._take(Tag("type", word, start, end, relation=relation, hint=said,
                                   node_type=node_type, repeat=repeat))  # fmt: skip

    def _small_words(self) -> None:
        for i in range(len(self.tokens)):
            if self.taken[i] is not None:
                continue
            word = self.word(i)
            kind: Kind | None = _WORD_KINDS.get(word.lower())
            if word in ("'s", "’s"):
                kind = "possessive"
            elif word in (";", ":", "-", "–", "—"):
                kind = "punct"
            elif word.lower() == "who" and i == 0:
                kind = "wh"  # "Who are the ligands of RET"
            elif word.lower() == "which" and i > 0:
                before = self.taken[i - 1]  # "diseases which …"; "is linked to which genes"
                kind = "relative" if before is not None and before.kind in NOUNS else "wh"
            if kind is not None:
                self._take(Tag(kind, word, i, i + 1))

    def _unknown(self) -> None:
        """Runs of untagged words: an entity by fuzzy search (a guess), else unknown."""
        i = 0
        while i < len(self.tokens):
            if self.taken[i] is not None:
                i += 1
                continue
            end = i
            while end < len(self.tokens) and self.taken[end] is None:
                end += 1
            mention = self.span(i, end)
            if self._absorbed(i, end) or self._elided(i, end) or self._shared_head(i, end):
                i = end
                continue
            following = self.taken[end] if end < len(self.tokens) else None
            # "movement problems": an everyday word qualifying a kind is no fuzzy name, unless
            # the two name something together ("muscle diseases")
            qualifier = (
                following is not None
                and following.kind == "type"
                and everyday(mention)
                and not self.linker.lookup(f"{mention} {following.text}")
            )
            # "like", "please": everyday words are no misspelt name, so no fuzzy search (and
            # no embedding model to load); a name made of them, "restless legs", is found
            plain = all(everyday(word) for word in _words(mention))
            fuzzy: Literal["fallback", "never"] = "never" if plain else "fallback"
            linked = [] if qualifier else self.linker.link(mention, k=5, fuzzy=fuzzy)
            if linked:
                self._take(Tag("entity", mention, i, end, entities=linked, fuzzy=True))
            else:
                self._take(Tag("unknown", mention, i, end))
            i = end

    def _elided(self, start: int, end: int) -> bool:
        """Another member of a numbered family with the family's name left out ("episodic
        ataxia type 1 or type 2", "SCA1 and 2"): the name before the conjunction, its member
        number replaced by these words, names an entity."""
        words = self.span(start, end)
        conjunction = self.taken[start - 1] if start >= 2 else None
        named = self.taken[start - 2] if start >= 2 else None
        while (  # "SCA1, 2 or 3": the 3 is named by SCA1, across the elided 2
            named is not None
            and named.kind == "entity"
            and _ELIDED.fullmatch(named.text)
            and named.start >= 2
            and (before := self.taken[named.start - 1]) is not None
            and before.kind == "conj"
        ):
            named = self.taken[named.start - 2]
        if (
            not _ELIDED.fullmatch(words)
            or conjunction is None
            or conjunction.kind != "conj"
            or named is None
            or named.kind != "entity"
            or named.fuzzy
            or not _NUMBER_AT_END.search(named.text)
        ):
            return False
        number = words.split()[-1]
        joined = _NUMBER_AT_END.sub(number, named.text)
        entities = self.linker.lookup(joined)
        if not entities:
            return False
        # the tag says the whole name, so whoever links it again links the member
        self._take(Tag("entity", joined, start, end, entities=entities))
        return True

    def _shared_head(self, start: int, end: int) -> bool:
        """Words before a conjunction that share the next name's head noun ("focal or
        generalized dystonia", "juvenile and adult-onset …", "Sonic, Indian and Desert
        hedgehog"): the words in place of the name's first words name an entity."""
        at = end
        if self._comma(at):  # a list: the head noun comes after its last conjunction
            while at < len(self.tokens) and (self.taken[at] is None or self._comma(at)):
                at += 1
        conjunction = self.taken[at] if at < len(self.tokens) else None
        named = self.taken[at + 1] if at + 1 < len(self.tokens) else None
        if (
            conjunction is None
            or conjunction.kind != "conj"
            or conjunction.text == ","
            or named is None
            or named.kind != "entity"
            or named.fuzzy
        ):
            return False
        words, head = self.span(start, end), named.text.split()
        for dropped in range(1, len(head)):
            joined = f"{words} {' '.join(head[dropped:])}"
            entities = self.linker.lookup(joined)
            if entities:
                self._take(Tag("entity", joined, start, end, entities=entities))
                return True
        return False

    def _comma(self, at: int) -> bool:
        tag = self.taken[at] if at < len(self.tokens) else None
        return tag is not None and tag.kind == "conj" and tag.text == ","

    def _absorbed(self, start: int, end: int) -> bool:
        """Words next to a name that narrow it ("classic PSP", "early-onset AD"): the
        neighbour's entities whose names hold the words, or the words with one of its
        names; the entity tag grows over them."""
        words = self.span(start, end)
        for side in (end, start - 1):
            tag = self.taken[side] if 0 <= side < len(self.tokens) else None
            if tag is None or tag.kind != "entity" or tag.fuzzy:
                continue
            narrowed = [e for e in tag.entities if _holds(e.name, words)]
            if not narrowed:
                for entity in tag.entities:
                    joined = f"{words} {entity.name}" if side == end else f"{entity.name} {words}"
                    narrowed = self.linker.lookup(joined)
                    if narrowed:
                        break
            if narrowed:
                tag.entities = narrowed
                tag.start, tag.end = min(tag.start, start), max(tag.end, end)
                tag.text = self.span(tag.start, tag.end)
                self._take(tag)
                return True
        return False


#: Another member of a numbered family, its name left out: "type 2", "2", "19a".
_ELIDED = re.compile(r"(?:type\s+)?\d{1,3}[A-Za-z]?", re.IGNORECASE)
#: The member number a name ends with ("SCA1", "episodic ataxia type 1", "PD 19a").
_NUMBER_AT_END = re.compile(r"(?<![\d.])\d{1,3}[A-Za-z]?$")


def _record_of(head: Tag | None, joint: Tag | None, entity: Tag | None) -> bool:
    """Whether the tags say "the protein of X" for an X with a protein record."""
    return (
        head is not None
        and head.kind == "type"
        and head.text.lower() in _RECORD_WORDS
        and not head.text.lower().endswith("s")
        and joint is not None
        and joint.kind == "relation"
        and not joint.relation
        and joint.text.lower() == "of"
        and entity is not None
        and entity.kind == "entity"
        and any(e.type == head.node_type for e in entity.entities)
    )


def _category_kind(tag: Tag) -> str:
    """The node type a plural category name's members have (a disease where one reading is)."""
    kinds = {e.type for e in tag.entities}
    return "disease" if "disease" in kinds else sorted(kinds)[0]


_PARTICIPLE = re.compile(r"\w+ed\b|(?:bound|seen|found|known|shown|made|tied)\b", re.IGNORECASE)


def _noun_relation(tag: Tag) -> bool:
    """Whether a relation phrase opens a noun phrase ("the subtypes of X", "symptoms of X")."""
    return tag.kind == "relation" and bool(tag.relation) and tag.text.lower().endswith(" of")


def _holds(name: str, words: str) -> bool:
    """Whether ``name`` holds every word of ``words`` (case and dashes aside)."""
    have = set(re.split(r"[\s,-]+", name.lower()))
    return all(w in have for w in re.split(r"[\s,-]+", words.lower()) if w)


#: Question words spelt this close to a vocabulary word or a word of a name (difflib ratio)
#: are read as it.
SPELLING_CUTOFF = 0.85
#: The words of the registry's question phrases and examples and of the type words.
_VOCABULARY = sorted(
    {
        form
        for pattern in [
            *(p.pattern for p, _, _ in _PHRASES),
            *(p.pattern for p, _ in TYPE_WORDS),
            *(p.pattern for p, _, _, _ in _RELATION_NOUNS),
            *(example for relation in RELATIONS.values() for example in relation.examples),
        ]
        for word in re.findall(r"[a-z]{4,}", pattern)
        for form in (word, word[:-1] if word.endswith("s") else word)
    }
)

_STOP = frozenset(
    {*_WORD_KINDS, "of", "for", "with", "in", "to", "by", "from", "on", "at", "and", "or",
     "not", "no", "as", "than", "more", "less", "other", "same", "shared", "common", "share",
     "there", "how", "many", "have", "has", "had", "it", "they", "type", "form", "one", "ones"}
)  # fmt: skip


def _narrowed(phrase: Phrase, clause: Clause, relative: bool) -> Phrase:
    """The phrase a relative clause narrows: after a hierarchy noun whose argument is a typed
    phrase ("the broader categories of the PRRT2-linked disorders that feature paroxysmal
    dystonia"), that phrase — the class of a category is no "disorder that features" anything;
    else ``phrase`` itself ("the subtypes of dystonia that have tremor": the subtypes)."""
    if not relative or clause.subject or not phrase.clauses:
        return phrase
    last = phrase.clauses[-1]
    hierarchy = last.relation.relation == "subclass_of" and _HIERARCHY_NOUN.match(
        last.relation.text
    )
    return last.argument if hierarchy and last.argument.head is not None else phrase


class _Parser:
    """Recursive descent over the tags (see the module docstring for the grammar)."""

    def __init__(self, tags: list[Tag], together: set[int], also: set[int]) -> None:
        self.tags = tags
        #: token positions of "both", "in common", … (fillers, not among the tags)
        self.together = together
        #: token positions of "also" (a filler)
        self.also = also
        self.at = 0
        #: plural category names read as the answers' type: (words, node type)
        self.broadened: list[tuple[str, str]] = []
        self.categories: list[Tag] = []

    def peek(self, ahead: int = 0) -> Tag | None:
        index = self.at + ahead
        return self.tags[index] if index < len(self.tags) else None

    def kind(self, ahead: int = 0) -> str | None:
        tag = self.peek(ahead)
        return tag.kind if tag else None

    def fail(self, what: str) -> PhraseError:
        tag = self.peek()
        where = f" at {tag.text!r}" if tag else " at the end"
        return PhraseError(f"expected {what}{where}")

    def question(self) -> Reading:
        kinds = [t.kind for t in self.tags]
        if kinds and kinds[0] == "aux" and "wh" not in kinds:
            return self._yes_no()
        wh = next((i for i, k in enumerate(kinds) if k == "wh"), None)
        if wh is not None and wh > 0 and "relation" in kinds[:wh]:
            # "X is linked to which genes" → "which genes does X linked to"
            last = max(i for i in range(wh) if kinds[i] == "relation")
            first = min(i for i in range(wh) if kinds[i] == "relation")
            subject = [t for t in self.tags[:first] if t.kind != "aux"]
            self.tags = [
                *self.tags[wh:],
                Tag("aux", "does", -1, -1),
                *subject,
                *self.tags[first : last + 1],
            ]
        if (
            len(kinds) > 3
            and kinds[:2] == ["wh", "relation"]
            and self.tags[1].relation
            and "aux" in kinds[2:4]
            and "relation" not in kinds[2:]
        ):  # "what kind of disease is X" → "what disease is X a kind of"
            rest = self.tags[2:]
            at = next(i for i, t in enumerate(rest) if t.kind == "aux")
            self.tags = [self.tags[0], *rest[: at + 1], *rest[at + 1 :], self.tags[1]]
        answer = self.noun_phrase(top=True)
        listed_with = []
        while self._another_phrase(answer):
            while self.kind() == "conj":
                self.at += 1
            listed_with.append(self.noun_phrase(top=True))
        if self.peek() is not None:
            raise self.fail("the end of the question")
        return Reading(answer, listed_with=listed_with)

    def _another_phrase(self, answer: Phrase) -> bool:
        """Whether a conjunction here starts a second answer phrase of the same kind ("the
        proteins NGF binds, plus every ligand that binds TrkA"): a type word that is no
        relation, then a clause of its own."""
        ahead = self.at
        while ahead < len(self.tags) and self.tags[ahead].kind == "conj":
            ahead += 1
        if ahead == self.at or ahead + 1 >= len(self.tags) or answer.head is None:
            return False
        head = self.tags[ahead]
        return (
            head.kind == "type"
            and not head.relation
            and head.node_type == answer.head.node_type
            and self.tags[ahead + 1].kind in ("relation", "relative", "entity")
        )

    def _yes_no(self) -> Reading:
        self.at = 1
        candidate = self.peek()
        if candidate is None or candidate.kind != "entity":
            raise self.fail("an entity after the auxiliary verb")
        self.at += 1
        self._wrapper(candidate)
        answer = self.noun_phrase(top=True)
        if self.peek() is not None:
            raise self.fail("the end of the question")
        return Reading(answer, candidate=Mention(candidate))

    def noun_phrase(self, top: bool) -> Phrase:
        while self.kind() == "wh":
            self.at += 1
        # "what do the ligands of RET bind": a subject clause and no answer type, not the
        # copula of "what are the symptoms of …"
        doing = self.kind() == "aux" and self.peek().text.lower() in _DO  # type: ignore[union-attr]
        subject_first = top and doing and self.kind(1) == "type"
        if self.kind() == "aux" and self.kind(1) in ("type", "relation") and not subject_first:
            self.at += 1
        if top and self.kind() == "aux" and self.kind(1) == "entity":
            start, self.at = self.at, self.at + 1
            named = self.entities()  # "what are the dystonia subtypes", "what is X's receptor"
            if named.clauses and self.peek() is None:
                return named
            self.at = start
        tag = self.peek()
        if tag is None:
            raise self.fail("a type word or an entity")
        if tag.kind == "entity" and top and self._category(tag):
            # "Which ataxias are linked to ATXN2": the plural names the kind of answers
            kind = _category_kind(tag)
            self.broadened.append((tag.text, kind))
            self.categories.append(tag)
            tag = Tag("type", tag.text, tag.start, tag.end, node_type=kind)
            self.tags[self.at] = tag
        if tag.kind == "entity":
            phrase = self.entities()
            if not phrase.clauses:
                if top and self.kind() in ("relation", "aux"):
                    raise self.fail("a question word before the entity")
                return phrase
            self.clauses(phrase, top, first=False)
            return phrase
        phrase = Phrase()
        if tag.kind == "type":
            phrase.head = tag
            self.at += 1
            if tag.relation:  # "subtypes of X": the noun is the relation
                return self._noun_relation(phrase, top)
            selected = None if top else self._selected(tag)
            if selected is not None:
                return selected
        elif tag.kind not in ("relation", "aux") or (tag.kind == "relation" and tag.hyphen):
            raise self.fail("a type word or an entity")
        self.clauses(phrase, top, first=True)
        if not phrase.clauses:
            raise self.fail("a relation phrase")
        return phrase

    def _category(self, tag: Tag) -> bool:
        """Whether an entity opening the question is a plural category name ("ataxias",
        "dystonias") followed by what the answers do: the answers' type, not an anchor."""
        return (
            self.at > 0
            and self.kind(1) in ("relation", "aux", "relative")
            and tag.text.endswith("s")
            and bool(tag.entities)
            and all(
                e.match == "normalized"
                or (e.match == "acronym" and not e.name.lower().endswith("s"))
                for e in tag.entities
            )
            and all(e.type in ("disease", "phenotype", "go_term") for e in tag.entities)
        )

    @staticmethod
    def _plural_category(phrase: Phrase) -> bool:
        """Whether ``phrase`` is one plural category name ("the inherited dystonias"): a
        name matched through its plural, of a disease, phenotype or GO class."""
        if len(phrase.mentions) != 1:
            return False
        tag = phrase.mentions[0].tag
        return (
            tag.text.endswith("s")
            and bool(tag.entities)
            and all(e.match == "normalized" and not e.name.lower().endswith("s")
                    for e in tag.entities)
            and all(e.type in ("disease", "phenotype", "go_term") for e in tag.entities)
        )  # fmt: skip

    def _noun_relation(self, phrase: Phrase, top: bool) -> Phrase:
        """ "subtypes of X", "parent terms of X": the type word is the relation."""
        head = phrase.head
        assert head is not None
        relation = Tag("relation", head.text, head.start, head.end,
                       relation=head.relation, hint=head.hint, repeat=head.repeat)  # fmt: skip
        following = self.peek(1)
        if (
            self.kind() == "aux"
            and following is not None
            and (following.kind in NOUNS or _noun_relation(following))
        ):
            # "what parent terms do the phenotypes of HD have": the noun of the subject
            self.at += 1
            argument = self.argument()
            having = self.peek()
            if having is None or having.text.lower() not in _HAVING:
                raise self.fail("'have' after the subject")
            self.at += 1
            return Phrase(clauses=[Clause(relation, argument)])
        joint = self.peek()
        if joint is not None and joint.kind == "relation" and joint.relation in ("", head.relation):
            self.at += 1  # the bare joint "of", or the noun's relation again ("subtypes under")
        phrase = Phrase(clauses=[Clause(relation, self._each_class(relation, self.argument()))])
        self.clauses(phrase, top, first=False)
        return phrase

    def _participle_ahead(self) -> bool:
        """Whether the next tag is a relation said as a participle ("linked to", "associated
        with", "bound by"): a reduced relative clause on the noun before it."""
        tag = self.peek()
        return (
            tag is not None
            and tag.kind == "relation"
            and bool(tag.relation)
            and not tag.hyphen
            and _PARTICIPLE.match(tag.text) is not None
            and self.kind(1) in NOUNS  # its argument follows ("… linked to" ending a question
            # asks about the phrase: "what conditions are their genes linked to")
        )

    def clauses(self, phrase: Phrase, top: bool, *, first: bool, members: bool = False) -> None:
        """Clauses of ``phrase`` until a tag that belongs to a phrase above it. A nested
        phrase whose clauses came without "that" leaves "and are …" to the phrase above
        ("diseases of the genes of X and are also subtypes of Y": the diseases are)."""
        relative = False
        while self.peek() is not None:
            start = self.at
            joiner = "and"
            while self.kind() == "conj":
                joiner = "or" if self.peek().text.lower() == "or" else joiner  # type: ignore[union-attr]
                self.at += 1
            joined = self.at > start
            marked = self.kind() == "relative"
            named_before = not members and (phrase.head is None or bool(phrase.clauses))
            if marked and not top and named_before and self._also_ahead():
                # "phenotypes of ATXN3's diseases that HTT also has": a clause that says
                # "also" narrows the answers, not the named noun just before it (a bare kind
                # keeps it: "linked to genes that also cause X")
                self.at = start
                return
            if marked:
                self.at += 1
            relative = relative or marked
            verb_after_and = joined and not marked and self._finite_ahead()
            # "(annotated to) the subtypes of NBIA linked to WDR45": a participle right after
            # a hierarchy noun's argument narrows that noun's answers
            narrowing = (
                bool(phrase.clauses)
                and not top
                and self._participle_ahead()
                and (_HIERARCHY_NOUN.match(phrase.clauses[-1].relation.text) is not None)
            )
            if not (first or marked or joined or top or narrowing) or (
                verb_after_and and not top and not relative and phrase.clauses
            ):
                self.at = start
                return
            while self.kind() == "aux" and self.kind(1) == "aux":
                self.at += 1
            aux = self.peek()
            copula = aux is not None and aux.kind == "aux" and aux.text.lower() in _COPULA
            if self.kind() == "aux" and (self.kind(1) == "relation" or (copula and self._role(1))):
                self.at += 1  # "are associated with", "are receptors for"
            # "the proteins SHH binds": an object relative without "that"
            reduced = (
                first
                and phrase.head is not None
                and (self.kind() == "entity" or self._selects() or self._typed_subject())
            )
            clause = self._clause(marked, reduced=reduced)
            if clause is None:
                self.at = start
                return
            clause.joiner = joiner
            relative = marked or clause.relation.text.split()[0].lower() in ("that", "which")
            _narrowed(phrase, clause, relative and not joined).clauses.append(clause)
            first = False

    def _typed_subject(self) -> bool:
        """Whether a type word with a clause of its own comes next, as the subject of an object
        relative ("every receptor the ligands common to A and B bind")."""
        tag, after = self.peek(), self.peek(1)
        return (
            tag is not None
            and tag.kind == "type"
            and not tag.relation
            and after is not None
            and after.kind in ("relation", "relative")
        )

    def _finite_ahead(self) -> bool:
        """Whether a finite verb comes next: an auxiliary, or a relation phrase that starts
        with one ("are classed as")."""
        tag = self.peek()
        return tag is not None and (
            tag.kind == "aux" or (tag.kind == "relation" and tag.text.split()[0].lower() in _COPULA)
        )

    def _also_ahead(self) -> bool:
        """Whether "also" stands between the relative marker here and the clause's verb."""
        marker = self.peek()
        verb = next(
            (t for t in self.tags[self.at + 1 :] if t.kind in ("relation", "relative", "wh")),
            None,
        )
        if marker is None or verb is None or verb.kind != "relation":
            return False
        return any(marker.start < at < verb.start for at in self.also)

    def _clause(self, marked: bool, *, reduced: bool = False) -> Clause | None:
        tag = self.peek()
        if tag is None:
            return None
        if tag.kind == "relation" and not tag.hyphen:
            self.at += 1
            return Clause(tag, self._each_class(tag, self.argument()))
        if not reduced and self._role(0):  # "(proteins that are) receptors for X": a role
            joint = self.tags[self.at + 1]
            self.at += 2
            role = Tag("relation", f"{tag.text} {joint.text}", tag.start, joint.end,
                       hint=tag.hint, node_type=tag.node_type)  # fmt: skip
            return Clause(role, self.argument())
        subject = tag.kind == "aux" or (marked and tag.kind in ("entity", "type")) or reduced
        if not subject:
            return None
        if tag.kind == "aux":
            self.at += 1
        start = self.at
        argument = self.argument()
        if self.kind() == "aux" and self.kind(1) == "relation":
            self.at += 1  # "that SNCA and LRRK2 are (both) linked to"
        relation = self.peek()
        if reduced and (relation is None or relation.kind != "relation"):
            self.at = start
            return None
        if relation is not None and relation.kind == "type" and self.kind(1) == "relation":
            # "is progranulin a ligand for": the type word is the subject's role
            joint = self.tags[self.at + 1]
            self.at += 2
            for mention in argument.mentions:  # the role says which record: the protein
                kind = [e for e in mention.tag.entities if e.type == relation.node_type]
                mention.tag.entities = kind or mention.tag.entities
            return Clause(
                Tag("relation", f"{relation.text} {joint.text}", relation.start, joint.end,
                    relation=joint.relation, hint=relation.hint, node_type=relation.node_type),
                argument, subject=True,
            )  # fmt: skip
        if relation is None or relation.kind != "relation":
            raise self.fail("a relation phrase after the subject")
        self.at += 1
        # "… have in common", "that both A and B bind": a word of togetherness after the
        # tag before the subject
        floor = self.tags[start - 1].end if start > 0 else 0
        together = relation.text.lower().startswith(_JOINT_RELATIONS) or any(
            at >= min(tag.start, floor) for at in self.together
        )
        return Clause(relation, argument, subject=True, together=together)

    def _each_class(self, relation: Tag, argument: Phrase) -> Phrase:
        """ "the parents of mitophagy and pexophagy", "subtypes of A and B": a hierarchy noun
        over an "and" list asks for each one's (a class under both is rare; "both" or "in
        common" asks for that)."""
        if (
            relation.relation == "subclass_of"
            and _HIERARCHY_NOUN.match(relation.text)
            and not self.together
        ):
            argument.joiners = ["or" if j == "and" else j for j in argument.joiners]
        return argument

    def _role(self, ahead: int) -> bool:
        """Whether a ligand / receptor word and a bare joint come ``ahead`` ("receptors for")."""
        role, joint = self.peek(ahead), self.peek(ahead + 1)
        return (
            role is not None
            and joint is not None
            and role.kind == "type"
            and role.hint is not None
            and not role.relation
            and joint.kind == "relation"
            and not joint.relation
        )

    def argument(self) -> Phrase:
        """An entity list, or a nested noun phrase ("diseases linked to SNCA")."""
        tag = self.peek()
        if tag is None:
            raise self.fail("an entity or a type word")
        if tag.kind == "entity":
            return self.entities()
        if tag.kind == "type" or _noun_relation(tag):
            return self.noun_phrase(top=False)
        raise self.fail("an entity or a type word")

    def entities(self) -> Phrase:
        """ "X", "X, Y and Z", "X or of Y"; then a compound head: "X genes", "X's
        phenotypes", "X subtypes", "X-associated diseases" (the entities as its argument)."""
        first = self.peek()
        assert first is not None
        self.at += 1
        self._wrapper(first)
        phrase = Phrase(mentions=[Mention(first)])
        while self.kind() == "conj":
            ahead = 1
            while self.kind(ahead) == "conj":
                ahead += 1
            repeated = self.kind(ahead) == "relation" and not self.peek(ahead).relation  # type: ignore[union-attr]
            if self.kind(ahead + repeated) != "entity":
                break
            said = " ".join(self.tags[self.at + i].text for i in range(ahead)).lower()
            if said == ",":
                phrase.joiners.append(",")  # "X, Y or Z": the comma takes the last word
            else:
                # "of X and of Y" lists the answers of each; "in X as well as in Y" asks both
                either = (
                    repeated
                    and "as well as" not in said
                    and self.peek(ahead).text.lower() != "with"  # type: ignore[union-attr]
                )
                joiner = "or" if either or re.search(r"\bor\b", said) else "and"
                commas = len(phrase.joiners) - len(list(itertools.takewhile(
                    lambda j: j == ",", reversed(phrase.joiners))))  # fmt: skip
                phrase.joiners[commas:] = [joiner] * (len(phrase.joiners) - commas)
                phrase.joiners.append(joiner)
            self.at += ahead + repeated
            mention = self.peek()
            assert mention is not None
            self.at += 1
            self._wrapper(mention)
            phrase.mentions.append(Mention(mention))
        # a list of commas only ("X, Y"): an "and"
        phrase.joiners = ["and" if j == "," else j for j in phrase.joiners]
        if self.kind() == "possessive":
            self.at += 1
            if self.kind() != "type":
                raise self.fail("a type word after the possessive")
        asked = 3 if self.kind(1) == "wh" and self.kind(2) == "aux" else 2  # "what is the"
        dash = self.kind() == "punct" and (
            self.kind(1) == "type"
            or (self.kind(1) in ("relation", "wh") and self.kind(asked) == "type")
        )
        if dash:  # "juvenile Huntington disease - causal gene", "GDNF: which receptors",
            # "DYT1 dystonia - what is the gene"
            self.at += asked if self.kind(1) == "wh" else 1
        tag = self.peek()
        if (
            tag is not None
            and tag.kind == "relation"
            and (tag.hyphen or dash)
            and self.kind(1) == "type"
        ):
            self.at += 1
            head = self.peek()
            self.at += 1
            if tag.hyphen and phrase.mentions[0].tag.text.endswith("-"):
                # "TREM2- and TYROBP-associated disorders": those of each
                phrase.joiners = ["or" if j == "and" else j for j in phrase.joiners]
            return Phrase(head=head, clauses=[Clause(tag, phrase)])
        # compound heads, innermost first: "NBIA subtype genes" are the genes of the subtypes
        # of NBIA, "FGF8 receptor genes" those of FGF8's receptors; a relative clause after
        # one is about it ("the PD genes that are annotated with X")
        self._records(phrase)
        self._each_headed(phrase)
        tag = self.peek()
        named = phrase
        while tag is not None and tag.kind == "type":
            after = self.peek(1)
            if (
                not tag.relation
                and after is not None
                and after.kind == "relation"
                and not after.relation
            ):
                break  # a role and its joint: "X receptors for Y"
            self.at += 1
            if tag.relation:
                joint = Tag("relation", tag.text, tag.start, tag.end,
                            relation=tag.relation, hint=tag.hint, repeat=tag.repeat)  # fmt: skip
                phrase = Phrase(clauses=[Clause(joint, phrase)])
            else:
                # "the Huntington disease-like syndromes": a kind word of the entity's own type
                # names its members (the subtypes), not what it is a kind of
                members = phrase is named and any(
                    e.type == tag.node_type for m in phrase.mentions for e in m.tag.entities
                )
                joint = Tag("relation", "of", tag.start, tag.end,
                            hint="inverse" if members else None)  # fmt: skip
                phrase = Phrase(head=tag, clauses=[Clause(joint, phrase)])
            tag = self.peek()
        relative = tag is not None and (
            tag.kind == "relative"
            or (tag.kind == "relation" and bool(_RELATIVE_PHRASE.match(tag.text)))
        )
        if phrase is named and relative and self._plural_category(phrase):
            # "the parkinsonian disorders that present with dystonia": the members of the
            # category the clause narrows (a named entity's clause belongs above it)
            category = phrase.mentions[0].tag
            head = Tag("type", category.text, category.start, category.end,
                       node_type=_category_kind(category))  # fmt: skip
            joint = Tag("relation", "of", category.start, category.end, hint="inverse")
            phrase = Phrase(head=head, clauses=[Clause(joint, named)])
            self.clauses(phrase, top=False, first=True, members=True)
        elif phrase is not named and relative:
            # "NBIA subtypes that feature dystonia": the clause is about the subtypes
            self.clauses(phrase, top=False, first=self.kind() != "relative")
        elif (
            phrase is not named
            and not phrase.head
            and self.kind() == "relation"
            and (
                self.peek().text.lower() == "with"  # type: ignore[union-attr]
                or (self.at > 0 and self.kind(-1) == "type" and self._participle_ahead())
            )
        ):
            # "the Parkinson disease subtypes with RLS", "the NBIA subtypes linked to WDR45":
            # the subtypes that have it (a verb after them belongs to the phrase above: "genes
            # of X subtypes have chorea")
            self.clauses(phrase, top=False, first=True)
        return phrase

    def _records(self, phrase: Phrase) -> None:
        """ "the LRRK2 and SNCA proteins", "the PARK1 and PARK8 genes": a record word after a
        list of two or more names, each naming such a record (a locus name also names its
        disease), says which records are meant (no relation). After one name the word may be
        the answers ("which SHH proteins"), but a role in the singular that ends the noun
        phrase is the name's own ("the RET receptor", "the NGF ligand": RET, NGF; not "FGF8
        receptor genes", "progranulin a ligand for")."""
        tag = self.peek()
        after = self.peek(1)
        role = (
            tag is not None
            and tag.text.lower() in _ROLE_WORDS
            and len(phrase.mentions) == 1
            # "a ligand for", "receptor genes": the role goes on into a joint or a type
            and not (after is not None and after.kind == "type")
            and not (after is not None and after.kind == "relation" and not after.relation)
        )
        if (
            tag is None
            or tag.kind != "type"
            or (tag.text.lower() not in _RECORD_WORDS and not role)
            or (len(phrase.mentions) < 2 and not role)
            or not all(
                any(e.type == tag.node_type for e in m.tag.entities) for m in phrase.mentions
            )
        ):
            return
        for mention in phrase.mentions:
            mention.tag.entities = [e for e in mention.tag.entities if e.type == tag.node_type]
        self.at += 1

    def _each_headed(self, phrase: Phrase) -> None:
        """ "the Perry syndrome gene or the Wilson disease gene": the same type word after
        each name of an or-list is read once, after the whole list ("the genes of Perry
        syndrome or Wilson disease"); the head is left for the compound reading."""
        head = self.peek()
        if head is None or head.kind != "type" or head.relation or len(phrase.mentions) != 1:
            return
        at, listed, joiners = self.at + 1, [], []
        while at + 2 < len(self.tags):
            joiner, entity, again = self.tags[at : at + 3]
            if (
                joiner.kind != "conj"
                or joiner.text.lower() not in (",", "or")
                or entity.kind != "entity"
                or again.kind != "type"
                or again.relation
                or again.node_type != head.node_type
            ):
                break
            listed.append(Mention(entity))
            joiners.append(joiner.text.lower())
            at += 3
        if "or" not in joiners:
            return
        phrase.mentions += listed
        phrase.joiners += ["or"] * len(listed)
        self.at = at - 1  # at the last type word

    def _selects(self) -> bool:
        """Whether "the protein of X" (a record selected, see :meth:`_selected`) comes next."""
        return _record_of(self.peek(), self.peek(1), self.peek(2))

    def _selected(self, head: Tag) -> Phrase | None:
        """ "the protein of SHH": a singular record word before "of" and a name that has such
        a record selects it (no relation: SHH the protein, not its binding partners)."""
        entity = self.peek(1)
        if entity is None or not _record_of(head, self.peek(), entity):
            return None
        entity.entities = [e for e in entity.entities if e.type == head.node_type]
        self.at += 1
        return self.entities()

    def _wrapper(self, entity: Tag) -> None:
        """ "the TREM2 gene", "the APOE gene product": a singular type word after a name
        that says which of its records is meant, not a relation ("Is SCN1B a gene …": the
        article makes it what is asked)."""
        tag = self.peek()
        if (
            tag is not None
            and tag.kind == "type"
            and (tag.start == entity.end or entity.end < 0)
            and not tag.relation
            and tag.text.lower() in ("gene", "protein", "gene product", "product")
            and any(e.type == tag.node_type for e in entity.entities)
        ):
            entity.entities = [e for e in entity.entities if e.type == tag.node_type]
            self.at += 1
