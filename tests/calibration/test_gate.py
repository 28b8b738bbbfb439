"""The conformal gate on UMLS: routing, thresholding that commutes, evidence, bounds."""

from __future__ import annotations

import random
import time
from dataclasses import replace
from pathlib import Path
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
from kgrecall.errors import DeadlineExceededError
from kgrecall.kg import (
    Edge,
    GraphStore,
    KGError,
    KGSchema,
    NetworkXStore,
    Node,
    UnknownEntityError,
    relation_signatures,
)
from kgrecall.kg.deadline import deadline
from kgrecall.tools import (
    TOPOLOGIES,
    EntityQuery,
    EvidenceTriple,
    IntersectQuery,
    LinkPredictor,
    ProjectQuery,
    UnionQuery,
    execute_sets,
    projections,
    sample_query,
    traverse,
)
from kgrecall.tools.linkpred import BoundCompletion, CompletionModel, beam_inputs
from tests.conftest import small_store


class CountingPredictor(CompletionModel):
    """Wraps a predictor and counts the set-level projections it is asked for."""

    def __init__(self, inner: LinkPredictor, *, beam: int = 256) -> None:
        self.inner = inner
        self.kg_version = inner.kg_version
        self.beam = beam
        self.calls: list[tuple[str, bool]] = []

    @property
    def identifier(self) -> str:
        return self.inner.identifier

    def bind(self, store: GraphStore) -> BoundCompletion:
        bound = self.inner.bind(store, beam=self.beam)
        calls = self.calls

        class Counting(BoundCompletion):
            entity_ids = bound.entity_ids

            def knows(self, relation: str) -> bool:
                return bound.knows(relation)

            def project(self, weights: np.ndarray, relation: str, *, inverse: bool) -> np.ndarray:
                calls.append((relation, inverse))
                result = bound.project(weights, relation, inverse=inverse)
                self.last_note = bound.last_note
                return result

        return Counting()

    def save(self, path: str | Path) -> Path:
        return self.inner.save(path)


class FlatPredictor(CompletionModel):
    """Predicts every entity with probability 0.3 from any non-empty input set."""

    kg_version = None
    identifier = "flat"

    def bind(self, store: GraphStore) -> BoundCompletion:
        ids = sorted(node.id for node in store.nodes())

        class Flat(BoundCompletion):
            entity_ids = ids

            def knows(self, relation: str) -> bool:
                return True

            def project(self, weights: np.ndarray, relation: str, *, inverse: bool) -> np.ndarray:
                return np.full(len(ids), 0.3 if weights.max() > 0 else 0.0, dtype=np.float32)

        return Flat()

    def save(self, path: str | Path) -> Path:
        raise NotImplementedError("a test double: nothing to save")


def queries(store: NetworkXStore, n: int, seed: int) -> list[Any]:
    rng = random.Random(seed)
    return [sample_query(store, TOPOLOGIES[i % len(TOPOLOGIES)], rng) for i in range(n)]


def test_retrieval_only_equals_exact_traversal_and_never_calls_the_predictor(
    umls: NetworkXStore, umls_predictor: LinkPredictor
) -> None:
    counting = CountingPredictor(umls_predictor)
    gate = ConformalGate(ScoredGraph(umls, counting))
    for query in queries(umls, 27, seed=1):
        for thresholds in (None, {0: 0.5, 1: 0.7, 2: 0.99}):
            result = gate.run(query, thresholds)
            assert result.ids == execute_sets(umls, query)[0]
            assert result.hybrid_hops == 0
            assert result.retrieval_only_hops == len(projections(query))
            assert not result.neural_augmented
            assert all(c.score >= 0.5 for c in result.candidates)
    assert counting.calls == []


