"""Claim reading: the pairs a sentence asserts, their relations, direction and negation."""

from __future__ import annotations

import re

import pytest

from kgrecall.grounding.reading import Assertion, read_assertions


def read(text: str) -> list[tuple[str, str, str, bool, bool]]:
    """Assertions of ``text`` whose entity mentions are written in [brackets]: (subject,
    object, relations, inverse, negated), mentions by their bracketed names."""
    names, spans, plain, offset = [], [], [], 0
    for match in re.finditer(r"\[([^\]]+)\]|[^\[]+", text):
        if match.group(1):
            names.append(match.group(1))
            shown = match.group(1).split("=")[0]
            spans.append((offset, offset + len(shown)))
            plain.append("X" * len(shown))  # masked, as the validator passes it
        else:
            plain.append(match.group(0))
        offset += len(plain[-1])
    # the bracketed name is the entity: an abbreviation in brackets is written "[X=Y]" (the
    # entity Y, read as "X")
    entities = [name.split("=")[-1] for name in names]
    names = [name.split("=")[0] for name in names]
    found = read_assertions("".join(plain), spans, entities=entities)
    return [
        (names[a.subject], names[a.object], "/".join(sorted(a.relations)), a.inverse, a.negated)
        for a in found
    ]


def test_a_predicate_links_its_subject_run_to_its_object_run() -> None:
    assert read("Mutations in [PINK1] and [PRKN] cause [PD].") == [
        ("PINK1", "PD", "associated_with", False, False),
        ("PRKN", "PD", "associated_with", False, False),
    ]
    assert read("[TH] also binds [DRD1], [DRD3] and [DRD5].") == [
        ("TH", "DRD1", "interacts_with", False, False),
        ("TH", "DRD3", "interacts_with", False, False),
        ("TH", "DRD5", "interacts_with", False, False),
    ]


def test_asides_and_relative_clauses_hang_on_their_subject() -> None:
    assert read("[McLeod syndrome], caused by [XK] mutations, can present with [chorea] and "
                "[dystonia].") == [
        ("McLeod syndrome", "XK", "associated_with", True, False),
        ("McLeod syndrome", "chorea", "has_phenotype", False, False),
        ("McLeod syndrome", "dystonia", "has_phenotype", False, False),
    ]  # fmt: skip
    assert read("[Wilson disease], which presents with [tremor], is caused by [ATP7B].") == [
        ("Wilson disease", "tremor", "has_phenotype", False, False),
        ("Wilson disease", "ATP7B", "associated_with", True, False),
    ]
    # an aside that ends where ", which" begins: the relative clause is about the mention
    # before it, not the sentence's first
    assert read("For [chorea-acanthocytosis], look at the CK, the blood film and the smear; "
                "the gene is [VPS13A], which encodes [chorein].") == [
        ("VPS13A", "chorein", "encodes", False, False),
    ]  # fmt: skip


def test_a_coordinated_verb_takes_the_subject_of_its_clause() -> None:
    # "… and recruits Z": the clause's subject recruits, not the mention just before "and"
    assert read("[PINK1] accumulates on depolarised [mitochondria] and recruits [parkin].") == [
        ("PINK1", "parkin", "interacts_with", False, False),
    ]
    # a word may follow the mention before "and" ("… to proline synthesis and cause …")
    pairs = read("[PYCR2] variants link [microcephaly] to [proline] synthesis and cause a "
                 "[microcephaly with leukoencephalopathy].")  # fmt: skip
    assert ("PYCR2", "microcephaly with leukoencephalopathy", "associated_with", False, False) in (
        pairs
    )
    # … but "co-receptor" holds no "or": the mention before the verb is its subject
    pairs = read(
        "[LRP5-related FEVR] overlaps with [OPPG], and the [LRP5] co-receptor binds [DKK1]."
    )
    assert ("LRP5", "DKK1", "interacts_with", False, False) in pairs


def test_a_mention_right_before_the_next_verb_is_its_subject() -> None:
    # "X causes A and Y causes B": Y is no object of the first verb, A no subject of the second
    assert read("[LRRK2] causes [PARK8] and [SNCA] typically causes [PARK1].") == [
        ("LRRK2", "PARK8", "associated_with", False, False),
        ("SNCA", "PARK1", "associated_with", False, False),
    ]
    # a list of objects before a second verb of the same subject stays one list
    assert ("TH", "DRD3", "interacts_with", False, False) in read(
        "[TH] binds [DRD1] and [DRD3] and is expressed in the [striatum]."
    )


