"""LLM claim extraction: the real client against a local stub server, fake chat models,
and the fallback to the heuristic extractor on every kind of failure."""

from __future__ import annotations

import json

import pytest
from langchain_core.language_models import BaseChatModel
from langchain_core.language_models.fake_chat_models import FakeListChatModel
from pydantic import SecretStr

from kgrecall.grounding import KGGroundingValidator
from kgrecall.grounding.llm_claims import extract_claims_with_llm
from kgrecall.kg import KGError, NetworkXStore
from kgrecall.llm import LLMSettings, chat_model
from tests.llm_server import OpenAIStub, Reply

REPORT = """# Findings

SNCA and PINK1 are associated with Parkinson disease 4. The weather was fine.
"""
FIRST = "SNCA and PINK1 are associated with Parkinson disease 4."
CLAIMS = {
    "claims": [
        {"text": "SNCA is associated with Parkinson disease 4.", "source": FIRST},
        {"text": "PINK1 is associated with Parkinson disease 4.", "source": FIRST},
        {"text": "The weather was fine.", "source": "The weather was fine."},
    ]
}


def stub_model(stub: OpenAIStub, timeout_s: float = 5.0) -> BaseChatModel:
    return chat_model(
        LLMSettings(api_key=SecretStr("k"), base_url=stub.base_url, timeout_s=timeout_s)
    )


def test_llm_claims_are_labelled_and_placed_in_their_sentence(
    demo: NetworkXStore, openai_stub: OpenAIStub
) -> None:
    openai_stub.script(Reply(tool="ExtractedClaims", arguments=CLAIMS))
    validator = KGGroundingValidator(demo, llm=stub_model(openai_stub))
    result = validator.validate(REPORT)
    assert result.extraction == "llm" and not result.notes
    assert [(c.text, c.label) for c in result.claims] == [
        ("SNCA is associated with Parkinson disease 4.", "grounded"),
        ("PINK1 is associated with Parkinson disease 4.", "inferred"),
        ("The weather was fine.", "trivial"),
    ]
    start = REPORT.index(FIRST)
    pink1 = result.claims[1]
    assert (pink1.start, pink1.end) == (start, start + len(FIRST))
    assert [REPORT[e.start : e.end] for e in pink1.entities] == ["PINK1", "Parkinson disease 4"]
    system = openai_stub.requests[0]["messages"][0]["content"]
    assert "atomic factual claims" in system  # the shipped prompt template was sent
    assert "claims extracted by the llm extractor" in result.to_markdown()


@pytest.mark.parametrize(
    ("reply", "reason"),
    [
        (
            Reply(tool="ExtractedClaims", arguments={"claims": [{"text": "x", "source": "nope"}]}),
            "claim source not found in the report: 'nope'",
        ),
        (Reply(tool="ExtractedClaims", arguments={"claims": []}), "found no claims"),
        (Reply(tool="ExtractedClaims", arguments={"items": []}), "not a valid ExtractedClaims"),
        (
            Reply(
                tool="ExtractedClaims",
                arguments={
                    "claims": [
                        {
                            "text": FIRST,
                            "source": FIRST,
                            "pairs": [{"subject": "  ", "object": "SNCA"}],
                        }
                    ]
                },
            ),
            "a pair's entity name is blank",
        ),
        (Reply(status=429), "the LLM call failed"),
        (Reply(delay_s=3, content="{}"), "timed out"),
    ],
)
def test_any_llm_failure_falls_back_to_the_heuristic(
    demo: NetworkXStore, openai_stub: OpenAIStub, reply: Reply, reason: str
) -> None:
    openai_stub.script(reply)
    model = stub_model(openai_stub, timeout_s=1)
    result = KGGroundingValidator(demo, llm=model).validate(REPORT)
    assert result.extraction == "heuristic"
    assert len(result.notes) == 1 and reason in result.notes[0]
    # the heuristic reads one claim with two asserted pairs; it takes the weaker one's label
    assert [c.label for c in result.claims] == ["inferred", "trivial"]
    assert [p.label for p in result.claims[0].pairs] == ["grounded", "inferred"]


