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
two combine well (:class:`~.ensemble.EnsembleCompletion`).

**Shared identifiers.** Besides the relations, a body may step between two entities that
share an identifier: one lists the other's id among its ``xrefs``, or both list the same one
(an OMIM and an Orphanet record of one MONDO disease; a gene and the UniProt protein HGNC
names for it). The step is the virtual atom :data:`SHARED_IDENTIFIER`, symmetric and never
predicted itself. Node properties are not hidden by calibration, so a stratum keeps it: a
gene–disease edge missing from one record of a disease is predicted from the other record
(on the demo KG twin records share 92 % of their genes and, by construction, their parents).
Likewise :data:`SIMILAR_NAME` steps to an entity's most similarly named entities, so a
numbered disease series or a ligand family named for one growth factor shares its edges.
"""

from __future__ import annotations

import json
import re
import threading
import time
import weakref
from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from kgrecall.kg import GraphStore, Node, atomic_write_bytes
from kgrecall.kg.derived import cached_derivation
from kgrecall.tools.linkpred.base import (
    BoundCompletion,
    CompletionModel,
    LinkPredictorError,
    checked_weights,
)

if TYPE_CHECKING:  # scipy is imported where a matrix is built: `kgrecall ground` needs none
    import scipy.sparse as sp

#: One step of a path: a relation, read backwards (tail → head) when the flag is set.
Atom = tuple[str, bool]

#: Bodies scored together: their atoms, then support and body pairs as [head, body] arrays.
ScoredBodies = tuple[list[tuple[Atom, ...]], np.ndarray, np.ndarray]
#: The virtual atom "shares an identifier with" (not a valid relation name, so no clash).
SHARED_IDENTIFIER: Atom = ("=xref", False)
#: The virtual atom "is among the most similarly named entities of" (read both ways).
SIMILAR_NAME: Atom = ("~name", False)
#: Two names closer than this (TF-IDF cosine of their words) are not similar at all.
MIN_NAME_SIMILARITY = 0.2
#: An identifier listed by more entities than this names a group, not one thing: skipped.
MAX_IDENTIFIER_GROUP = 8
#: Graphs with at most this many entities are mined with dense arrays (same rules, faster).
DENSE_MINING_MAX_ENTITIES = 200
_WORD = re.compile(r"[a-z0-9]+")
_SIMILARITY_CHUNK = 512
FORMAT = "kgrecall-rules"
FORMAT_VERSION = 1
#: Graphs whose mined rules a cache folder keeps: served KGs and a calibration's strata.
MINED_GRAPHS_KEPT = 8


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
    smoothing of confidences, the largest body a two-step rule may connect (pairs), how
    many rules (the most confident) each relation direction keeps, whether bodies may step
    between entities that share an identifier (:data:`SHARED_IDENTIFIER`), and to how many
    of each entity's most similarly named entities they may step (:data:`SIMILAR_NAME`; 0:
    never)."""

    max_length: int = 2
    min_support: int = 2
    min_confidence: float = 0.001
    smoothing: float = 5.0
    max_body_pairs: int = 20_000_000
    max_rules: int = 50
    shared_identifiers: bool = True
    #: 10: on the demo KG 5 gave smaller 1p sets on one split and larger ones on another.
    similar_names: int = 10

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
        if self.similar_names < 0:
            raise LinkPredictorError(f"similar_names must be ≥ 0, got {self.similar_names}")


