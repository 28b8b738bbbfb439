"""EntityIndex: tiers, symbols, acronyms, protein names through genes, and the minimum score."""

from __future__ import annotations

from pathlib import Path

import pytest

from kgrecall.kg import Edge, KGError, KGSchema, NetworkXStore, Node
from kgrecall.tools import EntityIndex, FulltextIndex, VectorIndex, linking


def names_store() -> NetworkXStore:
    """Names written the way sources write them, with edges giving each node a degree."""
    store = NetworkXStore(KGSchema.biomedical())
    store.add_nodes(
        [
            Node("G:SNCA", "gene", "SNCA", synonyms=("synuclein alpha", "PARK4", "NACP")),
            Node("P:SNCA", "protein", "SNCA", synonyms=("P37840",)),
            Node("G:SET", "gene", "SET"),
            Node("G:TOR1A", "gene", "TOR1A", synonyms=("DYT1", "torsin family 1 member A")),
            Node("G:SORT1", "gene", "SORT1", synonyms=("sortilin 1",)),
            Node("G:AARS1", "gene", "AARS1", synonyms=("alanyl-tRNA synthetase 1",)),
            *(
                Node(f"G:TMEM{n}", "gene", f"TMEM{n}", synonyms=(f"transmembrane protein {n}",))
                for n in (1, 2, 3, 4)
            ),
            Node("G:ATM", "gene", "ATM", synonyms=("AT Mutated Protein",)),
            Node("G:ATXN2", "gene", "ATXN2", synonyms=("SCA2",)),
            Node("D:PD", "disease", "Parkinson disease", synonyms=("paralysis agitans",)),
            Node("D:PICK", "disease", "Pick disease"),
            Node("D:PAGET", "disease", "Paget disease"),
            Node("D:DLB", "disease", "Dementia, lewy body"),
            Node("D:WILSON", "disease", "Wilson disease"),
            Node("D:EPILEPSY", "disease", "epilepsy", synonyms=("seizure disorder",)),
            Node("D:SCA2", "disease", "Spinocerebellar ataxia 2", synonyms=("SCA2",)),
            Node("D:DYT1", "disease", "Dystonia 1, torsion"),
            Node("H:OGC", "phenotype", "Oculogyric crisis"),
            Node("H:DYSTONIA", "phenotype", "Dystonia"),
            Node("H:TREMOR", "phenotype", "Resting tremor"),
            Node("H:CHOREO", "phenotype", "Choreoathetosis"),
        ]
    )
    edges = [Edge("G:SNCA", "encodes", "P:SNCA"), Edge("G:ATXN2", "associated_with", "D:SCA2")]
    edges += [Edge("G:SNCA", "associated_with", "D:PD")]
    # Parkinson disease is far better connected than the other "PD" diseases
    edges += [Edge("D:PD", "has_phenotype", p) for p in ("H:OGC", "H:TREMOR", "H:CHOREO")]
    edges += [Edge("G:TOR1A", "associated_with", d) for d in ("D:PD", "D:PICK", "D:DYT1")]
    edges += [Edge("G:TOR1A", "has_phenotype", "H:DYSTONIA")]
    store.add_edges(edges)
    return store


@pytest.fixture(scope="module")
def index() -> EntityIndex:
    return EntityIndex(names_store())


def best(index: EntityIndex, mention: str, **kwargs: object) -> tuple[str, str] | None:
    found = index.link(mention, k=1, **kwargs)  # type: ignore[arg-type]
    return (found[0].id, found[0].match) if found else None


@pytest.mark.parametrize(
    ("mention", "entity", "match"),
    [
        ("SNCA", "G:SNCA", "name"),
        ("P37840", "P:SNCA", "name"),
        ("G:SNCA", "G:SNCA", "id"),
        ("Huntington's disease", None, None),  # not in this KG: unlinked, nothing guessed
        ("Wilson's disease", "D:WILSON", "name"),  # folded: the possessive dropped
        ("Wilson's", "D:WILSON", "name"),  # a bare possessive eponym → "Wilson disease"
        ("Wilson syndrome", "D:WILSON", "name"),  # an eponym with the other noun
        ("Pick syndrome", "D:PICK", "name"),
        ("Dystonia syndrome", None, None),  # no such name under either noun
        ("dementia with Lewy bodies", "D:DLB", "word_order"),
        ("Lewy body dementia", "D:DLB", "normalized"),  # comma-inverted name
        ("oculogyric crises", "H:OGC", "normalized"),  # plural
        ("tremor at rest", "H:TREMOR", "word_order"),
        ("choreo-athetosis", "H:CHOREO", "compact"),
        ("DLB", "D:DLB", "acronym"),
        ("TOR1A-related", "G:TOR1A", "name"),  # qualifier stripped
        ("SNCA-lowering", "G:SNCA", "name"),  # what a therapy does to it
        ("TOR1A-related dystonia", "D:DYT1", "gene_qualified"),  # the gene's disease
        ("SORT1-related dystonia", None, None),  # SORT1 has no such disease
        ("TOR1A-related dystonia with", None, None),  # a name does not end on "with"
        ("TOR1A-related ...", None, None),  # nothing after the qualifier but punctuation
        ("alpha-synuclein", "G:SNCA", "word_order"),  # "synuclein alpha"
        ("sortilin", "G:SORT1", "word_order"),  # "sortilin 1"
        ("alanyl-tRNA synthetase", "G:AARS1", "word_order"),  # "… synthetase 1"
        ("transmembrane protein", None, None),  # a family of four: no one member
        ("AT mutated protein", "G:ATM", "name"),
        # the word order without "AT", an acronym spelt like a filler, is any such protein
        ("protein mutated", None, None),
        ("DJ1", None, None),
    ],
)
def test_tiers(index: EntityIndex, mention: str, entity: str | None, match: str | None) -> None:
    assert best(index, mention) == ((entity, match) if entity else None)


