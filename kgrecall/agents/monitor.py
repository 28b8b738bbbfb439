"""The recall users actually get: a log of served queries, re-checked when new facts arrive,
plus user feedback, summarised per topology and target with confidence intervals.

Edges ingested after a query was answered, and that answer it, are exactly the "missing
literature" a recall guarantee is about. With logging on (opt-in: ``full``), each answer set
served at a calibrated level is stored with the answers retrieval alone found. After an
ingestion every logged query of an earlier version is executed again, retrieval only, on the
new version: its answers there are the truth as now known, and the query's recall is the share
of them the set served back then held (its *new* answers — retrieved now, not then — are the
facts the KG lacked). Feedback (``missed`` / ``wrong`` entity ids for a query id) adds missed
answers the set did not hold; it is stored, never written into the KG.

The guarantee is on expected recall per query, so the monitor reports, per (KG, topology,
recall target) — over all its queries, and per set of relations asked about, where a shift
concentrated on one relation shows — the mean per-query recall with a Student-t interval,
and flags ``drift`` when the target lies above it. Beside it: the answers pooled over
queries (covered / known) with an exact binomial (Clopper–Pearson) interval, and the new
answers alone. Recall is measured
against the truth known so far, which grows with each ingestion. ``hashed`` logging keeps only
a digest of each query (not its answers): feedback is counted, recall cannot be.
"""

from __future__ import annotations

import hashlib
import json
import math
import sqlite3
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel

from kgrecall.calibration import CalibratedAnswer, ConformalGate, ScoredGraph
from kgrecall.errors import NotFoundError
from kgrecall.kg import GraphStore, KGError
from kgrecall.tools import QueryNode, parse_query, topology

LogMode = Literal["off", "hashed", "full"]
LOG_MODES: tuple[LogMode, ...] = ("off", "hashed", "full")
QUERY_LOG_FILE = "querylog.sqlite"
#: The monitor row of every query of a topology, whatever relations it asks about.
ALL_RELATIONS = "*"
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
    answers INTEGER NOT NULL, covered INTEGER NOT NULL,
    new_answers INTEGER NOT NULL, new_covered INTEGER NOT NULL,
    PRIMARY KEY (query_id, kg_version)
);
CREATE TABLE IF NOT EXISTS feedback (
    query_id TEXT NOT NULL, at TEXT NOT NULL, missed TEXT NOT NULL, wrong TEXT NOT NULL
);
"""


class Estimate(BaseModel):
    """A recall estimate: its value, interval and the sample behind it."""

    value: float
    interval: tuple[float, float]
    n: int


class MonitorRow(BaseModel):
    """Recall users got for one (KG, topology, target) — all its queries, or those asking
    about one set of relations — against the truth known now."""

    kg: str
    topology: str
    #: the relations the queries ask about, comma-separated ("*": every query)
    relations: str
    target: float
    queries: int
    #: mean per-query recall (what the guarantee is about), Student-t interval
    recall: Estimate | None
    #: answers pooled over queries: covered / known, Clopper–Pearson interval
    pooled: Estimate | None
    #: the facts ingested after the queries: covered / new, Clopper–Pearson interval
    new_facts: Estimate | None
    missed_by_feedback: int
    wrong_by_feedback: int
    #: logged sets too large to store (not re-checked)
    unstored: int
    drift: bool


class VersionRow(BaseModel):
    """Recall of the queries logged before one KG version, against that version's answers."""

    kg: str
    kg_version: str
    at: str
    target: float
    recall: Estimate
    new_facts: Estimate | None


class MonitorReport(BaseModel):
    mode: LogMode
    confidence: float
    rows: list[MonitorRow]
    versions: list[VersionRow]


