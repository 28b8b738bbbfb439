"""Search served by the store's own indexes (a KG in Neo4j): the adapters answer like the
in-process indexes, and the entity index links through them.

No Neo4j server runs here: :class:`IndexedTerms` answers the store's search methods from
in-memory data the way the database's indexes do (raw, unscaled text scores; cosine from
the same embeddings); ``tests/kg/test_neo4j_store.py`` checks the Cypher those methods send.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from pathlib import Path

import numpy as np
import pytest

from kgrecall.grounding import EntityExtractor
from kgrecall.kg import KGError, NetworkXStore, Node
from kgrecall.kg.loaders import build_store, gene_ontology_path, load_hpo, load_obo
from kgrecall.tools.fulltext import FulltextIndex, tokenize
from kgrecall.tools.linking import EntityIndex
from kgrecall.tools.store_search import (
    IndexedStore,
    StoredEmbeddings,
    StoreFulltextSearch,
    StoreVectorSearch,
    store_searches,
)
from kgrecall.tools.vector import VectorIndex


class IndexedTerms(NetworkXStore):
    """A store with search methods of its own, like :class:`~kgrecall.kg.neo4j_store.Neo4jStore`."""

    vectors: VectorIndex | None = None

    def fulltext_search(
        self, text: str, *, k: int = 10, node_types: Collection[str] | None = None
    ) -> list[tuple[Node, float]]:
        """Raw score: how many of the text's tokens a node's id, name and synonyms hold (a
        stand-in for Lucene's unscaled scores)."""
        wanted = set(tokenize(text))
        scored = []
        for node in self.nodes():
            if node_types is not None and node.type not in node_types:
                continue
            held = set(tokenize(" ".join((node.id, node.name, *node.synonyms))))
            if wanted & held:
                scored.append((node, float(len(wanted & held)) * 2.5))
        scored.sort(key=lambda hit: (-hit[1], hit[0].id))
        return scored[:k]

    def vector_search(
        self, vector: Sequence[float], *, k: int = 10, node_types: Collection[str] | None = None
    ) -> list[tuple[Node, float]]:
        assert self.vectors is not None
        rows = self.vectors.nearest(
            np.asarray(vector, dtype=np.float32), k=k, node_types=node_types
        )
        return [(self.get_node(self.vectors.ids[row]), score) for row, score in rows]

    def has_vector_index(self) -> bool:
        return self.vectors is not None

    def embeddings(self, ids: Sequence[str]) -> dict[str, list[float]]:
        assert self.vectors is not None
        held = self.vectors.embeddings()
        return {i: held[i] for i in ids if i in held}


@pytest.fixture(scope="module")
def terms(tmp_path_factory: pytest.TempPathFactory) -> IndexedTerms:
    """Real phenotype and GO terms with their embeddings (a few hundred: seconds to embed)."""
    phenotypes = load_hpo(phenotype_roots=["HP:0002071", "HP:0001337"])
    phenotypes.nodes = [n for n in phenotypes.nodes if n.type == "phenotype"]
    phenotypes.edges = [e for e in phenotypes.edges if e.relation == "subclass_of"]
    go = load_obo(gene_ontology_path(), roots=["GO:0006914", "GO:0007268"])
    built = build_store([phenotypes, go], name="terms")
    store = IndexedTerms(built.schema, built.metadata)
    store.add_nodes(built.nodes())
    store.add_edges(built.edges())
    store.vectors = VectorIndex.for_store(store, tmp_path_factory.mktemp("v"), progress=False)
    return store


def test_text_search_ranks_exact_names_first_and_scales_the_rest(terms: IndexedTerms) -> None:
    assert isinstance(terms, IndexedStore)
    found = StoreFulltextSearch(terms).search("Resting tremor", k=5)
    assert found[0].id == "HP:0002322" and found[0].score == 1.0
    assert found[0].tools == ["fulltext_search"] and found[0].evidence[0].model_score == 5.0
    rest = [c.score for c in found[1:]]
    assert rest and max(rest) <= 0.99 and rest == sorted(rest, reverse=True)
    loose = StoreFulltextSearch(terms).search("tremor hands", k=3)
    assert loose[0].score == 1.0 and all(c.id != "HP:0002322" or c.score < 1 for c in loose)
    typed = StoreFulltextSearch(terms).search("autophagy", k=5, node_types={"go_term"})
    assert typed and all(c.type == "go_term" for c in typed)
    assert StoreFulltextSearch(terms).search("zzzzqqq") == []
    with pytest.raises(KGError, match="k must be at least 1"):
        StoreFulltextSearch(terms).search("tremor", k=0)


def test_vector_search_answers_as_the_in_process_index(terms: IndexedTerms) -> None:
    assert terms.vectors is not None
    served = StoreVectorSearch(terms)
    for text, types in (("tremor at rest", None), ("self-digestion of cells", {"go_term"})):
        expected = terms.vectors.search(text, k=5, node_types=types)
        got = served.search(text, k=5, node_types=types)
        assert [(c.id, c.name, c.type) for c in got] == [(c.id, c.name, c.type) for c in expected]
        assert [c.score for c in got] == pytest.approx([c.score for c in expected], abs=1e-5)
        assert all(c.tools == ["vector_search"] for c in got)


def test_stored_embeddings_come_from_the_store_as_from_the_in_process_index(
    terms: IndexedTerms,
) -> None:
    assert terms.vectors is not None
    ids = [terms.vectors.ids[-1], terms.vectors.ids[0]]
    served = StoreVectorSearch(terms)
    assert isinstance(served, StoredEmbeddings) and isinstance(terms.vectors, StoredEmbeddings)
    assert np.allclose(served.vectors_of(ids), terms.vectors.vectors_of(ids))
    with pytest.raises(KGError, match=r"no stored embedding for \['nowhere:1'\].*push-neo4j"):
        served.vectors_of([ids[0], "nowhere:1"])
    # the grounding NER's context check reads them alike through either search
    local = EntityExtractor(terms, EntityIndex(terms, FulltextIndex(terms), terms.vectors))
    remote = EntityExtractor(terms, EntityIndex(terms, *store_searches(terms)))
    context = "The patient's hands shook while they lay still in her lap."
    expected = local._context_similarity(context, "HP:0002322")  # Resting tremor
    assert expected is not None
    assert remote._context_similarity(context, "HP:0002322") == pytest.approx(expected, abs=1e-5)
    assert EntityExtractor(terms)._context_similarity(context, "HP:0002322") is None


def test_entity_linking_through_the_stores_indexes_equals_the_in_process_one(
    terms: IndexedTerms,
) -> None:
    fulltext, vector = store_searches(terms)
    assert vector is not None and terms.vectors is not None
    served = EntityIndex(terms, fulltext, vector)
    local = EntityIndex(terms, FulltextIndex(terms), terms.vectors)
    # no name matches these: linking falls to the fuzzy candidates the indexes propose
    for mention in ("tremor while at rest", "autophagosome formation process", "restng tremor"):
        linked = served.link(mention, k=2)
        assert linked and all(e.match == "fuzzy" for e in linked)
        assert [(e.id, e.score) for e in linked] == [
            (e.id, e.score) for e in local.link(mention, k=2)
        ]
    assert served.link("tremor while at rest")[0].id == "HP:0002322"
    terms.vectors, saved = None, terms.vectors
    try:
        assert store_searches(terms)[1] is None  # no vector index: text search only
    finally:
        terms.vectors = saved


def test_a_store_without_indexes_or_a_changed_kg_is_refused(
    terms: IndexedTerms, tmp_path: Path
) -> None:
    plain = NetworkXStore(terms.schema, terms.metadata)
    with pytest.raises(KGError, match="no search indexes of its own"):
        StoreFulltextSearch(plain)
    changing = IndexedTerms(terms.schema, terms.metadata)
    changing.add_nodes([Node("HP:1", "phenotype", "Tremor")])
    search = StoreFulltextSearch(changing)
    changing.add_nodes([Node("HP:2", "phenotype", "Chorea")])
    with pytest.raises(KGError, match="changed after its search was opened"):
        search.search("tremor")
