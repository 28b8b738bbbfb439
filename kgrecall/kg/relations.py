"""One relation vocabulary: what each biomedical relation means and how people word it.

The planner (question phrases, examples for unknown wordings), the report writer (a verb per
relation) and the grounding verifier (claim wordings, opposites, which claims fix a
direction) all read this registry, so a relation added or reworded here reaches all three.

- :data:`RELATIONS` — per relation a :class:`Relation`: meaning, head-first verb, question
  phrases (regexes read after an answer-type word, each with a direction hint for relations
  between nodes of one type), plain examples (embedded to match unknown wordings), opposites,
  whether a claim's wording fixes its direction (subject → object), and whether text names
  both ends alike (gene and protein).
- :data:`CLAIM_WORDINGS` — claim wording → the relations it asserts and whether its
  grammatical subject is the edge's tail ("dystonia is a symptom of X" states X
  has_phenotype dystonia), in match order (the first match wins, so specific wordings come
  before general ones).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

__all__ = [
    "CLAIM_WORDINGS",
    "HIERARCHY_RELATIONS",
    "RELATIONS",
    "Hint",
    "Relation",
    "relation_meanings",
]

#: For relations between nodes of one type, read with the phrase before its anchor ("<answers>
#: <phrase> X"): is X the edge's head ("forward": "regulated by X", "parents of X": the
#: answers are tails) or its tail ("inverse": "regulate X", "subtypes of X")? With the anchor
#: as the subject ("does X regulate", "X is a kind of what") the planner turns it round.
Hint = Literal["forward", "inverse"] | None


@dataclass(frozen=True, slots=True)
class Relation:
    """One relation's meaning and wording."""

    name: str
    meaning: str
    #: How the relation reads in a sentence, head first ("is associated with").
    verb: str | None = None
    #: Regexes a question uses after the answer-type word, each with its direction hint.
    question_phrases: tuple[tuple[str, Hint], ...] = ()
    #: Plain wordings, embedded to match a phrase no regex reads.
    examples: tuple[str, ...] = ()
    #: Relations a claim of this relation contradicts on the same pair.
    opposites: frozenset[str] = frozenset()
    #: Whether a claim's wording fixes subject → object ("A inhibits B" ≠ "B inhibits A").
    directed_claims: bool = False
    #: Whether a claim of it says nothing about the kind of link (any direct edge matches).
    generic: bool = False
    #: Whether text names both ends alike (a gene and its protein: "SNCA" is either), so a
    #: claim about one holds for the other.
    same_name: bool = False
    #: Relations a claim of this one is a finer statement of, so an edge of theirs is no
    #: conflict ("NT-3 activates TrkA" where the KG records only that they interact).
    refines: frozenset[str] = frozenset()


#: Relations of a hierarchy: a term is a kind or a part of another. Only words of kind or
#: part mean them — no verb of having ("which diseases have ataxia" asks neither for the
#: kinds of ataxia nor for what ataxia is a kind of).
HIERARCHY_RELATIONS = frozenset({"subclass_of", "part_of"})

_UP = frozenset({"positively_regulates", "activates"})
_DOWN = frozenset({"negatively_regulates", "inhibits"})
#: Activation and inhibition of one protein by another go through their interaction.
_BINDING = frozenset({"interacts_with"})