def test_unasserted_mentions_are_co_mentions_with_a_neighbour() -> None:
    assert read("[SNCA] [LRRK2].") == [("SNCA", "LRRK2", "", False, False)]
    assert read("Only [SNCA] here.") == []
    # beside an asserted pair, a mention left alone is an aside, not dystonia–parkinsonism
    pairs = read("[Juvenile HD] presents with [dystonia], and [parkinsonism] may dominate.")
    assert pairs == [("Juvenile HD", "dystonia", "has_phenotype", False, False)]
    # mentions left over pair with each other, not with the asserted ones
    assert read("[CHCHD2] is associated with [PARK22], and [CHCHD10] with [FTD-MND].") == [
        ("CHCHD2", "PARK22", "associated_with", False, False),
        ("CHCHD10", "FTD-MND", "", False, False),
    ]


@pytest.mark.parametrize(
    ("text", "inverse"),
    [
        ("[Tremor] is a type of [resting tremor].", False),
        ("[Dystonia] is a common feature of [DYT1].", True),  # the phenotype first
        ("[alpha-synuclein] is encoded by [SNCA].", True),  # passive
        ("[SNCA] encodes [alpha-synuclein].", False),
        ("[Reduced reflexes] is the narrower term, sitting beneath [hyporeflexia].", False),
        ("[Hyporeflexia] is the parent term of [reduced reflexes].", True),  # the parent first
        ("[Dystonia] is broader than [focal dystonia].", True),
        ("[SCA2] is characterised by [slow saccades].", False),  # its own "by": not passive
        ("[CCD] appeared as a clinical feature of [hyporeflexia].", True),  # feature first
        ("[FXTAS] is an [FMR1] disorder.", True),  # the gene's disorder: associated_with
        ("[YOPD] is usually filed under [juvenile PD].", False),  # the child first
        ("[PSAP] is not a [PARK24] gene.", False),  # the disease's gene, not a kind of it
        ("[Broad-based gait] is part of the [PMS] picture.", True),  # the phenotype first
        ("Texts list [ARJP] among the manifestations of [focal dystonia].", True),
        ("[Angelman syndrome] is one of the recognised features of [gait ataxia].", True),
        ("[CLN3 disease] can be a manifestation of [parkinsonism].", True),
        ("[Action tremor] is in turn a subcategory of [postural tremor].", False),
        ("[Exocytosis] is described as a sub-step of [vesicle targeting].", False),
    ],
)
def test_direction_of_the_wording(text: str, inverse: bool) -> None:
    [(_, _, relations, found_inverse, _)] = read(text)
    assert relations and found_inverse == inverse


@pytest.mark.parametrize(
    ("text", "negated"),
    [
        ("[SNCA] is not associated with [PD].", True),
        ("No study links [GBA1] to [ALS].", True),
        ("[DLB] lacks [dystonia].", True),
        ("[SNCA] is associated with [PD], although this has not been replicated.", False),
        ("[SNCA] is associated with [PD] (not in all cohorts).", False),
        ("[SNCA] causes [PD] but does not cause [ALS].", None),
        ("[SCA2] presents with [ataxia], with or without tremor.", False),
        ("[GRN] does not, however, bind [EGFR].", True),  # an interjection cuts no clause
        ("[SCA2] presents without [ataxia].", True),
        ("[CDK6] has been firmly excluded as an [MCPH] gene.", True),
        ("[Barth] is not, however, classed as one of the [3-MGAs].", True),  # an interjection
        # what a denied report says is denied; a relative clause keeps its own polarity
        ("We could not confirm the report that [NHLRC1] causes [APBD].", True),
        ("There is no evidence that [GBA1] causes [ALS].", True),
        ("It is not rare, and the study shows that [SNCA] causes [PD].", False),
    ],
)
def test_negation_is_scoped_to_the_clause_of_the_pair(text: str, negated: bool | None) -> None:
    pairs = read(text)
    if negated is None:  # the second clause has no subject of its own: the sentence's
        assert [p[4] for p in pairs] == [False, True]
    else:
        assert pairs and all(p[4] == negated for p in pairs), pairs


def test_assertions_are_indices_into_the_mentions() -> None:
    text = "XXXX causes XX."
    assert read_assertions(text, [(0, 4), (12, 14)]) == [
        Assertion(0, 1, frozenset({"associated_with"}))
    ]


