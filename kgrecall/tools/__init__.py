"""Retrieval tools: traversal of query trees, fulltext and vector search, entity linking,
neural completion, one result model, LangChain wrappers.

Depends only on :mod:`kgrecall.kg`.
"""

from kgrecall.tools.fulltext import FulltextIndex, Suggestion, tokenize
from kgrecall.tools.langchain import make_retrieval_tools
from kgrecall.tools.linking import MIN_LINK_SCORE, EntityIndex, LinkedEntity
from kgrecall.tools.linkpred import (
    LinkPredictor,
    LinkPredictorError,
    Prediction,
    RankMetrics,
    TrainingConfig,
)
from kgrecall.tools.query import (
    SHAPES,
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
    sample_query,
    shape,
    topology,
)
from kgrecall.tools.results import Candidate, Evidence, EvidenceTriple, ToolName
from kgrecall.tools.traversal import TraversalResult, execute_sets, traverse, validate_query
from kgrecall.tools.vector import VectorIndex, embed

__all__ = [
    "MIN_LINK_SCORE",
    "SHAPES",
    "TOPOLOGIES",
    "Candidate",
    "EntityIndex",
    "EntityQuery",
    "Evidence",
    "EvidenceTriple",
    "FulltextIndex",
    "IntersectQuery",
    "LinkPredictor",
    "LinkPredictorError",
    "LinkedEntity",
    "Prediction",
    "ProjectQuery",
    "QueryNode",
    "QueryTree",
    "RankMetrics",
    "Suggestion",
    "ToolName",
    "TrainingConfig",
    "TraversalResult",
    "UnionQuery",
    "VectorIndex",
    "anchors",
    "embed",
    "execute_sets",
    "make_retrieval_tools",
    "parse_query",
    "projections",
    "sample_query",
    "shape",
    "tokenize",
    "topology",
    "traverse",
    "validate_query",
]
