"""Filtered rank metrics of any bound completion model, through its set-level projection.

The same protocol as :func:`~kgrecall.tools.linkpred.ultra.evaluate_triples` (both sides,
"realistic" ranks among ties, every known triple but the target filtered), so ULTRA, the
rules and their ensemble are compared on equal terms: a one-entity input set projected
along the relation is an all-tails query.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
import torch

from kgrecall.kg import GraphStore, NetworkXStore
from kgrecall.tools.linkpred.base import BoundCompletion, CompletionModel, LinkPredictorError
from kgrecall.tools.linkpred.predictor import (
    RankMetrics,
    TrainingConfig,
    _filtered_metrics,
    _resolve_splits,
)

Triple = tuple[str, str, str]


def evaluate_completion(
    bound: BoundCompletion,
    test: Sequence[Triple],
    *,
    known: Iterable[Triple] = (),
) -> RankMetrics:
    """Filtered MRR / Hits@k of ``test`` in both directions; ``known`` lists every other true
    triple (the bound graph's edges among them), filtered from the rankings."""
    if not test:
        raise LinkPredictorError("no test triples to evaluate")
    position = {entity: i for i, entity in enumerate(bound.entity_ids)}
    relations = sorted({r for _, r, _ in test})
    relation_index = {relation: i for i, relation in enumerate(relations)}

    def index(triple: Triple) -> tuple[int, int, int]:
        head, relation, tail = triple
        try:
            return position[head], relation_index[relation], position[tail]
        except KeyError as error:
            raise LinkPredictorError(f"test triple {triple}: unknown {error.args[0]!r}") from None

    ids = torch.tensor([index(t) for t in test], dtype=torch.long)
    known_ids = [index(t) for t in known if t[1] in relation_index]
    filtered = torch.tensor(known_ids, dtype=torch.long).reshape(-1, 3)
    n = len(bound.entity_ids)

    def all_tails(anchors: torch.Tensor, queries: torch.Tensor) -> torch.Tensor:
        rows = []
        for anchor, query in zip(anchors.tolist(), queries.tolist(), strict=True):
            weights = np.zeros(n)
            weights[anchor] = 1.0
            relation, inverse = relations[query // 2], bool(query % 2)
            rows.append(torch.from_numpy(bound.project(weights, relation, inverse=inverse)))
        return torch.stack(rows).float()

    return _filtered_metrics(all_tails, ids, torch.cat([filtered, ids]))


def graph_of(store: GraphStore, triples: Iterable[Triple]) -> NetworkXStore:
    """``store``'s nodes with only the edges ``triples`` (a train split: what a model sees)."""
    keep = set(triples)
    reduced = NetworkXStore(store.schema)
    reduced.add_nodes(store.nodes())
    reduced.add_edges([edge for edge in store.edges() if edge.triple in keep])
    return reduced


def evaluate_model_split(
    model: CompletionModel, store: GraphStore, *, seed: int = 0, limit: int | None = None
) -> RankMetrics:
    """Filtered metrics of ``model`` bound to ``store``'s train split (the edges' own split
    tags, else the seeded 80/10/10 split) on its test split (the first ``limit`` triples)."""
    split = _resolve_splits(store, TrainingConfig(seed=seed), None)
    bound = model.bind(graph_of(store, split["train"]))
    test = list(split["test"])[:limit] if limit is not None else list(split["test"])
    known = [*split["train"], *split["valid"], *split["test"]]
    return evaluate_completion(bound, test, known=known)