def test_a_second_verb_phrase_keeps_the_first_subject() -> None:
    assert read("[Kufor-Rakeb syndrome] is caused by [ATP13A2] and features [dystonia].") == [
        ("Kufor-Rakeb syndrome", "ATP13A2", "associated_with", True, False),
        ("Kufor-Rakeb syndrome", "dystonia", "has_phenotype", False, False),
    ]


def test_table_rows_describe_their_first_cell() -> None:
    assert read("| [PSEN1] | [early-onset AD] | [dystonia] |") == [
        ("PSEN1", "early-onset AD", "", False, False),
        ("PSEN1", "dystonia", "", False, False),
    ]


def test_weak_mentions_join_asserted_pairs_and_the_claim_subject() -> None:
    text = "XXXX binds XXX through a tyrosine site near XXXXX."
    spans = [(0, 4), (11, 14), (25, 33), (44, 49)]
    pairs = [(a.subject, a.object) for a in read_assertions(text, spans, weak={2})]
    # "tyrosine" (a vocabulary term the KG lacks) is part of the claim about its subject,
    # never a co-mention of its neighbours; the strong mention left alone is an aside
    assert pairs == [(0, 1), (0, 2)]
    # a sentence asserting nothing is a co-mention of all it names, weak mentions included
    # ("reduced reflexes at the ankles and a postural tremor": not grounded by its KG terms)
    listed = "XXXXXXXXXXXXXXXX at the XXXXXX and a postural XXXXXX."
    spans = [(0, 16), (24, 30), (46, 52)]
    assert [(a.subject, a.object) for a in read_assertions(listed, spans, weak={1})] == [
        (0, 1),
        (1, 2),
    ]


def test_a_reason_or_a_concession_adds_no_outside_term_to_the_claim() -> None:
    # "serine" explains why (a vocabulary term the KG lacks): not more of what the claim says
    # about its subject, as it would be in a clause that goes on about it
    because = "XXXXX is filed with the XXXXXXXXX, because the transporter carries XXXXXX."
    spans = [(0, 5), (24, 33), (67, 73)]
    assert [(a.subject, a.object) for a in read_assertions(because, spans, weak={2})] == [(0, 1)]
    despite = "XXXX is not linked to XXXXXXXXXXXXX, although XXXXXXXXXXXX have been noted."
    spans = [(0, 4), (22, 35), (46, 58)]
    assert [(a.subject, a.object) for a in read_assertions(despite, spans, weak={2})] == [(0, 1)]
    goes_on = "XXXXX is filed with the XXXXXXXXX, and it carries XXXXXX."
    spans = [(0, 5), (24, 33), (51, 57)]
    assert [(a.subject, a.object) for a in read_assertions(goes_on, spans, weak={2})] == [
        (0, 1),
        (0, 2),
    ]


def test_list_items_are_not_said_to_be_related_to_each_other() -> None:
    # no predicate: each item of the list pairs with the mention before the list
    assert read("The [PMEs] combine [action myoclonus], [epilepsy] and progressive decline.") == [
        ("PMEs", "action myoclonus", "", False, False),
        ("PMEs", "epilepsy", "", False, False),
    ]
    # a list that opens the claim pairs with the mention after it
    assert read("[FAME6] and [FAME7] show [myoclonic tremor].") == [
        ("FAME6", "myoclonic tremor", "", False, False),
        ("FAME7", "myoclonic tremor", "", False, False),
    ]
    # two names parted by a comma alone are no list: neighbours, as before
    assert read("In contrast to [SCA2], [MJD] lacks [fasciculations].") == [
        ("SCA2", "MJD", "", False, False),
        ("MJD", "fasciculations", "", False, True),
    ]
    # a claim that is one list pairs its neighbours
    assert read("[SNCA], [LRRK2] and [GBA1].") == [
        ("SNCA", "LRRK2", "", False, False),
        ("LRRK2", "GBA1", "", False, False),
    ]


def test_a_relative_clause_runs_on_through_its_list() -> None:
    # the comma after "dystonia" continues the list; it does not end the relative clause
    assert read("[REPS1] is associated with [NBIA7], which presents with [dystonia], [tremor] "
                "and [brisk reflexes].") == [
        ("REPS1", "NBIA7", "associated_with", False, False),
        ("NBIA7", "dystonia", "has_phenotype", False, False),
        ("NBIA7", "tremor", "has_phenotype", False, False),
        ("NBIA7", "brisk reflexes", "has_phenotype", False, False),
    ]  # fmt: skip
    # a comma followed by a verb phrase still ends it
    assert read("[Chorea-acanthocytosis], caused by [VPS13A] mutations, typically features "
                "[orofacial dyskinesia] and [tongue biting].") == [
        ("Chorea-acanthocytosis", "VPS13A", "associated_with", True, False),
        ("Chorea-acanthocytosis", "orofacial dyskinesia", "has_phenotype", False, False),
        ("Chorea-acanthocytosis", "tongue biting", "has_phenotype", False, False),
    ]  # fmt: skip


