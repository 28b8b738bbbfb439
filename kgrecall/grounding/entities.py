"""Biomedical entity mentions: regex NER for identifiers plus dictionary matching on KG names.

Regex NER finds CURIEs (GO, HP, MONDO, DOID, CHEBI, NCBITaxon, OMIM, ORPHA, NCBIGene, HGNC,
MESH, UBERON, CL), UniProt accessions (UniProt's official pattern), KEGG identifiers (pathways
``hsa04010`` / ``map04010``, genes ``hsa:5594``, orthologs ``K04371``; compounds and drugs only
next to the word "KEGG"), PDB ids (only next to the word "PDB") and common species names; ids
are normalised with bioregistry. Dictionary matching links the longest run of words that the
KG's :class:`~kgrecall.tools.EntityIndex` knows as a name, a synonym or one of their written
variants (possessives, word order, plurals, acronyms; never a fuzzy match). Context decides
the rest: a short form the text defines ("peritoneal dialysis (PD)") means its long form; an
entity name that is also an everyday English word ("SET", "OR", "fusion") needs a cue for its
kind within three words ("SET gene", "REST expression", "HD patients"); a nucleotide triplet
before "repeat" is a sequence, an abbreviation before a decimal number a statistic ("SD
6.2"), "AD" or "AR" next to words about inheritance a mode of inheritance; a string naming a
gene by an alias and a disease ("SCA2") is read by the same cues, else as the disease. Words
with a comma match only a name written with it ("myoclonus, dystonia" is a list), and a KG
name inside a longer name of a disease the KG lacks is part of that disease ("dyskinesia" in
"primary ciliary dyskinesia"). Every mention keeps its character span.

Extraction is linear in the text's length (times a log): spans already taken are kept in a
sorted interval structure, so an overlap check is a binary search, not a scan of every
mention found so far; long loops check the caller's deadline (:mod:`kgrecall.kg.deadline`).
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from functools import cached_property, lru_cache
from pathlib import Path
from typing import Literal, TypeVar

import numpy as np
from pydantic import BaseModel, ConfigDict

from kgrecall.grounding.reading import Spans
from kgrecall.kg import GraphStore, KGError, normalize_curie
from kgrecall.kg.deadline import check_deadline
from kgrecall.kg.derived import cached_derivation
from kgrecall.kg.loaders import names as name_tables
from kgrecall.kg.loaders.names import (
    bundled_hgnc_path,
    bundled_mesh_terms_path,
    bundled_mondo_path,
    bundled_outside_path,
    read_hgnc_names,
    read_mesh_terms,
    read_mondo_names,
    read_outside_names,
    vocabulary_key,
)
from kgrecall.tools import names as name_rules
from kgrecall.tools.linking import GENE_QUALIFIED, EntityIndex, LinkedEntity
from kgrecall.tools.names import FILLERS, abbreviates, common_words
from kgrecall.tools.store_search import StoredEmbeddings
from kgrecall.tools.vector import embed

MentionKind = Literal[
    "curie", "uniprot", "kegg", "pdb", "species", "dictionary", "vocabulary", "variant"
]
#: The id prefix of a test or a procedure no vocabulary names ("procedure:muscle biopsy").
PROCEDURE_PREFIX = "procedure:"
#: The id prefix of a name an LLM read as an entity of a claim that neither the KG nor a
#: vocabulary names ("term:xk-101"): outside the KG, so its pairs cannot be confirmed.
TERM_PREFIX = "term:"
#: Mentions recognised as terms outside the KG (not by an identifier or a KG name): they take
#: part in the pairs a claim asserts, never in mere co-mentions.
WEAK_KINDS = frozenset({"vocabulary", "variant"})
#: An amino-acid or nucleotide change after "p." (or "c.", "g.", "m."): "Gly2019Ser", "R47H".
_CHANGE = r"[A-Z*][a-z]{0,2}\d+(?:_[A-Z][a-z]{0,2}\d+)?(?:[A-Z*][a-z]{0,2}|del|dup|ins|fs)[\w*>]*"
#: Sequence variants, alleles (dbSNP ids, HLA alleles), haplotypes and repeat expansions:
#: outside any gene/disease KG.
_VARIANT = re.compile(
    r"(?<![\w.])(?:"
    # p.N370S, p.Gly2019Ser, p.(R47H): a bracket closes only the one opened after the dot
    rf"[pcgm]\.\({_CHANGE}\)|[pcgm]\.{_CHANGE}"
    r"|c\.[-*]?\d+(?:[+-]\d+)?(?:_\d+)?(?:[ACGT]>[ACGT]|del\w*|dup\w*|ins\w*)"  # c.1226A>G
    r"|(?:Δ|del)[ACGT]{3,}"  # ΔGAG
    r"|(?:[ACGT]{3,6}|(?i:hexanucleotide|dodecamer|octapeptide|pentanucleotide|trinucleotide|"
    r"polyglutamine))\s+(?:repeats?\s+)?(?:expansions?|insertions?|repeats?|tracts?)"
    r"|(?:ε|epsilon\s?)[2-4](?:\s+allele)?"  # APOE ε4
    r"|rs\d{3,12}"  # dbSNP: rs7574865
    r"|HLA-[A-Z]{1,3}\d?\*\d{2,3}(?::\d{2,3}){0,3}"  # HLA alleles: HLA-B*51, HLA-DQB1*06:02
    r"|H[12]\s+haplotype"
    r")(?![\w])",
)

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
#: Words near a mention that say it is a gene or protein.
_GENE_CUE = re.compile(
    r"(gene\w*|genotyp\w*|sequenc\w*|pseudogenes?|proteins?|mutat\w*|mutants?|variants?|express\w*|knock\w*|kinases?|"
    r"receptors?|enzymes?|transcripts?|isoforms?|loci|locus|alleles?|carriers?|inclusions?|"
    r"aggregat\w*|phosphorylat\w*|bind\w*|interact\w*|encod\w*|positive|deficien\w*|homozygous|"
    r"heterozygous|haplotypes?|polymorphisms?|exons?|introns?|promoters?|knockdown|sirna|"
    r"related|associated|linked|"
    # what a protein is: "the E3 ligase CHIP", "the XPD helicase", "PGP9.5-immunostained"
    r"ligases?|helicases?|(?:co-)?chaperones?|transporters?|channels?|subunits?|"
    r"[\w.]+-immunostained|antibod(?:y|ies))",
    re.IGNORECASE,
)
#: Words near a mention that say it is a disease or a clinical feature.
_DISEASE_CUE = re.compile(
    r"(patients?|cases?|diseases?|disorders?|syndromes?|onset|diagnos\w*|affected|families|"
    r"pedigrees?|cohorts?|subjects?|symptoms?|signs?|progression|clinical\w*|phenotypes?|"
    r"presented|presents?|presenting|developed|manifest\w*|risk|types?|subtypes?|forms?|"
    r"dementias?|ataxias?|dystonias?|parkinsonism|recurrent|frequent|episodes?|history|caus\w*|"
    # the certainty of a diagnosis: "probable CAA", "possible MSA"
    r"probable|possible|definite|"
    r"characteri[sz]\w*|inherit\w*|prevalen\w*|endemic|children|adults|individuals|"
    r"childhood|infancy|adolescence|adulthood|"
    r"treated|autops\w*|neuropatholog\w*|"
    # a diagnosis reasoned to: "suggested IP", "confirming FA", "the hallmarks of DRD"
    r"suggest\w*|confirm\w*|hallmarks?|"
    # a patient: "a 15-year-old girl", "the proband", "an infant with"
    r"\d+-(?:year|month)-old|girls?|boys?|infants?|neonates?|teenagers?|probands?|"
    # named by the gene behind it: "RPE65-associated LCA"
    r"[\w.]+-(?:associated|related|linked))",
    re.IGNORECASE,
)
#: Right before a disease's abbreviation, the gene it is named by: "RPE65-associated LCA".
_NAMED_BY_GENE = re.compile(r"[\w.]+-(?:associated|related|linked)", re.IGNORECASE)
#: Before a diagnosis concluded from findings listed before a colon: "Ptosis, pigmentary
#: retinopathy and heart block: KSS." (not a field's label: "Past history: CD on …").
_CONCLUDED = re.compile(r"\w[^\S\n]*:[^\S\n]*$")
#: …and what may end it: the sentence, a bracket or a semicolon.
_CONCLUSION_END = re.compile(r"\s*(?:[.;(]|$)")
#: Words near a mention that say it is a process in a cell (a GO term's abbreviation: "MOMP
#: triggers the release of cytochrome c", "evoked EPSPs were recorded in CA1 neurons").
_PROCESS_CUE = re.compile(
    r"(cells?|cellular|neurons?|neuronal|synap\w*|membranes?|cytosol\w*|lysosom\w*|"
    r"mitochondri\w*|substrates?|apoptosis|releas\w*|triggers?|evoked|spontaneous|"
    r"record\w*|amplitudes?|slices?|whole-cell|patch-clamp|currents?)",
    re.IGNORECASE,
)
_DASHES = frozenset("-–—")
#: Before an eponym, words that make it a person: "Dr Osei", "described by Pompe".
_PERSON_BEFORE = re.compile(r"\b(?:Drs?|Prof|Professor|Mr|Mrs|Ms|Miss|Sir|by)\.?\s+$")
#: After an eponym, words that make it the name of something other than a disease: a sign,
#: a test, a cell, a structure, a scale, an author ("Romberg sign", "Gowers manoeuvre",
#: "Purkinje cells", "Lewy bodies", "Hurler et al.", "Charcot described"), or what only
#: looks like the disease ("Huntington phenocopies").
_EPONYM_OF_OTHER = re.compile(
    r"(?:['’]s?)?\s+(?:signs?|tests?|testing|manoeuvres?|maneuvers?|phenomen\w+|reflex\w*|"
    r"cells?|bod(?:y|ies)|areas?|criteria|scores?|scales?|classification|stag\w+|grades?|"
    r"procedures?|operations?|repairs?|joints?|foot|feet|triad|et\s+al\b|and\s+colleagues|"
    r"laws?|type\s+[IV]+\s+astrocytes|described|reported|observed|noted|wrote|named|coined|"
    r"phenocop\w+|mimics?|look-?alikes?)\b",
    re.IGNORECASE,
)
_REPEAT_CUE = re.compile(
    r"(repeats?|expansions?|expanded|triplets?|trinucleotides?|tracts?|codons?)", re.I
)
_NUCLEOTIDES = re.compile(r"[ACGTU]{3}")
#: A gene symbol written in protein or mouse style: a capital, lower case, then a capital or a
#: digit ("TrkC", "Nurr1"); looked up among the symbols in upper case.
_CAMEL_SYMBOL = re.compile(r"[A-Z][a-z]{1,4}[A-Z0-9][A-Za-z0-9]{0,3}")
#: Abbreviations of inheritance modes, and the words that say they mean one.
_INHERITANCE = frozenset({"AD", "AR", "XL", "XLR", "XLD"})
_INHERITANCE_CUE = re.compile(
    r"(transmi\w*|inherit\w*|penetran\w*|segregat\w*|patterns?|traits?|modes?)", re.I
)
_DECIMAL = re.compile(r"\d+\.\d+(?:-\d+(?:\.\d+)?)?")
#: English function words (closed classes: negation, determiners, pronouns, prepositions,
#: conjunctions, auxiliaries). In capitals they are emphasis or a heading ("but NOT reported",
#: "RESULTS OF THE STUDY"), not the gene whose old alias they are ("NOT" was NR4A2's, "OF"
#: BRIP1's, "IN" CD44's) — unless its kind follows at once ("the NOT gene").
_FUNCTION_WORDS = frozenset(
    {"not", "no", "nor", "never", "only", "all", "any", "some", "each", "both", "either",
     "neither", "none", "the", "an", "this", "that", "these", "those", "and", "or", "but",
     "if", "so", "as", "than", "then", "of", "in", "on", "at", "to", "by", "for", "from",
     "with", "into", "onto", "up", "out", "off", "over", "under", "per", "via", "is", "are",
     "was", "were", "be", "been", "am", "do", "does", "did", "has", "have", "had", "can",
     "may", "must", "will", "shall", "should", "would", "could", "it", "its", "we", "he",
     "she", "they", "us", "our", "you", "me", "my", "who", "what", "which", "why", "how",
     "when", "where", "also", "even", "yet", "very", "most", "more", "less"}
)  # fmt: skip
#: Right after a name, a word that makes it the gene or its product ("the NOT gene", "the
#: PARK5 locus", "the XPD helicase", the enzyme measured: "leukocyte ASA activity"): where the
#: name is also a function word, a disease's name or a bare abbreviation.
_GENE_KIND = re.compile(
    r"genes?|loci|locus|mrna|transcripts?|proteins?|enzymes?|kinases?|ligases?|helicases?|"
    r"phosphatases?|proteases?|receptors?|transporters?|channels?|subunits?|activit(?:y|ies)",
    re.IGNORECASE,
)
#: After a symbol, a word that makes it the name of a kind of protein domain.
_DOMAIN = re.compile(r"domains?|motifs?", re.I)
#: Words after a defined short form that name its kind, not another entity ("ED syndromes").
_KIND_WORDS = frozenset(
    {"syndrome", "syndromes", "disease", "diseases", "disorder", "disorders", "spectrum"}
)
#: "long form (SF)": a short form defined in the text.
_DEFINITION = re.compile(r"\(([A-Za-z][A-Za-z0-9-]{1,9})\)")
#: Words either side of a mention searched for a cue.
CUE_WINDOW = 3
_GENE_TYPES = frozenset({"gene", "protein"})
_KG_TYPES = frozenset({"gene", "protein", "disease", "phenotype", "go_term"})
_CLINICAL_TYPES = frozenset({"disease", "phenotype"})
_DISEASE_TYPE = frozenset({"disease"})
#: A node with this many neighbours or more relates too much to support an abbreviation.
SUPPORT_HUB_DEGREE = 200
#: How words name an entity: ``alone`` (a name, a defined short form, an abbreviation with a
#: strong cue), ``cue`` (a bare abbreviation with a cue word for its kind nearby: kept where a
#: KG neighbour is named in its sentence or the sentence reads like the entity's context),
#: ``bare`` (a bare abbreviation without a cue: kept only where a KG neighbour is named).
Naming = Literal["alone", "cue", "bare"]
#: The least context similarity (:meth:`EntityExtractor._context_similarity`) at which a bare
#: abbreviation with only a cue word names its KG entity.
CONTEXT_MIN_SIMILARITY = 0.15
#: How many of an entity's and its neighbours' embeddings the context is compared with.
CONTEXT_NEAREST = 3
#: Longest name (in words) the dictionary matcher tries.
MAX_NAME_WORDS = 12
#: Words a disease, phenotype or GO-term mention may be widened by, before and after it.
WIDEN_BEFORE = 3
WIDEN_AFTER = 6
_WIDENED_TYPES = frozenset({"disease", "phenotype", "go_term"})
#: Words a widened name neither starts nor ends with.
_NOT_NAME_EDGES = FILLERS | {"and", "or", "is", "are", "was", "were", "be", "has", "have"}
#: Words that relate a name to what precedes it, never start one ("linked to CMT2A1").
_NOT_NAME_STARTS = frozenset(
    {"linked", "associated", "caused", "related", "implicated", "called", "termed", "named",
     "known", "including", "like", "unlike", "than", "as", "is", "are", "was", "were"}
)  # fmt: skip
#: What may stand between the words of a widened name: spaces, a comma, dashes.
_WORD_JOIN = re.compile(r"[ \t]*[,\-–—]?[ \t]*")
#: Between a list item and the next: "dementia, myoclonus".
_LIST_COMMA = re.compile(r",[ \t]*")
_AND_OR = re.compile(r"\s(?:and|or)\s")
#: Nouns before "of" that relate a name to what precedes them ("a form of dystonia"): a name
#: is not widened back across them ("the parkinsonian variant of MSA" is one name).
_RELATION_NOUNS = frozenset(
    {"form", "forms", "type", "types", "subtype", "subtypes", "kind", "kinds", "cause",
     "causes", "part", "feature", "features", "sign", "signs"}
)  # fmt: skip
_INDEFINITE = re.compile(r"\ban?\s+$", re.IGNORECASE)
_RELATION_OF = re.compile(r"\b(?:" + "|".join(sorted(_RELATION_NOUNS)) + r")\s+of\b", re.I)
#: Head nouns of clinical findings (:func:`_findings`).
_FINDING_HEADS = frozenset(
    {"disturbance", "disturbances", "symptoms", "signs", "deficit", "deficits", "impairment",
     "impairments", "delay", "decline", "dysfunction", "abnormality", "abnormalities",
     "difficulty", "difficulties"}
)  # fmt: skip
#: A word describing a finding: lower case, four letters or more, not a verb's "-s" form
#: ("precedes motor signs": only "motor" describes them).
_DESCRIBING = re.compile(r"[a-z][a-z-]{2,}(?:[^s]|ous|ss|is)")
#: Head nouns of therapies and processes the KG holds no node for ("antisense therapy").
_PROCESS_HEADS = frozenset(
    {"therapy", "therapies", "chelation", "stimulation", "pathway", "pathways", "deposition",
     "deposits", "biosynthesis", "biogenesis"}
)  # fmt: skip
#: Head nouns of tests and procedures ("muscle biopsy", "carrier testing", "renal
#: ultrasound", "tandem mass spectrometry"): a report names them as it names drugs, and the KG
#: holds none, so a line about one is unverifiable rather than empty of entities.
_PROCEDURE_HEADS = frozenset(
    {"testing", "screening", "sequencing", "biopsy", "biopsies", "ultrasound", "ultrasonography",
     "echocardiogram", "echocardiography", "electromyography", "spectrometry", "microscopy",
     "imaging", "scan", "scans", "assay", "assays", "MRI", "transplantation", "transplant",
     "electrophoresis", "panel"}
)  # fmt: skip
#: Tests named by their head noun alone ("Echocardiography showed …").
_PROCEDURES_ALONE = frozenset(
    {"echocardiogram", "echocardiography", "electromyography", "ultrasonography",
     "electroencephalography", "spectrometry", "microscopy", "mri"}
)  # fmt: skip
#: Words that say which or how many, not what kind of finding.
_NOT_DESCRIBING = frozenset(
    {"clinical", "other", "these", "those", "such", "similar", "typical", "prominent",
     "common", "additional", "associated", "many", "several", "various", "first", "initial",
     "main", "early", "late", "some", "more", "most", "their", "with", "from", "that", "this",
     "into", "over", "mild", "severe", "major", "minor", "overt", "subtle", "clear",
     "certain", "further", "related", "specific", "general", "progressive", "presenting",
     "cardinal", "core", "classic", "classical", "characteristic", "accompanying", "without",
     "having", "showed", "show", "shows", "were", "have", "been", "also", "only", "both",
     "same", "annual", "repeat", "routine", "standard", "next",
     "diagnostic", "care", "referral", "treatment", "management",
     # a whole system's findings are no finding of their own ("her neurological signs fit")
     "neurological", "neurologic"}
)  # fmt: skip
#: Longest outside-vocabulary name (in words) tried.
MAX_OUTSIDE_WORDS = 6


T = TypeVar("T")


def _cached(name: str, derive: Callable[[], T], *sources: Path) -> T:
    """``derive()`` of bundled ``sources``, cached in the workspace between processes
    (:mod:`kgrecall.kg.derived`): this module, the table readers and the name rules are its
    code."""
    code = (Path(__file__), Path(name_tables.__file__), Path(name_rules.__file__))
    return cached_derivation(name, derive, sources=sources, code=code)


@lru_cache(maxsize=1)
def outside_vocabulary() -> tuple[dict[str, str], dict[str, str]]:
    """The biomedical names of HPO, MONDO, HGNC and MeSH (drugs, chemicals, anatomy) as
    (folded name → id, exact gene symbol → id), from ``kgrecall/data/outside_names.tsv.gz``
    (see ``kgrecall/data/NAMES.md``)."""
    return _cached("outside_vocabulary", read_outside_names, bundled_outside_path())


@lru_cache(maxsize=65536)
def _american_word(word: str) -> str:
    return name_rules.americanize(word)


def vocabulary_terms(text: str) -> Iterator[tuple[str, str]]:
    """(phrase, id) for each run of up to :data:`MAX_OUTSIDE_WORDS` words of ``text`` that
    :func:`outside_id` knows, longest first, left to right — the vocabulary alone, none of the
    extractor's context rules."""
    tokens = list(_TOKEN.finditer(text))
    position = 0
    while position < len(tokens):
        width = 1
        for size in range(min(MAX_OUTSIDE_WORDS, len(tokens) - position), 0, -1):
            phrase = text[tokens[position].start() : tokens[position + size - 1].end()]
            term = outside_id(phrase)
            if term is not None:
                yield phrase, term
                width = size
                break
        position += width


