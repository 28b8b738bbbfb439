"""One entity index per KG version: names as people write them → ranked entity ids.

:class:`EntityIndex` is what the planner's linker, the grounding NER and the search tools
share. A mention is looked up in tiers, the first tier with a hit wins:

1. ``id`` / ``name`` — the entity's id, name or a synonym, up to case and punctuation (1.0);
2. ``normalized`` — equal after :func:`~kgrecall.tools.names.name_keys` (possessives, Greek
   letters, dashes, plurals, British spellings, Roman numerals, comma-inverted names; 0.97),
   then ``compact`` — equal without spaces ("Choreo-athetosis"; 0.96);
3. ``word_order`` — the same words in another order, fillers dropped (0.93);
4. ``acronym`` — an upper-case mention equal to the initials of a multi-word disease,
   phenotype or GO-term name ("PD", "DLB"); several entities share most acronyms, so the
   entity with the most KG edges takes it only when it has at least
   ``ACRONYM_DOMINANCE`` × the edges of the next, otherwise all are returned, scored by their
   share of edges (an ambiguity the caller reports);
5. the same tiers for the mention without a qualifier ("TOR1A-related" → "TOR1A"; −0.03);
   then an acronym with a number ("PD7"), a gene-qualified disease ("THAP1-related
   dystonia") and an abbreviation inside a name read as its long form ("Behavioural-variant
   FTD"), each at the acronym tier's score;
6. ``fuzzy`` — BM25 and vector candidates scored by ``½ · name similarity + ½ · cosine``,
   where name similarity is the best token-set F1 between the mention and one of the
   candidate's names. Below ``min_score`` a candidate is dropped: the mention stays unlinked
   rather than linked to the nearest thing ("breast cancer" is not "Familial colorectal
   cancer type X").

Gene symbols (one word with upper-case letters) match case-sensitively unless the mention
holds a digit: "SET" is the gene, "set" the word. Proteins without names of their own are
also found by the names of the genes that encode them (an ``encodes`` edge), so
"alpha-synuclein" reaches both SNCA the gene and SNCA the protein; the caller's node types
(a relation's signature) choose between them.
"""

from __future__ import annotations

import itertools
import re
import threading
import weakref
from collections import OrderedDict, defaultdict
from collections.abc import Collection, Iterable, Iterator
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, replace
from functools import cached_property
from typing import Literal

import numpy as np

from kgrecall.kg import GraphStore, KGError, normalize_curie
from kgrecall.tools.name_tables import NameTables, is_symbol
from kgrecall.tools.names import (
    FILLERS,
    GREEK,
    abbreviates,
    acronym,
    acronym_variants,
    americanize,
    bag_of_folded,
    common_words,
    compact,
    fold,
    singular,
    strip_qualifier,
    word_key,
)
from kgrecall.tools.store_search import EntitySearch

__all__ = [
    "ACRONYM_DOMINANCE",
    "GENE_QUALIFIED",
    "LOOKUPS_REMEMBERED",
    "MIN_LINK_SCORE",
    "EntityIndex",
    "LinkedEntity",
    "MatchKind",
    "is_symbol",
]

MatchKind = Literal[
    "id", "name", "normalized", "compact", "word_order", "acronym", "gene_qualified", "fuzzy"
]
#: How many recent look-ups an index answers from memory (:meth:`EntityIndex.lookup`).
LOOKUPS_REMEMBERED = 4096
#: A look-up's arguments: mention, node types, bare eponyms.
_LookupKey = tuple[str, frozenset[str] | None, bool]
#: Fuzzy candidates scoring below this stay unlinked.
MIN_LINK_SCORE = 0.6
#: The least token F1 of :meth:`EntityIndex.closest_name` ("progressive myoclonus epilepsy
#: 10" vs "Epilepsy, progressive myoclonic, 10": 0.75).
CLOSE_NAME_F1 = 0.75
#: How many times more edges the most connected entity of an acronym needs to take it alone.
ACRONYM_DOMINANCE = 3.0
#: How many subclass_of steps up a disease an abbreviation's general sense may be ("PD":
#: Parkinson disease over its late-onset records).
GENERAL_DEPTH = 3
_TIER_SCORE: dict[MatchKind, float] = {
    "id": 1.0,
    "name": 1.0,
    "normalized": 0.97,
    "compact": 0.96,
    "word_order": 0.93,
    "acronym": 0.85,
    "gene_qualified": 0.9,
}
_QUALIFIER_PENALTY = 0.03
_SHARED: weakref.WeakKeyDictionary[GraphStore, EntityIndex] = weakref.WeakKeyDictionary()
_SHARED_LOCK = threading.Lock()
_ACRONYM_TYPES = frozenset({"disease", "phenotype", "go_term", "pathway"})
#: An abbreviation in the plural, alone or ending a name: "HSPs", "complex HSPs".
_ACRONYM_PLURAL = re.compile(r"(?P<singular>(?:.+\s)?[A-Z][A-Z0-9]{1,5})s")
#: "VLDL receptor": a symbol (two to eight letters and digits) and the word receptor.
_RECEPTOR_OF = re.compile(r"(?P<symbol>[A-Za-z][A-Za-z0-9]{1,7})[- ]receptor", re.IGNORECASE)
_SYMBOL_TYPES = frozenset({"gene", "protein"})
_FAMILY_MEMBER_ONE = re.compile(r"(?<=[a-z]) 1$")
#: "THAP1-related dystonia", "PLA2G6-associated neurodegeneration": a disease named by its gene.
#: "THAP1-related dystonia": a gene symbol qualifying a clinical name.
GENE_QUALIFIED = re.compile(
    r"^(?P<gene>[A-Za-z0-9][\w.]*?)[-\s](?:related|associated|linked|mediated)\s+(?P<rest>.+)$",
    re.IGNORECASE,
)
#: The phenotype prefixes of the Movement Disorder Society's gene-based names ("PARK-PRKN",
#: "DYT-TOR1A", "NBIA/DYT-PANK2") and the words of the diseases they name.
_MDS_PREFIXES = {
    "PARK": "parkinson", "DYT": "dystonia", "CHOR": "chorea", "MYC": "myoclonus",
    "SPG": "spastic paraplegia", "HSP": "spastic paraplegia", "SCA": "spinocerebellar ataxia",
    "ATX": "ataxia", "NBIA": "brain iron accumulation", "PXMD": "paroxysmal",
}  # fmt: skip
_GENE_NAMED = re.compile(
    rf"^(?P<prefixes>(?:{'|'.join(_MDS_PREFIXES)})(?:/(?:{'|'.join(_MDS_PREFIXES)}))*)"
    r"-(?P<gene>[A-Z][A-Za-z0-9]*\d[A-Za-z0-9]*|[A-Z]{3,})$"
)
#: "KCNQ2 encephalopathy", "PRRT2 dyskinesia": a symbol with a digit right before a clinical
#: name, the gene's disease (as "KCNQ2-related" would say).
_GENE_BEFORE_NAME = re.compile(r"^(?P<gene>[A-Z][A-Z0-9]*\d[A-Z0-9]*)\s+(?P<rest>[a-z][a-z\s-]+)$")
#: A clinical adjective, alone or with a generic noun: "dystonic features", "myokymic twitching".
_ADJECTIVAL = re.compile(
    r"(?P<adjective>[a-z]{4,}(?:ic|oid))(?:\s+(?:features?|signs?|symptoms?|movements?|"
    r"twitch(?:ing|es)?|postur(?:ing|es?)|jerks?|jerking|findings?|manifestations?|"
    r"presentations?|phenotypes?))?"
)
#: Adjective endings and the noun endings they come from, tried in order: "dystonic" →
#: "dystonia", "myoclonic" → "myoclonus", "dyskinetic" → "dyskinesia", "paretic" → "paresis",
#: "choreic" → "chorea", "athetoid" → "athetosis", "spastic" → "spasticity", "atrophic" →
#: "atrophy", "psychotic" → "psychosis", "epileptic" → "epilepsy".
_ADJECTIVE_ENDINGS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("etic", ("esia", "esis")),
    ("otic", ("osis",)),
    ("eptic", ("epsy",)),
    ("eic", ("ea",)),
    ("oid", ("osis",)),
    ("ic", ("ia", "us", "y", "icity")),
)
#: Words that join a symbol to what follows rather than naming with it.
_JOINING = frozenset({"or", "nor", "but", "without", "is", "are", "was", "were", "as"})
#: Words about a gene's sequence: "SCA2 mutations" name no disease.
_MOLECULAR_WORDS = frozenset(
    {"mutation", "mutations", "variant", "variants", "expansion", "expansions", "deletion",
     "deletions", "duplication", "duplications", "repeat", "repeats", "carrier", "carriers",
     "gene", "genes", "protein", "proteins", "allele", "alleles", "locus", "knockout"}
)  # fmt: skip
#: "FTD/ALS7", "FTD-ALS 7", "FTDALS6": two abbreviations (or one run of capitals) and a number.
_COMPOUND = re.compile(r"([A-Z]{2,10})(?:[/-]([A-Z]{2,5}))?[- ]?(\d{1,2})")
_COMPOUND_JOINERS = ("and/or", "and", "with")
#: Long forms tried per abbreviation of a compound.
_MAX_LONG_FORMS = 6
#: A lower-case qualifier's initial before an abbreviation: "fALS", "sCJD", "mEPSP"; the
#: qualifier a word of at least ``_QUALIFIER_LETTERS`` letters.
_PREFIXED = re.compile(r"([a-z])([A-Z][A-Z0-9]*[A-Z][A-Z0-9]*)")
_QUALIFIER_LETTERS = 4
_NUMBERED = re.compile(r"^(?P<letters>[A-Z]{2,6})[- ]?(?P<number>\d{1,3}[A-Z]?)$")
_EPONYM = re.compile(r"^(?P<name>(?:[\w-]+\s+){0,3}[A-Z][\w-]+)['’]s?$")
#: One word of four letters or more, with hyphenated parts ("Kufor-Rakeb", "dravet").
_BARE_EPONYM = re.compile(r"[A-Za-z][a-z]{3,}(?:-[A-Za-z][a-z]+)?")
#: Two capitalised names joined by a hyphen name a disease even alone: "Phelan-McDermid".
_DOUBLE_EPONYM = re.compile(r"[A-Z][a-z]{2,}-(?:Mc|Mac|O')?[A-Z][a-z]{2,}")
#: An eponym and its noun: "Perry disease", "Kufor-Rakeb syndrome", "Mohr-Tranebjaerg disease".
_EPONYM_NOUN = re.compile(
    r"^(?P<name>[A-Z][a-z][\w-]*(?:\s+[A-Z][a-z][\w-]*)?)\s+(?P<noun>disease|syndrome)$"
)


