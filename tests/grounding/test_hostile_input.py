"""Hostile reports (issue #19): segmentation and entity extraction take time linear in the
input, and grounding stops at its caller's deadline.

Scaling is asserted as a ratio of two input sizes (8× apart: linear work grows about 8×,
quadratic work 64×), each the best of a few runs, never as absolute seconds.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest

from kgrecall.errors import DeadlineExceededError
from kgrecall.grounding import KGGroundingValidator
from kgrecall.grounding.claims import extract_claims
from kgrecall.grounding.entities import EntityExtractor
from kgrecall.grounding.reading import MAX_RUN, read_assertions
from kgrecall.kg import NetworkXStore
from kgrecall.kg.deadline import deadline
from tests.conftest import small_store

SMALL, LARGE = 20_000, 160_000
#: Linear grows ≈ 8× from SMALL to LARGE, quadratic ≈ 64×: this bound tells them apart.
MAX_GROWTH = 24.0


def growth(work: Callable[[str], object], make: Callable[[int], str]) -> float:
    """How much longer ``work`` takes on a LARGE input than on a SMALL one (best of 3)."""

    def best(size: int) -> float:
        text = make(size)
        runs = []
        for _ in range(3):
            started = time.perf_counter()
            work(text)
            runs.append(time.perf_counter() - started)
        return min(runs)

    return best(LARGE) / max(best(SMALL), 1e-6)


HOSTILE_REPORTS: dict[str, Callable[[int], str]] = {
    "dots": lambda n: "SNCA is associated with Parkinson disease 4" + "." * n + "x",
    "bangs": lambda n: "SNCA is associated" + "!?" * (n // 2) + "x",
    "table separator": lambda n: "| --" + " " * n + "x",
    "dots then spaces": lambda n: "SNCA." + " " * n + "x",
}


@pytest.mark.parametrize("name", sorted(HOSTILE_REPORTS))
def test_segmentation_is_linear(name: str) -> None:
    assert growth(extract_claims, HOSTILE_REPORTS[name]) < MAX_GROWTH


def test_the_issue_reproductions_are_prompt_and_right() -> None:
    sentence = "SNCA is associated with Parkinson disease 4" + "." * 40_000 + "x"
    started = time.perf_counter()
    dots = extract_claims(sentence)
    table = extract_claims("| --" + " " * 32_000 + "x")
    assert time.perf_counter() - started < 2.0  # was 69 s and 26 s
    assert [c.text for c in dots] == [sentence]  # no capital after the dots: one sentence
    assert [c.text for c in table] == ["-- x"]  # a table row, not a separator


def test_segmentation_unchanged_on_ordinary_text() -> None:
    report = (
        "SNCA is linked to PD... LRRK2 too?! Yes. See e.g. Fig. 2 by J. Smith.\n\n"
        "| gene | finding |\n| :-- | --: |\n| SNCA | PD |\n"
    )
    assert [c.text for c in extract_claims(report)] == [
        "SNCA is linked to PD...",
        "LRRK2 too?!",
        "Yes.",
        "See e.g. Fig. 2 by J. Smith.",
        "SNCA PD",
    ]


ENTITY_TEXTS: dict[str, Callable[[int], str]] = {
    "HPO ids": lambda n: "SNCA " + "HP:0001300 " * (n // 11),
    "UniProt accessions": lambda n: "P04637 " * (n // 7),
    "names": lambda n: "SNCA LRRK2 " * (n // 11),
}


@pytest.mark.parametrize("name", sorted(ENTITY_TEXTS))
def test_entity_extraction_is_linear_in_mentions(name: str) -> None:
    extractor = EntityExtractor(small_store())
    assert growth(extractor.extract, ENTITY_TEXTS[name]) < MAX_GROWTH


def test_identifiers_still_win_over_later_patterns_and_names() -> None:
    extractor = EntityExtractor(small_store())
    found = extractor.extract("SNCA and P04637 and HP:0001300 in Homo sapiens (hsa04010)")
    assert [(m.text, m.kind) for m in found] == [
        ("SNCA", "dictionary"),
        ("P04637", "uniprot"),
        ("HP:0001300", "curie"),
        ("Homo sapiens", "species"),
        ("hsa04010", "kegg"),
    ]


def coordinated(subjects: int) -> tuple[str, list[tuple[int, int]]]:
    """ "SNCA, SNCA, …, SNCA cause x x … PD" and its mention spans."""
    text = ", ".join(["SNCA"] * subjects) + " cause" + " x" * 1000 + " PD"
    spans = [(6 * i, 6 * i + 4) for i in range(subjects)]
    return text, [*spans, (len(text) - 2, len(text))]


def test_coordinated_runs_are_bounded() -> None:
    """A predicate takes at most MAX_RUN coordinated subjects: the pairs of a claim cannot grow
    quadratically with its mentions (the rest are co-mentions with a neighbour)."""
    assert len(read_assertions(*coordinated(MAX_RUN))) == MAX_RUN
    pairs = read_assertions(*coordinated(5000))
    asserted = [a for a in pairs if a.relations]
    assert len(asserted) == MAX_RUN and len(pairs) < 2 * 5000


def test_grounding_stops_at_the_deadline(demo: NetworkXStore) -> None:
    report = "SNCA is associated with Parkinson disease 4. " * 2000
    validator = KGGroundingValidator(demo)
    started = time.perf_counter()
    with deadline(0.05), pytest.raises(DeadlineExceededError, match=r"limit of 0\.05 s"):
        validator.validate(report)
    assert time.perf_counter() - started < 1.0
    assert validator.validate(report[:100]).counts["grounded"] == 2  # no deadline: all work
