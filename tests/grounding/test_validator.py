"""KGGroundingValidator end to end on the demo KG, and `kgrecall ground`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kgrecall.cli import app
from kgrecall.grounding import KGGroundingValidator
from kgrecall.kg import KGError, NetworkXStore, build_demo_kg

REPORT = """# PD genetics

SNCA is associated with Parkinson disease 4 (OMIM:605543).

- SNCA does not cause Parkinson disease 4.
- The weather is nice today.

| gene | finding |
|---|---|
| SNCA | shows Parkinsonism |
"""


@pytest.fixture(scope="module")
def demo() -> NetworkXStore:
    return build_demo_kg(progress=False)


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


def test_coordinated_subjects_become_separate_claims(demo: NetworkXStore) -> None:
    result = KGGroundingValidator(demo).validate(
        "SNCA and LRRK2 are associated with Parkinson disease 4."
    )
    assert [(c.text, c.label) for c in result.claims] == [
        ("SNCA are associated with Parkinson disease 4.", "grounded"),
        ("LRRK2 are associated with Parkinson disease 4.", "inferred"),
    ]
    assert [e.text for e in result.claims[1].entities] == ["LRRK2", "Parkinson disease 4"]


def test_bad_reports_are_clear_errors(demo: NetworkXStore) -> None:
    validator = KGGroundingValidator(demo, max_chars=1000)
    with pytest.raises(KGError, match="empty"):
        validator.validate("  ")
    with pytest.raises(KGError, match="more than the limit"):
        validator.validate("SNCA causes PD. " * 100)


def test_ground_command(isolated_home: Path, tmp_path: Path) -> None:
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