@lru_cache(maxsize=1)
def vocabulary_labels() -> dict[str, str]:
    """HPO, MONDO and HGNC id → label (a gene's symbol), from the bundled name tables: how
    a term of :func:`outside_vocabulary` is named back to the user."""
    labels = {hp_id: names.label for hp_id, names in name_tables.read_hpo_names().items()}
    labels.update(
        (mondo_id, names.label) for mondo_id, names in name_tables.read_mondo_names().items()
    )
    labels.update((gene.hgnc_id, gene.symbol) for gene in name_tables.read_hgnc_names())
    return labels


def outside_id(phrase: str) -> str | None:
    """The id :func:`outside_vocabulary` holds for ``phrase``: an exact symbol, else its
    folded key, else that key in American spelling with its last word singular (the keys
    only fold case and separators, while writers spell British and write plurals:
    "hypogammaglobulinaemia", "motor stereotypies")."""
    folded, exact = outside_vocabulary()
    key = vocabulary_key(phrase)
    found = exact.get(phrase) or folded.get(key)
    if found is None and key:
        words = [_american_word(word) for word in key.split(" ")]
        words[-1] = name_rules.singular(words[-1])
        found = folded.get(" ".join(words))
    return found


#: Words too general to tell one sense of an abbreviation from another.
_GENERAL_WORDS = frozenset(
    {"disease", "disorder", "syndrome", "deficiency", "familial", "hereditary", "congenital",
     "autosomal", "dominant", "recessive", "linked", "onset", "juvenile", "infantile", "adult",
     "childhood", "early", "chronic", "acute", "primary", "secondary", "classic", "classical",
     "protein", "proteins", "family", "member", "subunit", "domain", "containing", "related",
     "associated", "factor", "complex", "susceptibility", "variant", "patients", "severe",
     "progressive", "human", "receptor", "type", "types", "with", "without", "other", "their",
     "which", "there", "these", "those", "after", "before", "between"}
)  # fmt: skip
_WORD = re.compile(r"[A-Za-z]{5,}")


def _stems(text: str) -> frozenset[str]:
    """The first six letters of each word of five or more letters, general words and
    everyday English left out: enough to match "pancreas" with "pancreatitis" and
    "fibroblasts" with "fibroblast", not "binding" with a gene's "binding protein"."""
    return frozenset(_stem_list(text))


def _stem_list(text: str) -> list[str]:
    """:func:`_stems` with repeats, in order."""
    everyday = common_words()
    return [
        word[:6]
        for word in (w.casefold() for w in _WORD.findall(text))
        if word not in _GENERAL_WORDS and word not in everyday
    ]


