"""Synthetic calibration data on UMLS: hidden edges, truth from the observed KG."""

from __future__ import annotations

import random

import pytest

from kgrecall.calibration.data import hide_edges, make_calibration_set, reduce_strata
from kgrecall.kg import KGError, NetworkXStore
from kgrecall.tools import TOPOLOGIES, execute_sets


def test_hide_edges_removes_the_fraction_fact_by_fact(umls: NetworkXStore) -> None:
    reduced, hidden = hide_edges(umls, 0.25, random.Random(0))
    wanted = round(0.25 * umls.number_of_edges())
    assert wanted <= len(hidden) < wanted + 50  # the last fact drawn may hold several edges
    # no hidden edge keeps a visible reverse partner (UMLS has many two-way pairs)
    visible = {(h, t) for h, _, t in reduced.triples()}
    assert not any((t, h) in visible for h, _, t in hidden)
    two_way = {(h, t) for h, _, t in umls.triples()}
    assert sum((t, h) in two_way for h, _, t in hidden) > 0.05 * len(hidden)
    assert reduced.number_of_edges() == umls.number_of_edges() - len(hidden)
    assert reduced.number_of_nodes() == umls.number_of_nodes()
    assert not hidden & set(reduced.triples())
    assert hidden <= set(umls.triples())
    with pytest.raises(KGError, match="hide fraction"):
        hide_edges(umls, 1.0, random.Random(0))


@pytest.mark.parametrize("topology", TOPOLOGIES)
def test_queries_have_truth_from_observed_and_retrieval_from_reduced(
    umls: NetworkXStore, topology: str
) -> None:
    data = make_calibration_set(umls, topology, 15, seed=3, max_answers=60, progress=False)
    assert 0.1 <= data.hide_fraction <= 0.4
    assert len(data.queries) == 15
    for item in data.queries:
        assert item.topology == topology
        assert 0 < len(item.answers) <= 60
        assert item.answers == frozenset(execute_sets(umls, item.query)[0])
        assert item.retrieved == frozenset(execute_sets(data.reduced, item.query)[0])
        # Projection, intersection and union are monotone: hiding edges only loses answers.
        assert item.retrieved <= item.answers
    assert any(item.hard_answers for item in data.queries)  # the hidden edges matter


def test_same_seed_same_data(umls: NetworkXStore) -> None:
    first = make_calibration_set(umls, "2p", 10, seed=7, progress=False)
    second = make_calibration_set(umls, "2p", 10, seed=7, progress=False)
    assert first.hidden == second.hidden
    assert [q.query for q in first.queries] == [q.query for q in second.queries]
    other = make_calibration_set(umls, "2p", 10, seed=8, progress=False)
    assert other.hidden != first.hidden


def test_impossible_answer_bound_is_an_error(umls: NetworkXStore) -> None:
    with pytest.raises(KGError, match="raise max_answers"):
        make_calibration_set(
            umls, "3p", 3, seed=0, max_answers=1, max_attempts_per_query=2, progress=False
        )


def test_strata_spread_the_hidden_fraction_over_the_range(umls: NetworkXStore) -> None:
    strata = reduce_strata(umls, seed=2, strata=3)
    assert [round(s.hide_fraction, 3) for s in strata] == [0.1, 0.25, 0.4]
    assert len({s.store.version for s in strata}) == 3
    assert [round(s.hide_fraction, 3) for s in reduce_strata(umls, strata=1)] == [0.25]
    with pytest.raises(KGError, match="hide range"):
        reduce_strata(umls, hide_range=(0.5, 0.2))
