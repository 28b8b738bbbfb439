"""Synthetic calibration data: hide edges of the observed KG, ask, and know the answers.

From an observed KG ``O``: hide a fraction of its edges to get a reduced KG ``R``; sample
queries of a topology grounded in ``O`` (answers = ``O``'s answers, the "truth"); the
retrieval-only answers are ``R``'s. Whatever ``R`` misses is what the neural part must
recover — so a link predictor used on these queries must be trained on ``R`` (or cross-fit),
never on ``O``: otherwise it has seen the hidden edges and the calibrated guarantee is false.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

import numpy as np
from tqdm import tqdm

from kgrecall.kg import GraphStore, KGError, NetworkXStore, Triple
from kgrecall.tools import QueryNode, execute_sets, sample_query

#: Default range of the hidden-edge fraction; each calibration set draws one value from it.
DEFAULT_HIDE_RANGE = (0.1, 0.4)


@dataclass(frozen=True, slots=True)
class CalibrationQuery:
    """A query with its true answers (observed KG) and what retrieval alone finds (reduced)."""

    query: QueryNode
    topology: str
    answers: frozenset[str]
    retrieved: frozenset[str]

    @property
    def hard_answers(self) -> frozenset[str]:
        """True answers that only hidden edges lead to."""
        return self.answers - self.retrieved


@dataclass(frozen=True, slots=True)
class CalibrationSet:
    """Queries of one topology on one reduced KG, and how it was made."""

    topology: str
    reduced: NetworkXStore
    hidden: frozenset[Triple]
    hide_fraction: float
    queries: list[CalibrationQuery]
    seed: int


def hide_edges(
    observed: GraphStore, fraction: float, rng: random.Random
) -> tuple[NetworkXStore, frozenset[Triple]]:
    """A copy of ``observed`` without about ``fraction`` of its edges, hidden fact by fact.

    A fact is everything the KG says between two entities: an edge and its reverse partner
    (``A interacts_with B`` and ``B interacts_with A``, or ``A treats B`` and ``B treated_by
    A``) go missing together, as they do when the paper behind them was never curated —
    hiding one and keeping the other would let a model read the answer off the survivor.
    Facts are drawn uniformly until the hidden edges reach ``fraction`` of all edges.
    """
    if not 0.0 < fraction < 1.0:
        raise KGError(f"hide fraction must be in (0, 1), got {fraction}")
    edges = sorted(observed.edges(), key=lambda e: e.triple)
    facts = _facts([edge.triple for edge in edges])
    rng.shuffle(facts)
    wanted = round(fraction * len(edges))
    chosen: list[Triple] = []
    for fact in facts:
        if len(chosen) >= wanted:
            break
        chosen.extend(fact)
    hidden = frozenset(chosen)
    reduced = NetworkXStore(observed.schema, observed.metadata)
    reduced.add_nodes(observed.nodes())
    reduced.add_edges(e for e in edges if e.triple not in hidden)
    return reduced, hidden


def _facts(triples: list[Triple]) -> list[list[Triple]]:
    """The edges grouped into facts: the edges between two entities form one fact when they
    run both ways (each is the other's reverse partner); one-way edges are a fact each."""
    by_pair: dict[tuple[str, str], list[Triple]] = {}
    for triple in triples:
        head, _, tail = triple
        by_pair.setdefault((min(head, tail), max(head, tail)), []).append(triple)
    facts: list[list[Triple]] = []
    for (low, _), group in by_pair.items():
        directions = {triple[0] == low for triple in group}
        facts.extend([group] if len(directions) == 2 else [[triple] for triple in group])
    return facts


@dataclass(frozen=True, slots=True)
class ReducedGraph:
    """The observed KG minus a seeded sample of hidden edges."""

    store: NetworkXStore
    hidden: frozenset[Triple]
    hide_fraction: float
    seed: int


def reduce_graph(
    observed: GraphStore,
    *,
    seed: int = 0,
    hide_fraction: float | tuple[float, float] = DEFAULT_HIDE_RANGE,
) -> ReducedGraph:
    """Hide a fraction of ``observed``'s edges: a fixed value, or one drawn from a range."""
    rng = random.Random(seed)
    fraction = rng.uniform(*hide_fraction) if isinstance(hide_fraction, tuple) else hide_fraction
    reduced, hidden = hide_edges(observed, fraction, rng)
    return ReducedGraph(reduced, hidden, fraction, seed)


def reduce_strata(
    observed: GraphStore,
    *,
    seed: int = 0,
    hide_range: tuple[float, float] = DEFAULT_HIDE_RANGE,
    strata: int = 3,
) -> list[ReducedGraph]:
    """Reduced graphs hiding evenly spaced fractions of ``hide_range`` (its midpoint if one).

    Each level is calibrated on its own and the most conservative threshold deployed
    (:func:`~kgrecall.calibration.calibrators.choose_across_strata`), so the thresholds hold
    at every simulated level — not only for one guessed value or on their average.
    """
    low, high = hide_range
    if not 0.0 < low <= high < 1.0:
        raise KGError(f"hide range must satisfy 0 < low ≤ high < 1, got {hide_range}")
    if strata < 1:
        raise KGError(f"strata must be positive, got {strata}")
    fractions = [(low + high) / 2] if strata == 1 else np.linspace(low, high, strata).tolist()
    return [
        reduce_graph(observed, seed=seed * 1000 + index, hide_fraction=fraction)
        for index, fraction in enumerate(fractions)
    ]


def make_calibration_set(
    observed: GraphStore,
    topology: str,
    n_queries: int,
    *,
    seed: int = 0,
    hide_fraction: float | tuple[float, float] = DEFAULT_HIDE_RANGE,
    reduced: ReducedGraph | None = None,
    max_answers: int = 100,
    max_attempts_per_query: int = 200,
    progress: bool = True,
) -> CalibrationSet:
    """``n_queries`` queries of ``topology`` with at most ``max_answers`` true answers each.

    Seeded and reproducible. ``reduced`` reuses a reduced graph (one per calibration run, so
    that one link predictor trained on it serves every topology); otherwise one is made from
    ``seed`` and ``hide_fraction``. Queries whose observed answer set is larger than
    ``max_answers`` are redrawn (up to ``max_attempts_per_query`` times each; then an error
    says so rather than returning fewer queries).
    """
    if n_queries < 1 or max_answers < 1:
        raise KGError("n_queries and max_answers must be positive")
    if reduced is None:
        reduced = reduce_graph(observed, seed=seed, hide_fraction=hide_fraction)
    rng = random.Random(f"{seed}:{topology}")
    queries: list[CalibrationQuery] = []
    for _ in tqdm(range(n_queries), desc=f"calibration queries {topology}", disable=not progress):
        for _attempt in range(max_attempts_per_query):
            query = sample_query(observed, topology, rng)
            answers, _ = execute_sets(observed, query)
            if len(answers) <= max_answers:
                break
        else:
            raise KGError(
                f"could not draw a {topology} query with ≤ {max_answers} answers in "
                f"{max_attempts_per_query} attempts; raise max_answers"
            )
        retrieved, _ = execute_sets(reduced.store, query)
        queries.append(CalibrationQuery(query, topology, frozenset(answers), frozenset(retrieved)))
    return CalibrationSet(
        topology, reduced.store, reduced.hidden, reduced.hide_fraction, queries, seed
    )
