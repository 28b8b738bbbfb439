"""Neural completion: a PyKEEN link predictor with calibrated, fast, inductive-aware scoring."""

from kgrecall.tools.linkpred.calibration import PlattScaling, expected_calibration_error
from kgrecall.tools.linkpred.predictor import (
    GO_HITS_AT_10,
    GO_MRR,
    SUPPORTED_MODELS,
    LinkPredictor,
    LinkPredictorError,
    Prediction,
    RankMetrics,
    TrainingConfig,
    TrainingReport,
)
from kgrecall.tools.linkpred.scoring import FAST_SCORERS

__all__ = [
    "FAST_SCORERS",
    "GO_HITS_AT_10",
    "GO_MRR",
    "SUPPORTED_MODELS",
    "LinkPredictor",
    "LinkPredictorError",
    "PlattScaling",
    "Prediction",
    "RankMetrics",
    "TrainingConfig",
    "TrainingReport",
    "expected_calibration_error",
]
