"""Retrieval tools: exact traversal of query trees, neural completion, one result model.

Depends only on :mod:`kgrecall.kg`.
"""

from kgrecall.tools.linkpred import (
    LinkPredictor,
    LinkPredictorError,
    Prediction,
    RankMetrics,
    TrainingConfig,
)
from kgrecall.tools.query import (
    TOPOLOGIES,
    EntityQuery,
    IntersectQuery,
    ProjectQuery,
    QueryNode,
    QueryTree,
    UnionQuery,
    anchors,
    parse_query,
    projections,
    shape,
    topology,
)
from kgrecall.tools.results import Candidate, Evidence, EvidenceTriple, ToolName
from kgrecall.tools.traversal import TraversalResult, execute_sets, traverse, validate_query

__all__ = [
    "TOPOLOGIES",
    "Candidate",
    "EntityQuery",
    "Evidence",
    "EvidenceTriple",
    "IntersectQuery",
    "LinkPredictor",
    "LinkPredictorError",
    "Prediction",
    "ProjectQuery",
    "QueryNode",
    "QueryTree",
    "RankMetrics",
    "ToolName",
    "TrainingConfig",
    "TraversalResult",
    "UnionQuery",
    "anchors",
    "execute_sets",
    "parse_query",
    "projections",
    "shape",
    "topology",
    "traverse",
    "validate_query",
]
