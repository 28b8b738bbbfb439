"""Projections kept in SQLite: a thorough ask pays the model once per input set.

A set-level projection from one anchor at weight 1 — a 1p question, the anchor branches of an
intersection or a union, the first hop of a chain — depends only on the KG version, the model,
the relation, its direction and the anchor. ULTRA's pass over the demo KG costs about 40 ms;
reading a row costs well under one. :class:`TabledCompletion` wraps the deployed model: such a
projection is read from the table when there, else computed, returned and stored. Any other
input set — a chain's later hop, whose fuzzy input follows from its anchor and the hops before
— is kept the same way under a digest of its exact weights, the :data:`SET_ROWS_KEPT` most
recently computed ones (asking a chain question again, or at another level, reads it). A row
keeps the probabilities ≥ ``min_probability`` — the gate drops every smaller one
(``GateConfig.neural_min_probability``), so an answer set is the same whether its projection
was read or computed (``min_probability`` may not exceed the gate's:
:class:`~kgrecall.calibration.retriever.CalibratedRetriever` checks). The model's
``identifier`` is unchanged, so its calibrations apply as they are.

The table lives in the KG's index folder (``kgs/NAME/indexes/projections.sqlite``); rows are
keyed by KG version and model, and rows of other versions are removed when a model is bound
to a new one. ``kgrecall kg tabulate NAME`` fills it for every (relation, direction, anchor)
that the relation's learned type signature allows, resuming where it stopped. An unreadable
table is logged and bypassed: asks are computed, never refused, because of it.
"""

from __future__ import annotations

import hashlib
import logging
import sqlite3
import threading
import zlib
from collections import OrderedDict
from collections.abc import Iterator
from pathlib import Path
from typing import Literal

import numpy as np
from tqdm.auto import tqdm

from kgrecall.kg import GraphStore, KGError
from kgrecall.kg.signatures import relation_signatures
from kgrecall.tools.linkpred.base import BoundCompletion, CompletionModel

__all__ = [
    "PROJECTIONS_FILE",
    "ROWS_IN_MEMORY",
    "SET_ROWS_KEPT",
    "ProjectionTable",
    "TabledBound",
    "TabledCompletion",
    "anchors",
    "tabulate",
]

log = logging.getLogger(__name__)

#: The table's file in a KG's index folder.
PROJECTIONS_FILE = "projections.sqlite"

#: How many projections of other input sets than one anchor the table keeps (the most
#: recently computed; a row of the demo KG takes 14 kB on average, 36 kB at most).
SET_ROWS_KEPT = 2000

#: How many rows a bound model keeps decoded in memory (the most recently used): a row
#: asked again costs no SQLite read and no decompression.
ROWS_IN_MEMORY = 256

_SCHEMA = """
CREATE TABLE IF NOT EXISTS projections (
    kg_version TEXT NOT NULL,
    model TEXT NOT NULL,
    relation TEXT NOT NULL,
    inverse INTEGER NOT NULL,
    anchor TEXT NOT NULL,
    positions BLOB NOT NULL,
    dtype TEXT NOT NULL,
    probabilities BLOB NOT NULL,
    PRIMARY KEY (kg_version, model, relation, inverse, anchor)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS set_projections (
    kg_version TEXT NOT NULL,
    model TEXT NOT NULL,
    relation TEXT NOT NULL,
    inverse INTEGER NOT NULL,
    inputs TEXT NOT NULL,
    positions BLOB NOT NULL,
    dtype TEXT NOT NULL,
    probabilities BLOB NOT NULL,
    UNIQUE (kg_version, model, relation, inverse, inputs)
);
"""

#: A stored projection: the positions it reaches at ≥ the minimum and their probabilities.
_Row = tuple[np.ndarray, np.ndarray]

#: A row's input: one anchor's entity id, or the digest of an input set's weights.
Inputs = Literal["anchor", "set"]
_TABLES: dict[Inputs, tuple[str, str]] = {
    "anchor": ("projections", "anchor"),
    "set": ("set_projections", "inputs"),
}


