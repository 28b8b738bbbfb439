"""Claim reading: which pairs of mentioned entities a sentence asserts a relation between.

A sentence such as "McLeod syndrome, caused by XK mutations, can present with chorea and
dystonia" asserts three pairs — (McLeod syndrome, XK) by "caused by", (McLeod syndrome,
chorea) and (McLeod syndrome, dystonia) by "present with" — not the consecutive mentions
(XK, chorea), (chorea, dystonia). Reading rules, on the claim's text with the entity names
masked (so "X-linked" is not "linked"):

- **Clauses.** The sentence is cut at ``;``, at conjunctions that start a new statement
  ("but", "whereas", "although", "while", …; ", and Z with W" repeating the verb before),
  after a subordinate clause put first ("Although X is Y, …" ends at its comma) and
  at relative pronouns ("which", "who"). A
  comma-delimited aside opened by a participle or a relative pronoun (", caused by X,") is
  its own clause; it closes at the next comma unless a list of mentions runs on
  (", which presents with dystonia, tremor and brisk reflexes"). An apposition
  (", a dominant ataxia with chorea") restates the mention before it.
- **Predicates.** Every wording of the relation registry
  (:data:`~kgrecall.kg.relations.CLAIM_WORDINGS`) found in a clause, specific wordings first
  where two overlap.
- **Pairs.** A predicate links the coordinated run of mentions just before it in its clause
  (its subject; "PINK1 and PRKN cause…") to the coordinated run just after it (its object;
  "…binds DRD1, DRD3 and DRD5"). A clause without a mention before its predicate takes the
  subject of the clause it hangs on (a relative clause: the mention before "which"; an aside
  or a later clause: the sentence's first mention; a clause after a bracketed gloss: the name
  glossed). A phrase right after its noun ("X due to Y deficiency is classed as Z") leaves the
  noun the verb's subject. Mentions no predicate reaches are paired
  with no relation claimed (a co-mention): in a table row with the row's first cell; else
  with the mention before their list (list items are not related to each other), a list
  that opens the claim with the mention after it; beside asserted pairs, only with each
  other, a single one left alone.
- **Direction.** A passive wording ("is caused by", "is encoded by") or an inverse one
  ("is a symptom of") names the edge's tail first.
- **Negation** counts only inside the clause that holds the pair ("…, although this has not
  been replicated" does not negate the main clause); "lacks" negates too, and so does a denied
  report of what its "that" clause says ("we could not confirm the report that X causes Y").

The reading is heuristic and linear in the sentence's length.
"""

from __future__ import annotations

import itertools
import re
from bisect import bisect_left
from collections.abc import Collection, Sequence
from dataclasses import dataclass

from kgrecall.kg.relations import CLAIM_WORDINGS

__all__ = ["NEGATION", "Assertion", "Spans", "read_assertions"]


@dataclass(frozen=True, slots=True)
class Assertion:
    """A relation a claim asserts between two of its mentions (indices into them).

    ``relations`` is empty when the wording names none (a co-mention); ``inverse`` when the
    wording puts the edge's tail first; ``negated`` when the clause denies it.
    """

    subject: int
    object: int
    relations: frozenset[str] = frozenset()
    inverse: bool = False
    negated: bool = False