def test_an_apposition_speaks_of_the_name_it_restates() -> None:
    assert read("[STUB1] is associated with [SCA48], a dominant [ataxia] with cognitive "
                "features, [chorea] and [parkinsonism].") == [
        ("STUB1", "SCA48", "associated_with", False, False),
        ("SCA48", "chorea", "has_phenotype", False, False),
        ("SCA48", "parkinsonism", "has_phenotype", False, False),
    ]  # fmt: skip


def test_table_rows_pair_terms_outside_the_kg_with_their_first_cell() -> None:
    text = "| XXX | XXXXXXX | XXXXXXXXX |"
    spans = [(2, 5), (8, 15), (18, 27)]
    pairs = [(a.subject, a.object) for a in read_assertions(text, spans, weak={2})]
    assert pairs == [(0, 1), (0, 2)]  # the weak third cell describes the row's first one
    # a term inside a description cell is a word of the description, not a claim
    text = "| XXXXXXXXXXXX | XXXXXX | sustained beats at the XXXXX |"
    spans = [(2, 14), (17, 23), (49, 54)]
    pairs = [(a.subject, a.object) for a in read_assertions(text, spans, weak={2})]
    assert pairs == [(0, 1)]

    # ... but a term listed after a semicolon is a feature of the row's first cell; a variant
    # there tells which allele, and stays a word of the description
    text = "| XXXX | XXXXXX | severe neonatal course; XXXXXXXXXXXXXX |"
    spans = [(2, 6), (9, 15), (42, 56)]
    pairs = [(a.subject, a.object) for a in read_assertions(text, spans, weak={2})]
    assert pairs == [(0, 1), (0, 2)]
    # a feature may say in whom it is seen
    text = "| XXXX | XXXX | XXXXXXXXXXXXXXXXXXX in 46,XY infants |"
    spans = [(2, 6), (9, 13), (16, 35)]
    pairs = [(a.subject, a.object) for a in read_assertions(text, spans, weak={2})]
    assert pairs == [(0, 1), (0, 2)]
    text = "| XXXX | XXXXXX | severe neonatal course; XXXXXXXXXXXXXX |"
    spans = [(2, 6), (9, 15), (42, 56)]
    ids = ["OMIM:225753", "NCBIGene:283989", "variant:c.907_909delGAG"]
    pairs = [(a.subject, a.object) for a in read_assertions(text, spans, {2}, ids)]
    assert pairs == [(0, 1)]


def test_a_table_cell_may_deny_a_feature_after_naming_it() -> None:
    assert read("| [PCH11] | [TBC1D23] | milder; [inability to walk] is not reported |") == [
        ("PCH11", "TBC1D23", "", False, False),
        ("PCH11", "inability to walk", "", False, True),
    ]
    # in prose a negation after a name denies what follows, not the name
    assert read("In [PD], [LRRK2] is not the commonest cause.")[0][-1] is False


def test_a_class_that_includes_names_its_subtypes() -> None:
    # the relative clause starts after "that": the class word behind it makes "includes"
    # a subclass wording, whose subject is the name the apposition restates
    text = "It raised [LEMS], a category that includes the [PNS], and prompted a CT."
    assert read(text) == [("LEMS", "PNS", "subclass_of", True, False)]
    # without a class word "includes" names no relation
    assert read("The phenotype that includes [ataxia] is [SCA2].")[0][2] == ""


def test_a_step_within_a_process_is_part_of_it() -> None:
    text = "[Macroautophagy] is only one step within [autophagosome–lysosome fusion]."
    assert read(text) == [
        ("Macroautophagy", "autophagosome–lysosome fusion", "part_of", False, False)
    ]


def test_and_before_a_new_subject_and_its_verb_starts_a_clause() -> None:
    text = "[Macrocytic anaemia] is a subgroup of [anaemia], and [MA] falls within it."
    assert read(text) == [("Macrocytic anaemia", "anaemia", "subclass_of", False, False)]
    # a glossed subject too: "…, and Fanconi anaemia (FA) is the classic example"
    text = "[CA] is one of the [CHDs], and [Fanconi anaemia] ([FA=Fanconi anaemia]) is an example."
    assert ("CA", "Fanconi anaemia") not in {pair[:2] for pair in read(text)}