def test_symbols_match_case_sensitively_unless_they_hold_a_digit(index: EntityIndex) -> None:
    assert best(index, "SET") == ("G:SET", "name")
    assert index.lookup("set") == []  # the word
    assert best(index, "Tor1a") == ("G:TOR1A", "name")  # a digit: mouse-style case is fine
    assert index.lookup("Fig. 4") == []  # spaces never make a symbol


def test_proteins_are_found_by_their_genes_names(index: EntityIndex) -> None:
    found = index.link("synuclein alpha", node_types={"protein"})
    assert [e.id for e in found] == ["P:SNCA"]
    assert "PARK4" in index.names("P:SNCA")
    with pytest.raises(KGError, match="no entity"):
        index.names("nope")


def test_acronyms_go_to_the_dominant_entity_or_stay_ambiguous(index: EntityIndex) -> None:
    # "PD": Parkinson disease has ≥ 3× the edges of Pick and Paget disease
    assert best(index, "PD") == ("D:PD", "acronym")
    store = names_store()
    store.add_edges([Edge("G:SET", "associated_with", "D:PICK")] * 1)
    store.add_edges([Edge("G:SORT1", "associated_with", "D:PICK")])
    tied = EntityIndex(store).link("PD", k=3)
    assert [e.id for e in tied][:2] == ["D:PD", "D:PICK"]
    assert tied[0].score < 0.85 and all(e.match == "acronym" for e in tied)


def test_node_types_choose_between_gene_and_disease(index: EntityIndex) -> None:
    assert {e.id for e in index.link("SCA2")} == {"G:ATXN2", "D:SCA2"}
    assert best(index, "SCA2", node_types={"disease"}) == ("D:SCA2", "name")


def test_a_locus_name_names_the_disease_of_its_gene() -> None:
    # "PS1": a former symbol of a gene and a disease's name; the disease ranks first only when
    # the gene is linked to it (a locus name), however connected each is
    for linked in (True, False):
        store = NetworkXStore(KGSchema.biomedical())
        store.add_nodes(
            [
                Node("G:PSEN1", "gene", "PSEN1", synonyms=("PS1",)),
                Node("D:PS1", "disease", "Perrault syndrome 1", synonyms=("PS1",)),
                Node("D:AD", "disease", "Alzheimer disease"),
                Node("H:X", "phenotype", "Deafness"),
            ]
        )
        edges = [
            Edge("G:PSEN1", "associated_with", "D:AD"),
            Edge("G:PSEN1", "has_phenotype", "H:X"),
        ]
        edges += [Edge("G:PSEN1", "associated_with", "D:PS1")] if linked else []
        store.add_edges(edges)  # the gene is the better connected: it would come first
        index = EntityIndex(store)
        assert best(index, "PS1") == ("D:PS1" if linked else "G:PSEN1", "name")
        assert best(index, "PS1", node_types={"gene"}) == ("G:PSEN1", "name")
        assert best(index, "PSEN1") == ("G:PSEN1", "name")  # a gene's own symbol


def test_minimum_score_refuses_the_nearest_thing(tmp_path: Path) -> None:
    store = names_store()
    vector = VectorIndex.for_store(store, tmp_path, progress=False)
    strict = EntityIndex(store, FulltextIndex(store), vector)
    assert strict.link("breast cancer") == []
    nearest = strict.fuzzy("breast cancer", k=1)
    assert nearest and nearest[0].score < strict.min_score
    lenient = EntityIndex(store, FulltextIndex(store), vector, min_score=0.0)
    assert lenient.link("breast cancer") != []
    # a near-name passes: "Parkinson disease juvenile" shares most words with the name
    assert strict.link("Parkinson disease juvenile")[0].id == "D:PD"


def test_bad_settings_and_versions_are_refused() -> None:
    store = names_store()
    with pytest.raises(KGError, match="min_score"):
        EntityIndex(store, min_score=1.5)
    other = names_store()
    other.add_nodes([Node("X", "gene", "XYZ1")])
    with pytest.raises(KGError, match="another KG version"):
        EntityIndex(store, FulltextIndex(other))
    with pytest.raises(KGError, match="k must be"):
        EntityIndex(store).link("SNCA", k=0)


def test_shared_index_is_built_once_per_store_version() -> None:
    store = names_store()
    first = EntityIndex.shared(store)
    assert EntityIndex.shared(store) is first
    store.add_nodes([Node("G:NEW", "gene", "NEWG1")])
    rebuilt = EntityIndex.shared(store)
    assert rebuilt is not first and best(rebuilt, "NEWG1") == ("G:NEW", "name")


def test_two_acronyms_and_a_number_name_the_member_their_long_forms_name() -> None:
    store = NetworkXStore(KGSchema.biomedical())
    store.add_nodes(
        [
            Node("D:FTD", "disease", "frontotemporal dementia", synonyms=("FTD",)),
            Node("D:ALS", "disease", "amyotrophic lateral sclerosis", synonyms=("ALS",)),
            Node(
                "D:FA7", "disease", "Frontotemporal dementia and/or amyotrophic lateral sclerosis 7"
            ),
        ]
    )
    index = EntityIndex(store)
    # written with a slash, a dash, or run together: the long forms joined name member 7
    for written in ("FTD/ALS7", "FTD-ALS 7", "FTDALS7"):
        assert [(e.id, e.match) for e in index.lookup(written)] == [("D:FA7", "acronym")]
    assert index.lookup("FTD/ALS8") == [] and index.lookup("FTD/XYZ7") == []


