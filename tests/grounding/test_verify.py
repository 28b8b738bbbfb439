"""Path verification on the hand-checked graph: labels, hubs, relations, negation."""

from __future__ import annotations

import pytest

from kgrecall.grounding.verify import PathVerifier
from kgrecall.kg import Edge, NetworkXStore


def test_labels_by_path_length(store: NetworkXStore) -> None:
    verifier = PathVerifier(store, hub_degree=100)
    assert verifier.verify_pair("G1", "D1").label == "grounded"  # 1 hop
    two = verifier.verify_pair("X", "P1")  # X → G1/D1 → P1
    assert two.label == "grounded" and len(two.path) == 2
    far = verifier.verify_pair("G3", "P1")  # G3 — H — G1 — P1 (3 hops)
    assert far.label == "inferred" and len(far.path) == 3
    assert verifier.verify_pair("G3", "P0").label == "inferred"


def test_hubs_do_not_carry_paths(store: NetworkXStore) -> None:
    strict = PathVerifier(store, hub_degree=3)  # H (degree 3) is a hub
    via_hub = strict.verify_pair("G3", "G2")  # only G3 — H — G2 (or longer through H)
    assert via_hub.through_hubs and via_hub.label == "inferred"
    isolated = NetworkXStore(store.schema, store.metadata)
    isolated.add_nodes(store.nodes())
    isolated.add_edges(e for e in store.edges() if e.head != "H")
    assert PathVerifier(isolated).verify_pair("G3", "G1").label == "ungrounded"


def test_claim_labels_relations_and_conflicts(store: NetworkXStore) -> None:
    verifier = PathVerifier(store)
    plain = verifier.verify_claim("SNCA is associated with Parkinson disease.", ["G1", "D1"])
    assert plain.label == "grounded" and plain.confidence == 1.0 and not plain.conflicts
    wrong = verifier.verify_claim("Levodopa targets Parkinson disease.", ["X", "D1"])
    assert wrong.label == "grounded" and wrong.confidence is not None
    assert wrong.confidence < plain.confidence  # predicate differs from the edge (treats)
    negated = verifier.verify_claim("SNCA is not associated with Parkinson disease.", ["G1", "D1"])
    assert negated.negated and negated.conflicts and negated.confidence == pytest.approx(0.2)
    assert verifier.verify_claim("The sky is blue.", []).label == "trivial"
    assert verifier.verify_claim("SNCA matters.", ["G1"]).label == "ungrounded"


def test_opposite_relation_on_the_direct_edge_is_a_conflict(store: NetworkXStore) -> None:
    changed = NetworkXStore(store.schema, store.metadata)
    changed.add_nodes(store.nodes())
    changed.add_edges([*store.edges(), Edge("X", "inhibits", "G2")])
    verdict = PathVerifier(changed).verify_claim("Levodopa activates LRRK2.", ["X", "G2"])
    assert verdict.label == "grounded"
    assert verdict.conflicts and "inhibits" in verdict.conflicts[0]


def test_auto_learned_edges_never_ground(store: NetworkXStore) -> None:
    changed = NetworkXStore(store.schema, store.metadata)
    changed.add_nodes(store.nodes())
    changed.add_edges(e for e in store.edges() if e.head != "H")
    changed.add_edges([Edge("G3", "co_occurs_with", "P0", sources=("auto_learned",))])
    assert PathVerifier(changed).verify_pair("G3", "P0").label == "ungrounded"