def test_a_fronted_phrase_of_place_is_no_subject() -> None:
    text = "In the [sarcolemma], [laminin α2] binds [integrin α7]."
    assert read(text) == [("laminin α2", "integrin α7", "interacts_with", False, False)]
    # a list of subjects still runs across commas
    text = "[Agrin], [LRP4] and [MuSK] bind [DOK7]."
    assert [pair[0] for pair in read(text)] == ["Agrin", "LRP4", "MuSK"]


def test_is_not_a_denies_the_class_and_a_cause_of_is_no_class() -> None:
    text = "[ORPHA:424] is a form of [hyperthyroidism] and is not an [autoimmune thyroid disease]."
    assert read(text)[-1] == ("ORPHA:424", "autoimmune thyroid disease", "subclass_of", False, True)
    assert read("[PRNP] is not a cause of [HD].") == [
        ("PRNP", "HD", "associated_with", False, True)
    ]


@pytest.mark.parametrize(
    "text",
    [
        "[A] is filed as an [B] rather than as an [C].",
        "[A] is classified under [B] rather than under [C].",
        "[A] is a [B] and not a [C].",
        "[A] is classed as a [B] and not as a [C].",
    ],
)
def test_rather_than_and_and_not_deny_the_second_class(text: str) -> None:
    # "Lowe is filed as an eye disorder rather than as a renal tubular disease", "Central CH
    # is classified under permanent CH rather than under transient CH", "Pompe disease is a
    # glycogen storage disease and not a lipid storage disorder"
    assert read(text) == [
        ("A", "B", "subclass_of", False, False),
        ("A", "C", "subclass_of", False, True),
    ]


def test_but_not_at_the_end_denies_the_claim_of_one_more_subject() -> None:
    text = "[LRAT] and [LCA5] are linked to [retinal dystrophy], but [SPATA7] is not."
    assert read(text)[-1] == ("SPATA7", "retinal dystrophy", "associated_with", False, True)
    # "is not mentioned" says something else
    text = "[X] is associated with [Y] but [Z] is not mentioned."
    assert read(text) == [("X", "Y", "associated_with", False, False)]


def test_respectively_pairs_the_lists_one_each() -> None:
    assert read("[ATG5] and [ATG7] cause [SCAR25] and [SCAR31] respectively.") == [
        ("ATG5", "SCAR25", "associated_with", False, False),
        ("ATG7", "SCAR31", "associated_with", False, False),
    ]


def test_a_term_outside_the_kg_describing_an_apposition_is_no_claim() -> None:
    text = "XXXX loss causes XXXXXXXXXXXXX, a disorder of defective XXXXXXXXXXXX clearance."
    spans = [(m.start(), m.end()) for m in re.finditer("X+", text)]
    pairs = [(a.subject, a.object) for a in read_assertions(text, spans, weak={2})]
    assert pairs == [(0, 1)]


@pytest.mark.parametrize(
    ("text", "pairs"),
    [
        ("The interaction of XXXXXXXXXX with XXXXX was confirmed in XXXXXXXXXXXX.", [(0, 1)]),
        (
            "XXXXXXXXX, a form of XXXXXXXXXXXXXX, was quantified after XXXX depolarisation.",
            [(0, 1)],
        ),
        ("XXXXX fusion, a form of XXXXXX, was triggered by XXXXXXXXXXXXX.", [(0, 1)]),
        ("XXXXXXXXXXX from XXXXX patients carrying XXXXX mutations showed fragments.", [(1, 2)]),
        # a term outside the KG that the claim is about stays in it
        ("XXXXX is associated with XXXXXX, and XXXXXXXX worsens it.", [(0, 1), (0, 2)]),
    ],
)
def test_experimental_material_and_samples_are_no_part_of_a_claim(
    text: str, pairs: list[tuple[int, int]]
) -> None:
    spans = [(m.start(), m.end()) for m in re.finditer("X+", text)]
    weak = {2} if "patients" not in text else {0}
    assert [(a.subject, a.object) for a in read_assertions(text, spans, weak=weak)] == pairs