def test_exact_traversal_scores_answers_as_the_gate_does(umls: NetworkXStore) -> None:
    """One scoring of retrieved answers: ``traverse`` (``kg_traverse``) gives each answer its
    best path's weakest edge, which the gate's retrieval-only score is up to its monotone map
    δ + (1 − δ)·c — checked on UMLS with varied confidences, every topology, one evidence
    path kept per answer (the best one must be the one kept)."""
    rng = random.Random(3)
    varied = NetworkXStore(umls.schema)
    varied.add_nodes(list(umls.nodes()))
    varied.add_edges(
        [replace(edge, confidence=rng.choice((0.3, 0.6, 0.9, 1.0))) for edge in umls.edges()]
    )
    gate, config = ConformalGate(ScoredGraph(varied)), GateConfig()
    distinct_scores = set()
    for query in queries(varied, 45, seed=2):
        expected = {c.id: round(c.score, 9) for c in gate.run(query).candidates}
        traversed = traverse(varied, query, max_paths=1).candidates
        assert {c.id: round(config.exact_score(c.score), 9) for c in traversed} == expected
        assert [c.score for c in traversed] == sorted((c.score for c in traversed), reverse=True)
        distinct_scores |= {c.score for c in traversed}
    assert distinct_scores == {0.3, 0.6, 0.9, 1.0}  # the check saw every confidence level


def test_the_predictor_runs_where_a_hop_or_its_consumer_is_hybrid(
    umls: NetworkXStore, umls_predictor: LinkPredictor
) -> None:
    counting = CountingPredictor(umls_predictor)
    gate = ConformalGate(ScoredGraph(umls, counting))
    query = sample_query(umls, "3p", random.Random(4))
    result = gate.run(query, {0: 0.6, 1: 0.2, 2: 0.5})
    modes = {hop.depth: hop.mode for hop in result.hops}
    assert modes == {0: "retrieval_only", 1: "hybrid", 2: "retrieval_only"}
    called = {hop.depth: hop.predictor_called for hop in result.hops}
    # depth 2 feeds the hybrid hop at depth 1 its fuzzy input; depth 0 is never predicted.
    assert called == {0: False, 1: True, 2: True}
    by_depth = {hop.depth: (hop.relation, hop.inverse) for hop in result.hops}
    assert sorted(counting.calls) == sorted([by_depth[1], by_depth[2]])
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
        assert everything.everything and previous <= everything.ids
        assert everything.total == everything.answer_type_size == umls.number_of_nodes()
        assert any("every one" in note for note in everything.notes)


def test_predictions_and_everything_stay_inside_the_answer_type() -> None:
    store = small_store()
    gate = ConformalGate(ScoredGraph(store, FlatPredictor()))
    types = {node.id: node.type for node in store.nodes()}
    cases = [
        (ProjectQuery(relation="associated_with", input=EntityQuery(id="G3")), {"disease"}),
        (
            ProjectQuery(relation="associated_with", inverse=True, input=EntityQuery(id="D1")),
            {"gene"},
        ),
        (ProjectQuery(relation="has_phenotype", input=EntityQuery(id="G3")), {"phenotype"}),
    ]
    for query, expected_types in cases:
        # predictions score δ·0.3 / (1 + k) = 0.15 / (1 + k) ≥ 0.01 with k ≤ 3 retrieved here
        hybrid = gate.run(query, {0: 0.01})
        assert {types[c.id] for c in hybrid.candidates} == expected_types
        assert hybrid.neural_augmented and hybrid.predicted > 0
        everything = gate.run(query, {0: 0.0})
        size = sum(types[node] in expected_types for node in types)
        assert everything.answer_type_size == everything.total == size
        assert {types[c.id] for c in everything.candidates} == expected_types
        # 0.3·δ = 0.15: a threshold above it keeps retrieval only.
        assert gate.run(query, {0: 0.2}).ids == execute_sets(store, query)[0]


