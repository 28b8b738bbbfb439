"""The name tables of an :class:`~kgrecall.tools.EntityIndex`, built once per KG version and
kept on disk next to the KG.

Building them folds every name and synonym of the KG several ways (≈ 2 s for the demo KG's
56 k names on one core); ``kgrecall ground`` and every service start would pay that. So the
commands that write a KG (``kg build-demo``, ``kg import``, ``kg add``) also write its tables
(``kgs/NAME/indexes/names.json``), and readers load them (≈ 0.1 s) when their KG version
matches, else build them in memory — a query never writes.

Each tier (key → entries of ``(node position, matched name)``) is stored as flat arrays —
keys, offsets, positions, name numbers — so loading creates no per-entry objects; entries are
made when a key is looked up.
"""

from __future__ import annotations

import logging
import re
from collections import Counter, defaultdict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from kgrecall.kg import GraphStore, Node, atomic_write_bytes
from kgrecall.kg.loaders.names import read_hgnc_names
from kgrecall.tools.names import (
    FILLERS,
    abbreviates,
    acronym_of_folded,
    acronym_variants,
    bag_of_folded,
    common_words,
    compact,
    fold,
    name_keys,
    word_bag,
    word_key,
)

__all__ = ["NAMES_FILE", "TIERS", "NameTables", "Tier", "is_symbol"]

log = logging.getLogger(__name__)

NAMES_FILE = "names.json"
FORMAT = "kgrecall-name-tables/38"
#: The lookup tiers, in the order they are tried; "symbol" holds gene and protein symbols.
TIERS = ("symbol", "name", "normalized", "compact", "word_order", "acronym")
Entry = tuple[int, str]

_ACRONYM_TYPES = frozenset({"disease", "phenotype", "go_term", "pathway"})
#: A one-word trivial protein name as HGNC writes it inside a longer name ("tafazzin"): no
#: enzyme class, adjective or disease word.
_TRIVIAL_NAME = re.compile(
    r"(?![a-z]*(?:ase|ic|al|ile|ary|ous|ed|ing|pathy|ism|osis|trophy|emia|itis)$)[a-z]{5,}"
)
_SYMBOL_TYPES = frozenset({"gene", "protein"})
_FAMILY_MEMBER_ONE = re.compile(r"(?<=[a-z]) 1$")
#: A gene or protein name's family and member number: "toll like receptor 4".
_FAMILY_MEMBER = re.compile(r"^(?P<family>.+?) (?P<number>\d+)\b")
#: A numbered disease's locus symbol: "PARK7", "SPG11", "DYT-28", "CMT2A".
_LOCUS_SYMBOL = re.compile(r"(?P<letters>[A-Z]{2,5})-?(?P<number>\d{1,3}[A-Za-z]?)")
#: Members with both a family's name and a locus symbol needed to learn the symbol.
LOCUS_PAIRS = 5
#: Members a family needs for its name alone to mean the family, not its member 1 (the
#: three calmodulin genes encode one protein, "calmodulin"; ten toll-like receptors do not).
FAMILY_MEMBERS = 4
#: An acronym written like a filler word ("AT" in "AT Mutated Protein", "TO", "IN").
_ACRONYM_FILLER = re.compile(
    r"\b(?:" + "|".join(sorted(word.upper() for word in FILLERS if len(word) > 1)) + r")\b"
)
#: Three or more eponyms joined by hyphens before "syndrome" or "disease": abbreviated by
#: the eponyms' initials alone (GSS, CMT).
_EPONYMS = re.compile(r"^(?P<parts>[A-Z]\w+(?:[-–][A-Z]\w+){2,})\s+(?:syndrome|disease)$")
#: A receptor named by its ligand and a subtype ("dopamine D2 receptor", "histamine receptor
#: H1"): people name it by the subtype alone ("the D2 receptor") — not where the letter and
#: number belong to the ligand ("prostaglandin D2 receptor", "vitamin D3 receptor", "C5a")
#: or name a receptor family's class ("EPH receptor A3").
_RECEPTOR_SUBTYPE = re.compile(
    r"^(?!(?:prostaglandin|vitamin|complement|eph|leukotriene|thromboxane)\b)[a-z][\w-]* "
    r"(?:(?P<before>[a-z]\d+[a-z]?) receptor|receptor (?P<after>[a-z]\d+[a-z]?))$"
)
#: GO's "dopamine secretion, neurotransmission": biologists write "dopamine secretion" or
#: "dopamine release" (GO defines it as the regulated release of dopamine by a cell).
_NEUROTRANSMISSION = re.compile(r"^(?P<what>.+) secretion, neurotransmission$", re.IGNORECASE)
#: HGNC's "hypocretin (orexin) receptor 1": one word in brackets is another name for the
#: word before it ("orexin receptor 1").
_BRACKETED_ALTERNATIVE = re.compile(r"^(?P<first>[\w-]+) \((?P<other>[\w-]+)\) (?P<rest>\S.*)$")
#: HGNC's "hypocretin neuropeptide precursor": biologists name the peptide ("hypocretin").
_PEPTIDE_PRECURSOR = re.compile(r"^(?P<peptide>[a-z][\w-]+) (?:neuro)?peptide precursor$")


