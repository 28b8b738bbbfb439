"""The relation registry: one vocabulary that the planner, the report writer and the grounding
verifier all read."""

from __future__ import annotations

import re

from kgrecall.agents import planner, synthesis
from kgrecall.grounding import verify
from kgrecall.kg.model import BIOMEDICAL_RELATIONS
from kgrecall.kg.relations import CLAIM_WORDINGS, RELATIONS


def test_every_relation_named_anywhere_is_in_the_registry() -> None:
    named = {r for _, relations, _ in CLAIM_WORDINGS for r in relations}
    named |= {r for relation in RELATIONS.values() for r in relation.opposites}
    assert named <= set(RELATIONS)
    assert list(BIOMEDICAL_RELATIONS) == list(RELATIONS)


def test_opposites_are_symmetric_and_directed() -> None:
    for name, relation in RELATIONS.items():
        for other in relation.opposites:
            assert name in RELATIONS[other].opposites, (name, other)
            assert relation.directed_claims and RELATIONS[other].directed_claims


def test_question_phrases_compile_and_read_their_relations_examples() -> None:
    for name, relation in RELATIONS.items():
        if not relation.question_phrases:
            continue
        assert relation.verb and relation.examples, name
        patterns = [re.compile(p, re.IGNORECASE) for p, _ in relation.question_phrases]
        # at least one plain example is read by the relation's own phrases
        assert any(p.match(example) for p in patterns for example in relation.examples), name


def test_planner_writer_and_verifier_read_the_registry() -> None:
    phrases = {(p.pattern, name, hint) for p, name, hint in planner.RELATION_PHRASES}
    assert phrases == {
        (pattern, name, hint)
        for name, relation in RELATIONS.items()
        for pattern, hint in relation.question_phrases
    }
    assert {n: r.verb for n, r in RELATIONS.items() if r.verb} == synthesis.VERBS
    # activates and inhibits had drifted out of the writer's table: now every worded relation
    assert {"activates", "inhibits"} <= set(synthesis.VERBS)
    assert [(p.pattern, r, inverse) for p, r, inverse in verify.PREDICATES] == list(CLAIM_WORDINGS)
    assert {n for n, r in RELATIONS.items() if r.directed_claims} == verify.DIRECTED
    assert verify.OPPOSITES["inhibits"] == RELATIONS["inhibits"].opposites
    assert {"associated_with"} == verify.GENERIC
