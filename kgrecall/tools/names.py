"""Name normalisation: the ways people write one entity's name, folded to one key.

Each rule is a small function (tested one by one in ``tests/tools/test_names.py``):

- :func:`fold` — Unicode NFKC, case, Greek letters spelled out (α → alpha; inside or ending
  a symbol the Latin letter: "GFRα2" → "gfra2", "PKCγ" → "pkcg"; after a lone capital one
  word: "Aβ" → "abeta"), dashes, hyphens,
  slashes and punctuation to spaces, possessive ``'s`` dropped ("Huntington's" →
  "huntington"), Roman numerals after "type" and standing alone at the end of a name to
  digits, also with a subtype's letter ("type IIIB" → "3b"), the word "type" before a number
  or code dropped ("type II" → "2", "type 2EE" → "2ee");
- :func:`americanize` — British spellings to American ones ("generalised" → "generalized",
  "haemorrhage" → "hemorrhage", "tumour" → "tumor", "oedema" → "edema");
- :func:`singular` — plural words to singular ("crises" → "crisis", "bodies" → "body",
  "jerks" → "jerk"; "status", "ataxias"/"ataxia" handled, short symbols left alone);
- :func:`uninvert` — comma-inverted names to natural order ("Dementia, lewy body" → "lewy body
  dementia");
- :func:`word_bag` — word order ignored (every word counted: "A and B" is not a bag of A),
  filler words ("with", "of", "type", …) dropped and "-ing" forms stemmed: "dementia with
  Lewy bodies" and "Dementia, lewy body" share one bag, so do "tremor at rest" and "resting
  tremor";
- :func:`compact` — the key without spaces: "Choreo-athetosis" = "choreoathetosis";
- :func:`strip_qualifier` — "TOR1A-related", "PLA2G6-associated", "SNCA-linked" → the name;
- :func:`acronym` — initials of a multi-word name ("Parkinson disease" → "PD"), the form
  clinicians abbreviate names to; digits at the end are kept ("Parkinson disease 4" → "PD4");
  :func:`acronym_variants` — the other initials people spell a name with: "of" spelt ("FOG"),
  a compound's combining forms each an initial ("oculogyric crisis": OGC), "related" left out
  ("sleep-related hypermotor epilepsy": SHE).
"""

from __future__ import annotations

import gzip
import re
import unicodedata
from functools import lru_cache
from importlib.resources import files

__all__ = [
    "FILLERS",
    "GREEK",
    "abbreviates",
    "acronym",
    "acronym_of_folded",
    "acronym_variants",
    "americanize",
    "bag_of_folded",
    "common_words",
    "compact",
    "fold",
    "name_keys",
    "numbered_head",
    "singular",
    "stem",
    "strip_qualifier",
    "uninvert",
    "word_bag",
    "word_key",
]

