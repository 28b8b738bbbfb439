"""The offline planner on the demo KG: topologies, directions, anchors, ambiguity, errors."""

from __future__ import annotations

import contextlib
import re

import pytest

from kgrecall.agents import PlanningError, QueryService
from kgrecall.agents import planner as planner_module
from kgrecall.agents.planner import NegatedQuestionError
from kgrecall.agents.synthesis import template_report
from kgrecall.kg import KGError
from kgrecall.tools import execute_sets, parse_query, topology

PD4, PD11, SNCA, DYSTONIA = "OMIM:605543", "OMIM:607688", "NCBIGene:6622", "HP:0001332"
#: What a hop that keeps only diseases (genes) says it keeps.
DISEASES, GENES = ("disease",), ("gene",)


def project(
    relation: str, inner: dict[str, object], inverse: bool = False, types: tuple[str, ...] = ()
) -> dict[str, object]:
    """A hop as ``model_dump`` gives it (``types``: the node types it keeps, when any)."""
    kept = {"types": types} if types else {}
    return {"op": "project", "relation": relation, "inverse": inverse, **kept, "input": inner}


def entity(identifier: str) -> dict[str, object]:
    return {"op": "entity", "id": identifier}


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        (
            "Which genes are associated with Parkinson disease 4?",
            project("associated_with", entity(PD4), inverse=True),
        ),
        ("What phenotypes does Parkinson disease 4 have?", project("has_phenotype", entity(PD4))),
        ("Which diseases is SNCA associated with?", project("associated_with", entity(SNCA))),
        (
            "Which phenotypes do diseases associated with SNCA have?",
            project("has_phenotype", project("associated_with", entity(SNCA))),
        ),
        (
            "phenotypes of diseases associated with SNCA",
            project("has_phenotype", project("associated_with", entity(SNCA))),
        ),
        (
            "List genes associated with both Parkinson disease 4 and Parkinson disease 11",
            {
                "op": "intersect",
                "inputs": [
                    project("associated_with", entity(PD4), inverse=True),
                    project("associated_with", entity(PD11), inverse=True),
                ],
            },
        ),
        (
            "genes associated with either Parkinson disease 4 or Parkinson disease 11",
            {
                "op": "union",
                "inputs": [
                    project("associated_with", entity(PD4), inverse=True),
                    project("associated_with", entity(PD11), inverse=True),
                ],
            },
        ),
        (
            "Which genes are associated with Parkinson disease 4 and have the phenotype Dystonia?",
            {
                "op": "intersect",
                "inputs": [
                    project("associated_with", entity(PD4), inverse=True),
                    project("has_phenotype", entity(DYSTONIA), inverse=True),
                ],
            },
        ),
    ],
)
def test_questions_become_query_trees(
    service: QueryService, question: str, expected: dict[str, object]
) -> None:
    plan = service.resources("demo").planner.plan(question)
    assert plan.query.model_dump() == expected
    assert plan.topology == topology(parse_query(expected))
    assert not plan.ambiguous and all(a.score > 0.5 for a in plan.anchors)


GDNF, RET, DJ1 = "uniprot:P39905", "uniprot:P07949", "NCBIGene:11315"


@pytest.mark.parametrize(
    ("question", "expected", "method"),
    [
        # anchor first: the question word after the anchor
        (
            "Parkinson disease 4 is linked to which genes?",
            project("associated_with", entity(PD4), inverse=True),
            "lexicon",
        ),
        # possessive or bare "X phenotypes": the one relation joining the two types
        ("SNCA's diseases?", project("associated_with", entity(SNCA)), "signature"),
        ("DJ-1 phenotypes", project("has_phenotype", entity(DJ1)), "signature"),
        # the wording's relation cannot join gene and phenotype; the one that can is meant
        (
            "Which phenotypes are associated with SNCA?",
            project("has_phenotype", entity(SNCA)),
            "signature",
        ),
        # ligands are the heads of ligand → receptor edges, receptors the tails
        ("Which receptors does GDNF bind?", project("interacts_with", entity(GDNF)), "lexicon"),
        ("What ligands bind RET?", project("interacts_with", entity(RET), inverse=True), "lexicon"),
        # no role word: binding is mutual; the way most of the protein's edges go says whether
        # it is asked about as a ligand (netrin-1: 9 out, 0 in) or a receptor (SORL1: 1 / 7)
        (
            "What does netrin-1 bind?",
            project("interacts_with", entity("uniprot:O95631")),
            "lexicon",
        ),
        (
            "Which proteins does SORL1 bind?",
            project("interacts_with", entity("uniprot:Q92673"), inverse=True),
            "lexicon",
        ),
        (
            "What does the APP gene's product bind?",
            project("interacts_with", entity("uniprot:P05067")),
            "lexicon",
        ),
        # "the product of X" is X's protein, so the clause around it keeps its relation; the
        # products of several genes are each one's (one product each: never an intersection)
        (
            "Which proteins interact with the product of APP?",
            project("interacts_with", project("encodes", entity("NCBIGene:351"))),
            "lexicon",
        ),
        (
            "What are the products of APP and PSEN1?",
            {
                "op": "union",
                "inputs": [
                    project("encodes", entity("NCBIGene:351")),
                    project("encodes", entity("NCBIGene:5663")),
                ],
            },
            "lexicon",
        ),
        # an object relative without "that": "the proteins SHH binds"
        (
            "Which genes code for the proteins SHH binds?",
            project("encodes", project("interacts_with", entity("uniprot:Q15465")), inverse=True),
            "lexicon",
        ),
        # a kind word of the entity's own type after it names the members (its subtypes)
        (
            "Which genes are associated with the hereditary spastic paraplegia disorders?",
            project(
                "associated_with",
                project("subclass_of", entity("MONDO:0019064"), inverse=True),
                inverse=True,
            ),
            "lexicon+signature",
        ),
        # "coding for" is a relation phrase, not a misspelt "encoding"
        (
            "Phenotypes of the genes coding for SHH-binding receptors?",
            project(
                "has_phenotype",
                project(
                    "encodes", project("interacts_with", entity("uniprot:Q15465")), inverse=True
                ),
            ),
            "lexicon",
        ),
        # a place in the hierarchy: below a term are its subtypes, above it its parents
        (
            "Which terms are directly below autophagy?",
            project("subclass_of", entity("GO:0006914"), inverse=True),
            "lexicon",
        ),
        (
            "What sits above mitophagy in GO?",
            project("subclass_of", entity("GO:0000423")),
            "lexicon",
        ),
        # broader / narrower terms as relation nouns, the noun's relation said again after it
        (
            "Which broader terms does mitophagy have?",
            project("subclass_of", entity("GO:0000423")),
            "lexicon",
        ),
        (
            "What are the more specific terms under autophagy?",
            project("subclass_of", entity("GO:0006914"), inverse=True),
            "lexicon",
        ),
        # "with" after a relation noun's compound: the members that have it ("the Parkinson
        # disease subtypes with tremor"), the answer type taken from the clause before it
        (
            "Which genes are associated with the Parkinson disease subtypes with tremor?",
            project(
                "associated_with",
                {
                    "op": "intersect",
                    "inputs": [
                        project("subclass_of", entity("MONDO:0005180"), inverse=True),
                        project("has_phenotype", entity("HP:0001337"), inverse=True),
                    ],
                },
                inverse=True,
            ),
            "lexicon+signature",
        ),
        # the KG (or the ontology) as the question's context is no part of the question
        (
            "What kinds of autophagy does the Gene Ontology distinguish?",
            project("subclass_of", entity("GO:0006914"), inverse=True),
            "lexicon",
        ),
        # the wording of a relation the demo KG lacks ("targets"): the one joining the types
        (
            "Which receptors are targeted by GDNF?",
            project("interacts_with", entity(GDNF)),
            "signature",
        ),
        # the perfect tense around the subject; a descriptor noun after a gene symbol
        (
            "What diseases has SNCA kinase been implicated in?",
            project("associated_with", entity(SNCA)),
            "lexicon",
        ),
        (
            "Which genes have been linked to diseases that have been associated with SNCA?",
            project("associated_with", project("associated_with", entity(SNCA)), inverse=True),
            "lexicon",
        ),
        # a topic, a dash, then the question with its auxiliary
        (
            "Juvenile Huntington disease - what is the gene?",
            project("associated_with", entity("ORPHA:248111"), inverse=True),
            "signature",
        ),
        # a possessive ligand / receptor word: the protein's partners, not what its gene encodes
        ("What is GDNF's receptor?", project("interacts_with", entity(GDNF)), "signature"),
        # relation wordings of the registry beyond "associated with" / "subtypes of"
        (
            "genes mutated in Parkinson disease 4",
            project("associated_with", entity(PD4), inverse=True),
            "lexicon",
        ),
        (
            "Which phenotypes are more specific than dystonia?",
            project("subclass_of", entity("HP:0001332"), inverse=True),
            "lexicon",
        ),
        (
            "What are the parent terms of dystonia?",
            project("subclass_of", entity("HP:0001332")),
            "lexicon",
        ),
        # a chain through the gene; words around a name ("the … gene") leave the entity
        (
            "Which receptors are bound by the protein encoded by the SEMA3A gene?",
            project("interacts_with", project("encodes", entity("NCBIGene:10371"))),
            "lexicon",
        ),
        # a subject that is a projection itself
        (
            "What phenotypes do the subtypes of Parkinson disease 4 show?",
            project("has_phenotype", project("subclass_of", entity(PD4), inverse=True)),
            "lexicon",
        ),
        (
            "Which diseases does Parkinson disease 4 fall under?",
            project("subclass_of", entity(PD4)),
            "lexicon",
        ),
        # a relation phrase right after another, without a type word between them
        (
            "Which genes are associated with the subtypes of Parkinson disease 4?",
            project(
                "associated_with", project("subclass_of", entity(PD4), inverse=True), inverse=True
            ),
            "lexicon",
        ),
        # a possessive object after a relation phrase: "<type> of X" when that is a phrase
        (
            "What are the parent terms of Parkinson disease 4's phenotypes?",
            project("subclass_of", project("has_phenotype", entity(PD4))),
            "lexicon+signature",  # a possessive names no relation: the signature's
        ),
        # yes/no: the entity before the relation phrase is the candidate answer
        (
            "Does Parkinson disease 4 present with parkinsonism?",
            project("has_phenotype", entity("HP:0001300"), inverse=True),
            "lexicon",
        ),
        (
            "Which receptors does the SEMA3A gene product bind?",
            project("interacts_with", entity("uniprot:Q14563")),
            "lexicon",
        ),
    ],
)
def test_questions_as_people_word_them(
    service: QueryService, question: str, expected: dict[str, object], method: str
) -> None:
    plan = service.resources("demo").planner.plan(question)
    assert plan.query.model_dump() == expected
    assert {r.method for r in plan.relations} == set(method.split("+"))


APOE, APP = "uniprot:P02649", "uniprot:P05067"


@pytest.mark.parametrize(
    ("question", "relation", "anchors", "method"),
    [
        # "have" is has_phenotype's wording; "shared by" says no relation: the signature's
        (
            "What phenotypes do SNCA and DJ-1 have in common?",
            "has_phenotype",
            (SNCA, DJ1),
            "lexicon",
        ),
        ("phenotypes shared by SNCA and DJ-1", "has_phenotype", (SNCA, DJ1), "signature"),
        ("Which phenotypes do SNCA and DJ-1 both have?", "has_phenotype", (SNCA, DJ1), "lexicon"),
        ("Which receptors do apoE and APP both bind?", "interacts_with", (APOE, APP), "lexicon"),
    ],
)
def test_what_anchors_have_in_common_is_an_intersection(
    service: QueryService, question: str, relation: str, anchors: tuple[str, str], method: str
) -> None:
    plan = service.resources("demo").planner.plan(question)
    assert plan.query.model_dump() == {
        "op": "intersect",
        "inputs": [project(relation, entity(a)) for a in anchors],
    }
    assert {r.method for r in plan.relations} == {method}


