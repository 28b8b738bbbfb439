"""Grounding: check the claims of a report against the KG.

Claim extraction (heuristic, or by an OpenAI-compatible LLM with fallback), biomedical entity
extraction (regex NER + dictionary matching on KG names), path verification with labels, hub
avoidance, relation and direction conflicts, negation and confidence; the
KGGroundingValidator with JSON and annotated markdown output (``kgrecall ground``); opt-in
auto-learning of analysis entities. Depends on :mod:`kgrecall.kg`, :mod:`kgrecall.llm` and
:mod:`kgrecall.prompts`.
"""

from kgrecall.grounding.autolearn import LearningReport, auto_learn
from kgrecall.grounding.claims import DEFAULT_MAX_CHARS, Claim, check_report, extract_claims
from kgrecall.grounding.entities import SPECIES, EntityExtractor, Mention
from kgrecall.grounding.llm_claims import (
    ExtractedClaim,
    ExtractedClaims,
    extract_claims_with_llm,
)
from kgrecall.grounding.reading import Assertion, read_assertions
from kgrecall.grounding.validator import (
    ICONS,
    AssertedPair,
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
    "AssertedPair",
    "Assertion",
    "Claim",
    "ClaimResult",
    "ClaimVerdict",
    "EntityExtractor",
    "EntityMention",
    "ExtractedClaim",
    "ExtractedClaims",
    "GroundingResult",
    "KGGroundingValidator",
    "Label",
    "LearningReport",
    "Mention",
    "PairVerdict",
    "PathVerifier",
    "auto_learn",
    "check_report",
    "extract_claims",
    "extract_claims_with_llm",
    "read_assertions",
]
