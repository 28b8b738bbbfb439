"""Retrieval tools: traversal of query trees, fulltext and vector search, entity linking,
neural completion, one result model, LangChain wrappers.

Depends only on :mod:`kgrecall.kg`.
"""

from typing import TYPE_CHECKING

from kgrecall._lazy import attach

if TYPE_CHECKING:
    from kgrecall.tools.fulltext import FulltextIndex, tokenize
    from kgrecall.tools.kg_indexes import WrittenIndexes, missing_indexes, write_indexes
    from kgrecall.tools.langchain import make_retrieval_tools
    from kgrecall.tools.linking import MIN_LINK_SCORE, EntityIndex, LinkedEntity
    from kgrecall.tools.linkpred import (
        LinkPredictor,
        LinkPredictorError,
        Prediction,
        RankMetrics,
        TrainingConfig,
    )
    from kgrecall.tools.name_tables import NameTables
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
        fold,
        hop_depths,
        parse_query,
        projections,
        sample_query,
        shape,
        topology,
    )
    from kgrecall.tools.results import Candidate, Evidence, EvidenceTriple, ToolName
    from kgrecall.tools.store_search import (
        EntitySearch,
        StoredEmbeddings,
        StoreFulltextSearch,
        StoreVectorSearch,
        store_searches,
    )
    from kgrecall.tools.traversal import TraversalResult, execute_sets, traverse, validate_query
    from kgrecall.tools.vector import VectorIndex, embed

__all__ = [
    "MIN_LINK_SCORE",
    "SHAPES",
    "TOPOLOGIES",
    "Candidate",
    "EntityIndex",
    "EntityQuery",
    "EntitySearch",
    "Evidence",
    "EvidenceTriple",
    "FulltextIndex",
    "IntersectQuery",
    "LinkPredictor",
    "LinkPredictorError",
    "LinkedEntity",
    "NameTables",
    "Prediction",
    "ProjectQuery",
    "QueryNode",
    "QueryTree",
    "RankMetrics",
    "StoreFulltextSearch",
    "StoreVectorSearch",
    "StoredEmbeddings",
    "ToolName",
    "TrainingConfig",
    "TraversalResult",
    "UnionQuery",
    "VectorIndex",
    "WrittenIndexes",
    "anchors",
    "embed",
    "execute_sets",
    "fold",
    "hop_depths",
    "make_retrieval_tools",
    "missing_indexes",
    "parse_query",
    "projections",
    "sample_query",
    "shape",
    "store_searches",
    "tokenize",
    "topology",
    "traverse",
    "validate_query",
    "write_indexes",
]

__getattr__, __dir__ = attach(
    __name__,
    globals(),
    {
        "FulltextIndex": "kgrecall.tools.fulltext",
        "tokenize": "kgrecall.tools.fulltext",
        "make_retrieval_tools": "kgrecall.tools.langchain",
        "MIN_LINK_SCORE": "kgrecall.tools.linking",
        "EntityIndex": "kgrecall.tools.linking",
        "LinkedEntity": "kgrecall.tools.linking",
        "NameTables": "kgrecall.tools.name_tables",
        "EntitySearch": "kgrecall.tools.store_search",
        "StoreFulltextSearch": "kgrecall.tools.store_search",
        "StoreVectorSearch": "kgrecall.tools.store_search",
        "StoredEmbeddings": "kgrecall.tools.store_search",
        "store_searches": "kgrecall.tools.store_search",
        "WrittenIndexes": "kgrecall.tools.kg_indexes",
        "missing_indexes": "kgrecall.tools.kg_indexes",
        "write_indexes": "kgrecall.tools.kg_indexes",
        "LinkPredictor": "kgrecall.tools.linkpred",
        "LinkPredictorError": "kgrecall.tools.linkpred",
        "Prediction": "kgrecall.tools.linkpred",
        "RankMetrics": "kgrecall.tools.linkpred",
        "TrainingConfig": "kgrecall.tools.linkpred",
        "SHAPES": "kgrecall.tools.query",
        "TOPOLOGIES": "kgrecall.tools.query",
        "EntityQuery": "kgrecall.tools.query",
        "IntersectQuery": "kgrecall.tools.query",
        "ProjectQuery": "kgrecall.tools.query",
        "QueryNode": "kgrecall.tools.query",
        "QueryTree": "kgrecall.tools.query",
        "UnionQuery": "kgrecall.tools.query",
        "anchors": "kgrecall.tools.query",
        "fold": "kgrecall.tools.query",
        "hop_depths": "kgrecall.tools.query",
        "parse_query": "kgrecall.tools.query",
        "projections": "kgrecall.tools.query",
        "sample_query": "kgrecall.tools.query",
        "shape": "kgrecall.tools.query",
        "topology": "kgrecall.tools.query",
        "Candidate": "kgrecall.tools.results",
        "Evidence": "kgrecall.tools.results",
        "EvidenceTriple": "kgrecall.tools.results",
        "ToolName": "kgrecall.tools.results",
        "TraversalResult": "kgrecall.tools.traversal",
        "execute_sets": "kgrecall.tools.traversal",
        "traverse": "kgrecall.tools.traversal",
        "validate_query": "kgrecall.tools.traversal",
        "VectorIndex": "kgrecall.tools.vector",
        "embed": "kgrecall.tools.vector",
    },
)