def test_what_anchors_each_have_is_a_union(service: QueryService) -> None:
    # no "both", "in common" or "share": what each of them has
    planner = service.resources("demo").planner
    plan = planner.plan("What phenotypes do SNCA and DJ-1 have?")
    assert plan.query.model_dump() == {
        "op": "union",
        "inputs": [project("has_phenotype", entity(a)) for a in (SNCA, DJ1)],
    }
    shared = planner.plan("Which genes do SCA2 and ALS share?").query.model_dump()
    assert shared["op"] == "intersect"


def test_a_hyphenated_relation_adjective_reads_as_its_relation(service: QueryService) -> None:
    planner = service.resources("demo").planner
    assert planner.plan("List SNCA-associated diseases").query.model_dump() == project(
        "associated_with", entity(SNCA)
    )
    assert planner.plan(
        "Which SNCA-associated diseases present with dystonia?"
    ).query.model_dump() == {
        "op": "intersect",
        "inputs": [
            project("associated_with", entity(SNCA)),
            project("has_phenotype", entity(DYSTONIA), inverse=True),
        ],
    }


def test_ambiguous_anchor_lists_alternatives(service: QueryService) -> None:
    # "AD" is a synonym of more than one Alzheimer disease entry: no guess passed off as sure.
    plan = service.resources("demo").planner.plan("Which genes are associated with AD?")
    (anchor,) = plan.anchors
    assert anchor.ambiguous and anchor.mention == "AD"
    assert anchor.alternatives
    assert all("Alzheimer disease" in str(a["name"]) for a in anchor.alternatives)


def test_an_abbreviation_of_a_disease_and_its_records_anchors_the_disease(
    service: QueryService,
) -> None:
    # "PD" is a synonym of two late-onset Parkinson disease records, both subclasses of
    # Parkinson disease, whose name the letters spell: that is what the question means
    plan = service.resources("demo").planner.plan("Which genes are associated with PD?")
    (anchor,) = plan.anchors
    assert anchor.id == "MONDO:0005180" and not anchor.ambiguous
    assert {a["id"] for a in anchor.alternatives} == {"OMIM:168600", "ORPHA:411602"}


def test_an_exact_name_wins_over_a_broader_entity_that_embeds_close(
    service: QueryService,
) -> None:
    plan = service.resources("demo").planner.plan(
        "Which genes are associated with Parkinson disease?"
    )
    (anchor,) = plan.anchors
    assert anchor.id == "MONDO:0005180" and not anchor.ambiguous  # the MONDO parent itself


@pytest.mark.parametrize(
    ("question", "message"),
    [
        ("?", "the question is empty"),
        ("Which genes are associated with", "no entity"),
        ("Which genes encode Parkinson disease 4?", "do not connect"),
        # mutations are not in the KG: the words stay, and the two clauses disagree on a kind
        ("Which mutations in LRRK2 cause Parkinson disease 8?", "different kinds of answers"),
    ],
)
def test_unreadable_questions_say_why(service: QueryService, question: str, message: str) -> None:
    with pytest.raises(PlanningError, match=message):
        service.resources("demo").planner.plan(question)


def test_unknown_wording_falls_back_to_relation_embeddings(service: QueryService) -> None:
    plan = service.resources("demo").planner.plan("Which genes are blamed for Parkinson disease 4?")
    (relation,) = plan.relations
    assert relation.method == "embedding" and relation.phrase == "blamed for"
    assert plan.query.model_dump() == project("associated_with", entity(PD4), inverse=True)
    assert plan.ambiguous  # a guess is flagged for the user's check, never silent
    report = template_report(
        plan, [], service.resources("demo").retriever.query(plan.query).completeness,
        service.resources("demo").store, max_results=5,
    )  # fmt: skip
    assert "Guessed: no known wording matched “blamed for”; read as associated_with" in report


@pytest.mark.parametrize(
    "question",
    [
        "Which genes are NOT associated with Parkinson disease 8?",
        "Which genes aren't linked to Parkinson disease 4?",
        "Diseases without parkinsonism",
        "Which phenotypes of Parkinson disease 4 never occur in Huntington disease?",
        "genes associated with Parkinson disease 4 except SNCA",
    ],
)
def test_negated_questions_are_refused(service: QueryService, question: str) -> None:
    with pytest.raises(PlanningError, match="negated"):
        service.resources("demo").planner.plan(question)


def test_a_negation_word_inside_a_name_is_no_negation(service: QueryService) -> None:
    plan = service.resources("demo").planner.plan(
        "Which genes are associated with migraine with or without aura, susceptibility to?"
    )
    assert plan.anchors and "without" in plan.anchors[0].name


PINK1, PARKIN, CHOREA = "NCBIGene:65018", "NCBIGene:5071", "HP:0002072"


PERRY, WILSON, NARCOLEPSY_1, PD = "OMIM:168605", "OMIM:277900", "ORPHA:2073", "MONDO:0005180"
SHH, NETRIN_1, SEMA3A, TGFBR2 = (
    "uniprot:Q15465",
    "uniprot:O95631",
    "uniprot:Q14563",
    "uniprot:P37173",
)
FGFRS = ("uniprot:P11362", "uniprot:P21802", "uniprot:P22607")
IHH, DHH = "uniprot:Q14623", "uniprot:O43323"
LRRK2, PARKINSONISM, PROGRANULIN = "NCBIGene:120892", "HP:0001300", "uniprot:P28799"
HD_LIKE, RESTING_TREMOR = "MONDO:0015548", "HP:0002322"
GENES_OF_NARCOLEPSY_1 = project("associated_with", entity(NARCOLEPSY_1), True)


#: Wordings of the kinds the fifth writer (dev3) used, written anew for the tests.
_FIFTH_WRITER = [
    # relation wording: signalling through a receptor, proteins made from genes
    ("Which ligands signal via the TGF-beta receptor type II?",
     project("interacts_with", entity(TGFBR2), True)),
    ("Which proteins are produced from the genes of Narcolepsy type 1?",
     project("encodes", GENES_OF_NARCOLEPSY_1)),
    # a topic first: "its associated genes" are its genes; "For X, …" is a topic too, and
    # without a pronoun "the related genes" are the topic's
    ("Narcolepsy type 1 - which proteins do its associated genes encode?",
     project("encodes", GENES_OF_NARCOLEPSY_1)),
    ("Regarding Perry syndrome, what are the related genes?",
     project("associated_with", entity(PERRY), True)),
    ("For SHH, which genes encode the receptors that its protein binds?",
     project("encodes", project("interacts_with", entity(SHH)), True)),
    # "the protein of X" selects X's protein record (no interaction hop)
    ("Which receptors does the protein of SHH bind?", project("interacts_with", entity(SHH))),
    # one type word after each name of an or-list: read once, after the list
    ("Which diseases are linked to the Perry syndrome gene or the Wilson disease gene?",
     project("associated_with", {"op": "union", "inputs": [
         project("associated_with", entity(PERRY), True),
         project("associated_with", entity(WILSON), True)]})),
    # a record word after a list of protein names selects the records
    ("Which receptors bind the netrin-1 and semaphorin 3A proteins?",
     {"op": "intersect", "inputs": [project("interacts_with", entity(NETRIN_1)),
                                    project("interacts_with", entity(SEMA3A))]}),
    ("Name the ligands binding all three of FGFR1, FGFR2 and FGFR3",
     {"op": "intersect", "inputs": [project("interacts_with", entity(f), True)
                                    for f in FGFRS]}),
    # a procedure of steps, each on the last one's result, is one chain
    ("Take the genes of Perry syndrome, then list every disease those genes are linked to",
     project("associated_with", project("associated_with", entity(PERRY), True))),
    ("Perry syndrome: take its genes and list the phenotypes annotated to them",
     project("has_phenotype", project("associated_with", entity(PERRY), True))),
    # a question, then another about its answers: one chain
    ("Which genes are linked to Perry syndrome, and what phenotypes do those genes have?",
     project("has_phenotype", project("associated_with", entity(PERRY), True))),
    ("What diseases is SNCA linked to? Which genes are linked to those diseases?",
     project("associated_with", project("associated_with", entity(SNCA)), True)),
    ("Which receptors does SHH bind -> which genes encode them",
     project("encodes", project("interacts_with", entity(SHH)), True)),
    # steps, each on the one before: arrows, "then …", a last question for what was reached
    ("Perry syndrome -> genes -> their diseases. Which diseases?",
     project("associated_with", project("associated_with", entity(PERRY), True))),
    ("Take Parkinson disease, go to its subtypes, then the subtypes of those, and list the "
     "genes for that last level",
     project("associated_with", project("subclass_of", project("subclass_of", entity(PD), True),
                                        True), True)),
    ("Starting from SNCA: which diseases is it linked to, and what phenotypes do those "
     "diseases have?",
     project("has_phenotype", project("associated_with", entity(SNCA)))),
    ("SHH -> its receptors -> what genes?",
     project("encodes", project("interacts_with", entity(SHH)), True)),
    # two names set against each other: what they share, or everything of either
    ("Perry syndrome vs Wilson disease - any overlap in the gene lists?",
     {"op": "intersect", "inputs": [project("associated_with", entity(PERRY), True),
                                    project("associated_with", entity(WILSON), True)]}),
    ("PD4 vs PD11 - combined phenotype list please",
     {"op": "union", "inputs": [project("has_phenotype", entity(PD4)),
                                project("has_phenotype", entity(PD11))]}),
    # a group as the topic, then only the type asked
    ("Parkinson disease subtypes with resting tremor - which genes?",
     project("associated_with", {"op": "intersect", "inputs": [
         project("subclass_of", entity(PD), True),
         project("has_phenotype", entity(RESTING_TREMOR), True)]}, True)),
    # "X genes that are also Y genes"
    ("Which Perry syndrome genes are also Wilson disease genes?",
     {"op": "intersect", "inputs": [project("associated_with", entity(PERRY), True),
                                    project("associated_with", entity(WILSON), True)]}),
    # three levels up
    ("What are the great-grandparents of chorea?",
     project("subclass_of", project("subclass_of", project("subclass_of", entity(CHOREA))))),
    # a chat opener before the question
    ("quick q: which genes are linked to Perry syndrome?",
     project("associated_with", entity(PERRY), True)),
    # "any of the" / "each of the" only quantify the set
    ("Which diseases are linked to any of the Perry syndrome genes?",
     project("associated_with", project("associated_with", entity(PERRY), True))),
    # an eponym with the other noun
    ("Which genes are linked to Perry disease?",
     project("associated_with", entity(PERRY), True)),
    # a partitive group with an object relative and no "that"
    ("Of the diseases SNCA is linked to, which are subtypes of Parkinson disease?",
     {"op": "intersect", "inputs": [project("associated_with", entity(SNCA)),
                                    project("subclass_of", entity(PD), True)]}),
    ("Which genes carry a chorea annotation?",
     project("has_phenotype", entity(CHOREA), True, GENES)),
    # a finite "share" after a compound head: the subtypes that are diseases of its genes
    ("Which Parkinson disease subtypes share a gene with Perry syndrome?",
     {"op": "intersect", "inputs": [
         project("subclass_of", entity(PD), True),
         project("associated_with", project("associated_with", entity(PERRY), True))]}),
    # a bare noun phrase is a list request; "whose records include" is "that have"
    ("Parkinson disease 4 subtypes whose records include resting tremor?",
     {"op": "intersect", "inputs": [project("subclass_of", entity(PD4), True),
                                    project("has_phenotype", entity(RESTING_TREMOR), True)]}),
    ("HD-like syndromes that present with chorea?",
     {"op": "intersect", "inputs": [project("subclass_of", entity(HD_LIKE), True),
                                    project("has_phenotype", entity(CHOREA), True, DISEASES)]}),
    # "as a phenotype" only repeats the relation
    ("Which genes have chorea as a phenotype?",
     project("has_phenotype", entity(CHOREA), True, GENES)),
    # names sharing the head noun of the list's last one
    ("Name the receptors shared by Sonic, Indian and Desert hedgehog",
     {"op": "intersect", "inputs": [project("interacts_with", entity(h))
                                    for h in (SHH, IHH, DHH)]}),
    # a topic and a relation noun with no argument: the topic's
    ("Parkinson disease: which subtypes are there?", project("subclass_of", entity(PD), True)),
    # "Which of the Xs …" asks which Xs; "binding partners of" is one relation phrase
    ("Which of LRRK2's diseases present with parkinsonism?",
     {"op": "intersect", "inputs": [project("associated_with", entity(LRRK2)),
                                    project("has_phenotype", entity(PARKINSONISM), True)]}),
    ("What are the binding partners of progranulin?",
     project("interacts_with", entity(PROGRANULIN))),
    # "with X and with Y": both (a repeated "of" lists the answers of each)
    ("Which genes are associated with Parkinson disease 4 and with Parkinson disease 11?",
     {"op": "intersect", "inputs": [project("associated_with", entity(PD4), True),
                                    project("associated_with", entity(PD11), True)]}),
]  # fmt: skip