NEGATION = re.compile(
    r"\b(not(?!\s+only\b)|no|never|none|neither|nor|cannot|fails? to|failed to|lack of|lacks?|"
    r"rather than|(?:excluded|ruled out) as|"
    r"lacking|absence of|absent|(?<!with or )without|"
    r"(?:is|are|was|were|does|do|did|has|have)n't)\b",
    re.IGNORECASE,
)
_PREDICATES = [(re.compile(p, re.IGNORECASE), r, inverse) for p, r, inverse in CLAIM_WORDINGS]
_PASSIVE_BY = re.compile(
    r"\b(?:is|are|was|were|be|been|being)\s+(?:\w+ly\s+)?\w+(?:ed|en|d)\s+by\b"
    r"|^\w+(?:ed|en)\s+by\b|\b(?:caused|encoded|mediated|bound|regulated|inhibited|"
    r"activated|targeted|treated)\s+by\b",
    re.IGNORECASE,
)
#: Where a new clause starts: the boundary itself is not part of either clause.
_CLAUSE_BREAK = re.compile(
    r";|:\s|\s[–—]\s|\((?=[^)]*\))|\)"
    r"|,?\s+\b(?:but(?!\s+(?:not|also)\b)|whereas|although|though|while|however(?!\s*,)|yet|so|because|"
    r"since)\b"
    r"|,\s+(?:and|or)\s+(?=(?:X+(?:\s*,\s*|\s+(?:and|or)\s+))*(?:[\w'’()-]+\s+){0,3}[\w'’()-]+\s+"
    r"(?:is|are|was|were|may|might|can|could|has|have|had|"
    r"does|do|did|shows?|causes?|presents?|falls?|belongs?|sits?|lies?|results?|remains?)\b)"
    # a gapped clause: ", and [CHCHD10] with [FTD-MND]" repeats the verb of the one before
    r"|,\s+(?:and|or)\s+(?=X+\s+(?:with|to|in|for|as|by)\s+X)",
    re.IGNORECASE,
)
#: An interjection set off by commas, right before the comma that closes it — a connective,
#: or any few words right after a copula ("is, strictly speaking, a manifestation of").
_INTERJECTION = re.compile(
    r",\s*(?:however|therefore|thus|though|indeed|moreover|furthermore|nevertheless|"
    r"in fact|of course|in turn)\s*$"
    r"|\b(?:is|are|was|were)\s*,\s*(?-i:[a-z]+(?:\s+[a-z]+){0,3})\s*$",
    re.IGNORECASE,
)
#: A clause that gives a reason or a concession (its opening word, or the word its cut took):
#: the terms outside the KG it names explain the claim, not more of what it says of its subject.
_REASON_OR_CONCESSION = re.compile(r"[\s,]*(?:because|although|though|while)\b", re.IGNORECASE)
_REASON_OR_CONCESSION_CUT = re.compile(r"\b(?:because|although|though|while)\s*$", re.IGNORECASE)
#: A subordinate clause put first ("Although X is Y, …"): it ends at its first comma.
_FRONTED = re.compile(r"\s*(?:although|though|while|whereas|because|since|unless)\b", re.I)
#: A report, a finding or a belief whose "that" clause says what it holds (a denied one
#: denies it).
_DENIED_REPORT = re.compile(
    r"\b(?:reports?|evidence|claims?|suggestions?|idea|notion|view|findings?|hypothes[ie]s|"
    r"confirm(?:ed)?|show(?:n|ed)?|f(?:i|ou)nd|replicated?|reproduced?|demonstrated?|prov(?:e|en)|"
    r"supports?|believe|think|true)\s+that\s*$",
    re.IGNORECASE,
)
_RELATIVE = re.compile(r",?\s*\b(?:which|who|whom|whose|that)\b", re.IGNORECASE)
#: An aside: ", caused by …," / ", a …," between the subject and its verb.
_ASIDE = re.compile(r",\s+(?:\w+(?:ed|en)\b|an?\b|the\b|also\b|particularly\b|especially\b)")
#: What may stand between the mentions of a cell that lists terms: "stress, alcohol", and
#: words that only grade or time a finding ("early scoliosis", "mild ataxia").
_CELL_GLUE = re.compile(
    r"[\s,;/&]*(?:\b(?:and|or|early|late|mild|moderate|severe|marked|progressive|"
    r"prominent|episodic|intermittent|occasional|frequent|congenital|focal|generali[sz]ed|"
    r"(?:early|late|adult|childhood|juvenile|infantile)-onset)\b[\s,;/&]*)*",
    re.IGNORECASE,
)
#: After a cell's last term: the people it is seen in ("… in 46,XY infants").
_IN_WHOM = re.compile(
    r"\s+in\s+(?:[\w,-]+\s+){0,3}(?:infants?|children|adults?|males?|females?|boys|girls|"
    r"patients|carriers|neonates|newborns|homozygotes|heterozygotes)\s*[.,]?\s*",
    re.IGNORECASE,
)
#: A mention in brackets right after another, or after a few words on it: a gloss of it
#: ("SCA17 (TBP)", "APTX variants (AOA1)").
_GLOSS_OPEN = re.compile(r"(?:\s+[\w-]+){0,3}\s*\(\s*")
_GLOSS_CLOSE = re.compile(r"\s*\)")
#: After an object list: its items go one each with the subjects'.
_RESPECTIVELY = re.compile(r"\W*respectively\b", re.IGNORECASE)
#: An aside that restates the mention before it: ", a dominant ataxia with chorea".
_APPOSITION = re.compile(r",\s+(?:an?|the)\b")
#: A second verb phrase sharing the first one's subject: "… caused by Y and features Z".
_COORDINATED_VERB = re.compile(
    r"(?:\s+[\w-]+)?"
    r"\s*,?\s+(?:and|but|or)\b(?:\s+(?:also|often|typically|usually|may|might|can|could|"
    r"is|are|was|were|\w+ly))*\s*",
    re.IGNORECASE,
)
#: The rest of a list of (masked) mentions after a comma: "…, XXXXXX and XXXX XXXX."
_LIST_TAIL = re.compile(r",\s*X+(?:\s*,\s*X+)*\s*,?\s+(?:and|or|and/or)\s+X+\s*(?:[,;:.!?]|$)")
#: Text allowed between two mentions of one coordinated run.
_JOINER = re.compile(
    # "… with chorea, sometimes with palatal tremor": the list goes on
    r"\s*(?:,\s*(?:and\s+)?(?:sometimes|occasionally|often|usually|typically|rarely|also|even)"
    r"\s+with\b|,|,?\s*\b(?:(?:and|or) as(?:\s+(?:an?|the))?|and|or|and/or|as well as|plus|"
    r"rather than(?:\s+(?:as|under|in|with|to|by|for|of))?(?:\s+(?:an?|the))?|"
    r"and not(?:\s+as)?(?:\s+(?:an?|the))?|but (?:not|also)(?:\s+(?:to|in|with|by|"
    r"for|of))?)\b"
    r"|/|&)?\s*"
    r"(?:\b(?:both|either)\s+)?",
    re.IGNORECASE,
)


