"""Heuristic claim extraction: sentences, markdown units, spans, bad input."""

from __future__ import annotations

import pytest

from kgrecall.grounding.claims import extract_claims
from kgrecall.kg import KGError


def texts(report: str) -> list[str]:
    return [claim.text for claim in extract_claims(report)]


def test_sentences_survive_abbreviations_initials_and_dotted_symbols() -> None:
    report = (
        "SNCA is associated with Parkinson disease (e.g. PD4, see Fig. 2). "
        "Smith et al. showed that Nkx2.1 and p.R1441G matter in 3.5 % of cases. "
        "J. Smith disagrees! Is LRRK2 involved? Yes. It binds WNT2B. DYRK1A is next. "
        "GCH1 causes hyperphenylalaninemia, BH4-deficient, B. It is treatable with vitamin C. "
        "Mutations were found in hepatitis B. Dr. A. B. Jones agrees. "
        "COQ2 is associated with MSA-P and MSA-C. MSA-P is a parkinsonian disorder."
    )
    assert texts(report) == [
        "SNCA is associated with Parkinson disease (e.g. PD4, see Fig. 2).",
        "Smith et al. showed that Nkx2.1 and p.R1441G matter in 3.5 % of cases.",
        "J. Smith disagrees!",
        "Is LRRK2 involved?",
        "Yes.",
        "It binds WNT2B.",  # a symbol ending in a capital is not an initial
        "DYRK1A is next.",
        "GCH1 causes hyperphenylalaninemia, BH4-deficient, B.",  # a name ending in a letter
        "It is treatable with vitamin C.",
        "Mutations were found in hepatitis B.",
        "Dr. A. B. Jones agrees.",
        "COQ2 is associated with MSA-P and MSA-C.",  # a hyphenated letter is no initial
        "MSA-P is a parkinsonian disorder.",
    ]


def test_greek_starts_symbols_after_roman_numerals_and_emphasis() -> None:
    report = (
        "It regulates exocytosis. γ-Secretase cleaves APP. NGF mutations cause HSAN V. "
        "GDNF binds GFRα1.\n\n*Further reading: the course page.*\n"
    )
    assert texts(report) == [
        "It regulates exocytosis.",
        "γ-Secretase cleaves APP.",  # a sentence may start with a Greek letter
        "NGF mutations cause HSAN V.",  # a symbol after "V." starts a sentence
        "GDNF binds GFRα1.",
        "Further reading: the course page.",  # emphasis around the line is no part of it
    ]
    [claim] = extract_claims("*Further reading: the course page.*")
    assert (claim.start, claim.end) == (1, 34)


def test_markdown_units_bullets_tables_headings_and_code() -> None:
    report = """# Findings

- SNCA causes Parkinson disease 4.
- LRRK2 is a kinase. It phosphorylates RAB10.
1. PINK1 activates PRKN.

| gene | relation | disease |
|------|----------|---------|
| GBA1 | associated with | Gaucher disease |
| PARK7 | associated with | early-onset PD |

```
not_a_claim = 1
```
A paragraph that
spans two lines.
"""
    assert texts(report) == [
        "SNCA causes Parkinson disease 4.",
        "LRRK2 is a kinase.",
        "It phosphorylates RAB10.",
        "PINK1 activates PRKN.",
        "GBA1 associated with Gaucher disease",
        "PARK7 associated with early-onset PD",
        "A paragraph that spans two lines.",
    ]


def test_a_header_block_has_one_claim_per_field() -> None:
    # markdown would join these lines into one paragraph; a letter means one field per line
    report = (
        "**Patient:** 52-year-old man, hospital no. 0048817\n"
        "**Admitted:** 03/02/2025. **Discharged:** 11/02/2025\n"
        "Diagnosis: Huntington disease\n"
        "Plan: tetrabenazine and\n"
        "review in three months\n"
    )
    assert texts(report) == [
        "Patient: 52-year-old man, hospital no. 0048817",
        "Admitted: 03/02/2025.",
        "Discharged: 11/02/2025",
        "Diagnosis: Huntington disease",
        "Plan: tetrabenazine and review in three months",  # a field's value may wrap
    ]


def test_an_address_or_signature_block_has_one_claim_per_line() -> None:
    report = (
        "Dr A. Okafor\nHarbour Lane Surgery\nSalford M5 4PQ\n\n"
        "Yours sincerely,\n\nDr B. Smith\nConsultant Clinical Geneticist\n\n"
        "SNCA duplications cause an early-onset form of Parkinson disease\n"
        "with dementia, and LRRK2 variants a late-onset form.\n"
    )
    assert texts(report) == [
        "Dr A. Okafor",
        "Harbour Lane Surgery",
        "Salford M5 4PQ",
        "Yours sincerely,",
        "Dr B. Smith",
        "Consultant Clinical Geneticist",
        # a long line, or one that runs on, wraps a sentence
        "SNCA duplications cause an early-onset form of Parkinson disease with dementia, and "
        "LRRK2 variants a late-onset form.",
    ]


def test_spans_point_back_into_the_report() -> None:
    report = "Intro line.\n\n- SNCA causes  Parkinson disease.\n| A | B |\n|---|---|\n| x y | z |\n"
    for claim in extract_claims(report):
        assert " ".join(report[claim.start : claim.end].replace("|", " ").split()) == claim.text


@pytest.mark.parametrize(
    ("report", "message"),
    [
        ("", "empty"),
        ("   \n\t", "empty"),
        ("abc\x00def", "NUL bytes"),
        ("".join(chr(i) for i in range(1, 32)) * 100, "looks binary"),
    ],
)
def test_bad_reports_are_refused(report: str, message: str) -> None:
    with pytest.raises(KGError, match=message):
        extract_claims(report)


@pytest.mark.timeout(60)  # a hang guard: segmentation must stay linear (0.2 s here)
def test_huge_reports_are_bounded() -> None:
    with pytest.raises(KGError, match="more than the limit"):
        extract_claims("SNCA causes PD. " * 1000, max_chars=10_000)
    big = "SNCA causes Parkinson disease. " * 300_000  # 9.3 MB: refused by default
    with pytest.raises(KGError, match="more than the limit"):
        extract_claims(big)
    assert len(extract_claims("SNCA causes Parkinson disease. " * 20_000)) == 20_000
