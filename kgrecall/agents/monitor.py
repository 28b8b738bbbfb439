"""The recall users actually get: a log of served queries, re-checked when new facts arrive,
plus user feedback, summarised per topology and target with a binomial interval.

Edges ingested after a query was answered, and that answer it, are exactly the "missing
literature" a recall guarantee is about. With logging on (opt-in: ``full``), each calibrated
answer set is stored with the answers retrieval alone found. After an ingestion every logged
query of an earlier version is executed again, retrieval only, on the new version; its *new*
answers (retrieved now, not then) are the facts the KG lacked, and those the old set already
held were covered. Feedback (``missed`` / ``wrong`` entity ids for a query id) adds missed
answers as uncovered ones; it is stored, never written into the KG.

The monitor pools, per (KG, topology, recall target), covered / new answers and reports the
share with a Clopper–Pearson interval (answers are treated as independent draws — queries
with many new answers weigh more); ``drift`` is flagged when the target lies above the
interval. ``hashed`` logging keeps only a digest of each query (its answers are not stored):
feedback is counted, re-checks are not possible.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

from pydantic import BaseModel
from scipy.stats import beta

from kgrecall.calibration import CalibratedAnswer, ConformalGate, ScoredGraph
from kgrecall.kg import GraphStore, KGError
from kgrecall.tools import QueryNode, parse_query, topology

LogMode = Literal["off", "hashed", "full"]
LOG_MODES: tuple[LogMode, ...] = ("off", "hashed", "full")
QUERY_LOG_FILE = "querylog.sqlite"
#: Most answer ids stored per logged query; a larger set is logged without its answers
#: (and said so in the monitor), never cut.
MAX_LOGGED_ANSWERS = 20_000
#: The monitor's interval: two-sided, this confidence.
MONITOR_CONFIDENCE = 0.95

_SCHEMA = """
CREATE TABLE IF NOT EXISTS queries (
    id TEXT PRIMARY KEY, kg TEXT NOT NULL, kg_version TEXT NOT NULL, at TEXT NOT NULL,
    topology TEXT NOT NULL, target REAL, query_hash TEXT NOT NULL, tree TEXT,
    retrieved TEXT, returned TEXT, total INTEGER NOT NULL, abstained INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS outcomes (
    query_id TEXT NOT NULL, kg_version TEXT NOT NULL, at TEXT NOT NULL,
    new_answers INTEGER NOT NULL, covered INTEGER NOT NULL,
    PRIMARY KEY (query_id, kg_version)
);
CREATE TABLE IF NOT EXISTS feedback (
    query_id TEXT NOT NULL, at TEXT NOT NULL, missed TEXT NOT NULL, wrong TEXT NOT NULL
);
"""


class MonitorRow(BaseModel):
    """Recall of new answers for one (KG, topology, target)."""

    kg: str
    topology: str
    target: float
    queries: int
    queries_with_new_answers: int
    new_answers: int
    covered: int
    missed_by_feedback: int
    wrong_by_feedback: int
    recall: float | None
    interval: tuple[float, float] | None
    drift: bool


class VersionRow(BaseModel):
    """Recall of the answers one KG version added, over the queries logged before it."""

    kg: str
    kg_version: str
    at: str
    target: float
    new_answers: int
    covered: int
    recall: float | None
    interval: tuple[float, float] | None


class MonitorReport(BaseModel):
    mode: LogMode
    confidence: float
    rows: list[MonitorRow]
    versions: list[VersionRow]
    #: logged queries whose answer sets were too large to store (not re-checked)
    unstored: int


def clopper_pearson(successes: int, trials: int, confidence: float) -> tuple[float, float]:
    """The exact two-sided binomial interval for ``successes`` of ``trials``."""
    if trials <= 0:
        raise KGError("an interval needs at least one trial")
    tail = (1.0 - confidence) / 2.0
    low = 0.0 if successes == 0 else float(beta.ppf(tail, successes, trials - successes + 1))
    high = (
        1.0 if successes == trials else float(beta.ppf(1 - tail, successes + 1, trials - successes))
    )
    return low, high


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


class QueryLog:
    """Served queries, their re-checks and feedback, in one SQLite file."""

    def __init__(self, path: str | Path, mode: LogMode = "full") -> None:
        if mode not in LOG_MODES:
            raise KGError(f"invalid query log mode {mode!r}; valid: {', '.join(LOG_MODES)}")
        self.path = Path(path)
        self.mode: LogMode = mode
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self._connect() as db:
            db.executescript(_SCHEMA)

    @contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        db = sqlite3.connect(self.path, timeout=30)
        try:
            with db:
                yield db
        finally:
            db.close()

    def record(self, kg: str, kg_version: str, query: QueryNode, answer: CalibratedAnswer) -> str:
        """Log one served answer; its query id (for feedback)."""
        query_id = uuid.uuid4().hex
        tree = query.model_dump_json()
        gate = answer.gate
        stored = self.mode == "full" and gate.total <= MAX_LOGGED_ANSWERS
        retrieved = returned = None
        if stored:
            ids = gate.entity_ids
            kept = gate.scores >= gate.routing_threshold
            retrieved = json.dumps(sorted(ids[int(i)] for i in gate.indices[kept]))
            returned = json.dumps(sorted(gate.ids))
        with self._connect() as db:
            db.execute(
                "INSERT INTO queries VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    query_id, kg, kg_version, _now(), topology(query),
                    answer.completeness.recall_target,
                    hashlib.sha256(tree.encode()).hexdigest(),
                    tree if self.mode == "full" else None,
                    retrieved, returned, gate.total, int(answer.completeness.abstained),
                ),
            )  # fmt: skip
        return query_id

    def recheck(self, kg: str, store: GraphStore) -> int:
        """Run every logged query of ``kg`` from another version again, retrieval only, on
        ``store``; record its new answers and how many the logged set held. How many
        queries were re-checked."""
        gate = ConformalGate(ScoredGraph(store, None))
        with self._connect() as db:
            pending = db.execute(
                "SELECT id, tree, retrieved, returned FROM queries WHERE kg = ? AND "
                "kg_version != ? AND tree IS NOT NULL AND returned IS NOT NULL AND NOT EXISTS "
                "(SELECT 1 FROM outcomes WHERE query_id = queries.id AND kg_version = ?)",
                (kg, store.version, store.version),
            ).fetchall()
        outcomes = []
        for query_id, tree, retrieved, returned in pending:
            try:
                now = gate.run(parse_query(tree)).ids
            except KGError:  # an anchor the new version no longer holds: nothing to learn
                continue
            new = now - set(json.loads(retrieved))
            covered = len(new & set(json.loads(returned)))
            outcomes.append((query_id, store.version, _now(), len(new), covered))
        with self._connect() as db:
            db.executemany("INSERT OR REPLACE INTO outcomes VALUES (?, ?, ?, ?, ?)", outcomes)
        return len(outcomes)

    def feedback(self, query_id: str, missed: Sequence[str], wrong: Sequence[str]) -> None:
        """Store a user's report on one served answer set (never written into the KG)."""
        if not missed and not wrong:
            raise KGError("feedback needs at least one missed or wrong entity id")
        with self._connect() as db:
            known = db.execute("SELECT 1 FROM queries WHERE id = ?", (query_id,)).fetchone()
            if known is None:
                raise KGError(f"no logged query {query_id!r} (is query logging on?)")
            db.execute(
                "INSERT INTO feedback VALUES (?, ?, ?, ?)",
                (query_id, _now(), json.dumps(sorted(set(missed))), json.dumps(sorted(set(wrong)))),
            )

    def report(
        self, kg: str | None = None, confidence: float = MONITOR_CONFIDENCE
    ) -> MonitorReport:
        """Recall of new answers per (KG, topology, target) and per ingested version."""
        where, args = ("WHERE q.kg = ?", (kg,)) if kg else ("", ())
        with self._connect() as db:
            groups = db.execute(
                f"SELECT q.kg, q.topology, q.target, COUNT(*), "
                "SUM(CASE WHEN q.returned IS NULL AND q.tree IS NOT NULL THEN 1 ELSE 0 END) "
                f"FROM queries q {where} GROUP BY q.kg, q.topology, q.target",
                args,
            ).fetchall()
            outcomes = db.execute(
                f"SELECT q.kg, q.topology, q.target, o.kg_version, MIN(o.at), "
                "SUM(o.new_answers > 0), SUM(o.new_answers), SUM(o.covered) FROM outcomes o "
                f"JOIN queries q ON q.id = o.query_id {where} "
                "GROUP BY q.kg, q.topology, q.target, o.kg_version",
                args,
            ).fetchall()
            feedback = db.execute(
                f"SELECT q.kg, q.topology, q.target, f.missed, f.wrong FROM feedback f "
                f"JOIN queries q ON q.id = f.query_id {where}",
                args,
            ).fetchall()
        rows, unstored = [], 0
        for kg_name, topology_name, target, count, too_large in groups:
            unstored += too_large or 0
            if target is None:
                continue  # fast level: nothing was promised
            mine = [o for o in outcomes if o[:3] == (kg_name, topology_name, target)]
            notes = [f for f in feedback if f[:3] == (kg_name, topology_name, target)]
            missed = sum(len(json.loads(f[3])) for f in notes)
            wrong = sum(len(json.loads(f[4])) for f in notes)
            new = sum(o[6] for o in mine) + missed
            covered = sum(o[7] for o in mine)
            interval = clopper_pearson(covered, new, confidence) if new else None
            rows.append(
                MonitorRow(
                    kg=kg_name, topology=topology_name, target=target, queries=count,
                    queries_with_new_answers=sum(o[5] for o in mine), new_answers=new,
                    covered=covered, missed_by_feedback=missed, wrong_by_feedback=wrong,
                    recall=covered / new if new else None, interval=interval,
                    drift=interval is not None and target > interval[1],
                )
            )  # fmt: skip
        versions: dict[tuple[str, str, float], list[int | str]] = {}
        for kg_name, _, target, version, at, _, new, covered in outcomes:
            if target is None:
                continue
            key = (kg_name, version, target)
            entry = versions.setdefault(key, [at, 0, 0])
            entry[0] = min(str(entry[0]), at)
            entry[1] = int(entry[1]) + new
            entry[2] = int(entry[2]) + covered
        version_rows = [
            VersionRow(
                kg=kg_name, kg_version=version, at=str(at), target=target, new_answers=int(new),
                covered=int(covered), recall=int(covered) / int(new) if new else None,
                interval=clopper_pearson(int(covered), int(new), confidence) if new else None,
            )
            for (kg_name, version, target), (at, new, covered) in versions.items()
        ]  # fmt: skip
        version_rows.sort(key=lambda row: (row.kg, row.target, row.at))
        return MonitorReport(
            mode=self.mode, confidence=confidence, rows=rows, versions=version_rows,
            unstored=unstored,
        )  # fmt: skip


def plot_versions(report: MonitorReport, path: Path) -> Path:
    """Recall of each version's new facts (with its interval) against the target, one
    panel per KG; saved as PNG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    kgs = sorted({row.kg for row in report.versions})
    if not kgs:
        raise KGError("nothing to plot yet: no logged query was re-checked on a new version")
    figure, axes = plt.subplots(1, len(kgs), figsize=(5.5 * len(kgs), 3.8), squeeze=False)
    for axis, kg in zip(axes[0], kgs, strict=True):
        for target in sorted({row.target for row in report.versions if row.kg == kg}):
            rows = [r for r in report.versions if r.kg == kg and r.target == target]
            shown = [(i, r) for i, r in enumerate(rows, start=1) if r.recall is not None]
            xs = [i for i, _ in shown]
            ys = [r.recall for _, r in shown]
            low = [
                r.recall - r.interval[0] for _, r in shown if r.interval and r.recall is not None
            ]
            high = [
                r.interval[1] - r.recall for _, r in shown if r.interval and r.recall is not None
            ]
            line = axis.errorbar(xs, ys, yerr=[low, high], marker="o", capsize=3,
                                 label=f"target {target:.2f}")  # fmt: skip
            axis.axhline(target, linestyle="--", color=line[0].get_color(), linewidth=1)
        axis.set_title(f"{kg}: recall of facts ingested later")
        axis.set_xlabel("KG version (ingestion)")
        axis.set_ylabel(f"covered / new answers ({report.confidence:.0%} CI)")
        axis.set_ylim(0, 1.02)
        axis.legend(loc="lower right", fontsize=8)
    figure.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=120)
    plt.close(figure)
    return path
