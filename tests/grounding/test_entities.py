"""Entity mentions: identifiers by regex, names by dictionary, case rules, spans."""

from __future__ import annotations

from pathlib import Path

import pytest

from kgrecall.grounding.entities import EntityExtractor, _Sentences, is_procedure
from kgrecall.kg import DEMO_NAME, KGError, NetworkXStore, Workspace
from kgrecall.tools import EntityIndex, FulltextIndex, VectorIndex
from kgrecall.tools.kg_indexes import INDEX_FOLDER


@pytest.fixture(scope="module")
def extractor(demo: NetworkXStore) -> EntityExtractor:
    return EntityExtractor(demo)


def found(extractor: EntityExtractor, text: str) -> list[tuple[str, str, str]]:
    mentions = extractor.extract(text)
    for m in mentions:
        assert text[m.start : m.end] == m.text
    return [(m.text, m.id, m.kind) for m in mentions]


def test_identifiers_are_found_and_normalised() -> None:
    text = (
        "See GO:0006915, HP_0001300, MONDO:0005180, CHEBI:15377 and NCBITaxon:9606; "
        "UniProt P37840 and A0A024R161; KEGG hsa04010, hsa:6622, K04371 and KEGG C00002; "
        "PDB 1XQ8; in Homo sapiens and E. coli."
    )
    result = found(EntityExtractor(), text)
    assert ("GO:0006915", "GO:0006915", "curie") in result
    assert ("HP_0001300", "HP:0001300", "curie") in result
    assert ("MONDO:0005180", "MONDO:0005180", "curie") in result
    assert ("P37840", "uniprot:P37840", "uniprot") in result
    assert ("A0A024R161", "uniprot:A0A024R161", "uniprot") in result
    assert ("hsa04010", "kegg:hsa04010", "kegg") in result
    assert ("hsa:6622", "kegg:hsa:6622", "kegg") in result
    assert ("C00002", "kegg:C00002", "kegg") in result
    assert ("1XQ8", "pdb:1XQ8", "pdb") in result
    assert ("Homo sapiens", "NCBITaxon:9606", "species") in result
    assert ("E. coli", "NCBITaxon:562", "species") in result


def test_context_gated_identifiers_need_their_context() -> None:
    plain = found(EntityExtractor(), "In 1998 about 2000 cases; C00002 was measured.")
    assert plain == []


def test_dictionary_longest_match_and_symbols(extractor: EntityExtractor) -> None:
    result = found(
        extractor, "SNCA is associated with Parkinson disease 4 and with snca-like genes."
    )
    assert result[0] == ("SNCA", "NCBIGene:6622", "dictionary")
    assert ("Parkinson disease 4", "OMIM:605543", "dictionary") in result
    assert all(text != "snca-like" for text, _, _ in result)  # symbols are case-sensitive


def test_symbols_that_are_english_words_need_biology_context(
    extractor: EntityExtractor, demo: NetworkXStore
) -> None:
    assert demo.lookup("SET"), "the demo KG has the gene SET"
    assert not [m for m in extractor.extract("We SET the threshold high.") if m.text == "SET"]
    with_context = extractor.extract("Expression of the SET gene rises.")
    assert [m.id for m in with_context if m.text == "SET"] == ["NCBIGene:6418"]


def test_in_kg_flags_ids_the_graph_has(extractor: EntityExtractor) -> None:
    mentions = {m.text: m for m in extractor.extract("OMIM:605543 and GO:9999999")}
    assert mentions["OMIM:605543"].in_kg
    assert not mentions["GO:9999999"].in_kg


def ids(extractor: EntityExtractor, text: str) -> dict[str, str]:
    return {m.text: m.id for m in extractor.extract(text) if m.kind == "dictionary"}


def test_names_as_people_write_them(extractor: EntityExtractor) -> None:
    text = (
        "Huntington's disease and dementia with Lewy bodies differ; α-synuclein aggregates "
        "and oculogyric crises are seen in TOR1A-related cases."
    )
    found_ids = ids(extractor, text)
    assert found_ids["Huntington's disease"] in {"OMIM:143100", "ORPHA:399"}
    assert found_ids["dementia with Lewy bodies"] == "OMIM:127750"
    assert found_ids["α-synuclein"] in {"NCBIGene:6622", "uniprot:P37840"}
    assert found_ids["oculogyric crises"] == "HP:0010553"
    assert found_ids["TOR1A-related"] == "NCBIGene:1861"


def test_a_list_does_not_end_in_a_name_holding_and(extractor: EntityExtractor) -> None:
    # "myoclonus and ataxia" is a synonym of a disease, but after "dementia, " it ends a list;
    # after "Notably, " (no mention) it is that name
    found = ids(extractor, "It presents with dementia, myoclonus and ataxia.")
    assert set(found) == {"dementia", "myoclonus", "ataxia"}
    assert set(ids(extractor, "Notably, myoclonus and ataxia was reported.")) == {
        "myoclonus and ataxia"
    }


def test_a_widened_name_starts_with_no_word_relating_it(extractor: EntityExtractor) -> None:
    # "linked" and "to" are words of some names, but "linked to" relates the name after it
    found = ids(extractor, "NPC2 has been linked to Charcot-Marie-Tooth disease, axonal, type 2A1.")
    assert set(found) == {"NPC2", "Charcot-Marie-Tooth disease, axonal, type 2A1"}


def test_a_form_of_a_name_is_two_mentions(extractor: EntityExtractor) -> None:
    # "task-specific form of focal dystonia" words a relation between two names, though its
    # words in another order name a disease ("Dystonia, focal, task-specific")
    found = ids(extractor, "Writer's cramp is a task-specific form of focal dystonia.")
    assert found == {"Writer's cramp": "HP:0002356", "focal dystonia": "HP:0004373"}


def test_items_of_a_coordination_share_the_name_before_them(
    extractor: EntityExtractor,
) -> None:
    fission = "PINK1 regulates mitochondrial fission and fusion."
    assert ids(extractor, fission)["fusion"] == "GO:0008053"  # mitochondrial fusion
    numbered = ids(extractor, "Patients with Parkinson disease 4 and 8 were compared.")
    assert numbered == {"Parkinson disease 4": "OMIM:605543", "8": "OMIM:607060"}
    assert ids(extractor, "SCA1, 2 and 3 present with ataxia.")["2"] == "OMIM:183090"
    # an item that is a name itself stays that name, not "mitochondrial autophagy"
    alone = ids(extractor, "PINK1 regulates mitochondrial fission and autophagy.")
    assert alone["autophagy"] == "GO:0006914"


