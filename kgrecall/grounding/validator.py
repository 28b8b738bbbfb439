"""KGGroundingValidator: a report in, every claim labelled with its KG evidence out.

Claims (:mod:`~kgrecall.grounding.claims`) → entity mentions (:mod:`~kgrecall.grounding.entities`)
→ path verification (:mod:`~kgrecall.grounding.verify`); claims are read in report order, each
with what the ones before it named and defined (the disease and gene "the syndrome" and "the
receptor" refer to, short forms such as "Fanconi anaemia (FA)"). The result is a pydantic
model (JSON) and an annotated markdown report: ✅ grounded, ⚠️ inferred, ❌ ungrounded, ℹ️
trivial, with the evidence chain under each claim and ⚡ for conflicts. Overall confidence is
the mean confidence of the non-trivial claims.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, Field

from kgrecall.grounding.claims import DEFAULT_MAX_CHARS, Claim, check_report, extract_claims
from kgrecall.grounding.entities import (
    TERM_PREFIX,
    WEAK_KINDS,
    EntityExtractor,
    EntityMention,
    anatomy_ids,
    is_procedure,
)
from kgrecall.grounding.reading import Assertion
from kgrecall.grounding.verify import Label, PathVerifier
from kgrecall.kg import GraphStore
from kgrecall.kg.deadline import check_deadline
from kgrecall.tools import EvidenceTriple
from kgrecall.tools.linking import EntityIndex

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

ICONS: dict[str, str] = {
    "grounded": "✅",
    "inferred": "⚠️",
    "ungrounded": "❌",
    "trivial": "ℹ️",
}


class AssertedPair(BaseModel):
    """One relation a claim asserts between two of its entities, and what the KG says."""

    subject: str
    object: str
    label: Label
    claimed_relations: list[str] = Field(default_factory=list)
    negated: bool = False
    conflict: str | None = None
    note: str | None = None


class ClaimResult(BaseModel):
    """One claim: label, confidence, the pairs it asserts, evidence chains and what
    conflicts with it."""

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
    pairs: list[AssertedPair] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)


class GroundingResult(BaseModel):
    """Every claim of a report, the label counts and the overall confidence.

    ``extraction`` says who split the report into claims; ``notes`` why the LLM was not used
    when one was configured.
    """

    claims: list[ClaimResult]
    counts: dict[str, int]
    overall_confidence: float | None
    extraction: Literal["heuristic", "llm"] = "heuristic"
    notes: list[str] = Field(default_factory=list)

    @classmethod
    def of(
        cls,
        claims: list[ClaimResult],
        *,
        extraction: Literal["heuristic", "llm"] = "heuristic",
        notes: list[str] | None = None,
    ) -> GroundingResult:
        """The result for ``claims``: label counts and the mean confidence of the scored ones."""
        scored = [c.confidence for c in claims if c.confidence is not None]
        return cls(
            claims=claims,
            counts={label: sum(c.label == label for c in claims) for label in ICONS},
            overall_confidence=round(sum(scored) / len(scored), 4) if scored else None,
            extraction=extraction,
            notes=notes or [],
        )

    def to_markdown(self, names: dict[str, str] | None = None) -> str:
        """The annotated report: one block per claim, evidence chains indented under it."""
        shown = names or {}
        lines = [
            "# Grounding report",
            "",
            "Overall confidence: "
            + ("n/a" if self.overall_confidence is None else f"{self.overall_confidence:.2f}")
            + " · "
            + ", ".join(f"{ICONS[k]} {k} {v}" for k, v in self.counts.items())
            + f" · claims extracted by the {self.extraction} extractor",
            *(f"\n> {note}" for note in self.notes),
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
            outside = [m.text for m in claim.entities if not m.in_kg]
            if outside:
                lines.append(f"  - not in the KG: {', '.join(outside)}")
            for note in claim.notes:
                lines.append(f"  - note: {note}")
            for conflict in claim.conflicts:
                lines.append(f"  - ⚡ conflict: {conflict}")
        return "\n".join(lines) + "\n"


@dataclass(slots=True)
class _Context:
    """What the claims before one named and defined: the one disease and the one gene or
    protein ("the syndrome", "the receptor" refer to them) and short forms ("Fanconi anaemia
    (FA)")."""

    topic: str | None = None
    gene_topic: str | None = None
    defined: dict[str, str | None] = field(default_factory=dict)

    def read(self, extractor: EntityExtractor, text: str) -> list[EntityMention]:
        """The mentions of ``text`` in this context."""
        return extractor.extract(
            text, topic=self.topic, gene_topic=self.gene_topic, defined=self.defined
        )

    def follow(self, extractor: EntityExtractor, found: list[EntityMention], text: str) -> None:
        """The context after a claim of ``text`` that names ``found``."""
        self.topic = extractor.sole_disease(found, text)
        self.gene_topic = extractor.sole_gene(found)


class KGGroundingValidator:
    """Checks reports against one KG."""

    def __init__(
        self,
        store: GraphStore,
        *,
        max_depth: int = 4,
        hub_degree: int = 200,
        max_chars: int = DEFAULT_MAX_CHARS,
        llm: BaseChatModel | None = None,
        index: EntityIndex | None = None,
    ) -> None:
        self.store = store
        self.extractor = EntityExtractor(store, index)
        self.verifier = PathVerifier(store, max_depth=max_depth, hub_degree=hub_degree)
        self.max_chars = max_chars
        self.llm = llm

    def validate(self, report: str) -> GroundingResult:
        """Label every claim of ``report`` (see the module docstring)."""
        claims, extraction, notes = self._claims(report)
        results = []
        context = _Context()
        for claim in claims:
            check_deadline()  # a timed-out request's grounding stops here, not at the end
            raw = report[claim.start : claim.end]
            if not claim.verbatim:
                # an LLM's claim: the short forms its source sentence defines hold in it too
                context.defined.update(self.extractor.definitions(raw))
                result, found = self._rewritten(report, claim, context)
                context.follow(self.extractor, found, claim.text)
                results.append(result)
                continue
            # Entities from the raw span, so their offsets are exact in the report; names
            # outside the KG stay in, so a pair with one is unverifiable, not dropped.
            found = context.read(self.extractor, raw)
            context.follow(self.extractor, found, raw)
            context.defined.update(self.extractor.definitions(raw))
            # Predicates and negation are read outside the names ("X-linked", "Non-…").
            results.append(self._result(claim, _mask(raw, found), found))
        return GroundingResult.of(results, extraction=extraction, notes=notes)

    def _claims(self, report: str) -> tuple[list[Claim], Literal["heuristic", "llm"], list[str]]:
        """Claims by the LLM when one is configured, else (or when it fails) heuristically."""
        if self.llm is None:
            return extract_claims(report, max_chars=self.max_chars), "heuristic", []
        check_report(report, max_chars=self.max_chars)  # bad input is refused, not retried
        # the LLM stack (langchain) is imported only when an LLM is configured
        from kgrecall.grounding.llm_claims import extract_claims_with_llm
        from kgrecall.llm import LLMError

        try:
            claims = extract_claims_with_llm(report, self.llm, max_chars=self.max_chars)
        except LLMError as error:
            note = f"LLM claim extraction failed ({error}); claims were extracted heuristically"
            return extract_claims(report, max_chars=self.max_chars), "heuristic", [note]
        return claims, "llm", []

    def _rewritten(
        self, report: str, claim: Claim, context: _Context
    ) -> tuple[ClaimResult, list[EntityMention]]:
        """An LLM claim's result and mentions: entities read from its own text, placed in its
        source sentence; the pairs the LLM read, when it gave them, are the ones checked."""
        found = context.read(self.extractor, claim.text)
        assertions = None
        if claim.pairs:
            found, assertions = self._given_pairs(claim, found, context)
        source = report[claim.start : claim.end].casefold()
        placed = []
        for mention in found:
            at = source.find(mention.text.casefold())
            start, end = (at, at + len(mention.text)) if at >= 0 else (0, claim.end - claim.start)
            placed.append(mention.model_copy(update={"start": start, "end": end}))
        return self._result(claim, _mask(claim.text, found), found, placed, assertions), found

    def _given_pairs(
        self, claim: Claim, found: list[EntityMention], context: _Context
    ) -> tuple[list[EntityMention], list[Assertion]]:
        """The LLM's pairs as assertions between the claim's mentions. A name no mention
        holds is read on its own; a name that reads as no entity is a term outside the KG
        (the LLM took it for an entity: a claim about it cannot be confirmed)."""
        mentions = list(found)
        indices = [
            (
                self._mention_of(pair.subject, claim.text, mentions, context),
                self._mention_of(pair.object, claim.text, mentions, context),
            )
            for pair in claim.pairs
        ]
        order = sorted(range(len(mentions)), key=lambda i: (mentions[i].start, mentions[i].end))
        position = {old: new for new, old in enumerate(order)}
        assertions = [
            Assertion(
                position[subject],
                position[obj],
                frozenset() if pair.relation is None else frozenset({pair.relation}),
                negated=pair.negated,
            )
            for pair, (subject, obj) in zip(claim.pairs, indices, strict=True)
        ]
        return [mentions[i] for i in order], assertions

    def _mention_of(
        self, name: str, text: str, mentions: list[EntityMention], context: _Context
    ) -> int:
        """Index of the mention ``name`` (as an LLM wrote it) stands for, added to
        ``mentions`` when none does: the mention spelt so; else the name read alone (the
        mention of that entity, or a new one: "chorea" inside the mention "chorea in
        Huntington disease"), or looked up by name without the cue prose needs; else the
        longest mention inside the name or holding it; else a term outside the KG (the LLM
        took it for an entity no name table holds)."""
        key = name.casefold()
        spelt = [i for i, m in enumerate(mentions) if m.text.casefold() == key]
        if spelt:
            return spelt[0]
        at = text.casefold().find(key)
        start, end = (at, at + len(name)) if at >= 0 else (len(text), len(text))
        alone = [m for m in context.read(self.extractor, name) if m.end - m.start == len(name)]
        if not alone and self.extractor.index is not None:
            # the LLM took the name for an entity: the cue a bare abbreviation or an everyday
            # word needs in prose ("ED", "falls") is its judgement; other records, to choose
            # among by the claimed relation's types
            linked = self.extractor.index.lookup(name)
            if linked:
                others = tuple(entity.id for entity in linked[1:])
                found = EntityMention(
                    text=name, start=0, end=len(name), id=linked[0].id, kind="dictionary",
                    in_kg=True, alternatives=others,
                )  # fmt: skip
                alone = [found]
        if alone:
            same = [i for i, m in enumerate(mentions) if m.id == alone[0].id]
            if same:
                return same[0]
            mentions.append(alone[0].model_copy(update={"start": start, "end": end}))
            return len(mentions) - 1
        overlapping = [
            i
            for i, m in enumerate(mentions)
            if m.text.casefold() in key or key in m.text.casefold()
        ]
        if overlapping:
            return max(overlapping, key=lambda i: len(mentions[i].text))
        outside = EntityMention(
            text=name, start=start, end=end, id=f"{TERM_PREFIX}{key}", kind="vocabulary",
            in_kg=False,
        )  # fmt: skip
        mentions.append(outside)
        return len(mentions) - 1

    def _result(
        self,
        claim: Claim,
        wording: str,
        mentions: list[EntityMention],
        placed: list[EntityMention] | None = None,
        assertions: list[Assertion] | None = None,
    ) -> ClaimResult:
        """A claim's result: ``wording`` is its text with names masked and ``mentions`` are
        spans in it; ``placed`` the same mentions where they sit in the claim's source
        sentence (an LLM's claim is not verbatim), else ``mentions``; ``assertions`` the
        pairs an LLM read (None: read from the wording)."""
        verdict = self.verifier.verify_claim(
            wording,
            [(m.id, m.start, m.end) for m in mentions],
            weak=[i for i, m in enumerate(mentions) if m.kind in WEAK_KINDS],
            alternatives=[m.alternatives for m in mentions],
            places=[i for i, m in enumerate(mentions) if m.id in anatomy_ids()],
            procedures=[i for i, m in enumerate(mentions) if is_procedure(m.id)],
            assertions=assertions,
        )
        return ClaimResult(
            text=claim.text,
            start=claim.start,
            end=claim.end,
            label=verdict.label,
            confidence=verdict.confidence,
            entities=[
                m.model_copy(update={"start": claim.start + m.start, "end": claim.start + m.end})
                for m in (mentions if placed is None else placed)
            ],
            evidence=[
                [EvidenceTriple.from_edge(edge) for edge in pair.path]
                for pair in verdict.pairs
                if pair.path
            ],
            claimed_relations=sorted(verdict.predicate),
            negated=verdict.negated,
            conflicts=verdict.conflicts,
            pairs=[
                AssertedPair(
                    subject=pair.source,
                    object=pair.target,
                    label=pair.label,
                    claimed_relations=sorted(pair.relations),
                    negated=pair.negated,
                    conflict=pair.conflict,
                    note=pair.note,
                )
                for pair in verdict.pairs
            ],
            notes=verdict.notes,
        )


def _mask(text: str, mentions: list[EntityMention]) -> str:
    """``text`` with every mention overwritten by ``X`` (same length, so spans still hold)."""
    chars = list(text)
    for mention in mentions:
        chars[mention.start : mention.end] = "X" * (mention.end - mention.start)
    return "".join(chars)
