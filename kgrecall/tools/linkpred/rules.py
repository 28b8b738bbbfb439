"""Path rules mined from the bound graph: an inductive, training-free completion model.

A rule predicts an edge ``r(x, y)`` from a path of one or two edges between ``x`` and ``y``
(``r(x, y) ← b1(x, z) ∧ b2(z, y)``, each atom a relation or its inverse), as AnyBURL and
AMIE mine them. Its confidence is measured on the graph the model is bound to: of the pairs
the body connects — counting heads that have at least one ``r`` edge, as AMIE's PCA
confidence does — the share that ``r`` connects, smoothed by ``smoothing`` extra body pairs.
Nothing is learned beforehand, so binding to a reduced calibration graph mines that graph's
rules only: no edge the stratum hides is seen (``kg_version`` is ``None``, as for zero-shot
ULTRA).

Scores of a fuzzy input set: each rule carries the set's weights along its body by max-product
(``reach(y) = max_x w(x)·[body connects x and y]``), and the rules combine by noisy-or,
``p(y) = 1 − Π (1 − confidence · reach(y))``. On the biomedical demo KG these rules catch
what ULTRA misses (phenotypes shared through a disease's genes or its parent class), and the
two average well (:class:`~.ensemble.EnsembleCompletion`).
"""

from __future__ import annotations

import json
import time
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from kgrecall.kg import GraphStore, atomic_write_bytes
from kgrecall.tools.linkpred.base import (
    BoundCompletion,
    CompletionModel,
    LinkPredictorError,
    checked_weights,
)

#: One step of a path: a relation, read backwards (tail → head) when the flag is set.
Atom = tuple[str, bool]

FORMAT = "kgrecall-rules"
FORMAT_VERSION = 1


@dataclass(frozen=True)
class Rule:
    """``head ← body``: the body path (one or two atoms) predicts the head atom."""

    head: Atom
    body: tuple[Atom, ...]
    confidence: float
    support: int
    body_pairs: int

    def __str__(self) -> str:
        names = [f"{r}⁻¹" if inverse else r for r, inverse in (self.head, *self.body)]
        return f"{names[0]}(x,y) ← {' ∘ '.join(names[1:])}  conf {self.confidence:.3f}"


@dataclass(frozen=True)
class RuleSettings:
    """What is mined: path length, the least support and confidence a rule needs, the
    smoothing of confidences, the largest body a two-step rule may connect (pairs) and how
    many rules (the most confident) each relation direction keeps."""

    max_length: int = 2
    min_support: int = 2
    min_confidence: float = 0.001
    smoothing: float = 5.0
    max_body_pairs: int = 20_000_000
    max_rules: int = 50

    def __post_init__(self) -> None:
        if self.max_length not in (1, 2):
            raise LinkPredictorError(f"max_length must be 1 or 2, got {self.max_length}")
        if self.min_support < 1:
            raise LinkPredictorError(f"min_support must be ≥ 1, got {self.min_support}")
        if not 0.0 <= self.min_confidence < 1.0:
            raise LinkPredictorError(f"min_confidence must be in [0, 1), got {self.min_confidence}")
        if self.smoothing < 0:
            raise LinkPredictorError(f"smoothing must be ≥ 0, got {self.smoothing}")
        if self.max_body_pairs < 1:
            raise LinkPredictorError(f"max_body_pairs must be ≥ 1, got {self.max_body_pairs}")
        if self.max_rules < 1:
            raise LinkPredictorError(f"max_rules must be ≥ 1, got {self.max_rules}")