def is_symbol(name: str) -> bool:
    """Gene/protein symbol shape: one short word with two capitals, or a capital and a digit
    ("SNCA", "DJ-1", "Park7"), not a capitalised word ("Parkin")."""
    capitals = sum(c.isupper() for c in name)
    digits = any(c.isdigit() for c in name)
    return (
        " " not in name.strip()
        and 0 < len(name) <= 15
        and (capitals >= 2 or (capitals == 1 and digits))
    )


class Tier:
    """One tier's key → entries, frozen as flat arrays."""

    __slots__ = ("_name_numbers", "_names", "_offsets", "_positions", "_slot")

    def __init__(
        self,
        keys: list[str],
        offsets: list[int],
        positions: list[int],
        name_numbers: list[int],
        names: list[str],
    ) -> None:
        self._slot = dict(zip(keys, range(len(keys)), strict=True))
        self._offsets, self._positions = offsets, positions
        self._name_numbers, self._names = name_numbers, names

    @classmethod
    def of(cls, entries: dict[str, list[Entry]], numbers: dict[str, int], names: list[str]) -> Tier:
        """A tier from key → entries; ``numbers`` numbers the matched names in ``names``."""
        offsets, positions, name_numbers = [0], [], []
        for found in entries.values():
            for position, name in found:
                positions.append(position)
                name_numbers.append(numbers[name])
            offsets.append(len(positions))
        return cls(list(entries), offsets, positions, name_numbers, names)

    def get(self, key: str, default: Sequence[Entry] = ()) -> list[Entry]:
        """The entries under ``key`` (``default`` when none)."""
        slot = self._slot.get(key)
        if slot is None:
            return list(default)
        start, end = self._offsets[slot], self._offsets[slot + 1]
        return [(self._positions[i], self._names[self._name_numbers[i]]) for i in range(start, end)]

    def __len__(self) -> int:
        return len(self._slot)

    def __iter__(self) -> Iterator[str]:
        """Every key, in the tier's order."""
        return iter(self._slot)

    def to_json(self) -> dict[str, list[Any]]:
        return {
            "keys": list(self._slot),
            "offsets": self._offsets,
            "positions": self._positions,
            "names": self._name_numbers,
        }


