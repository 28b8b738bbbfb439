"""Completion models combined: ``ultra+rules`` is ULTRA and mined path rules.

Each member projects the fuzzy input set on its own. Two combinations:

- ``mean``: the weighted average of the members that cover the relation in that direction
  (weights renormalised over them), so a relation no rule predicts is scored by ULTRA alone
  rather than halved.
- ``noisy-or``: ``p = 1 − Π (1 − wᵢ·pᵢ)`` over the same members, weights in (0, 1] and
  taken relative to the largest of them. With the rules at weight 1 and ULTRA at a small
  weight, the rules' ranking is kept and ULTRA orders what no rule reaches: the default
  ``ultra+rules``, which gave the demo KG's calibrated sets 36 % fewer entities at target
  0.8 than the average (``benchmarks/completeness.py``).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Literal, get_args

import numpy as np

from kgrecall.kg import GraphStore
from kgrecall.tools.linkpred.base import BoundCompletion, CompletionModel, LinkPredictorError

#: How an ensemble combines its members' probabilities.
Combination = Literal["mean", "noisy-or"]


class EnsembleCompletion(CompletionModel):
    """Members with weights; trained members (a fine-tuned ULTRA) fix the KG version."""

    def __init__(
        self,
        members: Sequence[CompletionModel],
        weights: Sequence[float],
        combination: Combination = "mean",
    ) -> None:
        if not members or len(members) != len(weights):
            raise LinkPredictorError("an ensemble needs members and one weight per member")
        if any(not np.isfinite(w) or w <= 0 for w in weights):
            raise LinkPredictorError(f"ensemble weights must be positive, got {list(weights)}")
        if combination not in get_args(Combination):
            valid = ", ".join(get_args(Combination))
            raise LinkPredictorError(f"unknown combination {combination!r}; valid: {valid}")
        if combination == "noisy-or" and any(w > 1 for w in weights):
            raise LinkPredictorError(f"noisy-or weights must be at most 1, got {list(weights)}")
        versions = {m.kg_version for m in members if m.kg_version is not None}
        if len(versions) > 1:
            raise LinkPredictorError("ensemble members were trained on different KG versions")
        self.members = list(members)
        self.weights = [float(w) for w in weights]
        self.combination: Combination = combination
        self.kg_version = versions.pop() if versions else None

    @property
    def identifier(self) -> str:
        """``Ensemble(<w>×<member>+…)`` (``Ensemble[noisy-or](…)``): calibrations are keyed
        by every member and the combination."""
        pairs = zip(self.members, self.weights, strict=True)
        parts = "+".join(f"{w:g}×{m.identifier}" for m, w in pairs)
        kind = "" if self.combination == "mean" else f"[{self.combination}]"
        return f"Ensemble{kind}({parts})"

    def bind(self, store: GraphStore) -> EnsembleBound:
        """Every member bound to ``store``."""
        return EnsembleBound([m.bind(store) for m in self.members], self.weights, self.combination)

    def with_members(self, members: Sequence[CompletionModel]) -> EnsembleCompletion:
        """The same weights and combination over other members (a member refitted on a
        reduced graph)."""
        return EnsembleCompletion(members, self.weights, self.combination)

    def save(self, path: str | Path) -> Path:
        """Write the first member, the one with weights (ULTRA, pretrained or fine-tuned); the
        registry rebuilds the others from the ensemble's name."""
        if any(m.kg_version is not None for m in self.members[1:]):
            raise LinkPredictorError("only an ensemble's first member may be trained on the KG")
        return self.members[0].save(path)


class EnsembleBound(BoundCompletion):
    """The members' projections, combined as :class:`EnsembleCompletion` says."""

    def __init__(
        self,
        members: list[BoundCompletion],
        weights: list[float],
        combination: Combination = "mean",
    ) -> None:
        ids = members[0].entity_ids
        if any(m.entity_ids != ids for m in members):
            raise LinkPredictorError("ensemble members were bound to different entity indexes")
        self.entity_ids = ids
        self.members = members
        self.weights = weights
        self.combination = combination

    def knows(self, relation: str) -> bool:
        """Whether any member knows ``relation``."""
        return any(m.knows(relation) for m in self.members)

    def covers(self, relation: str, *, inverse: bool) -> bool:
        """Whether any member covers ``relation`` in that direction."""
        return any(m.covers(relation, inverse=inverse) for m in self.members)

    def project(self, weights: np.ndarray, relation: str, *, inverse: bool) -> np.ndarray:
        """The covering members' projections (all knowing members when none covers the
        direction), averaged or combined by noisy-or; weights are taken relative to the
        speaking members (their sum for the mean, their largest for noisy-or)."""
        speaking = [
            (m, w)
            for m, w in zip(self.members, self.weights, strict=True)
            if m.covers(relation, inverse=inverse)
        ] or [(m, w) for m, w in zip(self.members, self.weights, strict=True) if m.knows(relation)]
        if not speaking:
            raise LinkPredictorError(f"no ensemble member knows relation {relation!r}")
        mean = self.combination == "mean"
        scale = sum(w for _, w in speaking) if mean else max(w for _, w in speaking)
        result = np.zeros(len(self.entity_ids), dtype=np.float64)
        survive = np.ones(len(self.entity_ids), dtype=np.float64)
        notes = []
        for member, weight in speaking:
            scores = (weight / scale) * member.project(weights, relation, inverse=inverse)
            if mean:
                result += scores
            else:
                survive *= 1.0 - scores
            if member.last_note:
                notes.append(member.last_note)
        self.last_note = "; ".join(notes) or None
        return (result if mean else 1.0 - survive).astype(np.float32)
