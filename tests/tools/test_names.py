"""Name normalisation: one test per rule, on names as people write them."""

from __future__ import annotations

import subprocess
import sys
from importlib.resources import files
from pathlib import Path

import pytest

from kgrecall.tools.names import (
    acronym,
    acronym_variants,
    americanize,
    common_words,
    compact,
    fold,
    name_keys,
    numbered_head,
    singular,
    stem,
    strip_qualifier,
    uninvert,
    word_bag,
)


@pytest.mark.parametrize(
    ("written", "folded"),
    [
        ("Huntington's disease", "huntington disease"),  # possessive
        ("Huntington’s disease", "huntington disease"),  # typographic apostrophe
        ("Parkinsons' disease", "parkinsons disease"),
        ("α-synuclein", "alpha synuclein"),  # Greek letter
        ("a-synuclein", "alpha synuclein"),  # ASCII Greek prefix
        ("GFRα2", "gfra2"),  # a Greek letter inside a symbol: the Latin letter
        ("Cavβ4 subunit", "cavb4 subunit"),
        ("PKCγ", "pkcg"),  # a Greek letter ending a symbol: the Latin letter
        ("IL-1β", "il 1b"),
        ("interferon γ", "interferon gamma"),  # a word on its own is spelled out
        ("Iowa-type Aβ amyloidosis", "iowa type abeta amyloidosis"),  # a lone capital's letter
        ("ABeta amyloidosis", "abeta amyloidosis"),
        ("Charcot–Marie–Tooth", "charcot marie tooth"),  # en dash
        ("Charcot Marie-Tooth", "charcot marie tooth"),
        ("Spinocerebellar ataxia type II", "spinocerebellar ataxia 2"),  # Roman, "type" dropped
        ("Charcot-Marie-Tooth disease type 2EE", "charcot marie tooth disease 2ee"),
        ("Dystonia 1, torsion", "dystonia 1 torsion"),
        ("type", "type"),  # "type" alone stays
        ("Vitamin E deficiency, I", "vitamin e deficiency i"),  # a lone final "I" is a word
        # a Roman numeral and a lower-case letter is a subtype's code: "type Ii" is 1i
        (
            "Congenital disorder of glycosylation, type Ii",
            "congenital disorder of glycosylation 1i",
        ),
        ("CDG-Ia", "cdg 1a"),
        ("CDG type IIb", "cdg 2b"),
        # … and so is one with a capital letter that is no numeral after "type": IA is 1A
        ("Charcot–Marie–Tooth type IA", "charcot marie tooth 1a"),
        ("mucopolysaccharidosis type IIIB", "mucopolysaccharidosis 3b"),
        ("Usher syndrome type IVA", "usher syndrome 4a"),
        ("glycogen storage disease type IX", "glycogen storage disease 9"),  # a numeral only
        ("The type is unusual", "the type is unusual"),  # words, not a code
        ("type II CDG", "2 cdg"),
        ("Xi", "xi"),  # no code alone
        # accents and umlauts go; Greek letters are spelt out before
        ("Gerstmann–Sträussler–Scheinker", "gerstmann straussler scheinker"),
        ("Behçet's disease", "behcet disease"),
        ("µ-opioid receptor", "mu opioid receptor"),
    ],
)
def test_fold(written: str, folded: str) -> None:
    assert fold(written) == folded


@pytest.mark.parametrize(
    ("plural", "single"),
    [
        ("crises", "crisis"),
        ("bodies", "body"),
        ("jerks", "jerk"),
        ("legs", "leg"),
        ("reflexes", "reflex"),
        ("status", "status"),
        ("analysis", "analysis"),
        ("nervous", "nervous"),
        ("gas", "gas"),  # three letters stay
    ],
)
def test_singular(plural: str, single: str) -> None:
    assert singular(plural) == single


@pytest.mark.parametrize(
    ("british", "american"),
    [
        ("generalised", "generalized"),
        ("haemorrhage", "hemorrhage"),
        ("anaemia", "anemia"),
        ("oedema", "edema"),
        ("diarrhoea", "diarrhea"),
        ("tumour", "tumor"),
        ("paediatric", "pediatric"),
        ("organisation", "organization"),
        ("disease", "disease"),  # "-ise" alone is not a British ending
        ("hour", "hour"),
        ("behavioural", "behavioral"),
        ("tumours", "tumors"),
        ("four", "four"),
    ],
)
def test_americanize(british: str, american: str) -> None:
    assert americanize(british) == american


def test_uninvert_comma_names() -> None:
    assert uninvert("Dementia, lewy body") == "lewy body Dementia"
    assert uninvert("Spastic paraplegia, ataxia, and impaired intellect") is None
    assert uninvert("Parkinson disease") is None


