"""CURIE normalisation with bioregistry, offline.

Rule: the prefix is resolved by bioregistry (``taxonomy`` → ``ncbitaxon``,
``UniProtKB`` → ``uniprot``) and written in the registry's preferred capitalisation where it
declares one (``NCBITaxon``, ``GO``, ``HP``, ``NCBIGene``); otherwise in the capitalisation
the source community uses (:data:`PREFIX_SPELLING`), else the registry prefix itself
(``uniprot``). Identifiers whose prefix bioregistry does not know are left unchanged.
"""

from __future__ import annotations

from functools import lru_cache

#: Prefixes without a bioregistry preferred prefix, written as their communities write them.
PREFIX_SPELLING: dict[str, str] = {"omim": "OMIM", "hgnc": "HGNC"}


@lru_cache(maxsize=4096)
def normalize_prefix(prefix: str) -> str | None:
    """The canonical spelling of a CURIE prefix, or ``None`` when bioregistry does not know it."""
    import bioregistry  # half a second to import: only when an identifier is normalised

    key = bioregistry.normalize_prefix(prefix)
    if key is None:
        return None
    preferred = bioregistry.get_preferred_prefix(key)
    return preferred or PREFIX_SPELLING.get(key, key)


def normalize_curie(identifier: str) -> str:
    """Normalise ``identifier`` if it is a CURIE with a registered prefix, else return it as is.

    >>> normalize_curie("taxonomy:9606")
    'NCBITaxon:9606'
    >>> normalize_curie("UniProtKB:P04637")
    'uniprot:P04637'
    """
    text = identifier.strip()
    prefix, sep, local = text.partition(":")
    if not sep or not prefix or not local:
        return text
    canonical = normalize_prefix(prefix)
    if canonical is None:
        return text
    return f"{canonical}:{local}"