class RuleCompletion(CompletionModel):
    """Mines path rules on whatever graph it is bound to; registered as ``rules``."""

    kg_version: str | None = None

    def __init__(
        self, settings: RuleSettings | None = None, *, cache_home: Path | None = None
    ) -> None:
        """``cache_home``: a folder (the service passes its workspace) whose ``derived/`` keeps
        the mined rules of the last :data:`MINED_GRAPHS_KEPT` graph versions bound, for the
        next process (mining the demo KG takes seconds, reading them back a fraction); None
        mines in every process."""
        self.settings = settings or RuleSettings()
        self.cache_home = cache_home
        # Mined rules per graph, held as long as the graph and reused while its version is
        # unchanged: calibrating nine topologies on one reduced graph mines it once.
        self._bound: weakref.WeakKeyDictionary[GraphStore, tuple[str, RuleBound]] = (
            weakref.WeakKeyDictionary()
        )
        self._lock = threading.Lock()

    @property
    def identifier(self) -> str:
        """``Rules:len<L>:s<support>:c<confidence>:k<smoothing>:b<body pairs>:m<rules>``,
        with ``:x`` when bodies step through shared identifiers and ``:n<k>`` through each
        entity's ``k`` most similar names."""
        s = self.settings
        return (
            f"Rules:len{s.max_length}:s{s.min_support}:c{s.min_confidence:g}:"
            f"k{s.smoothing:g}:b{s.max_body_pairs}:m{s.max_rules}"
            + (":x" if s.shared_identifiers else "")
            + (f":n{s.similar_names}" if s.similar_names else "")
        )

    def bind(self, store: GraphStore) -> RuleBound:
        """Mine the rules of ``store`` (its edges, every relation, both directions); the same
        rules again while the store's version is unchanged."""
        version = store.version
        with self._lock:
            cached = self._bound.get(store)
            if cached is not None and cached[0] == version:
                return cached[1]
        if self.cache_home is None:
            bound = self._bind_anew(store)
        else:
            bound = cached_derivation(
                "rules",
                lambda: self._bind_anew(store),
                sources=(),
                code=(Path(__file__),),
                home=self.cache_home,
                salt=(self.identifier, version),
                keep=MINED_GRAPHS_KEPT,
            )
        with self._lock:
            self._bound[store] = (version, bound)
        return bound

    def _bind_anew(self, store: GraphStore) -> RuleBound:
        nodes = list(store.nodes())
        entity_ids = sorted(node.id for node in nodes)
        triples = [edge.triple for edge in store.edges()]
        links = {}
        if self.settings.shared_identifiers:
            links[SHARED_IDENTIFIER] = shared_identifier_pairs(nodes)
        if self.settings.similar_names:
            links[SIMILAR_NAME] = similar_name_pairs(nodes, self.settings.similar_names)
        return RuleBound(entity_ids, triples, self.settings, links=links)

    def save(self, path: str | Path) -> Path:
        """Write the settings (the model has no weights) atomically as JSON."""
        payload = {"format": FORMAT, "format_version": FORMAT_VERSION, **asdict(self.settings)}
        target = Path(path)
        atomic_write_bytes(target, json.dumps(payload, indent=2).encode())
        return target

    @classmethod
    def load(cls, path: str | Path, *, cache_home: Path | None = None) -> RuleCompletion:
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
            return cls(RuleSettings(**payload), cache_home=cache_home)
        except TypeError as error:
            raise LinkPredictorError(f"{source}: invalid rule settings ({error})") from None