@pytest.mark.parametrize(
    ("text", "excluded"),
    [
        # "…, and the total neutrophil pool is normal": a cell, where the claim happens
        ("XXXX is classified as a XXXXXXXXXXXXXXXX, and the XXXXXXXXXX pool is normal.",
         "places"),
        # a drug the claim goes on about is part of it; a test in the same place is how
        # something was found, in no pair
        ("XXXXX is associated with XXXXXX, and XXXXXXXXXXXXX confirms it.", "procedures"),
    ],
)  # fmt: skip
def test_a_place_or_a_test_is_not_what_a_claim_goes_on_about(text: str, excluded: str) -> None:
    spans = [(m.start(), m.end()) for m in re.finditer("X+", text)]
    found = read_assertions(text, spans, weak={2})
    assert [(a.subject, a.object) for a in found] == [(0, 1), (0, 2)]
    found = read_assertions(text, spans, weak={2}, **{excluded: {2}})  # type: ignore[arg-type]
    assert [(a.subject, a.object) for a in found] == [(0, 1)]


def test_a_contrast_or_a_differential_diagnosis_pairs_nothing_across_it() -> None:
    assert read("[HSPB1] gives [CMT2F], while [GARS] gives [CMT2D].") == [
        ("HSPB1", "CMT2F", "", False, False),
        ("GARS", "CMT2D", "", False, False),
    ]
    assert read("[FAME6] shows [myoclonic tremor], often misdiagnosed as [essential tremor].") == [
        ("FAME6", "myoclonic tremor", "", False, False),
    ]
    # a look-alike is no relation: "A can masquerade as B"
    assert read("Late-onset [Friedreich ataxia] can masquerade as a [dominant ataxia].") == []


def test_a_subordinate_clause_put_first_ends_at_its_comma() -> None:
    # the main clause's subject is its own, not the complement of "Although X is Y"
    assert read("Although [Alzheimer disease] is mostly a [cognitive disorder], [early-onset AD] "
                "presents with [parkinsonism] and [myoclonus].") == [
        ("early-onset AD", "parkinsonism", "has_phenotype", False, False),
        ("early-onset AD", "myoclonus", "has_phenotype", False, False),
        ("Alzheimer disease", "cognitive disorder", "", False, False),
    ]  # fmt: skip


def test_a_new_clause_may_open_with_a_list_of_subjects() -> None:
    # "…, and A and B have been reported in X": A and B are no objects of "cause"
    assert read("[FUS] is the usual cause of [juvenile ALS], and [dystonia] and [chorea] have "
                "also been reported in [FUS] carriers.") == [
        ("FUS", "juvenile ALS", "associated_with", False, False),
        ("dystonia", "FUS", "has_phenotype", True, False),
        ("chorea", "FUS", "has_phenotype", True, False),
    ]  # fmt: skip


def test_but_not_goes_on_about_the_same_subject() -> None:
    # "A but not B" is no contrast between two sides: B is still said of the subject
    assert read("[SOD1] carriers show [fasciculations] but not [dementia].") == [
        ("SOD1", "fasciculations", "", False, False),
        ("SOD1", "dementia", "", False, True),
    ]


@pytest.mark.parametrize(
    ("text", "child", "parent"),
    [
        ("[Cerebellar ataxia] is the umbrella term, and [SCA1] is one of its subtypes.",
         "SCA1", "Cerebellar ataxia"),
        ("Here [myoclonus] is the narrower class and [hyperkinesia] is its parent.",
         "myoclonus", "hyperkinesia"),
        ("[Dystonia] is the child term; [movement disorder] is the broader term.",
         "Dystonia", "movement disorder"),
    ],
)  # fmt: skip
def test_ranks_in_a_hierarchy_name_the_subclass(text: str, child: str, parent: str) -> None:
    # each mention is given its rank ("the broad category", "one of its subtypes"): the
    # narrower one is the subclass, whichever is named first
    assert read(text) == [(child, parent, "subclass_of", False, False)]


def test_a_rank_needs_both_mentions_ranked() -> None:
    # one rank alone says nothing of the other mention
    assert all(
        "subclass_of" not in relations
        for _, _, relations, _, _ in read("[Ataxia] is the broader term, and [SCA1] is rare.")
    )


def test_a_mutual_wording_pairs_its_list_of_subjects() -> None:
    # "A and B … interact" has no object: the list's items are the pair, and a "not" before
    # the verb denies it
    assert read("[GBA] and [SNCA] are not thought to interact directly.") == [
        ("GBA", "SNCA", "interacts_with", False, True)
    ]


def test_a_list_left_over_beside_asserted_pairs_is_said_of_the_subject() -> None:
    # "…, and it depends on A and B": the list is about the claim's subject, its items are
    # not related to each other
    assert read("[type 1 mitophagy] is a subclass of [mitophagy], and it needs [PINK1] and "
                "[parkin].") == [
        ("type 1 mitophagy", "mitophagy", "subclass_of", False, False),
        ("type 1 mitophagy", "PINK1", "", False, False),
        ("type 1 mitophagy", "parkin", "", False, False),
    ]  # fmt: skip


