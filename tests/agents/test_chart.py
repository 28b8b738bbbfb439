"""The phrase-structure reader on a small KG: tags, noun phrases, clauses and attachment."""

from __future__ import annotations

import pytest

from kgrecall.agents.chart import Phrase, PhraseError, read
from kgrecall.kg import Edge, KGSchema, NetworkXStore, Node
from kgrecall.tools import EntityIndex


@pytest.fixture(scope="module")
def index() -> EntityIndex:
    store = NetworkXStore(KGSchema.biomedical())
    store.add_nodes(
        [
            Node("G:SNCA", "gene", "SNCA", synonyms=("alpha-synuclein",)),
            Node("P:SNCA", "protein", "SNCA"),
            Node("G:PRKN", "gene", "PRKN", synonyms=("parkin",)),
            Node("D:PD", "disease", "Parkinson disease"),
            Node("D:PD7", "disease", "Parkinson disease 7"),
            Node("D:PD6", "disease", "Parkinson disease 6, autosomal recessive early-onset"),
            Node("D:EA1", "disease", "Episodic ataxia type 1"),
            Node("D:EA2", "disease", "Episodic ataxia type 2"),
            Node("D:PSP", "disease", "Supranuclear palsy, progressive, 1", synonyms=("PSP",)),
            Node(
                "D:CPSP",
                "disease",
                "Classic progressive supranuclear palsy syndrome",
                synonyms=("PSP",),
            ),
            Node("D:AD", "disease", "Alzheimer disease"),
            Node("D:EOAD", "disease", "Alzheimer disease, early-onset"),
            Node("H:TREMOR", "phenotype", "Resting tremor"),
            Node("H:DYSTONIA", "phenotype", "Dystonia"),
            Node("H:FOCAL", "phenotype", "Focal dystonia"),
            Node("H:GENERALIZED", "phenotype", "Generalized dystonia"),
        ]
    )
    store.add_edges(
        [
            Edge("G:SNCA", "encodes", "P:SNCA"),
            Edge("G:SNCA", "associated_with", "D:PD"),
            Edge("G:PRKN", "associated_with", "D:PD7"),
            Edge("D:PD7", "subclass_of", "D:PD"),
            Edge("D:EOAD", "subclass_of", "D:AD"),
            Edge("D:PD", "has_phenotype", "H:TREMOR"),
            Edge("D:PSP", "has_phenotype", "H:DYSTONIA"),
            Edge("D:CPSP", "subclass_of", "D:PSP"),
        ]
    )
    return EntityIndex(store)


def shape(phrase: Phrase) -> object:
    """A phrase as nested tuples: (head, [(relation words, subject?, argument), …]) or the
    mentions' words."""
    if phrase.mentions:
        return [m.tag.text for m in phrase.mentions]
    return (
        phrase.head.text if phrase.head else None,
        [(c.relation.text, c.subject, shape(c.argument)) for c in phrase.clauses],
    )


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        # the longest name wins: "Parkinson disease 7", not "Parkinson disease" and "7"
        (
            "Which genes are associated with Parkinson disease 7",
            ("genes", [("are associated with", False, ["Parkinson disease 7"])]),
        ),
        # a participle clause right after a type word belongs to it; the next relation
        # phrase, with no "that", is the main verb of the question
        (
            "Which diseases linked to SNCA present with resting tremor",
            ("diseases", [("linked to", False, ["SNCA"]), ("present with", False,
                                                           ["resting tremor"])]),
        ),
        (
            "Which genes are linked to diseases that present with dystonia",
            ("genes", [("are linked to", False,
                        ("diseases", [("present with", False, ["dystonia"])]))]),
        ),
        # a subject clause: the argument before its relation phrase
        (
            "What phenotypes are seen in the diseases that SNCA and parkin share",
            ("phenotypes", [("are seen in", False,
                             ("diseases", [("share", True, ["SNCA", "parkin"])]))]),
        ),
        # compounds: hyphenated relation, possessive, a relation noun after the name
        (
            "Which phenotypes of SNCA-associated diseases are also seen in Parkinson disease 7",
            (None, [("phenotypes of", False, ("diseases", [("associated", False, ["SNCA"])])),
                    ("seen in", False, ["Parkinson disease 7"])]),
        ),
        ("SNCA's diseases", ("diseases", [("of", False, ["SNCA"])])),
        (
            "What are the Parkinson disease subtypes",
            (None, [("subtypes", False, ["Parkinson disease"])]),
        ),
        # contractions and "who" opening the question; a fronted preposition goes last
        (
            "What's associated with SNCA",
            (None, [("is associated with", False, ["SNCA"])]),
        ),
        ("Who are the genes of Parkinson disease 7", ("genes", [("of", False,
                                                                 ["Parkinson disease 7"])])),
        (
            "In which diseases is resting tremor seen",
            ("diseases", [("seen in", True, ["resting tremor"])]),
        ),
        # a relation noun as the argument, or with its subject before "have"
        (
            "Which genes are associated with the subtypes of Parkinson disease",
            ("genes", [("are associated with", False,
                        (None, [("subtypes of", False, ["Parkinson disease"])]))]),
        ),
        (
            "What subtypes does Parkinson disease have",
            (None, [("subtypes", False, ["Parkinson disease"])]),
        ),
        # anchor first: reordered into a subject clause
        (
            "Parkinson disease 7 is linked to which genes",
            ("genes", [("is linked to", True, ["Parkinson disease 7"])]),
        ),
        # a topic put first and referred back to: the pronoun reads as the topic
        (
            "parkin: which diseases is it linked to",
            ("diseases", [("linked to", True, ["parkin"])]),
        ),
        (
            "SNCA or parkin - what phenotypes do their diseases show",
            ("phenotypes", [("show", True, ("diseases", [("of", False, ["SNCA", "parkin"])]))]),
        ),
        # the KG named as the context, fillers, and more wordings of the relations
        (
            "In GO, what are the various other subtypes of Parkinson disease",
            (None, [("subtypes of", False, ["Parkinson disease"])]),
        ),
        (
            "What clinical signs show up in Parkinson disease 7",
            ("signs", [("show up in", False, ["Parkinson disease 7"])]),
        ),
        (
            "Which diseases involve SNCA",
            ("diseases", [("involve", False, ["SNCA"])]),
        ),
        # "as well as in" asks for both; a head noun shared across "or"
        (
            "Which genes are implicated in Parkinson disease 7 as well as in Parkinson disease",
            ("genes", [("implicated in", False, ["Parkinson disease 7", "Parkinson disease"])]),
        ),
        (
            "whats a subtype of focal or generalized dystonia",
            (None, [("subtype of", False, ["focal dystonia", "generalized dystonia"])]),
        ),
        # a word next to a name that narrows it joins the name
        (
            "phenotypes of classic PSP or of Parkinson disease",
            (None, [("phenotypes of", False, ["classic PSP", "Parkinson disease"])]),
        ),
    ],
)  # fmt: skip
def test_questions_read_as_phrases(index: EntityIndex, question: str, expected: object) -> None:
    assert shape(read(question, index).answer) == expected


