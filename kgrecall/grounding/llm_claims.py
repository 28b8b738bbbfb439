"""LLM claim extraction: atomic claims from an OpenAI-compatible model, tied back to the report.

The report is sent in chunks of whole paragraphs / bullets / table rows (at most
``chunk_chars`` characters each, so prompts stay bounded). The model answers an
``ExtractedClaims`` object (pydantic-validated, see :func:`kgrecall.llm.structured_call`):
each claim with the report sentence it comes from, copied verbatim. That sentence locates the
claim in the report (exactly, else with any whitespace between its words). Any failure — the
call, the schema, a source sentence not in the report, no claims from a chunk that has
sentences — is an :class:`~kgrecall.llm.LLMError`; the validator then falls back to the
heuristic extractor and says so.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from pydantic import BaseModel, Field, field_validator

from kgrecall.grounding.claims import (
    DEFAULT_MAX_CHARS,
    Claim,
    ClaimPair,
    check_report,
    extract_claims,
    report_units,
)
from kgrecall.kg.relations import RELATIONS
from kgrecall.llm import LLMError, structured_call
from kgrecall.prompts import load_prompt

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

#: The relation an LLM names for a link of no particular kind.
GENERIC_RELATION = "related_to"
#: Largest chunk of the report sent in one call (characters).
DEFAULT_CHUNK_CHARS = 12_000


class ExtractedPair(BaseModel):
    """A pair of entities the claim asserts a relation between, as the model reads it."""

    subject: str = Field(min_length=1, description="the relation's head, named as in the claim")
    object: str = Field(min_length=1, description="the relation's tail, named as in the claim")
    relation: str = Field(
        default=GENERIC_RELATION,
        description=f"a relation name of the list, or {GENERIC_RELATION!r} for any other link",
    )
    negated: bool = Field(default=False, description="whether the claim denies the relation")

    @field_validator("subject", "object")
    @classmethod
    def _named(cls, name: str) -> str:
        """A name with its whitespace collapsed; a blank one names nothing (the answer is
        refused, and the report read heuristically)."""
        collapsed = " ".join(name.split())
        if not collapsed:
            raise ValueError("a pair's entity name is blank")
        return collapsed


class ExtractedClaim(BaseModel):
    """One atomic claim as the model states it, the report sentence it comes from, and the
    pairs it asserts (none: the verifier reads them from the claim's wording)."""

    text: str = Field(min_length=1, description="the atomic claim, one relation or property")
    source: str = Field(min_length=1, description="the report sentence, copied verbatim")
    pairs: list[ExtractedPair] = Field(
        default_factory=list, description="the entity pairs the claim relates"
    )


class ExtractedClaims(BaseModel):
    """The model's answer for one chunk of the report."""

    claims: list[ExtractedClaim]


def extract_claims_with_llm(
    report: str,
    model: BaseChatModel,
    *,
    max_chars: int = DEFAULT_MAX_CHARS,
    chunk_chars: int = DEFAULT_CHUNK_CHARS,
) -> list[Claim]:
    """Atomic claims of ``report`` by ``model``, each with the span of its source sentence."""
    check_report(report, max_chars=max_chars)
    system = load_prompt("claim_extraction").replace("{relations}", _relation_list())
    claims: list[Claim] = []
    for start, end in _chunks(report, chunk_chars):
        chunk = report[start:end]
        answer = structured_call(model, ExtractedClaims, system, chunk)
        if not answer.claims and extract_claims(chunk, max_chars=max_chars + 1):
            raise LLMError(f"the LLM found no claims in characters {start:,}–{end:,}")
        for item in answer.claims:
            span = _locate(chunk, item.source)
            if span is None:
                raise LLMError(f"claim source not found in the report: {item.source[:80]!r}")
            pairs = tuple(_pair(pair) for pair in item.pairs)
            text = " ".join(item.text.split())
            claims.append(Claim(text, start + span[0], start + span[1], False, pairs))
    return claims


def _relation_list() -> str:
    """The registry's relations as the prompt lists them: name, head-first wording, meaning."""
    return "\n".join(
        f"- `{r.name}`: {r.meaning}" + (f' ("A {r.verb} B")' if r.verb else "")
        for r in RELATIONS.values()
    )


def _pair(pair: ExtractedPair) -> ClaimPair:
    """The model's pair with its relation checked against the registry: a name the registry
    lacks names no kind of link."""
    known = RELATIONS.get(pair.relation.strip())
    relation = None if known is None else known.name
    return ClaimPair(pair.subject, pair.object, relation, pair.negated)


def _chunks(report: str, chunk_chars: int) -> list[tuple[int, int]]:
    """Consecutive runs of whole units, each at most ``chunk_chars`` long (a longer unit alone)."""
    chunks: list[tuple[int, int]] = []
    for start, end in report_units(report):
        if chunks and end - chunks[-1][0] <= chunk_chars:
            chunks[-1] = (chunks[-1][0], end)
        else:
            chunks.append((start, end))
    return chunks


def _locate(chunk: str, source: str) -> tuple[int, int] | None:
    """Span of ``source`` in ``chunk``: exact, else its words with any whitespace between."""
    wanted = source.strip()
    found = chunk.find(wanted)
    if found >= 0:
        return found, found + len(wanted)
    words = wanted.split()
    if not words:
        return None
    match = re.search(r"\s+".join(re.escape(w) for w in words), chunk)
    return match.span() if match else None