def test_a_go_term_shortened_by_words_the_sentence_says_elsewhere(
    extractor: EntityExtractor,
) -> None:
    said = "Synaptic vesicle exocytosis is a sub-step of vesicle targeting."
    assert ids(extractor, said)["vesicle targeting"] == "GO:0016080"
    fusion = "Mitochondrial fusion is a component of outer membrane fusion."
    assert ids(extractor, fusion)["outer membrane fusion"] == "GO:1990626"
    # the left-out word must be in the sentence
    assert "vesicle targeting" not in ids(extractor, "Vesicle targeting needs Rab3a.")


def test_a_finding_said_after_a_copula(extractor: EntityExtractor) -> None:
    said = ids(extractor, "Ankle reflexes were absent and vibration sense was lost.")
    assert said["Ankle reflexes were absent"] == "HP:0003438"
    assert ids(extractor, "Deep tendon reflexes were reduced.") == {
        "Deep tendon reflexes were reduced": "HP:0001315"
    }
    assert ids(extractor, "His plantar responses were extensor.") == {
        "plantar responses were extensor": "HP:0003487"  # Babinski sign
    }
    assert ids(extractor, "SNCA levels were increased.") == {"SNCA": "NCBIGene:6622"}


def test_a_list_is_not_read_as_one_name_without_its_comma(extractor: EntityExtractor) -> None:
    # "myoclonus, dystonia" is two phenotypes, not Myoclonus-dystonia syndrome, and
    # "dystonia, tremor" is not the synonym "Dystonia tremor"
    found_ids = ids(extractor, "It presents with myoclonus, dystonia, tremor and ataxia.")
    assert found_ids["myoclonus"] == "HP:0001336"
    assert found_ids["dystonia"] == "HP:0001332"
    assert found_ids["tremor"] == "HP:0001337"
    # a name written with its comma is still one name (the OMIM record's own name; the
    # Orphanet record of the same disease has it as a synonym)
    assert ids(extractor, "Cockayne syndrome, type B was ruled out.") == {
        "Cockayne syndrome, type B": "OMIM:133540"
    }
    assert ids(extractor, "Dystonia 1, torsion, autosomal dominant is rare.") == {
        "Dystonia 1, torsion, autosomal dominant": "OMIM:128100"
    }
    # the KG writes "Hypotonia, ataxia, and delayed development syndrome"
    assert ids(extractor, "Hypotonia, ataxia and delayed development syndrome is rare.") == {
        "Hypotonia, ataxia and delayed development syndrome": "OMIM:617330"
    }


def test_a_bare_abbreviation_in_a_table_row_is_cued_by_the_other_cells(
    extractor: EntityExtractor,
) -> None:
    # no cue word in a row: a KG name in an earlier cell cues an abbreviation after it, a
    # gene's disease or a ligand's receptor
    assert ids(extractor, "| SOD1 | ALS | about 12% |").get("ALS") is not None
    assert "ALS" not in ids(extractor, "| Aim | ALS | about 12% |")
    assert ids(extractor, "| Netrin-1 | DCC | axon guidance |").get("DCC") is not None
    assert "DCC" not in ids(extractor, "| Cohort B | DCC | axon guidance |")


def test_a_bare_abbreviation_without_a_cue_needs_a_related_name_beside_it(
    extractor: EntityExtractor,
) -> None:
    # no cue word: a name the KG relates to the abbreviation's entity supports it (vertical
    # supranuclear gaze palsy is a phenotype of progressive supranuclear palsy) …
    supported = ids(extractor, "Vertical supranuclear gaze palsy and falls pointed to PSP.")
    assert supported.get("PSP") == "ORPHA:683"
    # … an unrelated name or none does not, and a hub relates to too much to count
    assert "PSP" not in ids(extractor, "Saxitoxin levels rose, and the harvest pointed to PSP.")
    assert "FUS" not in ids(extractor, "MR-guided FUS thalamotomy reduced the tremor.")


@pytest.fixture(scope="module")
def embedded(demo_home: Path) -> EntityExtractor:
    """The extractor as the service builds it: the entity index with the KG's stored
    embeddings (the session's demo workspace holds them)."""
    workspace = Workspace(demo_home)
    store = workspace.load(DEMO_NAME)
    folder = workspace.kg_dir(DEMO_NAME) / INDEX_FOLDER
    vectors = VectorIndex.for_store(store, folder, progress=False)
    return EntityExtractor(store, EntityIndex(store, FulltextIndex(store), vectors))


def test_a_cue_word_alone_links_an_abbreviation_where_its_sentence_reads_like_the_kg(
    embedded: EntityExtractor, extractor: EntityExtractor
) -> None:
    # "infants" is a cue for a disease, but the sentence is about atopic dermatitis: it reads
    # unlike what the KG relates to Alzheimer disease …
    skin = "Infants with AD had itchy eczematous plaques on the cheeks, treated with emollients."
    assert "AD" not in ids(embedded, skin)
    # … while this one reads like it
    clinic = "Patients with AD develop progressive memory loss and cortical atrophy."
    assert embedded.index is not None
    assert "alzheimer" in embedded.index.names(ids(embedded, clinic)["AD"])[0].casefold()
    # an abbreviation so left out is no mention of its entity by another record either (the
    # outside vocabulary's MONDO "PKAN" is a cross-reference of the KG's PKAN record)
    assert ids(embedded, "PKAN sequencing was positive.") == {}
    # without stored embeddings (a KG searched in Neo4j) the cue is enough, as it was
    assert "AD" in ids(extractor, skin)
    assert ids(extractor, "PKAN sequencing was positive.")["PKAN"] == "NCBIGene:80025"


def test_the_context_of_a_mention_is_its_sentence_without_it() -> None:
    text = "Falls were frequent. Patients with AD lose memory. Tremor was absent."
    start = text.index("AD")
    assert _Sentences(text).around(start, start + 2) == "Patients with  lose memory."