@dataclass(frozen=True, slots=True)
class LinkedEntity:
    """A linking candidate: the entity, its score in [0, 1], and how it matched."""

    id: str
    name: str
    type: str
    score: float
    fulltext_score: float
    vector_score: float
    #: The mention equals the entity's id, name or a synonym (up to case and punctuation).
    exact: bool = False
    match: MatchKind = "fuzzy"
    #: The entity's name or synonym the mention matched (the id for an id match).
    matched: str = ""


#: A mention opening with a lower-case article and a space: its words are no spelt symbol.
_ARTICLE_FIRST = re.compile(r"(?:a|an|the)\s")
#: Two numbers side by side in a folded mention: joining them would make another number.
_NUMBERS_APART = re.compile(r"\d\s+\d")
_ROMAN_NUMERAL = re.compile(r"X{0,3}(?:IX|IV|V?I{0,3})")
#: Node types whose abbreviations are expanded inside a longer name ("Behavioural-variant FTD").
_EXPANDABLE_TYPES = frozenset({"disease", "phenotype", "go_term"})
#: Node types named by gene symbols.
_GENE_TYPES = frozenset({"gene", "protein"})
#: Where a name is cut into words for abbreviation expansion (spaces and hyphens).
_WORD_BREAK = re.compile(r"[\s-]+")
#: A family member's number or code ending a name: "Alzheimer disease 3", "… type 2A".
_MEMBER_AT_END = re.compile(r"\s(?:type\s)?\d{1,3}[A-Za-z]?$", re.IGNORECASE)
#: Most entities an abbreviation may name to be expanded inside a name.
_MAX_MEANT = 12
#: Tiers the expanded name must match in.
_EXPANDED_TIERS = frozenset({"name", "normalized", "word_order"})
#: Tiers a numbered family member must match in ("Parkinson disease" + "7"): its name or a
#: normalised form, never the space-free or reordered ones.
_NUMBERED_TIERS = frozenset({"id", "name", "normalized"})


