"""Grounding: check the claims of a report against the KG (issue #6, in progress).

Built so far: heuristic claim extraction with spans, biomedical entity extraction (regex NER +
dictionary matching on KG names) and path verification with labels, hub avoidance, relation
conflicts, negation and confidence; the KGGroundingValidator with JSON and annotated markdown
output (`kgrecall ground`), with conjunction splitting. LLM claim extraction, auto-learning
and the benchmark come next.
Depends on :mod:`kgrecall.kg` only.
"""

from kgrecall.grounding.claims import (
    DEFAULT_MAX_CHARS,
    Claim,
    check_report,
    extract_claims,
    split_conjunctions,
)
from kgrecall.grounding.entities import SPECIES, EntityExtractor, Mention
from kgrecall.grounding.validator import (
    ICONS,
    ClaimResult,
    EntityMention,
    GroundingResult,
    KGGroundingValidator,
)
from kgrecall.grounding.verify import (
    OPPOSITES,
    PREDICATES,
    ClaimVerdict,
    Label,
    PairVerdict,
    PathVerifier,
)

__all__ = [
    "DEFAULT_MAX_CHARS",
    "ICONS",
    "OPPOSITES",
    "PREDICATES",
    "SPECIES",
    "Claim",
    "ClaimResult",
    "ClaimVerdict",
    "EntityExtractor",
    "EntityMention",
    "GroundingResult",
    "KGGroundingValidator",
    "Label",
    "Mention",
    "PairVerdict",
    "PathVerifier",
    "check_report",
    "extract_claims",
    "split_conjunctions",
]
