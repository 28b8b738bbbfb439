"""Calibration end to end on UMLS, calibrated querying, and the evaluation protocol."""

from __future__ import annotations

import math
import random
from pathlib import Path

import numpy as np
import pytest

from kgrecall.calibration import (
    NO_PREDICTOR,
    RESIDUAL_GROUP,
    CalibratedRetriever,
    CalibrationSettings,
    CalibrationStore,
    ReducedGraph,
    SQLiteCalibrationStore,
    Stratum,
    assign_cells,
    calibrate,
    cell_names,
    evaluate_point,
    group_chain,
    make_calibration_set,
    reduce_strata,
    resolve_level,
    score_queries,
    split_graph,
)
from kgrecall.kg import Edge, KGError, NetworkXStore
from kgrecall.tools import LinkPredictor, sample_query

from .conftest import SMALL


@pytest.fixture(scope="module")
def records_store(
    tmp_path_factory: pytest.TempPathFactory,
    umls: NetworkXStore,
    umls_reduced: ReducedGraph,
    reduced_predictor: LinkPredictor,
    umls_predictor: LinkPredictor,
) -> CalibrationStore:
    records = calibrate(
        umls,
        [Stratum(umls_reduced, reduced_predictor)],
        kg_name="umls",
        predictor_id=umls_predictor.identifier,
        topologies=["1p", "2i"],
        alphas=[0.2, 0.1],
        methods=["crc", "ltt", "coverage"],
        conditionings=["none", "degree"],
        settings=CalibrationSettings(n_queries=300, min_group_size=60),
        progress=False,
    )
    assert len(records) == 2 * 2 * 3 * 2
    assert all(r.kg_version == umls.version for r in records)
    assert any(r.groups for r in records if r.conditioning == "degree")
    store = SQLiteCalibrationStore(tmp_path_factory.mktemp("calibration") / "c.sqlite")
    store.save(records)
    return store


def test_a_predictor_that_saw_the_hidden_edges_is_refused(
    umls: NetworkXStore, umls_reduced: ReducedGraph, umls_predictor: LinkPredictor
) -> None:
    with pytest.raises(KGError, match="hidden edges"):
        calibrate(
            umls,
            [Stratum(umls_reduced, umls_predictor)],
            kg_name="umls",
            predictor_id=umls_predictor.identifier,
            topologies=["1p"],
            alphas=[0.1],
            progress=False,
        )


def test_predictor_presence_must_match_between_calibration_and_queries(
    umls: NetworkXStore, umls_reduced: ReducedGraph, reduced_predictor: LinkPredictor
) -> None:
    with pytest.raises(KGError, match="exactly when querying"):
        calibrate(
            umls,
            [Stratum(umls_reduced, reduced_predictor)],
            kg_name="umls",
            predictor_id=NO_PREDICTOR,
            topologies=["1p"],
            alphas=[0.1],
            progress=False,
        )


def test_calibrated_query_uses_the_stored_thresholds(
    umls: NetworkXStore, umls_predictor: LinkPredictor, records_store: CalibrationStore
) -> None:
    retriever = CalibratedRetriever(
        umls, kg_name="umls", predictor=umls_predictor, calibrations=records_store
    )
    query = sample_query(umls, "2i", random.Random(3))
    answer = retriever.query(query, level="thorough")
    block = answer.completeness
    record = records_store.get(block.calibration_id or "")
    assert record is not None and record.alpha == 0.2 and record.method == "crc"
    assert block.thresholds == record.pooled.thresholds
    assert block.estimated_recall == round(record.pooled.estimated_recall, 4)
    assert block.guarantee.startswith("expected recall ≥ 0.80")
    expected = retriever.gate.run(query, record.pooled.thresholds_by_depth())
    assert [c.id for c in answer.candidates] == [c.id for c in expected.candidates]
    assert block.hybrid_hops == expected.hybrid_hops
    strict = retriever.query(query, recall_target=0.9, method="ltt")
    assert strict.completeness.method == "ltt" and strict.completeness.level == "exhaustive"
    strict_record = records_store.get(strict.completeness.calibration_id or "")
    assert strict_record is not None and strict_record.alpha == 0.1
    assert strict.completeness.guarantee.startswith("with probability ≥ 0.90")