_DEFINITIONS = [
    Relation(
        "interacts_with",
        "physical or functional interaction (e.g. ligand–receptor)",
        verb="interacts with",
        # "what binds MuSK", "what signals through RET", "ligands that hit HER3" (drug
        # discovery's word for binding a target): the answers are the ligands (edges
        # point from ligand to receptor) unless the anchor's own edges say otherwise
        question_phrases=(
            (r"(?:interaction |binding )?partners of|(?:that |which )?interact(?:s|ing)? with|"
             r"(?:are |is )?(?:bound|engaged) by|talks? to", "forward"),
            (r"bind(?:s|ing)?(?: to)?|engag(?:es?|ing)|signal(?:s|ling)? (?:through|via)|"
             r"dock(?:s|ing)? (?:on(?:to)?|to)|latch(?:es|ing)? on(?:to)?|hit(?:s|ting)?",
             "inverse"),
        ),
        examples=("interacts with", "binds to", "interaction partner of"),
    ),
    Relation(
        "regulates",
        "regulates (direction unspecified)",
        verb="regulates",
        question_phrases=(
            (r"regulat(?:e|es|ing)", "inverse"),
            (r"(?:are |is )?regulated by", "forward"),
        ),
        examples=("regulates", "controls"),
        directed_claims=True,
    ),
    Relation(
        "positively_regulates",
        "increases the activity or amount of",
        verb="positively regulates",
        question_phrases=(
            (r"(?:positively |up-?)regulat(?:e|es|ing)|activat(?:e|es|ing)", "inverse"),
            (r"(?:are |is )?(?:positively |up-?)regulated by|(?:are |is )?activated by",
             "forward"),
        ),
        examples=("activates", "up-regulates", "increases"),
        opposites=_DOWN,
        directed_claims=True,
        refines=_BINDING,
    ),
    Relation(
        "negatively_regulates",
        "decreases the activity or amount of",
        verb="negatively regulates",
        question_phrases=(
            (r"(?:negatively |down-?)regulat(?:e|es|ing)|inhibit(?:s|ing)?", "inverse"),
            (r"(?:are |is )?(?:negatively |down-?)regulated by|(?:are |is )?inhibited by",
             "forward"),
        ),
        examples=("inhibits", "down-regulates", "decreases"),
        opposites=_UP,
        directed_claims=True,
        refines=_BINDING,
    ),
    Relation("inhibits", "inhibits", verb="inhibits", opposites=_UP, directed_claims=True,
             refines=_BINDING),
    Relation("activates", "activates", verb="activates", opposites=_DOWN, directed_claims=True,
             refines=_BINDING),
    Relation(
        "encodes",
        "gene encodes protein",
        verb="encodes",
        question_phrases=(
            (r"(?:are |is )?encoded by|(?:that |which )?encode(?:s)?|encoding|products? of|"
             r"translated from|(?:are |is )?(?:made|produced) from|"
             r"(?:that |which )?cod(?:e|es|ing) for|(?:that |which )?(?:makes?|making)(?! up)",
             None),
        ),
        examples=("encodes", "encoded by", "gene product of"),
        directed_claims=True,
        same_name=True,
    ),
    Relation(
        "expressed_in",
        "expressed in a tissue or cell type",
        verb="is expressed in",
        question_phrases=((r"(?:are |is )?expressed in", None),),
        examples=("expressed in",),
    ),
    Relation(
        "associated_with",
        "associated with (e.g. gene–disease)",
        verb="is associated with",
        question_phrases=(
            (r"(?:are |is )?(?:associated|linked|connected|related) (?:to|with)|implicated in|"
             r"associations? with|(?:that |which )?causes?|causing|underl(?:ies?|ying|ay)|"
             r"responsible for|(?:are |is )?mutated in|(?:with )?mutations? in|behind|"
             r"causal(?: for)?|tied to|(?:are |is )?caused by(?: mutations? in)?|"
             r"(?:are |is )?involved in|involves?|involving", None),
        ),
        examples=("associated with", "linked to", "implicated in", "related to", "causes"),
        generic=True,
    ),
    Relation(
        "targets",
        "drug targets gene or protein",
        verb="targets",
        question_phrases=((r"(?:that |which )?target(?:s|ing)?|(?:are |is )?targeted by", None),),
        examples=("targets", "acts on"),
        directed_claims=True,
    ),
    Relation(
        "treats",
        "drug treats disease",
        verb="treats",
        question_phrases=(
            (r"(?:that |which )?treat(?:s|ing)?|used (?:to treat|for|against)", None),
        ),
        examples=("treats", "therapy for"),
        directed_claims=True,
    ),
    Relation(
        "subclass_of",
        "ontology is_a",
        verb="is a subtype of",
        question_phrases=(
            (r"(?:sub ?types?|subclass(?:es)?|kinds?|types?|forms?|children|"
             r"(?:more )?specific (?:forms?|types?|kinds?|terms?)|"
             r"descendants?|narrower terms?) of|(?:are |is )?(?:more specific|narrower) than|"
             r"falls? (?:under|into|within)|belongs? to|(?:are |is )?subsumed by|"
             r"(?:are |is )?(?:classed|classified|categori[sz]ed|filed) "
             r"(?:directly |immediately )?(?:as|under)|"
             r"(?:that |which )?(?:(?:are|is|sits?|lies?|placed|nested|listed) )?"
             r"(?:directly |immediately )?(?:below|beneath|under(?:neath)?)", "inverse"),
            (r"(?:parents?|superclass(?:es)?|generali[sz]ations?|broader|ancestors?)"
             r"(?: disease| phenotype)?(?: terms?| classes?| categories| groups?)? of|"
             r"(?:are |is )?(?:more general|broader|less specific) than|"
             r"(?:that |which )?(?:(?:are|is|sits?|lies?) )?(?:directly |immediately )?above",
             "forward"),
        ),
        examples=("subtype of", "kind of", "more specific than"),
        directed_claims=True,
    ),
    Relation(
        "part_of",
        "ontology part_of",
        verb="is part of",
        question_phrases=(
            (r"(?:parts?|components?|component (?:process(?:es)?|steps?)|subprocess(?:es)?) of",
             "inverse"),
            (r"(?:forms?|makes? up|forming|making up) (?:a )?part of", "inverse"),
        ),
        examples=("part of", "component of"),
        directed_claims=True,
    ),
    Relation("has_function", "has molecular function"),
    Relation(
        "involved_in",
        "participates in a process or pathway",
        verb="is involved in",
        question_phrases=(
            (r"(?:are |is )?involved in|participat(?:e|es|ing) in", None),
        ),
        examples=("involved in", "participates in"),
    ),
    Relation(
        "has_phenotype",
        "shows a phenotype",
        verb="has the phenotype",
        question_phrases=(
            (r"(?:shows?|turns?) up in|comes? with|coming with|"
             r"(?:do |does )?(?:have|has|having|show|shows|showing|exhibit|exhibits|carry|"
             r"carries|carrying)"
             r"(?: the)?(?: phenotypes?| symptoms?| features?)?|"
             r"(?:present|presents|presenting|manifest|manifests|manifesting) (?:with|as)|"
             r"characteri[sz]ed by|(?:clinical )?(?:phenotypes?|symptoms?|features?|signs?|"
             r"manifestations?|picture) of|"
             r"(?:that |which )?feature|featuring|(?:are |is )?annotated (?:to|with|on)|"
             r"(?:are |is )?(?:seen|observed|found) in|(?:occur|appear)s? in|"
             r"(?:occurr|appear)ing in|"
             r"(?:are |is )?(?:recorded|reported|listed) (?:for|in)", None),
        ),
        examples=("has the phenotype", "presents with", "symptoms of", "clinical features of"),
        directed_claims=True,
    ),
    Relation("requires_tool", "protocol requires tool"),
    Relation("produces_for", "produces input for"),
    Relation("compatible_with", "compatible with"),
    Relation("same_domain", "belongs to the same domain"),
    Relation("uses_data", "uses data set"),
    Relation("produces_data", "produces data set"),
    Relation("cited_in", "cited in publication"),
    Relation("co_occurs_with", "mentioned together (auto-learned)"),
]  # fmt: skip