class ProjectionTable:
    """The rows of one SQLite file: (KG version, model, relation, direction, anchor) → the
    positions and probabilities of the entities the projection reaches at ≥ the model key's
    minimum. Thread-safe; other processes may read and write the same file."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._connection: sqlite3.Connection | None = None

    def _connect(self) -> sqlite3.Connection:
        if self._connection is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            connection = sqlite3.connect(self.path, timeout=30.0, check_same_thread=False)
            connection.execute("PRAGMA journal_mode=WAL")
            connection.execute("PRAGMA synchronous=NORMAL")  # a cache: a lost row is recomputed
            connection.executescript(_SCHEMA)
            connection.commit()
            self._connection = connection
        return self._connection

    def get(
        self, key: tuple[str, str], relation: str, inverse: bool, source: str,
        inputs: Inputs = "anchor",
    ) -> _Row | None:  # fmt: skip
        """(positions, probabilities) of a stored projection; None when there is none.
        ``key`` is (KG version, model key); ``source`` an anchor's id or an input set's digest
        (``inputs`` says which)."""
        table, column = _TABLES[inputs]
        with self._lock:
            row = (
                self._connect()
                .execute(
                    f"SELECT positions, dtype, probabilities FROM {table} WHERE kg_version = ? "
                    f"AND model = ? AND relation = ? AND inverse = ? AND {column} = ?",
                    (*key, relation, int(inverse), source),
                )
                .fetchone()
            )
        if row is None:
            return None
        positions = np.frombuffer(zlib.decompress(row[0]), dtype=np.int32)
        return positions, np.frombuffer(zlib.decompress(row[2]), dtype=np.dtype(row[1]))

    def put(
        self,
        key: tuple[str, str],
        relation: str,
        inverse: bool,
        source: str,
        positions: np.ndarray,
        probabilities: np.ndarray,
        inputs: Inputs = "anchor",
    ) -> None:
        """Store one projection (replacing the row of the same key); the probabilities keep
        their dtype, so a row read is bit for bit what was computed. Input sets beyond the
        :data:`SET_ROWS_KEPT` most recently stored are removed."""
        table, _ = _TABLES[inputs]
        values = (
            *key,
            relation,
            int(inverse),
            source,
            zlib.compress(positions.astype(np.int32).tobytes(), 1),
            probabilities.dtype.str,
            zlib.compress(probabilities.tobytes(), 1),
        )
        with self._lock:
            connection = self._connect()
            connection.execute(
                f"INSERT OR REPLACE INTO {table} VALUES (?, ?, ?, ?, ?, ?, ?, ?)", values
            )
            if inputs == "set":
                connection.execute(
                    "DELETE FROM set_projections WHERE rowid <= "
                    "(SELECT MAX(rowid) FROM set_projections) - ?",
                    (SET_ROWS_KEPT,),
                )
            connection.commit()

    def stored(self, key: tuple[str, str]) -> set[tuple[str, bool, str]]:
        """The (relation, inverse, anchor) stored under ``key``."""
        with self._lock:
            rows = (
                self._connect()
                .execute(
                    "SELECT relation, inverse, anchor FROM projections "
                    "WHERE kg_version = ? AND model = ?",
                    key,
                )
                .fetchall()
            )
        return {(relation, bool(inverse), anchor) for relation, inverse, anchor in rows}

    def keep_only(self, kg_version: str) -> int:
        """Remove the rows of every other KG version; how many."""
        with self._lock:
            connection = self._connect()
            removed = sum(
                connection.execute(
                    f"DELETE FROM {table} WHERE kg_version != ?", (kg_version,)
                ).rowcount
                for table, _ in _TABLES.values()
            )
            connection.commit()
        return int(removed)


class TabledCompletion(CompletionModel):
    """``model`` with its projections read from and written to ``table``;
    probabilities below ``min_probability`` are not kept (nor returned for a row read)."""

    def __init__(self, model: CompletionModel, table: ProjectionTable, min_probability: float):
        if not 0.0 < min_probability < 1.0:
            raise ValueError(f"min_probability must be in (0, 1), got {min_probability}")
        self.model = model
        self.table = table
        self.min_probability = min_probability
        self.kg_version = model.kg_version

    @property
    def identifier(self) -> str:
        """The wrapped model's: its calibrations are this model's."""
        return self.model.identifier

    @property
    def model_key(self) -> str:
        """What the table's rows of this model are keyed by."""
        return f"{self.model.identifier}|min{self.min_probability:g}"

    def bind(self, store: GraphStore) -> TabledBound:
        """The wrapped model bound to ``store``, reading and writing rows of its version (the
        rows of other versions are removed)."""
        try:
            removed = self.table.keep_only(store.version)
        except sqlite3.Error as error:
            log.warning("%s: projection table unusable (%s); computing", self.table.path, error)
            removed = 0
        if removed:
            log.info("%s: removed %d projections of other KG versions", self.table.path, removed)
        key = (store.version, self.model_key)
        return TabledBound(self.model.bind(store), self.table, key, self.min_probability)

    def save(self, path: str | Path) -> Path:
        return self.model.save(path)