def test_an_acronym_with_a_number_names_the_member_of_its_family() -> None:
    store = NetworkXStore(KGSchema.biomedical())
    store.add_nodes(
        [
            Node("D:PD", "disease", "Parkinson disease"),
            Node("D:PD7", "disease", "Parkinson disease 7, autosomal recessive early-onset"),
            Node("D:EA", "disease", "Episodic ataxia"),
            Node("D:EA2", "disease", "Episodic ataxia type 2"),
        ]
    )
    index = EntityIndex(store)
    assert [(e.id, e.match) for e in index.lookup("PD7")] == [("D:PD7", "acronym")]
    assert [e.id for e in index.lookup("EA-2")] == ["D:EA2"]
    assert index.lookup("PD9") == [] and index.lookup("pd7") == []
    assert [(e.id, e.match) for e in index.lookup("Parkinson disease 7")] == [
        ("D:PD7", "normalized")
    ]
    # a list in running text is not the first member's name, nor two numbers one number
    assert index.lookup("Parkinson disease 7, Parkinson disease") == []
    store.add_nodes([Node("D:EA12", "disease", "Episodic ataxia 12")])
    index = EntityIndex(store)
    assert [e.id for e in index.lookup("Episodic ataxia-12")] == ["D:EA12"]
    assert index.lookup("Episodic ataxia 1, 2") == []
    # "PD" alone is the better connected "Postural deformity"; the number still finds the
    # family that has a member 7
    store.add_nodes([Node("P:PD", "phenotype", "Postural deformity")])
    store.add_edges([Edge(d, "has_phenotype", "P:PD") for d in ("D:PD", "D:PD7", "D:EA", "D:EA2")])
    index = EntityIndex(store)
    assert [e.id for e in index.lookup("PD")] == ["P:PD"]
    assert [e.id for e in index.lookup("PD7")] == ["D:PD7"]


def test_the_number_goes_only_after_a_family_name_the_letters_abbreviate() -> None:
    # "Adie pupil" makes "AP", but its other name with a 4 is no "AP-4"
    store = NetworkXStore(KGSchema.biomedical())
    store.add_nodes(
        [
            Node("D:ADIE", "disease", "Adie pupil", synonyms=("Xeroderma pigmentosum",)),
            Node("D:XP4", "disease", "Xeroderma pigmentosum 4"),
            Node("D:AP4", "disease", "Adie pupil 4"),
        ]
    )
    assert [e.id for e in EntityIndex(store).lookup("AP-4")] == ["D:AP4"]
    without = NetworkXStore(KGSchema.biomedical())
    without.add_nodes([n for n in store.nodes() if n.id != "D:AP4"])
    assert EntityIndex(without).lookup("AP-4") == []


def test_an_abbreviation_inside_a_name_is_read_as_its_long_form() -> None:
    store = NetworkXStore(KGSchema.biomedical())
    store.add_nodes(
        [
            Node("D:FTD", "disease", "Frontotemporal dementia", synonyms=("FTD",)),
            Node("D:BVFTD", "disease", "Behavioral variant of frontotemporal dementia"),
            Node("D:JPD", "disease", "Juvenile Parkinson disease"),
            Node("D:PD", "disease", "Parkinson disease", synonyms=("PD",)),
            Node("H:PD", "phenotype", "Postural deformity", synonyms=("PD",)),
            Node("G:PDX", "gene", "PDX"),
        ]
    )
    index = EntityIndex(store)
    # the long form stands in for "FTD"; hyphens and British spelling as everywhere
    assert [(e.id, e.match) for e in index.lookup("Behavioural-variant FTD")] == [
        ("D:BVFTD", "acronym")
    ]
    # "PD" abbreviates two things; only one long form makes a name with "juvenile"
    assert [e.id for e in index.lookup("juvenile PD")] == ["D:JPD"]
    # nothing is named by the expanded words: unlinked; a gene symbol is never expanded
    assert index.lookup("sporadic FTD") == [] and index.lookup("juvenile PDX") == []
    # one entity with many names is one meaning: its names are all tried
    types = [f"Alzheimer disease type {n}" for n in range(20)]
    store.add_nodes([Node("D:AD", "disease", "Alzheimer disease", synonyms=("AD", *types))])
    store.add_nodes([Node("D:EOAD", "disease", "Early-onset Alzheimer disease")])
    assert [e.id for e in EntityIndex(store).lookup("early-onset AD")] == ["D:EOAD"]
    # an abbreviation of more than _MAX_MEANT entities says nothing
    store.add_nodes([Node(f"D:X{n}", "disease", f"Alpha delta {n}", synonyms=("AD",))
                     for n in range(13)])  # fmt: skip
    assert EntityIndex(store).lookup("early-onset AD") == []


def test_a_lower_case_initial_before_an_abbreviation_is_its_qualifier() -> None:
    store = NetworkXStore(KGSchema.biomedical())
    store.add_nodes(
        [
            Node("D:ALS", "disease", "Amyotrophic lateral sclerosis", synonyms=("ALS",)),
            Node("D:FALS", "disease", "familial amyotrophic lateral sclerosis"),
            Node("D:SETX", "disease", "SETX amyotrophic lateral sclerosis"),
            Node("D:TTP", "disease", "Thrombotic thrombocytopenic purpura", synonyms=("TTP",)),
            Node("D:CTTP", "disease", "Thrombotic thrombocytopenic purpura, congenital"),
            Node("G:SETX", "gene", "SETX"),
            Node("GO:1", "go_term", "mini excitatory postsynaptic potential"),
            Node("GO:2", "go_term", "excitatory postsynaptic potential", synonyms=("EPSP",)),
        ]
    )
    index = EntityIndex(store)
    # the initial of a word before a long form of the abbreviation, or after it (comma-inverted)
    assert [(e.id, e.match) for e in index.lookup("fALS")] == [("D:FALS", "acronym")]
    assert [e.id for e in index.lookup("cTTP")] == ["D:CTTP"]
    assert [e.id for e in index.lookup("mEPSP")] == ["GO:1"]
    # a gene symbol is no qualifier, and no name with the initial: unlinked
    assert index.lookup("sALS") == [] and index.lookup("jALS") == []