ANKLE_CLONUS, MACROAUTOPHAGY, AUTOPHAGOSOME_ASSEMBLY = "HP:0011448", "GO:0016236", "GO:0000045"


def up(levels: int, inner: dict[str, object], relation: str = "subclass_of") -> dict[str, object]:
    for _ in range(levels):
        inner = project(relation, inner)
    return inner


KALLMANN = "ORPHA:478"

#: Wordings of the later writers (dev2, dev3, fresh3), written anew for the tests.
_FURTHER_WRITERS = [
        # a role in the singular after a name is the name's own protein, unless it goes on
        ("Which ligands bind the RET receptor?", project("interacts_with", entity(RET), True)),
        ("Which proteins does the SHH ligand bind?",
         project("interacts_with", entity("uniprot:Q15465"))),
        ("Which FGF8 receptor genes are associated with Kallmann syndrome?",
         {"op": "intersect", "inputs": [
             project("encodes", project("interacts_with", entity("uniprot:P55075")), True),
             project("associated_with", entity(KALLMANN), True),
         ]}),
        # the KG's structure named in passing ("in the disease hierarchy") changes nothing
        ("What are the subtypes of Parkinson disease in the disease hierarchy?",
         project("subclass_of", entity(PD), True)),
        # a relative clause after a plural category narrows its members; after a named
        # entity it belongs to the answers
        ("Which genes are associated with the parkinsonian disorders that present with "
         "dystonia?",
         project("associated_with", {"op": "intersect", "inputs": [
             project("subclass_of", entity("MONDO:0021095"), True),
             project("has_phenotype", entity(DYSTONIA), True),
         ]}, True)),
        ("Which genes are associated with Parkinson disease 4 that have dystonia?",
         {"op": "intersect", "inputs": [
             project("associated_with", entity(PD4), True),
             project("has_phenotype", entity(DYSTONIA), True),
         ]}),
        # "more specific forms of X" are X's subtypes ("more" is no comparison here)
        ("Show me the more specific forms of Parkinson disease.",
         project("subclass_of", entity(PD), True)),
        # "GO process" is a type word, not the source GO and a process
        ("Which GO process is a subtype of macroautophagy?",
         project("subclass_of", entity(MACROAUTOPHAGY), True)),
        # a number of levels up or down the hierarchy is that many hops
        ("What terms sit three levels above ankle clonus in HPO?", up(3, entity(ANKLE_CLONUS))),
        ("Walk up two levels from ankle clonus: which term do you reach?",
         up(2, entity(ANKLE_CLONUS))),
        ("Which terms are two levels below dystonia?",
         project("subclass_of", project("subclass_of", entity(DYSTONIA), True), True)),
        ("Going up two part_of steps from macroautophagy, which process do you land on?",
         up(2, entity(MACROAUTOPHAGY), "part_of")),
        # "form part of" names the parts, as "parts of" does
        ("Which processes form part of autophagosome assembly or of macroautophagy?",
         {"op": "union", "inputs": [project("part_of", entity(AUTOPHAGOSOME_ASSEMBLY), True),
                                    project("part_of", entity(MACROAUTOPHAGY), True)]}),
        # "all" after a list of subjects: what they all have, an intersection
        ("What diseases are SNCA, PINK1 and PRKN all linked to?",
         {"op": "intersect", "inputs": [project("associated_with", entity(g))
                                        for g in (SNCA, PINK1, PARKIN)]}),
        # an object relative with a list of subjects and a stranded verb
        ("What phenotypes are recorded for the diseases that SNCA and PINK1 are both linked to?",
         project("has_phenotype", {"op": "intersect", "inputs": [
             project("associated_with", entity(SNCA)),
             project("associated_with", entity(PINK1))]})),
        # "have" whose default relation cannot join the types: the relation that can
        ("What phenotypes do the genes that Parkinson disease 4 and Parkinson disease 11 have "
         "in common show?",
         project("has_phenotype", {"op": "intersect", "inputs": [
             project("associated_with", entity(PD4), True),
             project("associated_with", entity(PD11), True)]})),
        # a type word at the end of a name is part of it when the rest names nothing alone
        ("Which genes underlie the subtypes of HD-like syndromes?",
         project("associated_with", project("subclass_of", entity("MONDO:0015548"), True),
                 True)),
    *_FIFTH_WRITER,
]  # fmt: skip


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        # a participle clause belongs to its type word; the next phrase is the main verb
        (
            "Which diseases linked to PINK1 present with dystonia?",
            {"op": "intersect", "inputs": [project("associated_with", entity(PINK1)),
                                           project("has_phenotype", entity(DYSTONIA), True)]},
        ),
        # a relative clause with its subject before the verb: what the anchors share
        (
            "What phenotypes are seen in the diseases that SNCA and parkin share?",
            project("has_phenotype", {"op": "intersect", "inputs": [
                project("associated_with", entity(SNCA)),
                project("associated_with", entity(PARKIN))]}),
        ),
        # a bare joint ("with") reads the one relation between the two types
        (
            "Which genes are linked to disorders with both chorea and dystonia?",
            project("associated_with", {"op": "intersect", "inputs": [
                project("has_phenotype", entity(CHOREA), True, DISEASES),
                project("has_phenotype", entity(DYSTONIA), True, DISEASES)]}, True),
        ),
        # "X and of Y" lists both
        (
            "List the subtypes of Parkinson disease and of dystonia",
            {"op": "union", "inputs": [project("subclass_of", entity("MONDO:0005180"), True),
                                       project("subclass_of", entity("MONDO:0003441"), True)]},
        ),
        # a role noun: the anchor is the ligand, the answers its receptors
        ("What is GDNF a ligand for?", project("interacts_with", entity(GDNF))),
        ("GDNF - receptors?", project("interacts_with", entity(GDNF))),
        # verbs before the anchor: the answers are the edges' heads; as the subject: tails
        (
            "Which processes positively regulate mitophagy?",
            project("positively_regulates", entity("GO:0000423"), True),
        ),
        ("What does mitophagy regulate?", project("regulates", entity("GO:0000423"))),
        # a ligand / receptor word after "are" is the answers' role
        (
            "Which proteins are receptors for BDNF?",
            project("interacts_with", entity("uniprot:P23560")),
        ),
        # the clauses agree on one answer type: dystonia the disease, not the phenotype
        (
            "Which forms of dystonia are linked to TOR1A?",
            {"op": "intersect", "inputs": [
                project("subclass_of", entity("MONDO:0003441"), True),
                project("associated_with", entity("NCBIGene:1861"))]},
        ),
        # two hops in one word; misspelt question words; "caused by"
        (
            "What are the grandparents of mitophagy?",
            project("subclass_of", project("subclass_of", entity("GO:0000423"))),
        ),
        (
            "Which genes are asociated with Parkinson diesase 4?",
            project("associated_with", entity(PD4), True),
        ),
        ("diseases caused by PRKN", project("associated_with", entity(PARKIN))),
        # a misspelt one-word name; a word of a longer name ("spastic") is no misspelling
        ("Which phenotypes are more specific than tremmor?",
         project("subclass_of", entity("HP:0001337"), True)),
        # a fronted preposition; "GO processes" is a type word, not the acronym GO
        ("In which diseases is chorea seen?",
         project("has_phenotype", entity(CHOREA), True, DISEASES)),
        (
            "Which GO processes does mitophagy belong to?",
            project("subclass_of", entity("GO:0000423")),
        ),
        # "SCA3" is an old alias of ATXN3 and the disease's abbreviation: the disease, under
        # the record it abbreviates ("Spinocerebellar ataxia type 3", not "Machado-Joseph
        # disease")
        (
            "What are the clinical features of SCA3?",
            project("has_phenotype", entity("ORPHA:98757")),
        ),
        # "do" is no copula: the ligands of RET are the subject, not a role of the answers
        (
            "What receptors do the ligands of RET bind?",
            project("interacts_with", project("interacts_with", entity(RET), True)),
        ),
        # compound heads, innermost first: the genes of FGF8's receptors
        ("Which FGF8 receptor genes are associated with Kallmann syndrome?",
         {"op": "intersect", "inputs": [
             project("encodes", project("interacts_with", entity("uniprot:P55075")), True),
             project("associated_with", entity("ORPHA:478"), True),
         ]}),
        # a relative clause after a compound head is about it
        ("Which diseases involve the SNCA receptor genes that are associated with "
         "Parkinson disease 4?",
         project("associated_with", {"op": "intersect", "inputs": [
             project("encodes", project("interacts_with", entity("uniprot:P37840")), True),
             project("associated_with", entity(PD4), True),
         ]})),
        # no answer type: what the subject phrase binds (a topic read in the pronoun's place)
        (
            "The ligands of RET - what do they bind?",
            project("interacts_with", project("interacts_with", entity(RET), True)),
        ),
        # sharing as a chain through what is shared; "Of the …, which are …"; "classed as"
        ("Dravet syndrome shares genes with which other disorders?",
         project("associated_with", project("associated_with", entity("ORPHA:33069"), True))),
        ("Which diseases are classified as ataxias?",
         project("subclass_of", entity("MONDO:0000437"), True)),
        ("Of the disorders sharing a gene with Dravet syndrome, which are classed as monogenic "
         "epilepsies?",
         {"op": "intersect", "inputs": [
             project("associated_with", project("associated_with", entity("ORPHA:33069"), True)),
             project("subclass_of", entity("MONDO:0015653"), True),
         ]}),
        # hyphenated binding, parts of a process, "code for"
        ("Which SHH-binding receptors are there?",
         project("interacts_with", entity("uniprot:Q15465"))),
        ("What are the component processes of synaptic vesicle exocytosis?",
         project("part_of", entity("GO:0016079"), True)),
        ("Which genes code for alpha-synuclein?",
         project("encodes", entity("uniprot:P37840"), True)),
        # a plural category name opening the question is the answers' type (with a note)
        ("Which dystonias are associated with TOR1A?",
         project("associated_with", entity("NCBIGene:1861"))),
        # a grouping term in the plural with no edges of its own stands for its subtypes
        ("Which genes have been implicated in the progressive myoclonus epilepsies?",
         project("associated_with", project("subclass_of", entity("MONDO:0020074"), True),
                 True)),
        # … narrowed to the category's direct subtypes when some of them are answers
        ("Which inherited dystonias also feature myoclonus?",
         {"op": "intersect", "inputs": [
             project("subclass_of", entity("MONDO:0044807"), True),
             project("has_phenotype", entity("HP:0001336"), True, DISEASES),
         ]}),
        *_FURTHER_WRITERS,
    ],
)  # fmt: skip
def test_questions_read_by_phrase_structure(
    service: QueryService, question: str, expected: dict[str, object]
) -> None:
    plan = service.resources("demo").planner.plan(question)
    assert plan.query.model_dump() == expected
    if "asociated" in question:  # a correction is said, never silent
        assert "read 'asociated' as 'associated'" in plan.notes
    if "tremmor" in question:
        assert "read 'tremmor' as 'tremor'" in plan.notes
    if "Which dystonias" in question:  # so is a category read as a type
        assert any(note.startswith("read 'dystonias' as any disease") for note in plan.notes)
    if "myoclonus epilepsies" in question:
        assert any("direct subtypes of progressive myoclonus epilepsy" in n for n in plan.notes)
    if "inherited dystonias" in question:
        assert any(note.startswith("read 'inherited dystonias' as the direct subtypes of")
                   and "MONDO:0044807" in note for note in plan.notes)  # fmt: skip


