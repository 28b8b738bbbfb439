"""KGGroundingValidator end to end on the demo KG, and `kgrecall ground`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kgrecall.cli import app
from kgrecall.grounding import KGGroundingValidator
from kgrecall.kg import KGError, NetworkXStore, Workspace
from tests.llm_server import OpenAIStub, Reply

REPORT = """# PD genetics

SNCA is associated with Parkinson disease 4 (OMIM:605543).

- SNCA does not cause Parkinson disease 4.
- The weather is nice today.

| gene | finding |
|---|---|
| SNCA | shows Parkinsonism |
"""


def test_report_is_labelled_with_evidence_and_exact_spans(demo: NetworkXStore) -> None:
    result = KGGroundingValidator(demo).validate(REPORT)
    labels = [(c.text, c.label) for c in result.claims]
    assert labels == [
        ("SNCA is associated with Parkinson disease 4 (OMIM:605543).", "grounded"),
        ("SNCA does not cause Parkinson disease 4.", "grounded"),
        ("The weather is nice today.", "trivial"),
        ("SNCA shows Parkinsonism", "grounded"),
    ]
    first, negated, trivial, row = result.claims
    assert first.confidence == 1.0 and first.evidence[0][0].relation == "associated_with"
    assert negated.negated and negated.conflicts and negated.confidence == pytest.approx(0.2)
    assert trivial.confidence is None and not trivial.evidence
    assert row.evidence[0][0].relation == "has_phenotype"
    for claim in result.claims:
        for entity in claim.entities:
            assert REPORT[entity.start : entity.end] == entity.text
    assert result.counts == {"grounded": 3, "inferred": 0, "ungrounded": 0, "trivial": 1}
    assert result.overall_confidence == pytest.approx((1.0 + 0.2 + 0.8) / 3, abs=1e-3)
    markdown = result.to_markdown()
    assert "✅ **grounded** (1.00)" in markdown and "ℹ️ **trivial**" in markdown
    assert "⚡ conflict" in markdown and "—[associated_with]→" in markdown


def test_each_asserted_pair_is_checked(demo: NetworkXStore) -> None:
    result = KGGroundingValidator(demo).validate(
        "SNCA and PINK1 are associated with Parkinson disease 4."
    )
    [claim] = result.claims
    assert [(p.subject, p.object, p.label) for p in claim.pairs] == [
        ("NCBIGene:6622", "OMIM:605543", "grounded"),
        # PINK1 (recessive PD) is 3+ hops from PD4; LRRK2 is 2 hops away through the MONDO
        # hierarchy (both associated with hereditary late-onset Parkinson disease).
        ("NCBIGene:65018", "OMIM:605543", "inferred"),
    ]
    assert claim.label == "inferred"  # the weaker pair's
    assert [e.text for e in claim.entities] == ["SNCA", "PINK1", "Parkinson disease 4"]


def test_claims_about_drugs_outside_the_kg_are_ungrounded(demo: NetworkXStore) -> None:
    [claim] = (
        KGGroundingValidator(demo)
        .validate("Tetrabenazine reduces chorea in patients with Huntington disease.")
        .claims
    )
    outside = [e for e in claim.entities if not e.in_kg]
    assert [(e.text, e.id, e.kind) for e in outside] == [
        ("Tetrabenazine", "MESH:D013747", "vocabulary")
    ]
    assert claim.label == "ungrounded" and not claim.conflicts
    assert any(p.note == "MESH:D013747 is not in the KG" for p in claim.pairs)


def test_phenotypes_diseases_and_genes_the_kg_lacks_are_recognised(demo: NetworkXStore) -> None:
    validator = KGGroundingValidator(demo)
    for sentence, outside_id in [
        ("Wilson disease presents with Kayser-Fleischer rings.", "HP:0200032"),  # HPO
        ("ATOX1 is associated with Wilson disease.", "HGNC:798"),  # HGNC symbol
        ("Tremor is a feature of occipital horn syndrome.", "MONDO:0010572"),  # MONDO
        # HPO writes "Preexcitation": a hyphen the vocabulary's name does not have
        ("Danon disease often gives pre-excitation.", "HP:0004309"),
    ]:
        [claim] = validator.validate(sentence).claims
        assert [e.id for e in claim.entities if not e.in_kg] == [outside_id], sentence
        assert claim.label == "ungrounded", sentence
        assert any(p.note == f"{outside_id} is not in the KG" for p in claim.pairs)


def test_a_vocabulary_name_of_a_kg_entity_names_that_entity(demo: NetworkXStore) -> None:
    # "Tremors" is an HPO synonym of the KG's Tremor
    [claim] = KGGroundingValidator(demo).validate("Tremors are seen in Wilson disease.").claims
    assert {e.text: e.id for e in claim.entities}["Tremors"] == "HP:0001337"
    assert all(e.in_kg for e in claim.entities)


def test_the_relation_chooses_between_a_gene_alias_and_a_disease(demo: NetworkXStore) -> None:
    # PARK17 names the disease and, by an old symbol, VPS35: associated_with wants a disease
    [claim] = KGGroundingValidator(demo).validate("VPS35 is associated with PARK17.").claims
    [pair] = claim.pairs
    assert demo.get_node(pair.object).type == "disease"
    assert (pair.subject, pair.label) == ("NCBIGene:55737", "grounded")


def test_a_hierarchy_claim_reads_both_ends_as_one_type(demo: NetworkXStore) -> None:
    # "cerebral palsy" names a phenotype and a disease; a subtype of a disease is a disease
    # (subclass_of joins diseases with diseases, phenotypes with phenotypes), so the claim
    # is read as the reversed disease hierarchy it is, not as an inference across types
    text = "Cerebral palsy is one of the subtypes of spastic cerebral palsy."
    [claim] = KGGroundingValidator(demo).validate(text).claims
    [pair] = claim.pairs
    assert demo.get_node(pair.subject).type == "disease"
    assert pair.conflict is not None and pair.conflict.startswith("direction")


def test_a_claim_the_wrong_way_round_keeps_its_types(demo: NetworkXStore) -> None:
    # "torticollis" also names a disease, but a phenotype that "presents with" a disease is
    # a reversed claim, reported as such, not read as the disease
    [claim] = KGGroundingValidator(demo).validate("Torticollis presents with DYT25.").claims
    [pair] = claim.pairs
    assert pair.subject == "HP:0000473"
    assert pair.conflict is not None and pair.conflict.startswith("direction")


def test_a_name_of_several_disease_records_is_checked_on_the_one_the_kg_relates(
    demo: NetworkXStore,
) -> None:
    # "Creutzfeldt-Jakob disease" names an OMIM, an Orphanet and a MONDO record; the KG's
    # hierarchy edge to prion disease sits on the MONDO one, so the reversed claim is caught
    report = (
        "Creutzfeldt-Jakob disease is the parent category, with prion disease as one of its "
        "subtypes."
    )
    [claim] = KGGroundingValidator(demo).validate(report).claims
    [pair] = claim.pairs
    assert (pair.subject, pair.object) == ("MONDO:0005429", "MONDO:0005357")
    assert pair.conflict is not None and pair.conflict.startswith("direction")


def test_an_outside_term_in_a_graded_table_cell_is_part_of_the_row(demo: NetworkXStore) -> None:
    # "early scoliosis" fills its cell: the row says CMT4C has a phenotype the KG lacks
    [claim] = KGGroundingValidator(demo).validate("| CMT4C | NEFL | early scoliosis |").claims
    assert claim.label == "ungrounded"
    assert any(not e.in_kg and e.text == "scoliosis" for e in claim.entities)


def test_bad_reports_are_clear_errors(demo: NetworkXStore) -> None:
    validator = KGGroundingValidator(demo, max_chars=1000)
    with pytest.raises(KGError, match="empty"):
        validator.validate("  ")
    with pytest.raises(KGError, match="more than the limit"):
        validator.validate("SNCA causes PD. " * 100)


def test_ground_command(demo_embeddings_in_isolated_home: Path, tmp_path: Path) -> None:
    runner = CliRunner()
    assert runner.invoke(app, ["kg", "build-demo"]).exit_code == 0
    report = tmp_path / "report.md"
    report.write_text(REPORT)
    shown = runner.invoke(app, ["ground", str(report)])
    assert shown.exit_code == 0, shown.output
    assert "SNCA —[associated_with]→ Parkinson disease 4" in shown.output
    as_json = runner.invoke(app, ["ground", str(report), "--format", "json"])
    payload = json.loads(as_json.output)
    assert payload["counts"]["grounded"] == 3
    binary = tmp_path / "binary.md"
    binary.write_bytes(b"abc\x00\xff")
    refused = runner.invoke(app, ["ground", str(binary)])
    assert refused.exit_code != 0 and "not UTF-8" in str(refused.exception)
    stray = runner.invoke(app, ["ground", str(report), "--task", "PD genes"])
    assert "add --auto-learn" in str(stray.exception)


def test_ground_command_auto_learns_and_uses_a_configured_llm(
    demo_embeddings_in_isolated_home: Path,
    tmp_path: Path,
    openai_stub: OpenAIStub,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    isolated_home = demo_embeddings_in_isolated_home
    runner = CliRunner()
    assert runner.invoke(app, ["kg", "build-demo"]).exit_code == 0
    report = tmp_path / "report.md"
    report.write_text("SNCA is associated with Parkinson disease 4 and GO:9999999.\n")
    claim = "SNCA is associated with Parkinson disease 4 and GO:9999999."
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    monkeypatch.setenv("OPENAI_BASE_URL", openai_stub.base_url)
    openai_stub.script(
        Reply(tool="ExtractedClaims", arguments={"claims": [{"text": claim, "source": claim}]})
    )
    out = tmp_path / "grounding.json"
    learned = runner.invoke(
        app,
        ["ground", str(report), "--format", "json", "--output", str(out), "--auto-learn",
         "--task", "Which genes matter in PD?", "--tool", "blast"],
    )  # fmt: skip
    assert learned.exit_code == 0, learned.output
    assert json.loads(out.read_text())["extraction"] == "llm"
    kg = Workspace(isolated_home).load("demo")
    assert kg.get_node("tool:blast").sources == ("auto_learned",)
    assert kg.get_node("GO:9999999").type == "go_term"
    edge = kg.get_edge("GO:9999999", "co_occurs_with", "NCBIGene:6622")  # SNCA
    assert edge is not None and edge.sources == ("auto_learned",)


def test_entities_outside_the_kg_are_listed_and_unverifiable(demo: NetworkXStore) -> None:
    result = KGGroundingValidator(demo).validate("SNCA regulates GO:9999999 in Mus musculus.")
    (claim,) = result.claims
    assert claim.label == "ungrounded" and claim.confidence == 0.0
    outside = [(e.text, e.id) for e in claim.entities if not e.in_kg]
    assert outside == [("GO:9999999", "GO:9999999"), ("Mus musculus", "NCBITaxon:10090")]
    assert "not in the KG: GO:9999999, Mus musculus" in result.to_markdown()


@pytest.mark.timeout(120)  # a hang guard, not a speed target
def test_a_ten_megabyte_report_is_refused_before_any_work(demo: NetworkXStore) -> None:
    report = "SNCA is associated with Parkinson disease 4. " * 230_000  # ≈ 10 MB
    with pytest.raises(KGError, match="10,350,000 characters, more than the limit"):
        KGGroundingValidator(demo).validate(report)


def test_predicates_are_read_outside_entity_names(demo: NetworkXStore) -> None:
    # "X-linked" inside the disease name must not read as the generic "linked".
    result = KGGroundingValidator(demo).validate(
        "Intellectual developmental disorder, X-linked syndromic, Christianson type "
        "is a subtype of Hyperkinetic movements."
    )
    (claim,) = result.claims
    assert claim.claimed_relations == ["subclass_of"]
    assert claim.label == "grounded" and claim.conflicts == [
        "the claim says subclass_of, the KG relates OMIM:300243 and HP:0002487 only by "
        "has_phenotype"
    ]


def test_a_wording_no_relation_of_a_gene_and_a_disease_fits_is_no_conflict(
    demo: NetworkXStore,
) -> None:
    # "found in people with" reads as a feature, which no gene has of a disease: the KG's
    # associated_with is what the sentence means, not something it contradicts
    validator = KGGroundingValidator(demo)
    (found,) = validator.validate(
        "Very rarely, a change in the HCRT gene itself has been found in people with "
        "narcolepsy type 1."
    ).claims
    assert found.claimed_relations == ["has_phenotype"]
    assert found.label == "grounded" and not found.conflicts
    # "encodes" says outright that the disease is a gene product: still a conflict
    (encodes,) = validator.validate("SNCA encodes Parkinson disease 4.").claims
    assert encodes.conflicts == [
        "the claim says encodes, the KG relates NCBIGene:6622 and OMIM:605543 only by "
        "associated_with"
    ]


def test_a_clinical_variant_of_a_disease_is_a_kind_of_it(demo: NetworkXStore) -> None:
    validator = KGGroundingValidator(demo)
    (reversed_claim,) = validator.validate(
        "GSD IV is one of the clinical variants of adult polyglucosan body neuropathy."
    ).claims
    assert reversed_claim.claimed_relations == ["subclass_of"]
    assert reversed_claim.conflicts == [
        "direction: the KG says OMIM:263570 subclass_of OMIM:232500, the claim the reverse"
    ]
    for text in (
        "GSD IV is regarded as an adult polyglucosan body neuropathy subtype.",
        "GSD IV is best classified within adult polyglucosan body neuropathy.",
    ):
        (verdict,) = validator.validate(text).claims
        assert verdict.claimed_relations == ["subclass_of"], text
        assert verdict.conflicts and verdict.conflicts[0].startswith("direction:"), text
    # a gene's variant is no kind of anything
    (caused,) = validator.validate(
        "Parkinson disease 4 is caused by a pathogenic variant of SNCA."
    ).claims
    assert caused.claimed_relations == ["associated_with"] and not caused.conflicts


def test_the_syndrome_refers_to_the_disease_the_sentence_before_named(
    demo: NetworkXStore,
) -> None:
    result = KGGroundingValidator(demo).validate(
        "We saw a boy with Lowe syndrome. The syndrome is associated with OCRL."
    )
    _, second = result.claims
    assert [e.id for e in second.entities] == ["OMIM:309000", "NCBIGene:4952"]
    assert [(p.subject, p.object, p.label) for p in second.pairs] == [
        ("OMIM:309000", "NCBIGene:4952", "grounded")
    ]
    # two diseases before: no referent
    result = KGGroundingValidator(demo).validate(
        "Lowe syndrome and Joubert syndrome differ. The syndrome is associated with OCRL."
    )
    assert [e.id for e in result.claims[1].entities] == ["NCBIGene:4952"]


def test_it_refers_to_the_disease_the_claim_before_opened_on(demo: NetworkXStore) -> None:
    # the claim before opens on Barth syndrome (another disease follows, not listed with it);
    # an interjection ("however") cuts no clause, so the denial holds and contradicts the KG
    result = KGGroundingValidator(demo).validate(
        "Barth syndrome was considered before Danon disease. "
        "It is not, however, classed as one of the 3-methylglutaconic acidurias."
    )
    second = result.claims[1]
    assert [e.id for e in second.entities] == ["OMIM:302060", "MONDO:0017359"]
    assert second.conflicts == [
        "the claim denies it, but the KG says OMIM:302060 subclass_of MONDO:0017359"
    ]
    # after a list of diseases, "It" has no referent
    result = KGGroundingValidator(demo).validate(
        "Lowe syndrome and Joubert syndrome differ. It is rare."
    )
    assert result.claims[1].entities == []


def test_a_short_form_the_report_defined_keeps_its_meaning_later(demo: NetworkXStore) -> None:
    report = (
        "Fanconi anaemia (FA) is a chromosome instability disorder. "
        "FA has been linked to BRCA2.\n\n"
        "The ectodermal dysplasias (EDs) are a large group. "
        "Trichothiodystrophy is an ED, and CTSC-related disorders are grouped with the ED "
        "syndromes.\n\n"
        "She was started on peritoneal dialysis (PD). PD was well tolerated."
    )
    claims = KGGroundingValidator(demo).validate(report).claims
    named = {(c.text.split()[0], e.text): e.id for c in claims for e in c.entities if e.in_kg}
    # alone, FA is Friedreich ataxia's synonym and ED no disease of its own
    assert named[("FA", "FA")] == "ORPHA:84"  # Fanconi anemia
    assert named[("Trichothiodystrophy", "ED")] == "MONDO:0019287"  # ectodermal dysplasia syndrome
    assert named[("Trichothiodystrophy", "ED syndromes")] == "MONDO:0019287"
    # a short form defined as something the KG does not name stays unlinked
    assert not any(e.in_kg for c in claims if c.text.startswith("PD was") for e in c.entities)


def test_the_receptor_after_one_gene_is_that_gene(demo: NetworkXStore) -> None:
    report = (
        "WHIM syndrome results from truncations in the C-tail of CXCR4. "
        "The mutant receptor binds CXCL12."
    )
    second = KGGroundingValidator(demo).validate(report).claims[1]
    named = {e.text: e.id for e in second.entities}
    assert named["The mutant receptor"] == "uniprot:P61073"  # CXCR4
    assert [(p.subject, p.object, p.label) for p in second.pairs] == [
        ("uniprot:P61073", "uniprot:P48061", "grounded")  # CXCL12
    ]
    # a kind word before the name is no anaphor: "the receptor CXCR4" is one mention
    [claim] = KGGroundingValidator(demo).validate("The receptor CXCR4 binds CXCL12.").claims
    assert "The receptor" not in {e.text for e in claim.entities}
