"""Cross-check: scalar CRC equals MAPIE's recall controller (method="crc") on the same scores."""

from __future__ import annotations

import numpy as np
import pytest
from mapie.risk_control import MultiLabelClassificationController

from kgrecall.calibration import crc_index


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("alpha", [0.1, 0.2, 0.3])
def test_crc_threshold_equals_mapie(seed: int, alpha: float) -> None:
    rng = np.random.default_rng(seed)
    n, labels = 400, 12
    truth = (rng.random((n, labels)) < 0.3).astype(int)
    truth[np.arange(n), rng.integers(0, labels, n)] = 1  # every query has an answer
    scores = np.clip(0.35 * truth + 0.65 * rng.random((n, labels)), 0, 1)
    grid = np.round(np.arange(0, 1, 0.01), 2)

    controller = MultiLabelClassificationController(
        predict_function=lambda x: scores[np.asarray(x).ravel()],
        risk="recall",
        method="crc",
        target_level=1 - alpha,
        predict_params=grid,
    )
    controller.calibrate(np.arange(n).reshape(-1, 1), truth)

    thresholds = grid[::-1]  # kgrecall's grids run from the smallest answer set to the largest
    kept = scores[:, None, :] >= thresholds[None, :, None]
    losses = 1 - (kept & (truth[:, None, :] == 1)).sum(-1) / truth.sum(-1, keepdims=True)
    assert thresholds[crc_index(losses, alpha)] == pytest.approx(
        float(np.ravel(controller.best_predict_param)[0])
    )