class EntityIndex:
    """Exact, normalised, word-order, acronym and fuzzy lookup over one KG version's names."""

    def __init__(
        self,
        store: GraphStore,
        fulltext: EntitySearch | None = None,
        vector: EntitySearch | None = None,
        *,
        min_score: float = MIN_LINK_SCORE,
        tables: NameTables | None = None,
    ) -> None:
        if not 0.0 <= min_score <= 1.0:
            raise KGError(f"min_score must be in [0, 1], got {min_score}")
        if fulltext is not None and fulltext.version != store.version:
            raise KGError("the fulltext index was built on another KG version")
        if vector is not None and vector.version != store.version:
            raise KGError("the vector index was built on another KG version")
        self.store, self.fulltext, self.vector, self.min_score = store, fulltext, vector, min_score
        self.version = store.version
        if tables is None or tables.version != store.version:
            tables = NameTables.build(store)
        self.tables = tables
        self._ids = tables.ids
        self._position = {node_id: p for p, node_id in enumerate(self._ids)}
        self._display = tables.display
        self._types = np.array(tables.types)
        self._degree = np.array(tables.degree, dtype=np.int64)
        self._names = tables.names
        self._symbols = tables.tiers["symbol"]
        self._tiers = tables.tiers
        self._word_known: dict[str, bool] = {}  # word → some name holds it
        self._ancestor_cache: dict[str, frozenset[str]] = {}
        # mention look-ups remembered: a report names the same entities again and again, and
        # the NER looks up every window of words (a list of symbols: each window many times)
        self._looked_up: OrderedDict[_LookupKey, tuple[LinkedEntity, ...]] = OrderedDict()
        self._looked_up_lock = threading.Lock()  # a server's requests share the index

    @classmethod
    def shared(cls, store: GraphStore) -> EntityIndex:
        """The name-only index (no fuzzy engines) of ``store``'s current version, built once
        per store object and version: validators and extractors made for one KG share it."""
        with _SHARED_LOCK:
            cached = _SHARED.get(store)
            if cached is None or cached.version != store.version:
                cached = cls(store)
                _SHARED[store] = cached
            return cached

    # -- lookup --------------------------------------------------------------------------------

    def names(self, entity_id: str) -> tuple[str, ...]:
        """The names the index knows an entity by (its own, then its gene's for a protein)."""
        position = self._position.get(entity_id)
        if position is None:
            raise KGError(f"no entity {entity_id!r} in the index")
        return tuple(self._names[position])

    @cached_property
    def one_word_names(self) -> list[str]:
        """Every name of one lower-case word that some entity goes by ("tremor", "dystonia"),
        sorted: what a misspelt word is compared with."""
        return sorted(k for k in self._tiers["name"] if k.isalpha() and k.islower())

    @cached_property
    def name_words(self) -> frozenset[str]:
        """Every word of every name (folded): "spastic" is one, though no entity is named
        by it alone."""
        return frozenset(word for key in self._tiers["name"] for word in key.split())

    @cached_property
    def _keys_by_word(self) -> dict[str, list[str]]:
        """Each content word (:func:`_content_words`) → the normalized name keys (folded,
        singular) holding it, in the tier's order: where :meth:`closest_name` and
        :meth:`in_some_name` look. Keys only: the names behind them are read for the words a
        phrase asks about, not for every word at once."""
        keys_by_word: dict[str, list[str]] = {}
        for key in self._tiers["normalized"]:
            for word in set(key.split()) - _NOT_CONTENT:
                keys_by_word.setdefault(word, []).append(key)
        return keys_by_word

    @cached_property
    def _gene_like(self) -> np.ndarray:
        """Per position, whether the entity is a gene or a protein (their names are symbols
        and long names, not phrases in prose: no close name is one of theirs)."""
        return np.isin(self._types, list(_GENE_TYPES))

    def _names_with(self, word: str) -> Iterator[tuple[int, frozenset[str], str]]:
        """(position, content words, name) of each name holding ``word`` of an entity that is
        no gene or protein, key by key in the tier's order."""
        normalized = self._tiers["normalized"]
        for key in self._keys_by_word.get(word, ()):
            words = frozenset(key.split()) - _NOT_CONTENT
            for position, name in normalized.get(key):
                if not self._gene_like[position]:
                    yield position, words, name

    def in_some_name(self, word: str) -> bool:
        """Whether some entity's name holds ``word`` (or it is a filler such as "of")."""
        return all(self._in_a_name(w) for w in _content_words(word))

    def _in_a_name(self, word: str) -> bool:
        known = self._word_known.get(word)
        if known is None:
            known = self._word_known[word] = next(self._names_with(word), None) is not None
        return known

    def closest_name(
        self, phrase: str, node_type: str, *, required: Collection[str], anchor: str = ""
    ) -> LinkedEntity | None:
        """The entity of ``node_type`` with a name close to ``phrase`` word for word (token F1
        over content words ≥ ``CLOSE_NAME_F1``) that holds every content word of ``required``,
        every member number of ``phrase`` and, when ``anchor`` (the name the phrase widens)
        has words other than a class word, one of them — how the grounding NER tells
        "Charcot-Marie-Tooth disease type 2EE" from "Charcot-Marie-Tooth disease" without a
        fuzzy engine, and why "late-onset Pompe disease" is not "late-onset Parkinson
        disease". The best F1 wins, then the better connected entity; None when none is
        close (always for genes and proteins)."""
        words = _content_words(phrase)
        anchored = _content_words(anchor) - _CLASS_WORDS
        wanted = {w for word in required for w in _content_words(word)}
        if not wanted or not words or not all(self._in_a_name(word) for word in wanted):
            return None
        numbers = {w for w in words if _MEMBER_NUMBER.fullmatch(w)}
        # a name holding every wanted word holds the one in fewest keys: only its names are read
        rarest = min(sorted(wanted), key=lambda word: len(self._keys_by_word[word]))
        close = [
            (similarity, position, name)
            for position, name_words, name in self._names_with(rarest)
            if self._types[position] == node_type
            and wanted <= name_words
            and (not anchored or not anchored.isdisjoint(name_words))
            and not _leaves_out_a_part(name, words)
            and _holds_numbers(name_words, numbers)
            and (similarity := _token_f1(words, name_words)) >= CLOSE_NAME_F1
        ]
        if not close:
            return None
        similarity, position, name = max(close, key=lambda c: (c[0], self._degree[c[1]], -c[1]))
        return LinkedEntity(
            self._ids[position],
            self._display[position],
            node_type,
            round(similarity, 4),
            0.0,
            0.0,
            False,
            "fuzzy",
            name,
        )

    def __contains__(self, entity_id: object) -> bool:
        """Whether ``entity_id`` is an entity of the index's KG version."""
        return entity_id in self._position

    def type_of(self, entity_id: str) -> str:
        """The entity's node type."""
        return str(self._types[self._position[entity_id]])

    def degree(self, entity_id: str) -> int:
        """The entity's number of KG edges (the prior acronyms and ties are resolved by)."""
        return int(self._degree[self._position[entity_id]])

    def lookup(
        self,
        mention: str,
        *,
        node_types: Collection[str] | None = None,
        bare_eponyms: bool = False,
    ) -> list[LinkedEntity]:
        """Entities the mention names by tiers 1–5 (no fuzzy search), best first.

        ``bare_eponyms``: one word that is no everyday English word names the disease
        "<word> disease/syndrome" ("Dravet", "huntington") — how questions name diseases,
        while in prose a bare eponym is as often a cell, sign or author ("Alzheimer type II
        astrocytes").

        Of equally good records, one whose own name the mention is, abbreviates or holds comes
        first ("PKAN": the Orphanet record named "Pantothenate kinase-associated
        neurodegeneration" before the OMIM record that has PKAN as a synonym), and of
        diseases an abbreviation names, the one the others descend from
        (:meth:`_general_first`)."""
        key = (mention, None if node_types is None else frozenset(node_types), bare_eponyms)
        with self._looked_up_lock:
            remembered = self._looked_up.get(key)
            if remembered is not None:
                self._looked_up.move_to_end(key)
                return list(remembered)
        found = _own_name_first(mention, self._lookup(mention, node_types, bare_eponyms))
        found = self._general_first(mention, found, node_types)
        with self._looked_up_lock:
            self._looked_up[key] = tuple(found)
            if len(self._looked_up) > LOOKUPS_REMEMBERED:
                self._looked_up.popitem(last=False)
        return found

    def _general_first(
        self, mention: str, found: list[LinkedEntity], node_types: Collection[str] | None
    ) -> list[LinkedEntity]:
        """ "PD": an abbreviation that disease records carry as a synonym (OMIM's "Parkinson
        disease, late-onset") and that spells the own name of a disease they all descend from
        (subclass_of, up to :data:`GENERAL_DEPTH` steps) means that disease, the nearest such
        one; it comes first, at the first candidate's score. Records that share the letters
        with a disease of their own name ("AD": "Alzheimer disease" and "Alzheimer disease 3")
        stay as they are ranked."""
        text = mention.strip()
        if not found or found[0].type != "disease" or not _looks_like_acronym(text):
            return found
        tied = [e for e in found if e.score == found[0].score and e.type == "disease"]
        known = {e.id for e in tied}
        spelt = [
            e
            for e in self._entities(
                self._tiers["acronym"].get(text.upper(), []), "acronym", self._allowed(node_types)
            )
            if e.type == "disease" and e.id not in known and _spells_name(text.upper(), e.name)
        ]
        general = [c for c in spelt if all(c.id in self._ancestors(e.id) for e in tied)]
        # the nearest of them: "parkinsonian disorder" spells PD too, above Parkinson disease
        nearest = [c for c in general if not any(c.id in self._ancestors(o.id) for o in general)]
        if len(nearest) != 1:
            return found
        rest = [e for e in found if e.id != nearest[0].id]
        return [replace(nearest[0], score=found[0].score), *rest]

    def _ancestors(self, entity_id: str) -> frozenset[str]:
        """The entities ``entity_id`` is a subclass of, up to :data:`GENERAL_DEPTH` steps."""
        cached = self._ancestor_cache.get(entity_id)
        if cached is None:
            seen: set[str] = set()
            frontier = {entity_id}
            for _ in range(GENERAL_DEPTH):
                frontier = {
                    edge.tail
                    for node in frontier
                    for edge in self.store.neighbors(node, "subclass_of", "out")
                } - seen
                seen |= frontier
            cached = self._ancestor_cache[entity_id] = frozenset(seen)
        return cached

    def _lookup(
        self, mention: str, node_types: Collection[str] | None, bare_eponyms: bool
    ) -> list[LinkedEntity]:
        found = self._tiered(mention, node_types)
        if found:
            return self._spelt_first(mention, found, node_types)
        for bare, eponym in _bare_forms(mention, bare_eponyms=bare_eponyms):
            found = self._tiered(bare, node_types)
            if eponym is not None:
                # a noun after a proper name only: "Seizure's" is no "seizure disorder"
                found = [e for e in found if _holds_eponym(e.matched, eponym)]
            if found:
                return [
                    replace(e, score=round(e.score - _QUALIFIER_PENALTY, 4), exact=False)
                    for e in found
                ]
        return (
            self._plural_acronym(mention, node_types)
            or self._gene_named(mention, node_types)
            or self._numbered(mention, node_types)
            or self._gene_qualified(mention, node_types)
            or self._expanded(mention, node_types)
            or self._prefixed(mention, node_types)
            or self._slashed(mention, node_types)
            or self._compound(mention, node_types)
            or self._adjectival(mention, node_types)
            or self._receptor(mention, node_types)
        )

    def _spelt_first(
        self, mention: str, found: list[LinkedEntity], node_types: Collection[str] | None
    ) -> list[LinkedEntity]:
        """ "PSP": an abbreviation that clinical records carry as a synonym (the "Classic
        progressive supranuclear palsy syndrome" record) but that spells another clinical
        entity's own name ("Progressive supranuclear palsy") names that entity first,
        at the same score — when one entity is so spelt, or one far better connected than the
        others (:data:`ACRONYM_DOMINANCE`); unchanged when a record found is itself so named."""
        text = mention.strip()
        if not (text.isalpha() and text.isupper() and 2 <= len(text) <= 6):
            return found
        if not any(e.type in _ACRONYM_TYPES for e in found) or any(
            fold(e.name) == fold(text) or (e.type in _ACRONYM_TYPES and abbreviates(text, e.name))
            for e in found
        ):
            # only a gene's alias ("PCA" of FLVCR1): no clinical name meant; "CMT": the
            # Charcot-Marie-Tooth disease record is itself so named
            return found
        allowed = self._allowed(node_types)
        known = {e.id for e in found}
        spelt = [
            e
            for e in self._entities(self._tiers["acronym"].get(text, []), "acronym", allowed)
            if e.id not in known and acronym(e.name) == text and not any(map(str.isdigit, e.name))
        ]  # a numbered member ("Cataract 11, multiple types") is not what letters alone name
        if not spelt:
            return found
        spelt.sort(key=lambda e: -self.degree(e.id))
        if len(spelt) > 1 and self.degree(spelt[0].id) < ACRONYM_DOMINANCE * max(
            self.degree(spelt[1].id), 1
        ):
            return found  # "DRD" spells "DNA repair disease" as well: no one entity
        if self._general_elsewhere(text, found, spelt[0], allowed):
            # "DCM": familial dilated cardiomyopathy, which carries it, descends from dilated
            # cardiomyopathy, which spells it too — not from "disorder of copper metabolism"
            # (:meth:`_general_first` takes the general disease)
            return found
        return [replace(spelt[0], score=found[0].score), *found]

    def _general_elsewhere(
        self,
        text: str,
        found: list[LinkedEntity],
        chosen: LinkedEntity,
        allowed: np.ndarray | None,
    ) -> bool:
        """Whether a disease record found by the letters descends from another disease whose
        name they spell, not from ``chosen``."""
        records = [e for e in found if e.type == "disease"]
        if not records or any(chosen.id in self._ancestors(e.id) for e in records):
            return False
        spelling = {
            e.id
            for e in self._entities(self._tiers["acronym"].get(text, []), "acronym", allowed)
            if e.type == "disease" and _spells_name(text, e.name)
        }
        return any(spelling & self._ancestors(e.id) for e in records)

    def _plural_acronym(
        self, mention: str, node_types: Collection[str] | None
    ) -> list[LinkedEntity]:
        """ "HSPs", "complex HSPs": a clinical abbreviation in the plural → the disease,
        phenotype or GO term its singular names, as a normalised match."""
        match = _ACRONYM_PLURAL.fullmatch(mention.strip())
        if match is None:
            return []
        singular = match.group("singular")
        found = self._tiered(singular, node_types)
        # letters that spell several names ("CAs") stay unread; three or more that spell one
        # name alone are its plural ("EPSPs")
        spelt_alone = (
            len(found) == 1 and found[0].score == _TIER_SCORE["acronym"] and len(singular) >= 3
        )
        return [
            replace(e, score=min(e.score, _TIER_SCORE["normalized"]), exact=False,
                    match="normalized" if e.match in ("id", "name") else e.match)
            for e in found
            # a gene's symbol has no plural ("OGCs" are crises, not SLC25A11's alias OGC)
            if (e.match != "acronym" or spelt_alone) and e.type in _ACRONYM_TYPES
        ]  # fmt: skip

    def _receptor(self, mention: str, node_types: Collection[str] | None) -> list[LinkedEntity]:
        """ "VLDL receptor", "EGF receptor": a ligand's symbol and "receptor" → the gene or
        protein whose symbol is that symbol with an R and whose name says it is a receptor
        (VLDLR, "very low density lipoprotein receptor"), at the acronym tier's score."""
        match = _RECEPTOR_OF.fullmatch(mention.strip())
        if match is None:
            return []
        symbol = match.group("symbol") + "R"
        return [
            replace(e, score=_TIER_SCORE["acronym"], exact=False, match="acronym")
            for e in self._tiered(symbol, node_types)
            if e.match == "name"
            and e.type in _SYMBOL_TYPES
            and e.name.casefold() == symbol.casefold()
            and any("receptor" in fold(name) for name in self._names[self._position[e.id]])
        ]

    def _adjectival(self, mention: str, node_types: Collection[str] | None) -> list[LinkedEntity]:
        """ "dystonic features", "myokymic twitching", "choreic": a clinical adjective (with a
        generic noun) → the phenotype it is the adjective of ("Dystonia", "Myokymia")."""
        match = _ADJECTIVAL.fullmatch(fold(mention))
        if match is None or (node_types is not None and "phenotype" not in node_types):
            return []
        stem = match.group("adjective")
        for ending, nouns in _ADJECTIVE_ENDINGS:
            if stem.endswith(ending):
                for noun in nouns:
                    found = self._tiered(stem[: -len(ending)] + noun, {"phenotype"})
                    if found:
                        return [
                            replace(e, score=round(e.score - _QUALIFIER_PENALTY, 4), exact=False)
                            for e in found
                        ]
        return []

    def _compound(self, mention: str, node_types: Collection[str] | None) -> list[LinkedEntity]:
        """ "FTD/ALS7", "FTDALS6": two abbreviations and a number → the numbered member named
        by their long forms joined ("Frontotemporal dementia and/or amyotrophic lateral
        sclerosis 7"), at the acronym tier's score."""
        match = _COMPOUND.fullmatch(mention.strip())
        if match is None:
            return []
        first, second, number = match.groups()
        cuts = (
            [(first, second)]
            if second
            else [(first[:i], first[i:]) for i in range(2, len(first) - 1)]
        )
        for left, right in cuts:
            lefts = self._long_forms(left)[:_MAX_LONG_FORMS]
            rights = self._long_forms(right)[:_MAX_LONG_FORMS]
            for long_left, long_right in itertools.product(lefts, rights):
                for joiner in _COMPOUND_JOINERS:
                    form = f"{long_left} {joiner} {long_right} {number}"
                    found = self._as_acronym(form, node_types, _NUMBERED_TIERS)
                    if found:
                        return found
        return []

    def _long_forms(self, short: str) -> list[str]:
        """The long forms an abbreviation of a clinical entity or GO term spells, by name
        ("FTD" → "frontotemporal dementia"; a name and its head before a comma, "Parkinson
        disease, late-onset" also giving "Parkinson disease"): the entities' own names (first of
        their names) first, then their synonyms, each sorted ("CDG": "congenital disorder of
        glycosylation" before the synonym "carbohydrate-deficient glycoprotein syndrome");
        none when it names more than ``_MAX_MEANT`` entities (an abbreviation of many things
        says nothing)."""
        meant = [e for e in self._tiered(short, _EXPANDABLE_TYPES) if e.match != "id"]
        if len(meant) > _MAX_MEANT:
            return []
        forms = {
            (number > 0, form)
            for entity in meant
            for number, name in enumerate(self._names[self._position[entity.id]])
            for form in dict.fromkeys((name, name.split(",")[0].strip()))
            if len(form.split()) > 1 and abbreviates(short, form)
        }
        return list(dict.fromkeys(form for _, form in sorted(forms)))

    def _as_acronym(
        self, form: str, node_types: Collection[str] | None, tiers: AbstractSet[str]
    ) -> list[LinkedEntity]:
        """Entities a long form written out names in one of ``tiers``, at the acronym tier's
        score (the mention only abbreviated it)."""
        return [
            replace(e, score=_TIER_SCORE["acronym"], exact=False, match="acronym")
            for e in self._tiered(form, node_types)
            if e.match in tiers
        ]

    def _slashed(self, mention: str, node_types: Collection[str] | None) -> list[LinkedEntity]:
        """ "TLS/FUS": two names of one entity joined by a slash → that entity (each part
        looked up by name; nothing when the parts name different entities, "Frizzled/LRP");
        when a part names nothing, the whole without spaces and slashes as one name."""
        parts = [part.strip() for part in mention.split("/")]
        if len(parts) < 2 or not all(parts):
            return []
        found = [self._tiered(part, node_types) for part in parts]
        if not all(found):
            # "hnRNP A2/B1": one symbol written with a space and a slash (HNRNPA2B1)
            joined = "".join(mention.split()).replace("/", "")
            return [e for e in self._tiered(joined, node_types) if e.match == "name"]
        shared = set.intersection(*({e.id for e in part} for part in found))
        return [e for e in found[0] if e.id in shared]

    def _expanded(self, mention: str, node_types: Collection[str] | None) -> list[LinkedEntity]:
        """ "Behavioural-variant FTD": a name written with an abbreviation in it → the entity
        named when the abbreviation's long form stands in its place ("Behavioral variant of
        frontotemporal dementia"), at the acronym tier's score. Only a name or synonym of a
        clinical entity or GO term is expanded (never a gene symbol), into its long forms whose
        letters it spells — none when the abbreviation names more than ``_MAX_MEANT`` entities —
        and the result must match by name, normalised form or word order."""
        words = _WORD_BREAK.split(mention.strip())
        if len(words) < 2:
            return []
        for index, word in enumerate(words):
            short = word.rstrip(",")  # "EDS, kyphoscoliotic type 2": the comma stays
            if not (short.isalpha() and short.isupper() and 2 <= len(short) <= 6):
                continue
            for name in self._long_forms(short):
                form = " ".join([*words[:index], name + word[len(short) :], *words[index + 1 :]])
                found = self._as_acronym(form, node_types, _EXPANDED_TIERS)
                if found:
                    return found
        return []

    def _prefixed(self, mention: str, node_types: Collection[str] | None) -> list[LinkedEntity]:
        """ "fALS", "sCJD", "kEDS", "mEPSP": a lower-case letter before an abbreviation is the
        initial of a qualifier → the entity named by a word with that initial and the
        abbreviation or one of its long forms ("familial amyotrophic lateral sclerosis",
        "sporadic CJD", "Kyphoscoliotic Ehlers-Danlos syndrome", "mini excitatory postsynaptic
        potential"; also comma-inverted, "…, hereditary"), at the acronym tier's score."""
        match = _PREFIXED.fullmatch(mention.strip())
        if match is None:
            return []
        initial, short = match.groups()
        for rest in dict.fromkeys((short, *self._long_forms(short))):
            keys = [
                key
                for word, key in self._qualified_names.get(fold(rest), ())
                if word.startswith(initial)
                and word.isalpha()
                and len(word) >= _QUALIFIER_LETTERS
                and not self._symbols.get(word)  # "SETX amyotrophic lateral sclerosis": a gene
            ]
            found = self._entities(
                (entry for key in keys for entry in self._tiers["name"].get(key, [])),
                "acronym",
                self._allowed(node_types),
            )
            if found:
                return found
        return []

    @cached_property
    def _qualified_names(self) -> dict[str, list[tuple[str, str]]]:
        """Each folded name of two or more words under the name without its first word (and
        without its last, for comma-inverted names): (the word left out, the name)."""
        found: dict[str, list[tuple[str, str]]] = defaultdict(list)
        for key in self._tiers["name"]:
            words = key.split()
            if len(words) >= 2:
                found[" ".join(words[1:])].append((words[0], key))
                found[" ".join(words[:-1])].append((words[-1], key))
        return dict(found)

    def _numbered(self, mention: str, node_types: Collection[str] | None) -> list[LinkedEntity]:
        """ "PD7", "EA-2": an acronym with a number → the numbered member of the family the
        acronym names ("Parkinson disease 7", "Episodic ataxia type 2"), at the acronym
        tier's score."""
        match = _NUMBERED.match(mention.strip())
        if match is None:
            return []
        number = match.group("number")
        found: dict[str, LinkedEntity] = {}
        # every family the letters abbreviate, not only the best connected one: the number
        # picks the family ("PD" alone is parkinsonism; "PD7" is Parkinson disease 7)
        letters = match.group("letters")
        for family in self._entities(self._tiers["acronym"].get(letters, []), "acronym", None):
            for name in self._names[self._position[family.id]]:
                if acronym(name) != letters:
                    continue  # another name of the family: "Adie pupil" is no "AP" + "4" form
                for form in (f"{name} {number}", f"{name} type {number}"):
                    for entity in self._tiered(form, node_types):
                        if entity.match not in _NUMBERED_TIERS:
                            continue  # "dystonia 2" + "7" without spaces is "dystonia 27"
                        found.setdefault(
                            entity.id,
                            replace(entity, score=_TIER_SCORE["acronym"], exact=False,
                                    match="acronym"),
                        )  # fmt: skip
        return list(found.values())

    def _gene_named(self, mention: str, node_types: Collection[str] | None) -> list[LinkedEntity]:
        """ "PARK-PRKN", "DYT-TOR1A", "NBIA/DYT-PANK2": the Movement Disorder Society's names
        of a genetic movement disorder, a phenotype prefix and the gene → the disease linked
        to the gene whose name holds the prefix's words (as "PRKN-related Parkinson" would)."""
        match = _GENE_NAMED.match(mention.strip())
        if match is None:
            return []
        for prefix in match.group("prefixes").split("/"):
            found = self._gene_qualified(
                f"{match.group('gene')}-related {_MDS_PREFIXES[prefix]}", node_types
            )
            if found:
                return found
        return []

    def _gene_qualified(
        self, mention: str, node_types: Collection[str] | None
    ) -> list[LinkedEntity]:
        """ "THAP1-related dystonia" (or "KCNQ2 encephalopathy") → the disease linked to THAP1
        in the KG whose name holds every word of "dystonia" (one holding the symbol first,
        then the fewest other words); several equally good → all, for the caller to report as
        ambiguous."""
        match = GENE_QUALIFIED.match(mention.strip())
        if match is None:
            match = _GENE_BEFORE_NAME.match(mention.strip())
            # "KCNQ2 encephalopathy" is a disease; "SCA2 mutations" are not
            rest_words = set(fold(match.group("rest")).split()) if match else set()
            if match is None or rest_words & (_MOLECULAR_WORDS | _NOT_CONTENT | _JOINING):
                return []  # "SCA2 mutations", "CHCHD10 with FTD", "TBK1 and …"
        rest = fold(match.group("rest")).split()
        if not rest or rest[-1] in FILLERS:  # "… neurodegeneration with": no name ends so
            return []
        genes = self._tiered(match.group("gene"), {"gene"})
        wanted = {w for w in _word_set(match.group("rest")) if w not in FILLERS}
        allowed = self._allowed(node_types)
        if not genes or not wanted:
            return []
        # a name that holds the symbol ("KCNQ2-related … encephalopathy") first, then the
        # fewest other words
        symbol = _word_set(match.group("gene"))
        ranked: dict[int, tuple[tuple[bool, int], str]] = {}
        for edge in self.store.neighbors(genes[0].id, None, "both"):
            other = edge.tail if edge.head == genes[0].id else edge.head
            position = self._position.get(other)
            if position is None or self._types[position] != "disease":
                continue
            if allowed is not None and not allowed[position]:
                continue
            for name in self._names[position]:
                words = _word_set(name)
                if wanted <= words:
                    rank = (not symbol <= words, len(words - wanted - symbol))
                    if position not in ranked or rank < ranked[position][0]:
                        ranked[position] = (rank, name)
        if not ranked:
            return []
        fewest = min(extra for extra, _ in ranked.values())
        best = [(p, name) for p, (extra, name) in ranked.items() if extra == fewest]
        return self._entities(best, "gene_qualified", None)

    def _tiered(self, mention: str, node_types: Collection[str] | None) -> list[LinkedEntity]:
        text = mention.strip()
        if not text:
            return []
        allowed = self._allowed(node_types)
        by_id = [
            (self._position[c], c)
            for c in dict.fromkeys((text, normalize_curie(text)))
            if c in self._position
        ]
        if by_id:
            return self._entities(by_id, "id", allowed)
        folded = fold(text)
        hits = list(self._tiers["name"].get(folded, []))
        symbols = [
            entry
            for entry in self._symbols.get(folded.replace(" ", ""), [])
            if (any(c.isdigit() for c in text) and not any(c.isspace() for c in text))
            or _same_symbol(entry[1], text)
        ]
        # "NT-3" is neurotrophin 3's symbol as written, "NT3" SORT1's: a symbol written as
        # the mention is keeps out those equal only up to dashes and dots
        written = [entry for entry in symbols if entry[1].casefold() == text.casefold()]
        if written or any(name.casefold() == text.casefold() for _, name in hits):
            symbols = written
        hits += symbols
        if hits:
            found = self._entities(hits, "name", allowed)
            if found:
                # "generalised dystonia": HPO's British synonym by name; MONDO's disease by its
                # American name after it, as a normalised match
                american = " ".join(map(americanize, folded.split()))
                if american == folded:
                    return found
                spelt = self._tiers["name"].get(american, [])
                kinds = {e.type for e in found}
                other = [
                    e for e in self._entities(spelt, "normalized", allowed) if e.type not in kinds
                ]
                return found + other
        words = folded.split()
        key = " ".join(map(word_key, words))
        tiers: list[tuple[MatchKind, str]] = [("normalized", key)]
        # "ataxia 1, 2" is two members, not "ataxia 12"; "a de novo" does not spell "ADE"
        if not _NUMBERS_APART.search(key) and not _ARTICLE_FIRST.match(text):
            tiers.append(("compact", compact(key)))
        if words and words[0] not in FILLERS and words[-1] not in FILLERS:
            # "with X and with" is not a name whose word order differs
            tiers.append(("word_order", bag_of_folded(words)))
        for tier, key in tiers:
            found = self._entities(self._tiers[tier].get(key, []), tier, allowed)
            if found:
                return found
        if _looks_like_acronym(text):
            return self._acronym(text.upper(), allowed)
        return []

    def _acronym(self, text: str, allowed: np.ndarray | None) -> list[LinkedEntity]:
        found = self._entities(self._tiers["acronym"].get(text, []), "acronym", allowed)
        if len(found) < 2:
            return found
        degrees = np.array([self.degree(e.id) for e in found], dtype=float)
        order = np.argsort(-degrees, kind="stable")
        ranked = [found[i] for i in order]
        top, runner_up = degrees[order[0]], degrees[order[1]]
        if top >= ACRONYM_DOMINANCE * max(runner_up, 1.0):
            return ranked[:1]
        share = degrees[order] / max(degrees.sum(), 1.0)
        return [
            replace(e, score=round(_TIER_SCORE["acronym"] * float(s), 4))
            for e, s in zip(ranked, share, strict=True)
        ]

    def _allowed(self, node_types: Collection[str] | None) -> np.ndarray | None:
        return None if node_types is None else np.isin(self._types, list(node_types))

    def _entities(
        self,
        entries: Iterable[tuple[int, str]],
        tier: MatchKind,
        allowed: np.ndarray | None,
    ) -> list[LinkedEntity]:
        best: dict[int, str] = {}
        for position, matched in entries:
            if (allowed is None or allowed[position]) and position not in best:
                best[position] = matched
        score = _TIER_SCORE[tier]
        found = [
            LinkedEntity(
                self._ids[p],
                self._display[p],
                str(self._types[p]),
                score,
                1.0 if tier in ("id", "name") else 0.0,
                score,
                tier in ("id", "name"),
                tier,
                matched,
            )
            for p, matched in best.items()
        ]
        # Equal tiers: genes after diseases when the mention is a locus name (see
        # _locus_name), an entity matched by its own name before one matched by a synonym
        # ("Hereditary late-onset Parkinson disease" is an Orphanet record's name and a
        # synonym of an OMIM record), then the better connected entity (then the id, for a
        # stable order)
        locus = self._locus_name(found)
        found.sort(
            key=lambda e: (
                locus and e.type in _GENE_TYPES,
                fold(e.matched) != fold(e.name),
                -self._degree[self._position[e.id]],
                e.id,
            )
        )
        return found

    def _locus_name(self, found: list[LinkedEntity]) -> bool:
        """Whether the candidates' shared name is a locus name: a former symbol of a gene
        (not its own, with a digit) that a disease the gene is linked to goes by ("ALS19":
        ERBB4's previous symbol and amyotrophic lateral sclerosis 19, linked to ERBB4); "PS1"
        (PSEN1's alias, and an unrelated disease's) is not one."""
        diseases = {e.id for e in found if e.type == "disease"}
        genes = [
            e.id
            for e in found
            if e.type == "gene"
            and e.match == "name"
            and any(c.isdigit() for c in e.matched)
            and " " not in e.matched
            and fold(e.matched) != fold(e.name)
        ]
        return bool(diseases) and any(
            (edge.tail if edge.head == gene else edge.head) in diseases
            for gene in genes
            for edge in self.store.neighbors(gene, None, "both")
        )

    # -- linking -------------------------------------------------------------------------------

    def link(
        self,
        mention: str,
        *,
        k: int = 5,
        node_types: Collection[str] | None = None,
        fuzzy: Literal["fill", "fallback", "never"] = "fill",
    ) -> list[LinkedEntity]:
        """The ``k`` best entities for ``mention`` scoring at least ``min_score``, best first:
        tiered matches, then fuzzy candidates (an empty list means "not linked").

        ``fuzzy="fill"`` tops up fewer than ``k`` tiered matches with fuzzy ones;
        ``"fallback"`` asks for fuzzy candidates only when nothing matched by name — a fuzzy
        hit never outranks a tiered one, and the vector model then need not be loaded;
        ``"never"`` takes the tiered matches only."""
        if k < 1:
            raise KGError(f"k must be at least 1, got {k}")
        found = self.lookup(mention, node_types=node_types)
        seen = {e.id for e in found}
        wanted = fuzzy == "fill" or (fuzzy == "fallback" and not found)
        if len(found) < k and wanted:
            similar = [
                e for e in self.fuzzy(mention, k=k, node_types=node_types) if e.id not in seen
            ]
            # A fuzzy hit never outranks a tiered one.
            ceiling = min((e.score for e in found), default=1.0)
            found += [replace(e, score=min(e.score, ceiling)) for e in similar]
        found = [e for e in found if e.score >= self.min_score or e.match == "acronym"]
        return found[:k]

    def fuzzy(
        self, mention: str, *, k: int = 5, node_types: Collection[str] | None = None
    ) -> list[LinkedEntity]:
        """BM25 and vector candidates scored by name similarity and cosine (all scores, no
        minimum), best first."""
        pool = max(20, 4 * k)
        text_hits = {}
        if self.fulltext is not None:
            text_hits = {
                c.id: c.score for c in self.fulltext.search(mention, k=pool, node_types=node_types)
            }
        vector_hits = {}
        if self.vector is not None:
            vector_hits = {
                c.id: c.score for c in self.vector.search(mention, k=pool, node_types=node_types)
            }
        words = _word_set(mention)
        numbers = {w for w in words if _MEMBER_NUMBER.fullmatch(w)}
        scored = []
        for entity_id in text_hits.keys() | vector_hits.keys():
            position = self._position[entity_id]
            comparable = [
                name
                for name in self._names[position]
                if not (self._types[position] in _SYMBOL_TYPES and is_symbol(name))
                or any(c.isdigit() for c in mention)
                or _same_symbol(name, mention)
            ]
            # "progressive myoclonus epilepsy 10" is a numbered member, not the family
            if not any(_holds_numbers(_word_set(name), numbers) for name in comparable):
                continue
            similarity, matched = max(
                ((_token_f1(words, _word_set(name)), name) for name in comparable),
                default=(0.0, ""),
            )
            cosine = vector_hits.get(entity_id, 0.0)
            scored.append(
                LinkedEntity(
                    entity_id,
                    self._display[position],
                    str(self._types[position]),
                    round(0.5 * similarity + 0.5 * cosine, 4),
                    text_hits.get(entity_id, 0.0),
                    cosine,
                    False,
                    "fuzzy",
                    matched,
                )
            )
        scored.sort(key=lambda e: (-e.score, e.id))
        return scored[:k]


