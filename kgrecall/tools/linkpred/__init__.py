"""Neural completion: a PyKEEN link predictor with calibrated, fast, inductive-aware scoring."""

from typing import TYPE_CHECKING

from kgrecall._lazy import attach

if TYPE_CHECKING:
    from kgrecall.tools.linkpred.base import BoundCompletion, CompletionModel, LinkPredictorError
    from kgrecall.tools.linkpred.calibration import PlattScaling, expected_calibration_error
    from kgrecall.tools.linkpred.defaults import SUPPORTED_MODELS
    from kgrecall.tools.linkpred.ensemble import EnsembleBound, EnsembleCompletion
    from kgrecall.tools.linkpred.pairwise import PairwiseBinding, beam_inputs
    from kgrecall.tools.linkpred.predictor import (
        GO_HITS_AT_10,
        GO_MRR,
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

__getattr__, __dir__ = attach(
    __name__,
    globals(),
    {
        "BoundCompletion": "kgrecall.tools.linkpred.base",
        "CompletionModel": "kgrecall.tools.linkpred.base",
        "LinkPredictorError": "kgrecall.tools.linkpred.base",
        "PlattScaling": "kgrecall.tools.linkpred.calibration",
        "expected_calibration_error": "kgrecall.tools.linkpred.calibration",
        "EnsembleBound": "kgrecall.tools.linkpred.ensemble",
        "EnsembleCompletion": "kgrecall.tools.linkpred.ensemble",
        "PairwiseBinding": "kgrecall.tools.linkpred.pairwise",
        "beam_inputs": "kgrecall.tools.linkpred.pairwise",
        "GO_HITS_AT_10": "kgrecall.tools.linkpred.predictor",
        "GO_MRR": "kgrecall.tools.linkpred.predictor",
        "SUPPORTED_MODELS": "kgrecall.tools.linkpred.defaults",
        "LinkPredictor": "kgrecall.tools.linkpred.predictor",
        "Prediction": "kgrecall.tools.linkpred.predictor",
        "RankMetrics": "kgrecall.tools.linkpred.predictor",
        "TrainingConfig": "kgrecall.tools.linkpred.predictor",
        "TrainingReport": "kgrecall.tools.linkpred.predictor",
        "Rule": "kgrecall.tools.linkpred.rules",
        "RuleBound": "kgrecall.tools.linkpred.rules",
        "RuleCompletion": "kgrecall.tools.linkpred.rules",
        "RuleSettings": "kgrecall.tools.linkpred.rules",
        "FAST_SCORERS": "kgrecall.tools.linkpred.scoring",
        "ULTRA_CHECKPOINTS": "kgrecall.tools.linkpred.ultra",
        "VENDORED_CHECKPOINTS": "kgrecall.tools.linkpred.ultra",
        "FineTuneReport": "kgrecall.tools.linkpred.ultra",
        "UltraBound": "kgrecall.tools.linkpred.ultra",
        "UltraCompletion": "kgrecall.tools.linkpred.ultra",
        "evaluate_pykeen": "kgrecall.tools.linkpred.ultra",
        "evaluate_split": "kgrecall.tools.linkpred.ultra",
        "evaluate_triples": "kgrecall.tools.linkpred.ultra",
        "fine_tune": "kgrecall.tools.linkpred.ultra",
    },
)