def test_the_answer_type_follows_the_type_of_the_hops_input() -> None:
    """``subclass_of`` joins diseases to diseases and phenotypes to phenotypes: from a disease
    it reaches diseases only, from a phenotype phenotypes only — predictions and everything."""
    store = small_store()
    store.add_nodes([Node("D0", "disease", "Neurodegenerative disease")])
    store.add_edges([Edge("D1", "subclass_of", "D0")])
    signature = relation_signatures(store)["subclass_of"]
    assert signature.pairs == {("disease", "disease"), ("phenotype", "phenotype")}
    assert signature.answer_types(inverse=False) == {"disease", "phenotype"}
    assert signature.answer_types(inverse=True, given={"disease"}) == {"disease"}
    gate = ConformalGate(ScoredGraph(store, FlatPredictor()))
    types = {node.id: node.type for node in store.nodes()}
    from_disease = ProjectQuery(relation="subclass_of", input=EntityQuery(id="D2"))
    from_phenotype = ProjectQuery(
        relation="subclass_of",
        input=ProjectQuery(relation="has_phenotype", input=EntityQuery(id="G1")),
    )
    for query, expected in ((from_disease, "disease"), (from_phenotype, "phenotype")):
        hybrid = gate.run(query, dict.fromkeys(range(2), 0.01))
        assert hybrid.predicted > 0 and {types[c.id] for c in hybrid.candidates} == {expected}
        everything = gate.run(query, dict.fromkeys(range(2), 0.0))
        size = sum(kind == expected for kind in types.values())
        assert everything.answer_type_size == everything.total == size
        assert everything.hops[-1].answer_types == [expected]


def test_answers_behind_two_missing_edges_are_reachable() -> None:
    """A 2p answer needs a predicted intermediate and a predicted last hop."""
    store = small_store()
    gate = ConformalGate(ScoredGraph(store, FlatPredictor()))
    # G3 has no phenotype, and no phenotype is a subclass of P1: both hops are predicted.
    query = ProjectQuery(
        relation="subclass_of",
        input=ProjectQuery(relation="has_phenotype", input=EntityQuery(id="G3")),
    )
    assert execute_sets(store, query)[0] == set()
    result = gate.run(query, {0: 0.1, 1: 0.1})
    assert "P1" in result.ids
    [answer] = [c for c in result.candidates if c.id == "P1"]
    predicted = [t for t in answer.evidence[0].triples if t.sources == [PREDICTED_SOURCE]]
    assert len(predicted) == 2 and answer.score == pytest.approx(0.15)


def test_answer_objects_are_built_only_for_the_answers_taken(
    umls: NetworkXStore, umls_predictor: LinkPredictor
) -> None:
    gate = ConformalGate(ScoredGraph(umls, umls_predictor))
    query = sample_query(umls, "2p", random.Random(11))
    result = gate.run(query, {0: 0.02, 1: 0.02})
    assert result.total > 5
    best = result.top(5)
    assert [c.id for c in best] == [c.id for c in result.candidates[:5]]
    assert [c.score for c in best] == sorted((c.score for c in best), reverse=True)
    assert result.top(10**6) == result.candidates


def test_retrieved_evidence_carries_each_edges_sources_and_confidence() -> None:
    """Answers come from the gate's arrays, their evidence from the store's edges: every
    retrieved triple is its edge as stored, in every direction a hop can take."""
    rng = random.Random(4)
    store = NetworkXStore(KGSchema.biomedical())
    store.add_nodes([Node(f"G{i}", "gene", f"GENE{i}") for i in range(12)])
    store.add_nodes([Node(f"D{i}", "disease", f"Disease {i}") for i in range(8)])
    store.add_edges(
        Edge(
            f"G{rng.randrange(12)}",
            "associated_with",
            f"D{rng.randrange(8)}",
            sources=tuple(rng.sample(["omim", "orphanet", "clinvar"], rng.randint(0, 2))),
            confidence=round(rng.uniform(0.1, 1.0), 3),
        )
        for _ in range(40)
    )
    gate = ConformalGate(ScoredGraph(store))
    seen = 0
    for anchor, inverse in [("G1", False), ("D2", True), ("G5", False), ("D0", True)]:
        query = ProjectQuery(
            relation="associated_with", inverse=inverse, input=EntityQuery(id=anchor)
        )
        chain = ProjectQuery(relation="associated_with", inverse=not inverse, input=query)
        for asked in (query, chain):
            result = gate.run(asked)
            assert result.ids == execute_sets(store, asked)[0]
            for candidate in result.candidates:
                for triple in candidate.evidence[0].triples:
                    edge = store.get_edge(triple.head, triple.relation, triple.tail)
                    assert edge is not None and triple == EvidenceTriple.from_edge(edge)
                    seen += 1
    assert seen > 10


