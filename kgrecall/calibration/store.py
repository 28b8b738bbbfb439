"""The calibration record and where it lives: a SQLite file (default) or Redis.

A record is keyed by (KG name, KG version, link-predictor id, topology, α, method,
conditioning); recalibrating replaces it in one transaction, so a reader sees the old record or
the new one, never half of either. A lookup for a KG version, predictor or topology without a
record — or with records only at larger α — returns the reason instead, which the caller
reports as ``guarantee: none``. A store that cannot be read raises
:class:`CalibrationStoreError`; a SQLite file removed while in use is created anew (empty).
"""

from __future__ import annotations

import logging
import sqlite3
from abc import ABC, abstractmethod
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import astuple, dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from kgrecall.calibration.calibrators import ThresholdChoice
from kgrecall.calibration.vocabulary import Conditioning, Method
from kgrecall.errors import ServiceUnavailableError
from kgrecall.kg import KGError

log = logging.getLogger(__name__)

#: Predictor id recorded when calibration (and querying) runs without a link predictor.
NO_PREDICTOR = "none"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS calibrations (
    id TEXT PRIMARY KEY,
    kg_name TEXT NOT NULL,
    kg_version TEXT NOT NULL,
    predictor_id TEXT NOT NULL,
    topology TEXT NOT NULL,
    alpha REAL NOT NULL,
    method TEXT NOT NULL,
    conditioning TEXT NOT NULL,
    created_at TEXT NOT NULL,
    record TEXT NOT NULL,
    UNIQUE (kg_name, kg_version, predictor_id, topology, alpha, method, conditioning)
)
"""


class CalibrationStoreError(ServiceUnavailableError):
    """The calibration store cannot be opened or read: a fault of the server's storage, not of
    the request (HTTP answers 503 without the location; the CLI shows it)."""

    def __init__(self, location: str, problem: str) -> None:
        super().__init__(f"{location}: {problem}")
        self.location = location
        self.problem = problem


@dataclass(frozen=True, slots=True)
class CalibrationKey:
    """What a calibration is for: one row of the store per key."""

    kg_name: str
    kg_version: str
    predictor_id: str
    topology: str
    alpha: float
    method: Method
    conditioning: Conditioning = "none"


class Calibration(BaseModel):
    """Calibrated gate thresholds for one (KG version, predictor, topology, α, method)."""

    model_config = ConfigDict(frozen=True)

    id: str
    kg_name: str
    kg_version: str
    predictor_id: str
    topology: str
    alpha: float
    delta: float
    method: Method
    conditioning: Conditioning
    routing_threshold: float
    pooled: ThresholdChoice
    groups: dict[str, ThresholdChoice]
    n_queries: int
    #: Calibration queries had at most this many answers in the observed KG, so the guarantee
    #: covers queries with at most this many retrieved answers (None: records before the limit
    #: was stored).
    max_answers: int | None = None
    #: How the gate scored predictions (:attr:`~kgrecall.calibration.GateConfig.scoring`); the
    #: thresholds hold for that scoring only (None: records before it was stored).
    scoring: str | None = None
    hide_fractions: list[float]
    seed: int
    seconds: float
    created_at: str

    @property
    def key(self) -> CalibrationKey:
        return CalibrationKey(
            self.kg_name, self.kg_version, self.predictor_id, self.topology, self.alpha,
            self.method, self.conditioning,
        )  # fmt: skip

    @property
    def target_level(self) -> float:
        """The recall (or coverage) level this calibration targets: 1 − α."""
        return 1.0 - self.alpha

    @property
    def confidence_level(self) -> float:
        return 1.0 - self.delta

    def choice_for(self, chain: Sequence[str]) -> tuple[ThresholdChoice | None, str | None]:
        """(thresholds, Mondrian cell) for a query whose groups are ``chain`` (finest first,
        :func:`~kgrecall.calibration.pipeline.group_chain`): the first of its
        :func:`cell_names` that was calibrated, or (None, None) when none was — then no
        threshold of this record is covered for it. Unconditioned records: the pooled choice."""
        if self.conditioning == "none":
            return self.pooled, None
        for cell in cell_names(chain):
            if cell in self.groups:
                return self.groups[cell], cell
        return None, None

    def guarantee(self, choice: ThresholdChoice, cell: str | None = None) -> str:
        """What is guaranteed, over which queries, how they were sampled, and under which
        assumption (``cell``: the Mondrian cell ``choice`` was calibrated for)."""
        over = f"{self.topology} queries"
        if cell is not None:
            over += f" in {self.conditioning} group {cell!r}"
        if self.method == "crc":
            what = f"expected recall ≥ {self.target_level:.2f} (conformal risk control)"
        elif self.method == "ltt":
            what = (
                f"with probability ≥ {self.confidence_level:.2f}, expected recall ≥ "
                f"{self.target_level:.2f} (Learn-then-Test, Hoeffding–Bentkus)"
            )
        else:
            what = (
                f"P(at least one true answer returned) ≥ {self.target_level:.2f} "
                "(split conformal coverage)"
            )
        fractions = "/".join(f"{f:.0%}" for f in self.hide_fractions)
        levels = (
            f"at each of the simulated missingness levels ({fractions} of facts hidden at "
            "random; the most conservative per-level threshold is used)"
            if len(self.hide_fractions) > 1
            else f"like the simulated ones ({fractions} of facts hidden at random)"
        )
        limit = (
            f" with ≤ {self.max_answers} answers in the KG" if self.max_answers is not None else ""
        )
        return (
            f"{what} over {over}, calibrated on n={choice.n} synthetic queries{limit} of KG "
            f"{self.kg_name} version {self.kg_version[:12]} (each drawn from an answer chosen "
            "uniformly among connected entities, walking random edges back to its anchors, so "
            "well-connected anchors are over-represented); assumes new queries are "
            f"exchangeable with them and the KG's gaps are {levels}"
        )


#: The Mondrian cell of the queries whose groups, at every level, were too small.
RESIDUAL_GROUP = "rest"


def cell_names(chain: Sequence[str]) -> list[str]:
    """The Mondrian cells a query with this group chain may belong to, finest first: its own
    group, then the rest of each coarser group, then :data:`RESIDUAL_GROUP`."""
    if not chain:
        return []
    return [chain[0], *(f"{key} (rest)" for key in chain[1:]), RESIDUAL_GROUP]


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


class CalibrationStore(ABC):
    """Where calibration records live; backends: :class:`SQLiteCalibrationStore` (default),
    :class:`RedisCalibrationStore`. :func:`open_calibration_store` picks one from a URL."""

    location: str

    @abstractmethod
    def save(self, calibrations: list[Calibration]) -> None:
        """Insert or replace the records (same key → replaced), all or none."""

    @abstractmethod
    def all(self, kg_name: str | None = None) -> list[Calibration]:
        """Every record (of one KG), newest first."""

    def get(self, calibration_id: str) -> Calibration | None:
        return next((c for c in self.all() if c.id == calibration_id), None)

    def find(
        self,
        wanted: CalibrationKey,
        earlier_versions: Sequence[str] = (),
        *,
        scoring: str | None = None,
    ) -> Calibration | str:
        """The valid record with the largest calibrated α ≤ ``wanted.alpha``, or why there is
        none. Without one for ``wanted.kg_version``, the first of ``earlier_versions`` (the
        KG's earlier versions, newest first) that has one stands in: a stale calibration,
        which the caller must say it is. With ``scoring``, a record made with a completion
        model counts only if the gate scored its predictions that way."""
        found = self._find(wanted, scoring)
        for version in earlier_versions if isinstance(found, str) else ():
            older = self._find(replace(wanted, kg_version=version), scoring)
            if not isinstance(older, str):
                return older
        return found

    def _find(self, wanted: CalibrationKey, scoring: str | None) -> Calibration | str:
        kg_name, kg_version, predictor_id = wanted.kg_name, wanted.kg_version, wanted.predictor_id
        topology, alpha, method = wanted.topology, wanted.alpha, wanted.method
        conditioning = wanted.conditioning
        candidates = [c for c in self.all(kg_name) if c.method == method]
        if not candidates:
            return f"KG {kg_name!r} has no {method} calibration (run kgrecall calibrate)"
        current = [c for c in candidates if c.kg_version == kg_version]
        if not current:
            return (
                f"the calibrations of KG {kg_name!r} are for another KG version "
                f"({candidates[0].kg_version[:12]}, now {kg_version[:12]}): stale, recalibrate"
            )
        same_model = [c for c in current if c.predictor_id == predictor_id]
        if not same_model:
            return (
                f"no calibration for link predictor {predictor_id} (calibrated with "
                f"{current[0].predictor_id}); recalibrate after training"
            )
        if scoring is not None and predictor_id != NO_PREDICTOR:
            scored_alike = [c for c in same_model if c.scoring == scoring]
            if not scored_alike:
                return (
                    f"the calibrations for {predictor_id} were made with another scoring of "
                    f"predictions ({same_model[0].scoring or 'unrecorded'}, now {scoring}): "
                    "recalibrate"
                )
            same_model = scored_alike
        same_topology = [
            c for c in same_model if c.topology == topology and c.conditioning == conditioning
        ]
        if not same_topology:
            calibrated = sorted({c.topology for c in same_model})
            return f"topology {topology} is not calibrated (calibrated: {', '.join(calibrated)})"
        valid = [c for c in same_topology if c.alpha <= alpha + 1e-12]
        if not valid:
            smallest = min(c.alpha for c in same_topology)
            return (
                f"no {topology} calibration at recall target ≥ {1 - alpha:.2f} (the strictest "
                f"calibrated target is {1 - smallest:.2f}); calibrate with --alphas {alpha:g}"
            )
        return max(valid, key=lambda c: (c.alpha, c.created_at))

    def _parse(self, text: str | bytes) -> Calibration:
        try:
            return Calibration.model_validate_json(text)
        except ValidationError as error:
            problem = f"unreadable calibration record ({error.error_count()} errors)"
            raise CalibrationStoreError(self.location, problem) from None


class SQLiteCalibrationStore(CalibrationStore):
    """One SQLite file; a save is one transaction. Nothing is opened before the first use, so a
    broken store fails the calls that need it, not whoever constructs it."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.location = str(self.path)
        self._cache: tuple[tuple[int, int], list[Calibration]] | None = None

    def _create(self) -> None:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            problem = f"cannot create the calibration store's folder ({error.strerror})"
            raise CalibrationStoreError(self.location, problem) from None
        with self._connect() as connection:
            connection.execute(_SCHEMA)

    @contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        try:
            connection = sqlite3.connect(self.path, timeout=30)
        except sqlite3.Error as error:
            problem = f"cannot open the calibration store ({error})"
            raise CalibrationStoreError(self.location, problem) from None
        try:
            with connection:  # commits on success, rolls back on error
                yield connection
        except sqlite3.DatabaseError as error:
            problem = f"calibration store error ({error})"
            raise CalibrationStoreError(self.location, problem) from None
        finally:
            connection.close()

    def save(self, calibrations: list[Calibration]) -> None:
        """Insert or replace the records, all in one transaction."""
        self._create()
        with self._connect() as connection:
            for record in calibrations:
                key = astuple(record.key)
                connection.execute(
                    "DELETE FROM calibrations WHERE kg_name = ? AND kg_version = ? AND "
                    "predictor_id = ? AND topology = ? AND alpha = ? AND method = ? AND "
                    "conditioning = ?",
                    key,
                )
                connection.execute(
                    "INSERT INTO calibrations VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (record.id, *key, record.created_at, record.model_dump_json()),
                )

    def all(self, kg_name: str | None = None) -> list[Calibration]:
        """Every record (of one KG), newest first.

        Records are parsed once and cached until the file changes (queries look them up
        on every call; another process recalibrating is picked up on the next lookup).
        """
        try:
            status = self.path.stat()
        except FileNotFoundError:  # new, or moved / deleted while in use: an empty store
            if self._cache is not None:
                log.warning("calibration store %s is gone; creating an empty one", self.path)
            self._create()
            status = self.path.stat()
        key = (status.st_mtime_ns, status.st_size)
        if self._cache is None or self._cache[0] != key:
            with self._connect() as connection:
                connection.execute(_SCHEMA)  # a file another process created but not filled
                rows = connection.execute(
                    "SELECT record FROM calibrations ORDER BY created_at DESC"
                ).fetchall()
            self._cache = (key, [self._parse(row[0]) for row in rows])
        records = self._cache[1]
        return records if kg_name is None else [r for r in records if r.kg_name == kg_name]

    def get(self, calibration_id: str) -> Calibration | None:
        self._create()
        with self._connect() as connection:
            row = connection.execute(
                "SELECT record FROM calibrations WHERE id = ?", (calibration_id,)
            ).fetchone()
        return None if row is None else self._parse(row[0])


class RedisCalibrationStore(CalibrationStore):
    """Records as JSON strings under ``<prefix>:record:<id>``, indexed by key in the hash
    ``<prefix>:index``; a save is one MULTI/EXEC transaction."""

    def __init__(self, client: Any, prefix: str = "kgrecall:calibration") -> None:
        self.client = client
        self.prefix = prefix
        self.location = f"redis {prefix}"

    def _index(self) -> str:
        return f"{self.prefix}:index"

    def _record_key(self, calibration_id: str) -> str:
        return f"{self.prefix}:record:{calibration_id}"

    def save(self, calibrations: list[Calibration]) -> None:
        payloads = [(record, record.model_dump_json()) for record in calibrations]
        fields = ["|".join(map(str, astuple(record.key))) for record in calibrations]
        try:
            previous = self.client.hmget(self._index(), fields) if fields else []
            pipeline = self.client.pipeline(transaction=True)
            for old in previous:
                if old is not None:
                    pipeline.delete(self._record_key(_text(old)))
            for field_name, (record, payload) in zip(fields, payloads, strict=True):
                pipeline.set(self._record_key(record.id), payload)
                pipeline.hset(self._index(), field_name, record.id)
            pipeline.execute()
        except _redis_errors() as error:
            problem = f"calibration store error ({error})"
            raise CalibrationStoreError(self.location, problem) from None

    def all(self, kg_name: str | None = None) -> list[Calibration]:
        try:
            ids = [_text(value) for value in self.client.hvals(self._index())]
            payloads = self.client.mget([self._record_key(i) for i in ids]) if ids else []
        except _redis_errors() as error:
            problem = f"calibration store error ({error})"
            raise CalibrationStoreError(self.location, problem) from None
        records = [self._parse(payload) for payload in payloads if payload is not None]
        records.sort(key=lambda record: record.created_at, reverse=True)
        return records if kg_name is None else [r for r in records if r.kg_name == kg_name]


def _text(value: str | bytes) -> str:
    return value.decode() if isinstance(value, bytes) else value


def _redis_errors() -> tuple[type[Exception], ...]:
    try:
        from redis.exceptions import RedisError
    except ImportError:  # a client without the redis package (e.g. a test double)
        return (ConnectionError,)
    return (RedisError, ConnectionError)


def open_calibration_store(location: str | Path) -> CalibrationStore:
    """A store from a path or URL: ``redis://host:port/db`` (needs the ``redis`` package,
    ``pip install 'kgrecall[redis]'``), ``sqlite:///path`` or a plain file path."""
    text = str(location)
    if text.startswith(("redis://", "rediss://", "unix://")):
        try:
            import redis
        except ImportError:
            raise KGError(
                f"{text}: the Redis calibration store needs the redis package "
                "(pip install 'kgrecall[redis]')"
            ) from None
        return RedisCalibrationStore(redis.Redis.from_url(text))
    if text.startswith("sqlite:///"):
        text = text.removeprefix("sqlite:///")
    elif "://" in text:
        raise KGError(
            f"unknown calibration store {text!r}; use a file path, sqlite:/// or redis://"
        )
    return SQLiteCalibrationStore(text)