def test_repeated_preposition_lists_are_unions_and_narrowed_names_keep_their_entities(
    index: EntityIndex,
) -> None:
    phrase = read("phenotypes of classic PSP or of Parkinson disease", index).answer
    (clause,) = phrase.clauses
    assert clause.argument.joiners == ["or"]
    assert [e.id for e in clause.argument.mentions[0].tag.entities] == ["D:CPSP"]
    # the words and one of the acronym's names form another name
    phrase = read("Which genes are associated with early-onset AD", index).answer
    (mention,) = phrase.clauses[0].argument.mentions
    assert mention.tag.text == "early-onset AD"
    assert [e.id for e in mention.tag.entities] == ["D:EOAD"]


def test_a_family_member_named_by_its_number_alone_is_that_member(index: EntityIndex) -> None:
    """Elided coordination: "type 1 or type 2", "7, 6 and …": the name before the conjunction
    with its member number replaced; a comma list takes its last conjunction."""
    cases = {
        "genes behind episodic ataxia type 1 or type 2": (["D:EA1", "D:EA2"], ["or"]),
        "genes behind episodic ataxia type 1 or 2": (["D:EA1", "D:EA2"], ["or"]),
        "genes of Parkinson disease 7 and 6": (["D:PD7", "D:PD6"], ["and"]),
    }
    for question, (ids, joiners) in cases.items():
        argument = read(question, index).answer.clauses[0].argument
        assert [m.tag.entities[0].id for m in argument.mentions] == ids, question
        assert argument.joiners == joiners, question
    with pytest.raises(PhraseError, match="could not read '4'"):  # there is no member 4
        read("Which genes are associated with Parkinson disease 7, 6 or 4", index)
    argument = read("phenotypes of Parkinson disease, Alzheimer disease or PSP", index).answer
    assert argument.clauses[0].argument.joiners == ["or", "or"]
    argument = read("phenotypes of Parkinson disease, Alzheimer disease", index).answer
    assert argument.clauses[0].argument.joiners == ["and"]


def test_joiners_of_repeated_prepositions(index: EntityIndex) -> None:
    both = read("genes implicated in Parkinson disease 7 as well as in Alzheimer disease", index)
    either = read("phenotypes of Parkinson disease 7 and of Alzheimer disease", index)
    with_both = read("genes associated with Parkinson disease 7 and with Alzheimer disease", index)
    assert both.answer.clauses[0].argument.joiners == ["and"]
    assert either.answer.clauses[0].argument.joiners == ["or"]
    assert with_both.answer.clauses[0].argument.joiners == ["and"]


def test_a_yes_no_question_has_a_candidate(index: EntityIndex) -> None:
    reading = read("Is resting tremor a feature of Parkinson disease 7", index)
    assert reading.candidate is not None and reading.candidate.tag.text == "resting tremor"
    assert shape(reading.answer) == (None, [("feature of", False, ["Parkinson disease 7"])])


@pytest.mark.parametrize(
    ("question", "message"),
    [
        # words no tag reads are named, never dropped
        ("Which genes are blamed for Parkinson disease", "could not read 'blamed'"),
        ("On which chromosome is SNCA located", "could not read 'On', 'chromosome'"),
        ("Which genes are associated with", "expected an entity or a type word at the end"),
        # a topic put first is read in the pronoun's place as written, backslashes included
        ("X\\1: which diseases is it linked to", r"could not read 'X\\\\1'"),
    ],
)
def test_unreadable_questions_name_what_is_missing(
    index: EntityIndex, question: str, message: str
) -> None:
    with pytest.raises(PhraseError, match=message):
        read(question, index)