def test_hop_entries_follow_the_stores_hop_order(umls: NetworkXStore) -> None:
    """The gate's arrays list a hop's edges as ``GraphStore.hop_edges`` does (ties between
    equal-scoring paths break the same way)."""
    graph = ScoredGraph(umls)
    rng = random.Random(3)
    for relation in sorted(relation_signatures(umls))[::5]:
        for inverse in (False, True):
            inputs = sorted(rng.sample(range(graph.n_entities), 30))
            adjacency = graph._adjacency[relation, inverse]
            sources, entries = adjacency.hop(np.asarray(inputs))
            found = [
                adjacency.triple(int(entry), int(source), graph.entity_ids)
                for source, entry in zip(sources, entries, strict=True)
            ]
            ids = [graph.entity_ids[position] for position in inputs]
            expected = umls.hop_edges(ids, relation, inverse=inverse)
            assert found == [EvidenceTriple.from_edge(edge) for edge in expected]


def test_an_entity_only_query_returns_the_entity(umls: NetworkXStore) -> None:
    entity = sorted(node.id for node in umls.nodes())[0]
    result = ConformalGate(ScoredGraph(umls)).run(EntityQuery(id=entity))
    assert result.ids == {entity} and result.hops == [] and not result.everything


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


def test_the_beam_over_inputs_is_reported(
    umls: NetworkXStore, umls_predictor: LinkPredictor
) -> None:
    graph = ScoredGraph(umls, CountingPredictor(umls_predictor, beam=2))
    inner = next(q for q in queries(umls, 40, seed=6) if len(execute_sets(umls, q)[0]) > 5)
    query = ProjectQuery(relation="isa", input=inner)
    result = ConformalGate(graph).run(query, {0: 0.1, 1: 0.1, 2: 0.1, 3: 0.1})
    last = result.hops[-1]
    assert last.note is not None and "heaviest" in last.note and "beam 2" in last.note
    assert any("beam 2" in note for note in result.notes)


def test_the_beam_ignores_ids_and_keeps_ties() -> None:
    weights = np.array([0.0, 1.0, 0.5, 1.0, 1.0, 0.2])
    assert beam_inputs(weights, 2).tolist() == [1, 3, 4]
    assert beam_inputs(weights, 4).tolist() == [1, 2, 3, 4]
    assert beam_inputs(weights, 10).tolist() == [1, 2, 3, 4, 5]


def test_predictions_score_strictly_below_the_routing_threshold() -> None:
    config = GateConfig()
    scores = config.neural_scores(np.array([1.0, 0.5, 0.0]))
    assert scores[0] < config.routing_threshold and scores[1] == 0.25 and scores[2] == 0.0
    assert config.neural_scores(np.array([0.5]), known_answers=4)[0] == 0.05


