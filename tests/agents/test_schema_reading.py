"""The schema reader: the planner's last resort fits names and relation words to the KG's
type signatures, always as a flagged guess, and still refuses what it cannot fit."""

from __future__ import annotations

import pytest

from kgrecall.agents import PlanningError, QueryService, chart
from kgrecall.agents.planner import OfflinePlanner
from kgrecall.agents.schema_reading import _words, read_by_schema
from kgrecall.agents.synthesis import template_report
from kgrecall.tools import execute_sets

NTRK1, NTRK2 = "uniprot:P04629", "uniprot:Q16620"
SCA48, LRRK2, PD8 = "OMIM:618093", "NCBIGene:120892", "OMIM:607060"


def project(relation: str, inner: dict[str, object], inverse: bool = False) -> dict[str, object]:
    return {"op": "project", "relation": relation, "inverse": inverse, "input": inner}


def entity(identifier: str) -> dict[str, object]:
    return {"op": "entity", "id": identifier}


@pytest.fixture(scope="module")
def planner(service: QueryService) -> OfflinePlanner:
    return service.resources("demo").planner


def test_a_word_said_once_names_the_hop_of_every_branch(planner: OfflinePlanner) -> None:
    # "act on" is no relation wording the readers know; "ligands" asks for the heads of
    # interactions, and both names are read as the receptor proteins, not the genes
    plan = planner.plan("Which ligands act on TrkA or TrkB?")
    assert plan.guessed and plan.ambiguous
    assert plan.query.model_dump() == {
        "op": "union",
        "inputs": [
            project("interacts_with", entity(NTRK1), inverse=True),
            project("interacts_with", entity(NTRK2), inverse=True),
        ],
    }
    assert plan.notes[0].startswith("guessed: the question's phrase structure was not recognised")


def test_a_relation_verb_after_its_entity_is_read_the_other_way_round(
    planner: OfflinePlanner,
) -> None:
    # "filed under" after the disease: its parents, not its subtypes
    plan = planner.plan("Spinocerebellar ataxia 48: which broader categories is it filed under?")
    # flagged: "it" is read as the name before the colon
    assert plan.ambiguous
    assert plan.query.model_dump() == project("subclass_of", entity(SCA48))


def test_a_yes_no_question_is_answered_about_its_candidate(planner: OfflinePlanner) -> None:
    plan = planner.plan("Does LRRK2 have any tie to Parkinson disease 8?")
    assert plan.guessed and plan.candidate is not None
    answers, _ = execute_sets(planner.store, plan.query)
    # asked either way round, the reading holds the other entity as the answer: yes
    other = PD8 if plan.candidate.id == LRRK2 else LRRK2
    assert plan.candidate.id in {LRRK2, PD8} and other in {a.id for a in plan.anchors}
    assert plan.candidate.id in answers


@pytest.mark.parametrize(
    "question",
    [
        # no type word and no relation word: nothing says what is asked
        "On which chromosome is the HTT gene located?",
        "What is the CAG repeat length threshold for Huntington disease?",
        # a relation the KG cannot take from a gene: refused, not bent into another one
        "Which microRNAs regulate SNCA expression?",
        # a type the KG does not hold
        "Which drugs are used against Parkinson disease 4?",
    ],
)
def test_what_cannot_be_fitted_honestly_is_still_refused(
    planner: OfflinePlanner, question: str
) -> None:
    with pytest.raises(PlanningError):
        planner.plan(question)
    assert read_by_schema(question, planner.linker, planner.store, planner.signatures,
                          chart.MEANINGFUL) is None  # fmt: skip


def test_everyday_words_count_in_british_spelling_too() -> None:
    assert chart.everyday("characterised") and chart.everyday("characterized")
    assert chart.everyday("orphanet")  # a source's name
    assert not chart.everyday("frobnicated") and not chart.everyday("zebrafish")


def test_unplaced_words_beyond_the_kgs_relations_are_refused(planner: OfflinePlanner) -> None:
    # the same names and words fit a tree, but "treatment" asks beyond the KG
    fitted = "Spinocerebellar ataxia 48: which broader categories is it filed under?"
    beyond = "Spinocerebellar ataxia 48: which broader categories is its treatment filed under?"
    args = (planner.linker, planner.store, planner.signatures, chart.MEANINGFUL)
    assert read_by_schema(fitted, *args) is not None
    assert read_by_schema(beyond, *args) is None


def test_an_unknown_word_after_the_question_word_names_the_kind_asked(
    planner: OfflinePlanner,
) -> None:
    # "neurotrophins" is no type word and no everyday word: as the question's own noun it
    # names the kind asked, and the relations decide its type (the heads of interactions)
    args = (planner.linker, planner.store, planner.signatures, chart.MEANINGFUL)
    reading = read_by_schema("Which neurotrophins bind the receptor encoded by NTRK2?", *args)
    assert reading is not None and reading.answer_type == "protein"
    assert reading.query.model_dump() == project(
        "interacts_with", project("encodes", entity("NCBIGene:4915")), inverse=True
    )
    # the same term anywhere else is still content the KG lacks
    elsewhere = "Which proteins bind the receptor encoded by NTRK2 in neurotrophins?"
    assert read_by_schema(elsewhere, *args) is None


def test_restated_relation_words_are_one_requirement_unless_chained(
    planner: OfflinePlanner,
) -> None:
    restated = _words(chart.tag("list the kinds of tremor, just the direct subtypes",
                                planner.linker), None)  # fmt: skip
    assert [(w.relation, w.optional) for w in restated] == [
        ("subclass_of", False),
        ("subclass_of", True),
    ]
    chained = _words(chart.tag("What are the subtypes of the subtypes of dystonia?",
                               planner.linker), None)  # fmt: skip
    assert [w.optional for w in chained] == [False, False]
    walk = _words(chart.tag("Under dystonia, what are the terms three levels down?",
                            planner.linker), None)  # fmt: skip
    # the walk (three hops) is the requirement; "Under" restates it
    assert [(w.repeat, w.hint, w.optional) for w in walk] == [
        (1, "inverse", True),
        (3, "inverse", False),
    ]


def test_a_guess_is_said_in_the_report(service: QueryService, planner: OfflinePlanner) -> None:
    plan = planner.plan("Which ligands act on TrkA or TrkB?")
    resources = service.resources("demo")
    report = template_report(
        plan, [], resources.retriever.query(plan.query).completeness, resources.store,
        max_results=5,
    )  # fmt: skip
    assert "Guessed: the question's phrase structure was not recognised" in report