GREEK = {
    "α": "alpha", "β": "beta", "γ": "gamma", "δ": "delta", "ε": "epsilon", "ζ": "zeta",
    "η": "eta", "θ": "theta", "ι": "iota", "κ": "kappa", "λ": "lambda", "μ": "mu", "ν": "nu",
    "ξ": "xi", "π": "pi", "ρ": "rho", "σ": "sigma", "τ": "tau", "υ": "upsilon", "φ": "phi",
    "χ": "chi", "ψ": "psi", "ω": "omega",
}  # fmt: skip
_GREEK_TABLE = {ord(letter): f" {name} " for letter, name in GREEK.items()}
#: A Greek letter between a Latin letter and a digit belongs to a symbol: "GFRα2" is GFRA2.
_SYMBOL_GREEK = re.compile(r"(?<=[A-Za-z])([αβγδεκ])(?=\d)")
#: A Greek letter ending a symbol is its Latin letter: "PKCγ" is PKCG, "TNFα" TNFA.
_FINAL_GREEK = re.compile(r"(?<=[A-Za-z0-9])([αβγδεκ])(?![A-Za-z0-9])")
#: A lone capital with a Greek letter is one word: "Aβ" is "Abeta" ("ABeta amyloidosis").
_LETTER_GREEK = re.compile(r"(?<![A-Za-z])([A-Z])([αβγδεκ])(?![A-Za-z0-9])")
_SYMBOL_GREEK_LATIN = {"α": "a", "β": "b", "γ": "g", "δ": "d", "ε": "e", "κ": "k"}
_ROMAN = {
    "i": "1", "ii": "2", "iii": "3", "iv": "4", "v": "5", "vi": "6", "vii": "7", "viii": "8",
    "ix": "9", "x": "10", "xi": "11", "xii": "12",
}  # fmt: skip
#: A subtype's code of a Roman numeral and a lower-case letter: "type Ii" is type 1i, not
#: type II ("CDG-Ia", "CDG type IIb"); only after "type" or an acronym, where case tells.
_ROMAN_SUBTYPE = re.compile(
    r"\b(?P<before>(?i:type)\s+|[A-Z]{2,6}[-\s])(?P<roman>[IVX]{1,4})(?P<letter>[a-z])\b"
)
#: … and so is, after "type", a Roman numeral and a capital that is no numeral: "type IA" is
#: type 1A, "type IIIB" 3B ("type is" stays words).
_ROMAN_CAPITAL_SUBTYPE = re.compile(
    r"\b(?P<before>(?i:type)\s+)(?P<roman>I{1,3}|IV|VI{0,3}|IX|XI{0,2})(?P<letter>[A-HJ-UWYZ])\b"
)
_POSSESSIVE = re.compile(r"(?<=[a-z0-9])['’]s?(?![a-z0-9])")
_SEPARATORS = re.compile(r"[^a-z0-9]+")
#: Words that do not distinguish one name from another when word order is ignored.
FILLERS = frozenset(
    {"a", "an", "the", "of", "with", "in", "to", "at", "on", "by", "for", "from", "type", "form",
     "due"}
)  # fmt: skip
_QUALIFIER = re.compile(
    r"^(?P<name>.+?)[\s-]+(?:related|associated|linked|mediated|positive|negative|"
    r"deficient|deficiency|mutant|mutated|dependent|raising|lowering|targeting|targeted|"
    r"induced|expressing)$",
    re.IGNORECASE,
)
#: A name ending in a member number ("… 7", "… 19a", "… type 2").
_NUMBERED_HEAD = re.compile(r"\s\d{1,3}[a-zA-Z]?$")
_NOT_PLURAL = ("ss", "us", "is", "ous", "ics", "sis", "xis", "ps")
_ASCII_GREEK = re.compile(r"\b([abgd])-(?=[a-z]{4,})")
_ASCII_GREEK_NAMES = {"a": "alpha", "b": "beta", "g": "gamma", "d": "delta"}
#: An adjective written both ways: "neurological" and "neurologic".
_OLOGICAL = re.compile(r"(?<=[a-z])ological$")
_ISMUS = re.compile(r"(?<=[a-z]{4})ismus$")
#: The word before a subtype's code that people leave out ("Gaucher type 1").
_KIND_BEFORE_CODE = frozenset({"disease", "syndrome"})
_TYPE_CODE = re.compile(r"(?i)\btype\s+\S+\s*$")
#: Words that abbreviate two ("mtDNA repair" is GO's "mitochondrial DNA repair").
_SPELT_OUT = {"mtdna": "mitochondrial dna", "oxphos": "oxidative phosphorylation"}
#: Latin and Greek plurals of biomedical nouns, which :func:`singular` cannot undo.
_LATIN_PLURALS = {
    "mitochondria": "mitochondrion", "ganglia": "ganglion", "nuclei": "nucleus",
    "cilia": "cilium", "flagella": "flagellum", "septa": "septum", "sulci": "sulcus",
    "gyri": "gyrus", "vertebrae": "vertebra", "bronchi": "bronchus", "foci": "focus",
    "loci": "locus", "stimuli": "stimulus", "phenomena": "phenomenon", "criteria": "criterion",
    "bacteria": "bacterium", "fungi": "fungus", "lamellae": "lamella",
}  # fmt: skip
#: Words names use interchangeably, keyed as one.
_SAME_AS = {
    "disorder": "disease",
    "metabolism": "metabolic",
    "reduced": "decreased",
    "diminished": "decreased",
}
#: British → American spellings, as (pattern, replacement) on one word.
_AMERICAN = [
    (re.compile(r"(?<=[a-z]{3})is(ed|ing|ation|ations|er|ers)$"), r"iz\1"),
    (re.compile(r"aem"), "em"),
    (re.compile(r"^oe(?=[a-z]{3})"), "e"),
    (re.compile(r"(?<=[a-z]{3})oea$"), "ea"),
    (re.compile(r"(?<=[a-z]{2})our(?=(?:al|ally|s)?$)"), "or"),  # "behavioural", "tumours"
    (re.compile(r"^paed"), "ped"),
]


