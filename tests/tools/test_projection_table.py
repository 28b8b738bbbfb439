"""The projection table: projections read back bit for bit, the gate unchanged."""

from __future__ import annotations

import logging
import random
import zlib
from pathlib import Path

import numpy as np
import pytest

from kgrecall.calibration import ConformalGate, GateConfig, ScoredGraph
from kgrecall.kg import Edge, GraphStore, KGError, NetworkXStore
from kgrecall.kg.loaders import build_store, load_pykeen_dataset
from kgrecall.tools import TOPOLOGIES, sample_query
from kgrecall.tools.linkpred import BoundCompletion, CompletionModel, RuleCompletion
from kgrecall.tools.linkpred import table as table_module
from kgrecall.tools.linkpred.table import (
    ProjectionTable,
    TabledBound,
    TabledCompletion,
    anchors,
    tabulate,
)
from tests.conftest import small_store

MIN = 0.05


class Scripted(CompletionModel):
    """Deterministic projections with many small probabilities; ``note`` marks each one as
    bounded (as a beam over many inputs would)."""

    kg_version = None

    def __init__(self, note: str | None = None) -> None:
        self.note = note

    @property
    def identifier(self) -> str:
        return f"scripted:{self.note}"

    def bind(self, store: GraphStore) -> ScriptedBound:
        return ScriptedBound(sorted(n.id for n in store.nodes()), self.note)

    def save(self, path: str | Path) -> Path:
        raise NotImplementedError("a test double: nothing to save")


class ScriptedBound(BoundCompletion):
    def __init__(self, entity_ids: list[str], note: str | None) -> None:
        self.entity_ids = entity_ids
        self.note = note
        self.calls = 0

    def knows(self, relation: str) -> bool:
        return True

    def project(self, weights: np.ndarray, relation: str, *, inverse: bool) -> np.ndarray:
        self.calls += 1
        self.last_note = self.note
        n = len(self.entity_ids)
        rng = np.random.default_rng(zlib.crc32(f"{relation}/{inverse}".encode()))
        matrix = rng.random((n, n)) ** 3
        return np.clip(weights @ matrix, 0.0, 1.0).astype(np.float32)


def one_hot(n: int, position: int, weight: float = 1.0) -> np.ndarray:
    weights = np.zeros(n)
    weights[position] = weight
    return weights


def tabled(path: Path, store: GraphStore, model: CompletionModel | None = None) -> TabledBound:
    return TabledCompletion(model or Scripted(), ProjectionTable(path), MIN).bind(store)


def test_a_single_anchor_is_computed_once_then_read_back_bit_for_bit(tmp_path: Path) -> None:
    store = small_store()
    path = tmp_path / "projections.sqlite"
    bound = tabled(path, store)
    plain = Scripted().bind(store)
    weights = one_hot(len(bound.entity_ids), 3)
    computed = bound.project(weights, "has_phenotype", inverse=False)
    expected = plain.project(weights, "has_phenotype", inverse=False)
    assert np.array_equal(computed, expected)
    read = bound.project(weights, "has_phenotype", inverse=False)
    assert (bound.computed, bound.reads) == (1, 1)
    kept = expected >= MIN
    assert 0 < kept.sum() < len(expected)  # some kept, some below the minimum
    assert read.dtype == expected.dtype
    assert np.array_equal(read, np.where(kept, expected, 0.0))
    # another process (another connection to the file) reads the same row
    again = tabled(path, store)
    assert np.array_equal(again.project(weights, "has_phenotype", inverse=False), read)
    assert (again.computed, again.reads) == (0, 1)
    # the direction, the relation and the anchor are each part of the key
    for relation, inverse, position in [
        ("has_phenotype", True, 3),
        ("associated_with", False, 3),
        ("has_phenotype", False, 4),
    ]:
        again.project(one_hot(len(weights), position), relation, inverse=inverse)
    assert again.computed == 3


