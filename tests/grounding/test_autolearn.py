"""Auto-learning: what is added, with which provenance, and what is never touched."""

from __future__ import annotations

import pytest

from kgrecall.grounding import KGGroundingValidator, auto_learn
from kgrecall.kg import Edge, KGError, NetworkXStore

FINDINGS = "SNCA is associated with GO:0099999 in Mus musculus. SNCA interacts with LRRK2."


def copy_of(store: NetworkXStore, *, without_hub: bool = False) -> NetworkXStore:
    copied = NetworkXStore(store.schema, store.metadata)
    copied.add_nodes(store.nodes())
    copied.add_edges(e for e in store.edges() if not (without_hub and e.head == "H"))
    return copied


def test_entities_tools_and_co_occurrences_are_added(store: NetworkXStore) -> None:
    kg = copy_of(store)
    kg.add_edges([Edge("G1", "co_occurs_with", "G2", sources=("curated",))])
    before = {n.id: n for n in kg.nodes()}
    learned = auto_learn(kg, task="Check SNCA (P37840)", findings=FINDINGS, tools=["blast"])
    analysis = learned.analysis_id
    assert sorted(learned.nodes_added) == sorted(
        [analysis, "tool:blast", "GO:0099999", "NCBITaxon:10090", "uniprot:P37840"]
    )
    types = {n: kg.get_node(n).type for n in learned.nodes_added}
    assert types["GO:0099999"] == "go_term" and types["uniprot:P37840"] == "protein"
    assert types["NCBITaxon:10090"] == "organism" and types["tool:blast"] == "tool"
    assert kg.get_edge(analysis, "requires_tool", "tool:blast") is not None
    co = kg.get_edge("G1", "co_occurs_with", "GO:0099999")
    assert co is not None and co.sources == ("auto_learned",) and co.confidence == 0.5
    assert kg.get_edge("G1", "co_occurs_with", "uniprot:P37840") is not None  # the task
    assert kg.get_edge("GO:0099999", "co_occurs_with", "uniprot:P37840") is None  # apart
    # Curated content is never overwritten: nodes unchanged, the curated edge keeps its sources.
    assert all(kg.get_node(i) == node for i, node in before.items())
    curated = kg.get_edge("G1", "co_occurs_with", "G2")
    assert curated is not None and curated.sources == ("curated",)
    assert learned.edges_skipped_existing == 1
    again = auto_learn(kg, task="Check SNCA (P37840)", findings=FINDINGS, tools=["blast"])
    assert again.nodes_added == [] and again.edges_added == 0  # idempotent


def test_a_report_never_grounds_itself(store: NetworkXStore) -> None:
    kg = copy_of(store, without_hub=True)
    report = "Cystic fibrosis is associated with Parkinsonism."  # D2 … P1: no curated path
    before = KGGroundingValidator(kg).validate(report).claims[0]
    auto_learn(kg, task="", findings=report)
    assert kg.get_edge("D2", "co_occurs_with", "P1") is not None
    after = KGGroundingValidator(kg).validate(report).claims[0]
    assert before.label == after.label == "ungrounded"


def test_bad_requests_are_refused(store: NetworkXStore) -> None:
    with pytest.raises(KGError, match="both are empty"):
        auto_learn(copy_of(store), task=" ", findings="")
    with pytest.raises(KGError, match="tool names must not be empty"):
        auto_learn(copy_of(store), task="SNCA", findings="", tools=[" "])