def test_an_abbreviation_expands_to_the_head_of_a_comma_name_too() -> None:
    # "PD" is only a synonym of "Parkinson disease, late-onset": its head is a long form too
    store = NetworkXStore(KGSchema.biomedical())
    store.add_nodes(
        [
            Node("D:LOPD", "disease", "Parkinson disease, late-onset", synonyms=("PD",)),
            Node("D:YOPD", "disease", "Young-onset Parkinson disease"),
        ]
    )
    index = EntityIndex(store)
    assert [(e.id, e.match) for e in index.lookup("young-onset PD")] == [("D:YOPD", "acronym")]


def test_an_abbreviation_is_expanded_to_its_entitys_own_name_first() -> None:
    # "CDG" is also a synonym's initials ("carbohydrate-deficient glycoprotein syndrome"), and
    # "type II" under that synonym is type IIa's; the entity's own name gives type II
    store = NetworkXStore(KGSchema.biomedical())
    store.add_nodes(
        [
            Node(
                "D:CDG",
                "disease",
                "congenital disorder of glycosylation",
                synonyms=("CDG", "carbohydrate-deficient glycoprotein syndrome"),
            ),
            Node("D:CDG2", "disease", "congenital disorder of glycosylation type II"),
            Node(
                "D:CDG2A",
                "disease",
                "Congenital disorder of glycosylation, type IIa",
                synonyms=("carbohydrate-deficient glycoprotein syndrome, type II",),
            ),
            Node("D:CDG1I", "disease", "Congenital disorder of glycosylation, type Ii"),
        ]
    )
    assert [e.id for e in EntityIndex(store).lookup("type II CDG")] == ["D:CDG2"]


def test_an_abbreviation_before_a_comma_is_expanded_with_the_comma_kept() -> None:
    store = NetworkXStore(KGSchema.biomedical())
    store.add_nodes(
        [
            Node("D:EDS", "disease", "Ehlers-Danlos syndrome", synonyms=("EDS",)),
            Node("D:KEDS2", "disease", "Ehlers-Danlos syndrome, kyphoscoliotic type, 2"),
        ]
    )
    found = EntityIndex(store).lookup("EDS, kyphoscoliotic type 2")
    assert [(e.id, e.match) for e in found] == [("D:KEDS2", "acronym")]


def test_one_word_names_and_the_words_of_names(index: EntityIndex) -> None:
    # what a misspelt question word is compared with, and the words that are no misspelling
    assert "dystonia" in index.one_word_names and "choreoathetosis" in index.one_word_names
    assert "parkinson disease" not in index.one_word_names
    assert {"parkinson", "lewy", "resting"} <= index.name_words


def test_an_entity_named_by_the_mention_comes_before_one_with_it_as_a_synonym() -> None:
    # the same words are an Orphanet record's name and a synonym of a better connected OMIM
    # record: the record the words name is meant; the synonym still links without it
    store = NetworkXStore(KGSchema.biomedical())
    store.add_nodes(
        [
            Node(
                "OMIM:1",
                "disease",
                "Parkinson disease, late-onset",
                synonyms=("hereditary late-onset Parkinson disease",),
            ),
            Node("ORPHA:2", "disease", "Hereditary late-onset Parkinson disease"),
            Node("H:1", "phenotype", "Tremor"),
            Node("H:2", "phenotype", "Rigidity"),
        ]
    )
    store.add_edges([Edge("OMIM:1", "has_phenotype", h) for h in ("H:1", "H:2")])
    index = EntityIndex(store)
    assert [e.id for e in index.link("hereditary late-onset Parkinson disease", k=2)] == [
        "ORPHA:2",
        "OMIM:1",
    ]
    assert best(index, "late-onset Parkinson disease, hereditary") == ("ORPHA:2", "word_order")


def test_two_names_of_one_entity_joined_by_a_slash() -> None:
    index = EntityIndex(names_store())
    assert best(index, "PARK4/NACP", node_types={"gene"}) == ("G:SNCA", "name")
    assert index.lookup("SNCA/SET") == []  # two entities: no link
    # a symbol written with a space and a slash: "hnRNP A2/B1" is HNRNPA2B1
    store = NetworkXStore(KGSchema.biomedical())
    store.add_nodes([Node("G:H", "gene", "HNRNPA2B1")])
    assert [(e.id, e.match) for e in EntityIndex(store).lookup("hnRNP A2/B1")] == [("G:H", "name")]


def test_go_neurotransmitter_secretion_is_found_as_biologists_write_it() -> None:
    store = NetworkXStore(KGSchema.biomedical())
    store.add_nodes(
        [
            Node("GO:0061527", "go_term", "dopamine secretion, neurotransmission"),
            Node("GO:0001963", "go_term", "synaptic transmission, dopaminergic"),
        ]
    )
    index = EntityIndex(store)
    for mention in ("dopamine secretion", "Dopamine release"):
        assert best(index, mention) == ("GO:0061527", "normalized"), mention
    # only that GO naming: a qualifier after another name's comma is not dropped
    assert index.lookup("synaptic transmission") == []