def test_other_input_sets_are_stored_under_their_exact_weights(tmp_path: Path) -> None:
    store = small_store()
    path = tmp_path / "projections.sqlite"
    bound = tabled(path, store)
    plain = Scripted().bind(store)
    n = len(bound.entity_ids)
    two = one_hot(n, 1) + one_hot(n, 2)
    sets = (two, one_hot(n, 1, 0.5), two * 0.5, one_hot(n, 1) + one_hot(n, 3), np.zeros(n))
    for weights in sets:
        expected = plain.project(weights, "has_phenotype", inverse=False)
        kept = np.where(expected >= MIN, expected, 0.0)
        assert np.array_equal(bound.project(weights, "has_phenotype", inverse=False), expected)
        assert np.array_equal(bound.project(weights, "has_phenotype", inverse=False), kept)
    assert (bound.computed, bound.reads) == (len(sets), len(sets))
    assert bound.table.stored(bound.key) == set()  # no anchor row: tabulating still lists all
    # the direction is part of the key, and another connection reads the same rows
    again = tabled(path, store)
    again.project(two, "has_phenotype", inverse=True)
    again.project(two, "has_phenotype", inverse=False)
    assert (again.computed, again.reads) == (1, 1)


def test_only_the_most_recent_input_sets_are_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(table_module, "SET_ROWS_KEPT", 2)
    store = small_store()
    path = tmp_path / "projections.sqlite"
    bound = tabled(path, store)
    n = len(bound.entity_ids)
    sets = [one_hot(n, 0) + one_hot(n, position) for position in (1, 2, 3)]
    for weights in sets:
        bound.project(weights, "has_phenotype", inverse=False)
    again = tabled(path, store)  # nothing in its memory: every read is from the file
    for weights in (sets[2], sets[1], sets[0]):  # the oldest was removed
        again.project(weights, "has_phenotype", inverse=False)
    assert (again.computed, again.reads) == (1, 2)


def test_recent_rows_are_read_from_memory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(table_module, "ROWS_IN_MEMORY", 2)
    store = small_store()
    bound = tabled(tmp_path / "projections.sqlite", store)
    n = len(bound.entity_ids)
    inputs = [one_hot(n, 0), one_hot(n, 1), one_hot(n, 0) + one_hot(n, 1)]
    first = [bound.project(weights, "has_phenotype", inverse=False) for weights in inputs]
    bound.table.keep_only("another version")  # the file's rows are gone
    # the two most recent are still read (bit for bit what was kept), the oldest is computed
    for weights, computed in zip(inputs[:0:-1], first[:0:-1], strict=True):
        read = bound.project(weights, "has_phenotype", inverse=False)
        assert np.array_equal(read, np.where(computed >= MIN, computed, 0.0))
    assert (bound.computed, bound.reads) == (3, 2)
    bound.project(inputs[0], "has_phenotype", inverse=False)
    assert (bound.computed, bound.reads) == (4, 2)


def test_a_bounded_projection_is_not_stored(tmp_path: Path) -> None:
    store = small_store()
    bound = tabled(tmp_path / "projections.sqlite", store, Scripted(note="beam of 256"))
    weights = one_hot(len(bound.entity_ids), 0)
    for _ in range(2):
        bound.project(weights, "has_phenotype", inverse=False)
        assert bound.last_note == "beam of 256"
    assert bound.computed == 2


def test_rows_are_per_kg_version_and_other_versions_are_removed(tmp_path: Path) -> None:
    path = tmp_path / "projections.sqlite"
    before = small_store()
    first = tabled(path, before)
    first.project(one_hot(len(first.entity_ids), 0), "has_phenotype", inverse=False)
    two = one_hot(len(first.entity_ids), 0) + one_hot(len(first.entity_ids), 1)
    first.project(two, "has_phenotype", inverse=False)
    after = small_store()
    after.add_edges([Edge("G3", "has_phenotype", "P0")])
    assert after.version != before.version
    second = tabled(path, after)
    assert second.table.stored(first.key) == set()
    second.project(one_hot(len(second.entity_ids), 0), "has_phenotype", inverse=False)
    second.project(two, "has_phenotype", inverse=False)
    assert (second.computed, second.reads) == (2, 0)
    assert first.table.keep_only(after.version) == 0  # both kinds of row went at binding