def test_a_disease_named_by_its_eponym_alone_needs_a_cue(extractor: EntityExtractor) -> None:
    # "Hurler", "Angelman": MONDO writes the word as a proper name, the KG has "<it> syndrome"
    row = ids(extractor, "| MPS I (Hurler, Scheie and the intermediate form) | IDUA |")
    assert (row.get("Hurler"), row.get("Scheie")) == ("ORPHA:93473", "ORPHA:93474")
    assert ids(extractor, "About 70% of Angelman cases are deletions.").get("Angelman") in (
        "OMIM:105830",
        "ORPHA:72",
    )
    # no cue and no related name; a person; the eponym of a sign or a look-alike; one name
    # of several joined by dashes; a capitalised word that is no eponym
    for text, word in [
        ("We will submit the Pompe cardiomyocyte abstract next quarter.", "Pompe"),
        ("The storage disease was first described by Pompe in patients.", "Pompe"),
        ("The clinic of Prof. Hurler sees patients with ataxia.", "Hurler"),
        ("Patients had a positive Gowers sign.", "Gowers"),
        ("HDL1 is listed among the Huntington phenocopies in patients.", "Huntington"),
        ("Patients with the intermediate Hurler–Scheie form were treated.", "Hurler"),
        ("Patients with the intermediate Hurler–Scheie form were treated.", "Scheie"),
        ("Retinal findings were present in most patients.", "Retinal"),
    ]:
        assert word not in ids(extractor, text), text


def test_a_process_abbreviation_is_cued_by_words_of_the_cell(extractor: EntityExtractor) -> None:
    # a GO term's abbreviation needs a word about cells or their physiology, not about patients
    cued = ids(extractor, "BAX/BAK oligomerisation triggers MOMP and the release of cytochrome c.")
    assert cued.get("MOMP") == "GO:0097345"
    assert "MOMP" not in ids(extractor, "Patients with MOMP were seen in the clinic.")
    assert "MOMP" not in ids(extractor, "MOMP is listed in the appendix.")


def test_long_names_are_found_whole(extractor: EntityExtractor) -> None:
    text = (
        "VCP causes inclusion body myopathy with Paget disease of bone and frontotemporal dementia."
    )
    assert ids(extractor, text)[text[11:-1]] == "ORPHA:52430"


def test_a_short_form_means_what_the_text_defines(extractor: EntityExtractor) -> None:
    assert "PD" not in ids(extractor, "Peritoneal dialysis (PD) was started; PD ran well.")
    defined = ids(extractor, "Parkinson disease (PD) is common. Many PD patients fall.")
    assert defined["PD"] == defined["Parkinson disease"] == "MONDO:0005180"
    # letters all inside one word ("microcephaly") are no acronym: the wider KG name is meant
    text = "Autosomal recessive primary microcephaly (MCPH) is rare."
    assert extractor.definitions(text) == {"MCPH": "ORPHA:2512"}
    # from the first letter on, the shortest run that spells it, not a wider form's record
    text = "It is a familial form of severe combined immunodeficiency (SCID)."
    assert extractor.definitions(text) == {"SCID": ids(extractor, "SCID is severe.")["SCID"]}
    assert extractor.store is not None
    assert extractor.store.get_node(extractor.definitions(text)["SCID"]).name.startswith(
        "severe combined"
    )


def test_a_verb_is_no_subtype_code(extractor: EntityExtractor) -> None:
    # "CDG Is" is a synonym of ALG13-CDG: "PMM2-CDG is inherited" names PMM2-CDG alone
    found = ids(extractor, "PMM2-CDG is inherited in an autosomal recessive manner.")
    assert found["PMM2-CDG"] == "ORPHA:79318" and "PMM2-CDG is" not in found
    assert "CDG is" not in ids(extractor, "The child has CDG is what we think.")
    assert "CDG Is" in ids(extractor, "The child has CDG Is, we think.")


def test_everyday_words_need_a_cue_for_their_kind(extractor: EntityExtractor) -> None:
    assert ids(extractor, "We SET the threshold at 0.05 for all tests.") == {}
    assert ids(extractor, "Loss of SET expression was seen.") == {"SET": "NCBIGene:6418"}
    # an undefined bare abbreviation needs a cue in its sentence
    assert ids(extractor, "TBP was added as a plasticiser.") == {}
    assert ids(extractor, "TBP gene repeats were sized.")["TBP"] == "NCBIGene:6908"
    # a diagnosis reasoned to, a patient, a gene named with it: cues for a disease
    for text in (
        "Diurnal fluctuation and a response to levodopa are the hallmarks of DRD.",
        "Sustained response to low-dose levodopa in a 9-year-old girl: DRD.",
        "Diurnal fluctuation and a sustained levodopa response suggested DRD.",
    ):
        assert ids(extractor, text)["DRD"] in ("MONDO:0016812", "ORPHA:98808", "OMIM:128230")
    assert "LCA" in ids(extractor, "Voretigene neparvovec can help in RPE65-associated LCA.")
    assert "LCA" not in ids(extractor, "Voretigene neparvovec can help in LCA.")
    # what a protein is: a cue for a gene's alias
    assert ids(extractor, "Loss of the E3 ligase CHIP causes ataxia.")["CHIP"] == "NCBIGene:10273"
    assert "CHIP" not in ids(extractor, "Loss of CHIP causes ataxia.")
    # mice are no patients: "8-week-old mice" is no cue
    assert ids(extractor, "We injected CTX into the muscle of 8-week-old mice.") == {}


def test_lower_case_words_and_verbs_are_not_names(extractor: EntityExtractor) -> None:
    # "binds" is not the acronym BIND; "fall under" has no clinical cue for the phenotype Falls
    assert ids(extractor, "Progranulin binds sortilin.") == {
        "Progranulin": "NCBIGene:2896",
        "sortilin": "uniprot:Q99523",
    }
    assert "fall" not in ids(extractor, "Head tremor and hand tremor fall under tremor.")
    assert ids(extractor, "Patients had frequent falls.")["falls"] == "HP:0002527"


def test_symbols_in_protein_name_case_and_with_greek_letters(extractor: EntityExtractor) -> None:
    found_ids = ids(extractor, "GFRα2 binds RET, and TrkA binds NGF.")
    assert found_ids["GFRα2"] == "uniprot:O00451"
    assert extractor.store is not None
    assert extractor.store.get_node(found_ids["TrkA"]).name == "NTRK1"