def test_a_single_hops_predictions_are_weighted_by_the_answers_it_retrieves(
    umls: NetworkXStore, umls_predictor: LinkPredictor
) -> None:
    """A 1p prediction scores δ·p / (1 + K), K = the answers the hop retrieves (the share of the
    query's recall it can add); with the weighting off, δ·p."""
    weighted = ScoredGraph(umls, umls_predictor)
    plain = ScoredGraph(umls, umls_predictor, GateConfig(answer_weighting=0.0))
    assert weighted.config.scoring != plain.config.scoring
    retrieved_counts = set()
    for seed in range(8):
        query = sample_query(umls, "1p", random.Random(seed))
        hop, reference = (
            weighted.evaluate(query, lambda d: True),
            plain.evaluate(query, lambda d: True),
        )
        assert hop.neural is not None and reference.neural is not None  # type: ignore[union-attr]
        known = len(execute_sets(umls, query)[0])
        retrieved_counts.add(known)
        expected = reference.neural / (1 + known)  # type: ignore[union-attr]
        np.testing.assert_allclose(hop.neural, expected, rtol=1e-12)  # type: ignore[union-attr]
        assert (hop.neural > 0).sum() > 0  # type: ignore[union-attr]
    assert len(retrieved_counts) > 1


@pytest.mark.parametrize("shape", ["2i", "2u"])
def test_a_joins_branches_are_weighted_by_its_retrieved_answers(
    umls: NetworkXStore, umls_predictor: LinkPredictor, shape: str
) -> None:
    """Recall counts the join's answers: every branch's predictions are divided by 1 + the
    answers the intersection (union) retrieves, not by each branch's own count."""
    weighted = ScoredGraph(umls, umls_predictor)
    plain = ScoredGraph(umls, umls_predictor, GateConfig(answer_weighting=0.0))
    own_counts_differ = False
    for seed in range(4):
        query = sample_query(umls, shape, random.Random(seed))
        assert isinstance(query, IntersectQuery | UnionQuery)
        join, reference = (
            weighted.evaluate(query, lambda d: True),
            plain.evaluate(query, lambda d: True),
        )
        known = len(execute_sets(umls, query)[0])
        branches = zip(join.children, reference.children, query.inputs, strict=True)  # type: ignore[union-attr]
        for branch, plain_branch, branch_query in branches:
            np.testing.assert_allclose(branch.neural, plain_branch.neural / (1 + known), rtol=1e-12)
            own_counts_differ |= len(execute_sets(umls, branch_query)[0]) != known
    assert own_counts_differ


def _tree_hops(tree: Any) -> list[Any]:
    """An evaluated tree's projections, inputs first (the order of :func:`projections`)."""
    if hasattr(tree, "children"):
        return [hop for child in tree.children for hop in _tree_hops(child)]
    if hasattr(tree, "child"):
        return [*_tree_hops(tree.child), tree]
    return []


@pytest.mark.parametrize("shape", ["2p", "3p", "ip", "pi", "up"])
def test_every_hop_is_weighted_by_the_answers_the_query_retrieves(
    umls: NetworkXStore, umls_predictor: LinkPredictor, shape: str
) -> None:
    """Recall counts the query's answers: the predictions of every hop — a chain's first hop
    as much as its last — score δ·p / (1 + K), K = the answers the whole query retrieves."""
    graph = ScoredGraph(umls, umls_predictor)
    own_counts_differ = False
    for seed in range(4):
        query = sample_query(umls, shape, random.Random(seed))
        known = len(execute_sets(umls, query)[0])
        hops = _tree_hops(graph.evaluate(query, lambda d: True))
        assert [(h.relation, h.inverse) for h in hops] == [
            (p.relation, p.inverse) for p in projections(query)
        ]
        for hop in hops:
            assert hop.probabilities is not None and (hop.probabilities > 0).any()
            expected = np.where(
                hop.probabilities > 0, graph.config.neural_scores(hop.probabilities, known), 0.0
            )
            np.testing.assert_allclose(hop.neural, expected, rtol=1e-12)
        own_counts_differ |= any(
            len(execute_sets(umls, hop)[0]) != known for hop in projections(query)
        )
    assert own_counts_differ


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
        ({"neural_min_probability": 0.0}, "neural_min_probability"),
        ({"answer_weighting": -1.0}, "answer_weighting"),
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
    with pytest.raises(UnknownEntityError, match="unknown entity"):
        gate.run(ProjectQuery(relation="isa", input=EntityQuery(id="nope")))