class _TextStems:
    """A text's :func:`_stems`, counted once, so that the stems around each of its mentions
    cost no pass over the whole text (a report with many abbreviations stays linear)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._counts: Counter[str] | None = None

    def around(self, mention: EntityMention, stems: frozenset[str]) -> int:
        """How many of ``stems`` the text says outside ``mention``."""
        if self._counts is None:
            self._counts = Counter(_stem_list(self.text))
        own = Counter(_stem_list(self.text[mention.start : mention.end]))
        return sum(1 for stem in stems if self._counts[stem] > own[stem])


@lru_cache(maxsize=1)
def abbreviation_senses() -> dict[str, tuple[tuple[str, tuple[str, ...]], ...]]:
    """What an abbreviation may stand for: each MONDO disease with it among its synonyms and
    each HGNC gene with it as its symbol or an alias, as (id, its names), from the bundled
    tables."""
    return _cached(
        "abbreviation_senses", _abbreviation_senses, bundled_mondo_path(), bundled_hgnc_path()
    )


def _abbreviation_senses() -> dict[str, tuple[tuple[str, tuple[str, ...]], ...]]:
    senses: dict[str, list[tuple[str, tuple[str, ...]]]] = {}
    for disease in read_mondo_names().values():
        for name in disease.synonyms:
            if len(name) <= _ABBREVIATION_CHARS and _ABBREVIATION.fullmatch(name):
                senses.setdefault(name, []).append(
                    (disease.mondo_id, (disease.label, *disease.synonyms))
                )
    for gene in read_hgnc_names():
        for name in (gene.symbol, *gene.alias_symbols):
            if (
                gene.ncbi_gene
                and len(name) <= _ABBREVIATION_CHARS
                and _ABBREVIATION.fullmatch(name)
            ):
                senses.setdefault(name, []).append((f"NCBIGene:{gene.ncbi_gene}", (gene.name,)))
    return {name: tuple(found) for name, found in senses.items()}


@lru_cache(maxsize=1)
def eponym_words() -> frozenset[str]:
    """Words (case-folded) MONDO writes as proper names in disease names and never in lower
    case: the eponyms ("hurler", "dravet", "pompe"), not "retinal" or "familial". MONDO's
    labels are lower case but for proper names and acronyms; of its synonyms, only those not
    written in title case count."""
    return _cached("eponym_words", _eponym_words, bundled_mondo_path())


def _eponym_words() -> frozenset[str]:
    capitalised: set[str] = set()
    lower: set[str] = set()
    for disease in read_mondo_names().values():
        for word in _NAME_WORD.findall(disease.label):
            (capitalised if word[0].isupper() else lower).add(word.casefold())
        for synonym in disease.synonyms:
            words = _NAME_WORD.findall(synonym)
            if all(word[0].isupper() for word in words):
                continue  # "Retinal Dystrophy": title case says nothing
            capitalised.update(word.casefold() for word in words if word[0].isupper())
    return frozenset(capitalised - lower)


#: A word of a name, for telling eponyms: a letter, then lower case.
_NAME_WORD = re.compile(r"[A-Za-z][a-z]+")


@lru_cache(maxsize=1)
def _mesh_branch_ids() -> dict[str, frozenset[str]]:
    """MeSH branch → the ids of its terms in the outside vocabulary."""
    return _cached("mesh_branch_ids", _derive_mesh_branch_ids, bundled_mesh_terms_path())


def _derive_mesh_branch_ids() -> dict[str, frozenset[str]]:
    branches: dict[str, set[str]] = {}
    for mesh_id, branch, _ in read_mesh_terms():
        branches.setdefault(branch, set()).add(f"MESH:{mesh_id}")
    return {branch: frozenset(ids) for branch, ids in branches.items()}


def anatomy_ids() -> frozenset[str]:
    """Ids of MeSH's anatomy terms (body parts, tissues, cells) in the outside vocabulary:
    where a claim happens ("neutrophils", "the lysosome"), rarely what it is about."""
    return _mesh_branch_ids().get("anatomy", frozenset())


def procedure_ids() -> frozenset[str]:
    """Ids of MeSH's tests and procedures in the outside vocabulary ("Polysomnography",
    "Thyroidectomy", "Exome Sequencing")."""
    return _mesh_branch_ids().get("procedure", frozenset())


def is_procedure(entity_id: str) -> bool:
    """Whether a mention's id names a test or a procedure: how something was found, no part
    of what a claim asserts."""
    return entity_id.startswith(PROCEDURE_PREFIX) or entity_id in procedure_ids()


@lru_cache(maxsize=1)
def other_symbols() -> dict[str, str]:
    """HGNC alias and previous symbols that name one gene only → its HGNC id (read when a
    symbol in protein or mouse style, "TrkC", is no KG name and no approved symbol)."""
    return _cached("other_symbols", _other_symbols, bundled_hgnc_path())


def _other_symbols() -> dict[str, str]:
    owners: dict[str, set[str]] = {}
    for gene in read_hgnc_names():
        for symbol in (*gene.alias_symbols, *gene.previous_symbols):
            owners.setdefault(symbol.upper(), set()).add(gene.hgnc_id)
    return {symbol: ids.pop() for symbol, ids in owners.items() if len(ids) == 1}


class EntityMention(BaseModel):
    """An entity mentioned at ``text[start:end]`` (of the text searched; a claim's entities
    carry report offsets): ``id`` is its normalised id, ``in_kg`` whether the KG has that node.
    One model from the extractor to the API."""

    model_config = ConfigDict(frozen=True)

    text: str
    start: int
    end: int
    id: str
    kind: MentionKind
    in_kg: bool
    #: KG entities of other types the same words name ("PARK17": the disease, and VPS35 by
    #: an old symbol), and other records they name as well: the claim's relation, or the
    #: KG's edge to the claim's other entity, may choose one of them instead
    alternatives: tuple[str, ...] = ()


class EntityExtractor:
    """Finds mentions in text; with a KG, also by the names of its nodes (its
    :class:`~kgrecall.tools.EntityIndex`, shared with the planner when given)."""

    def __init__(self, store: GraphStore | None = None, index: EntityIndex | None = None) -> None:
        self.store = store
        if index is not None and store is not None and index.version != store.version:
            raise KGError("the entity index was built on another KG version")
        self.index = index if index is not None or store is None else EntityIndex.shared(store)
        #: the KG node each alternative id stands for (a MONDO or HGNC id of a KG disease or
        #: gene): a vocabulary name of such an id names that node
        self._by_xref: dict[str, str] = {}
        #: each KG node's neighbours, read once
        self._near: dict[str, frozenset[str]] = {}
        #: the embeddings of each KG node and its neighbours, read once
        self._vectors: dict[str, np.ndarray] = {}
        if store is not None:
            for node in store.nodes():
                for xref in node.properties.get("xrefs", ()):
                    self._by_xref.setdefault(str(xref), node.id)

    def sole_disease(self, mentions: Sequence[EntityMention], text: str = "") -> str | None:
        """The one disease ``mentions`` (of ``text``) name, else the disease the claim opens
        on when no other is listed with it (None for none or a list): what "the syndrome" or
        "It" in the next sentence refers to."""
        if self.index is None:
            return None
        index = self.index
        diseases = {m.id for m in mentions if m.in_kg and index.type_of(m.id) == "disease"}
        if len(diseases) <= 1:
            return diseases.pop() if diseases else None
        first, second = mentions[0], mentions[1]
        if (
            first.in_kg
            and index.type_of(first.id) == "disease"
            and not _LISTED.fullmatch(text, first.end, second.start)
        ):
            return first.id  # the claim's subject: "NGLY1 deficiency was considered, but …"
        return None

    def sole_gene(self, mentions: Sequence[EntityMention]) -> str | None:
        """The one gene or protein ``mentions`` name (a gene and its protein, named alike,
        count as one; None for none or several): what "the receptor" in the next sentence
        refers to."""
        if self.index is None:
            return None
        index = self.index
        named = {
            index.names(m.id)[0]: m.id
            for m in mentions
            if m.in_kg and index.type_of(m.id) in _GENE_TYPES
        }
        return next(iter(named.values())) if len(named) == 1 else None

    def extract(
        self,
        text: str,
        *,
        topic: str | None = None,
        gene_topic: str | None = None,
        defined: Mapping[str, str | None] | None = None,
    ) -> list[EntityMention]:
        """Non-overlapping mentions, left to right; identifiers win over names. ``topic``: the
        disease the text before named ("the syndrome" refers to it when this text names no
        disease before), ``gene_topic`` the gene or protein ("the receptor", "this gene");
        ``defined``: the short forms the text before defined (:meth:`definitions`), which this
        text may use alone."""
        taken = Spans()
        found = self._identifiers(text, taken)
        rejected: list[tuple[int, int]] = []
        if self.index is not None:
            for name, given in (("topic", topic), ("gene_topic", gene_topic)):
                if given is not None and given not in self.index:
                    raise KGError(f"{name} {given!r} is no entity of the KG")
            named, rejected = self._dictionary(text, taken, self.index, defined or {})
            named = self._widened(text, named, taken)
            named = [part for mention in named for part in self._gene_and_name(mention)]
            named = self._forms_of(text, named, self.index)
            named = self._elided_forms(text, named, self.index, topic)
            named = self._coordinated(text, named, self.index)
            named = self._shortened_terms(text, named)
            named = self._predicative_findings(text, named, self.index)
            named = _anaphora(text, named, self.index, topic, gene_topic)
            # a KG name inside a longer outside name of a disease is part of that disease
            # ("dyskinesia" in "primary ciliary dyskinesia", which the KG lacks); a longer
            # phenotype ("frequent falls") still mentions the KG's broader one
            diseases = [o for o in self._outside(text, taken) if o.id.startswith("MONDO:")]
            named = [
                m
                for m in named
                if self.index.type_of(m.id) == "disease" or not any(_inside(m, o) for o in diseases)
            ]
            taken.add_sorted([(m.start, m.end) for m in named])
            found.extend(named)
        # an abbreviation whose sentence reads unlike its KG entity's context is no mention of
        # that entity by another record either
        outside = [
            m
            for m in self._outside(text, taken)
            if not (m.in_kg and any(m.start < end and start < m.end for start, end in rejected))
        ]
        taken.add_sorted([(m.start, m.end) for m in outside])
        found.extend(outside)
        found.extend(_findings(text, taken))
        found.extend(_compounds(text, taken))
        found.sort(key=lambda mention: mention.start)
        if self.index is not None:
            found = self._disease_glosses(text, found, self.index)
        stems = _TextStems(text)
        return [
            self._abbreviation_sense(stems, m)
            for m in found
            if not _COMPARED.search(text, max(0, m.start - 40), m.start)
            and not (m.kind == "dictionary" and _other_sense(text, m, self.index))
        ]

    def _abbreviation_sense(self, stems: _TextStems, mention: EntityMention) -> EntityMention:
        """The mention, or — for an abbreviation the KG reads as one of its entities — the
        disease or gene outside the KG it abbreviates here: the one whose names share more
        words with the text than the names of the KG entity and its neighbours do ("HSP …
        palpable purpura": IgA vasculitis, MONDO's other "HSP"; "type 1 AIP … pancreas":
        autoimmune pancreatitis, not acute intermittent porphyria). Senses are MONDO's
        abbreviations and HGNC's symbols (:func:`abbreviation_senses`)."""
        if (
            self.index is None
            or not mention.in_kg
            or mention.kind != "dictionary"
            or (short := _ABBREVIATION.match(mention.text)) is None
            or (short.end() < len(mention.text) and mention.text[short.end()] != "-")
        ):
            return mention
        senses = abbreviation_senses().get(short.group(0), ())
        if not senses:
            return mention
        shared = stems.around(mention, self._kg_sense_stems(mention.id, self.index))
        # a gene's symbol also abbreviates the disease named after it ("MKS1: the classic
        # Meckel-Gruber gene"): for a gene, only other genes compete
        gene = self.index.type_of(mention.id) in _GENE_TYPES
        best = max(
            (
                (stems.around(mention, _stems(" ".join(names))), sense_id)
                for sense_id, names in senses
                if self._kg_node(sense_id) is None and not (gene and sense_id.startswith("MONDO:"))
            ),
            default=(0, ""),
        )
        if best[0] <= shared:
            return mention
        return mention.model_copy(
            update={"id": best[1], "kind": "vocabulary", "in_kg": False, "alternatives": ()}
        )

    def _kg_sense_stems(self, entity_id: str, index: EntityIndex) -> frozenset[str]:
        """:func:`_stems` of the names of a KG entity and of its neighbours: what a text about
        it may say ("optineurin" beside "ALS", "retinal" beside LCA)."""
        ids = {entity_id}
        if self.store is not None:
            edges = self.store.neighbors(entity_id, direction="both")
            ids.update(end for edge in edges for end in (edge.head, edge.tail))
        return _stems(" ".join(name for node in ids for name in index.names(node)))

    def _forms_of(
        self, text: str, named: list[EntityMention], index: EntityIndex
    ) -> list[EntityMention]:
        """ "the infantile-onset form of acid maltase deficiency": a disease named after a
        qualified form of it is the KG's record of that form, when one is named by all those
        words, the disease as written or by its KG name ("a nongoitrous form of CH":
        :meth:`EntityIndex.closest_name`); the mention then spans the qualifier too."""
        found: list[EntityMention] = []
        for mention in named:
            match = (
                _FORM_OF.search(text, max(0, mention.start - 80), mention.start)
                if index.type_of(mention.id) == "disease"
                else None
            )
            entity, phrase = None, ""
            if match and match["qualifier"].casefold() not in _NO_FORM_QUALIFIERS:
                # the disease as written, then as the KG names it ("a nongoitrous form of CH")
                for name in dict.fromkeys((mention.text, index.names(mention.id)[0])):
                    phrase = f"{match['qualifier']} {name}"
                    entity = index.closest_name(phrase, "disease", required=[phrase])
                    if entity is not None:
                        break
            if (
                entity is None
                or entity.id == mention.id
                # a form is no numbered member: "the juvenile form of Parkinson disease" is not
                # "Parkinson disease, juvenile, type 2"
                or (_DIGIT.search(entity.name) and not _DIGIT.search(phrase))
            ):
                found.append(mention)
                continue
            start = match.start("qualifier") if match else mention.start
            while found and found[-1].end > start:
                found.pop()  # a word of the qualifier read as a name of its own
            found.append(
                EntityMention(
                    text=text[start : mention.end], start=start, end=mention.end, id=entity.id,
                    kind="dictionary", in_kg=True,
                )
            )  # fmt: skip
        return found

    def _elided_forms(
        self, text: str, named: list[EntityMention], index: EntityIndex, topic: str | None
    ) -> list[EntityMention]:
        """A subtype or form named without its disease, which a disease named before it in
        the text (else ``topic``) supplies: "Gaucher type 1 …, whereas type 2 and type 3 …",
        "nemaline myopathy … the severe congenital form" — the KG's record named by those
        words together (:meth:`EntityIndex.closest_name`), when there is one. A gene or
        protein in the qualifier gives way ("the LRP5-related form")."""
        found = list(named)
        elided: list[EntityMention] = []
        for match in _ELIDED_FORM.finditer(text):
            group = "qualifier" if match["qualifier"] else "plural" if match["plural"] else "kind"
            qualifier = match[group] if group != "kind" else None
            if qualifier is not None and qualifier.casefold() in _NO_FORM_QUALIFIERS:
                continue
            start, end = match.span(group)
            inside = [m for m in found if m.start < end and m.end > start]
            if any(index.type_of(m.id) not in _GENE_TYPES for m in inside):
                continue  # already a name: "type 2 diabetes", "the juvenile Huntington form"
            # the disease as written, then as the KG names it ("FEVR": "Familial exudative …")
            families = [
                name
                for m in reversed(found)
                if m.end <= match.start()
                and m.in_kg
                and index.type_of(m.id) == "disease"
                and m not in elided
                for name in (m.text, index.names(m.id)[0])
            ]
            if topic is not None and index.type_of(topic) == "disease":
                families.append(index.names(topic)[0])
            entity = None
            for family in dict.fromkeys(families):
                family = _TYPE_CODE_AT_END.sub("", family)  # "Gaucher type 1" → "Gaucher"
                if not family:
                    continue
                if qualifier is None:
                    phrase, words = f"{family} type {match['code']}", [match["code"]]
                else:
                    phrase, words = f"{qualifier} {family}", [qualifier]
                entity = index.closest_name(phrase, "disease", required=words, anchor=family)
                if entity is not None:
                    break
            if entity is None:
                continue
            start, end = (
                (match.start(), match.end("code")) if qualifier is None else (start, match.end())
            )
            found = [m for m in found if m.end <= start or m.start >= end]
            elided.append(
                EntityMention(
                    text=text[start:end], start=start, end=end, id=entity.id, kind="dictionary",
                    in_kg=True,
                )
            )  # fmt: skip
            found.append(elided[-1])
        return sorted(found, key=lambda m: m.start)

    def _coordinated(
        self, text: str, named: list[EntityMention], index: EntityIndex
    ) -> list[EntityMention]:
        """Items of a coordination that share a name's other words: "mitochondrial fission
        and fusion" (mitochondrial fusion), "Parkinson disease 4 and 8", "SCA1, 2 and 3" —
        the KG entity of the name's type that the name with its last word or its subtype code
        replaced by the item is called word for word. An item that is a name itself is
        taken already ("mitochondrial fission and autophagy": autophagy)."""
        found = list(named)
        taken = Spans()
        taken.add_sorted([(m.start, m.end) for m in found])
        for mention in named:
            if not mention.in_kg or mention.kind != "dictionary":
                continue
            kind, name, end = index.type_of(mention.id), mention.text, mention.end
            while (joiner := _COORDINATION.match(text, end)) is not None:
                item = _ELLIPTIC_ITEM.match(text, joiner.end())
                if item is None or taken.overlaps(item.start(), item.end()):
                    break
                code = _CODE_AT_END.search(name)
                if _CODE.fullmatch(item.group(0)):
                    if code is None:
                        break
                    name = name[: code.start()] + item.group(0)
                elif " " in name and code is None:
                    name = f"{name.rsplit(' ', 1)[0]} {item.group(0)}"
                else:
                    break
                entity = next(
                    (
                        e
                        for e in index.lookup(name)
                        if e.type == kind
                        and e.match == "name"
                        and e.matched.casefold() == name.casefold()
                    ),
                    None,
                )
                if entity is None:
                    break
                found.append(
                    EntityMention(
                        text=item.group(0), start=item.start(), end=item.end(), id=entity.id,
                        kind="dictionary", in_kg=True,
                    )
                )  # fmt: skip
                end = item.end()
        return sorted(found, key=lambda m: m.start)

    def _predicative_findings(
        self, text: str, named: list[EntityMention], index: EntityIndex
    ) -> list[EntityMention]:
        """A clinical feature said of its subject after a copula, as examination notes write
        it: "Ankle reflexes were absent" (Absent ankle reflexes), "deep tendon reflexes were
        reduced", "plantar responses were extensor" — the KG phenotype named by the state
        before the subject's last words, word for word or by its written variants."""
        taken = Spans()
        taken.add_sorted([(m.start, m.end) for m in named])
        found = list(named)
        for match in _PREDICATIVE.finditer(text):
            words = list(_TOKEN.finditer(match["subject"]))
            offset = match.start("subject")
            for first in range(len(words)):
                start = offset + words[first].start()
                if taken.overlaps(start, match.end()):
                    continue
                phrase = f"{match['state']} {text[start : match.end('subject')]}"
                entity = next(
                    (
                        e
                        for e in index.lookup(phrase)
                        if e.type == "phenotype" and e.match in ("name", "normalized")
                    ),
                    None,
                )
                if entity is not None:
                    found.append(
                        EntityMention(
                            text=text[start : match.end()], start=start, end=match.end(),
                            id=entity.id, kind="dictionary", in_kg=True,
                        )
                    )  # fmt: skip
                    break
        return sorted(found, key=lambda m: m.start)

    @cached_property
    def _term_endings(self) -> dict[str, tuple[str, tuple[frozenset[str], ...]] | None]:
        """Each ending of two words or more of a GO term's name, short of the whole name →
        (the term, the words each of its names leaves out); None for an ending two terms
        share."""
        endings: dict[str, tuple[str, tuple[frozenset[str], ...]] | None] = {}
        if self.store is None or self.index is None:
            return endings
        for node in self.store.nodes():
            if node.type != "go_term":
                continue
            for name in self.index.names(node.id):
                words = name.casefold().split()
                if "," in name or len(words) < 3:
                    continue
                for cut in range(1, len(words) - 1):
                    if _POLARITY & set(words[:cut]):
                        break  # "regulation of autophagy" is no positive regulation of it
                    ending = " ".join(words[cut:])
                    known = endings.get(ending, (node.id, ()))
                    endings[ending] = (
                        (node.id, (*known[1], frozenset(words[:cut])))
                        if known is not None and known[0] == node.id
                        else None
                    )
        return endings

    def _shortened_terms(self, text: str, named: list[EntityMention]) -> list[EntityMention]:
        """A GO term named by the end of its name when the sentence says the words left out
        elsewhere: "synaptic vesicle exocytosis … vesicle targeting" (synaptic vesicle
        targeting), "mitochondrial fusion … outer membrane fusion" (mitochondrial outer
        membrane fusion). Only an ending no other term shares."""
        endings = self._term_endings
        if not endings:
            return named
        taken = Spans()
        taken.add_sorted([(m.start, m.end) for m in named])
        tokens = list(_TOKEN.finditer(text))
        words = [t.group(0).casefold() for t in tokens]
        counts = Counter(words)
        found = list(named)
        position = 0
        while position < len(tokens):
            for width in range(min(MAX_NAME_WORDS, len(tokens) - position), 1, -1):
                run = tokens[position : position + width]
                start, end = run[0].start(), run[-1].end()
                if taken.overlaps(start, end) or not text[start:end].replace(" ", "").isalpha():
                    continue
                entry = endings.get(" ".join(words[position : position + width]))
                if entry is None:
                    continue
                inside = Counter(words[position : position + width])
                if not any(all(counts[w] > inside[w] for w in left) for left in entry[1]):
                    continue  # a word left out is not said elsewhere
                found.append(
                    EntityMention(
                        text=text[start:end], start=start, end=end, id=entry[0],
                        kind="dictionary", in_kg=True,
                    )
                )  # fmt: skip
                position += width - 1  # the scan goes on after it: no later run overlaps it
                break
            position += 1
        return sorted(found, key=lambda m: m.start)

    def _disease_glosses(
        self, text: str, found: list[EntityMention], index: EntityIndex
    ) -> list[EntityMention]:
        """A gene's alias in brackets right after the gene's own mention names its disease
        ("APTX variants (AOA1)": AOA1 is an old symbol of APTX and the disease)."""
        glossed = list(found)
        for position in range(1, len(glossed)):
            before, mention = glossed[position - 1], glossed[position]
            if (
                mention.id != before.id
                or not mention.in_kg
                or index.type_of(mention.id) not in _GENE_TYPES
                or not _BEFORE_GLOSS.fullmatch(text, before.end, mention.start)
                or not _AFTER_GLOSS.match(text, mention.end)
            ):
                continue
            disease = next((a for a in mention.alternatives if index.type_of(a) == "disease"), None)
            if disease is not None:
                glossed[position] = mention.model_copy(
                    update={"id": disease, "alternatives": (mention.id,)}
                )
        return glossed

    def _gene_and_name(self, mention: EntityMention) -> list[EntityMention]:
        """A clinical mention "ELOVL4-related SCA34" whose name after the gene names the same
        entity on its own: two mentions, the gene and the name ("THAP1-related dystonia" is
        one, as "dystonia" alone names another entity)."""
        assert self.index is not None
        match = GENE_QUALIFIED.match(mention.text)
        if match is None or self.index.type_of(mention.id) not in _CLINICAL_TYPES:
            return [mention]
        genes = self.index.lookup(match.group("gene"), node_types=_GENE_TYPES)
        rest = match.group("rest")
        named = self.index.lookup(rest, node_types=_CLINICAL_TYPES)
        same = set(self.index.names(mention.id))
        if not genes or not any(
            e.id == mention.id or same & set(self.index.names(e.id)) for e in named
        ):
            return [mention]
        gene_end = mention.start + match.end("gene")
        rest_start = mention.start + match.start("rest")
        return [
            mention.model_copy(
                update={
                    "text": match.group("gene"),
                    "end": gene_end,
                    "id": genes[0].id,
                    "alternatives": (),
                }
            ),
            mention.model_copy(update={"text": rest, "start": rest_start}),
        ]

    def _outside(self, text: str, taken: Spans) -> list[EntityMention]:
        """Biomedical terms the KG's names did not match — phenotypes, diseases and genes the
        KG lacks, drugs, chemicals, anatomical structures (:func:`outside_vocabulary`) — on the
        text no other mention holds: a claim about one is unverifiable, not about its other
        mentions. A name whose id the KG holds (directly or as a node's alternative id) is a
        mention of that node; a disease the KG holds only as "inherited X" is that node.
        Longest match first."""
        folded = outside_vocabulary()[0]
        tokens = list(_TOKEN.finditer(text))
        mentions: list[EntityMention] = []
        position = 0
        while position < len(tokens):
            check_deadline()
            width = 0
            for size in range(min(MAX_OUTSIDE_WORDS, len(tokens) - position), 0, -1):
                start, end = tokens[position].start(), tokens[position + size - 1].end()
                if taken.overlaps(start, end):
                    continue
                phrase = text[start:end]
                if "|" in phrase:
                    continue  # no name runs across a table's cells
                last = tokens[position + size - 1].group(0)
                if size > 1 and len(last) <= 2 and last.isalpha() and last.islower():
                    continue  # "CDG is inherited": the verb, not the subtype code of "CDG Is"
                key = vocabulary_key(phrase)
                entity_id = outside_id(phrase)
                if entity_id is None and _CAMEL_SYMBOL.fullmatch(phrase):
                    entity_id = other_symbols().get(phrase.upper())  # "TrkC": alias TRKC
                if entity_id is None and " " in key and key.endswith("s"):
                    entity_id = folded.get(key[:-1])  # "Kayser-Fleischer rings"
                if entity_id is None and "-" in phrase and " " in key:
                    entity_id = folded.get(key.replace(" ", ""))  # "pre-excitation"
                if entity_id is None and size == 1 and "/" in phrase:
                    # "levodopa/carbidopa": two terms joined by a slash
                    parts = self._slashed_terms(phrase, start)
                    if parts:
                        mentions.extend(parts)
                        width = size
                        break
                if entity_id is None:
                    continue
                if entity_id.startswith("MESH:") and _PROTEIN_HEAD.match(text, end):
                    break  # "receptor tyrosine kinase", "dopamine transporter": part of a name
                if size == 1 and _NOT_ALONE.fullmatch(phrase) and _WORD_AFTER.match(text, end):
                    break  # "hereditary ferritin disorders", "the severe congenital form"
                node_id = self._kg_node(entity_id)
                if node_id is None and entity_id.startswith("MONDO:"):
                    node_id = self._inherited_form(phrase)
                mentions.append(
                    EntityMention(
                        text=phrase,
                        start=start,
                        end=end,
                        id=entity_id if node_id is None else node_id,
                        kind="vocabulary" if node_id is None else "dictionary",
                        in_kg=node_id is not None,
                    )
                )
                width = size
                break
            position += max(width, 1)
        return mentions

    def _slashed_terms(self, phrase: str, start: int) -> list[EntityMention]:
        """The outside-vocabulary terms a slash joins into one word ("levodopa/carbidopa"),
        each a mention of its own; none unless every part is one."""
        folded, exact = outside_vocabulary()
        mentions = []
        offset = 0
        for part in phrase.split("/"):
            entity_id = exact.get(part) or folded.get(vocabulary_key(part))
            if not part or entity_id is None:
                return []
            node_id = self._kg_node(entity_id)
            mentions.append(
                EntityMention(
                    text=part,
                    start=start + offset,
                    end=start + offset + len(part),
                    id=entity_id if node_id is None else node_id,
                    kind="vocabulary" if node_id is None else "dictionary",
                    in_kg=node_id is not None,
                )
            )
            offset += len(part) + 1
        return mentions

    def _inherited_form(self, phrase: str) -> str | None:
        """The KG's "inherited X" (or "hereditary X") for a disease X the KG lacks: what a
        genetics report means by "epidermolysis bullosa" is MONDO's inherited class."""
        if self.index is None:
            return None
        for prefix in ("inherited", "hereditary"):
            found = [
                e
                for e in self.index.lookup(f"{prefix} {phrase}", node_types=_DISEASE_TYPE)
                if e.match in ("name", "normalized")
            ]
            if found:
                return found[0].id
        return None

    def _kg_node(self, entity_id: str) -> str | None:
        """The KG node ``entity_id`` is, or stands for as an alternative id; None outside."""
        if self._in_kg(entity_id):
            return entity_id
        return self._by_xref.get(entity_id)

    def _in_kg(self, entity_id: str) -> bool:
        return self.store is not None and self.store.has_node(entity_id)

    def _identifiers(self, text: str, taken: Spans) -> list[EntityMention]:
        """Identifier mentions, pattern by pattern: an earlier pattern's mention wins over an
        overlapping later one. ``taken`` ends up holding their spans."""
        mentions: list[EntityMention] = []
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
                    EntityMention(
                        text=match.group(0),
                        start=span[0],
                        end=span[1],
                        id=entity_id,
                        kind=kind,
                        in_kg=self._in_kg(entity_id),
                    )
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
        yield "variant", ((m, f"variant:{m.group(0)}") for m in _VARIANT.finditer(text))
        yield "kegg", ((m, f"kegg:{m.group(1)}") for m in _KEGG.finditer(text))
        yield (
            "kegg",
            (
                (m, f"kegg:{m.group(1)}")
                for m in _KEGG_CONTEXTUAL.finditer(text)
                if _near(text, m.start(), "KEGG")
            ),
        )
        # an accession's shape that is a gene's symbol ("P2RY11", "P2RX7") is the gene
        symbols = outside_vocabulary()[1]
        yield (
            "uniprot",
            (
                (m, f"uniprot:{m.group(1)}")
                for m in _UNIPROT.finditer(text)
                if m.group(1) not in symbols
            ),
        )
        yield (
            "pdb",
            (
                (m, f"pdb:{m.group(1).upper()}")
                for m in _PDB.finditer(text)
                if _near(text, m.start(), "PDB") and any(c.isalpha() for c in m.group(1))
            ),
        )

    def definitions(self, text: str) -> dict[str, str | None]:
        """The short forms ``text`` defines ("Fanconi anaemia (FA)", "The ectodermal
        dysplasias (EDs)") → the entity their long form names, or None when it names none
        ("peritoneal dialysis (PD)") — how a report goes on to use them alone."""
        if self.index is None:
            return {}
        return self._definitions(text, list(_TOKEN.finditer(text)), self.index)

    def _dictionary(
        self, text: str, taken: Spans, index: EntityIndex, earlier: Mapping[str, str | None]
    ) -> tuple[list[EntityMention], list[tuple[int, int]]]:
        """The KG's names in ``text``; and the spans of abbreviations left out because their
        sentence reads unlike the KG's context of the entity (:meth:`_supported`)."""
        tokens = [m for m in _TOKEN.finditer(text)]
        defined = {**earlier, **self._definitions(text, tokens, index)}
        sentences = _Sentences(text)
        mentions: list[EntityMention] = []
        unsupported: set[int] = set()
        cue_only: set[int] = set()
        position = 0
        while position < len(tokens):
            check_deadline()
            # the words right after a mention and its comma go on a list ("dementia, …")
            listed = (
                bool(mentions)
                and _LIST_COMMA.fullmatch(text, mentions[-1].end, tokens[position].start())
                is not None
            )
            match = self._longest(text, tokens, position, taken, index, defined, sentences, listed)
            if match is None:
                position += 1
                continue
            width, entity_id, alternatives, naming = match
            start, end = tokens[position].start(), tokens[position + width - 1].end()
            if naming == "bare":
                unsupported.add(len(mentions))
            else:
                if naming == "cue":
                    cue_only.add(len(mentions))
                sentences.named(start, index.type_of(entity_id))
            mentions.append(
                EntityMention(
                    text=text[start:end],
                    start=start,
                    end=end,
                    id=entity_id,
                    kind="dictionary",
                    in_kg=True,
                    alternatives=alternatives,
                )
            )
            position += width
        return self._supported(mentions, unsupported, cue_only, sentences)

    def _supported(
        self,
        mentions: list[EntityMention],
        unsupported: set[int],
        cue_only: set[int],
        sentences: _Sentences,
    ) -> tuple[list[EntityMention], list[tuple[int, int]]]:
        """``mentions`` without those of ``unsupported`` that no other mention of their
        sentence is a KG neighbour of (directly, or through one node that is no hub): an
        abbreviation means a KG entity where the sentence names what the KG relates to it.
        An abbreviation of ``cue_only`` (a cue word for its kind nearby, no KG neighbour named)
        is kept only where the sentence reads like the KG's context of the entity
        (:meth:`_context_similarity`): "children with moderate-to-severe AD were randomised to
        dupilumab" has a cue ("children") but is about atopic dermatitis, not Alzheimer disease;
        without stored embeddings (no vector search) the cue is enough. Also the spans left
        out for their context."""
        if not (unsupported or cue_only) or self.store is None:
            return [m for i, m in enumerate(mentions) if i not in unsupported], []
        kept = []
        rejected = []
        for number, mention in enumerate(mentions):
            if number in unsupported or number in cue_only:
                sentence = sentences.number(mention.start)
                others = [
                    other.id
                    for i, other in enumerate(mentions)
                    if i != number
                    and i not in unsupported
                    and sentences.number(other.start) == sentence
                ]
                related = any(self._related(mention.id, other) for other in others)
                if number in unsupported and not related:
                    continue
                if number in cue_only and not related:
                    similarity = self._context_similarity(
                        sentences.around(mention.start, mention.end), mention.id
                    )
                    if similarity is not None and similarity < CONTEXT_MIN_SIMILARITY:
                        rejected.append((mention.start, mention.end))
                        continue
            kept.append(mention)
        return kept, rejected

    def _context_similarity(self, context: str, entity_id: str) -> float | None:
        """How much a sentence (its abbreviation left out) reads like what the KG says about an
        entity: the mean cosine of the sentence's embedding with the :data:`CONTEXT_NEAREST`
        nearest of the stored embeddings of the entity and its KG neighbours (the vector
        index's, or those a KG in Neo4j holds). None without stored embeddings (no vector
        search): embedding a hub's hundreds of neighbours here would take seconds."""
        assert self.index is not None
        search = self.index.vector
        if not isinstance(search, StoredEmbeddings):
            return None
        vectors = self._vectors.get(entity_id)
        if vectors is None:
            vectors = search.vectors_of([entity_id, *sorted(self._neighbours(entity_id))])
            self._vectors[entity_id] = vectors
        similarities = vectors @ embed([context])[0]
        return float(np.sort(similarities)[-CONTEXT_NEAREST:].mean())

    def _related(self, first: str, second: str) -> bool:
        """Whether two KG nodes are neighbours, or share a neighbour that is no hub; a hub
        ("Tremor") relates to too much to support anything."""
        if self._degree(second) >= SUPPORT_HUB_DEGREE:
            return False
        near = self._neighbours(first)
        if second in near:
            return True
        return any(
            node in near and self._degree(node) < SUPPORT_HUB_DEGREE
            for node in self._neighbours(second)
        )

    def _neighbours(self, node: str) -> frozenset[str]:
        found = self._near.get(node)
        if found is None:
            assert self.store is not None
            edges = self.store.neighbors(node, direction="both") if self._in_kg(node) else []
            found = frozenset(edge.tail if edge.head == node else edge.head for edge in edges)
            self._near[node] = found
        return found

    def _degree(self, node: str) -> int:
        return len(self._neighbours(node))

    def _longest(
        self,
        text: str,
        tokens: list[re.Match[str]],
        position: int,
        taken: Spans,
        index: EntityIndex,
        defined: dict[str, str | None],
        sentences: _Sentences,
        listed: bool = False,
    ) -> tuple[int, str, tuple[str, ...], Naming] | None:
        """The widest run of words from ``position`` that names an entity (no fuzzy search:
        a mention is a name, a synonym or one of their written variants), its id, the best
        entity of each other type the words also name, and how they name it here
        (:data:`Naming`)."""
        for width in range(min(MAX_NAME_WORDS, len(tokens) - position), 0, -1):
            start, end = tokens[position].start(), tokens[position + width - 1].end()
            if taken.overlaps(start, end):
                continue
            phrase = text[start:end]
            if "|" in phrase:
                continue  # no name runs across a table's cells ("juvenile | parkinsonism")
            if _closes_unopened(phrase):
                continue  # nor out of brackets: "MYO5A (myosin Va) deficiency"
            if width == 1 and phrase in defined:
                entity_id = defined[phrase]
                return (1, entity_id, (), "alone") if entity_id else None
            short_form = defined.get(tokens[position].group(0))
            if (
                short_form
                and width > 1
                and all(
                    t.group(0).casefold() in _KIND_WORDS
                    for t in tokens[position + 1 : position + width]
                )
            ):  # "ED syndromes" after "ectodermal dysplasias (EDs)"
                return width, short_form, (), "alone"
            if (
                width == 1
                and phrase in _INHERITANCE
                and _later_cell(text, start, end)
                and sentences.row_names(start, _DISEASE_TYPE)
            ):
                return None  # "| THAP1 | DYT6 | AD |": the disease named, then its inheritance
            if width == 1 and len(phrase) <= 2 and not phrase.isupper():
                continue
            # a one-letter name ("B", a PPIB alias) is no evidence: "Kufs type B" names no gene
            found = [e for e in index.lookup(phrase) if len(e.matched) > 1]
            eponym = not found and width == 1 and _bare_eponym(text, start, end)
            if eponym:  # "Hurler, Scheie", "Angelman cases": "<eponym> syndrome/disease"
                found = index.lookup(phrase, node_types=_DISEASE_TYPE, bare_eponyms=True)
            if width == 1 and phrase.istitle() and phrase.isalpha():
                # a disease's acronym is written in capitals: "Canvas" is no CANVAS (a name
                # in capitals, OMIM's "KURU", is still the name)
                found = [
                    e
                    for e in found
                    if not (
                        e.type in _CLINICAL_TYPES
                        and e.matched.isupper()
                        and e.matched.isalpha()
                        and e.matched != e.name
                    )
                ]
            if width == 1 and phrase.islower():  # "binds" is not the acronym BIND
                found = [e for e in found if not e.matched.isupper()]
            if width == 1 and len(phrase) == 2:
                # two capitals are initials ("SB will present") unless a name lists them:
                # spelling a name's initials is no evidence at this length
                found = [e for e in found if e.match != "acronym"]
            last = tokens[position + width - 1].group(0)
            if width > 1 and len(last) <= 2 and last.islower():
                # "PMM2-CDG is inherited": "is" is the verb, not the subtype code of "CDG Is"
                found = [e for e in found if _last_word(e.matched) != last.capitalize()]
            if "," in phrase:  # a list ("myoclonus, dystonia") is not a name without comma
                found = [e for e in found if self._comma_name(phrase, e.id)]
            if listed and width > 2 and "," not in phrase and _AND_OR.search(phrase):
                continue  # "dementia, myoclonus and ataxia": the end of a list, not one name
            if (
                width > 2
                and _RELATION_OF.search(phrase)
                and _INDEFINITE.search(text, max(0, start - 4), start)
            ):
                # "is a task-specific form of focal dystonia" relates two names, unless one
                # name says so word for word ("the parkinsonian variant of MSA" names one)
                found = [e for e in found if e.match == "name"]
            if not found:
                continue
            following = tokens[position + width].group(0) if position + width < len(tokens) else ""
            genes = [e for e in found if e.type in _GENE_TYPES]
            if (
                genes
                and len(genes) < len(found)
                and all(e.matched != e.name for e in genes)
                and any(e.name in sentences.words(start) for e in genes)
                and not _GENE_KIND.fullmatch(following)
            ):  # "ALS19 … ERBB4 variants": the gene has its symbol here, the alias is the
                # disease (not in "the PARK5 locus was assigned to UCHL1")
                found = [e for e in found if e.type not in _GENE_TYPES]
            words, before = _cue_window(text, tokens, position, width)
            chosen = _in_context(phrase, width, found, words, before)
            if chosen is not None and (eponym or _bare_abbreviation(phrase, chosen)):
                # "PD", "TBP", "ALS", "MOMP" undefined in the text: a cue for the entity's
                # kind in the sentence ("TBP was added as a plasticiser" has none)
                cue = (
                    _GENE_CUE
                    if chosen.type in _GENE_TYPES
                    else _PROCESS_CUE
                    if chosen.type == "go_term"
                    else _DISEASE_CUE
                )
                # in a table row, a KG name in an earlier cell is the cue ("| SOD1 | ALS |
                # 12 % |", "| Dejerine-Sottas neuropathy | PRX |", "| Netrin-1 | DCC |")
                if not (
                    sentences.row_names(start, _KG_TYPES)
                    or (chosen.type in _GENE_TYPES and _GENE_KIND.fullmatch(following))
                    # named by the gene behind it: "RPE65-associated LCA"
                    or (before > 0 and _NAMED_BY_GENE.fullmatch(words[before - 1]) is not None)
                    or (
                        chosen.type in _CLINICAL_TYPES
                        and _CONCLUDED.search(text, max(0, start - 20), start) is not None
                        and _CONCLUSION_END.match(text, end) is not None
                    )
                ):
                    # no cue word: kept only if a name of the sentence is its KG neighbour
                    # ("gaze palsy and early backward falls pointed to PSP"); a cue word
                    # alone ("patients", "gene") also needs the sentence to read like the
                    # KG's context of the entity
                    return width, chosen.id, (), "cue" if sentences.has(start, cue) else "bare"
            if chosen is None:
                return None
            others = {e.type: e.id for e in reversed(found) if e.type != chosen.type}
            # other records of a disease the words name as well as the chosen one
            # ("Creutzfeldt-Jakob disease": an OMIM, an Orphanet and a MONDO node): the
            # verifier may take the one the KG relates to the claim's other entity (genes
            # sharing a symbol are different genes, not records of one)
            equal = [
                e.id
                for e in found
                if e.id != chosen.id
                and chosen.type in _DISEASE_TYPE
                and (e.type, e.match, e.score) == (chosen.type, chosen.match, chosen.score)
            ]
            return width, chosen.id, (*others.values(), *equal), "alone"
        return None

    def _widened(self, text: str, named: list[EntityMention], taken: Spans) -> list[EntityMention]:
        """Disease, phenotype and GO-term mentions widened to the longer name they are part
        of ("Charcot-Marie-Tooth disease" in "Charcot-Marie-Tooth disease type 2EE",
        "paraplegia" in "spastic paraplegia, nephritis and deafness syndrome"): the widest
        run of up to ``WIDEN_BEFORE`` words before and ``WIDEN_AFTER`` after, joined by
        spaces, commas or dashes only, that is close to a name of an entity of the same type
        holding the added words (:meth:`EntityIndex.closest_name`). Mentions inside the
        wider span give way to it."""
        assert self.index is not None
        tokens = list(_TOKEN.finditer(text))
        first_of = {t.start(): i for i, t in enumerate(tokens)}
        last_of = {t.end(): i for i, t in enumerate(tokens)}
        widened: list[EntityMention] = []
        for mention in named:
            check_deadline()
            if widened and mention.start < widened[-1].end:
                continue  # inside the span a mention before it was widened to
            node_type = self.index.type_of(mention.id)
            first, last = first_of.get(mention.start), last_of.get(mention.end)
            if node_type not in _WIDENED_TYPES or first is None or last is None:
                widened.append(mention)
                continue
            wider = self._wider(text, tokens, first, last, mention.id, taken, named)
            if wider is None:
                widened.append(mention)
                continue
            start, end, entity = wider
            while widened and widened[-1].end > start:
                widened.pop()  # a mention in the words added before
            widened.append(
                EntityMention(
                    text=text[start:end], start=start, end=end, id=entity.id,
                    kind="dictionary", in_kg=True,
                )
            )  # fmt: skip
        return widened

    def _wider(
        self,
        text: str,
        tokens: list[re.Match[str]],
        first: int,
        last: int,
        entity_id: str,
        taken: Spans,
        named: list[EntityMention],
    ) -> tuple[int, int, LinkedEntity] | None:
        """The widest span around tokens ``first``…``last`` naming another entity (see
        :meth:`_widened`): its start, end and entity. The span starts and ends on a content
        word, holds no gene or protein mention and no identifier, cuts no other mention in
        two ("paroxysmal choreoathetosis with episodic" cuts "episodic ataxia"), neither
        starts nor ends with another mention (a list: "FTD and ALS", "dystonia, tremor"), and
        a span with "and" or "or" is a coordination unless the name holds all its words
        ("focal and segmental dystonias" are two). An abbreviation is tried as written, then
        spelt out as the KG names its entity ("Central CH": "central congenital hypothyroidism")."""
        assert self.index is not None
        index = self.index
        node_type = index.type_of(entity_id)
        fixed = [(m.start, m.end) for m in named if index.type_of(m.id) not in _WIDENED_TYPES]

        def joined(left: int, right: int) -> bool:
            gap = text[tokens[left].end() : tokens[right].start()]
            start, end = tokens[left].start(), tokens[right].end()
            return (
                bool(_WORD_JOIN.fullmatch(gap))
                # ", a 7q11.23 microdeletion" is an apposition, not more of the name
                and not ("," in gap and _ARTICLE.fullmatch(tokens[right].group(0)))
                and not taken.overlaps(start, end)
                and not any(s < end and e > start for s, e in fixed)
            )

        own = (tokens[first].start(), tokens[last].end())
        own_text = text[own[0] : own[1]]
        spelt_out = index.names(entity_id)[0]
        anchors = [own_text]
        if _ABBREVIATION.fullmatch(own_text) and spelt_out.casefold() != own_text.casefold():
            anchors.append(spelt_out)
        own_words = {"and", "or"} | {t.group(0).casefold() for t in tokens[first : last + 1]}
        others = [(m.start, m.end) for m in named if (m.start, m.end) != own]

        def whole(start: int, end: int) -> bool:
            # every other mention outside the span or strictly inside it (not at an edge)
            return all(e <= start or s >= end or (start < s and e < end) for s, e in others)

        def named_word(position: int) -> bool:  # every added word must be in the name
            return index.in_some_name(tokens[position].group(0))

        def relation_noun(position: int) -> bool:  # "a task-specific form of | dystonia"
            return (
                position > 0
                and tokens[position].group(0).casefold() == "of"
                and tokens[position - 1].group(0).casefold() in _RELATION_NOUNS
            )

        low = first
        while (
            low > 0
            and first - low < WIDEN_BEFORE
            and joined(low - 1, low)
            and named_word(low - 1)
            and not relation_noun(low - 1)
        ):
            low -= 1
        high = last
        while (
            high + 1 < len(tokens)
            and high - last < WIDEN_AFTER
            and joined(high, high + 1)
            and named_word(high + 1)
        ):
            high += 1
        spans = sorted(
            ((a, b) for a in range(low, first + 1) for b in range(last, high + 1)),
            key=lambda span: span[0] - span[1],
        )
        for a, b in spans:
            start, end = tokens[a].start(), tokens[b].end()
            # a name may end on "type" ("…, cblG type"), not start on it
            edges = {tokens[a].group(0).casefold(), tokens[b].group(0).casefold()} - (
                {"type"} if b > a and tokens[a].group(0).casefold() != "type" else set()
            )
            if (
                (a, b) == (first, last)
                or edges & _NOT_NAME_EDGES
                or tokens[a].group(0).casefold() in _NOT_NAME_STARTS
                or not whole(start, end)
            ):
                continue
            words = [t.group(0) for t in tokens[a : b + 1]]
            added = [t.group(0) for t in (*tokens[a:first], *tokens[last + 1 : b + 1])]
            coordinated = any(w.casefold() in ("and", "or") for w in words)
            if all(w.casefold() in own_words for w in added):
                continue  # nothing new: "walk, and | inability to walk"
            for anchor in anchors:
                entity = index.closest_name(
                    text[start : own[0]] + anchor + text[own[1] : end],
                    node_type,
                    required=words if coordinated else added,
                    anchor=anchor,
                )
                if entity is not None:
                    return start, end, entity
        return None

    def _comma_name(self, phrase: str, entity_id: str) -> bool:
        """Whether ``phrase``, which holds a comma, is one of the entity's names written with
        commas ("Cockayne syndrome, type B"), up to case, spacing and where the commas are
        ("Hypotonia, ataxia, and delayed development syndrome"), or with its head abbreviated
        ("EDS, kyphoscoliotic type 2": "Ehlers-Danlos syndrome, kyphoscoliotic type, 2")."""
        if self.store is None:
            return True
        node = self.store.get_node(entity_id)
        wanted = _without_commas(phrase)
        short, _, rest = phrase.partition(",")
        short = short.strip()
        for name in (node.name, *node.synonyms):
            if "," not in name:
                continue
            if _without_commas(name) == wanted:
                return True
            head, _, tail = name.partition(",")
            if (
                short.isupper()
                and abbreviates(short, head)
                and _without_commas(tail) == _without_commas(rest)
            ):
                return True
        return False

    @staticmethod
    def _definitions(
        text: str, tokens: list[re.Match[str]], index: EntityIndex
    ) -> dict[str, str | None]:
        """Short forms the text defines, "Parkinson disease (PD)", → the entity their long
        form names, or None when it names none ("peritoneal dialysis (PD)"). The long form is
        the shortest run of words from the short form's first letter that holds its letters
        in order; where that is one word (the letters of "MCPH" are all in "microcephaly"),
        the widest KG name right before the bracket that holds them ("Autosomal recessive
        primary microcephaly (MCPH)")."""
        defined: dict[str, str | None] = {}
        starts = [t.start() for t in tokens]
        for match in _DEFINITION.finditer(text):
            short = match.group(1)
            before = bisect_left(starts, match.start())
            runs = [
                tokens[before - count : before]
                for count in range(1, min(before, len(short) + 5) + 1)
            ]
            runs = [run for run in runs if _spells(short, [t.group(0) for t in run])]
            initial = next(
                (run for run in runs if run[0].group(0)[:1].casefold() == short[:1].casefold()),
                None,
            )
            if initial is not None and len(initial) == 1:
                wider = (
                    [e for e in index.lookup(_run_text(text, run)) if e.match not in _LOOSE_MATCHES]
                    for run in reversed(runs)
                    if len(run) > 1
                )
                named = next((found for found in wider if found), None)
                if named:
                    defined.setdefault(short, named[0].id)
            if initial is not None:
                found = index.lookup(_run_text(text, initial))
                defined.setdefault(short, found[0].id if found else None)
                if short.endswith("s") and short[:-1].isupper():  # "EDs": "ED" too
                    defined.setdefault(short[:-1], defined[short])
        return defined