def test_a_triplet_before_repeat_is_a_sequence(extractor: EntityExtractor) -> None:
    assert "GAA" not in ids(extractor, "A GAA repeat expansion in intron 1 was excluded.")
    assert ids(extractor, "GAA mutations were found.")["GAA"] == "NCBIGene:2548"
    # a repeat named by its unit, capitalised at the start of a sentence too
    found = extractor.extract("Octapeptide repeat insertions in PRNP cause HDL1.")
    assert found[0].text == "Octapeptide repeat insertions" and found[0].kind == "variant"


def test_a_gene_symbol_shaped_like_an_accession_is_the_gene(extractor: EntityExtractor) -> None:
    # "P2RY11" has a UniProt accession's shape; it is an approved gene symbol, in the KG
    assert ids(extractor, "TNFSF4, CTSH and P2RY11 modify the risk.")["P2RY11"] == "NCBIGene:5032"
    found = {m.text: m.kind for m in extractor.extract("UniProt P37840 is alpha-synuclein.")}
    assert found["P37840"] == "uniprot"


def test_dbsnp_ids_and_hla_alleles_are_variants(extractor: EntityExtractor) -> None:
    # the allele is a variant outside the KG, not its gene ("HLA-B" inside "HLA-B*51")
    found = extractor.extract("HLA-B*51 and rs7574865 in STAT4 confer risk; HLA-DQB1*06:02 too.")
    assert [(m.text, m.kind) for m in found if not m.in_kg] == [
        ("HLA-B*51", "variant"),
        ("rs7574865", "variant"),
        ("HLA-DQB1*06:02", "variant"),
    ]


@pytest.mark.parametrize(
    ("text", "variants"),
    [
        # a bracket around the protein change is the sentence's, not the variant's
        ("A nonsense change, c.421C>T (p.Gln141*), was found.", ["c.421C>T", "p.Gln141*"]),
        ("TREM2 p.(R47H) raises the risk.", ["p.(R47H)"]),  # the HGVS bracket is its own
        ("LRRK2 p.G2019S is common.", ["p.G2019S"]),
    ],
)
def test_a_protein_change_keeps_only_its_own_bracket(
    extractor: EntityExtractor, text: str, variants: list[str]
) -> None:
    assert [m.text for m in extractor.extract(text) if m.kind == "variant"] == variants


def test_a_gene_alias_that_names_a_disease_is_read_by_its_cues(
    extractor: EntityExtractor,
) -> None:
    disease = ids(extractor, "SCA2 was diagnosed in three siblings.")["SCA2"]
    assert extractor.store is not None and extractor.store.get_node(disease).type == "disease"
    assert ids(extractor, "SCA2 mutations were sequenced.")["SCA2"] == "NCBIGene:6311"


def test_statistics_and_inheritance_modes_are_not_entities(extractor: EntityExtractor) -> None:
    # an upper-case word before a decimal number is a statistic, not Salla disease ("SD")
    assert "SD" not in ids(extractor, "Disease duration was 11.4 years (SD 6.2) in patients.")
    # "AD" next to words about inheritance is a mode of inheritance, not Alzheimer disease
    assert "AD" not in ids(extractor, "Pedigrees showed AD transmission with full penetrance.")
    # counts before an abbreviation and numbered names keep their entity (of the records
    # AD names, Alzheimer disease itself, not its member "Alzheimer disease 3")
    assert ids(extractor, "Of the 12 AD patients, 3 had seizures.")["AD"] == "OMIM:104300"
    assert ids(extractor, "SNCA was sequenced in PD 11 families.")["PD 11"] == "OMIM:607688"


def test_a_function_word_in_capitals_is_emphasis_not_a_gene_alias(
    extractor: EntityExtractor,
) -> None:
    # "NOT" is an old alias of NR4A2; "variant" and "gene" nearby are no cue for emphasis
    assert "NOT" not in ids(extractor, "The variant was NOT found in the proband's gene panel.")
    assert "NOT" not in ids(extractor, "MKS1, the Meckel gene, is NOT reported in Joubert.")
    assert ids(extractor, "Mutations of the NOT gene were found.")["NOT"] == "NCBIGene:4929"
    # an approved symbol that is an everyday content word keeps its cue rule
    assert ids(extractor, "The SET gene was sequenced.")["SET"] == "NCBIGene:6418"


def test_an_abbreviation_in_the_plural_needs_a_cue_as_in_the_singular(
    extractor: EntityExtractor,
) -> None:
    # "DCs" are dendritic cells here, "NPCs" neural progenitors: no disease cue near them
    assert "DCs" not in ids(extractor, "Monocyte-derived DCs were pulsed with peptide.")
    assert "NPCs" not in ids(extractor, "iPSC-derived NPCs were differentiated into neurons.")
    found = ids(extractor, "Patients with complex HSPs often have neuropathy.")
    assert found["complex HSPs"] == "MONDO:0015150"
    # "Niemann-Pick disease type C" is NPC (the kind noun before the subtype letter left out)
    assert ids(extractor, "Work-up for NPC was prompted in the patient.")["NPC"] == "ORPHA:646"


def test_a_cue_is_looked_for_within_the_clause(extractor: EntityExtractor) -> None:
    # PKAN names the disease and (an alias) PANK2: "sequencing" after the semicolon is the
    # next clause's, no cue for the gene
    text = "Eye-of-the-tiger sign on MRI pointed to PKAN; PANK2 sequencing was positive."
    assert ids(extractor, text)["PKAN"] == "ORPHA:157850"
    assert ids(extractor, "PKAN sequencing was positive.")["PKAN"] == "NCBIGene:80025"
    # "history" before the colon cues no abbreviation after it ("CD": Crohn disease here)
    assert "CD" not in ids(extractor, "Past history: ileocolonic CD on adalimumab.")


def test_a_gene_alias_is_the_disease_where_the_gene_has_its_symbol(
    extractor: EntityExtractor,
) -> None:
    # ALS19 is an old alias of ERBB4 and a disease: with ERBB4 named, it is the disease
    found = ids(extractor, "ALS19 was associated with ERBB4 variants in a family.")
    assert found["ALS19"] == "OMIM:615515"
    assert ids(extractor, "SCA2 mutations were sequenced.")["SCA2"] == "NCBIGene:6311"
    # a locus named by the alias is the gene all the same
    found = ids(extractor, "The PARK5 locus was assigned to UCHL1.")
    assert extractor.store is not None
    assert extractor.store.get_node(found["PARK5"]).type in {"gene", "protein"}


