"""Biomedical entity mentions: regex NER for identifiers plus dictionary matching on KG names.

Regex NER finds CURIEs (GO, HP, MONDO, DOID, CHEBI, NCBITaxon, OMIM, ORPHA, NCBIGene, HGNC,
MESH, UBERON, CL), UniProt accessions (UniProt's official pattern), KEGG identifiers (pathways
``hsa04010`` / ``map04010``, genes ``hsa:5594``, orthologs ``K04371``; compounds and drugs only
next to the word "KEGG"), PDB ids (only next to the word "PDB") and common species names; ids
are normalised with bioregistry. Dictionary matching links the longest run of words equal to a
KG node's name or synonym. Gene and protein symbols match case-sensitively; a symbol that is
also an English word ("SET", "ATP", "CAT") counts only with a molecular-biology word in the
same text ("gene", "protein", "expression", …). Every mention keeps its character span.

Extraction is linear in the text's length (times a log): spans already taken are kept in a
sorted interval structure, so an overlap check is a binary search, not a scan of every
mention found so far; long loops check the caller's deadline (:mod:`kgrecall.kg.deadline`).
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Literal

from kgrecall.kg import GraphStore, normalize_curie
from kgrecall.kg.deadline import check_deadline

MentionKind = Literal["curie", "uniprot", "kegg", "pdb", "species", "dictionary"]

_CURIE = re.compile(
    r"\b(GO|HP|MONDO|DOID|CHEBI|NCBITaxon|OMIM|ORPHA|NCBIGene|HGNC|MESH|UBERON|CL)[:_]"
    r"([A-Z]?\d+)\b"
)
#: UniProt's accession pattern (https://www.uniprot.org/help/accession_numbers).
_UNIPROT = re.compile(
    r"\b([OPQ][0-9][A-Z0-9]{3}[0-9]|[A-NR-Z][0-9](?:[A-Z][A-Z0-9]{2}[0-9]){1,2})\b"
)
_KEGG = re.compile(r"\b((?:hsa|map|ko)\d{5}|hsa:\d+|K\d{5})\b")
_KEGG_CONTEXTUAL = re.compile(r"\b([CD]\d{5})\b")
_PDB = re.compile(r"\b([1-9][A-Za-z0-9]{3})\b")
_TOKEN = re.compile(r"[A-Za-z0-9α-ωΑ-Ω](?:[A-Za-z0-9α-ωΑ-Ω.\-_/']*[A-Za-z0-9α-ωΑ-Ω])?")
#: Species names → NCBITaxon ids (binomials and their common abbreviations).
SPECIES: dict[str, str] = {
    "Homo sapiens": "NCBITaxon:9606",
    "Mus musculus": "NCBITaxon:10090",
    "Rattus norvegicus": "NCBITaxon:10116",
    "Danio rerio": "NCBITaxon:7955",
    "Drosophila melanogaster": "NCBITaxon:7227",
    "Caenorhabditis elegans": "NCBITaxon:6239",
    "C. elegans": "NCBITaxon:6239",
    "Saccharomyces cerevisiae": "NCBITaxon:4932",
    "S. cerevisiae": "NCBITaxon:4932",
    "Escherichia coli": "NCBITaxon:562",
    "E. coli": "NCBITaxon:562",
    "Arabidopsis thaliana": "NCBITaxon:3702",
}
_SPECIES = re.compile(r"\b(" + "|".join(re.escape(name) for name in SPECIES) + r")(?![A-Za-z])")
#: Symbols that are also English words: they need a molecular-biology word nearby.
COMMON_WORDS = frozenset(
    [
        "set",
        "atp",
        "cat",
        "max",
        "ace",
        "impact",
        "not",
        "was",
        "can",
        "has",
        "men",
        "hit",
        "end",
        "far",
        "rest",
        "tip",
        "gap",
        "fat",
        "all",
        "big",
        "camp",
        "car",
        "cell",
        "copy",
        "damage",
        "early",
        "face",
        "fast",
        "fix",
        "ghost",
        "hr",
        "ii",
        "lamp",
        "large",
        "late",
        "mars",
        "may",
        "mice",
        "nice",
        "pan",
        "par",
        "pig",
        "sex",
        "son",
        "spring",
        "star",
        "tank",
        "via",
        "wasp",
        "was",
    ]
)
_BIOLOGY_CONTEXT = re.compile(
    r"\b(genes?|proteins?|express\w*|mutat\w*|variants?|kinases?|receptors?|knock\w*|"
    r"enzymes?|transcripts?|isoforms?|loci|locus|alleles?)\b",
    re.IGNORECASE,
)
#: Longest name (in words) the dictionary matcher tries.
MAX_NAME_WORDS = 8


@dataclass(frozen=True, slots=True)
class Mention:
    """An entity mentioned at ``text[start:end]``; ``entity_id`` is its normalised id, and
    ``in_kg`` says whether the KG has a node with that id."""

    text: str
    start: int
    end: int
    entity_id: str
    kind: MentionKind
    in_kg: bool


class EntityExtractor:
    """Finds mentions in text; with a KG, also by names and synonyms of its nodes."""

    def __init__(self, store: GraphStore | None = None) -> None:
        self.store = store
        self._folded: dict[str, list[str]] = defaultdict(list)  # casefolded name → ids
        self._symbols: dict[str, list[str]] = defaultdict(list)  # exact symbol → ids
        if store is not None:
            for node in store.nodes():
                for name in {node.name, *node.synonyms}:
                    if not name:
                        continue
                    key = " ".join(_words(name))
                    if node.type in ("gene", "protein") and _is_symbol(name):
                        self._symbols[key].append(node.id)
                    else:
                        self._folded[key.casefold()].append(node.id)

    def extract(self, text: str) -> list[Mention]:
        """Non-overlapping mentions, left to right; identifiers win over names."""
        taken = _Spans()
        found = self._identifiers(text, taken)
        if self.store is not None:
            found.extend(self._dictionary(text, taken))
        found.sort(key=lambda mention: mention.start)
        return found

    def _in_kg(self, entity_id: str) -> bool:
        return self.store is not None and self.store.has_node(entity_id)

    def _identifiers(self, text: str, taken: _Spans) -> list[Mention]:
        """Identifier mentions, pattern by pattern: an earlier pattern's mention wins over an
        overlapping later one. ``taken`` ends up holding their spans."""
        mentions: list[Mention] = []
        for kind, candidates in self._candidates(text):
            # One pattern's matches never overlap each other: check them against the earlier
            # patterns' spans only, then add them all at once (a linear merge).
            added = []
            for match, entity_id in candidates:
                check_deadline()
                span = match.span(0)
                if taken.overlaps(*span):
                    continue
                added.append(span)
                mentions.append(
                    Mention(match.group(0), *span, entity_id, kind, self._in_kg(entity_id))
                )
            taken.add_sorted(added)
        return mentions

    def _candidates(
        self, text: str
    ) -> Iterator[tuple[MentionKind, Iterable[tuple[re.Match[str], str]]]]:
        """Each identifier pattern's matches with their ids, in priority order."""
        yield (
            "curie",
            ((m, normalize_curie(f"{m.group(1)}:{m.group(2)}")) for m in _CURIE.finditer(text)),
        )
        yield "species", ((m, SPECIES[m.group(1)]) for m in _SPECIES.finditer(text))
        yield "kegg", ((m, f"kegg:{m.group(1)}") for m in _KEGG.finditer(text))
        yield (
            "kegg",
            (
                (m, f"kegg:{m.group(1)}")
                for m in _KEGG_CONTEXTUAL.finditer(text)
                if _near(text, m.start(), "KEGG")
            ),
        )
        yield "uniprot", ((m, f"uniprot:{m.group(1)}") for m in _UNIPROT.finditer(text))
        yield (
            "pdb",
            (
                (m, f"pdb:{m.group(1).upper()}")
                for m in _PDB.finditer(text)
                if _near(text, m.start(), "PDB") and any(c.isalpha() for c in m.group(1))
            ),
        )

    def _dictionary(self, text: str, taken: _Spans) -> list[Mention]:
        tokens = [m for m in _TOKEN.finditer(text)]
        biology = _BIOLOGY_CONTEXT.search(text) is not None
        mentions: list[Mention] = []
        index = 0
        while index < len(tokens):
            check_deadline()
            match = self._longest(text, tokens, index, taken, biology)
            if match is None:
                index += 1
                continue
            width, ids = match
            start, end = tokens[index].start(), tokens[index + width - 1].end()
            for entity_id in ids[:1]:  # ambiguous names: the first id, the others dropped
                mentions.append(Mention(text[start:end], start, end, entity_id, "dictionary", True))
            index += width
        return mentions

    def _longest(
        self,
        text: str,
        tokens: list[re.Match[str]],
        index: int,
        taken: _Spans,
        biology: bool,
    ) -> tuple[int, list[str]] | None:
        for width in range(min(MAX_NAME_WORDS, len(tokens) - index), 0, -1):
            start, end = tokens[index].start(), tokens[index + width - 1].end()
            if taken.overlaps(start, end):
                continue
            phrase = " ".join(t.group(0) for t in tokens[index : index + width])
            symbol_ids = self._symbols.get(phrase)
            if symbol_ids and (biology or phrase.casefold() not in COMMON_WORDS):
                return width, sorted(symbol_ids)
            named = self._folded.get(phrase.casefold())
            if named and (width > 1 or len(phrase) > 2):
                return width, sorted(named)
        return None