class _Sentences:
    """The sentences of a text (ends at . ! ? before a space, or a newline), each searched
    for a cue at most once per cue."""

    _END = re.compile(r"[.!?](?=\s)|\n")

    def __init__(self, text: str) -> None:
        self.text = text
        self._ends = [m.end() for m in self._END.finditer(text)] + [len(text)]
        self._found: dict[tuple[int, str], bool] = {}
        self._words: dict[int, frozenset[str]] = {}
        #: the node types named so far in each sentence that is a table row
        self._row_types: dict[int, set[str]] = {}

    def named(self, position: int, node_type: str) -> None:
        """Note an entity of ``node_type`` named at ``position`` (kept for table rows)."""
        number = bisect_left(self._ends, position + 1)
        start = self._ends[number - 1] if number else 0
        if "|" in self.text[start : self._ends[number]]:
            self._row_types.setdefault(number, set()).add(node_type)

    def number(self, position: int) -> int:
        """The number of the sentence holding ``position``."""
        return bisect_left(self._ends, position + 1)

    def row_names(self, position: int, node_types: frozenset[str]) -> bool:
        """Whether the table row holding ``position`` named an entity of these types before."""
        return bool(self._row_types.get(bisect_left(self._ends, position + 1), set()) & node_types)

    def words(self, position: int) -> frozenset[str]:
        """The words of the sentence holding ``position``."""
        number = bisect_left(self._ends, position + 1)
        if number not in self._words:
            start = self._ends[number - 1] if number else 0
            self._words[number] = frozenset(_TOKEN.findall(self.text[start : self._ends[number]]))
        return self._words[number]

    def around(self, start: int, end: int) -> str:
        """The sentence holding ``start:end`` without those characters."""
        number = bisect_left(self._ends, start + 1)
        first = self._ends[number - 1] if number else 0
        last = self._ends[bisect_left(self._ends, end)]
        return (self.text[first:start] + self.text[end:last]).strip()

    def has(self, position: int, cue: re.Pattern[str]) -> bool:
        """Whether the sentence holding ``position`` has a word matching ``cue``."""
        number = bisect_left(self._ends, position + 1)
        key = (number, cue.pattern)
        if key not in self._found:
            start = self._ends[number - 1] if number else 0
            words = _TOKEN.findall(self.text[start : self._ends[number]])
            self._found[key] = any(cue.fullmatch(word) for word in words)
        return self._found[key]