def test_a_diagnosis_concluded_after_a_colon_or_graded_needs_no_other_cue(
    extractor: EntityExtractor,
) -> None:
    text = "Ptosis, pigmentary retinopathy and heart block before the age of 20: KSS."
    assert ids(extractor, text)["KSS"] == "ORPHA:480"
    assert ids(extractor, "Boston criteria for probable CAA.")["CAA"] == "MONDO:0005620"
    # a field's label is no conclusion when the abbreviation does not end the sentence
    assert "CD" not in ids(extractor, "History: ileocolonic CD on adalimumab, in remission.")


def test_a_symbol_before_motif_or_domain_names_a_kind_of_domain(
    extractor: EntityExtractor,
) -> None:
    assert "TPR" not in ids(extractor, "The protein contains three TPR motifs.")
    assert ids(extractor, "TPR variants were found in two families.")["TPR"] == "NCBIGene:7175"
    assert ids(extractor, "The LRRK2 kinase domain binds GTP.")["LRRK2"] == "NCBIGene:120892"


def test_a_protein_kind_right_after_a_name_makes_it_the_protein(
    extractor: EntityExtractor,
) -> None:
    # XPD names xeroderma pigmentosum group D and (an alias) ERCC2: "helicase" says which
    text = "Mutations in the XPD helicase can cause xeroderma pigmentosum."
    assert ids(extractor, text)["XPD"] == "NCBIGene:2068"
    # an enzyme's activity is a cue for a bare abbreviation of its name
    assert ids(extractor, "Leukocyte ASA activity was 5% of the mean.")["ASA"] == "NCBIGene:410"
    # not one further away: "autotaxin activity" is no cue for LPA
    text = "Plasma LPA rose after platelet activation, consistent with autotaxin activity."
    assert "LPA" not in ids(extractor, text)


def test_a_kg_name_inside_a_longer_outside_term_is_that_term(extractor: EntityExtractor) -> None:
    # "dyskinesia" is a KG phenotype; "primary ciliary dyskinesia" a disease the KG lacks
    mentions = extractor.extract("Primary ciliary dyskinesia was confirmed by biopsy.")
    assert [(m.text, m.in_kg) for m in mentions] == [
        ("Primary ciliary dyskinesia", False),
        ("biopsy", False),  # a test (MeSH), outside the KG too
    ]
    assert ids(extractor, "Levodopa-induced dyskinesia was frequent.")["dyskinesia"] == (
        "HP:0100660"
    )


def test_roman_numerals_are_not_acronyms(extractor: EntityExtractor) -> None:
    # "II" is not the initials of "ileus of intestine"
    assert ids(extractor, "Alzheimer type II astrocytes were abundant.") == {}


def test_a_name_found_inside_a_longer_variant_is_widened_to_it(
    extractor: EntityExtractor,
) -> None:
    # the dictionary finds the family inside the member's name; the words around it are
    # read as that member's name when an entity of the same type is named by all of them
    result = ids(extractor, "Charcot-Marie-Tooth disease type 2HH was reported in two sisters.")
    assert result == {"Charcot-Marie-Tooth disease type 2HH": "OMIM:619574"}
    # a list of names stays a list, though a name holds all its words ("Dystonia, tremor";
    # "frontotemporal dementia and amyotrophic lateral sclerosis" is a synonym of FTD-MND)
    listed = ids(extractor, "She had dystonia, tremor and myoclonus.")
    assert set(listed) == {"dystonia", "tremor", "myoclonus"}
    both = ids(
        extractor, "Patients with amyotrophic lateral sclerosis and frontotemporal dementia."
    )
    assert set(both) == {"amyotrophic lateral sclerosis", "frontotemporal dementia"}


def test_a_gene_qualified_name_is_the_gene_and_the_name_it_qualifies(
    extractor: EntityExtractor,
) -> None:
    # "PINK1-related PARK6": the words after the gene name PARK6 on their own, so the text
    # mentions two entities; "KCNQ2-related DEE" is one name ("DEE" alone is another entity)
    result = ids(extractor, "PINK1-related PARK6 begins before the age of forty.")
    assert result == {"PINK1": "NCBIGene:65018", "PARK6": "OMIM:605909"}
    whole = ids(extractor, "KCNQ2-related DEE begins in the first week of life.")
    assert whole == {"KCNQ2-related DEE": "ORPHA:439218"}


def test_an_inheritance_column_and_initials_are_no_entities(extractor: EntityExtractor) -> None:
    # "AD" alone in a later cell of a row that named the disease is its inheritance mode;
    # in a row naming no disease it is still Alzheimer disease
    table = "| Gene | Disease | Mode |\n|---|---|---|\n| THAP1 | DYT6 | AD |\n"
    assert "AD" not in ids(extractor, table)
    assert "AD" in ids(
        extractor, "| Gene | Disease | Note |\n|---|---|---|\n| PSEN1 | AD | rare |\n"
    )
    # two capitals that only spell a name's initials ("simple buphthalmos") are a person
    assert ids(extractor, "Journal club: SB will present the new paper on STAC3.") == {
        "STAC3": "NCBIGene:246329"
    }


def test_clinical_findings_no_vocabulary_names_are_outside_the_kg(
    extractor: EntityExtractor,
) -> None:
    # a finding's head noun with the words describing it; words that only say which or how
    # many ("clinical signs") describe nothing, and a verb ("precedes") is no description
    text = "It begins with speech disturbance and psychiatric symptoms; clinical signs vary."
    outside = {m.text for m in extractor.extract(text) if not m.in_kg}
    assert outside == {"speech disturbance", "psychiatric symptoms"}
    # a whole system's findings are no finding of their own
    assert not [m for m in extractor.extract("Her neurological signs fit well.") if not m.in_kg]
    assert {m.text for m in extractor.extract("It precedes motor signs.") if not m.in_kg} == {
        "motor signs"
    }
    # a therapy's or a process's head noun with the words describing it
    text = "It may respond to antisense therapy, which targets the retromer pathway."
    outside = {m.text: m.id for m in extractor.extract(text) if not m.in_kg}
    assert outside == {
        "antisense therapy": "other:antisense therapy",
        "retromer pathway": "other:retromer pathway",
    }