def test_an_unusable_table_is_bypassed_with_a_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "projections.sqlite"
    path.write_bytes(b"not a database at all" * 100)
    store = small_store()
    # a library's logging.config may have disabled loggers created before it ran
    monkeypatch.setattr(logging.getLogger("kgrecall.tools.linkpred.table"), "disabled", False)
    with caplog.at_level(logging.WARNING, logger="kgrecall.tools.linkpred.table"):
        bound = tabled(path, store)
        weights = one_hot(len(bound.entity_ids), 0)
        expected = Scripted().bind(store).project(weights, "has_phenotype", inverse=False)
        for _ in range(2):
            assert np.array_equal(bound.project(weights, "has_phenotype", inverse=False), expected)
    assert "projection table unusable" in caplog.text and str(path) in caplog.text
    assert bound.computed == 2


def test_tabulating_into_an_unusable_table_says_which_file(tmp_path: Path) -> None:
    path = tmp_path / "projections.sqlite"
    path.write_bytes(b"not a database at all" * 100)
    store = small_store()
    with pytest.raises(KGError, match=r"projections\.sqlite: projection table unusable"):
        tabulate(tabled(path, store), store, progress=False)


def test_the_minimum_must_be_a_probability() -> None:
    with pytest.raises(ValueError, match="min_probability"):
        TabledCompletion(Scripted(), ProjectionTable(Path("unused.sqlite")), 0.0)


def test_anchors_follow_the_learned_type_signatures(tmp_path: Path) -> None:
    store = small_store()
    bound = tabled(tmp_path / "projections.sqlite", store)
    listed = {(r, inverse, bound.entity_ids[p]) for r, inverse, p in anchors(store, bound)}
    assert ("has_phenotype", False, "G1") in listed and ("has_phenotype", False, "D2") in listed
    assert ("has_phenotype", True, "P0") in listed
    assert ("has_phenotype", False, "P0") not in listed  # no phenotype has a phenotype
    assert ("subclass_of", False, "G1") not in listed
    computed, stored = tabulate(bound, store, progress=False)
    assert (computed, stored) == (len(listed), 0)
    assert tabulate(bound, store, progress=False) == (0, len(listed))


@pytest.fixture(scope="module")
def umls() -> NetworkXStore:
    return build_store([load_pykeen_dataset("umls")], name="umls")


def test_the_gate_answers_the_same_read_or_computed(tmp_path: Path, umls: NetworkXStore) -> None:
    """Every topology, thresholds from retrieval only to everything: the candidates and their
    scores are the same whether the anchors' projections were computed or read back."""
    model = RuleCompletion()
    config = GateConfig()
    table = TabledCompletion(
        model, ProjectionTable(tmp_path / "p.sqlite"), config.neural_min_probability
    )
    plain = ConformalGate(ScoredGraph(umls, model, config))
    gate = ConformalGate(ScoredGraph(umls, table, config))
    rng = random.Random(7)
    queries = [sample_query(umls, TOPOLOGIES[i % len(TOPOLOGIES)], rng) for i in range(18)]
    for _ in range(2):  # the first round computes and stores, the second reads
        for query in queries:
            for t in (0.9, 0.3, 0.01, 0.0):
                thresholds = dict.fromkeys(range(4), t)
                expected = plain.run(query, thresholds)
                found = gate.run(query, thresholds)
                assert found.total == expected.total
                assert {(c.id, c.score) for c in found.top()} == {
                    (c.id, c.score) for c in expected.top()
                }
    completion = gate.graph.completion
    assert isinstance(completion, TabledBound) and completion.reads > 0