class _Spans:
    """Disjoint character spans, sorted: an overlap check is one binary search."""

    def __init__(self) -> None:
        self._starts: list[int] = []
        self._ends: list[int] = []

    def overlaps(self, start: int, end: int) -> bool:
        """Whether ``[start, end)`` overlaps a span held. Only the last span starting before
        ``end`` can: the spans are disjoint, so every earlier one also ends before it."""
        before = bisect_left(self._starts, end) - 1
        return before >= 0 and self._ends[before] > start

    def add_sorted(self, spans: list[tuple[int, int]]) -> None:
        """Add disjoint spans, sorted and disjoint from those held (a linear merge: sorting
        two sorted runs is linear)."""
        if spans:
            merged = sorted([*zip(self._starts, self._ends, strict=True), *spans])
            self._starts = [start for start, _ in merged]
            self._ends = [end for _, end in merged]


def _words(name: str) -> list[str]:
    return [m.group(0) for m in _TOKEN.finditer(name)]


def _is_symbol(name: str) -> bool:
    """Gene/protein symbol shape: one word, no spaces, mostly upper-case letters and digits."""
    return " " not in name and len(name) <= 15 and name[:1].isupper() and name != name.lower()


def _near(text: str, position: int, word: str, window: int = 40) -> bool:
    return word.casefold() in text[max(0, position - window) : position].casefold()
