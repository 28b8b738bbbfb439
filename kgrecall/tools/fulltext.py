"""Fulltext search over entity names, synonyms, ids and descriptions (BM25 via ``bm25s``).

Why bm25s: a real BM25 (Lucene variant) on sparse matrices, pure Python + NumPy, no native
server or Rust toolchain, indexes the full demo KG (80 k entities) in about a second, and
accepts our own tokens — which biomedical text needs:

- CURIEs stay whole and are also split: ``GO:0006915`` → ``go:0006915``, ``go``, ``0006915``;
- symbols with dots and hyphens likewise: ``HLA-DRB1`` → ``hla-drb1``, ``hla``, ``drb1``;
- Greek letters are spelled out: ``α-synuclein`` → ``alpha-synuclein``, ``alpha``, ``synuclein``;
- case is folded (gene symbols ``SNCA`` and ``snca`` match).

Misspelt names are the entity index's business (:class:`~kgrecall.tools.EntityIndex`: BM25 and
vector candidates scored by name similarity), not this index's.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from kgrecall.kg import GraphStore, KGError
from kgrecall.kg.derived import cached_derivation
from kgrecall.tools.names import GREEK
from kgrecall.tools.results import Candidate, Evidence

#: KG versions whose built index the cache keeps (several KGs may be served from one home).
VERSIONS_KEPT = 4
_TOKEN = re.compile(r"[a-z0-9](?:[a-z0-9_.:/'+-]*[a-z0-9+])?")
_PARTS = re.compile(r"[:_./'-]+")
STOPWORDS = frozenset(
    {"a", "an", "and", "are", "as", "at", "be", "by", "for", "from", "in", "into", "is", "it",
     "of", "on", "or", "that", "the", "to", "with", "which", "what", "who"}
)  # fmt: skip


def tokenize(text: str) -> list[str]:
    """Biomedical-aware tokens (see the module docstring)."""
    folded = text.casefold()
    for letter, name in GREEK.items():
        folded = folded.replace(letter, name)
    tokens: list[str] = []
    for token in _TOKEN.findall(folded):
        if token in STOPWORDS:
            continue
        tokens.append(token)
        parts = [p for p in _PARTS.split(token) if p]
        if len(parts) > 1:
            tokens.extend(p for p in parts if p not in STOPWORDS)
    return tokens


class FulltextIndex:
    """BM25 over one KG version's entities; with ``cache_home`` (the service passes its
    workspace) the built index is kept under it for the next process
    (``derived/fulltext-KEY.pickle``, KEY hashing the KG version and this module; the last
    :data:`VERSIONS_KEPT` versions kept): building takes 1.4 s on the demo KG, reading it back
    0.1 s."""

    def __init__(self, store: GraphStore, *, cache_home: Path | None = None) -> None:
        self.version = store.version
        self._store = store
        self._cache_home = cache_home
        self._lock = threading.Lock()
        self._ready = False

    def warm(self) -> None:
        """Build the index now (≈ 2 s on the demo KG); otherwise the first search builds it,
        so that a process that never searches by text never pays for it."""
        with self._lock:
            if self._ready:
                return
            if self._store.version != self.version:
                raise KGError("the KG changed after its fulltext index was made")
            if self._cache_home is None:
                built = _build(self._store)
            else:
                built = cached_derivation(
                    "fulltext",
                    lambda: _build(self._store),
                    sources=(),
                    code=(Path(__file__),),
                    home=self._cache_home,
                    salt=(self.version,),
                    keep=VERSIONS_KEPT,
                )
            self._ids, self._names, self._types = built.ids, built.names, built.types
            self._retriever, self._vocabulary, self._exact = (
                built.bm25,
                built.vocabulary,
                built.exact,
            )
            self._ready = True

    def _exact_positions(self, text: str, mask: np.ndarray | None) -> list[int]:
        return [p for p in self._exact.get(" ".join(tokenize(text)), []) if mask is None or mask[p]]

    def search(
        self, text: str, *, k: int = 10, node_types: Collection[str] | None = None
    ) -> list[Candidate]:
        """Top ``k`` entities: exact name/synonym/id matches first (score 1.0), then BM25
        scores divided by the best BM25 score."""
        if k < 1:
            raise KGError(f"k must be at least 1, got {k}")
        self.warm()
        tokens = [t for t in tokenize(text) if t in self._vocabulary]
        if not tokens or not self._ids:
            return []
        mask = None
        if node_types is not None:
            mask = np.isin(self._types, list(node_types)).astype(np.float32)
            if not mask.any():
                return []
        documents, scores = self._retriever.retrieve(
            [tokens], k=min(k, len(self._ids)), show_progress=False, weight_mask=mask
        )
        top = float(scores[0][0]) if len(scores[0]) else 0.0
        exact = self._exact_positions(text, mask)
        bm25 = [
            (p, s)
            for p, s in zip(documents[0].tolist(), scores[0].tolist(), strict=True)
            if p not in exact and s > 0
        ]
        # Exact matches score 1.0; BM25 hits are scaled below them (best BM25 → 0.99).
        ceiling = 0.99 if exact else 1.0
        ranked = [(p, 1.0, None) for p in exact] + [(p, ceiling * s / top, s) for p, s in bm25]
        results = []
        for position, score, raw in ranked[:k]:
            results.append(
                Candidate(
                    id=self._ids[position],
                    name=self._names[position],
                    type=str(self._types[position]),
                    score=min(1.0, score),
                    tools=["fulltext_search"],
                    evidence=[
                        Evidence(
                            kind="fulltext_match",
                            matched_text=self._names[position],
                            model_score=raw,
                        )
                    ],
                )
            )
        return results


@dataclass(frozen=True)
class _Built:
    """A built index: the entities in id order and their BM25 and exact-name tables."""

    ids: list[str]
    names: list[str]
    types: np.ndarray
    bm25: Any
    vocabulary: set[str]
    exact: dict[str, list[int]]


def _build(store: GraphStore) -> _Built:
    nodes = sorted(store.nodes(), key=lambda n: n.id)
    documents = []
    for node in nodes:
        description = str(node.properties.get("definition", ""))
        documents.append(tokenize(" ".join([node.id, node.name, *node.synonyms, description])))
    import bm25s  # imported with the first build: ≈ 0.3 s a command may not need

    retriever = bm25s.BM25()
    retriever.index(documents, show_progress=False)
    exact: dict[str, list[int]] = {}
    for position, node in enumerate(nodes):
        for text in {node.id, node.name, *node.synonyms}:
            exact.setdefault(" ".join(tokenize(text)), []).append(position)
    return _Built(
        ids=[n.id for n in nodes],
        names=[n.name for n in nodes],
        types=np.array([n.type for n in nodes]),
        bm25=retriever,
        vocabulary=set(retriever.vocab_dict),
        exact=exact,
    )