def _run_text(text: str, run: Sequence[re.Match[str]]) -> str:
    """The text from a run of tokens' first to its last."""
    return text[run[0].start() : run[-1].end()]


def _last_word(name: str) -> str:
    """A name's last word as written ("Is" of "CDG Is")."""
    words = re.findall(r"[^\W_]+", name)
    return words[-1] if words else ""


def _inside(mention: EntityMention, outer: EntityMention) -> bool:
    """Whether ``mention`` lies within ``outer`` and is shorter."""
    return (
        outer.start <= mention.start
        and mention.end <= outer.end
        and (outer.end - outer.start > mention.end - mention.start)
    )


#: The id prefix of the outside term each head noun ends.
_HEAD_PREFIXES = {
    **dict.fromkeys(_FINDING_HEADS, "phenotype:"),
    **dict.fromkeys(_PROCESS_HEADS, "other:"),
    **dict.fromkeys(_PROCEDURE_HEADS, PROCEDURE_PREFIX),
}


def _describes(token: re.Match[str], procedure: bool) -> bool:
    """Whether ``token`` describes the head noun after it: a lower-case word of four letters
    or more that says what kind (a ``procedure``'s may be capitalised: "Carrier testing",
    "Sanger sequencing")."""
    word = token.group(0)
    if procedure and word[:1].isupper() and word[1:].islower():
        word = word.casefold()
    return bool(_DESCRIBING.fullmatch(word)) and word not in _NOT_DESCRIBING


