"""The conformal gate on UMLS: routing, thresholding that commutes, evidence, bounds."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest

from kgrecall.calibration import (
    PREDICTED_SOURCE,
    ConformalGate,
    GateConfig,
    ScoredGraph,
    hop_thresholds,
    levels,
    power_scores,
)
from kgrecall.kg import KGError, NetworkXStore
from kgrecall.tools import (
    TOPOLOGIES,
    EntityQuery,
    LinkPredictor,
    ProjectQuery,
    execute_sets,
    projections,
    sample_query,
)


class CountingPredictor:
    """Wraps a predictor and counts the calls that score candidates."""

    def __init__(self, inner: LinkPredictor) -> None:
        self.inner = inner
        self.calls: list[tuple[str, bool, int]] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def top_tails_indexed(
        self, anchors: list[str], relation: str, *, inverse: bool, k: int
    ) -> tuple[np.ndarray, np.ndarray]:
        self.calls.append((relation, inverse, len(anchors)))
        return self.inner.top_tails_indexed(anchors, relation, inverse=inverse, k=k)


def queries(store: NetworkXStore, n: int, seed: int) -> list[Any]:
    rng = random.Random(seed)
    return [sample_query(store, TOPOLOGIES[i % len(TOPOLOGIES)], rng) for i in range(n)]


def test_retrieval_only_equals_exact_traversal_and_never_calls_the_predictor(
    umls: NetworkXStore, umls_predictor: LinkPredictor
) -> None:
    counting = CountingPredictor(umls_predictor)
    gate = ConformalGate(ScoredGraph(umls, counting))  # type: ignore[arg-type]
    for query in queries(umls, 27, seed=1):
        for thresholds in (None, {0: 0.5, 1: 0.7, 2: 0.99}):
            result = gate.run(query, thresholds)
            assert result.ids == execute_sets(umls, query)[0]
            assert result.hybrid_hops == 0
            assert result.retrieval_only_hops == len(projections(query))
            assert not result.neural_augmented
            assert all(c.score >= 0.5 for c in result.candidates)
    assert counting.calls == []


def test_only_hops_below_the_routing_threshold_call_the_predictor(
    umls: NetworkXStore, umls_predictor: LinkPredictor
) -> None:
    counting = CountingPredictor(umls_predictor)
    gate = ConformalGate(ScoredGraph(umls, counting))  # type: ignore[arg-type]
    query = sample_query(umls, "3p", random.Random(4))
    result = gate.run(query, {0: 0.2, 1: 0.6, 2: 0.5})
    modes = {hop.depth: hop.mode for hop in result.hops}
    assert modes == {0: "hybrid", 1: "retrieval_only", 2: "retrieval_only"}
    assert len(counting.calls) == 1
    assert counting.calls[0][0] == result.hops[-1].relation
    assert result.hybrid_hops == 1 and result.retrieval_only_hops == 2


def test_thresholding_commutes_with_execution(
    umls: NetworkXStore, umls_predictor: LinkPredictor
) -> None:
    """Live gate at λ_d(γ, t) == entities scoring ≥ t in one threshold-free evaluation."""
    graph = ScoredGraph(umls, umls_predictor)
    gate = ConformalGate(graph)
    rng = np.random.default_rng(0)
    for query in queries(umls, 36, seed=2):
        tree = graph.evaluate(query, lambda _d: True)
        for gamma in (-1.0, 0.0, 0.5):
            scores = levels(tree, graph.n_entities, power_scores(gamma))
            for t in [*rng.uniform(0.001, 1.0, size=3).tolist(), 0.25, 0.05]:
                expected = {graph.entity_ids[i] for i in np.flatnonzero(scores >= t)}
                live = gate.run(query, dict(enumerate(hop_thresholds(gamma, t, 3))))
                assert live.ids == expected, (query, gamma, t)


def test_sets_are_nested_and_zero_returns_everything(
    umls: NetworkXStore, umls_predictor: LinkPredictor
) -> None:
    graph = ScoredGraph(umls, umls_predictor)
    gate = ConformalGate(graph)
    for query in queries(umls, 9, seed=3):
        previous: set[str] = set()
        for t in (1.0, 0.7, 0.5, 0.4, 0.2, 0.05, 0.01):
            current = gate.run(query, dict(enumerate(hop_thresholds(0.0, t, 3)))).ids
            assert previous <= current
            previous = current
        everything = gate.run(query, {0: 0.0, 1: 0.0, 2: 0.0})
        assert len(everything.candidates) == umls.number_of_nodes()
        assert any("every one" in note for note in everything.notes)


def test_scores_and_evidence_follow_the_unified_scale(
    umls: NetworkXStore, umls_predictor: LinkPredictor
) -> None:
    gate = ConformalGate(ScoredGraph(umls, umls_predictor))
    seen_predicted = False
    for query in queries(umls, 18, seed=5):
        result = gate.run(query, {0: 0.05, 1: 0.05, 2: 0.05})
        for candidate in result.candidates:
            [evidence] = candidate.evidence
            predicted = [t for t in evidence.triples if t.sources == [PREDICTED_SOURCE]]
            if predicted:
                seen_predicted = True
                assert candidate.score < 0.5 and "neural_completion" in candidate.tools
                assert evidence.kind == "predicted_triple"
                assert evidence.model_score == min(t.confidence for t in predicted)
                # δ·p ≥ λ: every predicted edge on the best path passed the threshold.
                assert all(0.5 * t.confidence >= 0.05 - 1e-9 for t in predicted)
                # At most one predicted edge per branch: here, per path of a chain query.
                assert len(predicted) <= len(projections(query))
            else:
                assert candidate.score >= 0.5 and candidate.tools == ["graph_traversal"]
                for triple in evidence.triples:
                    assert umls.get_edge(triple.head, triple.relation, triple.tail) is not None
            if len(projections(query)) == 1 and evidence.triples:
                triple = evidence.triples[0]
                assert candidate.id in (triple.head, triple.tail)
    assert seen_predicted


def test_chain_evidence_links_anchor_to_answer(
    umls: NetworkXStore, umls_predictor: LinkPredictor
) -> None:
    gate = ConformalGate(ScoredGraph(umls, umls_predictor))
    query = sample_query(umls, "2p", random.Random(8))
    result = gate.run(query, {0: 0.1, 1: 0.1})
    anchor = query.input.input.id  # type: ignore[union-attr]
    for candidate in result.candidates:
        first, second = candidate.evidence[0].triples
        assert anchor in (first.head, first.tail)
        shared = {first.head, first.tail} & {second.head, second.tail}
        assert shared and candidate.id in (second.head, second.tail)


def test_neural_input_cap_is_reported(umls: NetworkXStore, umls_predictor: LinkPredictor) -> None:
    graph = ScoredGraph(umls, umls_predictor, GateConfig(max_neural_inputs=2))
    inner = next(q for q in queries(umls, 40, seed=6) if len(execute_sets(umls, q)[0]) > 5)
    query = ProjectQuery(relation="isa", input=inner)
    result = ConformalGate(graph).run(query, {0: 0.1, 1: 0.1, 2: 0.1, 3: 0.1})
    last = result.hops[-1]
    assert last.neural_inputs <= 2
    assert last.note is not None and "best 2 of" in last.note
    assert any("best 2 of" in note for note in result.notes)


def test_without_a_predictor_hybrid_hops_say_so(umls: NetworkXStore) -> None:
    gate = ConformalGate(ScoredGraph(umls))
    query = sample_query(umls, "1p", random.Random(0))
    result = gate.run(query, {0: 0.1})
    assert result.ids == execute_sets(umls, query)[0]
    assert result.hops[0].note == "no link predictor: retrieval only"


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"routing_threshold": 1.0}, "routing_threshold"),
        ({"neural_top_k": 0}, "positive"),
        ({"neural_min_probability": 0.0}, "neural_min_probability"),
    ],
)
def test_gate_config_is_validated(options: dict[str, float], message: str) -> None:
    with pytest.raises(KGError, match=message):
        GateConfig(**options)  # type: ignore[arg-type]


def test_bad_thresholds_and_queries_are_refused(
    umls: NetworkXStore, umls_predictor: LinkPredictor
) -> None:
    gate = ConformalGate(ScoredGraph(umls, umls_predictor))
    query = sample_query(umls, "1p", random.Random(0))
    with pytest.raises(KGError, match="depth 0"):
        gate.run(query, {0: 1.5})
    with pytest.raises(KGError, match="unknown entity"):
        gate.run(ProjectQuery(relation="isa", input=EntityQuery(id="nope")))