@dataclass(frozen=True, slots=True)
class NameTables:
    """Per node (sorted by id): id, display name, type, degree and every name it is known by
    (its own, then its gene's for a protein); and the lookup tiers over those names."""

    version: str
    ids: list[str]
    display: list[str]
    types: list[str]
    degree: list[int]
    names: list[list[str]]
    tiers: dict[str, Tier]

    @classmethod
    def build(cls, store: GraphStore) -> NameTables:
        """The tables of ``store``'s current version."""
        nodes = sorted(store.nodes(), key=lambda n: n.id)
        position = {node.id: p for p, node in enumerate(nodes)}
        degree = [0] * len(nodes)
        gene_names: dict[str, list[str]] = defaultdict(list)
        for edge in store.edges():
            for end in (edge.head, edge.tail):
                if end in position:
                    degree[position[end]] += 1
            if edge.relation == "encodes":
                gene = store.get_node(edge.head)
                gene_names[edge.tail].extend([gene.name, *gene.synonyms])
        names = [
            list(dict.fromkeys([n.name, *n.synonyms, *gene_names.get(n.id, ())])) for n in nodes
        ]
        entries: dict[str, dict[str, list[Entry]]] = {tier: defaultdict(list) for tier in TIERS}
        for number, node in enumerate(nodes):
            for name in names[number]:
                _add_name(entries, number, node, name)
        _add_trivial_names(entries, nodes, store)
        _add_first_members(entries, nodes, names)
        _add_group_names(entries, nodes, names)
        _add_locus_symbols(entries, nodes, names)
        matched = sorted(
            {name for tier in entries.values() for e in tier.values() for _, name in e}
        )
        numbers = {name: n for n, name in enumerate(matched)}
        return cls(
            store.version,
            [n.id for n in nodes],
            [n.name for n in nodes],
            [n.type for n in nodes],
            degree,
            names,
            {tier: Tier.of(entries[tier], numbers, matched) for tier in TIERS},
        )

    def save(self, path: Path) -> None:
        """Write the tables to ``path`` atomically."""
        first = next(iter(self.tiers.values()))
        document = {
            "format": FORMAT,
            "version": self.version,
            "ids": self.ids,
            "display": self.display,
            "types": self.types,
            "degree": self.degree,
            "names": self.names,
            "matched": first._names,
            "tiers": {tier: table.to_json() for tier, table in self.tiers.items()},
        }
        atomic_write_bytes(path, orjson.dumps(document))

    @classmethod
    def load(cls, path: Path, version: str) -> NameTables | None:
        """The tables saved at ``path`` for KG ``version``; None when there are none for that
        version, or the file is unreadable (then logged: the caller builds them anew)."""
        try:
            document = orjson.loads(path.read_bytes())
        except FileNotFoundError:
            return None
        except (OSError, orjson.JSONDecodeError) as error:
            log.warning("%s: unreadable name tables (%s); building them anew", path, error)
            return None
        written = document.get("format") if isinstance(document, dict) else None
        if isinstance(written, str) and written.startswith(FORMAT.split("/")[0] + "/"):
            if written != FORMAT:
                log.warning(
                    "%s: name tables of another kgrecall version (%s; this one reads %s); "
                    "building them in memory on every load until `kgrecall kg index NAME` "
                    "rewrites them",
                    path, written, FORMAT,
                )  # fmt: skip
                return None
        else:
            log.warning("%s: not kgrecall name tables; building them anew", path)
            return None
        if document.get("version") != version:
            return None
        try:
            matched = document["matched"]
            return cls(
                version,
                document["ids"],
                document["display"],
                document["types"],
                document["degree"],
                document["names"],
                {
                    tier: Tier(t["keys"], t["offsets"], t["positions"], t["names"], matched)
                    for tier, t in document["tiers"].items()
                },
            )
        except (KeyError, TypeError, ValueError) as error:
            log.warning("%s: damaged name tables (%s); building them anew", path, error)
            return None

    @classmethod
    def write(cls, store: GraphStore, directory: Path) -> NameTables:
        """Build ``store``'s tables and save them in ``directory`` (a KG's index folder)."""
        tables = cls.build(store)
        directory.mkdir(parents=True, exist_ok=True)
        tables.save(directory / NAMES_FILE)
        return tables

    @classmethod
    def for_store(cls, store: GraphStore, directory: Path | None) -> NameTables:
        """The tables saved in ``directory`` for ``store``'s version, else built in memory."""
        if directory is not None:
            saved = cls.load(directory / NAMES_FILE, store.version)
            if saved is not None:
                return saved
        return cls.build(store)