def numbered_family_store() -> NetworkXStore:
    """A disease family, two numbered members and a coordinated name."""
    store = NetworkXStore(KGSchema.biomedical())
    store.add_nodes(
        [
            Node("D:HSP", "disease", "Hereditary spastic paraplegia"),
            Node("D:SPG3", "disease", "Spastic paraplegia 3, autosomal dominant"),
            Node("D:SPG4", "disease", "Spastic paraplegia, autosomal dominant, type 4"),
            Node("D:KSS", "disease", "Kallmann syndrome with spastic paraplegia"),
            Node("D:PND", "disease", "Spastic paraplegia-nephropathy-deafness syndrome"),
            Node("H:DEAF", "phenotype", "Deafness"),
        ]
    )
    return store


def test_a_numbered_member_is_not_its_family_by_fuzzy_match(tmp_path: Path) -> None:
    store = numbered_family_store()
    vector = VectorIndex.for_store(store, tmp_path, progress=False)
    index = EntityIndex(store, FulltextIndex(store), vector, min_score=0.0)
    # every fuzzy candidate holds the number: the family and the other member are left out
    assert {e.id for e in index.fuzzy("hereditary spastic paraplegia 4", k=5)} == {"D:SPG4"}
    assert "D:HSP" in {e.id for e in index.fuzzy("hereditary spastic paraplegia", k=5)}


def test_closest_name_holds_the_added_words_and_the_number() -> None:
    index = EntityIndex(numbered_family_store())
    found = index.closest_name("spastic paraplegia type 4", "disease", required=["type", "4"])
    assert found is not None and found.id == "D:SPG4"
    # every added word must be in the name ("recessive" is in none); wrong type: nothing
    assert (
        index.closest_name("recessive spastic paraplegia", "disease", required=["recessive"])
        is None
    )
    assert index.closest_name("spastic paraplegia type 4", "phenotype", required=["4"]) is None
    # a coordination reads as one name only when the name holds all its words
    coordinated = "spastic paraplegia, nephropathy and deafness syndrome"
    words = coordinated.replace(",", "").split()
    assert index.closest_name(coordinated, "disease", required=words).id == "D:PND"  # type: ignore[union-attr]


def test_a_word_is_in_some_name_only_of_an_entity_that_is_no_gene() -> None:
    store = numbered_family_store()
    store.add_nodes([Node("G:KAL1", "gene", "ANOS1", synonyms=("anosmin 1",))])
    index = EntityIndex(store)
    assert index.in_some_name("nephropathy") and index.in_some_name("Deafness")
    assert index.in_some_name("of")  # a filler is no content word: nothing to hold
    assert not index.in_some_name("anosmin")  # a gene's name is no phrase in prose
    assert not index.in_some_name("migraine")
    # the one name holding both words is found whichever of them is rarer
    found = index.closest_name("Kallmann spastic paraplegia", "disease", required=["Kallmann"])
    assert found is not None and found.id == "D:KSS"
    assert index.closest_name("anosmin paraplegia", "disease", required=["anosmin"]) is None


def test_a_bare_eponym_names_its_disease_only_when_asked(index: EntityIndex) -> None:
    assert [e.id for e in index.lookup("Paget", bare_eponyms=True)] == ["D:PAGET"]
    assert [e.id for e in index.lookup("paget", bare_eponyms=True)] == ["D:PAGET"]  # chat
    assert index.lookup("Paget") == []  # in prose a bare eponym may be a cell or an author
    assert index.lookup("Pick", bare_eponyms=True) == []  # an everyday word ("pick")


def test_a_possessive_names_a_disease_only_after_a_proper_name(index: EntityIndex) -> None:
    assert [e.id for e in index.lookup("Wilson's")] == ["D:WILSON"]
    # "Seizure's" is no eponym: MONDO's "seizure disorder" names no Dr Seizure
    assert index.lookup("Seizure's") == []


def test_a_clinical_adjective_names_its_phenotype(index: EntityIndex) -> None:
    assert best(index, "dystonic features") == ("H:DYSTONIA", "name")
    assert best(index, "dystonic") == ("H:DYSTONIA", "name")
    assert index.lookup("dystonic features", node_types={"disease"}) == []
    assert index.lookup("tremoric") == []  # no phenotype "tremoria"


def test_a_symbol_before_a_clinical_name_is_the_genes_disease(index: EntityIndex) -> None:
    assert best(index, "TOR1A dystonia") == ("D:DYT1", "gene_qualified")
    assert index.lookup("TOR1A mutations") == []  # the gene's sequence, not a disease
    assert index.lookup("SORT1 dystonia") == []  # SORT1 has no such disease


def test_a_movement_disorder_society_name_is_the_genes_disease(index: EntityIndex) -> None:
    # a phenotype prefix and the gene: the gene's disease whose name holds the prefix's words
    assert best(index, "DYT-TOR1A") == ("D:DYT1", "gene_qualified")
    assert best(index, "PARK-SNCA") == ("D:PD", "gene_qualified")
    assert best(index, "NBIA/DYT-TOR1A") == ("D:DYT1", "gene_qualified")  # the second prefix
    assert [e.id for e in index.lookup("PARK-TOR1A")] == ["D:PD"]  # of its three diseases
    assert index.lookup("SCA-TOR1A") == []  # no spinocerebellar ataxia of TOR1A
    assert index.lookup("DYT-SORT1") == []  # SORT1 has no disease


def test_of_equal_records_the_one_the_mention_abbreviates_comes_first() -> None:
    store = NetworkXStore(KGSchema.biomedical())
    store.add_nodes(
        [
            Node("OMIM:1", "disease", "Neurodegeneration with brain iron accumulation 1",
                 synonyms=("PKAN",)),
            Node("ORPHA:2", "disease", "Pantothenate kinase-associated neurodegeneration",
                 synonyms=("PKAN",)),
            Node("H:1", "phenotype", "Rigidity"),
        ]
    )  # fmt: skip
    # the OMIM record is better connected, yet PKAN abbreviates the Orphanet record's name
    store.add_edges([Edge("OMIM:1", "has_phenotype", "H:1")])
    found = EntityIndex(store).lookup("PKAN")
    assert [e.id for e in found] == ["ORPHA:2", "OMIM:1"]
    assert found[0].score == found[1].score  # still a tie: the caller reports it ambiguous


