"""Neural completion: a PyKEEN link predictor with calibrated, fast, inductive-aware scoring."""

from kgrecall.tools.linkpred.base import BoundCompletion, CompletionModel, LinkPredictorError
from kgrecall.tools.linkpred.calibration import PlattScaling, expected_calibration_error
from kgrecall.tools.linkpred.ensemble import EnsembleBound, EnsembleCompletion
from kgrecall.tools.linkpred.pairwise import PairwiseBinding, beam_inputs
from kgrecall.tools.linkpred.predictor import (
    GO_HITS_AT_10,
    GO_MRR,
    SUPPORTED_MODELS,
    LinkPredictor,
    Prediction,
    RankMetrics,
    TrainingConfig,
    TrainingReport,
)
from kgrecall.tools.linkpred.rules import Rule, RuleBound, RuleCompletion, RuleSettings
from kgrecall.tools.linkpred.scoring import FAST_SCORERS
from kgrecall.tools.linkpred.ultra import (
    ULTRA_CHECKPOINTS,
    VENDORED_CHECKPOINTS,
    FineTuneReport,
    UltraBound,
    UltraCompletion,
    evaluate_pykeen,
    evaluate_split,
    evaluate_triples,
    fine_tune,
)

__all__ = [
    "FAST_SCORERS",
    "GO_HITS_AT_10",
    "GO_MRR",
    "SUPPORTED_MODELS",
    "ULTRA_CHECKPOINTS",
    "VENDORED_CHECKPOINTS",
    "BoundCompletion",
    "CompletionModel",
    "EnsembleBound",
    "EnsembleCompletion",
    "FineTuneReport",
    "LinkPredictor",
    "LinkPredictorError",
    "PairwiseBinding",
    "PlattScaling",
    "Prediction",
    "RankMetrics",
    "Rule",
    "RuleBound",
    "RuleCompletion",
    "RuleSettings",
    "TrainingConfig",
    "TrainingReport",
    "UltraBound",
    "UltraCompletion",
    "beam_inputs",
    "evaluate_pykeen",
    "evaluate_split",
    "evaluate_triples",
    "expected_calibration_error",
    "fine_tune",
]