@pytest.mark.parametrize(
    ("text", "procedures"),
    [
        ("Annual echocardiogram and renal ultrasound while she is under our care.",
         {"echocardiogram", "renal ultrasound"}),
        ("Carrier testing has been offered to both parents.", {"Carrier testing"}),
        ("Electron microscopy of a skin sample was normal.", {"Electron microscopy"}),
        ("A muscle biopsy was done.", {"biopsy"}),  # MeSH's name comes first
        ("Echocardiography showed an LVEF of 40%.", {"Echocardiography"}),
        ("PINK1 was normal on a neuromuscular panel.", {"neuromuscular panel"}),
        # MeSH's tests and procedures by name
        ("Polysomnography and audiometry were normal.", {"Polysomnography", "audiometry"}),
        # a head noun alone, or after words that only say which, names no test
        ("Further testing is planned; the panel met on Tuesday.", set()),
        ("We scan the literature weekly.", set()),
    ],
)  # fmt: skip
def test_tests_and_procedures_are_terms_outside_the_kg(
    extractor: EntityExtractor, text: str, procedures: set[str]
) -> None:
    outside = [m for m in extractor.extract(text) if not m.in_kg]
    assert {m.text for m in outside} == procedures
    assert all(is_procedure(m.id) for m in outside)


def test_a_name_compared_with_is_no_mention(extractor: EntityExtractor) -> None:
    # the sentence is about the mimic, not Huntington disease
    assert "Huntington disease" not in ids(extractor, "A mimic of Huntington disease had chorea.")
    assert "HD" not in ids(extractor, "SCA17, resembling HD, had chorea.")
    assert "Huntington disease" in ids(extractor, "Huntington disease presents with chorea.")


@pytest.mark.parametrize(
    ("sentence", "word"),
    [
        ("The decay constant tau was 40 ms in these cells.", "tau"),  # a quantity
        ("Inter-rater agreement was good (Kendall's tau).", "tau"),  # a statistic
        ("Values are expressed as mean ± SD of three experiments.", "SD"),  # "expressed"
        ("Genome sequencing TAT was 5 days from receipt to report.", "TAT"),  # a duration
        ("A PLS regression model related metabolites to disease severity.", "PLS"),  # a method
        ("Neurons were taken from P0 rat pups.", "P0"),  # a developmental stage
        ("Anterior hypokinesia was seen on the echocardiogram.", "hypokinesia"),  # the heart
        ("The DAT was positive, pointing to haemolytic anaemia.", "DAT"),  # a laboratory test
        ("Binding of the protein to its receptor was measured by SPR.", "SPR"),  # a method
        ("Results are shown in FIG4 (panel C).", "FIG4"),  # a figure
        ("Parkin is an E3 ubiquitin ligase.", "E3"),  # an enzyme class, not DLD
        ("UBE2N is an E2 enzyme.", "E2"),  # nor DLAT
        ("She was started on PD for renal disease in 2019.", "PD"),  # a treatment (dialysis)
        ("Early-onset Alzheimer disease falls under AD3.", "falls"),  # the verb
        ("A neonate has a de novo KCNQ2 change.", "a de"),  # an article does not spell "ADE"
        ("PD added that action tremor is a subcategory of postural tremor.", "PD"),  # a person
        ("cc: Ms A B (patient); Dr S Patel, Clinical Genetics", "Ms A"),
        ("PM: present the knockdown data at the next meeting.", "PM"),  # minutes
        ("Cognition was grossly normal (MoCA 27/30).", "MoCA"),  # a test's score
        ("Balance was assessed with the BBS before discharge.", "BBS"),  # a scale
        ("EDS, measured with the Epworth scale, was frequent.", "EDS"),  # a measure
        ("Hyperkalaemia was treated with oral SPS.", "SPS"),  # a drug
        ("It is tethered by a GPI anchor.", "GPI"),  # a membrane anchor
        ("QTL mapping was done in 480 F2 intercross mice.", "F2"),  # a cross of mice
        ("Patients on automated PD were switched to a cycler.", "PD"),  # dialysis
        ("Variants in strong LD with the lead SNP were kept.", "LD"),  # linkage
        ("Echo showed akinesia of the apical segments.", "akinesia"),  # the heart
        ("Axon fasciculation depends on adhesion molecules.", "fasciculation"),  # axons
        ("Alzheimer type II astrocytes were abundant.", "Alzheimer type II"),  # a cell
        ("Lecture recordings are posted on Canvas.", "Canvas"),  # a word, not CANVAS
        (
            "AOA1 is the broader category into which ataxia-telangiectasia-like disorder falls.",
            "falls",
        ),
        ("He was seen at a 1,000-bed hospital.", "a 1"),  # nor "A1"
        ("Lumbar MRI showed a disc bulge between L1 and L2.", "L2"),  # a level of the spine
        ("The cervical cord was compressed at C5, below a C4 fusion.", "C5"),
        ("Extra fundus photographs were generated using a GAN.", "GAN"),  # a method
        ("Poor adherence to CPAP limited the benefit.", "CPAP"),  # a treatment kept to
        ("FAP-positive fibroblasts lined the tumour margin.", "FAP-positive"),  # a cell marker
        ("Cholecystectomy was offered for biliary dyskinesia.", "dyskinesia"),  # motility
        ("CLN8 sits in the ER membrane.", "ER"),  # the organelle, not EREG or ESR1
        ("Mutant CLN8 is retained in the ER and degraded.", "ER"),
        (
            "Only females transmitted it, as in mitochondrial inheritance.",
            "mitochondrial inheritance",
        ),  # a mode of inheritance, not the organelle's
    ],
)
def test_a_kg_name_in_another_sense_is_no_mention(
    extractor: EntityExtractor, sentence: str, word: str
) -> None:
    assert word.casefold() not in {text.casefold() for text in ids(extractor, sentence)}


def test_a_comma_name_with_its_head_abbreviated(extractor: EntityExtractor) -> None:
    # the KG's "Ehlers-Danlos syndrome, kyphoscoliotic type, 2", not type 1's "EDS,
    # kyphoscoliotic type"
    found = ids(extractor, "FKBP14 causes EDS, kyphoscoliotic type 2.")
    assert found["EDS, kyphoscoliotic type 2"] == "OMIM:614557"


def test_what_a_disease_is_mistaken_for_is_no_mention(extractor: EntityExtractor) -> None:
    # "mistaken for" compares, as "mimics" does: the sentence says nothing about neuropathy
    for wording in ("can lead to a mistaken diagnosis of", "is often misdiagnosed as"):
        found = ids(extractor, f"Late-onset Pompe disease {wording} neuropathy.")
        assert "neuropathy" not in found and "Pompe disease" in found
    assert "neuropathy" in ids(extractor, "Late-onset Pompe disease causes a neuropathy.")