class RuleCompletion(CompletionModel):
    """Mines path rules on whatever graph it is bound to; registered as ``rules``."""

    kg_version: str | None = None

    def __init__(self, settings: RuleSettings | None = None) -> None:
        self.settings = settings or RuleSettings()

    @property
    def identifier(self) -> str:
        """``Rules:len<L>:s<support>:c<confidence>:k<smoothing>:b<body pairs>:m<rules>``."""
        s = self.settings
        return (
            f"Rules:len{s.max_length}:s{s.min_support}:c{s.min_confidence:g}:"
            f"k{s.smoothing:g}:b{s.max_body_pairs}:m{s.max_rules}"
        )

    def bind(self, store: GraphStore) -> RuleBound:
        """Mine the rules of ``store`` (its edges, every relation, both directions)."""
        entity_ids = sorted(node.id for node in store.nodes())
        triples = [edge.triple for edge in store.edges()]
        return RuleBound(entity_ids, triples, self.settings)

    def save(self, path: str | Path) -> Path:
        """Write the settings (the model has no weights) atomically as JSON."""
        payload = {"format": FORMAT, "format_version": FORMAT_VERSION, **asdict(self.settings)}
        target = Path(path)
        atomic_write_bytes(target, json.dumps(payload, indent=2).encode())
        return target

    @classmethod
    def load(cls, path: str | Path) -> RuleCompletion:
        """Read a file written by :meth:`save`; any other content is refused by name."""
        source = Path(path)
        try:
            payload = json.loads(source.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise LinkPredictorError(f"{source}: no such rule model file") from None
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
            raise LinkPredictorError(f"{source}: not a rule model file ({error})") from None
        if not isinstance(payload, dict) or payload.get("format") != FORMAT:
            raise LinkPredictorError(f"{source}: not a kgrecall rule model (format {FORMAT!r})")
        if payload.pop("format_version", None) != FORMAT_VERSION:
            raise LinkPredictorError(f"{source}: unsupported rule model format_version")
        payload.pop("format")
        try:
            return cls(RuleSettings(**payload))
        except TypeError as error:
            raise LinkPredictorError(f"{source}: invalid rule settings ({error})") from None


class RuleBound(BoundCompletion):
    """The rules of one graph and its adjacency matrices, scoring over its entities."""

    def __init__(
        self,
        entity_ids: list[str],
        triples: Sequence[tuple[str, str, str]],
        settings: RuleSettings,
    ) -> None:
        start = time.perf_counter()
        self.entity_ids = entity_ids
        self.settings = settings
        n = len(entity_ids)
        position = {entity: i for i, entity in enumerate(entity_ids)}
        pairs: dict[str, tuple[list[int], list[int]]] = defaultdict(lambda: ([], []))
        for head, relation, tail in triples:
            try:
                heads, tails = pairs[relation]
                heads.append(position[head])
                tails.append(position[tail])
            except KeyError as error:
                raise LinkPredictorError(
                    f"edge end {error.args[0]!r} is not among the graph's entities"
                ) from None
        #: Binary adjacency per atom: row x, column y when the atom leads from x to y.
        self.adjacency: dict[Atom, sp.csr_matrix] = {}
        for relation, (heads, tails) in pairs.items():
            matrix = sp.csr_matrix(
                (np.ones(len(heads), dtype=np.float32), (heads, tails)), shape=(n, n)
            )
            matrix.sum_duplicates()
            matrix.data[:] = 1.0
            self.adjacency[(relation, False)] = matrix
            self.adjacency[(relation, True)] = matrix.T.tocsr()
        #: Bodies left out because they connect more than ``max_body_pairs`` pairs.
        self.skipped: list[tuple[Atom, ...]] = []
        self.rules: dict[Atom, list[Rule]] = self._mine()
        self.mining_seconds = time.perf_counter() - start

    # -- mining ---------------------------------------------------------------------------------
    def _bodies(self) -> list[tuple[Atom, ...]]:
        atoms = sorted(self.adjacency)
        bodies: list[tuple[Atom, ...]] = [(atom,) for atom in atoms]
        if self.settings.max_length == 2:
            bodies += [(first, second) for first in atoms for second in atoms]
        return bodies

    def _body_matrix(self, body: tuple[Atom, ...]) -> sp.csr_matrix | None:
        """Pairs the body connects (binary, no x = y), or None when too many to count."""
        if len(body) == 1:
            matrix = self.adjacency[body[0]].copy()
        else:
            first, second = (self.adjacency[atom] for atom in body)
            # an upper bound of the pairs: paths through each middle entity
            paths = float(np.asarray(first.sum(0)).ravel() @ np.asarray(second.sum(1)).ravel())
            if paths == 0:
                return None
            if paths > self.settings.max_body_pairs:
                self.skipped.append(body)
                return None
            matrix = (first @ second).tocsr()
            matrix.data[:] = 1.0
        matrix.setdiag(0)
        matrix.eliminate_zeros()
        return matrix

    def _mine(self) -> dict[Atom, list[Rule]]:
        """Every body is built once and scored against every head atom at once: its support
        for a head is how many of the head's edges it connects, its body pairs how many pairs
        it connects from entities that have a head edge."""
        heads = sorted(self.adjacency)
        # every edge of every head atom, as (x, y) rows with the head's number
        edge_x, edge_y, edge_head = [], [], []
        for number, atom in enumerate(heads):
            x, y = self.adjacency[atom].nonzero()
            edge_x.append(x)
            edge_y.append(y)
            edge_head.append(np.full(len(x), number))
        n = len(self.entity_ids)
        keys = np.concatenate(edge_x).astype(np.int64) * n + np.concatenate(edge_y)
        order = np.argsort(keys, kind="stable")
        keys, owner = keys[order], np.concatenate(edge_head)[order]
        # has_edge[h, x]: entity x has at least one edge of head atom h
        has_edge = np.stack([np.diff(self.adjacency[atom].indptr) > 0 for atom in heads]).astype(
            np.float64
        )
        found: dict[Atom, list[Rule]] = {atom: [] for atom in heads}
        for body in self._bodies():
            matrix = self._body_matrix(body)
            if matrix is None or matrix.nnz == 0:
                continue
            matrix.sort_indices()
            rows = np.repeat(np.arange(n, dtype=np.int64), np.diff(matrix.indptr))
            connected_keys = rows * n + matrix.indices  # sorted: rows, then sorted columns
            found_at = np.minimum(np.searchsorted(connected_keys, keys), len(connected_keys) - 1)
            connected = connected_keys[found_at] == keys
            counts = np.bincount(owner[connected], minlength=len(heads))
            body_pairs = has_edge @ np.diff(matrix.indptr)
            for number in np.flatnonzero(counts >= self.settings.min_support).tolist():
                head = heads[number]
                if body == (head,):
                    continue  # an edge does not predict itself
                support, pairs = int(counts[number]), int(body_pairs[number])
                confidence = support / (pairs + self.settings.smoothing)
                if confidence >= self.settings.min_confidence:
                    found[head].append(Rule(head, body, confidence, support, pairs))
        return {
            head: sorted(rules, key=lambda rule: (-rule.confidence, rule.body))[
                : self.settings.max_rules
            ]
            for head, rules in found.items()
        }

    # -- scoring --------------------------------------------------------------------------------
    def knows(self, relation: str) -> bool:
        """Whether ``relation`` has edges in the bound graph."""
        return (relation, False) in self.adjacency

    def covers(self, relation: str, *, inverse: bool) -> bool:
        """Whether any rule predicts ``relation`` in that direction."""
        return bool(self.rules.get((relation, inverse)))

    def project(self, weights: np.ndarray, relation: str, *, inverse: bool) -> np.ndarray:
        """Noisy-or over the rules of ``relation`` (its inverse when ``inverse``) of each
        rule's confidence times the max-product reach of ``weights`` along its body. A single
        input is never its own answer (rules were mined without x = y)."""
        values = checked_weights(weights, len(self.entity_ids))
        if not self.knows(relation):
            valid = ", ".join(sorted({r for r, _ in self.adjacency})) or "none"
            raise LinkPredictorError(f"unknown relation {relation!r}: the graph has {valid}")
        rules = self.rules[(relation, inverse)]
        self.last_note = None if rules else f"no rule predicts {relation!r} in this direction"
        survive = np.ones(len(values), dtype=np.float64)
        inputs = np.flatnonzero(values > 0)
        for rule in rules:
            reach = values
            for atom in rule.body:
                reach = _max_product(reach, self.adjacency[atom])
            if len(inputs) == 1:
                reach[inputs[0]] = 0.0
            survive *= 1.0 - rule.confidence * reach
        return (1.0 - survive).astype(np.float32)


def _max_product(weights: np.ndarray, adjacency: sp.csr_matrix) -> np.ndarray:
    """``out[y] = max_x weights[x] · adjacency[x, y]`` for a binary CSR ``adjacency``."""
    rows = np.flatnonzero(weights > 0)
    out = np.zeros(adjacency.shape[1], dtype=np.float64)
    if len(rows) == 0:
        return out
    block = adjacency[rows]
    np.maximum.at(out, block.indices, np.repeat(weights[rows], np.diff(block.indptr)))
    return out