def test_queries_beyond_the_calibrated_answer_count_get_no_guarantee(
    umls: NetworkXStore,
    umls_predictor: LinkPredictor,
    records_store: CalibrationStore,
    tmp_path: Path,
) -> None:
    """Calibration drew only queries with ≤ max_answers answers; that is observable at query
    time (the retrieved answers), so larger queries are answered without a guarantee."""
    retriever = CalibratedRetriever(
        umls, kg_name="umls", predictor=umls_predictor, calibrations=records_store
    )
    rng = random.Random(5)
    query = next(
        q
        for q in (sample_query(umls, "1p", rng) for _ in range(200))
        if len(retriever.gate.run(q).candidates) >= 3
    )
    inside = retriever.query(query, level="thorough").completeness
    record = records_store.get(inside.calibration_id or "")
    assert record is not None and record.max_answers == 100
    assert "queries with ≤ 100 answers in the KG" in inside.guarantee
    narrow = SQLiteCalibrationStore(tmp_path / "narrow.sqlite")
    narrow.save([record.model_copy(update={"max_answers": 2})])
    outside = CalibratedRetriever(
        umls, kg_name="umls", predictor=umls_predictor, calibrations=narrow
    ).query(query, level="thorough")
    assert outside.completeness.guarantee.startswith("none: the query already has")
    assert "covers queries with ≤ 2 answers" in outside.completeness.guarantee
    assert outside.completeness.estimated_recall is None


def test_mondrian_groups_are_used_when_calibrated(
    umls: NetworkXStore,
    umls_predictor: LinkPredictor,
    records_store: CalibrationStore,
    tmp_path: Path,
) -> None:
    retriever = CalibratedRetriever(
        umls,
        kg_name="umls",
        predictor=umls_predictor,
        calibrations=records_store,
        conditioning="degree",
    )
    rng = random.Random(0)
    queries = [sample_query(umls, "1p", rng) for _ in range(30)]
    answers = [retriever.query(q, level="thorough").completeness for q in queries]
    # Every calibrated query (not those past max_answers) has a calibrated cell — its own
    # degree group or the residual one — named in the guarantee; the pooled thresholds never
    # stand in for a group.
    answers = [a for a in answers if a.estimated_recall is not None]
    assert len(answers) > 20
    assert all(f"degree group {a.calibration_group!r}" in a.guarantee for a in answers)
    assert {a.estimated_recall_confidence for a in answers} == {0.9}
    record = records_store.get(answers[0].calibration_id or "")
    assert record is not None and RESIDUAL_GROUP in record.groups
    without = SQLiteCalibrationStore(tmp_path / "without.sqlite")
    without.save([record.model_copy(update={"groups": {}})])
    uncovered = CalibratedRetriever(
        umls, kg_name="umls", predictor=umls_predictor, calibrations=without,
        conditioning="degree",
    ).query(queries[0], level="thorough").completeness  # fmt: skip
    assert uncovered.guarantee.startswith("none: calibration")
    assert "has no degree group covering this query" in uncovered.guarantee


@pytest.mark.parametrize(
    ("options", "reason"),
    [
        ({"level": "fast"}, "fast level: retrieval only"),
        ({"recall_target": 0.99}, "strictest calibrated target is 0.90"),
    ],
)
def test_no_valid_calibration_means_guarantee_none(
    umls: NetworkXStore,
    umls_predictor: LinkPredictor,
    records_store: CalibrationStore,
    options: dict[str, object],
    reason: str,
) -> None:
    retriever = CalibratedRetriever(
        umls, kg_name="umls", predictor=umls_predictor, calibrations=records_store
    )
    query = sample_query(umls, "1p", random.Random(1))
    answer = retriever.query(query, **options)  # type: ignore[arg-type]
    assert answer.completeness.guarantee.startswith("none: ")
    assert reason in answer.completeness.guarantee
    assert answer.completeness.estimated_recall is None
    assert answer.completeness.hybrid_hops == 0 and not answer.completeness.neural_augmented