#: Before a term outside the KG: it is what an experiment was done with, in or after, not a
#: claim's topic ("was quantified … after CCCP", "was confirmed in HEK293 cells").
_EXPERIMENTAL_MATERIAL = re.compile(
    r"\b(?:was|were|been|being)\s+(?:\w+ly\s+)?(?:quantified|measured|assessed|confirmed|"
    r"detected|visuali[sz]ed|tracked|monitored|triggered|induced|imaged|labell?ed|stained|"
    r"validated|replicated|reproduced|verified|tested|examined|evaluated|performed|done|"
    r"blocked|rescued|silenced|knocked\s+down)\b[^.;:]{0,60}?"
    r"\b(?:with|by|in|after|using|upon|via|following)\s+(?:(?:the|a|an)\s+)?(?:\S+-)?$",
    re.IGNORECASE,
)
#: After a term outside the KG: it is a sample taken from patients ("fibroblasts from PARK6
#: patients", "cells derived from two families with …").
_SAMPLE_SOURCE = re.compile(
    r"\s+(?:(?:derived|taken|obtained|isolated)\s+)?from\s+(?:\S+\s+){0,3}?(?:patients?|"
    r"famil(?:y|ies)|carriers?|individuals?|donors?|probands?|cases?|subjects?)\b",
    re.IGNORECASE,
)
#: After a feature in a table cell: the row denies it ("| inability to walk is not reported |").
_DENIED_FEATURE = re.compile(
    r"\s+(?:is|are)\s+(?:not|never|rarely)\s+(?:reported|seen|observed|described|documented|"
    r"present|a\s+feature|typical|expected)\b",
    re.IGNORECASE,
)
#: A claim's end that denies it of one more subject: ", but SPATA7 is not."
_ELLIPTICAL_DENIAL = re.compile(
    r",?\s+but\s+(?P<who>X+)\s+(?:is|are|was|were|does|do|did|has|have|can)\s*(?:not|n['’]t)"
    r"\s*[.;]?\s*$",
    re.IGNORECASE,
)
#: How far before a mention :data:`_EXPERIMENTAL_MATERIAL` looks.
_EXPERIMENT_WINDOW = 120

#: A joiner that makes a list: "and", "or", "/", "&", "plus", "as well as".
_CONJUNCTION = re.compile(r"\b(?:and|or|plus|as well as|but not)\b|[/&]", re.IGNORECASE)

#: After a list's last mention: more items follow ("…, epilepsy and progressive decline").
_LIST_GOES_ON = re.compile(r"\s*,?\s+(?:and|or)\b", re.IGNORECASE)

#: Between two mentions, says they are not related: "HSPB1 gives CMT2F, while GARS gives
#: CMT2D", "myoclonic tremor, often misdiagnosed as essential tremor" ("A but not B" goes on
#: about the same subject).
_CONTRAST = re.compile(
    r"\b(?:but(?!\s+(?:not|also)\b)|whereas|while|although|though|unlike|in contrast|misdiagnos\w*|"
    r"mistaken for|masquerad\w* as|"
    r"confused with|distinguish\w*|differential)\b",
    re.IGNORECASE,
)

#: A wording that, right after a mention, modifies it rather than being the clause's verb.
_POSTMODIFIER = re.compile(
    r"(?:caused by|due to|owing to|secondary to|resulting from)(?: mutations? in)?", re.I
)

#: Relations a regulation wording claims, and the endings of its words that are no finite
#: verb: a participle ("increasing severity in BBS1 families": an effect), an agent noun or
#: an action noun ("the transcriptional regulators CIITA", "regulation").
_REGULATION = frozenset(
    {"regulates", "positively_regulates", "negatively_regulates", "activates", "inhibits"}
)
_NOT_FINITE = re.compile(r"(?:ing|ors?|ions?|ory)$", re.IGNORECASE)

#: Relations said of a list of mentions with no object ("A and B interact").
_MUTUAL = frozenset({"interacts_with"})
#: Longest coordinated run of subjects or objects one predicate takes ("binds A, B and C").
MAX_RUN = 32

