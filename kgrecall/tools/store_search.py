"""Entity search served by the store's own indexes (Neo4j's fulltext and vector indexes).

A KG held in Neo4j is searched where it lives: :class:`StoreFulltextSearch` sends the text to
the database's fulltext index, :class:`StoreVectorSearch` embeds it here (the model that
embedded the vectors ``kgrecall kg push-neo4j`` stored) and asks the database's vector index;
nothing of the KG is indexed in this process. Both answer like the in-process
:class:`~kgrecall.tools.FulltextIndex` and :class:`~kgrecall.tools.VectorIndex` — the same
:class:`~kgrecall.tools.results.Candidate` shape, exact names first at 1.0 and other text hits
scaled below by the best one, cosine clipped to [0, 1] — so the entity index and the search
tools take any :class:`EntitySearch`.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Protocol, runtime_checkable

import numpy as np

from kgrecall.kg import GraphStore, KGError, Node
from kgrecall.tools.fulltext import tokenize
from kgrecall.tools.results import Candidate, Evidence

__all__ = [
    "EntitySearch",
    "IndexedStore",
    "StoreFulltextSearch",
    "StoreVectorSearch",
    "StoredEmbeddings",
    "store_searches",
]


class EntitySearch(Protocol):
    """What the entity index and the search tools ask of a text or vector search."""

    @property
    def version(self) -> str:
        """The KG version the search answers for."""
        ...

    def warm(self) -> None:
        """Make the first search fast (build or connect whatever it needs)."""
        ...

    def search(
        self, text: str, *, k: int = 10, node_types: Collection[str] | None = None
    ) -> list[Candidate]:
        """The ``k`` best entities for ``text``, best first, scores in [0, 1]."""
        ...


@runtime_checkable
class IndexedStore(Protocol):
    """A store that searches its entities itself (:class:`~kgrecall.kg.neo4j_store.Neo4jStore`).

    Methods only: ``isinstance`` reads every member, and a store's ``version`` may hash the
    whole KG."""

    def fulltext_search(
        self, text: str, *, k: int = 10, node_types: Collection[str] | None = None
    ) -> list[tuple[Node, float]]: ...

    def vector_search(
        self, vector: Sequence[float], *, k: int = 10, node_types: Collection[str] | None = None
    ) -> list[tuple[Node, float]]: ...

    def has_vector_index(self) -> bool: ...

    def embeddings(self, ids: Sequence[str]) -> dict[str, list[float]]: ...


@runtime_checkable
class StoredEmbeddings(Protocol):
    """A vector search that can also hand out the stored embeddings of given entities
    (:class:`~kgrecall.tools.VectorIndex`, :class:`StoreVectorSearch`): what the grounding
    NER compares a sentence with."""

    def vectors_of(self, ids: Sequence[str]) -> np.ndarray: ...


class _StoreSearch:
    def __init__(self, store: GraphStore) -> None:
        self._store = _indexed(store)
        self._graph = store
        self._version = store.version

    @property
    def version(self) -> str:
        return self._version

    def _checked(self, k: int) -> None:
        if k < 1:
            raise KGError(f"k must be at least 1, got {k}")
        if self._graph.version != self._version:
            raise KGError("the KG changed after its search was opened")


class StoreFulltextSearch(_StoreSearch):
    """Text search through the store's fulltext index."""

    def warm(self) -> None:
        """Nothing to build: the index lives in the database."""

    def search(
        self, text: str, *, k: int = 10, node_types: Collection[str] | None = None
    ) -> list[Candidate]:
        """Top ``k`` entities: exact id/name/synonym matches first (1.0), then the index's
        scores divided by the best one (best → 0.99 when an exact match leads)."""
        self._checked(k)
        hits = self._store.fulltext_search(text, k=k, node_types=node_types)
        if not hits:
            return []
        wanted = " ".join(tokenize(text))
        named = [
            any(" ".join(tokenize(name)) == wanted for name in (node.id, node.name, *node.synonyms))
            for node, _ in hits
        ]
        exact = [hit for hit, same in zip(hits, named, strict=True) if same]
        rest = [hit for hit, same in zip(hits, named, strict=True) if not same]
        top = max((raw for _, raw in hits), default=0.0) or 1.0
        ceiling = 0.99 if exact else 1.0
        ranked = [(node, 1.0, raw) for node, raw in exact]
        ranked += [(node, ceiling * max(raw, 0.0) / top, raw) for node, raw in rest]
        return [_candidate(node, score, raw, "fulltext") for node, score, raw in ranked[:k]]


class StoreVectorSearch(_StoreSearch):
    """Semantic search: the text embedded here, the neighbours found by the store's vector
    index."""

    def warm(self) -> None:
        """Load the embedding model now rather than on the first search."""
        from kgrecall.tools.vector import embed

        embed(["warm"])

    def search(
        self, text: str, *, k: int = 10, node_types: Collection[str] | None = None
    ) -> list[Candidate]:
        """Top ``k`` entities by cosine similarity (clipped to [0, 1] as the score)."""
        from kgrecall.tools.vector import embed

        self._checked(k)
        vector = embed([text])[0]
        hits = self._store.vector_search(vector.tolist(), k=k, node_types=node_types)
        return [_candidate(node, min(max(raw, 0.0), 1.0), raw, "vector") for node, raw in hits[:k]]

    def vectors_of(self, ids: Sequence[str]) -> np.ndarray:
        """The stored embeddings of these entities, one row each in their order."""
        self._checked(1)
        found = self._store.embeddings(ids)
        missing = [entity_id for entity_id in ids if entity_id not in found]
        if missing:
            raise KGError(
                f"no stored embedding for {missing[:5]}: push the KG with its vectors "
                "(`kgrecall kg index`, then `kgrecall kg push-neo4j`)"
            )
        return np.asarray([found[entity_id] for entity_id in ids], dtype=np.float32)


def _candidate(node: Node, score: float, raw: float, kind: str) -> Candidate:
    return Candidate(
        id=node.id,
        name=node.name,
        type=node.type,
        score=min(1.0, score),
        tools=["fulltext_search" if kind == "fulltext" else "vector_search"],
        evidence=[
            Evidence(
                kind="fulltext_match" if kind == "fulltext" else "vector_match",
                matched_text=node.name,
                model_score=raw,
            )
        ],
    )


def store_searches(store: GraphStore) -> tuple[StoreFulltextSearch, StoreVectorSearch | None]:
    """The store's own text search, and its vector search when it has a vector index."""
    vector = StoreVectorSearch(store) if _indexed(store).has_vector_index() else None
    return StoreFulltextSearch(store), vector


def _indexed(store: GraphStore) -> IndexedStore:
    if not isinstance(store, IndexedStore):
        raise KGError(f"{type(store).__name__} has no search indexes of its own")
    return store