def fold(text: str) -> str:
    """Lower-case words separated by single spaces (see the module docstring)."""
    folded = text
    for subtype in (_ROMAN_SUBTYPE, _ROMAN_CAPITAL_SUBTYPE):
        folded = subtype.sub(
            lambda m: m["before"] + _ROMAN[m["roman"].casefold()] + m["letter"], folded
        )
    folded = _SYMBOL_GREEK.sub(lambda m: _SYMBOL_GREEK_LATIN[m.group(1)], folded)
    folded = _LETTER_GREEK.sub(lambda m: m.group(1) + GREEK[m.group(2)], folded)
    folded = _FINAL_GREEK.sub(lambda m: _SYMBOL_GREEK_LATIN[m.group(1)], folded)
    folded = unicodedata.normalize("NFKC", folded).casefold().translate(_GREEK_TABLE)
    if not folded.isascii():  # "Sträussler", "Behçet", "Guillain–Barré": the letters alone
        folded = "".join(
            c for c in unicodedata.normalize("NFKD", folded) if not unicodedata.combining(c)
        )
    folded = _ASCII_GREEK.sub(lambda m: f"{_ASCII_GREEK_NAMES[m.group(1)]} ", folded)
    folded = _POSSESSIVE.sub("", folded)
    words = _SEPARATORS.sub(" ", folded).split()
    for position, word in enumerate(words):
        roman = _ROMAN.get(word)
        if roman and (
            (position > 0 and words[position - 1] == "type")
            or (position == len(words) - 1 and position > 0 and word != "i")
        ):
            words[position] = roman
    # "type 2EE" = "2EE", "type A" = "A": the word "type" before a code is dropped
    return " ".join(
        w
        for i, w in enumerate(words)
        if not (w == "type" and i + 1 < len(words) and _is_code(words[i + 1]))
    )


def _is_code(word: str) -> bool:
    return any(c.isdigit() for c in word) or len(word) == 1 or word in _ROMAN


def americanize(word: str) -> str:
    """A folded word in American spelling (a few regular British patterns)."""
    for pattern, replacement in _AMERICAN:
        word = pattern.sub(replacement, word)
    return word


def stem(word: str) -> str:
    """ "resting" → "rest": the "-ing" form of a word of seven or more letters."""
    return word[:-3] if len(word) >= 7 and word.endswith("ing") else word


@lru_cache(maxsize=65536)
def word_key(word: str) -> str:
    """One folded word as name keys hold it: American spelling, singular, an "-ological"
    adjective as "-ologic" ("paraneoplastic neurological syndromes" is MONDO's
    "paraneoplastic neurologic syndrome"), a Latin "-ismus" as "-ism" ("hemiballism" is
    HPO's "Hemiballismus"), "mtDNA" and "OXPHOS" spelt out, a Latin or Greek plural as its singular
    ("autophagy of mitochondria" is GO's "autophagy of mitochondrion"), "disorder" as
    "disease" ("a lipid storage disorder" is MONDO's "lipid storage disease") and
    "metabolism" as "metabolic" ("tetrahydrobiopterin metabolic disease" is MONDO's
    "tetrahydrobiopterin metabolism disease") and "reduced" or "diminished" as "decreased"
    ("reduced reflexes" is HPO's "Decreased reflexes")."""
    if word in _SPELT_OUT:
        return _SPELT_OUT[word]
    if word in _LATIN_PLURALS:
        return _LATIN_PLURALS[word]
    key = _ISMUS.sub("ism", _OLOGICAL.sub("ologic", singular(americanize(word))))
    return _SAME_AS.get(key, key)