#: A mention's rank in a hierarchy, said right after it: "X is the broad category, and Y is
#: one of its subtypes", "X is the narrower term and Y is its parent".
_RANK = (
    r"(?:\s*,[^,]{1,30},)?\s*,?\s*(?:(?:is|are|was|were)\s+(?:\w+\s+){0,2}?(?:presented|regarded|"
    r"considered|treated|seen|described|listed|classed|classified|taken)\s+as|is|are|was|were|"
    r"represents?|serves? as|as)\s+(?:(?:the|a|an|its|one of its)\s+)?"
)
_PARENT_RANK = re.compile(
    _RANK + r"(?:(?:broad(?:er)?|general|umbrella|overarching|wider|higher-level|parent)\s+"
    r"(?:category|term|class|group|heading|concept|label|node)|parent|superclass|ancestor)"
    r"\b(?!\s+(?:of|for|to)\b)",
    re.IGNORECASE,
)
#: A child's place told after a parent's rank: "… under which Y sits", "… into which Y falls".
_SITS = re.compile(r"\s*(?:sits?|falls?|belongs?|fits?)\b", re.IGNORECASE)
_CHILD_RANK = re.compile(
    _RANK + r"(?:(?:narrower|more specific|specific|child|sub)\s*"
    r"(?:category|term|class|group|concept|label|node)|sub-?types?|child(?:ren)?|"
    r"subclass(?:es)?|special cases?|kinds?)\b(?!\s+(?:of|for|to)\b)",
    re.IGNORECASE,
)


@dataclass(frozen=True, slots=True)
class _Clause:
    start: int
    end: int
    #: "relative": hangs on the mention before it; "apposition" (", a dominant ataxia
    #: with …,") restates it; "aside"/"later": on the sentence subject.
    kind: str
    #: where the clause's first negation word ends (``None``: it has none); found once per
    #: clause, so asking for each of a sentence's pairs stays linear
    negation_end: int | None


