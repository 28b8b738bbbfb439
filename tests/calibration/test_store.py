"""Calibration stores (SQLite, Redis through fakeredis): keyed records, replacement in one
transaction, honest lookups."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import fakeredis
import pytest

from kgrecall.calibration import (
    NO_PREDICTOR,
    RESIDUAL_GROUP,
    Calibration,
    CalibrationKey,
    CalibrationStore,
    CalibrationStoreError,
    GateConfig,
    RedisCalibrationStore,
    SQLiteCalibrationStore,
    ThresholdChoice,
    open_calibration_store,
)
from kgrecall.kg import KGError

CHOICE = ThresholdChoice(
    gamma=0.0,
    t=0.3,
    thresholds=[0.3, 0.3],
    n=500,
    risk_hat=0.08,
    risk_upper=0.12,
    estimated_recall=0.88,
    mean_set_size=12.5,
    everything=False,
)


def record(**changes: object) -> Calibration:
    values: dict[str, object] = {
        "id": "c1",
        "kg_name": "demo",
        "kg_version": "v1" * 32,
        "predictor_id": "RotatE:abc:1",
        "topology": "2p",
        "alpha": 0.1,
        "delta": 0.1,
        "method": "crc",
        "conditioning": "none",
        "routing_threshold": 0.5,
        "pooled": CHOICE,
        "groups": {},
        "n_queries": 500,
        "hide_fractions": [0.1, 0.25, 0.4],
        "seed": 0,
        "seconds": 3.2,
        "created_at": "2026-11-29T10:00:00+00:00",
    }
    values.update(changes)
    return Calibration.model_validate(values)


def find(store: CalibrationStore, **changes: object) -> Calibration | str:
    key: dict[str, object] = {
        "kg_name": "demo",
        "kg_version": "v1" * 32,
        "predictor_id": "RotatE:abc:1",
        "topology": "2p",
        "alpha": 0.1,
        "method": "crc",
    }
    key.update(changes)
    return store.find(CalibrationKey(**key))  # type: ignore[arg-type]


Opener = Callable[[], CalibrationStore]


@pytest.fixture(params=["sqlite", "redis"])
def opener(request: pytest.FixtureRequest, tmp_path: Path) -> Opener:
    """Opens the same store again on each call (same file / same fake Redis server)."""
    if request.param == "sqlite":
        return lambda: SQLiteCalibrationStore(tmp_path / "c.sqlite")
    server = fakeredis.FakeServer()
    return lambda: RedisCalibrationStore(fakeredis.FakeRedis(server=server))


def test_round_trip_and_replacement(opener: Opener) -> None:
    store = opener()
    assert store.all() == []
    store.save([record()])
    assert find(store) == record()
    store.save([record(id="c2", created_at="2026-11-29T11:00:00+00:00", seconds=1.0)])
    assert [r.id for r in store.all()] == ["c2"]  # same key: replaced, not duplicated
    assert store.get("c2") is not None and store.get("c1") is None
    assert find(opener()) == store.get("c2")


def test_the_largest_calibrated_alpha_not_above_the_request_is_used(opener: Opener) -> None:
    store = opener()
    store.save([record(id="a05", alpha=0.05), record(id="a10", alpha=0.1)])
    assert isinstance(found := find(store, alpha=0.2), Calibration) and found.id == "a10"
    assert isinstance(found := find(store, alpha=0.07), Calibration) and found.id == "a05"
    reason = find(store, alpha=0.01)
    assert isinstance(reason, str) and "strictest calibrated target is 0.95" in reason


@pytest.mark.parametrize(
    ("key", "reason"),
    [
        ({"kg_name": "other"}, "has no crc calibration"),
        ({"method": "ltt"}, "has no ltt calibration"),
        ({"kg_version": "v2" * 32}, "another KG version"),
        ({"predictor_id": "ComplEx:abc:2"}, "no calibration for link predictor ComplEx"),
        ({"topology": "3p"}, "topology 3p is not calibrated (calibrated: 2p)"),
    ],
)
def test_missing_calibrations_give_the_reason(
    opener: Opener, key: dict[str, object], reason: str
) -> None:
    store = opener()
    store.save([record()])
    found = find(store, **key)
    assert isinstance(found, str) and reason in found


def test_a_calibration_holds_only_for_the_scoring_of_predictions_it_was_made_with(
    opener: Opener,
) -> None:
    """Thresholds chosen on one scale of prediction scores mean other sets on another: a
    record made with another gate scoring (or before scoring was recorded) is not used."""
    store = opener()
    scoring = GateConfig().scoring
    store.save([record(scoring=GateConfig(answer_weighting=0.0).scoring)])
    key = CalibrationKey("demo", "v1" * 32, "RotatE:abc:1", "2p", 0.1, "crc")
    reason = store.find(key, scoring=scoring)
    assert isinstance(reason, str) and "another scoring of predictions" in reason
    assert scoring in reason and "recalibrate" in reason
    store.save([record(id="c1")])  # made before the scoring was recorded: replaced, same key
    reason = store.find(key, scoring=scoring)
    assert isinstance(reason, str) and "(unrecorded, now" in reason
    store.save([record(id="c2", scoring=scoring)])
    assert isinstance(found := store.find(key, scoring=scoring), Calibration)
    assert found.id == "c2"
    # retrieval-only records never score predictions: any scoring matches them
    store.save([record(id="c3", predictor_id=NO_PREDICTOR)])
    no_model = replace(key, predictor_id=NO_PREDICTOR)
    assert isinstance(found := store.find(no_model, scoring=scoring), Calibration)
    assert found.id == "c3"


def test_a_failed_save_leaves_the_previous_records(
    opener: Opener, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = opener()
    store.save([record()])
    original = Calibration.model_dump_json

    def failing(self: Calibration, **options: object) -> str:
        if self.id == "bad":
            raise RuntimeError("disk full")
        return original(self, **options)  # type: ignore[arg-type]

    monkeypatch.setattr(Calibration, "model_dump_json", failing)
    replacement = record(id="new", created_at="2026-11-29T12:00:00+00:00")
    with pytest.raises(RuntimeError, match="disk full"):
        store.save([replacement, record(id="bad", topology="3p")])
    assert [r.id for r in opener().all()] == ["c1"]


def test_sqlite_constraint_failure_rolls_back(tmp_path: Path) -> None:
    store = SQLiteCalibrationStore(tmp_path / "c.sqlite")
    store.save([record()])
    duplicate = [record(id="new", topology="1p"), record(id="new", topology="3p")]
    with pytest.raises(CalibrationStoreError, match="calibration store error"):
        store.save(duplicate)
    assert [r.id for r in store.all()] == ["c1"]


def test_corrupt_record_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite"
    SQLiteCalibrationStore(path).save([record()])
    with sqlite3.connect(path) as connection:
        connection.execute("UPDATE calibrations SET record = '{\"id\": 1}'")
    with pytest.raises(CalibrationStoreError, match="unreadable calibration record"):
        SQLiteCalibrationStore(path).all()
    client = fakeredis.FakeRedis()
    RedisCalibrationStore(client).save([record()])
    client.set("kgrecall:calibration:record:c1", b"not json")
    with pytest.raises(CalibrationStoreError, match="redis kgrecall:calibration: unreadable"):
        RedisCalibrationStore(client).all()


def test_open_calibration_store_by_location(tmp_path: Path) -> None:
    assert isinstance(open_calibration_store(tmp_path / "a.sqlite"), SQLiteCalibrationStore)
    opened = open_calibration_store(f"sqlite:///{tmp_path / 'b.sqlite'}")
    assert isinstance(opened, SQLiteCalibrationStore) and opened.path == tmp_path / "b.sqlite"
    redis_store = open_calibration_store("redis://localhost:6390/0")  # connects lazily
    assert isinstance(redis_store, RedisCalibrationStore)
    with pytest.raises(CalibrationStoreError, match="calibration store error"):
        redis_store.all()  # nothing listens on that port
    with pytest.raises(KGError, match="unknown calibration store"):
        open_calibration_store("mongodb://x")


def test_guarantee_text_names_what_over_what_and_assumptions() -> None:
    crc = record()
    text = crc.guarantee(crc.pooled)
    assert "expected recall ≥ 0.90" in text and "2p queries" in text and "n=500" in text
    assert "10%/25%/40% of facts hidden" in text and "exchangeable" in text
    ltt = record(method="ltt", delta=0.05)
    assert "with probability ≥ 0.95" in ltt.guarantee(ltt.pooled)
    coverage = record(method="coverage")
    assert "at least one true answer" in coverage.guarantee(coverage.pooled)
    assert "uniformly among connected entities" in text  # how the queries were sampled


def test_a_query_gets_the_finest_calibrated_cell_of_its_groups() -> None:
    own, rest_of_last_hop, rest = (CHOICE.model_copy(update={"t": t}) for t in (0.3, 0.2, 0.1))
    grouped = record(
        conditioning="relation",
        groups={"a@0;b@1": own, "a@0 (rest)": rest_of_last_hop, RESIDUAL_GROUP: rest},
    )
    choice, cell = grouped.choice_for(("a@0;b@1", "a@0"))
    assert cell == "a@0;b@1" and choice == own
    assert "relation group 'a@0;b@1'" in grouped.guarantee(own, cell)
    assert grouped.choice_for(("a@0;c@1", "a@0")) == (rest_of_last_hop, "a@0 (rest)")
    assert grouped.choice_for(("d@0;e@1", "d@0")) == (rest, RESIDUAL_GROUP)
    # The pooled thresholds never stand in for a group: a record without a covering cell
    # (older records kept only the large groups) answers nothing for such a query.
    old_style = record(conditioning="degree", groups={"degree≥5": own})
    assert old_style.choice_for(("degree≥125",)) == (None, None)
    assert record().choice_for(()) == (CHOICE, None)


def test_readers_never_see_half_written_thresholds(tmp_path: Path) -> None:
    """A writer replaces the record of one key with alternating versions (several fields
    changed together) while readers look it up: every read is one whole version."""
    store = SQLiteCalibrationStore(tmp_path / "c.sqlite")
    versions = [
        record(id=f"v{i}", pooled=CHOICE.model_copy(update={"t": t, "thresholds": [t, t]}),
               n_queries=100 + i)
        for i, t in enumerate((0.2, 0.7))
    ]  # fmt: skip
    store.save([versions[0]])
    seen: list[tuple[str, float, int]] = []
    stop = threading.Event()

    def write() -> None:
        for i in range(300):
            store.save([versions[i % 2]])
        stop.set()

    def read() -> None:
        reader = SQLiteCalibrationStore(tmp_path / "c.sqlite")  # its own connections
        while not stop.is_set():
            found = find(reader)
            assert not isinstance(found, str)
            seen.append((found.id, found.pooled.thresholds[0], found.n_queries))

    threads = [threading.Thread(target=write), *(threading.Thread(target=read) for _ in range(2))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert seen and set(seen) <= {("v0", 0.2, 100), ("v1", 0.7, 101)}


def test_a_store_moved_while_in_use_starts_empty(tmp_path: Path) -> None:
    """Moving the SQLite file at run time was a FileNotFoundError (HTTP 500)."""
    path = tmp_path / "c.sqlite"
    store = SQLiteCalibrationStore(path)
    store.save([record()])
    assert [r.id for r in store.all()] == ["c1"]
    path.rename(tmp_path / "moved.sqlite")
    assert store.all() == [] and path.is_file()
    store.save([record(id="c2")])
    assert [r.id for r in store.all()] == ["c2"]


def test_a_corrupt_store_fails_its_calls_not_its_construction(tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite"
    path.write_bytes(b"this is not a SQLite database" * 100)
    store = SQLiteCalibrationStore(path)  # opening nothing yet
    with pytest.raises(CalibrationStoreError, match="not a database") as caught:
        store.all()
    assert caught.value.location == str(path) and str(path) not in caught.value.problem
    with pytest.raises(CalibrationStoreError):
        store.save([record()])
    assert path.read_bytes().startswith(b"this is not")  # nothing overwritten