def test_the_same_names_in_their_own_sense_are_mentions(extractor: EntityExtractor) -> None:
    assert ids(extractor, "FIG4 mutations cause a neuropathy.")["FIG4"] == "NCBIGene:9896"
    assert "hypokinesia" in {k.lower() for k in ids(extractor, "Hypokinesia and rigidity.")}
    assert "tau" in ids(extractor, "Aggregated tau was found in neurons.")
    assert ids(extractor, "Serum C3 was low at the second visit.")["C3"] == "uniprot:P01024"
    assert ids(extractor, "ER binds estradiol in the nucleus.")["ER"].startswith("uniprot:")
    # a gene's product marks cells: "SNCA-positive" stays the gene
    assert (
        ids(extractor, "SNCA-positive inclusions were counted.")["SNCA-positive"] == "NCBIGene:6622"
    )
    # a subtype's name without its "disease"
    assert ids(extractor, "Parkinsonism develops in Gaucher type 1.")["Gaucher type 1"] == (
        "ORPHA:77259"
    )


def test_outside_terms_in_british_spelling_or_the_plural_are_found(
    extractor: EntityExtractor,
) -> None:
    # HPO spells American and names one: "Hypogammaglobulinemia", "Motor stereotypy"
    text = "WHIM syndrome presents with hypogammaglobulinaemia and motor stereotypies."
    outside = {m.text: m.id for m in extractor.extract(text) if not m.in_kg}
    assert outside == {"hypogammaglobulinaemia": "HP:0004313", "motor stereotypies": "HP:0000733"}


def test_compounds_no_vocabulary_names_are_outside_the_kg(extractor: EntityExtractor) -> None:
    # a systematic name, a development code and a name after its class; a number with
    # a hyphenated unit is none of them
    text = (
        "7,8-dihydroxyflavone and GNE-7915 were compared with the γ-secretase inhibitor DAPT "
        "and the mTOR inhibitor Torin 1 in a 3-year-old cohort."
    )
    outside = {m.text: m.id for m in extractor.extract(text) if not m.in_kg}
    assert outside == {
        "7,8-dihydroxyflavone": "chemical:7,8-dihydroxyflavone",
        "GNE-7915": "chemical:gne-7915",
        "DAPT": "chemical:dapt",
        "Torin 1": "chemical:torin 1",
    }
    # new drugs no vocabulary lists yet, by their INN stem; everyday words with such an
    # ending are none
    text = "Pegvaliase, dupilumab, tofersen and olipudase alfa were compared in a person."
    outside = {m.text for m in extractor.extract(text) if not m.in_kg}
    assert outside == {"Pegvaliase", "dupilumab", "tofersen", "olipudase alfa"}


def test_a_gene_symbol_in_protein_style_is_looked_up_among_hgnc_aliases(
    extractor: EntityExtractor, demo: NetworkXStore
) -> None:
    # TrkC is NTRK3's alias TRKC, a gene the demo KG lacks
    assert not demo.lookup("NTRK3")
    mentions = {m.text: (m.id, m.in_kg) for m in extractor.extract("NT-3 binds TrkC.")}
    assert mentions["TrkC"] == ("HGNC:8033", False)


def test_a_chemical_naming_a_protein_or_function_is_part_of_that_name(
    extractor: EntityExtractor,
) -> None:
    # "tyrosine" in "receptor tyrosine kinase" and "dopamine" in "dopamine receptor activity"
    # are words of a name, not chemicals the claim is about
    for text in (
        "GDNF signals through the RET receptor tyrosine kinase.",
        "Dopamine receptor activity was measured.",
    ):
        assert all(m.in_kg for m in extractor.extract(text)), text
    assert not all(m.in_kg for m in extractor.extract("Dopamine was measured."))


def test_a_genes_alias_in_brackets_after_the_gene_names_its_disease(
    extractor: EntityExtractor,
) -> None:
    # AOA1 is an old symbol of APTX and the disease; after APTX itself it glosses the disease
    mentions = {m.text: m.id for m in extractor.extract("Biallelic APTX variants (AOA1).")}
    assert mentions["APTX"] == "NCBIGene:54840"
    assert extractor.index is not None
    assert extractor.index.type_of(mentions["AOA1"]) == "disease"


def test_a_qualifying_word_before_another_is_no_outside_entity(extractor: EntityExtractor) -> None:
    # HPO files "impulsive" as a phenotype; before a noun it only qualifies it
    text = "Impulsive behaviour, hereditary ferritin disorders and the congenital form."
    assert not [m.text for m in extractor.extract(text) if not m.in_kg]
    assert [m.text for m in extractor.extract("He was impulsive.") if not m.in_kg] == ["impulsive"]
    # MONDO's disease qualifiers ("congenital or acquired") name no disease at all
    assert not extractor.extract("It is congenital.")


def test_no_name_runs_across_table_cells_or_rests_on_one_letter(
    extractor: EntityExtractor,
) -> None:
    # "juvenile | parkinsonism" is two cells, not juvenile parkinsonism; "type B" is no gene
    row = "| CLN3 disease (Batten) | CLN3 | juvenile | parkinsonism |"
    assert "OMIM:600116" not in {m.id for m in extractor.extract(row)}
    assert "type B" not in ids(extractor, "CLN13 disease (Kufs type B) is rare.")
    assert "PD" not in ids(extractor, "Present: RS and AK (clinical genetics), PD (laboratory).")


def test_a_name_is_not_widened_into_an_apposition(extractor: EntityExtractor) -> None:
    # ", a 7q11.23 microdeletion" restates Williams syndrome; it is no longer name
    text = "Williams syndrome, a 7q11.23 microdeletion, removes ELN."
    assert "Williams syndrome" in ids(extractor, text)


def test_a_name_is_not_widened_by_words_it_already_has(extractor: EntityExtractor) -> None:
    # "walk, and" adds no word the phenotype's name lacks: the mention stays its own name
    text = "Many children walk, and inability to walk is not reported."
    assert ids(extractor, text) == {"inability to walk": "HP:0002540"}