def read_assertions(
    text: str,
    spans: Sequence[tuple[int, int]],
    weak: Collection[int] = (),
    entities: Sequence[str] = (),
    places: Collection[int] = (),
    procedures: Collection[int] = (),
) -> list[Assertion]:
    """The assertions of one claim; ``text`` should have its mentions masked and ``spans``
    are the mentions' ``(start, end)`` in it: disjoint, in order. ``weak`` mentions (terms
    recognised by vocabulary, not KG names: a drug, a body part) take part only in pairs a
    predicate asserts, not in co-mentions beside them — unless one opens the claim (its
    subject), fills a table cell (each cell describes the first) or no predicate asserts
    anything (then every mention is a co-mention). ``entities`` (one per span, optional)
    tells a gloss naming another entity ("SCA17 (TBP)") from an abbreviation ("(CoPAN)").
    ``places`` (weak mentions of body parts and cells) are where a claim happens, not what it
    goes on to say something about; ``procedures`` (tests and procedures) how something was
    found, in no pair at all."""
    if len(spans) < 2:
        return []
    ranked = _ranked_pair(text, spans)
    if ranked is not None:
        return [ranked]
    starts = [start for start, _ in spans]
    clauses = _clauses(text)
    found: list[Assertion] = []
    seen: set[tuple[int, int, frozenset[str]]] = set()
    covered: set[int] = set()
    for clause in clauses:
        first, stop = bisect_left(starts, clause.start), bisect_left(starts, clause.end)
        inside = range(first, stop)
        previous: tuple[list[int], list[int]] | None = None  # (subjects, objects)
        previous_modifier = False
        wordings = _predicates(text, clause, spans, inside)
        for number, (start, end, relations, inverse) in enumerate(wordings):
            after = bisect_left(starts, end, first, stop)
            objects = _run(text, spans, range(after, stop), step=1)
            if number + 1 < len(wordings):
                # "X causes A and Y causes B": Y opens the next wording, no object of this one
                objects = _before_next_subject(text, spans, objects, wordings[number + 1][0])
            subjects = _run(text, spans, range(after - 1, first - 1, -1), step=-1)
            if previous and set(subjects) > set(previous[1]):
                # … and the next wording's subjects stop at this one's objects
                subjects = [index for index in subjects if index not in previous[1]]
            if not objects and relations & _MUTUAL and len(subjects) > 1:
                # "A and B are not known to interact": the first with each of the others
                subjects, objects = subjects[:1], subjects[1:]
            if not objects:
                continue
            if (
                previous
                and subjects == previous[1]
                and _COORDINATED_VERB.fullmatch(text, spans[subjects[-1]][1], start)
            ):
                subjects = previous[0]  # "X is caused by Y and features Z": X features Z
            elif (
                subjects
                and subjects[0] > first
                and _COORDINATED_VERB.fullmatch(text, spans[subjects[-1]][1], start)
            ):  # "X accumulates on Y and recruits Z": the clause's subject recruits Z
                subjects = _run(text, spans, range(first, stop), step=1)
            elif (
                previous
                and subjects == previous[1]
                and previous_modifier
                and "," not in text[spans[subjects[-1]][1] : start]
            ):  # "X due to Y deficiency is classed as Z": the noun phrase's head, X, is
                subjects = previous[0]  # what is classed
            if not subjects or (clause.kind == "apposition" and subjects[0] == first > 0):
                # an apposition's head noun is the mention it restates: "SCA48, a dominant
                # ataxia with chorea" says SCA48 has chorea
                covered.update(subjects)
                subjects = _governor(text, spans, clause, first)
            previous = (subjects, objects)
            # "X due to Y", "X caused by Y": a phrase after its noun, not the clause's verb
            previous_modifier = bool(
                subjects
                and _POSTMODIFIER.fullmatch(text, start, end)
                and not text[spans[subjects[-1]][1] : start].strip()
            )
            # the voice is read between the predicate's own subject side and its object
            before = bisect_left(starts, start) - 1
            since = max(clause.start, spans[before][1] if before >= 0 else 0)
            # a wording with its own "by" ("characterised by") is active: it names the tail
            passive = not text[start:end].lower().endswith("by") and _PASSIVE_BY.search(
                text, since, spans[objects[0]][0]
            )
            if len(subjects) == len(objects) > 1 and _RESPECTIVELY.match(
                text, spans[objects[-1]][1], clause.end
            ):  # "ATG5 and ATG7 cause SCAR25 and SCAR31 respectively": one each
                pairs = list(zip(subjects, objects, strict=True))
            else:
                pairs = [(subject, obj) for subject in subjects for obj in objects]
            for subject, obj in pairs:
                if subject != obj and (subject, obj, relations) not in seen:
                    seen.add((subject, obj, relations))
                    # each object's own: "linked to A and B but not to C" denies C only
                    negated = _negated(clause, max(spans[obj][1], end))
                    found.append(
                        Assertion(subject, obj, relations, inverse != bool(passive), negated)
                    )
                    covered.update((subject, obj))
    # Mentions no predicate reaches: a co-mention with the neighbour before (else after).
    ends = [clause.end for clause in clauses]
    # a weak mention that opens the claim is its subject: it must not be dropped ("Levodopa
    # improves X in Y" is about levodopa, not about X and Y)
    row = "|" in text
    # a table row's cells each describe its first cell, a term outside the KG included when
    # it is what its cell holds ("| stress, alcohol |"), not a word of a description
    filled = _filling_cells(text, spans) if row else set()
    if row:  # so is a feature listed after a semicolon ("severe course; polyhydramnios"), but
        # not a variant there: it tells which allele of the row's gene, not a feature
        filled |= {
            index
            for index in _filling_cells(text, spans, "|;")
            if not (index < len(entities) and entities[index].startswith("variant:"))
        }
    # a sentence that asserts nothing is a co-mention of all it names, terms outside the KG
    # included ("reduced reflexes at the ankles and a postural tremor")
    strong = [
        index
        for index in range(len(spans))
        if index not in weak or index == 0 or index in filled or not (covered or row)
    ]
    if covered and not row:
        # beside asserted pairs, the mentions left over pair only with each other ("X is
        # associated with Y, and Z with W": Z–W, not Y–Z); one left alone is an aside
        strong = [index for index in strong if index not in covered]
        # a term outside the KG that the sentence goes on to say something about ("…, and the
        # ΔGAG deletion accounts for most cases") is part of the claim about its subject
        for index in sorted(weak):
            if index in covered or index in places or index == 0 or (0, index, frozenset()) in seen:
                continue
            clause = clauses[min(bisect_left(ends, spans[index][1]), len(clauses) - 1)]
            if clause.kind == "apposition":
                continue  # a word describing a name ("Vici syndrome, a disorder of …")
            if _REASON_OR_CONCESSION.match(text, clause.start) or _REASON_OR_CONCESSION_CUT.search(
                text, max(0, clause.start - 12), clause.start
            ):
                continue  # why, or despite what: "…, because the transporter carries serine"
            seen.add((0, index, frozenset()))
            found.append(Assertion(0, index, negated=_negated(clause, spans[index][1])))
    partners: dict[int, int] = {}
    # beside asserted pairs, a list left over is said of the claim's subject ("X is a
    # subclass of Y, and it depends on A and B"): its items are not related to each other
    claim_subject = 0 if covered and not row and 0 not in strong else None
    for side in [strong] if row else _contrasted(text, spans, strong):
        partners.update(_co_mention_partners(text, spans, side, row, claim_subject, entities))
    for index in strong:
        if index in covered or index not in partners:
            continue
        first, second = sorted((index, partners[index]))
        if (first, second, frozenset()) in seen:
            continue
        seen.add((first, second, frozenset()))
        clause = clauses[min(bisect_left(ends, spans[second][1]), len(clauses) - 1)]
        negated = _negated(clause, spans[second][1]) or (
            row and bool(_DENIED_FEATURE.match(text, spans[second][1]))
        )
        found.append(Assertion(first, second, negated=negated))
    found += _elliptical_denials(text, spans, found)
    # a reagent or a cell line the claim was tested with, or a sample, is no part of it; nor
    # is a test or a procedure: how something was found, not what was found ("… were
    # assessed by TIRF microscopy")
    material = {
        index
        for index in weak
        if index in procedures
        or _SAMPLE_SOURCE.match(text, spans[index][1])
        or (
            index
            and _EXPERIMENTAL_MATERIAL.search(
                text, max(0, spans[index][0] - _EXPERIMENT_WINDOW), spans[index][0]
            )
        )
    }
    return [a for a in found if a.subject not in material and a.object not in material]