class RuleBound(BoundCompletion):
    """The rules of one graph and its adjacency matrices, scoring over its entities."""

    def __init__(
        self,
        entity_ids: list[str],
        triples: Sequence[tuple[str, str, str]],
        settings: RuleSettings,
        *,
        links: Mapping[Atom, Sequence[tuple[str, str]]] | None = None,
    ) -> None:
        """``links``: entity pairs of each virtual body atom (:data:`SHARED_IDENTIFIER`,
        :data:`SIMILAR_NAME`), read both ways; no rule predicts them."""
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
            matrix = _binary_matrix(heads, tails, n)
            self.adjacency[(relation, False)] = matrix
            self.adjacency[(relation, True)] = matrix.T.tocsr()
        #: The relation atoms a rule may predict; bodies may also use the entity links.
        self.heads: list[Atom] = sorted(self.adjacency)
        for atom, linked in (links or {}).items():
            self.adjacency[atom] = _symmetric_matrix(linked, position)
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
        """Every body is scored against every head atom at once: its support for a head is how
        many of the head's edges it connects, its body pairs how many pairs it connects from
        entities that have a head edge. Small graphs take dense arrays (thousands of tiny
        bodies), others sparse matrices; both give the same rules."""
        heads = self.heads
        if not heads:
            return {}
        scored = (
            self._score_bodies_dense(heads)
            if len(self.entity_ids) <= DENSE_MINING_MAX_ENTITIES
            else self._score_bodies_sparse(heads)
        )
        smoothing, min_confidence = self.settings.smoothing, self.settings.min_confidence
        every_body: list[tuple[Atom, ...]] = []
        kept: list[tuple[np.ndarray, ...]] = []  # head number, body number, confidence, …
        for bodies, support, pairs in scored:  # support, pairs: [head, body]
            counts, body_pairs = support.astype(np.float64), pairs.astype(np.float64)
            confidence = counts / (body_pairs + smoothing)
            keep = (counts >= self.settings.min_support) & (confidence >= min_confidence)
            for column, body in enumerate(bodies):
                if len(body) == 1 and body[0] in heads:  # an edge does not predict itself
                    keep[heads.index(body[0]), column] = False
            numbers, columns = np.nonzero(keep)
            kept.append(
                (numbers, columns + len(every_body), confidence[numbers, columns],
                 counts[numbers, columns], body_pairs[numbers, columns])
            )  # fmt: skip
            every_body.extend(bodies)
        if not every_body:
            return {atom: [] for atom in heads}
        numbers, body_numbers, confidence, counts, body_pairs = (
            np.concatenate(column) for column in zip(*kept, strict=True)
        )
        # best first within each head: highest confidence, then the body's sort order
        body_rank = np.empty(len(every_body), dtype=np.int64)
        body_rank[sorted(range(len(every_body)), key=every_body.__getitem__)] = np.arange(
            len(every_body)
        )
        order = np.lexsort((body_rank[body_numbers], -confidence, numbers))
        place = np.arange(len(order)) - np.searchsorted(numbers[order], numbers[order])
        found: dict[Atom, list[Rule]] = {atom: [] for atom in heads}
        for i in order[place < self.settings.max_rules].tolist():
            head = heads[numbers[i]]
            found[head].append(
                Rule(head, every_body[body_numbers[i]], float(confidence[i]), int(counts[i]),
                     int(body_pairs[i]))
            )  # fmt: skip
        return found

    def _score_bodies_sparse(self, heads: list[Atom]) -> Iterator[ScoredBodies]:
        """(bodies, support, body pairs) for each body with pairs, one at a time; support and
        body pairs are ``[head, body]`` arrays."""
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
        for body in self._bodies():
            matrix = self._body_matrix(body)
            if matrix is None or matrix.nnz == 0:
                continue
            matrix.sort_indices()
            rows = np.repeat(np.arange(n, dtype=np.int64), np.diff(matrix.indptr))
            connected_keys = rows * n + matrix.indices  # sorted: rows, then sorted columns
            found_at = np.minimum(np.searchsorted(connected_keys, keys), len(connected_keys) - 1)
            connected = connected_keys[found_at] == keys
            counts = np.bincount(owner[connected], minlength=len(heads)).astype(np.float64)
            yield [body], counts[:, None], (has_edge @ np.diff(matrix.indptr))[:, None]

    def _score_bodies_dense(self, heads: list[Atom]) -> Iterator[ScoredBodies]:
        """As :meth:`_score_bodies_sparse`, with the same bodies and skips, in batches: the
        length-1 bodies, then the length-2 bodies of each first atom as one product."""
        atoms = sorted(self.adjacency)  # the heads and the virtual link atoms
        n, k = len(self.entity_ids), len(atoms)
        adjacency = np.stack([self.adjacency[atom].toarray() for atom in atoms]).astype(np.float32)
        head_rows = [atoms.index(atom) for atom in heads]
        flat = adjacency[head_rows].reshape(len(heads), n * n)
        off_diagonal = 1.0 - np.eye(n, dtype=np.float32)
        has_edge = (adjacency[head_rows].sum(2) > 0).astype(np.float32)
        singles = adjacency * off_diagonal
        present = np.flatnonzero(singles.reshape(k, -1).any(1))
        yield (
            [(atoms[i],) for i in present],
            flat @ singles[present].reshape(len(present), n * n).T,
            has_edge @ singles[present].sum(2).T,
        )
        if self.settings.max_length < 2:
            return
        in_degree, out_degree = adjacency.sum(1), adjacency.sum(2)
        for first in range(k):
            # an upper bound of the pairs of (first, second): paths through each middle entity
            paths = out_degree @ in_degree[first]
            bodies = (np.matmul(adjacency[first], adjacency) > 0) * off_diagonal
            too_many = paths > self.settings.max_body_pairs
            self.skipped.extend((atoms[first], atoms[i]) for i in np.flatnonzero(too_many))
            kept = np.flatnonzero((paths > 0) & ~too_many & bodies.reshape(k, -1).any(1))
            yield (
                [(atoms[first], atoms[i]) for i in kept],
                flat @ bodies[kept].reshape(len(kept), n * n).T,
                has_edge @ bodies[kept].sum(2).T,
            )

    # -- scoring --------------------------------------------------------------------------------
    def knows(self, relation: str) -> bool:
        """Whether ``relation`` has edges in the bound graph."""
        return (relation, False) in self.heads

    def covers(self, relation: str, *, inverse: bool) -> bool:
        """Whether any rule predicts ``relation`` in that direction."""
        return bool(self.rules.get((relation, inverse)))

    def project(self, weights: np.ndarray, relation: str, *, inverse: bool) -> np.ndarray:
        """Noisy-or over the rules of ``relation`` (its inverse when ``inverse``) of each
        rule's confidence times the max-product reach of ``weights`` along its body. A single
        input is never its own answer (rules were mined without x = y)."""
        values = checked_weights(weights, len(self.entity_ids))
        if not self.knows(relation):
            valid = ", ".join(sorted({r for r, _ in self.heads})) or "none"
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