def test_of_equal_records_a_family_comes_before_its_numbered_members() -> None:
    store = NetworkXStore(KGSchema.biomedical())
    store.add_nodes(
        [
            Node("OMIM:1", "disease", "Alzheimer disease 3", synonyms=("AD", "AD3")),
            Node("OMIM:2", "disease", "Alzheimer disease", synonyms=("AD", "AD1")),
        ]
    )  # fmt: skip
    index = EntityIndex(store)
    # "AD" abbreviates both names: the one without a member's number is meant
    assert [e.id for e in index.lookup("AD")] == ["OMIM:2", "OMIM:1"]
    assert [e.id for e in index.lookup("AD3")] == ["OMIM:1"]


def test_a_british_spelling_also_finds_the_entity_named_in_american() -> None:
    store = NetworkXStore(KGSchema.biomedical())
    store.add_nodes(
        [
            Node("H:GD", "phenotype", "Generalized dystonia", synonyms=("Generalised dystonia",)),
            Node("D:GD", "disease", "generalized dystonia"),
        ]
    )
    found = EntityIndex(store).lookup("generalised dystonia")
    assert [(e.id, e.match) for e in found] == [("H:GD", "name"), ("D:GD", "normalized")]


def test_an_abbreviation_spelling_an_entitys_own_name_names_it_first() -> None:
    store = NetworkXStore(KGSchema.biomedical())
    store.add_nodes(
        [
            Node("ORPHA:683", "disease", "Progressive supranuclear palsy"),
            Node("ORPHA:240071", "disease", "Classic progressive supranuclear palsy syndrome",
                 synonyms=("PSP",)),
            Node("P:PSPN", "protein", "PSPN", synonyms=("PSP",)),
            Node("D:CMT", "disease", "Charcot-Marie-Tooth disease", synonyms=("CMT",)),
            Node("D:CAT", "disease", "Cataract 11, multiple types"),
            Node("D:DRD", "disease", "dopa-responsive dystonia"),
            Node("D:DNA", "disease", "DNA repair disease"),
            Node("D:ADDRD", "disease", "Autosomal dominant dopa-responsive dystonia",
                 synonyms=("DRD",)),
            Node("G:FLVCR1", "gene", "FLVCR1", synonyms=("PCA",)),
            Node("D:PCA", "disease", "Posterior column ataxia"),
        ]
    )  # fmt: skip
    index = EntityIndex(store)
    found = index.lookup("PSP")
    # "PSP" spells the Orphanet record's own name; the records with it as a synonym follow
    assert found[0].id == "ORPHA:683" and found[0].score == found[1].score
    assert {e.id for e in found[1:]} == {"ORPHA:240071", "P:PSPN"}
    # a record found is itself so named ("CMT" abbreviates Charcot-Marie-Tooth disease): as
    # it was, and a numbered member the letters also spell is not added
    assert [e.id for e in index.lookup("CMT")] == ["D:CMT"]
    # two entities spell "DRD", neither dominant: no guess between them
    assert [e.id for e in index.lookup("DRD")] == ["D:ADDRD"]
    # only a gene carries "PCA": no clinical name is meant ("the PCA plot")
    assert [e.id for e in index.lookup("PCA")] == ["G:FLVCR1"]


def test_an_abbreviation_a_subtype_carries_names_the_general_disease_that_spells_it() -> None:
    store = NetworkXStore(KGSchema.biomedical())
    store.add_nodes(
        [
            Node("D:DCM", "disease", "dilated cardiomyopathy"),
            Node("D:FDCM", "disease", "familial dilated cardiomyopathy", synonyms=("DCM",)),
            Node("D:COPPER", "disease", "disorder of copper metabolism"),
        ]
    )
    store.add_edges([Edge("D:FDCM", "subclass_of", "D:DCM")])
    # "DCM" spells "disorder of copper metabolism" by its initials and "dilated
    # cardiomyopathy" by its combining form (cardio-myopathy); the record that carries it
    # descends from the latter, which is what the letters name
    found = EntityIndex(store).lookup("DCM")
    assert [e.id for e in found] == ["D:DCM", "D:FDCM"]


def test_a_ligand_symbol_and_receptor_name_the_receptor_symbol() -> None:
    store = NetworkXStore(KGSchema.biomedical())
    store.add_nodes(
        [
            Node("G:VLDLR", "gene", "VLDLR", synonyms=("very low density lipoprotein receptor",)),
            Node("G:SETR", "gene", "SETR", synonyms=("set domain protein",)),
        ]
    )
    index = EntityIndex(store)
    [found] = index.lookup("VLDL receptor")
    assert (found.id, found.match) == ("G:VLDLR", "acronym")
    assert index.lookup("SET receptor") == []  # SETR is no receptor by its name


def test_a_receptor_is_named_by_its_subtype_alone() -> None:
    store = NetworkXStore(KGSchema.biomedical())
    store.add_nodes(
        [
            Node("G:DRD2", "gene", "DRD2", synonyms=("dopamine receptor D2",)),
            Node("G:HRH1", "gene", "HRH1", synonyms=("histamine H1 receptor",)),
            Node("G:PTGDR", "gene", "PTGDR", synonyms=("prostaglandin D2 receptor",)),
        ]
    )
    index = EntityIndex(store)
    assert [e.id for e in index.lookup("D2 receptor")] == ["G:DRD2"]
    assert [e.id for e in index.lookup("H1 receptor")] == ["G:HRH1"]
    # the letter and number belong to the ligand: "prostaglandin D2" is no subtype
    assert "G:PTGDR" not in {e.id for e in index.lookup("D2 receptor")}


