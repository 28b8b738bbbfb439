"""Probability calibration of raw link-prediction scores (Platt scaling) and its error (ECE)."""

from __future__ import annotations

from dataclasses import dataclass

import torch


@dataclass(frozen=True, slots=True)
class PlattScaling:
    """``p = sigmoid(slope · score + intercept)``; ``slope > 0`` keeps the map monotone."""

    slope: float
    intercept: float

    def __call__(self, scores: torch.Tensor) -> torch.Tensor:
        return torch.sigmoid(self.slope * scores + self.intercept)

    @classmethod
    def fit(cls, scores: torch.Tensor, labels: torch.Tensor, *, steps: int = 200) -> PlattScaling:
        """Maximum-likelihood fit (L-BFGS) on scores with 0/1 labels.

        The slope is parameterised as ``exp(s)`` so the fitted map is always increasing.
        """
        x = scores.detach().double()
        y = labels.detach().double()
        scale = x.std().clamp_min(1e-8)
        centre = x.mean()
        log_slope = torch.zeros((), dtype=torch.float64, requires_grad=True)
        intercept = torch.zeros((), dtype=torch.float64, requires_grad=True)
        optimizer = torch.optim.LBFGS(
            [log_slope, intercept], max_iter=steps, line_search_fn="strong_wolfe"
        )

        def closure() -> torch.Tensor:
            optimizer.zero_grad()
            logits = torch.exp(log_slope) * (x - centre) / scale + intercept
            loss = torch.nn.functional.binary_cross_entropy_with_logits(logits, y)
            loss.backward()  # type: ignore[no-untyped-call]
            return loss

        optimizer.step(closure)  # type: ignore[no-untyped-call]
        slope = float(torch.exp(log_slope.detach())) / float(scale)
        return cls(slope=slope, intercept=float(intercept.detach()) - slope * float(centre))


def expected_calibration_error(
    probabilities: torch.Tensor, labels: torch.Tensor, bins: int = 15
) -> float:
    """ECE: the bin-weighted mean |accuracy − confidence| over equal-width probability bins."""
    p = probabilities.detach().double()
    y = labels.detach().double()
    edges = torch.linspace(0, 1, bins + 1, dtype=torch.float64)
    index = torch.bucketize(p, edges[1:-1])
    error = 0.0
    for b in range(bins):
        mask = index == b
        if mask.any():
            error += float(mask.double().mean()) * abs(
                float(y[mask].mean()) - float(p[mask].mean())
            )
    return error