def test_stale_kg_version_and_other_topologies_fall_back(
    umls: NetworkXStore, umls_predictor: LinkPredictor, records_store: CalibrationStore
) -> None:
    retriever = CalibratedRetriever(
        umls, kg_name="umls", predictor=umls_predictor, calibrations=records_store
    )
    other = retriever.query(sample_query(umls, "3p", random.Random(2)), level="exhaustive")
    assert "topology 3p is not calibrated" in other.completeness.guarantee
    changed = NetworkXStore(umls.schema, umls.metadata)
    changed.add_nodes(umls.nodes())
    changed.add_edges(umls.edges())
    head, tail = sorted(node.id for node in umls.nodes())[:2]
    changed.add_edges([Edge(head, "isa", tail, sources=("test",))])
    stale = CalibratedRetriever(
        changed, kg_name="umls", predictor=umls_predictor, calibrations=records_store
    )
    answer = stale.query(sample_query(umls, "1p", random.Random(2)), level="thorough")
    assert "another KG version" in answer.completeness.guarantee


def test_level_resolution() -> None:
    assert resolve_level("thorough", None) == ("thorough", 0.2)
    assert resolve_level("fast", 0.9) == ("exhaustive", 0.1)
    assert resolve_level("fast", 0.75) == ("custom", 0.25)
    with pytest.raises(KGError, match="valid: fast, thorough, exhaustive"):
        resolve_level("quick", None)
    with pytest.raises(KGError, match="recall_target"):
        resolve_level("fast", 1.5)


def test_protocol_recall_meets_the_target_on_held_out_edges(umls: NetworkXStore) -> None:
    """DESIGN §11 in small: G → O (25 % hidden); calibrate on O only; test against G."""
    observed = split_graph(umls, seed=0)
    deployed = LinkPredictor.train(observed.store, SMALL, progress=False)
    strata = [
        Stratum(r, LinkPredictor.train(r.store, SMALL, progress=False))
        for r in reduce_strata(observed.store, seed=1, strata=2)
    ]
    settings = CalibrationSettings(n_queries=600, seed=0)
    [record] = calibrate(
        observed.store,
        strata,
        kg_name="o",
        predictor_id=deployed.identifier,
        topologies=["1p"],
        alphas=[0.2],
        settings=settings,
        progress=False,
    )
    test_data = make_calibration_set(umls, "1p", 400, seed=9, reduced=observed, progress=False)
    test = score_queries(test_data, deployed, settings, progress=False)
    choice = record.pooled
    metrics = evaluate_point(test, choice.gamma, choice.t, target=0.8)
    losses = test.losses(test.gammas.index(choice.gamma), np.array([choice.t]), np.arange(test.n))
    tolerance = 3 * float(losses.std()) / math.sqrt(test.n)
    assert metrics.recall >= 0.8 - tolerance
    assert metrics.n_with_hard_answers > 0
    retrieval_only = evaluate_point(test, 0.0, 0.5)
    assert retrieval_only.recall < 0.8  # the target needs the link predictor here
    assert metrics.hard_recall > retrieval_only.hard_recall == 0.0


def test_store_creates_its_folder(tmp_path: Path) -> None:
    """A fresh calibration store is empty, not an error."""
    store = SQLiteCalibrationStore(tmp_path / "deep" / "er" / "c.sqlite")
    assert store.all() == []


def test_cells_are_the_finest_group_with_enough_queries_then_the_residual() -> None:
    chains = [
        *[("a@0;b@1", "a@0")] * 5,  # large enough for its own cell
        *[("a@0;c@1", "a@0")] * 2,  # small: with the other small a@0 ones, the rest of a@0
        *[("a@0;d@1", "a@0")] * 2,
        *[("e@0;f@1", "e@0")] * 1,  # small at every level: the residual cell
    ]
    cells = assign_cells(chains, min_group_size=4)
    assert cells == ["a@0;b@1"] * 5 + ["a@0 (rest)"] * 4 + [RESIDUAL_GROUP]
    # The cell a calibration query got is the first calibrated one of its names at run time.
    for chain, cell in zip(chains, cells, strict=True):
        assert next(name for name in cell_names(chain) if name in set(cells)) == cell
    assert assign_cells(chains, min_group_size=100) == [RESIDUAL_GROUP] * len(chains)


def test_relation_groups_pool_by_the_last_hop(umls: NetworkXStore) -> None:
    rng = random.Random(3)
    one_hop = group_chain(umls, sample_query(umls, "1p", rng), "relation")
    two_hop = group_chain(umls, sample_query(umls, "2p", rng), "relation")
    assert len(one_hop) == 1 and one_hop[0].endswith("@0")
    assert len(two_hop) == 2 and two_hop[1] in two_hop[0] and "@1" not in two_hop[1]
    assert group_chain(umls, sample_query(umls, "2p", rng), "none") == ()