def test_a_name_does_not_run_out_of_brackets(extractor: EntityExtractor) -> None:
    # "(myosin Va) deficiency": the bracket closes the gloss; "Va) deficiency" names nothing
    found = extractor.extract("Griscelli syndrome type 1, due to MYO5A (myosin Va) deficiency.")
    assert all(m.text.count("(") == m.text.count(")") for m in found)
    assert "MYO5A" in [m.text for m in found]
    # a name may hold its own bracket
    text = "Adult-onset cervical dystonia (DYT23 type) was not confirmed."
    assert "ORPHA:420492" in ids(extractor, text).values()


def test_a_qualified_form_of_a_disease_is_its_record(extractor: EntityExtractor) -> None:
    text = "GSD II is a subtype of the infantile-onset form of acid maltase deficiency."
    assert ids(extractor, text)["infantile-onset form of acid maltase deficiency"] == (
        "ORPHA:308552"
    )
    # no numbered member for an unnumbered form, and no record for "a common form of"
    assert ids(extractor, "The juvenile form of Parkinson disease is rare.") == {
        "Parkinson disease": "MONDO:0005180"
    }
    assert "Parkinson disease" in ids(extractor, "It is a common form of Parkinson disease.")
    # the disease written as a short form: its KG name names the form
    text = "Congenital hypothyroidism (CH) is common; TSHR causes a nongoitrous form of CH."
    assert ids(extractor, text)["nongoitrous form of CH"] == "MONDO:0000045"


def test_an_abbreviation_is_widened_as_its_spelt_out_name(extractor: EntityExtractor) -> None:
    # "Central CH": "central congenital hypothyroidism", once CH is congenital hypothyroidism
    text = "Congenital hypothyroidism (CH) has forms. Central CH is rare."
    found = {m.text: m.id for m in extractor.extract(text.split(". ")[1], defined=
             extractor.definitions(text.split(". ")[0]))}  # fmt: skip
    assert found == {"Central CH": "MONDO:0016410"}


def test_a_subtype_or_form_named_without_its_disease_takes_the_one_before(
    extractor: EntityExtractor,
) -> None:
    text = "Gaucher type 1 spares the brain, whereas type 2 and type 3 involve it."
    found = ids(extractor, text)
    assert (found["type 2"], found["type 3"]) == ("OMIM:230900", "OMIM:231000")  # II, III
    text = "SPEG is linked to the recessive form, DNM2 to autosomal dominant CNM."
    assert "recessive form" not in ids(extractor, text)  # no disease named before it
    text = "DNM2 causes autosomal dominant CNM, whereas SPEG is linked to the recessive form."
    assert ids(extractor, text)["recessive form"] == "ORPHA:169186"
    # or the disease the claim before named (nemaline myopathy)
    text = "Falls are common in the severe congenital form."
    found = {m.text: m.id for m in extractor.extract(text, topic="MONDO:0018958")}
    assert found["severe congenital form"] == "ORPHA:171430"
    # forms in the plural need no article
    text = "Variants are associated with late-onset PD but not with juvenile forms."
    assert ids(extractor, text)["juvenile forms"] == "MONDO:0000828"
    # a code that goes on into another name is none of the disease's subtypes
    assert "type 2" not in ids(extractor, "Gaucher disease is unlike type 2 diabetes.")


def test_the_syndrome_after_one_disease_is_that_disease(extractor: EntityExtractor) -> None:
    text = "Lowe syndrome is rare; the syndrome is filed as an eye disorder."
    assert ids(extractor, text)["the syndrome"] == ids(extractor, text)["Lowe syndrome"]
    # after two diseases it could be either: no mention
    text = "Lowe syndrome and Joubert syndrome differ; the syndrome is rare."
    assert "the syndrome" not in ids(extractor, text)


def test_a_pathway_of_care_is_no_process(extractor: EntityExtractor) -> None:
    text = "The diagnostic pathway is set out in Figure 2.4."
    assert not [m for m in extractor.extract(text) if "pathway" in m.text]
    assert [m.text for m in extractor.extract("The retromer pathway is impaired.")] == [
        "retromer pathway"
    ]


def test_a_widened_name_may_end_on_type(extractor: EntityExtractor) -> None:
    # OMIM's "Homocystinuria-megaloblastic anemia, cblG complementation type"
    text = "Homocystinuria–megaloblastic anaemia, cblG type | MTR | raised homocysteine"
    assert ids(extractor, text)["Homocystinuria–megaloblastic anaemia, cblG type"] == (
        "OMIM:250940"
    )


def test_a_topic_the_kg_lacks_is_refused(extractor: EntityExtractor) -> None:
    with pytest.raises(KGError, match="topic 'ORPHA:0' is no entity of the KG"):
        extractor.extract("The syndrome is rare.", topic="ORPHA:0")


def test_a_disease_the_kg_holds_only_as_its_inherited_class_is_that_class(
    extractor: EntityExtractor,
) -> None:
    # MONDO's "epidermolysis bullosa" is not in the demo KG; "inherited epidermolysis
    # bullosa" is, and a genetics report means it
    found = extractor.extract("The syndrome overlaps with epidermolysis bullosa.")
    assert [(m.text, m.id, m.in_kg) for m in found][-1] == (
        "epidermolysis bullosa",
        "MONDO:0019276",
        True,
    )


def test_an_abbreviation_takes_the_sense_its_sentence_speaks_of(
    extractor: EntityExtractor,
) -> None:
    # MONDO's other "HSP" (IgA vasculitis, outside the KG) where the sentence is about purpura
    vasculitis = extractor.extract("Children with HSP had palpable purpura on the legs.")
    assert [(m.id, m.in_kg) for m in vasculitis if m.text == "HSP"] == [("MONDO:0019167", False)]
    # the KG's HSP where the sentence is about it, or about nothing that tells them apart
    for text in ("HSP causes a spastic gait.", "HSP was diagnosed at the age of 12."):
        assert ids(extractor, text)["HSP"] == "MONDO:0019064"
    # a gene's symbol also abbreviates the disease named after it: the gene stays the gene
    assert ids(extractor, "MKS1, a Meckel syndrome gene, was sequenced.")["MKS1"] == (
        "NCBIGene:54903"
    )


def test_terms_joined_by_a_slash_are_each_a_mention(extractor: EntityExtractor) -> None:
    found = extractor.extract("She was started on levodopa/carbidopa at night.")
    assert [(m.text, m.in_kg) for m in found] == [("levodopa", False), ("carbidopa", False)]
    # a slash inside a word that is no pair of terms names nothing new
    assert [m.text for m in extractor.extract("Reviewed and/or signed off.")] == []