def singular(word: str) -> str:
    """A folded word's singular form; words of three letters or fewer stay as they are."""
    if len(word) <= 3 or not word.isalpha() or word.endswith(_NOT_PLURAL):
        return word
    if word.endswith("ises"):
        return word[:-2] + "is"
    if word.endswith("ies"):
        return word[:-3] + "y"
    if word.endswith(("ches", "shes", "xes", "sses")):
        return word[:-2]
    if word.endswith("s"):
        return word[:-1]
    return word


def uninvert(text: str) -> str | None:
    """ "Dementia, lewy body" → "lewy body dementia"; ``None`` without exactly one comma."""
    head, comma, tail = text.partition(",")
    if not comma or "," in tail or not head.strip() or not tail.strip():
        return None
    return f"{tail.strip()} {head.strip()}"


def numbered_head(text: str) -> str | None:
    """ "Parkinson disease 7, autosomal recessive early-onset" → "Parkinson disease 7": the
    numbered member of a family before the comma that qualifies it (a number names one
    member, so the head alone is still that member); ``None`` otherwise."""
    head, comma, tail = text.partition(",")
    head = head.strip()
    if not comma or not tail.strip() or not _NUMBERED_HEAD.search(head):
        return None
    return head


def word_bag(text: str) -> str:
    """Folded singular words, fillers dropped, sorted: a key that ignores word order."""
    return bag_of_folded(fold(text).split())


def bag_of_folded(words: list[str]) -> str:
    """:func:`word_bag` of words already folded."""
    return " ".join(sorted(stem(word_key(w)) for w in words if w not in FILLERS))


def compact(key: str) -> str:
    """A name key without spaces ("choreo athetosis" → "choreoathetosis")."""
    return key.replace(" ", "")


def name_keys(text: str, folded: str | None = None) -> set[str]:
    """Folded, singular keys of a name, of its un-inverted form and of its numbered head, and
    of each without a generic tail HGNC adds to a name people write shorter ("sonic hedgehog
    signaling molecule" → "sonic hedgehog"; ``folded``: the name already folded, to save
    folding it again), of a respiratory-chain name without "mitochondrial", of a process of a
    part of the cell by the part's adjective ("autophagy of mitochondrion": "mitochondrial
    autophagy"), of a response to dopamine replacement as people write it
    ("levodopa-responsive parkinsonism", "L-dopa-responsive dystonia"), and of a tendon
    reflex by its joint ("absent knee jerks": "absent patellar reflexes")."""
    keys = set()
    inverted = uninvert(text)
    head = numbered_head(text)
    for words in (
        (folded if folded is not None else fold(text)).split(),
        fold(inverted).split() if inverted else [],
        fold(head).split() if head else [],
    ):
        keys.add(" ".join(word_key(w) for w in words))
        if (
            len(words) >= 3
            and words[-2] in _KIND_BEFORE_CODE
            and any(c.isdigit() for c in words[-1])
            and _TYPE_CODE.search(text)
        ):
            # "Gaucher disease type 1" is written "Gaucher type 1" too (not "Alzheimer disease
            # 2": "Alzheimer type II" is an astrocyte)
            keys.add(" ".join(word_key(w) for w in (*words[:-2], words[-1])))
    keys |= {key[: -len(tail)] for key in keys for tail in _GENERIC_TAILS if key.endswith(tail)}
    # "autophagy of mitochondrion" is written "mitochondrial autophagy"
    keys |= {
        f"{_ADJECTIVE_OF[match['noun']]} {match['head']}"
        for key in keys
        if (match := _HEAD_OF_NOUN.fullmatch(key)) and match["noun"] in _ADJECTIVE_OF
    }
    # the respiratory chain is mitochondrial: "complex I deficiency", "complex I assembly"
    keys |= {key.removeprefix(_MITOCHONDRIAL) for key in keys if _RESPIRATORY_CHAIN.match(key)}
    # "Parkinsonism with favorable response to dopaminergic medication" is written
    # "levodopa-responsive parkinsonism", and "dopa-responsive dystonia" as "L-dopa-responsive"
    responsive = {
        f"dopa responsive {match['what']}"
        for key in keys
        if (match := _DOPA_RESPONSE.fullmatch(key))
    } | {key for key in keys if _DOPA_RESPONSIVE.search(key)}
    keys |= {
        _DOPA_RESPONSIVE.sub(form, key) for key in responsive for form in _DOPA_RESPONSIVE_FORMS
    }
    # a tendon reflex by its joint or its tendon: "knee jerk" is the patellar reflex, "ankle
    # jerk" the Achilles reflex (whose key word_key writes "achille")
    for pattern, forms in _TENDON_REFLEXES:
        keys |= {pattern.sub(form, key) for key in keys if pattern.search(key) for form in forms}
    keys.discard("")
    return keys