#: OMIM's name of a susceptibility: "KURU, SUSCEPTIBILITY TO", "… SUSCEPTIBILITY TO, 2".
#: A name filed with its abbreviation: "HCM - hypertrophic cardiomyopathy".
_GLOSSED_ABBREVIATION = re.compile(r"^(?P<short>[A-Z]{3,6})\s+[-–]\s+(?P<long>\w.+)$")
_SUSCEPTIBILITY = re.compile(r"^(?P<what>.+?),?\s+susceptibility to(?:,\s*\d+\w?)?$", re.IGNORECASE)
#: A disease named for its deficient enzyme or cofactor after what it causes; people name it
#: by the deficiency alone (a name another entity has exactly still goes to that one).
_DUE_TO_DEFICIENCY = re.compile(r"^.+?,?\s+due\s+to\s+(?P<what>\S.*\sdeficiency)$", re.IGNORECASE)
#: MONDO's name of a group of diseases: "inborn disorder of serine family metabolism",
#: "disease of cornea", "inborn error of organic acid metabolic process".
_GROUP_OF = re.compile(
    r"^(?:inborn\s+)?(?:disorder|disease|error)\s+of\s+(?:the\s+)?(?P<what>[^,()]+?)"
    r"(?:\s+(?P<process>metabolism|metabolic process))?$",
    re.IGNORECASE,
)
#: A collagen chain's HGNC name: its type is how people name the collagen.
_COLLAGEN_CHAIN = re.compile(r"^collagen type (?P<type>[IVXL]+) alpha \d+ chain$", re.IGNORECASE)
#: The word "subunit" before a chain's Greek letter, which people leave out.
_SUBUNIT = re.compile(r"\s+subunit\s+(?=(?:alpha|beta|gamma|delta|epsilon)\b)", re.IGNORECASE)


def _add_group_names(
    entries: dict[str, dict[str, list[Entry]]], nodes: Sequence[Node], names: list[list[str]]
) -> None:
    """File the ways people write a disease group's name (:func:`_group_name_variants`) under
    keys no other node claims: MONDO has an "inborn" and a general class of many groups
    ("inborn disorder of amino acid metabolism", "amino acid metabolism disease"), and a
    variant of one must not make the other's own name ambiguous."""
    claims: dict[tuple[str, str], set[int]] = defaultdict(set)
    filed: list[tuple[list[tuple[str, str]], Entry]] = []
    for position, node in enumerate(nodes):
        if node.type != "disease":
            continue
        for name in names[position]:
            group = _GROUP_OF.match(name)
            for variant in _group_name_variants(group) if group else []:
                keys = [("normalized", k) for k in name_keys(variant, fold(variant))]
                # in any order: "disorders of the methionine cycle and sulfur amino acids"
                keys.append(("word_order", word_bag(variant)))
                for tier_key in keys:
                    claims[tier_key].add(position)
                filed.append((keys, (position, name)))
    for keys, entry in filed:
        owners = {entry[0]}.union(
            *(claims[tier, k] | {p for p, _ in entries[tier].get(k, ())} for tier, k in keys)
        )
        if owners != {entry[0]}:
            continue
        for tier, k in keys:
            if entry not in entries[tier][k]:
                entries[tier][k].append(entry)


def _group_name_variants(group: re.Match[str]) -> list[str]:
    """How people write a group of diseases MONDO names "(inborn) disorder of X (metabolism)":
    "X disorders", "X metabolism disorders", "inborn errors of X metabolism", "disorders of X",
    "X defects" ("amino-acid transport defect")."""
    what = group["what"]
    process = " metabolism" if group["process"] else ""
    forms = {f"{what}{process}", what}
    return [
        variant
        for form in sorted(forms)
        for variant in (
            f"{form} disorder",
            f"{form} defect",
            f"disorder of {form}",
            f"inborn error of {form}",
        )
    ]