def test_fake_chat_model_answering_json_content(demo: NetworkXStore) -> None:
    model = FakeListChatModel(responses=[json.dumps(CLAIMS)])
    result = KGGroundingValidator(demo, llm=model).validate(REPORT)
    assert result.extraction == "llm" and result.counts["grounded"] == 1


def test_bad_reports_are_refused_before_any_llm_call(
    demo: NetworkXStore, openai_stub: OpenAIStub
) -> None:
    validator = KGGroundingValidator(demo, llm=stub_model(openai_stub))
    with pytest.raises(KGError, match="empty"):
        validator.validate("   ")
    assert openai_stub.requests == []


def test_long_reports_go_in_bounded_chunks(openai_stub: OpenAIStub) -> None:
    paragraphs = [f"Gene G{i} is associated with disease D{i}." for i in range(6)]
    report = "\n\n".join(paragraphs)
    openai_stub.script(
        *(
            Reply(
                tool="ExtractedClaims",
                arguments={"claims": [{"text": p, "source": p} for p in paragraphs[i : i + 2]]},
            )
            for i in range(0, 6, 2)
        )
    )
    claims = extract_claims_with_llm(report, stub_model(openai_stub), chunk_chars=100)
    assert len(openai_stub.requests) == 3  # two paragraphs (≤ 100 characters) per call
    assert [report[c.start : c.end] for c in claims] == paragraphs
    assert all(len(r["messages"][1]["content"]) <= 100 for r in openai_stub.requests)


def llm_read(pairs: list[dict[str, object]], text: str) -> FakeListChatModel:
    """A chat model that reads ``text`` as one claim with ``pairs``."""
    claims = {"claims": [{"text": text, "source": text, "pairs": pairs}]}
    return FakeListChatModel(responses=[json.dumps(claims)])


NETRIN = "Netrin-1 attracts commissural axons via DCC."


def test_the_pairs_an_llm_reads_are_the_ones_checked(
    demo: NetworkXStore, openai_stub: OpenAIStub
) -> None:
    heuristic = KGGroundingValidator(demo).validate(NETRIN).claims[0]
    # the wording pairs the ligand with the axons it attracts: nothing to confirm
    assert heuristic.label == "ungrounded"
    pairs = [{"subject": "Netrin-1", "object": "DCC", "relation": "interacts_with"}]
    claims = {"claims": [{"text": NETRIN, "source": NETRIN, "pairs": pairs}]}
    openai_stub.script(Reply(tool="ExtractedClaims", arguments=claims))
    result = KGGroundingValidator(demo, llm=stub_model(openai_stub)).validate(NETRIN)
    claim = result.claims[0]
    assert result.extraction == "llm" and claim.label == "grounded"
    by_text = {e.text: e.id for e in claim.entities}
    assert [(p.subject, p.object, p.claimed_relations) for p in claim.pairs] == [
        (by_text["Netrin-1"], by_text["DCC"], ["interacts_with"])
    ]
    system = openai_stub.requests[0]["messages"][0]["content"]
    # the prompt lists the registry's relations for the model to name
    assert "`subclass_of`: ontology is_a" in system and "related_to" in system
    assert "{relations}" not in system


def test_an_llm_pair_naming_a_term_no_table_holds_is_ungrounded(demo: NetworkXStore) -> None:
    text = "Frobnicin binds SNCA."
    pairs = [{"subject": "Frobnicin", "object": "SNCA", "relation": "interacts_with"}]
    result = KGGroundingValidator(demo, llm=llm_read(pairs, text)).validate(text)
    claim = result.claims[0]
    assert claim.label == "ungrounded"
    outside = [e for e in claim.entities if not e.in_kg]
    assert [(e.text, e.id) for e in outside] == [("Frobnicin", "term:frobnicin")]
    assert "not in the KG: Frobnicin" in result.to_markdown()