def _same_symbol(symbol: str, mention: str) -> bool:
    """Case-sensitive equality up to dashes and dots ("DJ1" = "DJ-1") and Greek letters
    spelt out ("TGF-α" = "TGF-alpha"); a mention with a capital after its first letter is a
    symbol in protein-name case ("TrkA" = TRKA), unlike a capitalised word ("Set" is not
    SET)."""
    bare_symbol, bare_mention = (
        "".join(GREEK.get(c, c) for c in text).replace("-", "").replace(".", "")
        for text in (symbol, mention)
    )
    if bare_symbol == bare_mention:
        return True
    return any(c.isupper() for c in bare_mention[1:]) and bare_mention.upper() == bare_symbol


def _own_name_first(mention: str, found: list[LinkedEntity]) -> list[LinkedEntity]:
    """``found`` with, among the records tied with the first (same score and tier), those
    whose own name the mention is, abbreviates ("PKAN", "DRD") or holds every word of
    ("KCNQ2 encephalopathy") first, and of those a family's own record before its numbered
    members when the mention has no number ("AD": "Alzheimer disease" before "Alzheimer
    disease 3", which carries AD as a synonym too); otherwise unchanged."""
    if len(found) < 2:
        return found
    tied = [e for e in found if e.score == found[0].score and e.match == found[0].match]
    if len(tied) < 2:
        return found
    words = _content_words(mention)
    short = mention.strip().replace("-", "")

    def fits(entity: LinkedEntity) -> bool:
        if fold(entity.name) == fold(mention):
            return True
        if _looks_like_acronym(mention) and abbreviates(short, entity.name):
            return True
        return len(words) > 1 and words <= _content_words(entity.name)

    def numbered(entity: LinkedEntity) -> bool:  # a family's member: "Alzheimer disease 3"
        return bool(_MEMBER_AT_END.search(entity.name)) and not any(c.isdigit() for c in mention)

    first = sorted(tied, key=lambda e: (not fits(e), numbered(e)))  # stable: ties as ranked
    if first == tied:
        return found
    return first + [e for e in found if e not in tied]