def test_a_bracketed_other_name_and_a_precursors_peptide_name_the_protein() -> None:
    store = NetworkXStore(KGSchema.biomedical())
    store.add_nodes(
        [
            Node("P:HCRT", "protein", "HCRT",
                 synonyms=("hypocretin (orexin) neuropeptide precursor",)),
            Node("P:HCRTR1", "protein", "HCRTR1", synonyms=("hypocretin (orexin) receptor 1",)),
            Node("P:NGF", "protein", "NGF", synonyms=("nerve growth factor (beta polypeptide)",)),
            Node("P:NPPA", "protein", "NPPA", synonyms=("natriuretic peptide precursor A",)),
        ]
    )  # fmt: skip
    index = EntityIndex(store)
    for mention in ("orexin", "Hypocretin", "orexin neuropeptide precursor"):
        assert [e.id for e in index.lookup(mention)] == ["P:HCRT"], mention
    assert [e.id for e in index.lookup("orexin receptor 1")] == ["P:HCRTR1"]
    # a bracket at the end explains the name; "natriuretic peptide" is no peptide's own name
    assert index.lookup("beta polypeptide") == []
    assert index.lookup("natriuretic") == []


def test_a_chain_is_named_without_subunit_and_a_collagen_by_its_type() -> None:
    store = NetworkXStore(KGSchema.biomedical())
    store.add_nodes(
        [
            Node("P:LAMB2", "protein", "LAMB2", synonyms=("laminin subunit beta 2",)),
            Node("P:COL13A1", "protein", "COL13A1",
                 synonyms=("collagen type XIII alpha 1 chain",)),
        ]
    )  # fmt: skip
    index = EntityIndex(store)
    assert [e.id for e in index.lookup("laminin β2")] == ["P:LAMB2"]
    for mention in ("collagen XIII", "type XIII collagen"):
        assert [e.id for e in index.lookup(mention)] == ["P:COL13A1"], mention
    assert index.lookup("laminin") == []  # the family alone names no chain


def test_a_double_eponym_alone_names_its_syndrome() -> None:
    store = NetworkXStore(KGSchema.biomedical())
    store.add_nodes([Node("D:PMS", "disease", "Phelan-Mcdermid syndrome")])
    index = EntityIndex(store)
    assert [e.id for e in index.lookup("Phelan-McDermid")] == ["D:PMS"]
    assert index.lookup("Phelan") == []  # one name alone is no double eponym


def test_a_disease_due_to_a_deficiency_is_named_by_the_deficiency() -> None:
    store = NetworkXStore(KGSchema.biomedical())
    store.add_nodes(
        [
            Node("D:HPABH4", "disease", "Hyperphenylalaninemia due to BH4 deficiency"),
            Node("D:LS4", "disease", "Leigh syndrome due to mitochondrial complex IV deficiency"),
            Node("D:C4", "disease", "Mitochondrial complex IV deficiency"),
        ]
    )
    index = EntityIndex(store)
    assert [e.id for e in index.lookup("BH4 deficiency")] == ["D:HPABH4"]
    # a name another disease has exactly is that disease's
    assert [e.id for e in index.lookup("mitochondrial complex IV deficiency")] == ["D:C4"]


def test_a_numbered_disease_by_the_locus_symbol_its_family_members_share() -> None:
    # five members carry both "PARKn" and "Parkinson disease n": the family's symbol; a sixth
    # without a symbol of its own is found by "PARK24"
    store = NetworkXStore(KGSchema.biomedical())
    members = [
        Node(f"D:PD{n}", "disease", f"Parkinson disease {n}", synonyms=(f"PARK{n}",))
        for n in (1, 2, 6, 7, 8)
    ]
    store.add_nodes(
        [*members, Node("D:PD24", "disease", "Parkinson disease 24, autosomal dominant")]
    )
    assert [(e.id, e.match) for e in EntityIndex(store).lookup("PARK24")] == [
        ("D:PD24", "normalized")
    ]
    # four members are too few to learn a symbol from
    fewer = NetworkXStore(KGSchema.biomedical())
    fewer.add_nodes([n for n in store.nodes() if n.id != "D:PD8"])
    assert EntityIndex(fewer).lookup("PARK24") == []


def test_a_susceptibility_is_named_by_what_it_is_to() -> None:
    store = NetworkXStore(KGSchema.biomedical())
    store.add_nodes([Node("D:KURU", "disease", "KURU, SUSCEPTIBILITY TO")])
    assert [e.id for e in EntityIndex(store).lookup("kuru")] == ["D:KURU"]


@pytest.mark.parametrize(
    ("written", "expected"),
    [
        ("inborn errors of phenylalanine and tyrosine metabolism", "D:PHETYR"),
        ("Phenylalanine disorders", "D:PHE"),
        ("disorders of the methionine cycle and sulfur amino acids", "D:MET"),
        ("amino-acid transport defect", "D:TRANSPORT"),
        # the general class's own name is not made ambiguous by the inborn class's variants
        ("amino acid metabolism disorder", "D:AA"),
        ("disorders of amino acid metabolism", "D:AA"),
    ],
)
def test_a_disease_group_is_linked_as_people_write_it(written: str, expected: str) -> None:
    store = NetworkXStore(KGSchema.biomedical())
    store.add_nodes(
        [
            Node("D:PHETYR", "disease", "inborn disorder of phenylalanine and tyrosine metabolism"),
            Node("D:PHE", "disease", "disorder of phenylalanine metabolism"),
            Node(
                "D:MET",
                "disease",
                "inborn disorder of methionine cycle and sulfur amino acid metabolism",
            ),
            Node("D:TRANSPORT", "disease", "inborn disorder of amino acid transport"),
            Node("D:INBORN", "disease", "inborn disorder of amino acid metabolism"),
            Node("D:AA", "disease", "amino acid metabolism disease"),
            Node("C:PHE", "chemical", "phenylalanine"),
        ]
    )
    assert [e.id for e in EntityIndex(store).lookup(written)] == [expected]