def mean_estimate(values: Sequence[float], confidence: float) -> Estimate | None:
    """The mean of ``values`` with a two-sided Student-t interval (clipped to [0, 1])."""
    if not values:
        return None
    mean = sum(values) / len(values)
    if len(values) == 1:
        return Estimate(value=mean, interval=(0.0, 1.0), n=1)
    from scipy.stats import t  # ~0.7 s to import: only when a monitor report is made

    variance = sum((v - mean) ** 2 for v in values) / (len(values) - 1)
    quantile = float(t.ppf(0.5 + confidence / 2, len(values) - 1))
    half = quantile * math.sqrt(variance / len(values))
    return Estimate(
        value=mean, interval=(max(0.0, mean - half), min(1.0, mean + half)), n=len(values)
    )


def binomial_estimate(successes: int, trials: int, confidence: float) -> Estimate | None:
    """``successes / trials`` with its Clopper–Pearson interval (None without trials)."""
    if trials == 0:
        return None
    interval = clopper_pearson(successes, trials, confidence)
    return Estimate(value=successes / trials, interval=interval, n=trials)


def _relations(tree: dict[str, Any]) -> set[str]:
    """The relations a logged query tree projects along."""
    found = {tree["relation"]} if "relation" in tree else set()
    for child in [tree.get("input"), *tree.get("inputs", [])]:
        if isinstance(child, dict):
            found |= _relations(child)
    return found


