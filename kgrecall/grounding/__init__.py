"""Grounding: check the claims of a report against the KG.

Claim extraction (heuristic, or by an OpenAI-compatible LLM with fallback), biomedical entity
extraction (regex NER + dictionary matching on KG names), path verification with labels, hub
avoidance, relation and direction conflicts, negation and confidence; the
KGGroundingValidator with JSON and annotated markdown output (``kgrecall ground``); opt-in
auto-learning of analysis entities. Depends on :mod:`kgrecall.kg`, :mod:`kgrecall.llm` and
:mod:`kgrecall.prompts`.
"""

from typing import TYPE_CHECKING

from kgrecall._lazy import attach

if TYPE_CHECKING:
    from kgrecall.grounding.autolearn import LearningReport, auto_learn
    from kgrecall.grounding.claims import (
        DEFAULT_MAX_CHARS,
        Claim,
        ClaimPair,
        check_report,
        extract_claims,
    )
    from kgrecall.grounding.entities import SPECIES, EntityExtractor, EntityMention
    from kgrecall.grounding.llm_claims import (
        ExtractedClaim,
        ExtractedClaims,
        ExtractedPair,
        extract_claims_with_llm,
    )
    from kgrecall.grounding.reading import Assertion, read_assertions
    from kgrecall.grounding.validator import (
        ICONS,
        AssertedPair,
        ClaimResult,
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
    "ClaimPair",
    "ClaimResult",
    "ClaimVerdict",
    "EntityExtractor",
    "EntityMention",
    "ExtractedClaim",
    "ExtractedClaims",
    "ExtractedPair",
    "GroundingResult",
    "KGGroundingValidator",
    "Label",
    "LearningReport",
    "PairVerdict",
    "PathVerifier",
    "auto_learn",
    "check_report",
    "extract_claims",
    "extract_claims_with_llm",
    "read_assertions",
]

__getattr__, __dir__ = attach(
    __name__,
    globals(),
    {
        "LearningReport": "kgrecall.grounding.autolearn",
        "auto_learn": "kgrecall.grounding.autolearn",
        "DEFAULT_MAX_CHARS": "kgrecall.grounding.claims",
        "Claim": "kgrecall.grounding.claims",
        "ClaimPair": "kgrecall.grounding.claims",
        "check_report": "kgrecall.grounding.claims",
        "extract_claims": "kgrecall.grounding.claims",
        "SPECIES": "kgrecall.grounding.entities",
        "EntityExtractor": "kgrecall.grounding.entities",
        "ExtractedClaim": "kgrecall.grounding.llm_claims",
        "ExtractedClaims": "kgrecall.grounding.llm_claims",
        "ExtractedPair": "kgrecall.grounding.llm_claims",
        "extract_claims_with_llm": "kgrecall.grounding.llm_claims",
        "Assertion": "kgrecall.grounding.reading",
        "read_assertions": "kgrecall.grounding.reading",
        "ICONS": "kgrecall.grounding.validator",
        "AssertedPair": "kgrecall.grounding.validator",
        "ClaimResult": "kgrecall.grounding.validator",
        "EntityMention": "kgrecall.grounding.entities",
        "GroundingResult": "kgrecall.grounding.validator",
        "KGGroundingValidator": "kgrecall.grounding.validator",
        "OPPOSITES": "kgrecall.grounding.verify",
        "PREDICATES": "kgrecall.grounding.verify",
        "ClaimVerdict": "kgrecall.grounding.verify",
        "Label": "kgrecall.grounding.verify",
        "PairVerdict": "kgrecall.grounding.verify",
        "PathVerifier": "kgrecall.grounding.verify",
    },
)
