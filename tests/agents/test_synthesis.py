"""Structured answers are grounded from their evidence, never by re-reading the report."""

from __future__ import annotations

from kgrecall.agents.synthesis import FINDINGS_HEADING, evidence_claims
from kgrecall.kg import NetworkXStore
from kgrecall.tools import Candidate, Evidence, EvidenceTriple


def test_kg_edges_are_grounded_and_predicted_edges_inferred(store: NetworkXStore) -> None:
    known = EvidenceTriple(head="G1", relation="associated_with", tail="D1")
    predicted = EvidenceTriple(head="G3", relation="associated_with", tail="D1", confidence=0.4)
    candidates = [
        Candidate(
            id="G1",
            name="SNCA",
            type="gene",
            score=1.0,
            tools=["graph_traversal"],
            evidence=[Evidence(kind="kg_path", triples=[known])],
        ),
        Candidate(
            id="G3",
            name="CFTR",
            type="gene",
            score=0.4,
            tools=["neural_completion"],
            evidence=[Evidence(kind="predicted_triple", triples=[predicted])],
        ),
    ]
    report = (
        f"## Q\n\n{FINDINGS_HEADING}\n\n#### 1. SNCA (G1)\n"
        "SNCA (G1) is associated with Parkinson disease (D1).\n\n#### 2. CFTR (G3)\n"
        "The link predictor predicts that CFTR (G3) is associated with Parkinson disease (D1).\n"
    )
    claims = evidence_claims(report, candidates, store, max_results=10)
    assert [(c.label, c.confidence) for c in claims] == [("grounded", 1.0), ("inferred", 0.4)]
    for claim, triple in zip(claims, (known, predicted), strict=True):
        assert report[claim.start : claim.end] == claim.text and claim.evidence == [[triple]]
        assert [e.id for e in claim.entities] == [triple.head, triple.tail]
        assert report[claim.entities[0].start : claim.entities[0].end] == claim.entities[0].text
    assert "not in the KG" in claims[1].notes[0]
    # only the answers shown count
    assert len(evidence_claims(report, candidates, store, max_results=1)) == 1
