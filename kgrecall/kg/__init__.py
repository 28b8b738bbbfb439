"""The knowledge-graph core: model, stores, persistence, loaders, subgraphs, ids, demo KG."""

from typing import TYPE_CHECKING

from kgrecall._lazy import attach

if TYPE_CHECKING:
    from kgrecall.kg.demo import DEMO_NAME, DemoConfig, build_demo_kg
    from kgrecall.kg.errors import KGError, KGFieldError, KGLoadError, UnknownEntityError
    from kgrecall.kg.ids import normalize_curie, normalize_prefix
    from kgrecall.kg.model import (
        BIOMEDICAL_NODE_TYPES,
        BIOMEDICAL_RELATIONS,
        Edge,
        KGSchema,
        Node,
        Triple,
    )
    from kgrecall.kg.neo4j_store import Neo4jStore
    from kgrecall.kg.networkx_store import NetworkXStore
    from kgrecall.kg.persistence import atomic_write_bytes, load_graph, save_graph
    from kgrecall.kg.records import content_hash
    from kgrecall.kg.signatures import RelationSignature, relation_signatures
    from kgrecall.kg.store import (
        BFSResult,
        Direction,
        GraphMetadata,
        GraphStore,
        KGStats,
        Path,
        PathServer,
    )
    from kgrecall.kg.subgraph import Subgraph, describe_edge, extract_subgraph
    from kgrecall.kg.workspace import Workspace, default_home

__all__ = [
    "BIOMEDICAL_NODE_TYPES",
    "BIOMEDICAL_RELATIONS",
    "DEMO_NAME",
    "BFSResult",
    "DemoConfig",
    "Direction",
    "Edge",
    "GraphMetadata",
    "GraphStore",
    "KGError",
    "KGFieldError",
    "KGLoadError",
    "KGSchema",
    "KGStats",
    "Neo4jStore",
    "NetworkXStore",
    "Node",
    "Path",
    "PathServer",
    "RelationSignature",
    "Subgraph",
    "Triple",
    "UnknownEntityError",
    "Workspace",
    "atomic_write_bytes",
    "build_demo_kg",
    "content_hash",
    "default_home",
    "describe_edge",
    "extract_subgraph",
    "load_graph",
    "normalize_curie",
    "normalize_prefix",
    "relation_signatures",
    "save_graph",
]

__getattr__, __dir__ = attach(
    __name__,
    globals(),
    {
        "DEMO_NAME": "kgrecall.kg.demo",
        "DemoConfig": "kgrecall.kg.demo",
        "build_demo_kg": "kgrecall.kg.demo",
        "KGError": "kgrecall.kg.errors",
        "KGFieldError": "kgrecall.kg.errors",
        "KGLoadError": "kgrecall.kg.errors",
        "UnknownEntityError": "kgrecall.kg.errors",
        "normalize_curie": "kgrecall.kg.ids",
        "normalize_prefix": "kgrecall.kg.ids",
        "BIOMEDICAL_NODE_TYPES": "kgrecall.kg.model",
        "BIOMEDICAL_RELATIONS": "kgrecall.kg.model",
        "Edge": "kgrecall.kg.model",
        "KGSchema": "kgrecall.kg.model",
        "Node": "kgrecall.kg.model",
        "Triple": "kgrecall.kg.model",
        "Neo4jStore": "kgrecall.kg.neo4j_store",
        "NetworkXStore": "kgrecall.kg.networkx_store",
        "atomic_write_bytes": "kgrecall.kg.persistence",
        "load_graph": "kgrecall.kg.persistence",
        "save_graph": "kgrecall.kg.persistence",
        "content_hash": "kgrecall.kg.records",
        "RelationSignature": "kgrecall.kg.signatures",
        "relation_signatures": "kgrecall.kg.signatures",
        "BFSResult": "kgrecall.kg.store",
        "Direction": "kgrecall.kg.store",
        "GraphMetadata": "kgrecall.kg.store",
        "GraphStore": "kgrecall.kg.store",
        "KGStats": "kgrecall.kg.store",
        "Path": "kgrecall.kg.store",
        "PathServer": "kgrecall.kg.store",
        "Subgraph": "kgrecall.kg.subgraph",
        "describe_edge": "kgrecall.kg.subgraph",
        "extract_subgraph": "kgrecall.kg.subgraph",
        "Workspace": "kgrecall.kg.workspace",
        "default_home": "kgrecall.kg.workspace",
    },
)