class TabledBound(BoundCompletion):
    """A bound model whose projections go through a :class:`ProjectionTable`."""

    def __init__(
        self,
        bound: BoundCompletion,
        table: ProjectionTable,
        key: tuple[str, str],
        min_probability: float,
    ) -> None:
        self.bound = bound
        self.table = table
        self.key = key
        self.min_probability = min_probability
        self.entity_ids = bound.entity_ids
        self._usable = True
        self._recent: OrderedDict[tuple[str, bool, str], _Row] = OrderedDict()
        self._recent_lock = threading.Lock()  # a server's requests share the bound model
        #: projections read from the table (or its rows in memory) and computed, since binding
        self.reads = self.computed = 0

    def knows(self, relation: str) -> bool:
        return self.bound.knows(relation)

    def covers(self, relation: str, *, inverse: bool) -> bool:
        return self.bound.covers(relation, inverse=inverse)

    def project(self, weights: np.ndarray, relation: str, *, inverse: bool) -> np.ndarray:
        """The projection of ``weights``: from the table when stored, else computed and
        stored."""
        if not self._usable:
            return self._compute(weights, relation, inverse)
        anchor = _single_anchor(weights)
        inputs: Inputs = "set" if anchor is None else "anchor"
        source = _digest(weights) if anchor is None else self.entity_ids[anchor]
        row = self._row(relation, inverse, source, inputs)
        if row is not None:
            self.reads += 1
            self.last_note = None
            probabilities = np.zeros(len(self.entity_ids), dtype=row[1].dtype)
            probabilities[row[0]] = row[1]
            return probabilities
        probabilities = self._compute(weights, relation, inverse)
        if self.last_note is None and self._usable:  # a bounded projection is not the model's
            kept = np.flatnonzero(probabilities >= self.min_probability)
            row = (kept, probabilities[kept])
            self._remember((relation, inverse, source), row)
            try:
                self.table.put(self.key, relation, inverse, source, *row, inputs)
            except sqlite3.Error as error:
                self._unusable(error)
        return probabilities

    def _row(self, relation: str, inverse: bool, source: str, inputs: Inputs) -> _Row | None:
        """A stored projection, from memory or else from the table; None if there is none."""
        key = (relation, inverse, source)
        with self._recent_lock:
            row = self._recent.get(key)
            if row is not None:
                self._recent.move_to_end(key)
                return row
        try:
            row = self.table.get(self.key, relation, inverse, source, inputs)
        except sqlite3.Error as error:
            self._unusable(error)
            return None
        if row is not None:
            self._remember(key, row)
        return row

    def _remember(self, key: tuple[str, bool, str], row: _Row) -> None:
        with self._recent_lock:
            self._recent[key] = row
            self._recent.move_to_end(key)
            if len(self._recent) > ROWS_IN_MEMORY:
                self._recent.popitem(last=False)

    def _compute(self, weights: np.ndarray, relation: str, inverse: bool) -> np.ndarray:
        self.computed += 1
        probabilities = self.bound.project(weights, relation, inverse=inverse)
        self.last_note = self.bound.last_note
        return probabilities

    def _unusable(self, error: sqlite3.Error) -> None:
        log.warning("%s: projection table unusable (%s); computing", self.table.path, error)
        self._usable = False


def _digest(weights: np.ndarray) -> str:
    """Names an input set by its exact weights (positions and values of the nonzero ones)."""
    held = np.flatnonzero(weights)
    values = np.ascontiguousarray(weights[held], dtype=np.float64)
    return hashlib.sha256(held.astype(np.int64).tobytes() + values.tobytes()).hexdigest()


def _single_anchor(weights: np.ndarray) -> int | None:
    """The one entity ``weights`` holds at 1, else None."""
    held = np.flatnonzero(weights)
    return int(held[0]) if len(held) == 1 and weights[held[0]] == 1.0 else None


def anchors(store: GraphStore, bound: BoundCompletion) -> Iterator[tuple[str, bool, int]]:
    """Every (relation, inverse, anchor position) a projection may start from: the relations
    the model covers in that direction, from the entities of the types their learned
    signatures start from (a head type forward, a tail type for the inverse)."""
    types = {node.id: node.type for node in store.nodes()}
    entity_types = [types[entity] for entity in bound.entity_ids]
    for relation, signature in sorted(relation_signatures(store).items()):
        for inverse in (False, True):
            if not bound.covers(relation, inverse=inverse):
                continue
            start = signature.tail_types if inverse else signature.head_types
            for position, entity_type in enumerate(entity_types):
                if entity_type in start:
                    yield relation, inverse, position


def tabulate(bound: TabledBound, store: GraphStore, *, progress: bool = True) -> tuple[int, int]:
    """Store every single-anchor projection :func:`anchors` lists that the table lacks (a
    progress bar on stderr when ``progress``); (computed now, stored before). An unusable
    table is an error here (asks bypass it)."""
    try:
        have = bound.table.stored(bound.key)
    except sqlite3.Error as error:
        raise KGError(
            f"{bound.table.path}: projection table unusable ({error}); remove the file to start "
            "anew"
        ) from error
    todo = [
        (relation, inverse, position)
        for relation, inverse, position in anchors(store, bound)
        if (relation, inverse, bound.entity_ids[position]) not in have
    ]
    weights = np.zeros(len(bound.entity_ids), dtype=np.float64)
    for relation, inverse, position in tqdm(
        todo, desc="projections", unit="anchor", disable=not progress
    ):
        weights[position] = 1.0
        bound.project(weights, relation, inverse=inverse)
        weights[position] = 0.0
    return len(todo), len(have)
