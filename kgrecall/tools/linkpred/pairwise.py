"""Set-level projection for pairwise link predictors (RotatE, ComplEx, …).

A pairwise model scores single (head, relation, tail) triples. Its projection of a fuzzy input
set ``w`` is the max–min composition ``p_j = max_i min(w_i, p(i → j))`` over the inputs — the
fuzzy-set image of ``w`` under the predicted relation. Scoring every input against every
entity is one matrix-shaped pass per input chunk; the inputs are bounded by a beam: the
``beam`` heaviest inputs *plus every input tied with the last of them*, so the choice depends
on the weights only, never on entity ids, and is the same at calibration and at query time.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import torch

from kgrecall.kg import GraphStore
from kgrecall.tools.linkpred.base import BoundCompletion

#: Probabilities of (model anchor indices, model relation index) against every model entity.
AllTailProbabilities = Callable[[torch.Tensor, int], torch.Tensor]
#: Anchors scored against all entities in one chunk.
_CHUNK = 256


def beam_inputs(weights: np.ndarray, beam: int) -> np.ndarray:
    """Positions of the ``beam`` largest positive weights, ties with the last one included."""
    positive = np.flatnonzero(weights > 0)
    if len(positive) <= beam:
        return positive
    cutoff = np.partition(weights[positive], len(positive) - beam)[len(positive) - beam]
    return np.asarray(positive[weights[positive] >= cutoff])


class PairwiseBinding(BoundCompletion):
    """A pairwise model over one store's entities (those the model lacks score 0)."""

    def __init__(
        self,
        store: GraphStore,
        model_entities: list[str],
        relations: list[str],
        all_tails: AllTailProbabilities,
        *,
        beam: int = 256,
    ) -> None:
        self.entity_ids = sorted(node.id for node in store.nodes())
        model_index = {entity: i for i, entity in enumerate(model_entities)}
        #: store position → model index (−1: the model has not seen the entity)
        self._to_model = np.array(
            [model_index.get(entity, -1) for entity in self.entity_ids], dtype=np.int64
        )
        position = {entity: i for i, entity in enumerate(self.entity_ids)}
        #: model index → store position (−1: not in this store)
        self._to_store = np.array(
            [position.get(entity, -1) for entity in model_entities], dtype=np.int64
        )
        self._relation_index = {relation: i for i, relation in enumerate(relations)}
        self._all_tails = all_tails
        self.beam = beam

    def knows(self, relation: str) -> bool:
        return relation in self._relation_index

    def project(self, weights: np.ndarray, relation: str, *, inverse: bool) -> np.ndarray:
        n = len(self.entity_ids)
        result = np.zeros(n, dtype=np.float32)
        known = np.where(self._to_model >= 0, weights, 0.0)
        inputs = beam_inputs(known, self.beam)
        given = int((known > 0).sum())
        self.last_note = (
            f"projection from the {len(inputs)} heaviest of {given} inputs (beam {self.beam})"
            if len(inputs) < given
            else None
        )
        if len(inputs) == 0:
            return result
        relation_index = 2 * self._relation_index[relation] + int(inverse)
        in_store = self._to_store >= 0
        targets = self._to_store[in_store]
        for start in range(0, len(inputs), _CHUNK):
            chunk = inputs[start : start + _CHUNK]
            anchors = torch.as_tensor(self._to_model[chunk], dtype=torch.long)
            probabilities = self._all_tails(anchors, relation_index).numpy()[:, in_store]
            capped = np.minimum(probabilities, weights[chunk, None].astype(np.float32))
            result[targets] = np.maximum(result[targets], capped.max(axis=0))
        return result