def _bare_forms(mention: str, *, bare_eponyms: bool = False) -> list[tuple[str, str | None]]:
    """The mention without a qualifier ("TOR1A-related" → "TOR1A"), a bare possessive
    eponym or double eponym with its usual noun ("Wilson's" → "Wilson disease", "Wilson
    syndrome", "young-onset Parkinson's" → "young-onset Parkinson disease",
    "Phelan-McDermid" → "Phelan-McDermid syndrome"), and an eponym with the other noun
    ("Perry disease" → "Perry syndrome"); each with the eponym whose noun was added (None for
    the qualifier's form)."""
    bare = strip_qualifier(mention)
    forms: list[tuple[str, str | None]] = [(bare, None)] if bare else []
    eponym = _EPONYM.match(mention.strip())
    name = eponym.group("name") if eponym else mention.strip()
    if (
        (eponym and any(quote in mention for quote in "'’"))
        or (bare_eponyms and _bare_eponym(name))
        or _DOUBLE_EPONYM.fullmatch(name)
    ):
        forms += [(f"{name} {noun}", name.split()[-1]) for noun in ("disease", "syndrome")]
    named = _EPONYM_NOUN.match(mention.strip())
    if named:  # "Perry disease" for "Perry syndrome", "Wilson syndrome" for "Wilson disease"
        other = "syndrome" if named.group("noun").lower() == "disease" else "disease"
        forms.append((f"{named.group('name')} {other}", named.group("name").split()[-1]))
    return forms


