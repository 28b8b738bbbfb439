"""Grounding: check the claims of a report against the KG (issue #6, in progress).

Built so far: heuristic claim extraction with spans and biomedical entity extraction (regex
NER + dictionary matching on KG names). Path verification, labels and reports come next.
Depends on :mod:`kgrecall.kg` only.
"""

from kgrecall.grounding.claims import DEFAULT_MAX_CHARS, Claim, check_report, extract_claims
from kgrecall.grounding.entities import SPECIES, EntityExtractor, Mention

__all__ = [
    "DEFAULT_MAX_CHARS",
    "SPECIES",
    "Claim",
    "EntityExtractor",
    "Mention",
    "check_report",
    "extract_claims",
]