def test_a_new_clause_may_open_with_a_longer_subject() -> None:
    # ", and the protein's best-known partners are …" starts a statement of its own: the
    # denial before it does not reach it
    assert read("[PRNP] does not bind [ITM2B], and the protein's best-known partners are "
                "[ADRB2] and [FZD7].") == [
        ("PRNP", "ITM2B", "interacts_with", False, True),
        ("PRNP", "ADRB2", "", False, False),
        ("PRNP", "FZD7", "", False, False),
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("[Parkinsonism] is also well described in [SCA3].",
         ("Parkinsonism", "SCA3", "has_phenotype", True, False)),
        ("[Chorea] can emerge in [SCA17].", ("Chorea", "SCA17", "has_phenotype", True, False)),
        ("[Fission] is driven by [DRP1].", ("Fission", "DRP1", "", True, False)),
        ("[Ataxia] includes [SCA1] among its subtypes.",
         ("Ataxia", "SCA1", "subclass_of", True, False)),
        ("[Exocytosis] has [vesicle docking] as a part.",
         ("Exocytosis", "vesicle docking", "part_of", True, False)),
        ("[Chorea] is one of the manifestations of [HD].",
         ("Chorea", "HD", "has_phenotype", True, False)),
        ("[Dystonia] is the superclass of [focal dystonia].",
         ("Dystonia", "focal dystonia", "subclass_of", True, False)),
        ("[HD] has [chorea] as its cardinal feature.",
         ("HD", "chorea", "has_phenotype", False, False)),
        ("[PINK1] recruits [parkin] to damaged mitochondria.",
         ("PINK1", "parkin", "interacts_with", False, False)),
        ("[Spastin] sits underneath [microtubule severing], not the reverse.",
         ("Spastin", "microtubule severing", "subclass_of", False, False)),
        ("[Vesicle docking], in turn, is one component of [exocytosis], so both fail.",
         ("Vesicle docking", "exocytosis", "part_of", False, False)),
        ("Note that [SCA3] is itself one of the [polyglutamine ataxias], as we said.",
         ("SCA3", "polyglutamine ataxias", "subclass_of", False, False)),
        ("[Chorea], a late sign, is a disease that has [HD] among its manifestations.",
         ("Chorea", "HD", "has_phenotype", False, False)),
        ("[Ataxia], by contrast, is often presented as the parent category, with [SCA1] as "
         "one of its subtypes.", ("SCA1", "Ataxia", "subclass_of", False, False)),
        ("[PHGDH deficiency] is also filed with the [serine deficiency disorders].",
         ("PHGDH deficiency", "serine deficiency disorders", "subclass_of", False, False)),
        ("[Stomatocytosis] belongs with the [haemolytic anaemias].",
         ("Stomatocytosis", "haemolytic anaemias", "subclass_of", False, False)),
    ],
)  # fmt: skip
def test_more_hierarchy_part_and_phenotype_wordings(
    text: str, expected: tuple[str, str, str, bool, bool]
) -> None:
    assert read(text) == [expected]


def test_one_of_the_needs_the_name_to_end_the_phrase() -> None:
    # "one of the HSP genes" names genes, not a class the subject belongs to
    assert read("[SPAST] is one of the [HSP] genes.") == [("SPAST", "HSP", "", False, False)]


def test_but_not_and_not_only_but_also_inside_one_object_list() -> None:
    # "but not to C" goes on with the list and denies C alone; "not only A but also B"
    # denies nothing
    assert read("[TPP] is linked to [KCNJ18] and [CACNA1S] but not to [SCN4A].") == [
        ("TPP", "KCNJ18", "associated_with", False, False),
        ("TPP", "CACNA1S", "associated_with", False, False),
        ("TPP", "SCN4A", "associated_with", False, True),
    ]
    assert read("[APP] mutations cause not only [AD] but also [CAA].") == [
        ("APP", "AD", "associated_with", False, False),
        ("APP", "CAA", "associated_with", False, False),
    ]