def clopper_pearson(successes: int, trials: int, confidence: float) -> tuple[float, float]:
    """The exact two-sided binomial interval for ``successes`` of ``trials``."""
    if trials <= 0:
        raise KGError("an interval needs at least one trial")
    from scipy.stats import beta

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
        ``store``; record its answers there, its new answers, and how many of each the
        logged set held. How many queries were re-checked."""
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
            except (KGError, NotFoundError):  # an anchor or relation the version lacks
                continue
            served = set(json.loads(returned))
            new = now - set(json.loads(retrieved))
            outcomes.append(
                (query_id, store.version, _now(), len(now), len(now & served), len(new),
                 len(new & served))
            )  # fmt: skip
        with self._connect() as db:
            db.executemany("INSERT OR REPLACE INTO outcomes VALUES (?, ?, ?, ?, ?, ?, ?)", outcomes)
        return len(outcomes)

    def feedback(self, query_id: str, missed: Sequence[str], wrong: Sequence[str]) -> None:
        """Store a user's report on one served answer set (never written into the KG)."""
        if not missed and not wrong:
            raise KGError("feedback needs at least one missed or wrong entity id")
        with self._connect() as db:
            known = db.execute("SELECT 1 FROM queries WHERE id = ?", (query_id,)).fetchone()
            if known is None:
                raise NotFoundError(f"no logged query {query_id!r} (is query logging on?)")
            db.execute(
                "INSERT INTO feedback VALUES (?, ?, ?, ?)",
                (query_id, _now(), json.dumps(sorted(set(missed))), json.dumps(sorted(set(wrong)))),
            )

    def report(
        self, kg: str | None = None, confidence: float = MONITOR_CONFIDENCE
    ) -> MonitorReport:
        """Recall per (KG, topology, target) and per ingested version."""
        where, args = ("WHERE kg = ?", (kg,)) if kg else ("", ())
        with self._connect() as db:
            queries = db.execute(
                "SELECT id, kg, topology, target, tree IS NOT NULL, retrieved, returned, tree "
                f"FROM queries {where}",
                args,
            ).fetchall()
            outcomes = db.execute(
                "SELECT query_id, kg_version, at, answers, covered, new_answers, new_covered "
                "FROM outcomes ORDER BY at"
            ).fetchall()
            feedback = db.execute("SELECT query_id, missed, wrong FROM feedback").fetchall()
        latest = {row[0]: row for row in outcomes}  # ordered by time: the last one wins
        missed: dict[str, set[str]] = {}
        wrong: dict[str, int] = {}
        for query_id, missed_ids, wrong_ids in feedback:
            missed.setdefault(query_id, set()).update(json.loads(missed_ids))
            wrong[query_id] = wrong.get(query_id, 0) + len(json.loads(wrong_ids))
        groups: dict[tuple[str, str, str, float], list[tuple[Any, ...]]] = {}
        owners: dict[str, tuple[str, float]] = {}
        for query in queries:
            if query[3] is not None:  # fast level: nothing was promised
                groups.setdefault((query[1], query[2], ALL_RELATIONS, query[3]), []).append(query)
                if query[7] is not None:  # and by the relations it asks about
                    relations = ",".join(sorted(_relations(json.loads(query[7]))))
                    groups.setdefault((query[1], query[2], relations, query[3]), []).append(query)
                owners[query[0]] = (query[1], query[3])
        rows = []
        for (kg_name, topology_name, relations, target), members in sorted(groups.items()):
            recalls: list[float] = []
            known = covered = new = new_covered = unstored = 0
            for query_id, _, _, _, full, retrieved, returned, _ in members:
                if returned is None:
                    unstored += bool(full)
                    continue
                served = set(json.loads(returned))
                outcome = latest.get(query_id)
                if outcome is None:
                    answers = hits = len(json.loads(retrieved))
                else:
                    answers, hits = outcome[3], outcome[4]
                    new += outcome[5]
                    new_covered += outcome[6]
                extra = len(missed.get(query_id, set()) - served)
                answers += extra
                new += extra
                if answers:
                    recalls.append(hits / answers)
                    known += answers
                    covered += hits
            recall = mean_estimate(recalls, confidence)
            rows.append(
                MonitorRow(
                    kg=kg_name, topology=topology_name, relations=relations, target=target,
                    queries=len(members),
                    recall=recall, pooled=binomial_estimate(covered, known, confidence),
                    new_facts=binomial_estimate(new_covered, new, confidence),
                    missed_by_feedback=sum(len(missed.get(m[0], ())) for m in members),
                    wrong_by_feedback=sum(wrong.get(m[0], 0) for m in members),
                    unstored=unstored,
                    drift=recall is not None and target > recall.interval[1],
                )
            )  # fmt: skip
        per_version: dict[tuple[str, str, float], list[tuple[Any, ...]]] = {}
        for outcome in outcomes:
            owner = owners.get(outcome[0])
            if owner is not None:
                per_version.setdefault((owner[0], outcome[1], owner[1]), []).append(outcome)
        versions = []
        for (kg_name, version, target), members in per_version.items():
            version_recall = mean_estimate([o[4] / o[3] for o in members if o[3]], confidence)
            if version_recall is None:
                continue
            versions.append(
                VersionRow(
                    kg=kg_name, kg_version=version, at=min(o[2] for o in members),
                    target=target, recall=version_recall,
                    new_facts=binomial_estimate(
                        sum(o[6] for o in members), sum(o[5] for o in members), confidence
                    ),
                )
            )  # fmt: skip
        versions.sort(key=lambda row: (row.kg, row.target, row.at))
        return MonitorReport(mode=self.mode, confidence=confidence, rows=rows, versions=versions)


def plot_versions(report: MonitorReport, path: Path) -> Path:
    """Mean recall of the logged queries at each ingested version (with its interval)
    against the target, one panel per KG; saved as PNG."""
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
            values = [r.recall.value for r in rows]
            low = [r.recall.value - r.recall.interval[0] for r in rows]
            high = [r.recall.interval[1] - r.recall.value for r in rows]
            line = axis.errorbar(range(1, len(rows) + 1), values, yerr=[low, high], marker="o",
                                 capsize=3, label=f"target {target:.2f}")  # fmt: skip
            axis.axhline(target, linestyle="--", color=line[0].get_color(), linewidth=1)
        axis.set_title(f"{kg}: recall against the facts known at each version")
        axis.set_xlabel("KG version (ingestion)")
        axis.set_ylabel(f"mean recall per query ({report.confidence:.0%} CI)")
        axis.set_ylim(0, 1.02)
        axis.legend(loc="lower right", fontsize=8)
    figure.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=120)
    plt.close(figure)
    return path
