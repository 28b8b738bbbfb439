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


#: Scores of ``(B, d)`` head and relation representations against all ``(N, d)`` entities.
AllTailsScorer = Callable[[torch.Tensor, torch.Tensor, torch.Tensor], torch.Tensor]


def _rotate_all(p: float = 2, power_norm: bool = False) -> AllTailsScorer | None:
    """‖x − t‖² = ‖x‖² + ‖t‖² − 2·Re⟨x, t⟩ with x = h ∘ r: one matrix product, O(B·N) memory."""
    if p != 2:
        return None

    def score(h: torch.Tensor, r: torch.Tensor, entities: torch.Tensor) -> torch.Tensor:
        x = h * r
        squared = (
            x.abs().pow(2).sum(-1, keepdim=True)
            + entities.abs().pow(2).sum(-1).unsqueeze(0)
            - 2 * torch.real(x @ entities.conj().T)
        ).clamp_min(0.0)
        return -squared if power_norm else -squared.sqrt()

    return score


def _distmult_all(**_: object) -> AllTailsScorer:
    return lambda h, r, entities: (h * r) @ entities.T


def _complex_all(**_: object) -> AllTailsScorer:
    return lambda h, r, entities: torch.real((h * r) @ entities.conj().T)


#: Model name → factory of a matrix-product scorer against all entities (None: not available).
ALL_TAILS_SCORERS: dict[str, Callable[..., AllTailsScorer | None]] = {
    "rotate": _rotate_all,
    "distmult": _distmult_all,
    "complex": _complex_all,
}


def chunked_all_tails(scorer: Scorer, budget: int = 2**25) -> AllTailsScorer:
    """Broadcast ``scorer`` against all entities in chunks of anchors that keep the
    ``(chunk, N, d)`` intermediate under ``budget`` elements."""

    def score(h: torch.Tensor, r: torch.Tensor, entities: torch.Tensor) -> torch.Tensor:
        n, d = entities.shape[0], entities.shape[-1]
        step = max(1, budget // max(1, n * d))
        parts = [
            scorer(
                h[i : i + step].unsqueeze(1), r[i : i + step].unsqueeze(1), entities.unsqueeze(0)
            )
            for i in range(0, len(h), step)
        ]
        return torch.cat(parts) if parts else entities.new_zeros((0, n)).real

    return score