def _findings(text: str, taken: Spans) -> list[EntityMention]:
    """Clinical findings, therapies, processes, tests and procedures no vocabulary names, on
    text no mention holds: one or two describing words before a finding's head noun ("speech
    disturbance", "psychiatric symptoms"), a therapy's or a process's ("antisense therapy",
    "retromer pathway", "pallidal iron deposition") or a test's ("muscle biopsy", "newborn
    screening"). The KG lacks them, so a claim about one is unverifiable."""
    tokens = list(_TOKEN.finditer(text))
    found: list[EntityMention] = []
    for position, token in enumerate(tokens):
        head = token.group(0)
        prefix = _HEAD_PREFIXES.get(head if head.isupper() else head.casefold())
        procedure = prefix == PROCEDURE_PREFIX
        if prefix is None or (head[0].isupper() and not procedure):
            continue
        first = position
        while first > 0 and position - first < 2 and _describes(tokens[first - 1], procedure):
            if text[tokens[first - 1].end() : tokens[first].start()] != " ":
                break
            first -= 1
        start, end = tokens[first].start(), token.end()
        alone = first == position and head.casefold() not in _PROCEDURES_ALONE
        if alone or taken.overlaps(start, end):
            continue
        phrase = text[start:end]
        found.append(
            EntityMention(
                text=phrase, start=start, end=end,
                id=f"{prefix}{phrase.casefold()}",
                kind="vocabulary", in_kg=False,
            )
        )  # fmt: skip
    return found


#: A noun after a chemical's name that makes both the name of a protein or a function
#: ("tyrosine kinase", "dopamine receptor activity", "GABA transporter").
_PROTEIN_HEAD = re.compile(
    r"[ -](?:receptors?|kinases?|transporters?|channels?|synthases?|hydroxylases?|"
    r"decarboxylases?|oxidases?|dehydrogenases?|phosphatases?|transferases?|carriers?|"
    r"exchangers?|pumps?)\b",
    re.IGNORECASE,
)
#: Single words the vocabularies file as a disease or a phenotype that, before another word,
#: only qualify it ("hereditary", "congenital") or name no entity ("syndromes").
_NOT_ALONE = re.compile(r"(?i)[a-z]+(?:al|ary|ic|ous|ive|born)|syndromes?|disorders?|diseases?")
_WORD_AFTER = re.compile(r"[ -]+[A-Za-z]")
_ARTICLE = re.compile(r"(?i)an?|the")
#: What stands between a gene and the bracket of a gloss on it: "APTX variants (".
_BEFORE_GLOSS = re.compile(r"[^().;]{0,40}\(\s*")
_AFTER_GLOSS = re.compile(r"\s*\)")
#: A systematic chemical name: locants, then a substituent ("7,8-dihydroxyflavone").
_CHEMICAL_NAME = re.compile(
    r"\d+['′]?(?:,\d+['′]?)*-(?:di|tri|tetra|penta)?(?:hydroxy|methoxy|methyl|ethyl|propyl|"
    r"amino|chloro|fluoro|bromo|iodo|nitro|oxo|hydro|deoxy|phenyl|benzyl|acetyl|carboxy|"
    r"keto|thio|cyano)[a-z0-9,()\-]*"
)
#: A compound's development code: "LY2886721", "MK-0752", "GSK2606414".
_COMPOUND_CODE = re.compile(r"[A-Z]{2,3}-?\d{3,7}[A-Z]?")
#: A drug named by its international nonproprietary name's stem (WHO INN stems: monoclonal
#: antibodies, kinase inhibitors, antisense and siRNA drugs, enzyme replacements, …), which
#: new drugs have before any vocabulary lists them ("dupilumab", "pegvaliase", "tofersen").
_DRUG_STEM = re.compile(
    r"\b[A-Za-z][a-z]+(?:mab|tinib|ciclib|parib|rafenib|degib|lisib|vaptan|gliflozin|"
    r"gliptin|glutide|sartan|prazole|setron|rsen|siran|olimus|glustat|valiase|glucerase|"
    r"lucosidase|gene\s+\w+vec)\b"
    r"|\b[a-z]{4,}ase\s+alfa\b"
)
#: A compound named after its class: "the γ-secretase inhibitor DAPT", "the mTOR inhibitor
#: Torin 1", "the TrkB agonist 7,8-DHF".
_NAMED_BY_CLASS = re.compile(
    r"\b(?:inhibitor|agonist|antagonist|blocker|activator|chelator|modulator|analogue|analog)"
    r"\s+((?:[A-Z][A-Za-z0-9,\-]*|\d[\w,\-]*[A-Za-z][\w,\-]*)(?:\s\d+)?)"
)