def _holds_eponym(name: str, eponym: str) -> bool:
    """Whether ``name`` holds ``eponym`` as a proper name, capitalised: "Dravet syndrome"
    holds "dravet"; "seizure disorder" does not hold "Seizure"."""
    found = re.search(re.escape(eponym), name, re.IGNORECASE)
    return found is not None and found[0][0].isupper()


def _bare_eponym(mention: str) -> bool:
    """Whether ``mention`` is one word of four letters or more, capitalised or (in chat) not,
    that is no everyday English word ("Dravet", "dravet", "Huntington"; not "Western"):
    biologists name a disease by its eponym alone ("Dravet or KCNQ2 encephalopathy")."""
    return bool(_BARE_EPONYM.fullmatch(mention)) and mention.casefold() not in common_words()


def _spells_name(letters: str, name: str) -> bool:
    """Whether upper-case ``letters`` are a name's initials or another way people spell them
    (:func:`~kgrecall.tools.names.acronym_variants`: "DCM", dilated cardiomyopathy)."""
    folded = fold(name).split()
    return acronym(name) == letters or letters in acronym_variants(folded)


def _looks_like_acronym(text: str) -> bool:
    """Capitals (digits allowed), 2–8 characters, and not a Roman numeral ("II", "IV")."""
    letters = [c for c in text if c.isalpha()]
    return (
        2 <= len(text) <= 8
        and len(letters) >= 2
        and all(c.isupper() for c in letters)
        and not _ROMAN_NUMERAL.fullmatch(text)
    )


