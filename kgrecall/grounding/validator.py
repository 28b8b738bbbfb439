"""KGGroundingValidator: a report in, every claim labelled with its KG evidence out.

Claims (:mod:`~kgrecall.grounding.claims`) → entity mentions (:mod:`~kgrecall.grounding.entities`)
→ path verification (:mod:`~kgrecall.grounding.verify`). The result is a pydantic model (JSON)
and an annotated markdown report: ✅ grounded, ⚠️ inferred, ❌ ungrounded, ℹ️ trivial, with
the evidence chain under each claim and ⚡ for conflicts. Overall confidence is the mean
confidence of the non-trivial claims.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from kgrecall.grounding.claims import (
    DEFAULT_MAX_CHARS,
    Claim,
    extract_claims,
    split_conjunctions,
)
from kgrecall.grounding.entities import EntityExtractor, Mention, MentionKind
from kgrecall.grounding.verify import Label, PathVerifier
from kgrecall.kg import GraphStore
from kgrecall.tools import EvidenceTriple

ICONS: dict[str, str] = {
    "grounded": "✅",
    "inferred": "⚠️",
    "ungrounded": "❌",
    "trivial": "ℹ️",
}


class EntityMention(BaseModel):
    """An entity mentioned in a claim, with its span in the report."""

    text: str
    start: int
    end: int
    id: str
    kind: MentionKind
    in_kg: bool


class ClaimResult(BaseModel):
    """One claim: label, confidence, evidence chains and what conflicts with it."""

    text: str
    start: int
    end: int
    label: Label
    confidence: float | None
    entities: list[EntityMention]
    evidence: list[list[EvidenceTriple]] = Field(default_factory=list)
    claimed_relations: list[str] = Field(default_factory=list)
    negated: bool = False
    conflicts: list[str] = Field(default_factory=list)


class GroundingResult(BaseModel):
    """Every claim of a report, the label counts and the overall confidence."""

    claims: list[ClaimResult]
    counts: dict[str, int]
    overall_confidence: float | None

    def to_markdown(self, names: dict[str, str] | None = None) -> str:
        """The annotated report: one block per claim, evidence chains indented under it."""
        shown = names or {}
        lines = [
            "# Grounding report",
            "",
            "Overall confidence: "
            + ("n/a" if self.overall_confidence is None else f"{self.overall_confidence:.2f}")
            + " · "
            + ", ".join(f"{ICONS[k]} {k} {v}" for k, v in self.counts.items()),
            "",
        ]
        for claim in self.claims:
            confidence = "" if claim.confidence is None else f" ({claim.confidence:.2f})"
            lines.append(f"- {ICONS[claim.label]} **{claim.label}**{confidence} — {claim.text}")
            for chain in claim.evidence:
                steps = " · ".join(
                    f"{shown.get(t.head, t.head)} —[{t.relation}]→ {shown.get(t.tail, t.tail)}"
                    f" ({', '.join(t.sources) or 'no source'})"
                    for t in chain
                )
                lines.append(f"  - evidence: {steps}")
            for conflict in claim.conflicts:
                lines.append(f"  - ⚡ conflict: {conflict}")
        return "\n".join(lines) + "\n"


class KGGroundingValidator:
    """Checks reports against one KG."""

    def __init__(
        self,
        store: GraphStore,
        *,
        max_depth: int = 4,
        hub_degree: int = 200,
        max_chars: int = DEFAULT_MAX_CHARS,
    ) -> None:
        self.store = store
        self.extractor = EntityExtractor(store)
        self.verifier = PathVerifier(store, max_depth=max_depth, hub_degree=hub_degree)
        self.max_chars = max_chars

    def validate(self, report: str) -> GroundingResult:
        """Label every claim of ``report`` (see the module docstring)."""
        results = []
        for claim in extract_claims(report, max_chars=self.max_chars):
            # Entities from the raw span, so their offsets are exact in the report.
            raw = report[claim.start : claim.end]
            mentions = [m for m in self.extractor.extract(raw) if m.in_kg]
            parts = split_conjunctions(raw, [(m.start, m.end) for m in mentions])
            for text, kept in parts:
                used = [mentions[i] for i in kept]
                sub_text = (
                    " ".join(text.replace("|", " ").split()) if len(parts) > 1 else claim.text
                )
                results.append(self._result(claim, sub_text, used))
        counts = {label: sum(c.label == label for c in results) for label in ICONS}
        scored = [c.confidence for c in results if c.confidence is not None]
        overall = round(sum(scored) / len(scored), 4) if scored else None
        return GroundingResult(claims=results, counts=counts, overall_confidence=overall)

    def _result(self, claim: Claim, text: str, mentions: list[Mention]) -> ClaimResult:
        verdict = self.verifier.verify_claim(text, [m.entity_id for m in mentions])
        return ClaimResult(
            text=text,
            start=claim.start,
            end=claim.end,
            label=verdict.label,
            confidence=verdict.confidence,
            entities=[
                EntityMention(
                    text=m.text,
                    start=claim.start + m.start,
                    end=claim.start + m.end,
                    id=m.entity_id,
                    kind=m.kind,
                    in_kg=m.in_kg,
                )
                for m in mentions
            ],
            evidence=[
                [EvidenceTriple.from_edge(edge) for edge in pair.path]
                for pair in verdict.pairs
                if pair.path
            ],
            claimed_relations=sorted(verdict.predicate),
            negated=verdict.negated,
            conflicts=verdict.conflicts,
        )