def test_a_numbered_member_is_also_known_without_its_qualifier() -> None:
    assert numbered_head("Parkinson disease 7, autosomal recessive early-onset") == (
        "Parkinson disease 7"
    )
    assert numbered_head("Parkinson disease 19a, juvenile-onset") == "Parkinson disease 19a"
    # no number: the head would name the whole family (or another concept), not this member
    assert numbered_head("Episodic ataxia, type 2") is None
    assert numbered_head("dopamine secretion, neurotransmission") is None
    assert numbered_head("Parkinson disease 7") is None
    assert "parkinson disease 7" in name_keys("Parkinson disease 7, autosomal recessive")


def test_name_keys_cover_the_inverted_form() -> None:
    assert name_keys("Dementia, lewy body") == {"dementia lewy body", "lewy body dementia"}
    assert name_keys("Oculogyric crises") == {"oculogyric crisis"}
    # "-ological" and "-ologic" adjectives are one key
    assert name_keys("paraneoplastic neurological syndromes") == name_keys(
        "Paraneoplastic neurologic syndrome"
    )


def test_a_subtype_is_keyed_without_its_kind_before_the_type() -> None:
    assert "gaucher 1" in name_keys("Gaucher disease type 1")
    assert "bartter 4a" in name_keys("Bartter syndrome, type 4A")
    # a numbered member without "type" keeps its kind: "Alzheimer type II" is an astrocyte
    assert name_keys("Alzheimer disease 2") == {"alzheimer disease 2"}


def test_name_keys_spell_out_latin_endings_mtdna_and_oxphos() -> None:
    assert name_keys("Hemiballism") == name_keys("Hemiballismus") == {"hemiballism"}
    assert name_keys("mtDNA repair") == name_keys("mitochondrial DNA repair")
    assert name_keys("Combined OXPHOS deficiencies") == name_keys(
        "combined oxidative phosphorylation deficiency"
    )
    # a short word ending in "-ismus" is no Latin form of another
    assert name_keys("Ismus") == {"ismus"}


def test_name_keys_take_disorder_for_disease() -> None:
    assert name_keys("lipid storage disorders") == name_keys("Lipid storage disease")


def test_word_bag_ignores_order_fillers_and_ing_forms() -> None:
    assert word_bag("dementia with Lewy bodies") == word_bag("Dementia, lewy body")
    assert word_bag("tremor at rest") == word_bag("Resting tremor")
    assert word_bag("Parkinson disease type 4") == word_bag("Parkinson disease 4")
    assert word_bag("Parkinson disease 4") != word_bag("Parkinson disease 14")
    assert stem("resting") == "rest" and stem("ring") == "ring"


def test_compact_joins_words() -> None:
    assert compact(next(iter(name_keys("Choreo-athetosis")))) == "choreoathetosis"


@pytest.mark.parametrize(
    ("written", "bare"),
    [
        ("TOR1A-related", "TOR1A"),
        ("PLA2G6-associated", "PLA2G6"),
        ("SNCA linked", "SNCA"),
        ("PANK2 deficiency", "PANK2"),
        ("Parkinson disease", None),
        ("related", None),
    ],
)
def test_strip_qualifier(written: str, bare: str | None) -> None:
    assert strip_qualifier(written) == bare


@pytest.mark.parametrize(
    ("name", "initials"),
    [
        ("Parkinson disease", "PD"),
        ("dementia with Lewy bodies", "DLB"),
        ("Parkinson disease 4", "PD4"),
        ("multiple system atrophy", "MSA"),
        ("Tremor", None),  # one word
    ],
)
def test_acronym(name: str, initials: str | None) -> None:
    assert acronym(name) == initials


@pytest.mark.parametrize(
    ("name", "variants"),
    [
        ("Freezing of gait", {"FOG"}),  # "of" spelt inside the name
        ("Oculogyric crisis", {"OGC"}),  # a combining form is an initial of its own
        ("excitatory postsynaptic potential", {"EPSP"}),
        ("Facioscapulohumeral dystrophy", {"FSHD"}),  # two combining forms in one word
        ("sleep-related hypermotor epilepsy", {"SHE"}),  # "related" left out
        ("Congenital fibrosis of extraocular muscles", {"CFEOM", "CFOEM", "CFOEOM"}),
        ("Postural tremor", set()),  # "post" + "ural": too short a rest to be a word
        ("Parkinson disease", set()),  # nothing other than the initials
        ("Niemann-Pick disease type C", {"NPC"}),  # the kind noun before a subtype's letter
        ("Gaucher disease type 1", set()),  # a subtype's number keeps it ("GD1")
    ],
)
def test_acronym_variants(name: str, variants: set[str]) -> None:
    assert acronym_variants(fold(name).split()) == variants


def test_common_words_are_everyday_english_only() -> None:
    words = common_words()
    assert 5000 < len(words) < 10000
    assert {"set", "falls", "fusion", "or"} <= words
    assert not {"tremor", "ataxia", "dystonia", "parkin", "synuclein"} & words