def _protein_name_variants(name: str) -> list[str]:
    """Other ways a gene's or protein's full name is written: with either of two bracketed
    names (:data:`_BRACKETED_ALTERNATIVE`), a precursor's peptide (:data:`_PEPTIDE_PRECURSOR`),
    a chain without the word "subunit" (:data:`_SUBUNIT`) and a collagen by its type."""
    alternative = _BRACKETED_ALTERNATIVE.match(name)
    forms = [name]
    if alternative:
        forms = [f"{alternative[part]} {alternative['rest']}" for part in ("first", "other")]
    peptides = [m["peptide"] for m in map(_PEPTIDE_PRECURSOR.match, forms) if m is not None]
    # "laminin subunit beta 2" is written "laminin β2", "integrin subunit alpha 7" "integrin α7"
    chains = [_SUBUNIT.sub(" ", form) for form in forms if _SUBUNIT.search(form)]
    # "collagen type XIII alpha 1 chain" is "collagen XIII" or "type XIII collagen"
    collagen = _COLLAGEN_CHAIN.match(name)
    if collagen:
        chains += [f"collagen {collagen['type']}", f"type {collagen['type']} collagen"]
    return [*(forms if alternative else []), *peptides, *chains]


def _add_trivial_names(
    entries: dict[str, dict[str, list[Entry]]], nodes: Sequence[Node], store: GraphStore
) -> None:
    """HGNC's "tafazzin, phospholipid-lysophospholipid transacylase", "EPM2A glucan
    phosphatase, laforin": one word of a gene's approved name between commas is the
    protein's trivial name, filed for the gene and the protein it encodes — when no other
    HGNC gene's approved name holds the word (not "lectin", "actinin", nor "obscurin", which
    OBSL1's name holds too), and it is no enzyme class ("-ase"), no adjective or disease word
    and no everyday word."""
    genes = read_hgnc_names()
    owners: dict[str, int] = defaultdict(int)
    for gene in genes:
        for word in set(fold(gene.name).split()):
            owners[word] += 1
    everyday = common_words()
    trivial = {
        gene.node_id: words
        for gene in genes
        if "," in gene.name
        and (
            words := [
                word
                for part in gene.name.split(",")
                if _TRIVIAL_NAME.fullmatch(word := part.strip())
                and owners[word] == 1
                and word not in everyday
            ]
        )
    }
    position = {node.id: number for number, node in enumerate(nodes)}
    encoded = {e.tail: e.head for e in store.edges() if e.relation == "encodes"}
    for node in nodes:
        words = trivial.get(encoded.get(node.id, node.id), []) if node.type in _SYMBOL_TYPES else []
        for word in words:
            entries["normalized"][word_key(word)].append((position[node.id], word))


def _add_locus_symbols(
    entries: dict[str, dict[str, list[Entry]]], nodes: list[Node], names: list[list[str]]
) -> None:
    """A numbered disease by its family's locus symbol and number ("PARK24" for "Parkinson
    disease 24, autosomal dominant") where the KG's sources give it none: the symbol of a
    family is learned from the members that have both ("PARK7" and "Parkinson disease 7"),
    the one most of them share, and only a family and a symbol that are each other's most
    shared pair (:data:`LOCUS_PAIRS` members or more) count."""
    numbered: list[tuple[int, str, str]] = []  # (node, folded family, member number)
    pairs: Counter[tuple[str, str]] = Counter()
    for number, node in enumerate(nodes):
        if node.type != "disease":
            continue
        symbols = {}
        for name in names[number]:
            symbol = _LOCUS_SYMBOL.fullmatch(name)
            if symbol:
                symbols[symbol["number"].casefold()] = symbol["letters"]
        for name in names[number]:
            member = None if _LOCUS_SYMBOL.fullmatch(name) else _FAMILY_MEMBER.match(fold(name))
            if member is None:
                continue
            numbered.append((number, member["family"], member["number"]))
            if member["number"] in symbols:
                pairs[(symbols[member["number"]], member["family"])] += 1
    best_family: dict[str, tuple[int, str]] = {}
    best_letters: dict[str, tuple[int, str]] = {}
    for (letters, family), count in pairs.items():
        best_family[letters] = max(best_family.get(letters, (0, "")), (count, family))
        best_letters[family] = max(best_letters.get(family, (0, "")), (count, letters))
    for number, family, code in numbered:
        count, letters = best_letters.get(family, (0, ""))
        if count >= LOCUS_PAIRS and best_family[letters][1] == family:
            locus = f"{letters}{code.upper()}"
            for key in name_keys(locus, fold(locus)):
                entries["normalized"][key].append((number, locus))