def test_yes_no_questions_as_biologists_word_them(service: QueryService) -> None:
    planner = service.resources("demo").planner
    # "mutations in X" is X; an eponym's possessive with no noun after it names the disease
    plan = planner.plan("Can mutations in PINK1 cause young-onset Parkinson's?")
    assert plan.query.model_dump() == project("associated_with", entity("ORPHA:2828"), True)
    assert plan.candidate is not None and plan.candidate.id == PINK1
    # "HD" is also HTT's old symbol: the disease is meant, as for an anchor
    plan = planner.plan("Does HD present with chorea and dystonia?")
    assert plan.candidate is not None and plan.candidate.type == "disease"
    assert plan.candidate.name == "Huntington disease"


def test_siblings_are_the_children_of_the_parents_with_a_note(service: QueryService) -> None:
    plan = service.resources("demo").planner.plan("Which terms are siblings of resting tremor?")
    assert plan.query.model_dump() == project(
        "subclass_of", project("subclass_of", entity(RESTING_TREMOR)), True
    )
    assert "read siblings as the children of its parents: it is among them" in plan.notes


def test_a_bare_noun_phrase_is_read_as_a_list_request_with_a_note(service: QueryService) -> None:
    plan = service.resources("demo").planner.plan("HD-like syndromes that present with chorea?")
    assert "read the question as a request to list what it describes" in plan.notes
    with pytest.raises(PlanningError, match="could not read 'frobnicated by'"):  # the first error
        service.resources("demo").planner.plan("Genes frobnicated by chorea?")


def test_everyday_words_the_reader_cannot_place_are_left_out_and_flagged(
    service: QueryService,
) -> None:
    planner = service.resources("demo").planner
    plan = planner.plan("Which genes are associated with Parkinson disease 4, please?")
    assert plan.unread == ["please"] and plan.ambiguous  # never a confident plan
    assert "left out 'please': the reader could not place it; check this reading" in plan.notes
    assert plan.query.model_dump() == project("associated_with", entity(PD4), inverse=True)
    # words that change what is asked are never left out, nor numbers, nor names the KG lacks
    for question in (
        "What is the usual dose for Parkinson disease 4?",
        "Which genes were associated with Parkinson disease 4 in 1997?",
        "Which genes are associated with Parkinson disease 4 in zebrafish?",
    ):
        with pytest.raises(PlanningError, match="could not read"):
            planner.plan(question)
    # more than a few everyday words are too many for the phrase reader; the schema reader
    # fits the rest and says it guessed, naming the words left out
    plan = planner.plan("Which genes, as far as anyone can tell, are associated with Parkinson "
                        "disease 4?")  # fmt: skip
    assert plan.guessed and plan.ambiguous and plan.unread == ["as far as anyone"]
    assert plan.query.model_dump() == project("associated_with", entity(PD4), inverse=True)
    # a source named in passing changes nothing: left out without a note or a flag
    plan = planner.plan("What are the immediate parent HPO terms of chorea?")
    assert plan.query.model_dump() == project("subclass_of", entity(CHOREA))
    assert not plan.unread and not plan.ambiguous


def test_misspelt_words_of_names_are_put_right_with_a_note(service: QueryService) -> None:
    planner = service.resources("demo").planner
    # the last part of a hyphenated name, and a capitalised name word
    plan = planner.plan("Which diseases are linked to alpha-synuclien?")
    assert plan.query.model_dump() == project("associated_with", entity("NCBIGene:6622"))
    assert "read 'synuclien' as 'synuclein'" in plan.notes
    plan = planner.plan("Which genes are linked to Huntingon disease?")
    assert plan.anchors and plan.anchors[0].name == "Huntington disease"
    assert "read 'Huntingon' as 'Huntington'" in plan.notes


def test_a_disease_group_without_edges_of_its_own_is_read_through_its_subtypes(
    service: QueryService,
) -> None:
    planner = service.resources("demo").planner
    # MONDO's grouping class holds no genes; its direct subtypes do — said in a note
    plan = planner.plan("Which genes are linked to pure hereditary spastic paraplegia?")
    group = entity("MONDO:0015149")
    assert plan.query.model_dump() == project(
        "associated_with", project("subclass_of", group, True), True
    )
    assert any("has no associated_with edges of its own" in note for note in plan.notes)
    # a disease with genes of its own is not widened
    plan = planner.plan("Which genes are linked to Perry syndrome?")
    assert plan.query.model_dump() == project("associated_with", entity(PERRY), True)
    assert not any("of its own" in note for note in plan.notes)


def test_a_group_whose_answers_sit_deeper_is_read_through_its_subtypes_down_to_four_levels(
    service: QueryService,
) -> None:
    from kgrecall.agents.planner import SUBTYPE_LEVELS
    from kgrecall.tools.query import UnionQuery

    resources = service.resources("demo")
    # MONDO's epilepsy holds no genes, nor do its seven direct subtypes: the genes sit two to
    # four levels down ("epilepsy syndrome" → … → a numbered syndrome → its gene)
    plan = resources.planner.plan("genes associated with epilepsy")
    levels = plan.query.input
    assert isinstance(levels, UnionQuery) and len(levels.inputs) == SUBTYPE_LEVELS
    chain = levels.inputs[-1]
    for _ in range(SUBTYPE_LEVELS):
        assert chain.relation == "subclass_of" and chain.inverse
        chain = chain.input
    assert chain.model_dump() == entity("MONDO:0005027")
    assert any("nor have its direct subtypes" in note for note in plan.notes)
    answers = service.query(plan.query, kg="demo", level="fast", max_results=None).answers
    assert "NCBIGene:9839" in {a.id for a in answers}  # ZEB2, of Mowat-Wilson syndrome
    # a group with genes among its direct subtypes stays one level down
    plan = resources.planner.plan("Which genes are linked to pure hereditary spastic paraplegia?")
    assert plan.query.input.model_dump() == project("subclass_of", entity("MONDO:0015149"), True)


def test_a_name_the_kg_answers_nothing_from_is_read_as_its_other_entity(
    service: QueryService,
) -> None:
    planner = service.resources("demo").planner
    # "dystonia" names MONDO's dystonic disorder (no genes, nor have its direct subtypes)
    # and HPO's Dystonia: the genes of the diseases with that phenotype, said in a note
    for question in ("list all genes linked to dystonia", "genes associated with dystonia"):
        plan = planner.plan(question)
        assert plan.query.model_dump() == project(
            "associated_with", project("has_phenotype", entity(DYSTONIA), True), True
        )
        assert plan.answer_type == "gene"
        assert [a.id for a in plan.anchors] == [DYSTONIA]
        assert plan.anchors[0].alternatives[0]["id"] == "MONDO:0003441"
        assert any(
            "the KG holds no answer from the disease dystonic disorder" in n for n in plan.notes
        )
    # a wording that says which relation is meant is not re-read ("subtypes of dystonia")
    plan = planner.plan("Which diseases are subtypes of dystonia?")
    assert "MONDO:0003441" in [a.id for a in plan.anchors]
    assert not any("holds no answer" in note for note in plan.notes)
    # a group whose direct subtypes answer keeps its reading (through the subtypes)
    plan = planner.plan("Which genes are linked to pure hereditary spastic paraplegia?")
    assert not any("holds no answer" in note for note in plan.notes)


DRAVET, MUSK = "ORPHA:33069", "uniprot:O15146"


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        # an eponym alone names its disease in a question
        ("Which genes are linked to Dravet?", project("associated_with", entity(DRAVET), True)),
        # an answer type said after the question mark
        ("what is linked to SNCA? diseases only", project("associated_with", entity(SNCA))),
        # a clinical adjective with a generic noun is the phenotype, not its subclasses
        ("Which disorders show dystonic features?",
         project("has_phenotype", entity(DYSTONIA), True, DISEASES)),
        # categories that include X, or that X falls under, are X's parents
        ("Which disease classes include the disorders linked to SNCA?",
         project("subclass_of", project("associated_with", entity(SNCA)))),
        ("What broader categories do the disorders linked to SNCA fall under?",
         project("subclass_of", project("associated_with", entity(SNCA)))),
        # a topic said as a statement, referred back to by "they", "those Xs", "that Y"
        ("SNCA is associated with several diseases; which phenotypes do they have?",
         project("has_phenotype", project("associated_with", entity(SNCA)))),
        ("For the diseases linked to SNCA, which phenotypes are annotated to those diseases?",
         project("has_phenotype", project("associated_with", entity(SNCA)))),
        # "the parents of A and B" are each one's parents
        ("What are the parents of chorea and resting tremor?",
         {"op": "union", "inputs": [project("subclass_of", entity(CHOREA)),
                                    project("subclass_of", entity(RESTING_TREMOR))]}),
        # … unless they are asked in common
        ("What are the common parents of chorea and resting tremor?",
         {"op": "intersect", "inputs": [project("subclass_of", entity(CHOREA)),
                                        project("subclass_of", entity(RESTING_TREMOR))]}),
        # what binds a receptor are its ligands: the edges point from ligand to receptor
        ("What binds MuSK?", project("interacts_with", entity(MUSK), True)),
        ("What does MuSK bind?", project("interacts_with", entity(MUSK))),
        # a comma between names is a list, not a name written with a hyphen ("ALS-FTD");
        # "link" joins the gene to each disease
        ("Which genes link ALS, FTD with MND and Perry syndrome?",
         {"op": "intersect", "inputs": [
             project("associated_with", entity("ORPHA:803"), True),
             project("associated_with", entity("ORPHA:275872"), True),
             project("associated_with", entity(PERRY), True)]}),
        # a bracketed gloss that names nothing leaves the abbreviation to be read
        ("Which genes are linked to IBMPFD (inclusion body myopathy with early Paget disease)?",
         project("associated_with", entity("ORPHA:52430"), True)),
        # "and/or" between names is "or"
        ("Which genes are linked to Perry syndrome and/or Wilson disease?",
         {"op": "union", "inputs": [project("associated_with", entity(PERRY), True),
                                    project("associated_with", entity(WILSON), True)]}),
        # a record word after a list of locus names selects the genes they name
        ("Which diseases are linked to the PARK1 and PARK8 genes?",
         {"op": "intersect", "inputs": [project("associated_with", entity(SNCA)),
                                        project("associated_with", entity("NCBIGene:120892"))]}),
        # "and are" after a nested phrase without "that" belongs to the answers
        ("Which diseases share a gene with Perry syndrome and are also subtypes of dystonia?",
         {"op": "intersect", "inputs": [
             project("associated_with", project("associated_with", entity(PERRY), True)),
             project("subclass_of", entity("MONDO:0003441"), True)]}),
    ],
)  # fmt: skip
def test_questions_of_the_fourth_writer_classes(
    service: QueryService, question: str, expected: dict[str, object]
) -> None:
    assert service.resources("demo").planner.plan(question).query.model_dump() == expected


def test_possessive_eponyms_in_a_list_share_the_noun(service: QueryService) -> None:
    plan = service.resources("demo").planner.plan(
        "Which phenotypes do Huntington's and Alzheimer's disease have in common?"
    )
    assert plan.query.op == "intersect"
    assert [a.name for a in plan.anchors] == ["Huntington disease", "Alzheimer disease"]


def test_a_yes_no_question_on_binding_is_checked_either_way(service: QueryService) -> None:
    planner = service.resources("demo").planner
    # NOTCH4's edge to DLL1 is stored DLL1 → NOTCH4: binding claims no direction
    plan = planner.plan("Does NOTCH4 bind DLL1?")
    assert plan.candidate is not None and plan.candidate.name == "NOTCH4"
    found, _ = execute_sets(service.resources("demo").store, plan.query)
    assert plan.candidate.id in found
    assert "interacts_with claims no direction: checked the other way round" in plan.notes
    # "Is X a gene …": the article makes the type word what is asked, not X's record
    plan = planner.plan("Is SNCA a gene shared by Parkinson disease 4 and Dementia, lewy body?")
    assert plan.candidate is not None and plan.candidate.id == SNCA
    assert plan.query.op == "intersect"