def _elliptical_denials(
    text: str, spans: Sequence[tuple[int, int]], found: Sequence[Assertion]
) -> list[Assertion]:
    """ "A and B are linked to Y, but C is not": C is denied what the claim said of its
    subjects, with the same relation and object."""
    match = _ELLIPTICAL_DENIAL.search(text)
    if match is None:
        return []
    denied = next((i for i, (start, _) in enumerate(spans) if start == match.start("who")), None)
    said = [a for a in found if a.relations and not a.negated and a.subject != denied]
    if denied is None or not said or any(a.subject == denied for a in found):
        return []
    last = said[-1]
    objects = dict.fromkeys(
        a.object for a in said if a.relations == last.relations and a.object != denied
    )
    return [Assertion(denied, obj, last.relations, last.inverse, negated=True) for obj in objects]


def _ranked_pair(text: str, spans: Sequence[tuple[int, int]]) -> Assertion | None:
    """A claim of two mentions that each take a rank in a hierarchy ("X is the broad
    category, and Y is one of its subtypes"): the narrower one is a subclass of the other."""
    if len(spans) != 2:
        return None
    ranks = []
    for (_, end), until in ((spans[0], spans[1][0]), (spans[1], len(text))):
        if _PARENT_RANK.match(text, end, until):
            ranks.append("parent")
        elif _CHILD_RANK.match(text, end, until) or (
            # "X is the umbrella term under which Y sits"
            ranks == ["parent"] and _SITS.match(text, end, until)
        ):
            ranks.append("child")
        else:
            return None
    if ranks[0] == ranks[1]:
        return None
    child, parent = (0, 1) if ranks[0] == "child" else (1, 0)
    negated = NEGATION.search(text) is not None
    return Assertion(child, parent, frozenset({"subclass_of"}), negated=negated)


def _filling_cells(text: str, spans: Sequence[tuple[int, int]], bounds: str = "|") -> set[int]:
    """The mentions of a table row whose cell (or part of a cell: the characters in ``bounds``
    end one) holds only mentions and joiners (one pass)."""
    pipes = [position for position, character in enumerate(text) if character in bounds]
    cells: dict[int, list[int]] = {}
    for index, (start, _) in enumerate(spans):
        cells.setdefault(bisect_left(pipes, start), []).append(index)
    filled: set[int] = set()
    for cell, members in cells.items():
        left = pipes[cell - 1] + 1 if cell > 0 else 0
        right = pipes[cell] if cell < len(pipes) else len(text)
        ends = [left] + [spans[i][1] for i in members]
        starts = [spans[i][0] for i in members] + [right]
        gaps = list(zip(ends, starts, strict=True))
        # the last term may say in whom it is seen: "ambiguous genitalia in 46,XY infants"
        if all(_CELL_GLUE.fullmatch(text, a, b) for a, b in gaps[:-1]) and (
            _CELL_GLUE.fullmatch(text, *gaps[-1]) or _IN_WHOM.fullmatch(text, *gaps[-1])
        ):
            filled.update(members)
    return filled


def _contrasted(text: str, spans: Sequence[tuple[int, int]], indices: list[int]) -> list[list[int]]:
    """``indices`` (mentions in order) cut where a contrast or a differential diagnosis stands
    between two of them: the sides are not said to be related."""
    sides = [indices[:1]]
    for before, after in itertools.pairwise(indices):
        if _CONTRAST.search(text, spans[before][1], spans[after][0]):
            sides.append([])
        sides[-1].append(after)
    return sides