def test_a_query_past_its_deadline_stops() -> None:
    store = small_store()
    gate = ConformalGate(ScoredGraph(store, None))
    tree = ProjectQuery(relation="associated_with", inverse=True, input=EntityQuery(id="D1"))
    with deadline(0.0), pytest.raises(DeadlineExceededError, match="longer than its limit"):
        time.sleep(0.001)
        gate.run(tree)
    assert gate.run(tree).total >= 0  # without a deadline it runs


def test_an_empty_answer_says_which_hop_reached_nothing() -> None:
    """CFTR (G3) has no phenotype in the small graph: the note names the hop, the entity and,
    on a hybrid hop, that no prediction reached its threshold; a query with answers has none."""
    store = small_store()
    gate = ConformalGate(ScoredGraph(store, FlatPredictor()))
    phenotypes = ProjectQuery(relation="has_phenotype", input=EntityQuery(id="G3"))
    retrieval = gate.run(phenotypes)
    assert retrieval.total == 0
    assert retrieval.notes == [
        "no answer: hop has_phenotype (depth 0) reached nothing: CFTR (G3) has no "
        "has_phenotype edge in the KG"
    ]
    # predictions score δ·0.3 = 0.15 here: below a threshold of 0.2, above one of 0.1
    [note] = gate.run(phenotypes, {0: 0.2}).notes
    assert note.endswith("and no prediction reached the hop's threshold 0.2")
    assert not [n for n in gate.run(phenotypes, {0: 0.1}).notes if n.startswith("no answer")]
    # the first hop that reached nothing is named, not the hops after it
    chain = ProjectQuery(relation="subclass_of", input=phenotypes)
    [note] = gate.run(chain).notes
    assert note.startswith("no answer: hop has_phenotype (depth 1) reached nothing: CFTR (G3)")
    # an inverse hop from several inputs
    genes = ProjectQuery(
        relation="targets",
        inverse=True,
        input=ProjectQuery(relation="associated_with", inverse=True, input=EntityQuery(id="D2")),
    )
    assert gate.run(genes).notes == [
        "no answer: hop targets (depth 0) reached nothing: no targets edge points to CFTR (G3) "
        "in the KG"
    ]
    # branches with answers that share none
    disjoint = IntersectQuery(
        inputs=[
            ProjectQuery(relation="associated_with", input=EntityQuery(id="G1")),
            ProjectQuery(relation="associated_with", input=EntityQuery(id="G3")),
        ]
    )
    assert gate.run(disjoint).notes == [
        "no answer: the branches of the intersection share no entity"
    ]
    answered = ProjectQuery(relation="associated_with", input=EntityQuery(id="G1"))
    assert gate.run(answered).notes == []


def test_a_hop_naming_node_types_keeps_them_in_every_answer() -> None:
    """Retrieved edges, predictions and the "everything" point stay inside the named types."""
    store = small_store()
    gate = ConformalGate(ScoredGraph(store, FlatPredictor()))
    types = {node.id: node.type for node in store.nodes()}
    query = ProjectQuery(
        relation="has_phenotype", inverse=True, types=("disease",), input=EntityQuery(id="P1")
    )
    assert gate.run(query).ids == {"D1"}  # G1 has P1 too, but it is a gene
    hybrid = gate.run(query, {0: 0.01})
    assert hybrid.predicted > 0 and {types[c.id] for c in hybrid.candidates} == {"disease"}
    everything = gate.run(query, {0: 0.0})
    assert everything.total == everything.answer_type_size == 2  # D1 and D2
    assert everything.hops[0].answer_types == ["disease"]
    untyped = gate.run(query.model_copy(update={"types": None}), {0: 0.0})
    assert untyped.hops[0].answer_types == ["disease", "gene"]