#: A word that numbers a family member ("10", "2l" in "type 2L"): a fuzzy candidate must
#: hold it too.
_MEMBER_NUMBER = re.compile(r"\d{1,3}[a-z]?")


def _holds_numbers(words: AbstractSet[str], numbers: AbstractSet[str]) -> bool:
    """Whether every number is one of a name's ``words`` or ends one ("56" in "NOP56"); true
    without numbers."""
    return all(any(w.endswith(number) for w in words) for number in numbers)


def _content_words(text: str) -> set[str]:
    """A name's words without fillers, conjunctions and variant words ("spastic paraplegia,
    nephritis and deafness syndrome" = "Spastic paraplegia-nephritis-deafness syndrome",
    "parkinsonian variant of multiple system atrophy" ≈ "Multiple system atrophy,
    parkinsonian type")."""
    return {word_key(w) for w in fold(text).split() if w not in _NOT_CONTENT}


def _leaves_out_a_part(name: str, words: AbstractSet[str]) -> bool:
    """Whether ``name`` joins parts ("Myopathy, proximal, and ophthalmoplegia", "X with
    deafness") of which ``words`` name none of one: "proximal myopathy" is not that disease."""
    parts = [_content_words(part) for part in _NAME_PARTS.split(fold(name))]
    return len(parts) > 1 and any(part and part.isdisjoint(words) for part in parts)


#: Where a name joins its parts.
_NAME_PARTS = re.compile(r"\b(?:and|with|plus)\b")
#: Words that name a class of entity, not which one ("Pompe disease" is named by "Pompe").
_CLASS_WORDS = frozenset(
    word_key(w) for w in ("disease", "syndrome", "disorder", "deficiency", "type", "form")
)
#: Words :func:`_content_words` leaves out.
_NOT_CONTENT = FILLERS | {"and", "or", "variant", "subtype"}


def _word_set(text: str) -> set[str]:
    return {singular(w) for w in fold(text).split()}


def _token_f1(left: AbstractSet[str], right: AbstractSet[str]) -> float:
    shared = len(left & right)
    return 2 * shared / (len(left) + len(right)) if shared else 0.0