def test_records_are_chosen_by_name_gloss_and_kind(service: QueryService) -> None:
    planner = service.resources("demo").planner
    # a disease and a phenotype of one name: the disease, unless the answers must be signs
    plan = planner.plan("What are the subtypes of focal dystonia?")
    assert plan.query.model_dump() == project("subclass_of", entity("MONDO:0000477"), True)
    plan = planner.plan("What are the subtypes of generalised dystonia?")  # British spelling
    assert plan.query.model_dump() == project("subclass_of", entity("MONDO:0000476"), True)
    plan = planner.plan("Which phenotypes are subtypes of focal dystonia?")
    assert plan.query.model_dump() == project("subclass_of", entity("HP:0004373"), True)
    plan = planner.plan("Which diseases present with focal dystonia?")
    assert plan.query.model_dump() == project("has_phenotype", entity("HP:0004373"), True, DISEASES)
    # an abbreviation's gloss in brackets is the name read
    plan = planner.plan("What are the features of DRD (dopa-responsive dystonia)?")
    assert [a.id for a in plan.anchors] == ["MONDO:0016812"]


PILL_ROLLING, HEREDITARY_ATAXIA = "HP:0025387", "MONDO:0100309"


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        # a walk through the hierarchy asked as where one ends up, the start first or last
        ("Walk two steps up the HPO hierarchy from pill-rolling tremor. Where do you end up?",
         project("subclass_of", project("subclass_of", entity(PILL_ROLLING)))),
        ("pill-rolling tremor -> climb two levels, which term do you reach?",
         project("subclass_of", project("subclass_of", entity(PILL_ROLLING)))),
        # "their encoded proteins" are the proteins the genes encode
        ("SNCA or GBA1 — what do their encoded proteins interact with?",
         project("interacts_with", {"op": "union", "inputs": [
             project("encodes", entity(SNCA)), project("encodes", entity("NCBIGene:2629"))]})),
        # "all" after a list and its type word asks what they have in common
        ("What do NGF, BDNF and NTF4 proteins all bind?",
         {"op": "intersect", "inputs": [project("interacts_with", entity(e)) for e in
                                        ("uniprot:P01138", "uniprot:P23560", "uniprot:P34130")]}),
        # a relative clause after a compound head ("X subtypes that …") is about the subtypes
        ("Which genes are linked to hereditary ataxia subtypes that feature dystonia?",
         project("associated_with", {"op": "intersect", "inputs": [
             project("subclass_of", entity(HEREDITARY_ATAXIA), True),
             project("has_phenotype", entity(DYSTONIA), True)]}, True)),
        # a later step's "their clinical features" are those of the step before
        ("Find the diseases linked to both SNCA and LRRK2, then tell me their clinical features.",
         project("has_phenotype", {"op": "intersect", "inputs": [
             project("associated_with", entity(SNCA)),
             project("associated_with", entity("NCBIGene:120892"))]})),
        # "the X gene's protein" is the X protein
        ("Which receptors does the NGF gene's protein bind?",
         project("interacts_with", entity("uniprot:P01138"))),
        # "<ligand symbol> receptor" is the receptor whose symbol adds an R
        ("Which proteins bind the VLDL receptor?",
         project("interacts_with", entity("uniprot:P98155"), True)),
        # a capital letter ending a name is no article
        ("Which proteins does filamin A bind?",
         project("interacts_with", entity("uniprot:P21333"))),
        # a misspelt word of a longer name, in lower case
        ("list the subtypes of esential tremor",
         project("subclass_of", entity("MONDO:0003233"), True)),
    ],
)  # fmt: skip
def test_questions_of_the_tenth_writer_classes(
    service: QueryService, question: str, expected: dict[str, object]
) -> None:
    assert service.resources("demo").planner.plan(question).query.model_dump() == expected


YOPD, CHOREA_SIGN, TREMOR = "ORPHA:2828", "HP:0002072", "HP:0001337"


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        # an annotation verb after the term says "have"; "where X is recorded" too
        ("Which genes of young-onset Parkinson disease have dystonia annotated?",
         {"op": "intersect", "inputs": [project("associated_with", entity(YOPD), True),
                                        project("has_phenotype", entity(DYSTONIA), True)]}),
        ("I need young-onset Parkinson disease genes where tremor is recorded.",
         {"op": "intersect", "inputs": [project("associated_with", entity(YOPD), True),
                                        project("has_phenotype", entity(TREMOR), True)]}),
        # "I need to know …" opens the question itself, not a list request
        ("I need to know which genes are linked to Perry syndrome.",
         project("associated_with", entity(PERRY), True)),
        # a request ("could you give me") and "the full symptom list for X"
        ("Could you give me the full symptom list for Perry syndrome?",
         project("has_phenotype", entity(PERRY))),
        # "X's receptors" (plural, after a possessive) are X's partners, not NGFR's name
        ("What are BDNF's receptors?", project("interacts_with", entity("uniprot:P23560"))),
        # a source named in passing is context: "in Orphanet", "Orphanet's X" (not misspelt)
        ("Which genes are linked to young-onset PD in Orphanet?",
         project("associated_with", entity(YOPD), True)),
        ("Which genes does Orphanet's young-onset PD share with Perry syndrome?",
         {"op": "intersect", "inputs": [project("associated_with", entity(YOPD), True),
                                        project("associated_with", entity(PERRY), True)]}),
        # a set put first for later steps is the genes of each, unless "both" is said
        ("Take the genes for Perry syndrome and young-onset PD, then list every disease those "
         "genes are linked to.",
         project("associated_with", {"op": "union", "inputs": [
             project("associated_with", entity(PERRY), True),
             project("associated_with", entity(YOPD), True)]})),
        ("Take the genes for both Perry syndrome and young-onset PD, then list every disease "
         "those genes are linked to.",
         project("associated_with", {"op": "intersect", "inputs": [
             project("associated_with", entity(PERRY), True),
             project("associated_with", entity(YOPD), True)]})),
        # "X- and Y-associated disorders": those of each
        ("What disease classes do the SNCA- and LRRK2-associated disorders fall under?",
         project("subclass_of", {"op": "union", "inputs": [
             project("associated_with", entity(SNCA)),
             project("associated_with", entity("NCBIGene:120892"))]})),
    ],
)  # fmt: skip
def test_questions_of_the_eleventh_writer_classes(
    service: QueryService, question: str, expected: dict[str, object]
) -> None:
    assert service.resources("demo").planner.plan(question).query.model_dump() == expected


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        # "underlies" is the gene's link to the disease
        ("Which gene underlies Perry syndrome?", project("associated_with", entity(PERRY), True)),
        # a relative clause that says "also" narrows the answers, not the named noun before it
        ("phenotypes of LRRK2's diseases that HTT also has",
         {"op": "intersect", "inputs": [
             project("has_phenotype", project("associated_with", entity("NCBIGene:120892"))),
             project("has_phenotype", entity("NCBIGene:3064"))]}),
        # … while a bare kind keeps it: the diseases also show chorea
        ("genes linked to diseases that also show chorea",
         project("associated_with", project("has_phenotype", entity(CHOREA_SIGN), True, DISEASES),
                 True)),
    ],
)  # fmt: skip
def test_questions_of_the_twelfth_writer_classes(
    service: QueryService, question: str, expected: dict[str, object]
) -> None:
    assert service.resources("demo").planner.plan(question).query.model_dump() == expected


KUFOR_RAKEB, BDNF, PRRT2, SLC2A1 = (
    "OMIM:606693",
    "uniprot:P23560",
    "NCBIGene:112476",
    "NCBIGene:6513",
)


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        # sibling classes are the subtypes of the parents, however they are said
        ("genes for the sibling disorders of Kufor-Rakeb syndrome",
         project("associated_with", project("subclass_of", project("subclass_of",
                 entity(KUFOR_RAKEB)), True), True)),
        ("Which genes are linked to diseases that sit in the same category as Wilson's disease?",
         project("associated_with", project("subclass_of", project("subclass_of",
                 entity(WILSON)), True), True)),
        ("Which genes underlie Kufor-Rakeb syndrome's sister disorders (same parent class)?",
         project("associated_with", project("subclass_of", project("subclass_of",
                 entity(KUFOR_RAKEB)), True), True)),
        ("Which diseases share a parent category with Wilson's disease?",
         project("subclass_of", project("subclass_of", entity(WILSON)), True)),
        # "broader disease groupings … fall under": the parents
        ("Which broader disease groupings does Wilson's disease fall under?",
         project("subclass_of", entity(WILSON))),
        # a ligand docks onto its receptor; a symbol typed in lower case in a chat
        ("which receptors does bdnf dock onto", project("interacts_with", entity(BDNF))),
        # "the full list of" is a request
        ("What's the full list of conditions linked to PRRT2?",
         project("associated_with", entity(PRRT2))),
        # "turn up in the same diseases as X": linked to X's diseases
        ("Which genes turn up in the same diseases as PRRT2?",
         project("associated_with", project("associated_with", entity(PRRT2)), True)),
        # a question word typed wrong in a chat, and a walk "one more level up from" a set
        ("wat does bdnf bind to", project("interacts_with", entity(BDNF))),
        ("Going one more level up from the parents of Tremor, which HPO term do you land on?",
         project("subclass_of", project("subclass_of", entity(TREMOR)))),
        ("Following part-of links two steps up from autophagosome membrane docking, which GO "
         "process do you reach?",
         project("part_of", project("part_of", entity("GO:0016240")))),
    ],
)  # fmt: skip
def test_questions_of_the_thirteenth_writer_classes(
    service: QueryService, question: str, expected: dict[str, object]
) -> None:
    assert service.resources("demo").planner.plan(question).query.model_dump() == expected


def test_a_back_reference_is_read_as_the_names_before_it(service: QueryService) -> None:
    planner = service.resources("demo").planner
    plan = planner.plan(
        "A teenager has exercise-induced dyskinesia and I'm weighing PRRT2 against SLC2A1. "
        "Which conditions have both genes been tied to?"
    )
    assert plan.query.model_dump() == {
        "op": "intersect",
        "inputs": [
            project("associated_with", entity(PRRT2)),
            project("associated_with", entity(SLC2A1)),
        ],
    }
    assert plan.ambiguous and "'both genes' as 'both PRRT2 and SLC2A1'" in plan.unread[0]
    # "it" after one name; a reference with no name of its kind before it is not guessed
    plan = planner.plan("My patient was diagnosed with Perry syndrome. What does it present with?")
    assert plan.query.model_dump() == project("has_phenotype", entity(PERRY))
    with pytest.raises(PlanningError):
        planner.plan("My patient was seen today. Which genes cause it?")
    # "a feature shared by A and B" asks whether it is a feature of each
    plan = planner.plan("Is chorea a feature shared by Perry syndrome and Wilson disease?")
    assert plan.query.model_dump() == {
        "op": "intersect",
        "inputs": [
            project("has_phenotype", entity(PERRY)),
            project("has_phenotype", entity(WILSON)),
        ],
    }


def test_a_scene_set_before_a_colon_or_a_dash_is_context(service: QueryService) -> None:
    planner = service.resources("demo").planner
    plan = planner.plan("we are phenotyping an SNCA cohort - what phenotypes do the diseases "
                        "linked to SNCA show?")  # fmt: skip
    assert plan.query.model_dump() == project("has_phenotype", project("associated_with",
                                                                       entity(SNCA)))  # fmt: skip
    assert plan.ambiguous and plan.unread == ["we are phenotyping an SNCA cohort"]
    # a remark after the question mark leaves nothing to read there: a plan or a refusal,
    # never a crash
    with contextlib.suppress(PlanningError):
        planner.plan("autophagosome membrane docking -> part of -> part of? (GO)")


def test_sentences_before_the_question_are_context_unless_it_refers_back(
    service: QueryService,
) -> None:
    planner = service.resources("demo").planner
    plan = planner.plan("Reviewing a movement disorder panel. Which genes are implicated in "
                        "Perry syndrome?")  # fmt: skip
    assert plan.query.model_dump() == project("associated_with", entity(PERRY), True)
    # flagged, and the note says what was not read
    assert plan.ambiguous and plan.unread == ["Reviewing a movement disorder panel."]
    assert plan.notes[0].startswith("read the last sentence as the question")
    # "that sign" refers back: it is read as the sign named before it, and the note says so
    plan = planner.plan("Patient has chorea. Which diseases are linked to the genes annotated "
                        "with that sign?")  # fmt: skip
    assert plan.query.model_dump() == project(
        "associated_with", project("has_phenotype", entity(CHOREA_SIGN), True, GENES)
    )
    assert plan.ambiguous and "'that sign' as 'chorea'" in plan.unread[0]


