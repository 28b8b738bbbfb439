"""Synthesis: the answer set and its evidence → a markdown report.

The template report (default, no LLM) states how the question was read and the completeness
block in words; then, under ``FINDINGS_HEADING``, a heading per answer (best first; headings
are not claims) and its evidence written as one sentence per KG edge ("SNCA (NCBIGene:6622)
is associated with Parkinson disease 4 (OMIM:605543).") — grounded from the evidence itself
(:func:`evidence_claims`), never by re-reading text written from it; predicted edges say so
("The link predictor predicts that …") and are labelled inferred. With an LLM, the
model writes a summary and a rationale per answer *from the given answers only*; the result
is rejected (and the template used, with a note) when it names an answer outside the set or
mentions, in its summary, an entity of the answer type that is not an answer.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from pydantic import BaseModel, Field

from kgrecall.agents.planner import QueryPlan
from kgrecall.agents.schema_reading import GUESSED
from kgrecall.calibration import NO_ANSWER_NOTE, Completeness
from kgrecall.grounding import AssertedPair, ClaimResult, EntityExtractor, EntityMention, Label
from kgrecall.kg import GraphStore
from kgrecall.kg.relations import RELATIONS
from kgrecall.llm import LLMError, structured_call
from kgrecall.prompts import load_prompt
from kgrecall.tools import Candidate, EvidenceTriple

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

#: The heading above the answers: the part of the report that states facts (and is grounded).
FINDINGS_HEADING = "### Answers"
#: How a relation reads in a sentence, head first (from the relation registry).
VERBS: dict[str, str] = {name: r.verb for name, r in RELATIONS.items() if r.verb is not None}


class AnswerRationale(BaseModel):
    """The LLM's note on one answer (its id must be one of the given answers)."""

    id: str
    rationale: str = Field(max_length=600)


class Synthesis(BaseModel):
    """What the LLM may write: a summary and per-answer rationales, nothing else."""

    summary: str = Field(max_length=2000)
    answers: list[AnswerRationale]


def template_report(
    plan: QueryPlan,
    candidates: Sequence[Candidate],
    completeness: Completeness,
    store: GraphStore,
    *,
    max_results: int,
    total: int | None = None,
    summary: str | None = None,
    rationales: dict[str, str] | None = None,
    candidate_found: bool | None = None,
) -> str:
    """The markdown report (see the module docstring); ``candidates`` are the best answers,
    ``total`` how many the operating point returned (default: ``len(candidates)``);
    ``candidate_found``: for a yes/no question, whether the answer set holds its entity."""
    shown = list(candidates[:max_results])
    found = len(candidates) if total is None else total
    kind = (plan.answer_type or "entity").replace("_", " ")
    lines = [f"## {plan.question.strip()}", ""]
    if plan.candidate is not None and candidate_found is not None:
        name = f"{plan.candidate.name} ({plan.candidate.id})"
        lines += [
            f"**Yes**: {name} is among the answers."
            if candidate_found
            else f"**Not found**: {name} is not among the {found} answers at level "
            f"{completeness.level} (the KG may lack the link; a higher completeness level "
            "adds predicted ones).",
            "",
        ]
    if summary:
        lines += [summary.strip(), ""]
    lines.append(
        f"Found {found} {kind} answer{'s' if found != 1 else ''} "
        f"({plan.topology} query; level {completeness.level}"
        + (
            f", recall target {completeness.recall_target:.2f}"
            if completeness.recall_target is not None
            else ""
        )
        + ")."
    )
    lines.append(f"Guarantee: {completeness.guarantee}.")
    if completeness.abstained:
        lines.append(
            f"Abstained: {completeness.abstention_reason}. The calibrated set is the whole "
            f"answer type ({completeness.answer_type_size} entities): "
            f"{completeness.retrieved_answers} retrieved, the rest ranked by the link predictor."
        )
    for anchor in plan.anchors:
        text = f"Read “{anchor.mention}” as {anchor.name} ({anchor.id})"
        if anchor.ambiguous:
            others = ", ".join(f"{a['name']} ({a['id']})" for a in anchor.alternatives)
            text += f"; ambiguous — also possible: {others}"
        lines.append(text + ".")
    if plan.guessed:
        lines.append(f"Guessed: {GUESSED}.")
    for relation in plan.relations:
        if relation.method == "embedding":
            lines.append(
                f"Guessed: no known wording matched “{relation.phrase}”; read as "
                f"{relation.relation} (similarity {relation.score:.2f}) — check this reading."
            )
    if len(shown) < found:
        lines.append(f"Showing the best {len(shown)} of {found} answers.")
    if found == 0:
        lines += [
            f"No answers: {note.removeprefix(NO_ANSWER_NOTE)}."
            for note in completeness.notes
            if note.startswith(NO_ANSWER_NOTE)
        ]
    lines += ["", FINDINGS_HEADING]
    for rank, candidate in enumerate(shown, start=1):
        # The heading names the answer (headings are not claims); the evidence below is.
        lines += [
            "",
            f"#### {rank}. {candidate.name} ({candidate.id}) — score {candidate.score:.3f}",
        ]
        if rationales and candidate.id in rationales:
            lines.append(rationales[candidate.id])
        for evidence in candidate.evidence[:1]:
            lines.extend(_sentence(t, store, evidence.kind) for t in evidence.triples)
    return "\n".join(lines) + "\n"