def _compounds(text: str, taken: Spans) -> list[EntityMention]:
    """Drugs and chemicals no vocabulary names, on text no mention holds: systematic names,
    development codes, names with a drug stem ("dupilumab") and a name after its class ("the
    γ-secretase inhibitor DAPT"). The KG holds no compounds, so a claim about one is
    unverifiable, not about its other mentions."""
    spans: list[tuple[int, int]] = []
    for pattern in (_CHEMICAL_NAME, _COMPOUND_CODE, _DRUG_STEM):
        for match in pattern.finditer(text):
            before = text[match.start() - 1] if match.start() else " "
            after = text[match.end()] if match.end() < len(text) else " "
            if not (before.isalnum() or before in "-_") and not (after.isalnum() or after == "_"):
                spans.append(match.span())
    spans.extend(match.span(1) for match in _NAMED_BY_CLASS.finditer(text))
    found: list[EntityMention] = []
    for start, end in sorted(set(spans)):  # by start: only the last one kept can overlap
        if taken.overlaps(start, end) or (found and start < found[-1].end):
            continue
        phrase = text[start:end]
        found.append(
            EntityMention(
                text=phrase, start=start, end=end, id=f"chemical:{phrase.casefold()}",
                kind="vocabulary", in_kg=False,
            )
        )  # fmt: skip
    return found


def _later_cell(text: str, start: int, end: int) -> bool:
    """Whether ``text[start:end]`` fills a cell on its own, not the first, of a table row of
    three or more cells ("| THAP1 | DYT6 | AD |": a column of inheritance modes)."""
    line_start = text.rfind("\n", 0, start) + 1
    line_end = text.find("\n", end) % (len(text) + 1)
    left, right = text.rfind("|", line_start, start), text.find("|", end, line_end)
    if left < 0 or right < 0 or text[left + 1 : start].strip() or text[end:right].strip():
        return False
    cells = [cell for cell in text[line_start:line_end].split("|") if cell.strip()]
    return len(cells) >= 3 and bool(text[line_start:left].strip(" |"))


def _without_commas(text: str) -> str:
    return " ".join(text.casefold().replace(",", " ").split())


def _bare_eponym(text: str, start: int, end: int) -> bool:
    """Whether the capitalised word at ``start:end`` may be a disease's eponym without its
    noun ("Hurler, Scheie and the intermediate form", "Angelman cases"): not a person's name
    ("Dr Hurler", "described by Pompe") nor the eponym of a sign, test, cell or scale
    ("Romberg sign", "Gowers manoeuvre", "Purkinje cells")."""
    word = text[start:end]
    return (
        word[:1].isupper()
        and word.isalpha()
        and len(word) >= 4
        and not word.isupper()
        and text[end : end + 1] not in _DASHES
        and text[start - 1 : start] not in _DASHES  # one of several: "Hurler–Scheie"
        and word.casefold() in eponym_words()
        and word.casefold() not in common_words()
        and _PERSON_BEFORE.search(text, max(0, start - 12), start) is None
        and _EPONYM_OF_OTHER.match(text, end) is None
    )


#: What ends the words searched for a cue: a semicolon, a colon or a full stop between
#: clauses ("pointed to PKAN; PANK2 sequencing was positive": no cue for a gene).
_CUE_STOP = re.compile(r"[;:]|\.\s")


def _cue_window(
    text: str, tokens: Sequence[re.Match[str]], position: int, width: int
) -> tuple[list[str], int]:
    """The words up to :data:`CUE_WINDOW` either side of the phrase at ``tokens[position :
    position + width]``, within its clause; and how many of them come before it."""
    before: list[str] = []
    at = position
    while at > 0 and len(before) < CUE_WINDOW:
        if _CUE_STOP.search(text, tokens[at - 1].end(), tokens[at].start()):
            break
        at -= 1
        before.insert(0, tokens[at].group(0))
    after: list[str] = []
    at = position + width - 1
    while at + 1 < len(tokens) and len(after) < CUE_WINDOW:
        if _CUE_STOP.search(text, tokens[at].end(), tokens[at + 1].start()):
            break
        at += 1
        after.append(tokens[at].group(0))
    return before + after, len(before)


def _bare_abbreviation(phrase: str, entity: LinkedEntity) -> bool:
    """Capitals only, no digit, and short: two or three letters ("TBP", "APP"), or four that
    are not the entity's own name ("PD", "ALS" as disease acronyms; "SNCA" is SNCA's name);
    in the plural too ("HSPs", and "DCs", "NPCs" for cells)."""
    if phrase.endswith("s") and phrase[:-1].isupper():
        phrase = phrase[:-1]
    if not (phrase.isalpha() and phrase.isupper()):
        return False
    return 2 <= len(phrase) <= 3 or (len(phrase) == 4 and entity.matched != entity.name)


def _spells(short: str, words: list[str]) -> bool:
    """Whether the short form's letters occur in order among the words' letters."""
    letters = iter("".join(words).casefold())
    return all(character in letters for character in short.casefold() if character.isalnum())


def _in_context(
    phrase: str, width: int, found: list[LinkedEntity], nearby: list[str], before: int
) -> LinkedEntity | None:
    """The entity a matched phrase stands for here, or None when the context says it is not an
    entity: an everyday word ("SET", "falls", "fusion") needs a cue for its entity's kind
    nearby, a nucleotide triplet before "repeat" is a sequence, and a string that names both
    a gene (by an alias) and a disease ("SCA2") is read by the cues, else as the disease. An
    upper-case word is no entity before a decimal number (a statistic: "SD 6.2", "CI 1.2-3.4")
    or, for an inheritance mode's abbreviation, next to words about inheritance ("AD
    transmission"). ``nearby[:before]`` are the words before the phrase."""
    gene_cue = any(_GENE_CUE.fullmatch(w) for w in nearby)
    clinical_cue = any(_DISEASE_CUE.fullmatch(w) for w in nearby)
    best = found[0]
    if width == 1 and phrase.isupper() and phrase.isalpha():
        if phrase in _INHERITANCE and any(_INHERITANCE_CUE.fullmatch(w) for w in nearby):
            return None  # "AD transmission", "AR inheritance"
        if any(_DECIMAL.fullmatch(w) for w in nearby[before:][:2]):
            return None  # a statistic: "(SD 6.2)", "95% CI 1.2-3.4", "an MAE of 4.1"
        if phrase.casefold() in _FUNCTION_WORDS and not any(
            _GENE_KIND.fullmatch(w) for w in nearby[before:][:1]
        ):
            found = [e for e in found if e.type not in _GENE_TYPES]  # "but NOT reported"
            if not found:
                return None
            best = found[0]

    if _NUCLEOTIDES.fullmatch(phrase) and any(_REPEAT_CUE.fullmatch(w) for w in nearby):
        return None
    if width == 1 and _DOMAIN.fullmatch(next(iter(nearby[before:]), "")):
        # a kind of domain, not the gene spelt the same: "three TPR motifs", "a BAR domain"
        found = [e for e in found if e.type not in _GENE_TYPES]
        if not found:
            return None
        best = found[0]
    if width == 1 and phrase.casefold() in common_words():
        if best.type in _GENE_TYPES and not gene_cue:
            return None
        if best.type == "go_term":
            return None
        if best.type in _CLINICAL_TYPES and not clinical_cue:  # "falls under", "SET"
            return None
    genes = [e for e in found if e.type in _GENE_TYPES]
    clinical = [e for e in found if e.type in _CLINICAL_TYPES]
    if genes and clinical:
        if _GENE_KIND.fullmatch(next(iter(nearby[before:]), "")):
            return genes[0]  # its kind right after it: "the XPD helicase"
        if gene_cue != clinical_cue:
            return (genes if gene_cue else clinical)[0]
        by_alias = all(e.matched != e.name for e in genes)
        return (clinical if by_alias else genes)[0]
    return best


#: What a name is compared with or mistaken for is not what the sentence is about: "the
#: C9orf72 phenocopy of HD presents with chorea" says nothing about HD.
_COMPARED = re.compile(
    r"\b(?:phenocop(?:y|ies)|mimic(?:s|ker|kers)?|look-?alikes?)\s+of\s+(?:the\s+)?$|"
    r"\b(?:mimicking|resembling)\s+(?:the\s+)?$|"
    # what it is mistaken for: "can lead to a mistaken diagnosis of neuropathy"
    r"\b(?:mistaken\s+diagnos[ie]s\s+of|misdiagnos(?:is|es)\s+of|misdiagnosed\s+as|"
    r"mistaken\s+for|confused\s+with|misclassified\s+as)\s+(?:the\s+|an?\s+)?$",
    re.IGNORECASE,
)


