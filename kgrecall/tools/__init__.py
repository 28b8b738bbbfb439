"""Retrieval tools: neural completion today; traversal, vector and fulltext search next.

Depends only on :mod:`kgrecall.kg`.
"""

from kgrecall.tools.linkpred import (
    LinkPredictor,
    LinkPredictorError,
    Prediction,
    RankMetrics,
    TrainingConfig,
)

__all__ = ["LinkPredictor", "LinkPredictorError", "Prediction", "RankMetrics", "TrainingConfig"]