def evidence_claims(
    report: str, candidates: Sequence[Candidate], store: GraphStore, *, max_results: int
) -> list[ClaimResult]:
    """The report's evidence sentences as grounding results read from the evidence itself,
    not re-extracted from the text (that would only find the edges the text was written
    from): a KG edge is *grounded* with itself as its path, a predicted edge *inferred*
    (a prediction, not in the KG). Spans point at the sentences ``template_report`` wrote."""
    claims: list[ClaimResult] = []
    position = report.find(FINDINGS_HEADING)
    for candidate in list(candidates)[:max_results]:
        for evidence in candidate.evidence[:1]:
            for triple in evidence.triples:
                sentence = _sentence(triple, store, evidence.kind)
                start = report.find(sentence, max(position, 0))
                if start < 0:
                    continue  # not written (a test double's report): nothing to point at
                position = start + len(sentence)
                in_kg = store.get_edge(triple.head, triple.relation, triple.tail) is not None
                label: Label = "grounded" if in_kg else "inferred"
                note = (
                    "read from the answer's evidence: a KG edge"
                    if in_kg
                    else "read from the answer's evidence: predicted by the link predictor, "
                    "not in the KG"
                )
                claims.append(
                    ClaimResult(
                        text=sentence,
                        start=start,
                        end=position,
                        label=label,
                        confidence=1.0 if in_kg else round(triple.confidence, 4),
                        entities=[
                            _mention(report, start, position, store, entity)
                            for entity in (triple.head, triple.tail)
                        ],
                        evidence=[[triple]],
                        claimed_relations=[triple.relation],
                        pairs=[
                            AssertedPair(
                                subject=triple.head,
                                object=triple.tail,
                                label=label,
                                claimed_relations=[triple.relation],
                                note=note,
                            )
                        ],
                        notes=[note],
                    )
                )
    return claims


def _mention(report: str, start: int, end: int, store: GraphStore, entity: str) -> EntityMention:
    """Where ``template_report`` wrote an entity ("Name (id)") inside a sentence."""
    written = _named(store, entity)
    at = report.find(written, start, end)
    at = start if at < 0 else at
    return EntityMention(
        text=written,
        start=at,
        end=at + len(written),
        id=entity,
        kind="curie",
        in_kg=store.has_node(entity),
    )


def _sentence(triple: EvidenceTriple, store: GraphStore, kind: str) -> str:
    head, tail = (_named(store, triple.head), _named(store, triple.tail))
    verb = VERBS.get(triple.relation, triple.relation.replace("_", " "))
    if kind == "predicted_triple":
        return f"The link predictor predicts that {head} {verb} {tail}."
    return f"{head} {verb} {tail}."


def _named(store: GraphStore, entity: str) -> str:
    return f"{store.get_node(entity).name} ({entity})" if store.has_node(entity) else entity


def llm_synthesis(
    model: BaseChatModel,
    plan: QueryPlan,
    candidates: Sequence[Candidate],
    store: GraphStore,
    extractor: EntityExtractor,
    *,
    max_results: int,
) -> Synthesis:
    """The LLM's summary and rationales, checked against the answer set; LLMError if not."""
    shown = list(candidates[:max_results])
    listing = "\n".join(
        f"- {c.id} | {c.name} | score {c.score:.3f} | evidence: "
        + "; ".join(f"{t.head} {t.relation} {t.tail}" for e in c.evidence[:1] for t in e.triples)
        for c in shown
    )
    user = f"Question: {plan.question}\n\nAnswers (id | name | score | evidence):\n{listing}"
    result = structured_call(model, Synthesis, load_prompt("synthesis"), user)
    allowed = {c.id for c in shown}
    outside = [a.id for a in result.answers if a.id not in allowed]
    if outside:
        raise LLMError(f"the LLM named answers outside the answer set: {', '.join(outside)}")
    anchors = {a.id for a in plan.anchors}
    for mention in extractor.extract(result.summary):
        node_type = store.get_node(mention.id).type if mention.in_kg else None
        if (
            node_type == plan.answer_type
            and mention.id not in allowed
            and mention.id not in anchors
        ):
            raise LLMError(
                f"the LLM summary mentions {mention.text} ({mention.id}), "
                "which is not among the answers"
            )
    return result
