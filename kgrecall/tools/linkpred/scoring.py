"""Interaction functions on plain tensors, for interactive scoring without PyKEEN per call.

Each function takes already-looked-up, broadcastable head / relation / tail representations
and returns scores over the broadcast batch shape; each equals PyKEEN's interaction of the
same name (tested against ``model.score_hrt``). Models without an entry here are scored
through PyKEEN's interaction module on the cached representations (still no index lookups,
no model forward).
"""

from __future__ import annotations

from collections.abc import Callable

import torch

Scorer = Callable[[torch.Tensor, torch.Tensor, torch.Tensor], torch.Tensor]


def _negative_norm(x: torch.Tensor, p: float, power_norm: bool) -> torch.Tensor:
    if power_norm:
        return -(x.abs() ** p).sum(dim=-1)
    norm: torch.Tensor = torch.linalg.vector_norm(x, ord=p, dim=-1)
    return -norm


def rotate(p: float = 2, power_norm: bool = False) -> Scorer:
    """RotatE: −‖h ∘ r − t‖ in complex space."""
    return lambda h, r, t: _negative_norm(h * r - t, p, power_norm)


def transe(p: float = 1, power_norm: bool = False) -> Scorer:
    """TransE: −‖h + r − t‖."""
    return lambda h, r, t: _negative_norm(h + r - t, p, power_norm)


def distmult() -> Scorer:
    """DistMult: ⟨h, r, t⟩."""
    return lambda h, r, t: (h * r * t).sum(dim=-1)


def complex_(**_: object) -> Scorer:
    """ComplEx: Re⟨h, r, conj(t)⟩."""
    return lambda h, r, t: torch.real((h * r * torch.conj(t)).sum(dim=-1))


#: Model name → factory of its plain-tensor scorer (called with the interaction's p / power_norm).
FAST_SCORERS: dict[str, Callable[..., Scorer]] = {
    "rotate": rotate,
    "transe": transe,
    "distmult": lambda **_: distmult(),
    "complex": complex_,
}
