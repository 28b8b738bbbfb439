"""Derivations cached on disk between processes (kgrecall.kg.derived)."""

from __future__ import annotations

import logging
import os
from pathlib import Path

import pytest

from kgrecall.grounding import entities
from kgrecall.kg.derived import DERIVED_DIR, cached_derivation, derivation_path


@pytest.fixture
def table(tmp_path: Path) -> Path:
    path = tmp_path / "table.tsv"
    path.write_text("a\tb\n")
    return path


@pytest.fixture
def code(tmp_path: Path) -> Path:
    path = tmp_path / "rules.py"
    path.write_text("RULE = 1\n")
    return path


class Counting:
    """A derivation that counts how often it ran."""

    def __init__(self, value: object) -> None:
        self.value, self.calls = value, 0

    def __call__(self) -> object:
        self.calls += 1
        return self.value


def test_a_derivation_is_read_back_in_the_next_process(
    isolated_home: Path, table: Path, code: Path
) -> None:
    derive = Counting({"PD": ("MONDO:1", ("Parkinson disease",))})
    first = cached_derivation("senses", derive, sources=[table], code=[code])
    again = cached_derivation("senses", derive, sources=[table], code=[code])
    assert first == again == derive.value
    assert derive.calls == 1
    saved = derivation_path("senses", sources=[table], code=[code])
    assert saved.parent == isolated_home / DERIVED_DIR and saved.is_file()


@pytest.mark.parametrize("changed", ["table", "code"])
def test_a_changed_table_or_rule_derives_anew_and_drops_the_old_file(
    isolated_home: Path, table: Path, code: Path, changed: str
) -> None:
    cached_derivation("senses", Counting(1), sources=[table], code=[code])
    old = derivation_path("senses", sources=[table], code=[code])
    if changed == "table":
        table.write_text("a\tb\nc\td\n")
    else:
        code.write_text("RULE = 2\n")
    derive = Counting(2)
    assert cached_derivation("senses", derive, sources=[table], code=[code]) == 2
    assert derive.calls == 1
    assert not old.exists()
    assert sorted(p.name for p in (isolated_home / DERIVED_DIR).iterdir()) == [
        derivation_path("senses", sources=[table], code=[code]).name
    ]


def test_a_table_touched_without_change_of_size_still_derives_anew(table: Path, code: Path) -> None:
    before = derivation_path("senses", sources=[table], code=[code])
    status = table.stat()
    os.utime(table, ns=(status.st_atime_ns, status.st_mtime_ns + 1_000_000_000))
    assert derivation_path("senses", sources=[table], code=[code]) != before


def test_other_names_are_left_alone(isolated_home: Path, table: Path, code: Path) -> None:
    cached_derivation("senses", Counting(1), sources=[table], code=[code])
    cached_derivation("symbols", Counting(2), sources=[table], code=[code])
    code.write_text("RULE = 2\n")
    cached_derivation("senses", Counting(3), sources=[table], code=[code])
    names = sorted(p.name.split("-")[0] for p in (isolated_home / DERIVED_DIR).iterdir())
    assert names == ["senses", "symbols"]


def test_a_damaged_file_is_derived_anew_with_a_warning(
    table: Path, code: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    value = {"PD": ["Parkinson disease"] * 10}
    cached_derivation("senses", Counting(value), sources=[table], code=[code])
    saved = derivation_path("senses", sources=[table], code=[code])
    saved.write_bytes(saved.read_bytes()[:20])
    derive = Counting(value)
    # a library's logging.config may have disabled loggers created before it ran
    monkeypatch.setattr(logging.getLogger("kgrecall.kg.derived"), "disabled", False)
    with caplog.at_level(logging.WARNING, logger="kgrecall.kg.derived"):
        assert cached_derivation("senses", derive, sources=[table], code=[code]) == value
    assert derive.calls == 1
    assert "unreadable derivation" in caplog.text and str(saved) in caplog.text
    assert cached_derivation("senses", Counting(None), sources=[table], code=[code]) == value


def test_a_workspace_that_cannot_be_written_costs_only_time(
    tmp_path: Path, table: Path, code: Path
) -> None:
    home = tmp_path / "not-a-folder"
    home.write_text("a file where the workspace should be")
    derive = Counting([1, 2])
    for _ in range(2):
        assert cached_derivation("senses", derive, sources=[table], code=[code], home=home) == [
            1,
            2,
        ]
    assert derive.calls == 2


def test_grounding_reads_back_the_senses_it_derived() -> None:
    sources = _bundled("mondo", "hgnc")
    derived = entities._cached("abbreviation_senses", entities._abbreviation_senses, *sources)

    def derived_again() -> object:
        raise AssertionError("derived again instead of read back")

    assert entities._cached("abbreviation_senses", derived_again, *sources) == derived
    assert {sense for sense, _ in derived["PD"]} >= {"MONDO:0008199", "MONDO:0015873"}


def _bundled(*tables: str) -> list[Path]:
    from kgrecall.kg.loaders import names

    return [getattr(names, f"bundled_{table}_path")() for table in tables]


def test_a_salt_is_part_of_the_key(table: Path, code: Path) -> None:
    plain = derivation_path("rules", sources=[table], code=[code])
    salted = derivation_path("rules", sources=[table], code=[code], salt=("version-a",))
    other = derivation_path("rules", sources=[table], code=[code], salt=("version-b",))
    assert len({plain, salted, other}) == 3
    assert salted == derivation_path("rules", sources=[table], code=[code], salt=("version-a",))


def test_keep_holds_the_files_used_last(isolated_home: Path, table: Path, code: Path) -> None:
    def derive(salt: str) -> object:
        return cached_derivation(
            "rules", Counting(salt), sources=[table], code=[code], salt=(salt,), keep=2
        )

    def path(salt: str) -> Path:
        return derivation_path("rules", sources=[table], code=[code], salt=(salt,))

    derive("a")
    derive("b")
    old = path("a").stat().st_mtime_ns
    os.utime(path("a"), ns=(old - 10**10, old - 10**10))  # "a" used long before "b"
    os.utime(path("b"), ns=(old - 10**9, old - 10**9))
    assert derive("a") == "a"  # read back: now the one used last
    derive("c")  # a third: the least recently used ("b") goes
    assert path("a").is_file() and path("c").is_file() and not path("b").exists()
    with pytest.raises(ValueError, match="keep must be"):
        cached_derivation("rules", Counting(1), sources=[table], code=[code], keep=0)