def test_a_name_written_with_its_hyphen_wins_over_an_alias_without_it() -> None:
    store = NetworkXStore(KGSchema.biomedical())
    store.add_nodes(
        [
            Node("P:NTF3", "protein", "NTF3", synonyms=("neurotrophin 3", "NT-3")),
            Node("P:SORT1", "protein", "SORT1", synonyms=("sortilin 1", "NT3")),
            Node("H:1", "phenotype", "Rigidity"),
        ]
    )
    # SORT1 is the better connected: only the hyphen tells them apart
    store.add_edges([Edge("P:SORT1", "interacts_with", "P:NTF3")])
    index = EntityIndex(store)
    assert [e.id for e in index.lookup("NT-3")] == ["P:NTF3"]
    assert [e.id for e in index.lookup("NT3")] == ["P:SORT1"]


def test_an_abbreviation_in_the_plural_names_what_its_singular_names() -> None:
    store = NetworkXStore(KGSchema.biomedical())
    store.add_nodes(
        [
            Node("D:HSP", "disease", "hereditary spastic paraplegia", synonyms=("HSP",)),
            Node("D:CHSP", "disease", "complex hereditary spastic paraplegia",
                 synonyms=("complex HSP",)),
            Node("D:CA", "disease", "Choreoacanthocytosis"),
            Node("D:AMC", "disease", "Arthrogryposis multiplex congenita"),
            Node("G:SLC25A11", "gene", "SLC25A11", synonyms=("OGC",)),
        ]
    )  # fmt: skip
    index = EntityIndex(store)
    [found] = index.lookup("HSPs")
    assert (found.id, found.match, found.exact) == ("D:HSP", "normalized", False)
    assert [e.id for e in index.lookup("complex HSPs")] == ["D:CHSP"]
    # two letters that only spell names are no abbreviation in the plural, nor is a gene
    # symbol; three or more that spell one name alone are ("AMCs")
    assert index.lookup("CAs") == [] and index.lookup("OGCs") == []
    assert [e.id for e in index.lookup("AMCs")] == ["D:AMC"]


def test_hyphenated_eponyms_are_abbreviated_without_syndrome() -> None:
    store = NetworkXStore(KGSchema.biomedical())
    store.add_nodes([Node("D:GSS", "disease", "Gerstmann-Straussler-Scheinker syndrome")])
    [found] = EntityIndex(store).lookup("GSS")
    assert (found.id, found.match) == ("D:GSS", "acronym")


@pytest.mark.parametrize("hierarchy", [True, False])
def test_an_abbreviation_of_a_disease_and_its_records_means_the_disease(hierarchy: bool) -> None:
    store = NetworkXStore(KGSchema.biomedical())
    store.add_nodes(
        [
            Node("D:PARK", "disease", "parkinsonian disorder"),
            Node("D:PD", "disease", "Parkinson disease"),
            Node("D:LATE", "disease", "Parkinson disease, late-onset", synonyms=("PD",)),
            Node("D:HLATE", "disease", "Hereditary late-onset Parkinson disease", synonyms=("PD",)),
        ]
    )
    if hierarchy:
        store.add_edges(
            [
                Edge("D:LATE", "subclass_of", "D:PD"),
                Edge("D:HLATE", "subclass_of", "D:PD"),
                Edge("D:PD", "subclass_of", "D:PARK"),
            ]
        )
    first = EntityIndex(store).lookup("PD")[0]
    # the nearest disease both records descend from, not the wider class that also spells PD;
    # without the hierarchy the letters alone choose no disease over the records named so
    assert first.id == ("D:PD" if hierarchy else "D:LATE")


def test_lookups_are_remembered_boundedly_and_handed_out_as_copies(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    store = NetworkXStore(KGSchema.biomedical())
    store.add_nodes([Node("D:HSP", "disease", "hereditary spastic paraplegia", synonyms=("HSP",))])
    index = EntityIndex(store)
    first = index.lookup("HSP")
    first.clear()  # a caller's list is its own
    assert [e.id for e in index.lookup("HSP")] == ["D:HSP"]
    assert index.lookup("HSP", node_types={"gene"}) == []  # node types are part of the key
    monkeypatch.setattr(linking, "LOOKUPS_REMEMBERED", 2)
    for mention in ("HSP", "hereditary spastic paraplegia", "HSPs", "paraplegia"):
        index.lookup(mention)
    assert len(index._looked_up) == 2  # the oldest forgotten
    assert [e.id for e in index.lookup("HSP")] == ["D:HSP"]  # and looked up again


def test_a_symbol_with_a_greek_letter_matches_the_letter_spelt_out() -> None:
    store = NetworkXStore(KGSchema.biomedical())
    store.add_nodes(
        [
            Node("P:TGFA", "protein", "TGFA", synonyms=("TGF-alpha",)),
            Node("P:TGFB1", "protein", "TGFB1", synonyms=("TGF-β1",)),
        ]
    )
    index = EntityIndex(store)
    for mention in ("TGF-α", "TGFalpha", "TGF-alpha"):
        assert [e.id for e in index.lookup(mention)] == ["P:TGFA"], mention
    for mention in ("TGF-β1", "TGF-beta1"):  # a symbol written with the letter itself
        assert [e.id for e in index.lookup(mention)] == ["P:TGFB1"], mention
    assert index.lookup("Tgf-α") == []  # a symbol matches up to its case only as before