def test_glosses_go_with_the_name_they_follow() -> None:
    # items glossed one by one are parallel: no pair across them
    assert read("Test [C9orf72], [HDL2] ([JPH3]), [SCA17] ([TBP]) and [HDL1] ([PRNP]) first.") == [
        ("HDL2", "JPH3", "", False, False),
        ("SCA17", "TBP", "", False, False),
        ("HDL1", "PRNP", "", False, False),
    ]
    # an abbreviation in brackets is the name again: a list of neighbours as before (the
    # verifier drops the pair of one entity with itself)
    assert read("Forms include [CoPAN disease] ([CoPAN=CoPAN disease]) and [FAHN].") == [
        ("CoPAN disease", "CoPAN", "", False, False),
        ("CoPAN", "FAHN", "", False, False),
    ]


def test_a_child_told_after_its_parents_rank() -> None:
    # the parent's rank first, the child's place in a relative clause: the child is the subject
    assert read("[Northern epilepsy] is the umbrella term under which [CLN8 disease] sits.") == [
        ("CLN8 disease", "Northern epilepsy", "subclass_of", False, False)
    ]
    assert read("[AOA1] is the broader category into which [ATLD] falls.") == [
        ("ATLD", "AOA1", "subclass_of", False, False)
    ]


def test_an_arrow_relates_the_names_on_either_side() -> None:
    # notes write "gene → disease"; each arrow of a clause pairs its own two names
    assert read("[B9D1] → [JBTS27]; [TCTN2] → [JBTS24].") == [
        ("B9D1", "JBTS27", "", False, False),
        ("TCTN2", "JBTS24", "", False, False),
    ]


def test_a_phrase_after_its_noun_leaves_the_noun_the_subject() -> None:
    # "X due to Y deficiency is classed as Z": X is classed, not Y
    assert read("[Hereditary methaemoglobinaemia] due to [CYB5R3] deficiency is best "
                "classified as a [sideroblastic anaemia].") == [
        ("Hereditary methaemoglobinaemia", "CYB5R3", "associated_with", False, False),
        ("Hereditary methaemoglobinaemia", "sideroblastic anaemia", "subclass_of", False, False),
    ]  # fmt: skip
    # with a verb of its own, the phrase is the clause's predicate: Y is the next subject
    pairs = read("[PD] is caused by [SNCA], and [SNCA] binds [LRRK2].")
    assert ("SNCA", "LRRK2", "interacts_with", False, False) in pairs


def test_a_clause_after_a_bracketed_gloss_hangs_on_the_glossed_name() -> None:
    pairs = read("[Acute intermittent porphyria] ([AIP=Acute intermittent porphyria]) was "
                 "common, and [variegate porphyria] ([VP=variegate porphyria]), due to [PPOX], "
                 "was found in three patients.")  # fmt: skip
    assert ("VP", "PPOX", "associated_with", False, False) in pairs
    assert not any("PPOX" in pair[:2] and "Acute intermittent porphyria" in pair[:2]
                   for pair in pairs)  # fmt: skip


def test_lists_go_on_after_and_as() -> None:
    # "classed both as an ED and as a suprabasal EBS": both are what it is classed as
    assert read("[The syndrome] is classed both as an [ED] and as a [suprabasal EBS].") == [
        ("The syndrome", "ED", "subclass_of", False, False),
        ("The syndrome", "suprabasal EBS", "subclass_of", False, False),
    ]


def test_a_list_goes_on_after_sometimes_with() -> None:
    pairs = read("[Neuroferritinopathy] results from [FTL] mutations and often presents in "
                 "mid-life with [chorea], sometimes with [palatal tremor].")  # fmt: skip
    assert pairs == [
        ("Neuroferritinopathy", "FTL", "associated_with", False, False),
        ("Neuroferritinopathy", "chorea", "has_phenotype", False, False),
        ("Neuroferritinopathy", "palatal tremor", "has_phenotype", False, False),
    ]


def test_regulation_words_that_are_no_finite_verbs_claim_no_regulation() -> None:
    assert read("[CCDC28B] acts as a modifier, increasing severity in [BBS1] families.") == [
        ("CCDC28B", "BBS1", "", False, False)
    ]
    pairs = read("[BLS2] is caused by defects in the transcriptional regulators [CIITA].")
    assert all(relations != "regulates" for _, _, relations, _, _ in pairs)
    assert read("[PINK1] activates [parkin].")[0][2] == "activates/positively_regulates"


def test_expressed_relates_only_with_a_place_after_it() -> None:
    # "the maternally expressed UBE3A gene" is an adjective, not an expression claim
    assert read("[Angelman syndrome] is due to loss of the maternally expressed [UBE3A].") == [
        ("Angelman syndrome", "UBE3A", "associated_with", False, False)
    ]
    assert read("[TH] is expressed in the [striatum].")[0][2] == "expressed_in"