#: Before a disease's name: a qualified form of it ("the infantile-onset form of …").
_FORM_OF = re.compile(
    r"\b(?:the|its|their|an?)\s+(?P<qualifier>(?:[\w-]+\s+){0,2}?[\w-]+)\s+forms?\s+of\s+"
    r"(?:the\s+)?$",
    re.IGNORECASE,
)
_DIGIT = re.compile(r"\d")
#: How a lookup may match that does not make a run of words a name.
_LOOSE_MATCHES = frozenset({"acronym", "fuzzy"})
#: A short form written in capitals: "EDS", "CMT1A", "PD" (at most ten characters).
_ABBREVIATION = re.compile(r"[A-Z][A-Za-z0-9]{0,2}[A-Z][A-Za-z0-9-]{0,6}")
_ABBREVIATION_CHARS = 10
#: A finding said after a copula: "ankle reflexes were absent", "tone was increased".
_PREDICATIVE = re.compile(
    r"(?P<subject>(?<![\w-])(?:[A-Za-z-]+\s+){0,3}[A-Za-z-]+)\s+(?:was|were|is|are)\s+"
    r"(?:(?:also|all|both|markedly|mildly|slightly|very|clearly|symmetrically|bilaterally)\s+)?"
    r"(?P<state>reduced|decreased|diminished|depressed|absent|brisk|increased|exaggerated|"
    r"extensor|impaired|lost)\b",
    re.IGNORECASE,
)
#: Words that turn a GO term into its opposite: never left out of a shortened name.
_POLARITY = frozenset({"positive", "negative"})
#: Between two items of a coordination: ", ", " and ", ", or ", "/".
_COORDINATION = re.compile(r"(?:\s*,\s*(?:(?:and|or)\s+)?|\s+(?:and|or)\s+|/)")
#: What a coordination ellipsis leaves of a name: one word or a subtype code ("8", "1B").
_ELLIPTIC_ITEM = re.compile(r"(?:[A-Za-z][A-Za-z-]*[a-z]|\d{1,2}[A-Z]?|[IVX]{1,4}[A-Z]?)\b(?!-)")
_CODE = re.compile(r"\d{1,2}[A-Z]?|[IVX]{1,4}[A-Z]?")
#: A name's subtype code at its end: "Parkinson disease 4", "SCA1", "CMT1A".
_CODE_AT_END = re.compile(r"(?<=[A-Za-z ])(?:\d{1,2}[A-Z]?|(?<= )[IVX]{1,4}[A-Z]?)$")
#: A subtype or a form without its disease's name: "type 2", "the severe congenital form".
_ELIDED_FORM = re.compile(
    r"\b(?P<kind>types?|subtypes?)\s+(?P<code>\d{1,2}[A-Z]?|[IVX]{1,4}[A-Z]?)\b"
    # not the code of a name that goes on ("type 2 diabetes"): a clause or a list goes on
    r"(?=\s*(?:[,.;:)]|$|(?:and|or|is|are|was|were|has|have|had|can|may|in|with|of|by|as|"
    r"but|whereas|while|which|that|involves?|gives?|causes?|presents?|shows?|patients?|"
    r"cases?|forms?)\b))"
    r"|\b(?:(?:the|its|their)\s+(?P<qualifier>(?:[\w-]+\s+){0,2}?[\w-]+)\s+forms?"
    r"|(?P<plural>[\w-]+)\s+forms)\b(?!\s+of\b)",
)
#: A subtype's code at the end of a disease's name.
_TYPE_CODE_AT_END = re.compile(r"(?i)(?:^|[\s,]+)type\s+\S+$")
#: A disease named again by its kind: "the syndrome", "this disorder".
_DEFINITE_DISEASE = re.compile(
    r"\b(?:the|this)\s+(?:syndrome|disorder|disease|condition)\b", re.IGNORECASE
)
#: What joins two items of a list: "Lowe syndrome and Joubert syndrome".
_LISTED = re.compile(r"\s*(?:,\s*)?(?:and|or|/|&|,)\s*", re.IGNORECASE)
#: A claim that opens on a pronoun: "It is not classed as …", "Its chorea …".
_OPENING_PRONOUN = re.compile(r"\s*(?:[-*]\s+)?(It|Its)\b")
#: A gene or protein named again by its kind: "the receptor", "this gene", "the mutant
#: protein" — not before its name ("the receptor CXCR4") or a word that makes it another
#: thing ("the gene product", "the receptor family").
_DEFINITE_GENE = re.compile(
    r"\b(?:the|this)\s+(?:mutant\s+|mutated\s+)?(?:gene|protein|receptor|enzyme|channel|"
    r"kinase|transporter)\b(?!\s+(?:(?-i:[A-Z0-9α-ω])|family|product|superfamily|complex|of\b))",
    re.IGNORECASE,
)
#: Words before "form of" that qualify no record: "the same form of", "a common form of".
_NO_FORM_QUALIFIERS = frozenset(
    {"same", "other", "common", "commonest", "most", "rare", "rarest", "main", "usual", "typical",
     "classic", "classical", "new", "distinct", "particular", "specific", "different"}
)  # fmt: skip
#: Contexts where the words of a KG name mean something else, as (what the mention looks like,
#: the text right before it, the text right after it, the KG types it is not then); a
#: pattern left None matches anything.
_OTHER_SENSES: tuple[
    tuple[re.Pattern[str] | None, re.Pattern[str] | None, re.Pattern[str] | None, frozenset[str]],
    ...,
] = tuple(
    (
        None if shape is None else re.compile(shape),
        None if before is None else re.compile(before, re.IGNORECASE),
        None if after is None else re.compile(after, re.IGNORECASE),
        frozenset(types),
    )
    for shape, before, after, types in (
        # a figure: "shown in FIG4 (panel B)"
        (r"FIG\.?\s?\d+[A-Za-z]?", r"\b(?:shown in|see|in|from)\s+$", None, _GENE_TYPES),
        (r"FIG\.?\s?\d+[A-Za-z]?", None, r"^\s*\(?\s*panels?\b", _GENE_TYPES),
        # a quantity or a statistic: "tau was 12 ms", "the TAT was 5 days", "Kendall's tau",
        # "mean ± SD", a "PLS regression"
        (
            None,
            None,
            r"^\s*(?:was|were|is|=|:)\s*[-+]?\d+(?:\.\d+)?\s*"
            r"(?:ms|s|min|h|%|mV|Hz|nm|µm|days?|weeks?|months?|years?)\b",
            _GENE_TYPES | _CLINICAL_TYPES,
        ),
        (r"[A-Z]{2,4}", r"±\s*$", None, _GENE_TYPES | _CLINICAL_TYPES),
        (r"[A-Z]{2,5}", None, r"^[\s-]*regressions?\b", _GENE_TYPES | _CLINICAL_TYPES),
        (
            None,
            r"\b(?:Kendall|Spearman|Cronbach|Cohen|Fleiss|Pearson)['’]s\s+$",
            None,
            _GENE_TYPES | _CLINICAL_TYPES,
        ),
        # an enzyme class of the ubiquitin cascade: "an E3 ubiquitin ligase", "an E2 enzyme"
        # (not the genes with those old aliases, DLD and DLAT)
        (
            r"E[123]",
            None,
            r"^\s*(?:ubiquitin|ligases?|(?:ubiquitin-)?conjugating|activating|enzymes?)\b",
            _GENE_TYPES,
        ),
        # an animal's developmental stage: "P0 mouse pups", "E14.5 embryos"
        (
            r"[PE]\d{1,2}(?:\.5)?",
            None,
            r"^\s*(?:mouse|mice|rat|rats|pups?|embryos?|animals|littermates|cultures)\b",
            _GENE_TYPES,
        ),
        # the heart's wall motion: "apical akinesia", "septal hypokinesia"
        (
            r"(?i)(?:hypo|a|dys)kinesi[as]",
            r"\b(?:apical|septal|anterior|inferior|lateral|"
            r"posterior|regional|segmental|basal|global|wall)\s+(?:wall\s+)?$",
            None,
            _CLINICAL_TYPES,
        ),
        (
            r"(?i)(?:hypo|a|dys)kinesi[as]",
            None,
            r"^\s*of\s+the\s+(?:\w+\s+)?(?:apical|septal|anterior|inferior|lateral|posterior|"
            r"inferolateral|anterolateral|basal)\b",
            _CLINICAL_TYPES,
        ),
        # an organ's motility: "biliary dyskinesia", "oesophageal dyskinesia"
        (
            r"(?i)dyskinesias?",
            r"\b(?:biliary|gallbladder|oesophageal|esophageal|gastric|sphincter|ciliary)\s+$",
            None,
            _CLINICAL_TYPES,
        ),
        # a kind of cell: "Alzheimer type II astrocytes", "type 2 fibres"
        (
            r"(?i).*\btype\s+\S+",
            None,
            r"^\s*(?:astrocytes?|cells?|neurons?|fib(?:re|er)s?|glia)\b",
            _CLINICAL_TYPES,
        ),
        # a marker of cells: "FAP-positive fibroblasts", "CMT-negative cells" (no disease
        # or feature marks a cell; a gene's product does: "CD4-positive" stays the gene)
        (None, None, r"^-?(?:positive|negative|expressing|high|low)\b|^\+\s", _CLINICAL_TYPES),
        (r"(?i).+-(?:positive|negative|expressing)", None, None, _CLINICAL_TYPES),
        # growing axons: "axon fasciculation"
        (r"(?i)fasciculations?", r"\b(?:axons?|axonal|neurites?)\s+$", None, _CLINICAL_TYPES),
        # a laboratory test's result: "The DAT was positive for IgG"
        (
            r"[A-Z]{2,5}",
            None,
            r"^\s*(?:was|were|is)\s+(?:strongly\s+|weakly\s+)?"
            r"(?:positive|negative)\b",
            _GENE_TYPES | _CLINICAL_TYPES,
        ),
        # a method or a procedure: "measured by SPR", "generated with a GAN", "SPG block"
        (
            r"[A-Z]{2,5}",
            r"\b(?:measured|assessed|determined|detected|quantified|analy[sz]ed|established|"
            r"rated|scored|evaluated|screened|generated|trained|simulated|modell?ed)\s+"
            r"(?:by|with|using)\s+(?:the\s+|an?\s+)?$",
            None,
            _GENE_TYPES | _CLINICAL_TYPES,
        ),
        # a treatment one keeps to: "adherence to CPAP"
        (
            r"[A-Z]{2,5}",
            r"\b(?:adherence|compliance|non-?adherence|non-?compliance)\s+(?:to|with)\s+$",
            None,
            _GENE_TYPES | _CLINICAL_TYPES,
        ),
        # a level of the spine: "cord compression at C3", "disc prolapse between L4 and L5"
        (
            r"[CTLS]\d{1,2}",
            r"\b(?:spine|spinal|cord|cervical|thoracic|lumbar|sacral|vertebra[el]?|discs?|"
            r"myelopathy|radiculopathy)\b[^.;]*\b(?:at|to|from|below|above|between|and)\s+$",
            None,
            _KG_TYPES,
        ),
        # a mode of inheritance, not the organelle's: "consistent with mitochondrial
        # inheritance" (GO's "mitochondrion inheritance")
        (r"(?i)mitochondrial\s+inheritance", None, None, frozenset({"go_term"})),
        (
            r"[A-Z]{2,5}",
            None,
            r"^\s*(?:block|blockade|injections?|ablation|infusion)\b",
            _GENE_TYPES | _CLINICAL_TYPES,
        ),
        # a measure: "EDS, measured with the Epworth Sleepiness Scale"; an instrument:
        # "the SCID administered by trained psychologists"
        (
            r"[A-Z]{2,5}",
            None,
            r"^\s*,?\s*(?:(?:was|were|is)\s+)?(?:measured|assessed|rated|scored|quantified)"
            r"\s+(?:with|by|using|on)\b|^\s*(?:administered|questionnaires?|interviews?)\b",
            _GENE_TYPES | _CLINICAL_TYPES,
        ),
        # a drug's route: "oral SPS", "intravenous IG"
        (
            r"[A-Z]{2,5}",
            r"\b(?:oral|intravenous|topical|subcutaneous|intrathecal|inhaled)\s+$",
            None,
            _GENE_TYPES | _CLINICAL_TYPES,
        ),
        # the organelle, not the proteins with the alias ER (EREG, ESR1): "ER membrane", "ER
        # stress", "retained in the ER"
        (
            r"ER",
            None,
            r"^[\s-]*(?:membranes?|stress|lumen|lumenal|luminal|retention|exit|export|import|"
            r"to[\s-]+Golgi|chaperones?|resident|calcium|Ca2\+|homeostasis|morphology|tubules?|"
            r"sheets?|contacts?|[-–](?:mitochondri|plasma|Golgi)\w*)\b",
            _GENE_TYPES,
        ),
        (r"ER", r"\b(?:in|from|to|into|within|across|of|leav\w+)\s+the\s+$", None, _GENE_TYPES),
        # a membrane anchor: "a GPI anchor"; a cross of mice: "F2 intercross mice"
        (r"[A-Z]{2,5}", None, r"^[\s-]*anchor(?:s|ed)?\b", _GENE_TYPES),
        (r"[FN]\d", None, r"^\s*(?:intercross|backcross|generation|hybrids?|progeny)\b", _KG_TYPES),
        # dialysis: "automated PD", "nocturnal HD"; linkage: "in strong LD with"
        (
            r"[A-Z]{2,4}",
            r"\b(?:automated|ambulatory|nocturnal|home|peritoneal|haemo|hemo)\s+$",
            None,
            _CLINICAL_TYPES,
        ),
        (
            r"LD",
            r"\b(?:in|strong|high|complete|tight|low)\s+$",
            r"^\s*(?:with|between|blocks?|scores?|r2)\b",
            _KG_TYPES,
        ),
        # a treatment one is kept on: "maintained on PD for end-stage kidney disease"
        (
            r"[A-Z]{2,5}",
            r"\b(?:maintained|started|initiated|continued|dependent)\s+on\s+$",
            None,
            _CLINICAL_TYPES,
        ),
        # the verb: "falls under AD3", "falls within the spectrum", "fell short", "the
        # category into which X falls"
        (
            r"(?i)falls?|falling|fell",
            None,
            r"^\s*(?:under|into|within|outside|short|apart|between)\b",
            _CLINICAL_TYPES,
        ),
        (r"(?i)falls?|fell", r"\b(?:into|under|within|in)\s+which\b[^.;]*$", None, _CLINICAL_TYPES),
        # a test's score: "MoCA 27/30", "the ALSFRS-R score of 38/48"
        (None, None, r"^\s*(?:score\s+(?:of\s+)?)?\d+(?:\.\d+)?\s*/\s*\d+", _KG_TYPES),
        # a person: "Ms A B", "Dr S Patel"; initials opening a line of minutes, "PM: present …"
        (r"(?:Dr|Mr|Mrs|Ms|Miss|Prof)\.?\s+[A-Z]\b.*", None, None, _KG_TYPES),
        (r"[A-Z]{2,3}", r"^\s*(?:[-*+]\s+)?$", r"^\s*:", _KG_TYPES),
        (
            r"[A-Z]{2,3}",
            r"(?i)\b(?:present|attendees|attending|apologies(?: from)?|chair|notes taken by)"
            r"\s*:[^.;]*$",
            None,
            _KG_TYPES,
        ),
        # a person's initials before what they said or will do: "PD added that …"
        (
            r"[A-Z]{2,3}",
            None,
            r"^\s*(?:added|noted|said|presented|suggested|pointed out|asked|agreed|argued|"
            r"commented|replied|summari[sz]ed|will|to (?:check|order|book|send|repeat|add))\b",
            _GENE_TYPES | _CLINICAL_TYPES,
        ),
        # a protein called by a disease's abbreviation: "the transcription factor AP-4"
        (
            None,
            r"\b(?:transcription factor|the protein|the enzyme|the kinase|the channel)\s+$",
            None,
            _CLINICAL_TYPES,
        ),
    )
)


def _anaphora(
    text: str,
    named: list[EntityMention],
    index: EntityIndex,
    topic: str | None = None,
    gene_topic: str | None = None,
) -> list[EntityMention]:
    """ "Lowe syndrome is not in the differential; the syndrome is filed as an eye disorder":
    "the syndrome" (the disorder, the disease, the condition) after a disease's name in the
    same text is that disease, when only one disease is named before it — or, when none is,
    the ``topic`` the text before named. Likewise "the receptor" (this gene, the protein, the
    enzyme, …) and a gene or protein, ``gene_topic``. A claim opening on "It" or "Its" is
    about the ``topic`` disease when no ``gene_topic`` competes."""
    found = list(named)
    for pattern, types, default in (
        (_DEFINITE_DISEASE, _DISEASE_TYPE, topic),
        (_DEFINITE_GENE, _GENE_TYPES, gene_topic),
    ):
        for match in pattern.finditer(text):
            before = {
                index.names(m.id)[0]: m.id
                for m in named
                if m.end <= match.start() and index.type_of(m.id) in types
            }
            if not before and default is not None:
                before = {default: default}
            if len(before) != 1 or any(
                m.start < match.end() and m.end > match.start() for m in named
            ):
                continue
            found.append(
                EntityMention(
                    text=match.group(0), start=match.start(), end=match.end(),
                    id=before.popitem()[1], kind="dictionary", in_kg=True,
                )
            )  # fmt: skip
    pronoun = _OPENING_PRONOUN.match(text)
    if pronoun and topic is not None and gene_topic is None and index.type_of(topic) == "disease":
        # "Its chorea, athetosis and alacrima …" after a claim about one disease
        found.append(
            EntityMention(
                text=pronoun.group(1), start=pronoun.start(1), end=pronoun.end(1), id=topic,
                kind="dictionary", in_kg=True,
            )
        )  # fmt: skip
    return sorted(found, key=lambda m: m.start)


def _closes_unopened(phrase: str) -> bool:
    """Whether ``phrase`` closes a bracket it did not open ("Va) deficiency"); a name may
    end inside one it opened ("cervical dystonia (DYT23 type", its bracket after it)."""
    depth = 0
    for character in phrase:
        depth += (character == "(") - (character == ")")
        if depth < 0:
            return True
    return False


def _other_sense(text: str, mention: EntityMention, index: EntityIndex | None) -> bool:
    """Whether the context gives a KG name's words another sense (:data:`_OTHER_SENSES`): a
    figure, a quantity, a developmental stage, the heart's wall motion, a test, a method, a
    procedure, a treatment, a level of the spine, a mode of inheritance, a protein called by a
    disease's abbreviation."""
    if index is None or not mention.in_kg:
        return False
    kind = index.type_of(mention.id)
    before = text[max(0, mention.start - 160) : mention.start]
    after = text[mention.end : mention.end + 40]
    return any(
        kind in types
        and (shape is None or shape.fullmatch(mention.text))
        and (left is None or left.search(before))
        and (right is None or right.search(after))
        for shape, left, right, types in _OTHER_SENSES
    )


def _near(text: str, position: int, word: str, window: int = 40) -> bool:
    return word.casefold() in text[max(0, position - window) : position].casefold()