#: Each tendon reflex as people name it (as keys write it), and all those names.
_TENDON_REFLEXES = tuple(
    (re.compile(rf"(?<![a-z])(?:{'|'.join(forms)})(?![a-z])"), forms)
    for forms in (
        ("patellar reflex", "knee jerk reflex", "knee jerk", "knee reflex"),
        ("achille reflex", "ankle jerk reflex", "ankle jerk", "ankle reflex"),
    )
)


#: A name that says a finding responds to dopamine replacement (as keys write it).
_DOPA_RESPONSE = re.compile(
    r"(?P<what>[a-z ]+?) with favorable response to (?:dopaminergic medication|levodopa)"
)
_DOPA_RESPONSIVE = re.compile(r"(?<![a-z])dopa responsive")
#: How people write "dopa-responsive" (as keys write it).
_DOPA_RESPONSIVE_FORMS = ("dopa responsive", "levodopa responsive", "l dopa responsive")


#: A respiratory-chain name's prefix that people leave out ("mitochondrial complex I
#: deficiency" is written "complex I deficiency") and what must follow it (as keys write it).
_MITOCHONDRIAL = "mitochondrial "
_RESPIRATORY_CHAIN = re.compile(
    r"mitochondrial (?:respiratory chain |respirasome |complex (?:[ivx]{1,3}|[1-5])\b)"
)


#: A process of a part of the cell, as keys write it: "autophagy of mitochondrion",
#: "microautophagy of the nucleus" (one or two words before "of").
_HEAD_OF_NOUN = re.compile(r"(?P<head>[a-z]+(?: [a-z]+)?) of (?:the )?(?P<noun>[a-z]+)")
#: Parts of the cell (keys' singular forms) and the adjectives people name a process of
#: them with instead.
_ADJECTIVE_OF = {
    "mitochondrion": "mitochondrial", "peroxisome": "peroxisomal", "lysosome": "lysosomal",
    "nucleus": "nuclear", "ribosome": "ribosomal", "endosome": "endosomal",
    "synapse": "synaptic", "axon": "axonal", "cilium": "ciliary", "vesicle": "vesicular",
    "chromosome": "chromosomal", "cytoplasm": "cytoplasmic",
}  # fmt: skip


#: Generic tails of gene names (as :func:`name_keys` writes them) that people leave out.
_GENERIC_TAILS = (" signaling molecule",)


def strip_qualifier(text: str) -> str | None:
    """ "TOR1A-related" → "TOR1A"; ``None`` when there is no such qualifier."""
    match = _QUALIFIER.match(text.strip())
    return match.group("name").strip() if match else None


