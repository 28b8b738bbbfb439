"""What the conformal gate needs from a completion model, whatever its architecture.

A :class:`CompletionModel` is a trained (or pretrained) link predictor. Bound to one graph
(:meth:`CompletionModel.bind`), it scores over that graph's entities in sorted-id order — the
gate's own index — so the gate never maps between index spaces.

The gate asks one thing of a bound model: a **set-level projection**. Given a fuzzy set of input
entities (``weights``: one value in [0, 1] per entity, 0 = not an input) and a relation, return
one probability per entity that it is reached from the set through that relation. Transductive
pairwise models (RotatE & co.) answer it as the max–min composition over their best inputs;
ULTRA answers it in one message-passing pass with the weights as boundary condition.

``kg_version`` says which KG's edges the model's *weights* have seen: ``None`` for a model
pretrained elsewhere and used zero-shot (it has seen no edge of this KG, so it may score any
reduced calibration graph without leakage); otherwise the version it was trained on.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from pathlib import Path

import numpy as np

from kgrecall.kg import GraphStore
from kgrecall.kg.errors import KGError


class LinkPredictorError(KGError):
    """Invalid training data, request or model file; the message names what and where."""


class BoundCompletion(ABC):
    """A completion model scoring over one graph's entities (sorted ids)."""

    #: The graph's entity ids, sorted: position ``i`` of every array is ``entity_ids[i]``.
    entity_ids: list[str]
    #: What bounded the last projection, if anything (e.g. a beam over its inputs).
    last_note: str | None = None

    @abstractmethod
    def knows(self, relation: str) -> bool:
        """Whether the model can score ``relation`` (and its inverse)."""

    def covers(self, relation: str, *, inverse: bool) -> bool:
        """Whether the model has something to say about ``relation`` in that direction (an
        ensemble combines only the members that do); by default, whether it knows it."""
        return self.knows(relation)

    @abstractmethod
    def project(self, weights: np.ndarray, relation: str, *, inverse: bool) -> np.ndarray:
        """Probabilities, shape ``(n_entities,)`` float32 in [0, 1], that each entity is reached
        from the fuzzy input set ``weights`` (shape ``(n_entities,)``, values in [0, 1]) through
        ``relation`` (its inverse when ``inverse``: heads of edges whose tail is in the set)."""


class CompletionModel(ABC):
    """A link predictor the gate can use; registered by name (see :mod:`.registry`)."""

    #: The KG version the weights were trained on; ``None`` for zero-shot use.
    kg_version: str | None

    @property
    @abstractmethod
    def identifier(self) -> str:
        """Names the weights and settings; calibrations are keyed by it."""

    @abstractmethod
    def bind(self, store: GraphStore) -> BoundCompletion:
        """This model scoring over ``store`` (inductive models condition on its edges)."""

    @abstractmethod
    def save(self, path: str | Path) -> Path:
        """Write the model atomically to ``path``; the path written."""


def checked_weights(weights: np.ndarray, n_entities: int) -> np.ndarray:
    """``weights`` as a float array after checking what :meth:`BoundCompletion.project`
    needs: shape ``(n_entities,)``, finite, in [0, 1]."""
    values = np.asarray(weights, dtype=np.float64)
    if values.shape != (n_entities,):
        raise LinkPredictorError(
            f"weights must have shape ({n_entities},) (one per entity), got {values.shape}"
        )
    if not np.all(np.isfinite(values)) or values.min(initial=0) < 0 or values.max(initial=0) > 1:
        raise LinkPredictorError("weights must be finite and in [0, 1]")
    return values