def _co_mention_partners(
    text: str,
    spans: Sequence[tuple[int, int]],
    strong: list[int],
    row: bool,
    subject: int | None = None,
    entities: Sequence[str] = (),
) -> dict[int, int]:
    """The mention each of ``strong`` (mentions no predicate reaches, in order) is paired
    with: in a table row the row's first cell (the others describe it); else the mention just
    before the coordinated run it belongs to — list items are not said to be related to each
    other ("PMEs combine myoclonus, epilepsy and …": PMEs–epilepsy, not myoclonus–epilepsy) —
    and for a run that opens the claim the mention just after it ("FAME6 and FAME7 show
    myoclonic tremor"); a claim that is one list pairs its neighbours, or each item with
    ``subject`` when given."""
    if len(strong) < 2:
        return {}
    if row:
        return {index: strong[0] for index in strong[1:]}
    # "HDL2 (JPH3), SCA17 (TBP) and HDL1 (PRNP)": each gloss naming another entity goes with
    # the name it follows; items glossed one by one are parallel, not related to each other
    glosses = {
        after: before
        for before, after in itertools.pairwise(strong)
        if _GLOSS_OPEN.fullmatch(text, spans[before][1], spans[after][0])
        and _GLOSS_CLOSE.match(text, spans[after][1])
        and len(entities) == len(spans)
        and entities[before] != entities[after]
    }
    if len(glosses) > 1:
        return glosses
    run_start = list(range(len(strong)))
    position = 0
    while position < len(strong):
        end, conjoined = position, False
        while end + 1 < len(strong):
            between = text[spans[strong[end]][1] : spans[strong[end + 1]][0]]
            if not _JOINER.fullmatch(between):
                break
            conjoined |= _CONJUNCTION.search(between) is not None
            end += 1
        # "A, B" alone is an aside or a clause break, not a list; "A, B and <a term>" is one
        conjoined |= end > position and _LIST_GOES_ON.match(text, spans[strong[end]][1]) is not None
        if conjoined:
            run_start[position : end + 1] = [position] * (end + 1 - position)
        position = end + 1
    if run_start[-1] == 0:  # one list: neighbours, or each item with the subject
        if subject is not None:
            return dict.fromkeys(strong, subject)
        return {strong[p]: strong[p - 1] for p in range(1, len(strong))}
    partners: dict[int, int] = {}
    for position, index in enumerate(strong):
        start = run_start[position]
        if start > 0:
            partners[index] = strong[start - 1]
        else:
            after = next(p for p in range(position + 1, len(strong)) if run_start[p] != 0)
            partners[index] = strong[after]
    return partners


def _clauses(text: str) -> list[_Clause]:
    """The sentence cut into clauses (see the module docstring)."""
    cuts: list[tuple[int, int, str]] = []
    if _FRONTED.match(text) and (comma := text.find(",")) > 0:
        cuts.append((comma, comma + 1, "later"))
    for match in _CLAUSE_BREAK.finditer(text):
        cuts.append((match.start(), match.end(), "later"))
    for match in _RELATIVE.finditer(text):
        cuts.append((match.start(), match.end(), "relative"))
        if match.group(0).startswith(","):  # ", which …," ends at the next comma
            _close(text, match.end(), cuts)
    for match in _ASIDE.finditer(text):
        if _INTERJECTION.search(text, 0, match.start()):
            continue  # "X is not, however, classed as Y": the comma closes an interjection
        kind = "apposition" if _APPOSITION.match(text, match.start()) else "aside"
        cuts.append((match.start(), match.start() + 1, kind))
        _close(text, match.end(), cuts)
    # where an aside closes at ", which", the relative clause begins there: its kind wins
    cuts.sort(key=lambda cut: (cut[0], cut[2] != "relative", cut[1]))
    clauses: list[_Clause] = []
    position, kind = 0, "main"
    for start, end, following in cuts:
        if start < position:
            continue
        clauses.append(_clause(text, position, start, kind, clauses))
        position, kind = end, following
    clauses.append(_clause(text, position, len(text), kind, clauses))
    return clauses


def _clause(text: str, start: int, end: int, kind: str, before: Sequence[_Clause]) -> _Clause:
    negation = NEGATION.search(text, start, end)
    # what a denied report or finding says is denied: "we could not confirm the report that
    # X causes Y", "there is no evidence that …"
    if (
        negation is None
        and kind == "relative"
        and before
        and before[-1].negation_end
        and _DENIED_REPORT.search(text[before[-1].start : start])
    ):
        return _Clause(start, end, kind, start)
    return _Clause(start, end, kind, negation.end() if negation else None)


def _close(text: str, start: int, cuts: list[tuple[int, int, str]]) -> None:
    """End a comma-opened aside at the next comma: what follows is a later clause — unless it
    goes on listing ("…, which presents with dystonia, tremor and brisk reflexes")."""
    closing = text.find(",", start)
    if closing > 0 and not _LIST_TAIL.match(text, closing):
        cuts.append((closing, closing + 1, "later"))