@pytest.mark.slow
def test_common_words_table_is_what_wordfreq_derives(tmp_path: Path) -> None:
    """Rederives the bundled table (needs ``pip install wordfreq==3.1.1``)."""
    pytest.importorskip("wordfreq", reason="wordfreq is needed to rederive the table")
    script = Path(__file__).parents[2] / "scripts" / "derive_common_words.py"
    subprocess.run([sys.executable, str(script), str(tmp_path)], check=True)
    bundled = Path(str(files("kgrecall") / "data" / "common_english.txt.gz")).read_bytes()
    assert (tmp_path / "common_english.txt.gz").read_bytes() == bundled


def test_word_bag_keeps_conjunctions_and_repeats() -> None:
    # "Isometric tremor and Tremor" lists two names: its bag is not "Isometric tremor"'s
    assert word_bag("Isometric tremor and Tremor") != word_bag("Isometric tremor")
    assert word_bag("tremor tremor") != word_bag("tremor")


def test_name_keys_leave_out_a_generic_tail_people_do_not_write() -> None:
    # HGNC's "sonic hedgehog signaling molecule" is "Sonic hedgehog" as biologists write it
    assert name_keys("sonic hedgehog signaling molecule") == {
        "sonic hedgehog signaling molecule",
        "sonic hedgehog",
    }
    assert name_keys("signaling molecule") == {"signaling molecule"}  # never an empty key


def test_name_keys_write_a_response_to_dopamine_replacement_as_people_do() -> None:
    keys = name_keys("Parkinsonism with favorable response to dopaminergic medication")
    assert {"dopa responsive parkinsonism", "levodopa responsive parkinsonism"} <= keys
    assert "l dopa responsive dystonia" in name_keys("Dopa-responsive dystonia")
    # a word ending in "dopa" is no "dopa-responsive" to rewrite
    assert name_keys("Levodopa-responsive dystonia") == {"levodopa responsive dystonia"}
    assert name_keys("Tremor") == {"tremor"}


def test_name_keys_name_a_tendon_reflex_by_its_joint_or_tendon() -> None:
    # HPO's "Absent patellar reflexes" is what people write "absent knee jerks"
    assert "absent knee jerk" in name_keys("Absent patellar reflexes")
    assert "decreased patellar reflex" in name_keys("Decreased knee jerk reflex")
    assert "absent ankle jerk" in name_keys("Absent Achilles reflex")
    # another reflex keeps its name alone
    assert name_keys("Absent plantar reflex") == {"absent plantar reflex"}


def test_name_keys_take_a_latin_plural_for_its_singular() -> None:
    assert name_keys("autophagy of mitochondria") == name_keys("autophagy of mitochondrion")
    assert name_keys("basal ganglia") == name_keys("basal ganglion")


def test_name_keys_leave_out_mitochondrial_before_the_respiratory_chain() -> None:
    # "complex I deficiency", "complex I assembly" and "respirasome assembly" as written
    assert "complex i deficiency" in name_keys("mitochondrial complex I deficiency")
    assert "respiratory chain complex assembly" in name_keys(
        "mitochondrial respiratory chain complex assembly"
    )
    assert "respirasome assembly" in name_keys("mitochondrial respirasome assembly")
    # other mitochondrial names keep the word: "translation" is not mitochondrial translation
    assert name_keys("mitochondrial translation") == {"mitochondrial translation"}


def test_name_keys_take_a_cell_parts_adjective_for_of_the_part() -> None:
    # GO's "autophagy of mitochondrion", "autophagy of peroxisome", as people write them
    assert name_keys("mitochondrial autophagy") <= name_keys("autophagy of mitochondrion")
    assert name_keys("mitochondrial autophagy") <= name_keys("autophagy of mitochondria")
    assert name_keys("peroxisomal autophagy") <= name_keys("autophagy of peroxisome")
    assert "nuclear piecemeal microautophagy" in name_keys(
        "piecemeal microautophagy of the nucleus"
    )
    # only a part of the cell, and only a short head: "release of cytochrome c" is kept as is
    assert name_keys("regulation of autophagosome size") == {"regulation of autophagosome size"}
    assert name_keys("release of cytochrome c from mitochondria") == {
        "release of cytochrome c from mitochondrion"
    }


def test_name_keys_take_metabolism_for_metabolic() -> None:
    # MONDO's "tetrahydrobiopterin metabolism disease", as a report writes it
    assert name_keys("tetrahydrobiopterin metabolic disease") & name_keys(
        "tetrahydrobiopterin metabolism disease"
    )


def test_name_keys_take_reduced_and_diminished_for_decreased() -> None:
    # HPO's "Decreased reflexes" (Hyporeflexia), as a clinic letter writes it
    assert name_keys("Reduced reflexes") == name_keys("Decreased reflexes")
    assert name_keys("diminished reflexes") == name_keys("Decreased reflexes")