def _add_first_members(
    entries: dict[str, dict[str, list[Entry]]], nodes: list[Node], names: list[list[str]]
) -> None:
    """A family's first member by the family's name ("sortilin" for "sortilin 1",
    "alanyl-tRNA synthetase" for "… synthetase 1", "calmodulin"), as people write it — unless
    the KG has :data:`FAMILY_MEMBERS` or more members, when the name means the family
    ("toll-like receptor", "transmembrane protein")."""
    members: dict[str, set[str]] = defaultdict(set)
    firsts: list[tuple[int, str, str]] = []
    for number, node in enumerate(nodes):
        if node.type not in _SYMBOL_TYPES:
            continue
        for name in names[number]:
            match = _FAMILY_MEMBER.match(fold(name))
            if match:
                members[match["family"]].add(match["number"])
            if _FAMILY_MEMBER_ONE.search(name):
                firsts.append((number, name, _FAMILY_MEMBER_ONE.sub("", name)))
    for number, name, family in firsts:
        if len(members[fold(family)]) < FAMILY_MEMBERS:
            entries["word_order"][word_bag(family)].append((number, name))


def _add_name(
    entries: dict[str, dict[str, list[Entry]]], position: int, node: Node, name: str
) -> None:
    """File one name of the node at ``position`` under every tier key it has."""
    if not name.strip():
        return
    glossed = _GLOSSED_ABBREVIATION.match(name)
    if glossed and abbreviates(glossed["short"], glossed["long"]):
        for part in (glossed["short"], glossed["long"]):  # MONDO's "HCM - hypertrophic …"
            _add_name(entries, position, node, part)
        return
    entry = (position, name)
    if node.type in _SYMBOL_TYPES and is_symbol(name):
        entries["symbol"][fold(name).replace(" ", "")].append(entry)
        return
    folded = fold(name)
    entries["name"][folded].append(entry)
    for key in name_keys(name, folded):
        entries["normalized"][key].append(entry)
        entries["compact"][compact(key)].append(entry)
    bag = bag_of_folded(folded.split())
    # one-word bags are the normalized key already; a bag that lost an acronym spelt like a
    # filler ("AT Mutated Protein" without "AT") would be any "protein mutated"
    if " " in bag and (name.isupper() or not _ACRONYM_FILLER.search(name)):
        entries["word_order"][bag].append(entry)
    subtype = _RECEPTOR_SUBTYPE.match(folded) if node.type in _SYMBOL_TYPES else None
    if subtype:  # "the D2 receptor"
        entries["word_order"][word_bag(f"{subtype['before'] or subtype['after']} receptor")].append(
            entry
        )
    released = _NEUROTRANSMISSION.match(name) if node.type == "go_term" else None
    variants = [f"{released['what']} secretion", f"{released['what']} release"] if released else []
    if node.type in _SYMBOL_TYPES:
        variants += _protein_name_variants(name)
    susceptibility = _SUSCEPTIBILITY.match(name) if node.type == "disease" else None
    if susceptibility:  # OMIM's "KURU, SUSCEPTIBILITY TO" is what people call kuru
        variants.append(susceptibility["what"])
    deficiency = _DUE_TO_DEFICIENCY.match(name) if node.type == "disease" else None
    if deficiency:  # "hyperphenylalaninemia due to BH4 deficiency" is "BH4 deficiency"
        variants.append(deficiency["what"])
    for variant in variants:
        for key in name_keys(variant, fold(variant)):
            entries["normalized"][key].append(entry)
    if node.type in _ACRONYM_TYPES:
        initials = acronym_of_folded(folded.split())
        if initials:
            entries["acronym"][initials].append(entry)
        for variant in acronym_variants(folded.split()):  # "FOG", "OGC", "SHE"
            entries["acronym"][variant].append(entry)
        eponyms = _EPONYMS.match(name)
        if eponyms:  # "Gerstmann-Straussler-Scheinker syndrome": GSS
            parts = re.split(r"[-–]", eponyms.group("parts"))
            entries["acronym"]["".join(part[0] for part in parts).upper()].append(entry)