def shared_identifier_pairs(nodes: Iterable[Node]) -> list[tuple[str, str]]:
    """Pairs of entities that share an identifier: one lists the other's id among its
    ``xrefs`` property, or both list the same one. An identifier listed by more than
    :data:`MAX_IDENTIFIER_GROUP` entities is left out (it names a group, not one thing)."""
    holders: dict[str, set[str]] = defaultdict(set)
    for node in nodes:
        holders[node.id].add(node.id)
        xrefs = node.properties.get("xrefs", ())
        if isinstance(xrefs, str):
            xrefs = (xrefs,)
        for xref in xrefs:
            holders[str(xref)].add(node.id)
    pairs: set[tuple[str, str]] = set()
    for group in holders.values():
        if 2 <= len(group) <= MAX_IDENTIFIER_GROUP:
            members = sorted(group)
            pairs.update((a, b) for i, a in enumerate(members) for b in members[i + 1 :])
    return sorted(pairs)


def similar_name_pairs(nodes: Iterable[Node], k: int) -> list[tuple[str, str]]:
    """Each entity paired with its ``k`` most similarly named entities: cosine of TF-IDF
    vectors of the lowercase words of name and synonyms, at least
    :data:`MIN_NAME_SIMILARITY` ("Parkinson disease 13" and "Parkinson disease 4", a
    receptor and its ligand named for one growth factor)."""
    listed = sorted(nodes, key=lambda node: node.id)
    documents = [
        sorted({w for text in (n.name, *n.synonyms) for w in _WORD.findall(text.lower())})
        for n in listed
    ]
    vocabulary: dict[str, int] = {}
    rows, columns = [], []
    for row, words in enumerate(documents):
        for word in words:
            rows.append(row)
            columns.append(vocabulary.setdefault(word, len(vocabulary)))
    if not rows or k == 0:
        return []
    import scipy.sparse as sp

    n = len(listed)
    counts = sp.csr_matrix(
        (np.ones(len(rows), dtype=np.float32), (rows, columns)), shape=(n, len(vocabulary))
    )
    frequency = np.asarray(counts.sum(0)).ravel()
    tfidf = counts @ sp.diags(np.log(n / frequency).astype(np.float32))
    norms = np.sqrt(np.asarray(tfidf.multiply(tfidf).sum(1)).ravel())
    tfidf = sp.diags(1.0 / np.maximum(norms, 1e-12)) @ tfidf
    tfidf = tfidf.tocsr()
    transposed = tfidf.T.tocsc()
    pairs: set[tuple[str, str]] = set()
    for start in range(0, n, _SIMILARITY_CHUNK):
        block = (tfidf[start : start + _SIMILARITY_CHUNK] @ transposed).toarray()
        for offset, similarity in enumerate(block):
            row = start + offset
            similarity[row] = 0.0
            best = np.argpartition(-similarity, min(k, n - 1) - 1)[:k] if n > k else np.arange(n)
            for column in best[similarity[best] >= MIN_NAME_SIMILARITY].tolist():
                a, b = listed[row].id, listed[column].id
                pairs.add((a, b) if a < b else (b, a))
    return sorted(pairs)


def _symmetric_matrix(
    pairs: Sequence[tuple[str, str]], position: Mapping[str, int]
) -> sp.csr_matrix:
    """The binary adjacency of ``pairs`` read both ways (no self-pairs)."""
    n = len(position)
    unknown = {end for pair in pairs for end in pair} - position.keys()
    if unknown:
        raise LinkPredictorError(
            f"linked entity {min(unknown)!r} is not among the graph's entities"
        )
    ends = np.array([[position[a], position[b]] for a, b in pairs if a != b], dtype=np.int64)
    ends = ends.reshape(-1, 2)  # also when there are no pairs
    rows, columns = np.concatenate([ends, ends[:, ::-1]]).T
    return _binary_matrix(rows, columns, n)


def _binary_matrix(rows: Sequence[int], columns: Sequence[int], n: int) -> sp.csr_matrix:
    """An ``n × n`` CSR matrix with 1 at each (row, column), duplicates counted once."""
    import scipy.sparse as sp

    matrix = sp.csr_matrix((np.ones(len(rows), dtype=np.float32), (rows, columns)), shape=(n, n))
    matrix.sum_duplicates()
    matrix.data[:] = 1.0
    return matrix