def _predicates(
    text: str, clause: _Clause, spans: Sequence[tuple[int, int]], inside: range
) -> list[tuple[int, int, frozenset[str], bool]]:
    """Relation wordings in a clause, left to right; an earlier registry entry wins where two
    overlap, and none counts inside a (masked) name."""
    masked = Spans()
    masked.add_sorted([spans[i] for i in inside])
    taken = Spans()
    found: list[tuple[int, int, frozenset[str], bool]] = []
    for pattern, relations, inverse in _PREDICATES:
        added = []
        for match in pattern.finditer(text, clause.start, clause.end):
            if taken.overlaps(*match.span()) or masked.overlaps(match.start(), match.start() + 1):
                continue
            added.append(match.span())
            # "increasing severity in X", "the transcriptional regulators CIITA": a word of
            # regulation that is no finite verb claims no regulation
            loose = relations & _REGULATION and _NOT_FINITE.search(match.group(0))
            found.append((*match.span(), frozenset() if loose else relations, inverse))
        taken.add_sorted(sorted(added))
    return sorted(found)


#: What may stand between a clause's subject and its verb: adverbs and auxiliaries.
_BEFORE_VERB = re.compile(
    r"\s*(?:(?:also|often|typically|usually|mainly|mostly|may|might|can|could|is|are|was|"
    r"were|has|have|had|been|\w+ly)\s+)*"
)


def _before_next_subject(
    text: str, spans: Sequence[tuple[int, int]], objects: list[int], next_wording: int
) -> list[int]:
    """``objects`` up to (not including) one that the next wording follows right after, with
    only adverbs or auxiliaries between: that mention is the next wording's subject ("X
    causes A and Y causes B"); the first object always stays."""
    for position, index in enumerate(objects[1:], start=1):
        if spans[index][1] <= next_wording and _BEFORE_VERB.fullmatch(
            text, spans[index][1], next_wording
        ):
            return objects[:position]
    return objects


def _run(text: str, spans: Sequence[tuple[int, int]], candidates: range, *, step: int) -> list[int]:
    """The coordinated run of mentions nearest a predicate: from the first candidate on
    (objects, ``step`` 1) or back from it (subjects, ``step`` -1), while only a joiner
    separates them; at most ``MAX_RUN`` long. A mention that ends a fronted phrase of place
    or time ("In the extrasynaptic sarcolemma, X binds Y") is no list item of the next."""
    run: list[int] = []
    for index in candidates:
        if run:
            left, right = sorted((run[-1], index))
            if (
                len(run) == MAX_RUN
                or not _JOINER.fullmatch(text, spans[left][1], spans[right][0])
                or (
                    _FRONTED_PHRASE.fullmatch(text, 0, spans[left][0])
                    and text[spans[left][1] : spans[right][0]].strip() == ","
                )
            ):
                break
        run.append(index)
    return sorted(run)


#: The opening of a sentence's fronted phrase of place or time, up to a mention in it.
_FRONTED_PHRASE = re.compile(
    r"\s*(?:in|at|on|within|inside|throughout|across|among|during|after|before)\b[^,;:]*",
    re.IGNORECASE,
)


#: A clause's start right after a bracketed gloss closed: "… (VP)|, due to PPOX".
_AFTER_GLOSS = re.compile(r"\(\s*X+\s*\)?\s*$")


def _governor(
    text: str, spans: Sequence[tuple[int, int]], clause: _Clause, first: int
) -> list[int]:
    """The subject of a clause with none of its own (``first``: its first mention's index):
    for a relative clause, or a clause that goes on after a bracketed gloss, the mention
    just before it, else the sentence's first run."""
    if first == 0:
        return []
    if clause.kind in ("relative", "apposition"):
        return [first - 1]
    if _AFTER_GLOSS.search(text, 0, clause.start) and text.startswith(",", clause.start):
        # "… and variegate porphyria (VP), due to PPOX, …": the name the brackets gloss
        return [first - 1]
    return _run(text, spans, range(first), step=1)


class Spans:
    """Disjoint character spans, sorted: an overlap check is one binary search."""

    def __init__(self) -> None:
        self._starts: list[int] = []
        self._ends: list[int] = []

    def overlaps(self, start: int, end: int) -> bool:
        """Whether ``[start, end)`` overlaps a span held. Only the last span starting before
        ``end`` can: the spans are disjoint, so every earlier one also ends before it."""
        before = bisect_left(self._starts, end) - 1
        return before >= 0 and self._ends[before] > start

    def add_sorted(self, spans: list[tuple[int, int]]) -> None:
        """Add disjoint spans, sorted and disjoint from those held (a linear merge: sorting
        two sorted runs is linear)."""
        if spans:
            merged = sorted([*zip(self._starts, self._ends, strict=True), *spans])
            self._starts = [start for start, _ in merged]
            self._ends = [end for _, end in merged]


def _negated(clause: _Clause, until: int) -> bool:
    """Whether the clause denies what it says up to ``until`` (its first negation word ends
    by then: any later one ends later still)."""
    return clause.negation_end is not None and clause.negation_end <= until