RETT, ANGELMAN, HER3, HER4 = "ORPHA:778", "OMIM:105830", "uniprot:P21860", "uniprot:Q15303"
MITOPHAGY, MICROAUTOPHAGY = "GO:0000423", "GO:0016237"
VESICLE_EXOCYTOSIS, LATE_ONSET_PD = "GO:0016079", "OMIM:168600"


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        # "the same genes as X" is a comparison with a name, not a back reference
        ("Which diseases are tied to the same genes as Rett syndrome?",
         project("associated_with", project("associated_with", entity(RETT), True))),
        # a relation written by its KG name, as a data scientist types it
        ("Which GO terms are part_of synaptic vesicle exocytosis?",
         project("part_of", entity(VESICLE_EXOCYTOSIS), True)),
        # drug discovery's "hit" is binding: the ligands of the receptor
        ("Which ligands hit ERBB4?", project("interacts_with", entity(HER4), True)),
        # a request for the whole list after a dash asks nothing more
        ("APOE receptors - full list pls", project("interacts_with", entity(APOE))),
        # the preposition said again after "or" (read so before, kept as a guard)
        ("subtypes of mitophagy or of microautophagy",
         {"op": "union", "inputs": [project("subclass_of", entity(MITOPHAGY), True),
                                    project("subclass_of", entity(MICROAUTOPHAGY), True)]}),
        # "annotated HPO phenotypes" are the phenotypes
        ("parkin (PRKN) - annotated HPO phenotypes", project("has_phenotype", entity(PARKIN))),
        # a source named before a hierarchy noun, and names joined by "or" before a type word
        ("GO subtypes of mitophagy or of microautophagy",
         {"op": "union", "inputs": [project("subclass_of", entity(MITOPHAGY), True),
                                    project("subclass_of", entity(MICROAUTOPHAGY), True)]}),
        ("Rett syndrome or Angelman syndrome genes?",
         {"op": "union", "inputs": [project("associated_with", entity(RETT), True),
                                    project("associated_with", entity(ANGELMAN), True)]}),
        # kinds of symptoms are symptoms; an everyday word qualifying them is left out
        ("What kinds of symptoms does Wilson's disease cause?",
         project("has_phenotype", entity(WILSON))),
        ("What movement problems does Wilson's disease cause?",
         project("has_phenotype", entity(WILSON))),
        # … while the kind of disease a disease is, is its class
        ("What kind of disease is Nasu-Hakola disease?",
         project("subclass_of", entity("ORPHA:2770"))),
    ],
)  # fmt: skip
def test_questions_of_the_fourteenth_writer_classes(
    service: QueryService, question: str, expected: dict[str, object]
) -> None:
    assert service.resources("demo").planner.plan(question).query.model_dump() == expected


def test_only_the_sentence_asked_is_checked_for_negation(service: QueryService) -> None:
    planner = service.resources("demo").planner
    genes_of_rett = project("associated_with", entity(RETT), True)
    plan = planner.plan("The doctors haven't found her gene yet. Which genes are linked to Rett "
                        "syndrome?")  # fmt: skip
    assert plan.query.model_dump() == genes_of_rett and plan.ambiguous
    # a remark after the question mark is context, and the question is still checked
    plan = planner.plan("Which genes are linked to Rett syndrome? asking for a support group")
    assert plan.query.model_dump() == genes_of_rett
    assert plan.ambiguous and plan.unread == ["asking for a support group."]
    with pytest.raises(PlanningError, match="negated"):
        planner.plan("Which genes are not linked to Rett syndrome? just checking")
    # without a question mark no sentence is known to be the question: all are checked
    with pytest.raises(PlanningError, match="negated"):
        planner.plan("Which genes are not linked to Rett syndrome. We need them for a panel")


def test_a_reference_without_a_noun_is_read_as_the_last_two_names(service: QueryService) -> None:
    planner = service.resources("demo").planner
    plan = planner.plan("Our group covers Rett syndrome and Angelman syndrome. Which genes cause "
                        "either one?")  # fmt: skip
    assert plan.query.model_dump() == {
        "op": "union",
        "inputs": [project("associated_with", entity(RETT), True),
                   project("associated_with", entity(ANGELMAN), True)],
    }  # fmt: skip
    assert plan.ambiguous
    assert "'either one' as 'either Rett syndrome or Angelman syndrome'" in plan.unread[0]


def test_a_search_topic_before_a_dash_is_what_the_request_is_about(
    service: QueryService,
) -> None:
    plan = service.resources("demo").planner.plan("ERBB3/ERBB4 - ligands that hit both")
    assert plan.query.model_dump() == {
        "op": "intersect",
        "inputs": [project("interacts_with", entity(HER3), True),
                   project("interacts_with", entity(HER4), True)],
    }  # fmt: skip
    assert plan.ambiguous  # the reordering is a guess
    assert (
        "read 'ERBB3/ERBB4 - ligands that hit both' as 'ligands that hit both ERBB3 and ERBB4'"
        in plan.notes
    )


def test_a_possessive_typed_without_its_apostrophe_is_the_disease(service: QueryService) -> None:
    plan = service.resources("demo").planner.plan(
        "is PINK1 one of the genes for late-onset parkinsons?"
    )
    assert plan.query.model_dump() == project("associated_with", entity(LATE_ONSET_PD), True)
    assert plan.candidate is not None and plan.candidate.id == PINK1
    assert "read 'parkinsons' as \"Parkinson's\"" in plan.notes


def test_a_suspended_prefix_is_completed_and_that_refers_to_the_name_before_it(
    service: QueryService,
) -> None:
    planner = service.resources("demo").planner
    plan = planner.plan("genes for early- or late-onset Parkinson disease")
    assert plan.query.model_dump() == {
        "op": "union",
        "inputs": [project("associated_with", entity(YOPD), True),
                   project("associated_with", entity(LATE_ONSET_PD), True)],
    }  # fmt: skip
    plan = planner.plan("Our son carries a PINK1 variant. Is that one of the genes for late-onset "
                        "Parkinson disease?")  # fmt: skip
    assert plan.query.model_dump() == project("associated_with", entity(LATE_ONSET_PD), True)
    assert plan.candidate is not None and plan.candidate.id == PINK1
    assert plan.ambiguous and "'that' as 'PINK1'" in plan.unread[0]


FRIEDREICH, DOPA_RESPONSIVE, ESSENTIAL_TREMOR = "ORPHA:95", "MONDO:0016812", "MONDO:0003233"
CMT2, STEPPAGE = "MONDO:0018993", "HP:0003376"


def test_a_question_naming_nothing_is_about_the_one_name_its_context_gives(
    service: QueryService,
) -> None:
    planner = service.resources("demo").planner
    plan = planner.plan("My brother has Friedreich's ataxia. What symptoms should we expect?")
    assert plan.query.model_dump() == project("has_phenotype", entity(FRIEDREICH))
    assert plan.ambiguous and "Friedreich's ataxia" in plan.unread[0]
    plan = planner.plan("The clinic thinks she has a form of dopa-responsive dystonia. Which "
                        "genes can cause the different forms?")  # fmt: skip
    assert plan.query.model_dump() == project(
        "associated_with", project("subclass_of", entity(DOPA_RESPONSIVE), True), True
    )
    # "the same gene as hers": the person's condition
    plan = planner.plan("My cousin has Rett syndrome. Which conditions are caused by the same "
                        "gene as hers?")  # fmt: skip
    assert plan.query.model_dump() == project(
        "associated_with", project("associated_with", entity(RETT), True)
    )
    # a reference to what the context describes is not the topic: at most a flagged guess
    plan = planner.plan("My cousin has Rett syndrome. Which genes are behind those two kinds?")
    assert plan.ambiguous and plan.notes[0].startswith("guessed")
    # a remark after the question names nothing: "they" refers inside the question
    plan = planner.plan("For the Rett syndrome genes, which diseases are they linked to? "
                        "asking for a support group")  # fmt: skip
    assert plan.query.model_dump() == project(
        "associated_with", project("associated_with", entity(RETT), True)
    )


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        # an inherited form of a disease is one of its subtypes: the hop is not lost
        ("Which genes are linked to the inherited forms of essential tremor?",
         project("associated_with", project("subclass_of", entity(ESSENTIAL_TREMOR), True),
                 True)),
        # "X types" after a name are its subtypes; "type 1" is a member's name and "disease
        # types" are diseases
        ("Which CMT2 types have steppage gait?",
         {"op": "intersect", "inputs": [project("subclass_of", entity(CMT2), True),
                                        project("has_phenotype", entity(STEPPAGE), True)]}),
        ("Which disease types are linked to SNCA?", project("associated_with", entity(SNCA))),
        ("What symptoms appear in Friedreich ataxia?",
         project("has_phenotype", entity(FRIEDREICH))),
        # two hierarchy nouns before one "of": each of the name
        ("What are the parent and child terms of mitophagy in GO?",
         {"op": "union", "inputs": [project("subclass_of", entity(MITOPHAGY)),
                                    project("subclass_of", entity(MITOPHAGY), True)]}),
        # a term described by its parents is a subtype of each
        ("Which GO term has as direct parents both macroautophagy and mitophagy?",
         {"op": "intersect", "inputs": [project("subclass_of", entity(MACROAUTOPHAGY), True),
                                        project("subclass_of", entity(MITOPHAGY), True)]}),
        # words of second-language writers and of drug discovery
        ("Which processes are annotated as part of synaptic vesicle exocytosis in GO?",
         project("part_of", entity(VESICLE_EXOCYTOSIS), True)),
        ("Enumerate every subtype of dopa-responsive dystonia you have in the graph.",
         project("subclass_of", entity(DOPA_RESPONSIVE), True)),
        ("Which ligands engage RET?", project("interacts_with", entity(RET), True)),
        # a disorder classed directly under a group; at least one shared gene; the clinical
        # picture; binding said as latching on; everything of two lists merged
        ("Which disorders are classed directly under dopa-responsive dystonia?",
         project("subclass_of", entity(DOPA_RESPONSIVE), True)),
        ("Which disorders share at least one gene with Rett syndrome?",
         project("associated_with", project("associated_with", entity(RETT), True))),
        ("What is the clinical picture of Friedreich ataxia?",
         project("has_phenotype", entity(FRIEDREICH))),
        ("Which receptors does GDNF latch onto?", project("interacts_with", entity(GDNF))),
        ("Could you merge the direct parts and the direct subtypes of macroautophagy in GO into "
         "a single list?",
         {"op": "union", "inputs": [project("part_of", entity(MACROAUTOPHAGY), True),
                                    project("subclass_of", entity(MACROAUTOPHAGY), True)]}),
        # "both" before the subjects of a relative clause; "classified as a type of"; "recorded
        # as component steps of"; a last sentence that only asks for the result
        ("receptors that BOTH apoE and APP bind?",
         {"op": "intersect", "inputs": [project("interacts_with", entity(APOE)),
                                        project("interacts_with", entity(APP))]}),
        ("What is mitophagy directly classified as a type of?",
         project("subclass_of", entity(MITOPHAGY))),
        ("Which GO processes are recorded as component steps of synaptic vesicle exocytosis?",
         project("part_of", entity(VESICLE_EXOCYTOSIS), True)),
        ("GDNF -> the receptors it binds -> the genes encoding those receptors. What's the "
         "final gene list?",
         project("encodes", project("interacts_with", entity(GDNF)), True)),
        # where the answers' phenotypes are recorded adds nothing; an aside describing a name;
        # "the same diseases it's linked to" after a topic
        ("Which of the genes tied to Rett syndrome also have both dystonia and chorea among "
         "their recorded phenotypes?",
         {"op": "intersect", "inputs": [
             project("associated_with", entity(RETT), True),
             {"op": "intersect", "inputs": [project("has_phenotype", entity(DYSTONIA), True),
                                            project("has_phenotype", entity(CHOREA), True)]}]}),
        ("Which receptors are bound by GDNF, the protein that keeps dopamine neurons alive?",
         project("interacts_with", entity(GDNF))),
        ("PINK1 - which genes turn up in the same diseases it's linked to?",
         project("associated_with", project("associated_with", entity(PINK1)), True)),
        # a question put after a request
        ("Show me what the proteins encoded by COL4A1 interact with.",
         project("interacts_with", project("encodes", entity("NCBIGene:1282")))),
        ("Which symptoms of Rett syndrome overlap with Angelman syndrome?",
         {"op": "intersect", "inputs": [project("has_phenotype", entity(RETT)),
                                        project("has_phenotype", entity(ANGELMAN))]}),
        ("Comparing Rett and Angelman: which symptoms of Rett syndrome are shared with "
         "Angelman syndrome?",
         {"op": "intersect", "inputs": [project("has_phenotype", entity(RETT)),
                                        project("has_phenotype", entity(ANGELMAN))]}),
        ("Which are the subtypes of the GO term whose parents are macroautophagy and mitophagy?",
         project("subclass_of", {"op": "intersect", "inputs": [
             project("subclass_of", entity(MACROAUTOPHAGY), True),
             project("subclass_of", entity(MITOPHAGY), True)]}, True)),
        # what is directly above a term and directly below it: its parents and its children
        ("What is directly above mitophagy and directly below it in GO?",
         {"op": "union", "inputs": [project("subclass_of", entity(MITOPHAGY)),
                                    project("subclass_of", entity(MITOPHAGY), True)]}),
        ("What sits immediately below macroautophagy and immediately above macroautophagy?",
         {"op": "union", "inputs": [project("subclass_of", entity(MACROAUTOPHAGY), True),
                                    project("subclass_of", entity(MACROAUTOPHAGY))]}),
    ],
)  # fmt: skip
def test_questions_of_the_sixteenth_writer_classes(
    service: QueryService, question: str, expected: dict[str, object]
) -> None:
    assert service.resources("demo").planner.plan(question).query.model_dump() == expected