def abbreviates(short: str, name: str) -> bool:
    """Whether ``short``'s letters start ``name`` and occur in it in order ("FTD":
    "frontotemporal dementia"; not "PARK")."""
    letters = iter(name.casefold())
    return name[:1].casefold() == short[:1].casefold() and all(
        character in letters for character in short.casefold()
    )


def acronym(name: str) -> str | None:
    """Initials of a name of two or more words (fillers skipped), with a trailing number kept:
    "Parkinson disease" → "PD", "dementia with Lewy bodies" → "DLB", "Parkinson disease 4"
    → "PD4"; ``None`` for one-word names."""
    return acronym_of_folded(fold(name).split())


def acronym_of_folded(words: list[str]) -> str | None:
    """:func:`acronym` of a name's folded words."""
    words = list(words)
    number = words.pop() if words and words[-1].isdigit() else ""
    initials = [w[0] for w in words if w not in FILLERS and w.isalpha()]
    if len(initials) < 2 or len(initials) > 6:
        return None
    return ("".join(initials) + number).upper()


#: Combining forms that open a compound word, each spelt as an initial of its own when people
#: abbreviate the name ("oculogyric crisis": OGC, "hemifacial spasm": HFS, "excitatory
#: postsynaptic potential": EPSP, "facioscapulohumeral": FSH); the rest must be five letters
#: or more (not "postural", "preterm").
_COMBINING_FORM = re.compile(
    r"(?P<form>oculo|oro|hemi|post|pre|extra|intra|neuro|fronto|temporo|spino|cerebello|cerebro|"
    r"olivo|ponto|dentato|pallido|facio|scapulo|cardio|sensori|gastro|encephalo)"
    r"(?P<rest>[a-z]{5,})"
)


def _split_compound(word: str) -> list[str]:
    """A compound word as its combining forms and the rest: "facioscapulohumeral" → ["facio",
    "scapulo", "humeral"]; other words as they are."""
    parts = []
    while (match := _COMBINING_FORM.fullmatch(word)) is not None:
        parts.append(match["form"])
        word = match["rest"]
    return [*parts, word]


#: A subtype's letter at the end of a folded name ("niemann pick disease c").
_LETTER_CODE = re.compile(r"[a-z]")
#: The noun a subtype's letter follows, left out of its initials ("NPC", not "NPDC").
_KIND_NOUNS = frozenset({"disease", "syndrome"})


def acronym_variants(words: list[str]) -> set[str]:
    """The initials of a name's folded words other than :func:`acronym_of_folded`'s that people
    abbreviate it to: with "of" spelt as a word ("freezing of gait": FOG, besides FG — only
    inside the name), with each combining form of a compound as its own initial ("oculogyric
    crisis": OGC), without "related" ("sleep-related hypermotor epilepsy": SHE), and without
    the disease or syndrome before a subtype's letter ("Niemann-Pick disease type C": NPC)."""
    plain = acronym_of_folded(words)
    forms = [list(words)]
    if "of" in words[1:-1]:
        forms.append([w if w != "of" else "o" for w in words])
    forms += [[part for w in form for part in _split_compound(w)] for form in forms]
    forms += [[w for w in form if w != "related"] for form in forms if "related" in form[:-1]]
    if len(words) >= 4 and _LETTER_CODE.fullmatch(words[-1]) and words[-2] in _KIND_NOUNS:
        forms.append([*words[:-2], words[-1]])  # "Niemann-Pick disease type C": NPC
    variants = {acronym_of_folded(form) for form in forms}
    return {v for v in variants if v is not None and v != plain}


@lru_cache(maxsize=1)
def common_words() -> frozenset[str]:
    """Everyday English words (``kgrecall/data/common_english.txt.gz``, derived from wordfreq
    by ``scripts/derive_common_words.py``): entity names that are one of them need context."""
    data = files("kgrecall") / "data" / "common_english.txt.gz"
    return frozenset(gzip.decompress(data.read_bytes()).decode("utf-8").split())
