"""A weighted average of completion models: ``ultra+rules`` is ULTRA and mined path rules.

Each member projects the fuzzy input set on its own; the ensemble averages the probabilities
of the members that cover the relation in that direction (weights renormalised over them), so
a relation no rule predicts is scored by ULTRA alone rather than halved. Measured on the demo
KG's seeded split (``benchmarks/linkpred.py --compare``), the average beats both members.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from kgrecall.kg import GraphStore
from kgrecall.tools.linkpred.base import BoundCompletion, CompletionModel, LinkPredictorError


class EnsembleCompletion(CompletionModel):
    """Members with weights; trained members (a fine-tuned ULTRA) fix the KG version."""

    def __init__(self, members: Sequence[CompletionModel], weights: Sequence[float]) -> None:
        if not members or len(members) != len(weights):
            raise LinkPredictorError("an ensemble needs members and one weight per member")
        if any(not np.isfinite(w) or w <= 0 for w in weights):
            raise LinkPredictorError(f"ensemble weights must be positive, got {list(weights)}")
        versions = {m.kg_version for m in members if m.kg_version is not None}
        if len(versions) > 1:
            raise LinkPredictorError("ensemble members were trained on different KG versions")
        self.members = list(members)
        self.weights = [float(w) for w in weights]
        self.kg_version = versions.pop() if versions else None

    @property
    def identifier(self) -> str:
        """``Ensemble(<w>×<member>+…)``: calibrations are keyed by every member."""
        pairs = zip(self.members, self.weights, strict=True)
        parts = "+".join(f"{w:g}×{m.identifier}" for m, w in pairs)
        return f"Ensemble({parts})"

    def bind(self, store: GraphStore) -> EnsembleBound:
        """Every member bound to ``store``."""
        return EnsembleBound([m.bind(store) for m in self.members], self.weights)

    def with_members(self, members: Sequence[CompletionModel]) -> EnsembleCompletion:
        """The same weights over other members (a member refitted on a reduced graph)."""
        return EnsembleCompletion(members, self.weights)

    def save(self, path: str | Path) -> Path:
        """Write the first member, the one with weights (ULTRA, pretrained or fine-tuned); the
        registry rebuilds the others from the ensemble's name."""
        if any(m.kg_version is not None for m in self.members[1:]):
            raise LinkPredictorError("only an ensemble's first member may be trained on the KG")
        return self.members[0].save(path)


class EnsembleBound(BoundCompletion):
    """The members' projections averaged where they cover the relation."""

    def __init__(self, members: list[BoundCompletion], weights: list[float]) -> None:
        ids = members[0].entity_ids
        if any(m.entity_ids != ids for m in members):
            raise LinkPredictorError("ensemble members were bound to different entity indexes")
        self.entity_ids = ids
        self.members = members
        self.weights = weights

    def knows(self, relation: str) -> bool:
        """Whether any member knows ``relation``."""
        return any(m.knows(relation) for m in self.members)

    def covers(self, relation: str, *, inverse: bool) -> bool:
        """Whether any member covers ``relation`` in that direction."""
        return any(m.covers(relation, inverse=inverse) for m in self.members)

    def project(self, weights: np.ndarray, relation: str, *, inverse: bool) -> np.ndarray:
        """Weighted mean of the covering members' projections (all knowing members when
        none covers the direction)."""
        speaking = [
            (m, w)
            for m, w in zip(self.members, self.weights, strict=True)
            if m.covers(relation, inverse=inverse)
        ] or [(m, w) for m, w in zip(self.members, self.weights, strict=True) if m.knows(relation)]
        if not speaking:
            raise LinkPredictorError(f"no ensemble member knows relation {relation!r}")
        total = sum(w for _, w in speaking)
        result = np.zeros(len(self.entity_ids), dtype=np.float64)
        notes = []
        for member, weight in speaking:
            result += (weight / total) * member.project(weights, relation, inverse=inverse)
            if member.last_note:
                notes.append(member.last_note)
        self.last_note = "; ".join(notes) or None
        return result.astype(np.float32)