GRN_PROTEIN, TREM2, NGF, NT3, SHH = (
    "uniprot:P28799",
    "uniprot:Q9NZC2",
    "uniprot:P01138",
    "uniprot:P20783",
    "uniprot:Q15465",
)


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        # a remark after the question, in brackets, naming something else; a topic put first
        # in the last sentence is what "it" refers to
        ("PINK1 - which genes turn up in the same diseases it's linked to? (the PARK genes, "
         "mostly)",
         project("associated_with", project("associated_with", entity(PINK1)), True)),
        # an arrow chain asked twice over ("??") with a remark after it
        ("SHH receptors -> their genes -> which diseases?? probably holoprosencephaly",
         project("associated_with", project("encodes", project("interacts_with",
                                                                entity(SHH)), True))),
        # the kind after a hierarchy noun; a clause restating it
        ("What signs does the parent condition of juvenile Huntington disease have?",
         project("has_phenotype", project("subclass_of", entity("ORPHA:248111")))),
        ("juvenile HD - what signs does the parent condition it sits under have?",
         project("has_phenotype", project("subclass_of", entity("ORPHA:248111")))),
        # steps listed after one verb, with a possessive back reference; a type word in
        # apposition before a name
        ("Given the protein progranulin, find the gene that encodes it, that gene's diseases, "
         "and the phenotypes of those diseases.",
         project("has_phenotype", project("associated_with",
                                          project("encodes", entity(GRN_PROTEIN), True)))),
        ("Which receptors does the protein GDNF bind?", project("interacts_with", entity(GDNF))),
        # a filter said as a second step; an intersection said as a verb; mapping a result
        # onto another kind; whatever is bound; a role said with "act as"; "make" as encoding
        ("Take the ligands of the receptor encoded by the FGFR1 gene and keep only those that "
         "also bind FGFR2.",
         {"op": "intersect", "inputs": [
             project("interacts_with", project("encodes", entity("NCBIGene:2260")), True),
             project("interacts_with", entity(FGFRS[1]), True)]}),
        ("Intersect the receptors bound by NGF with those bound by neurotrophin-3, then map "
         "the shared receptors back to the genes that encode them.",
         project("encodes", {"op": "intersect", "inputs": [
             project("interacts_with", entity(NGF)), project("interacts_with", entity(NT3))]},
             True)),
        ("Collect the genes linked to Kallmann syndrome, map them to the proteins they encode, "
         "and return whatever those proteins bind as receptors.",
         project("interacts_with", project("encodes", project("associated_with",
                                                              entity(KALLMANN), True)))),
        ("Which genes make proteins that act as ligands of TREM2?",
         project("encodes", project("interacts_with", entity(TREM2), True), True)),
    ],
)  # fmt: skip
def test_questions_of_the_seventeenth_writer_classes(
    service: QueryService, question: str, expected: dict[str, object]
) -> None:
    assert service.resources("demo").planner.plan(question).query.model_dump() == expected


TORTICOLLIS, RETROCOLLIS, CLONUS, MYOKYMIA = "HP:0000473", "HP:0002544", "HP:0002169", "HP:0002411"


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        # clinical shorthand
        ("Which dx are linked to both PRRT2 and SLC2A1?",
         {"op": "intersect", "inputs": [project("associated_with", entity(PRRT2)),
                                        project("associated_with", entity(SLC2A1))]}),
        ("Perry syndrome (OMIM) - what sx does it have?",
         project("has_phenotype", entity("OMIM:168605"))),
        # lists asked for as one
        ("Give me the child terms of Clonus together with the child terms of Myokymia, one "
         "combined list.",
         {"op": "union", "inputs": [project("subclass_of", entity(CLONUS), True),
                                    project("subclass_of", entity(MYOKYMIA), True)]}),
        ("receptors for GDNF plus the receptors for NGF",
         {"op": "union", "inputs": [project("interacts_with", entity(GDNF)),
                                    project("interacts_with", entity(NGF))]}),
        ("union of the GDNF receptors and the NGF receptors",
         {"op": "union", "inputs": [project("interacts_with", entity(GDNF)),
                                    project("interacts_with", entity(NGF))]}),
        # ontology editors' is_a; an id followed by its name
        ("What are the asserted is_a parents of Head titubation?",
         project("subclass_of", entity("HP:0002599"))),
        ("Walk two is_a steps up from mitophagy: which terms do you land on?",
         project("subclass_of", project("subclass_of", entity(MITOPHAGY)))),
        ("Records that are is_a dopa-responsive dystonia AND is_a tyrosine hydroxylase "
         "deficiency?",
         {"op": "intersect", "inputs": [project("subclass_of", entity(DOPA_RESPONSIVE), True),
                                        project("subclass_of", entity("MONDO:0100064"), True)]}),
        ("Is Retrocollis is_a Torticollis?",
         project("subclass_of", entity(TORTICOLLIS), True)),
        ("Which GO term is subsumed by both macroautophagy and mitophagy?",
         {"op": "intersect", "inputs": [project("subclass_of", entity(MACROAUTOPHAGY), True),
                                        project("subclass_of", entity(MITOPHAGY), True)]}),
        # "the same gene" said of the topic before it; the KG as the one who annotates or
        # as the place; curators' "records"
        ("Kufor-Rakeb syndrome — which disorders linked to the same gene show a Babinski "
         "sign?",
         {"op": "intersect", "inputs": [
             project("associated_with", project("associated_with", entity(KUFOR_RAKEB), True)),
             project("has_phenotype", entity("HP:0003487"), True)]}),
        ("Which phenotypes does the KG annotate to the SGCE gene?",
         project("has_phenotype", entity("NCBIGene:8910"))),
        ("receptors that both GDNF and NGF hit in the KG — which genes encode those receptors?",
         project("encodes", {"op": "intersect", "inputs": [
             project("interacts_with", entity(GDNF)), project("interacts_with", entity(NGF))]},
             True)),
        ("Which genes are associated with the records classified directly under "
         "dopa-responsive dystonia?",
         project("associated_with", project("subclass_of", entity(DOPA_RESPONSIVE), True),
                 True)),
        # steps after a dash; "its protein" of a gene is the protein it encodes; a last
        # remark on the asker's own plans
        ("the TREM2 ligands — which genes encode them, and what diseases are those genes "
         "linked to?",
         project("associated_with", project("encodes", project("interacts_with", entity(TREM2),
                                                               True), True))),
        ("VLDLR gene -> its protein -> what ligands bind it?",
         project("interacts_with", project("encodes", entity("NCBIGene:7436")), True)),
        ("which receptors does NGF bind, going to stain for all of them",
         project("interacts_with", entity(NGF))),
        # a participle right after a hierarchy noun narrows that noun's answers, not the
        # question's ("… annotated to the NBIA subtypes linked to WDR45")
        ("Which phenotypes are annotated to the subtypes of NBIA linked to WDR45?",
         project("has_phenotype", {"op": "intersect", "inputs": [
             project("subclass_of", entity("MONDO:0018307"), True),
             project("associated_with", entity("NCBIGene:11152"))]})),
        ("Which phenotypes are annotated to the NBIA subtypes linked to WDR45?",
         project("has_phenotype", {"op": "intersect", "inputs": [
             project("subclass_of", entity("MONDO:0018307"), True),
             project("associated_with", entity("NCBIGene:11152"))]})),
        # … but not a participle ending the question
        ("Krabbe disease subtypes - what conditions are their genes linked to?",
         project("associated_with", project("associated_with", project(
             "subclass_of", entity("ORPHA:487"), True), True))),
        # plain "is a" is no is_a
        ("Which GO term is a subtype of both macroautophagy and mitophagy?",
         {"op": "intersect", "inputs": [project("subclass_of", entity(MACROAUTOPHAGY), True),
                                        project("subclass_of", entity(MITOPHAGY), True)]}),
    ],
)  # fmt: skip
def test_questions_of_the_eighteenth_writer_classes(
    service: QueryService, question: str, expected: dict[str, object]
) -> None:
    assert service.resources("demo").planner.plan(question).query.model_dump() == expected