#: The registry, in a stable order (question phrases are tried in this order).
RELATIONS: dict[str, Relation] = {relation.name: relation for relation in _DEFINITIONS}

#: Behind a relative clause on a class ("a category that …"): fixed-width lookbehinds, one
#: per class word and relative pronoun.
_AFTER_CLASS_WORD = "|".join(
    f"(?<={noun} {pronoun})"
    for noun in ("category", "categories", "group", "groups", "class", "classes", "family",
                 "families", "umbrella term", "heading")
    for pronoun in ("that", "which")
)  # fmt: skip
#: Claim wording → (relations it asserts, whether its subject is the edge's tail); the first
#: match wins, specific before general.
CLAIM_WORDINGS: tuple[tuple[str, frozenset[str], bool], ...] = (
    (r"\b(up-?regulat\w*|increas\w*|enhanc\w*|promot\w*|induc\w*)", _UP, False),
    (r"\b(down-?regulat\w*|decreas\w*|suppress\w*|reduc\w*|repress\w*)", _DOWN, False),
    (r"\b(inhibit\w*|block\w*|antagoni\w*)", _DOWN, False),
    (r"\b(activat\w*|stimulat\w*|agonis\w*)", _UP, False),
    (r"\b(treat\w*|improv\w*|ameliorat\w*|alleviat\w*|reliev\w*)", frozenset({"treats"}), False),
    (r"\btarget\w*", frozenset({"targets"}), False),
    (r"\bencod\w*", frozenset({"encodes"}), False),
    (r"\b(interact\w*|bind\w*|binds|recruit\w*|signal\w* (?:through|via)|(?:forms? )?"
     r"(?:a )?complex(?:es)? with)", frozenset({"interacts_with"}), False),
    # "expressed in the striatum", "expression in neurons" (not "the maternally expressed
    # UBE3A gene", an adjective)
    (r"\bexpress(?:ed|es|ion|ing)?\s+(?:[\w-]+\s+){0,2}?(?:in|on|at|within|throughout)\b",
     frozenset({"expressed_in"}), False),
    # "RYR1 variants have also been reported in CMS17": the gene's disease, not its phenotype
    (r"\b(?:variants?|mutations?|alleles?|expansions?)\s+(?:(?:have|has|had)\s+(?:also\s+)?"
     r"been|(?:are|is|were|was)(?:\s+also)?)\s+(?:reported|found|described|identified|"
     r"documented|seen|observed)\s+in\b", frozenset({"associated_with"}), False),
    # "Y is a (common) symptom of X", "Y is, strictly speaking, a manifestation of X", "Y is
    # seen in X": the phenotype first (inverse wording)
    (r"\b(?:is|are|was|were|be|as|among)(?:,[a-z ]{1,30},)?\s+(?:an?\s+|the\s+)?"
     r"(?:[a-z]+\s+){0,4}"
     r"(?:symptoms?|features?|signs?|manifestations?|phenotypes?)\s+of\b"
     r"|\b(?:is|are|was|were|(?:has|have|had)\s+(?:also\s+)?been)\s+"
     r"(?:(?:[a-z]+ly|also|well|often)\s+){0,2}"
     r"(?:seen|observed|found|reported|described|documented)\s+in\b"
     r"|\b(?:occurs?|emerges?|emerged|appears?|appeared|arises?|arose)\s+in\b"
     r"|\bpart of the\b(?=[^.;]{1,80}?\b(?:phenotypes?|spectrum|picture)\b)",
     frozenset({"has_phenotype"}), True),
    # "X has Y among its manifestations", "… as one of its features" (names masked as X…:
    # the wording needs its object)
    (r"\b(?:has|have|had|includes?|including)\b(?=\s+X+(?:\s*,\s*X+|\s+(?:and|or)\s+X+)*\s+"
     r"(?:among|as(?:\s+one\s+of)?)\s+(?:its|their|the)\s+(?:\w+\s+)?(?:features?|"
     r"manifestations?|symptoms?|signs?|phenotypes?))",
     frozenset({"has_phenotype"}), False),
    (r"\b(phenotype|manifest\w*|present\w*(?:\s+(?:in|at|during)\s+(?:[\w-]+\s+){1,3}?)?\s*with|"
     r"symptom\w*|feature\w*|characteri[sz]ed by)",
     frozenset({"has_phenotype"}), False),
    (r"\b(involved in|participat\w*|pathway)", frozenset({"involved_in"}), False),
    # "X has Y as a part": the whole first
    (r"\b(?:has|have|contains?|includes?)\b(?=\s+X+\s+as\s+(?:an?\s+|one\s+)?(?:parts?|"
     r"(?:sub)?components?|steps?|sub-?process(?:es)?)\b)", frozenset({"part_of"}), True),
    (r"\b(?:part|(?:sub)?components?|constituents?|(?:sub-?)?steps?|sub-?process(?:es)?|"
     r"stages?) of\b|\b(?:sub-?)?steps? (?:with)?in\b", frozenset({"part_of"}), False),
    # "PSAP is not a PARK24 gene": a gene of the disease, not a kind of it
    (r"\b(?:is|are|was|were)\s+(?:not\s+)?an?\s+(?=X+[\s-]+genes?\b)",
     frozenset({"associated_with"}), False),
    # "FXTAS is an FMR1 disorder": a gene's disorder, not a kind of the gene
    (r"\b(?:is|are|was|were)\s+an?\s+(?=X+[\s-]+(?:related\s+|associated\s+|linked\s+)?"
     r"(?:disorders?|diseases?|conditions?)\b)", frozenset({"associated_with"}), True),
    (r"\b(associat\w*|linked|cause\w*|implicated|risk|mutated in|due to|owing to|"
     r"secondary to|result(?:s|ed|ing)? from)", frozenset({"associated_with"}), False),
    (r"\bregulat\w*",
     frozenset({"regulates", "positively_regulates", "negatively_regulates"}), False),
    # "X is the parent (term) of Y", "X is broader than Y": the parent first
    (r"\b(?:parent|broader|more general|superclass|ancestor)\s+(?:terms?\s+|class\s+)?"
     r"(?:of|than)\b"
     # "X includes Y among its subtypes"
     r"|\b(?:includes?|including|has|have|encompass\w*|comprises?)\b(?=\s+X+(?:\s*,\s*X+|"
     r"\s+(?:and|or)\s+X+)*\s+(?:as|among)\s+(?:its|their|one of its)\s+(?:sub-?types?|"
     r"subclass(?:es)?|children|forms?|members?|kinds?)\b)",
     frozenset({"subclass_of"}), True),
    # "X, a category that includes Y": after a class word "includes" names its subtypes (the
    # relative clause starts after "that", so the class word is looked for behind it)
    (rf"(?:{_AFTER_CLASS_WORD})\s+(?:also\s+)?(?:includes?|comprises?|encompass(?:es)?|"
     r"covers?)\b", frozenset({"subclass_of"}), True),
    # "X is (not) a Y" — not "is a (common) cause of Y": a noun before "of" says the relation
    (r"\b(is(?:\s+not)?\s+an?\b(?!(?:\s+[\w-]+){1,2}\s+of\b)|"
     r"(?:sub)?types? of|kinds? of|forms? of|subclass(?:es)? of|special case of|"
     r"sub-?categor(?:y|ies) of|"
     # "X is a (clinical) variant of Y", "one of the variants of Y": not a gene's variants
     r"(?:\ban?|\bthe|one of the)\s+(?:(?:clinical|allelic|phenotypic|adult|juvenile|"
     r"infantile|childhood|atypical|rare|milder|severe)\s+)?variants? of|"
     r"sit(?:s|ting)? (?:beneath|below|under(?:neath)?)|"
     # "X is (itself) one of the Ys": the name ends the phrase ("one of the HSP genes" does not)
     r"one of (?:the|its|their)(?=\s+X+\s*(?:[,.;:)]|$|\s+(?:and|or|but|so|because)\b))|"
     r"classed (?:both )?(?:as|within)|classified (?:both )?(?:as|under|within)|"
     r"child(?:ren)? (?:terms? )?of|(?:grouped|placed) within|"
     # "X is regarded as an Y subtype"
     r"(?:regarded|considered|seen|viewed|thought of|described|recogni[sz]ed|counted|"
     r"treated|listed|coded) as an?(?=\s+X+[\s-]+(?:sub-?types?|forms?|variants?|"
     r"subclass(?:es)?)\b)|"
     r"(?:filed|listed|grouped|placed|classed) under|(?:is|are|was|were) filed as|"
     # "X is filed with the serine deficiency disorders", "X and Y belong with the anaemias"
     r"(?:filed|grouped|classed|classified|belongs?)\s+with(?=\s+(?:the\s+)?X)|"
     r"falls? (?:under|into|within)|(?:members?|subgroups?|subsets?) of)\b",
     frozenset({"subclass_of"}), False),
    # "belongs to" places a term under another without saying whether as a kind or a part
    (r"\bbelongs? to\b", frozenset({"subclass_of", "part_of"}), False),
    # an arrow in notes ("NPHP1 deletions → JBTS4") relates the two, naming no relation
    (r"(?<=\s)(?:→|->|=>)(?=\s)", frozenset(), False),
    # any other passive with its agent ("is driven by Y") relates the two, naming no relation
    (r"\b(?:is|are|was|were)\s+(?:\w+ly\s+)?\w+(?:ed|en)\s+by\b", frozenset(), True),
)  # fmt: skip


def relation_meanings() -> dict[str, str]:
    """Relation name → meaning, as schemas declare relations."""
    return {name: relation.meaning for name, relation in RELATIONS.items()}