def test_an_llm_pair_read_inside_a_longer_mention_is_its_own_entity(
    demo: NetworkXStore,
) -> None:
    text = "Tetrabenazine reduces chorea in Huntington disease."
    pairs = [{"subject": "Tetrabenazine", "object": "chorea"}]  # relation left out: generic
    claim = KGGroundingValidator(demo, llm=llm_read(pairs, text)).validate(text).claims[0]
    chorea = next(e for e in claim.entities if e.text == "chorea")
    assert chorea.in_kg and demo.get_node(chorea.id).type == "phenotype"
    assert [(p.object, p.claimed_relations) for p in claim.pairs] == [(chorea.id, [])]
    assert claim.label == "ungrounded"  # the drug is outside the KG


def test_an_llm_denial_of_a_kg_edge_is_a_conflict_and_unknown_relations_name_none(
    demo: NetworkXStore,
) -> None:
    text = "Parkinson disease 4 is not caused by SNCA."
    denied = [
        {"subject": "SNCA", "object": "Parkinson disease 4", "relation": "associated_with",
         "negated": True}
    ]  # fmt: skip
    claim = KGGroundingValidator(demo, llm=llm_read(denied, text)).validate(text).claims[0]
    assert claim.negated and claim.conflicts and claim.pairs[0].conflict
    invented = [{"subject": "SNCA", "object": "Parkinson disease 4", "relation": "causes_magic"}]
    claim = KGGroundingValidator(demo, llm=llm_read(invented, text)).validate(text).claims[0]
    assert claim.pairs[0].claimed_relations == [] and not claim.conflicts
    assert claim.label == "grounded"


def test_an_llm_pair_reads_its_names_in_the_reports_context(demo: NetworkXStore) -> None:
    first, second = "Incontinentia pigmenti (IP) is rare.", "IKBKG is the gene mutated in IP."
    report = f"{first} {second}"
    pairs = [{"subject": "IKBKG", "object": "IP", "relation": "associated_with"}]
    claims = {
        "claims": [
            {"text": "Incontinentia pigmenti is rare.", "source": first},
            {"text": second, "source": second, "pairs": pairs},
        ]
    }
    model = FakeListChatModel(responses=[json.dumps(claims)])
    claim = KGGroundingValidator(demo, llm=model).validate(report).claims[1]
    defined = next(e for e in KGGroundingValidator(demo).validate(first).claims[0].entities)
    # "IP" alone names nothing; the sentence before defined it
    assert [p.object for p in claim.pairs] == [defined.id]
    assert claim.label == "grounded"


def test_a_bare_abbreviation_an_llm_pairs_is_linked_without_a_cue(demo: NetworkXStore) -> None:
    validator = KGGroundingValidator(demo)
    assert validator.extractor.extract("HD") == []  # alone, in prose, it needs a cue
    text = "Chorea is common in HD."
    pairs = [{"subject": "HD", "object": "Chorea", "relation": "has_phenotype"}]
    claim = KGGroundingValidator(demo, llm=llm_read(pairs, text)).validate(text).claims[0]
    hd = next(e for e in claim.entities if e.text == "HD")
    assert hd.in_kg and demo.get_node(hd.id).name == "Huntington disease"
    assert claim.label == "grounded" and not claim.conflicts


def test_a_coordinated_name_an_llm_gives_in_full_is_read_in_full(demo: NetworkXStore) -> None:
    text = "Postural and kinetic tremor are forms of action tremor."
    pairs = [
        {"subject": "postural tremor", "object": "action tremor", "relation": "subclass_of"},
        {"subject": "kinetic tremor", "object": "action tremor", "relation": "subclass_of"},
    ]
    claim = KGGroundingValidator(demo, llm=llm_read(pairs, text)).validate(text).claims[0]
    names = {demo.get_node(p.subject).name for p in claim.pairs}
    assert names == {"Postural tremor", "Kinetic tremor"}
    assert claim.label == "grounded" and not claim.conflicts