TRKA, DOPA_RESPONSIVE_DYSTONIA, GCH1 = "uniprot:P04629", "MONDO:0016812", "NCBIGene:2643"
PANK2, FIBRILLATION, FASCICULATIONS = "NCBIGene:80025", "HP:0010546", "HP:0002380"
TREM2_GENE, VLDLR, POSTURAL_INSTABILITY = "NCBIGene:54209", "NCBIGene:7436", "HP:0002172"
DRAVET, EARLY_INFANTILE_DEE = "ORPHA:33069", "ORPHA:1934"
DAG1_PROTEIN, SV2A_PROTEIN = "uniprot:Q14118", "uniprot:Q7L0J3"
OUTER_MEMBRANE_FUSION, AUTOPHAGOSOME_DOCKING = "GO:1990626", "GO:0016240"
DLL1_PROTEIN, JAG2_PROTEIN = "uniprot:O00548", "uniprot:Q9Y219"
PAROXYSMAL_DYSTONIA, PRESENILIN_1, HCRT_PROTEIN = "HP:0002268", "uniprot:P49768", "uniprot:O43612"


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        # two answer phrases listed one after the other: the answers of each
        ("list the proteins that NGF binds, plus every ligand that binds TrkA",
         {"op": "union", "inputs": [project("interacts_with", entity(NGF)),
                                    project("interacts_with", entity(TRKA), True)]}),
        ("the receptors NGF binds and the ligands that bind TrkA",
         {"op": "union", "inputs": [project("interacts_with", entity(NGF)),
                                    project("interacts_with", entity(TRKA), True)]}),
        # an object relative without "that" in the answer phrase itself
        ("list the proteins NGF binds", project("interacts_with", entity(NGF))),
        # "a form of X" is a subtype of X
        ("Which conditions are either classed as a form of dopa-responsive dystonia or have "
         "been linked to the GCH1 gene?",
         {"op": "union", "inputs": [project("subclass_of", entity(DOPA_RESPONSIVE_DYSTONIA), True),
                                    project("associated_with", entity(GCH1))]}),
        # "their own child terms", "HPO terms", "placed under"
        ("For HPO terms placed under both Muscle fibrillation and Fasciculations, give me their "
         "own child terms.",
         project("subclass_of", {"op": "intersect", "inputs": [
             project("subclass_of", entity(FIBRILLATION), True),
             project("subclass_of", entity(FASCICULATIONS), True)]}, True)),
        # the side of a binding said after the verb
        ("Trem2 gene: what does its protein bind to (as the ligand side)?",
         project("interacts_with", project("encodes", entity(TREM2_GENE)))),
        ("What does TREM2 bind as a receptor?", project("interacts_with", entity(TREM2), True)),
        # walks: "and tell me which terms you land on", "exactly", "the ancestors N hops up"
        ("Walk three steps up from pill-rolling tremor and tell me which term you reach",
         project("subclass_of", project("subclass_of", project("subclass_of",
                                                               entity(PILL_ROLLING))))),
        ("What term sits exactly two levels above pill-rolling tremor?",
         project("subclass_of", project("subclass_of", entity(PILL_ROLLING)))),
        ("pill-rolling tremor: what are the ancestors two superclass hops up?",
         project("subclass_of", project("subclass_of", entity(PILL_ROLLING)))),
        # a restatement after the question; "the gene" referring to the topic; stress words
        ("pill-rolling tremor -> grandparents? i.e. terms exactly two is_a steps above it.",
         project("subclass_of", project("subclass_of", entity(PILL_ROLLING)))),
        ("For the gene PANK2, return the phenotype terms annotated directly to the gene itself.",
         project("has_phenotype", entity(PANK2))),
        # "and are classed as …" after a nested phrase belongs to the answers
        ("Disorders that share a gene with Dravet and are classed as early-infantile DEEs?",
         {"op": "intersect", "inputs": [
             project("associated_with", project("associated_with", entity(DRAVET), True)),
             project("subclass_of", entity(EARLY_INFANTILE_DEE), True)]}),
        # an object relative whose subject has a clause of its own
        ("For the ligands common to DAG1 and SV2A, list every receptor those ligands bind.",
         project("interacts_with", {"op": "intersect", "inputs": [
             project("interacts_with", entity(DAG1_PROTEIN), True),
             project("interacts_with", entity(SV2A_PROTEIN), True)]})),
        # "both" standing for the topic, then a step on the result
        ("pill-rolling tremor AND postural instability - conditions with both, then their genes",
         project("associated_with", {"op": "intersect", "inputs": [
             project("has_phenotype", entity(PILL_ROLLING), True, DISEASES),
             project("has_phenotype", entity(POSTURAL_INSTABILITY), True, DISEASES)]}, True)),
        # a relative clause after a hierarchy noun's typed argument narrows that argument
        ("The PRRT2-linked disorders that feature paroxysmal dystonia: what broader categories "
         "do they belong to?",
         project("subclass_of", {"op": "intersect", "inputs": [
             project("associated_with", entity(PRRT2)),
             project("has_phenotype", entity(PAROXYSMAL_DYSTONIA), True)]})),
        # a pronoun for the subject of a context sentence that names two things
        ("I understand presenilin-1 is the protein most often mutated in early-onset "
         "Alzheimer's. What conditions have been linked to the gene that codes for it?",
         project("associated_with", project("encodes", entity(PRESENILIN_1), True))),
        # a peptide named without "precursor"; "that peptide" refers back
        ("The sleep disorder narcolepsy involves a brain messenger called hypocretin (also known "
         "as orexin). Which receptors does that peptide bind?",
         project("interacts_with", entity(HCRT_PROTEIN))),
        ("Which receptors does orexin bind?", project("interacts_with", entity(HCRT_PROTEIN))),
        # a chain told as a riddle
        ("Mitochondrial outer membrane fusion is part of some process - what is that process "
         "itself a type of?",
         project("subclass_of", project("part_of", entity(OUTER_MEMBRANE_FUSION)))),
        ("autophagosome membrane docking is part of a step that is itself part of which larger "
         "process?",
         project("part_of", project("part_of", entity(AUTOPHAGOSOME_DOCKING)))),
        # a symbol in brackets names the protein the words before it only come close to
        ("Which receptors are bound by both delta-like 1 (DLL1) and Jagged-2?",
         {"op": "intersect", "inputs": [project("interacts_with", entity(DLL1_PROTEIN)),
                                        project("interacts_with", entity(JAG2_PROTEIN))]}),
        # … and after a disease it is a gloss: the disease stays the anchor
        ("Which genes are linked to Perry syndrome (DCTN1)?",
         project("associated_with", entity("OMIM:168605"), True)),
        # a gene symbol in mouse style
        ("ligands of the receptor encoded by Vldlr that also bind Trem2?",
         {"op": "intersect", "inputs": [
             project("interacts_with", project("encodes", entity(VLDLR)), True),
             project("interacts_with", entity(TREM2), True)]}),
    ],
)  # fmt: skip
def test_questions_of_the_nineteenth_writer_classes(
    service: QueryService, question: str, expected: dict[str, object]
) -> None:
    assert service.resources("demo").planner.plan(question).query.model_dump() == expected


def test_is_it_true_that_asks_yes_or_no(service: QueryService) -> None:
    plan = service.resources("demo").planner.plan(
        "Is it true that LRRK2 is linked to Parkinson disease 8?"
    )
    assert plan.candidate is not None and plan.candidate.id == LRRK2
    assert not plan.ambiguous


def test_an_id_followed_by_its_name_is_one_anchor(service: QueryService) -> None:
    plan = service.resources("demo").planner.plan(
        "Is HP:0002544 Retrocollis a direct child of Torticollis?"
    )
    assert plan.candidate is not None and plan.candidate.id == RETROCOLLIS
    assert plan.query.model_dump() == project("subclass_of", entity(TORTICOLLIS), True)


def test_not_via_says_which_edges_not_what_is_excluded(service: QueryService) -> None:
    planner = service.resources("demo").planner
    planner.refuse_negation("Which ALS genes are annotated with chorea (not via their diseases)?")
    with pytest.raises(PlanningError, match="negated"):
        planner.refuse_negation("Which genes are linked to ALS, not FTD?")


def test_a_fuzzy_anchor_is_always_flagged(service: QueryService) -> None:
    """Words around a fuzzily linked name may have gone unread: never a confident plan."""
    planner = service.resources("demo").planner
    anchor = planner._reading()._link(
        "the heritable forms of essential tremor", "associated_with", "gene"
    )
    assert anchor.id == ESSENTIAL_TREMOR and anchor.ambiguous


def test_a_refusal_says_when_no_relation_joins_the_two_kinds(service: QueryService) -> None:
    """The demo KG holds GO terms but joins them to no gene or protein: the refusal says so
    rather than only that the worded relation does not fit."""
    planner = service.resources("demo").planner
    for question in (
        "What biological processes is SNCA involved in?",
        "Which GO processes is alpha-synuclein part of?",
    ):
        with pytest.raises(PlanningError, match="no relation of this KG joins gene and go_term"):
            planner.plan(question)
    # where a relation joins the two kinds, the question is read through it instead
    assert planner.plan("Which diseases interact with SNCA?").query.model_dump() == project(
        "associated_with", entity(SNCA)
    )


def test_a_refusal_names_the_terms_the_kg_lacks(service: QueryService) -> None:
    """The demo KG's slice lacks most of HPO, MONDO and HGNC: a refusal says which of the
    question's names are known terms it does not hold, not only that it could not read
    them — and never says so of a term the KG holds under another record."""
    planner = service.resources("demo").planner
    expected = {
        "Which diseases have hypotonia?": "'hypotonia' is HPO's phenotype Hypotonia "
        "(HP:0001252), which this KG does not hold",
        "What are the genes for cystic fibrosis?": "'cystic fibrosis' is MONDO's disease "
        "cystic fibrosis (MONDO:0009061), which this KG does not hold",
        "Which genes cause hypotonia and seizures?": "'seizures' is HPO's phenotype Seizure "
        "(HP:0001250): this KG holds none of them",
    }
    for question, said in expected.items():
        with pytest.raises(PlanningError, match=re.escape(said)):
            planner.plan(question)
    # SNCA and Huntington disease are the KG's own (by NCBI Gene and Orphanet ids, not by
    # the vocabulary's HGNC and MONDO ids)
    with pytest.raises(PlanningError) as refused:
        planner.plan("Which genes does SNCA frobnicate in Huntington disease?")
    assert "does not hold" not in str(refused.value)
    # a negated question is refused for its negation alone
    with pytest.raises(NegatedQuestionError) as refused:
        planner.plan("Which genes are not linked to hypotonia?")
    assert "does not hold" not in str(refused.value)


def test_a_family_the_kg_holds_only_as_numbered_members_is_read_as_their_class(
    service: QueryService,
) -> None:
    """MONDO has no "spinocerebellar ataxia" class: fuzzy search took "Spinocerebellar ataxia
    50" (one gene, NPTX1). The family's numbered members sit under MONDO's autosomal dominant
    cerebellar ataxia, so that class's subtypes are read, said in the notes."""
    planner = service.resources("demo").planner
    for question in (
        "Which genes cause spinocerebellar ataxia?",
        "What genes are associated with spinocerebellar ataxias?",
    ):
        plan = planner.plan(question)
        (anchor,) = plan.anchors
        assert anchor.id == "MONDO:0020380" and not anchor.ambiguous
        assert any("numbered 'spinocerebellar ataxia" in note for note in plan.notes)
        genes = execute_sets(service.resources("demo").store, plan.query)[0]
        # ATXN1, ATXN2, ATXN3 (SCA1-3) and TBP (SCA17) among them
        assert {"NCBIGene:6310", "NCBIGene:6311", "NCBIGene:4287", "NCBIGene:6908"} <= genes
    # a name the KG holds is read as itself
    (anchor,) = planner.plan("Which genes cause Charcot-Marie-Tooth disease?").anchors
    assert anchor.id == "MONDO:0015626"


def test_a_broken_name_table_leaves_the_refusals_reason(
    service: QueryService, monkeypatch: pytest.MonkeyPatch
) -> None:
    def unreadable(_: str) -> None:
        raise KGError("outside_names.tsv.gz: expected 3 columns per row")

    monkeypatch.setattr(planner_module, "vocabulary_terms", unreadable)
    with pytest.raises(PlanningError, match=r"^could not read 'hypotonia'$"):
        service.resources("demo").planner.plan("Which diseases have hypotonia?")


def test_a_verb_of_having_never_reads_a_hierarchy(service: QueryService) -> None:
    """The demo KG holds ataxia, epilepsy and dementia as diseases only (its HPO slice lacks
    them): "which diseases have ataxia" was read as what cerebellar ataxia is a kind of
    ("cerebellar disorder", "movement disorder"), confidently. A verb of having names no kind
    or part, so it is refused with the reason, by every reader."""
    planner = service.resources("demo").planner
    for question in (
        "Which diseases have ataxia?",
        "Which disorders show ataxia?",
        "What conditions have dementia?",
    ):
        with pytest.raises(PlanningError, match="'has_phenotype' edges do not connect"):
            planner.plan(question)
    # a kind word still reads the hierarchy, and "have" between a disease and a phenotype
    # still reads as having it
    subtypes = planner.plan("What subtypes does epilepsy have?").query
    assert subtypes.relation == "subclass_of" and subtypes.inverse  # type: ignore[union-attr]
    features = planner.plan("What phenotypes does Huntington disease have?").query
    assert features.relation == "has_phenotype"  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        # the argument only repeats the verb's relation as "<noun> of": it names the phenotype
        ("Which genes have a phenotype of tremor?",
         project("has_phenotype", entity("HP:0001337"), True, GENES)),
        ("Which diseases have a symptom of chorea?",
         project("has_phenotype", entity("HP:0002072"), True, DISEASES)),
        # a hierarchy's "subtypes of subtypes of" still goes two levels down
        ("Which diseases are subtypes of subtypes of Parkinson disease?",
         project("subclass_of", project("subclass_of", entity("MONDO:0005180"), True), True)),
    ],
)  # fmt: skip
def test_a_relation_noun_repeating_its_verb_names_the_object(
    service: QueryService, question: str, expected: dict[str, object]
) -> None:
    assert service.resources("demo").planner.plan(question).query.model_dump() == expected
