"""Fulltext (BM25) and vector search, entity linking and the LangChain tool wrappers."""

from __future__ import annotations

import copy
from pathlib import Path

import numpy as np
import pytest

from kgrecall.kg import KGError, NetworkXStore, Node, build_demo_kg
from kgrecall.kg.loaders import build_store, gene_ontology_path, load_hpo, load_obo
from kgrecall.tools import vector as vector_module
from kgrecall.tools.fulltext import FulltextIndex, tokenize
from kgrecall.tools.langchain import make_retrieval_tools
from kgrecall.tools.linking import EntityIndex
from kgrecall.tools.vector import VectorIndex


@pytest.fixture(scope="module")
def demo() -> NetworkXStore:
    return build_demo_kg(progress=False)


@pytest.fixture(scope="module")
def terms() -> NetworkXStore:
    """Real phenotype and GO terms (a few hundred), small enough to embed in seconds."""
    phenotypes = load_hpo(phenotype_roots=["HP:0002071", "HP:0001337"])  # extrapyramidal, tremor
    phenotypes.nodes = [n for n in phenotypes.nodes if n.type == "phenotype"]
    phenotypes.edges = [e for e in phenotypes.edges if e.relation == "subclass_of"]
    go = load_obo(gene_ontology_path(), roots=["GO:0006914", "GO:0007268"])
    return build_store([phenotypes, go], name="terms")


def test_tokenizer_handles_curies_symbols_and_greek() -> None:
    assert tokenize("GO:0006915") == ["go:0006915", "go", "0006915"]
    assert tokenize("α-synuclein") == ["alpha-synuclein", "alpha", "synuclein"]
    assert tokenize("SNCA and HLA-DRB1") == ["snca", "hla-drb1", "hla", "drb1"]


def test_fulltext_finds_symbols_names_and_ids(demo: NetworkXStore) -> None:
    index = FulltextIndex(demo)
    assert index.search("SNCA", k=1)[0].id == "NCBIGene:6622"
    assert index.search("snca", k=1)[0].id == "NCBIGene:6622"
    assert index.search("GO:0006914", k=1)[0].name == "autophagy"
    top = index.search("Parkinson disease 4", k=3)
    assert top[0].id == "OMIM:605543" and top[0].score == 1.0
    assert all(c.tools == ["fulltext_search"] for c in top)
    assert [c.score for c in top] == sorted((c.score for c in top), reverse=True)
    only = index.search("parkinsonism", k=5, node_types=["phenotype"])
    assert only and all(c.type == "phenotype" for c in only)
    assert index.search("zzzzqqq") == []
    with pytest.raises(KGError, match="k must be at least 1"):
        index.search("SNCA", k=0)


def test_a_built_fulltext_index_is_kept_for_the_next_process_per_kg_version(
    terms: NetworkXStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from kgrecall.tools import fulltext as fulltext_module

    first = FulltextIndex(terms, cache_home=tmp_path)
    queries = ["tremor", "autophagy of mitochondrion", "GO:0006914", "resting"]
    expected = [first.search(q, k=5) for q in queries]
    assert len(list((tmp_path / "derived").glob("fulltext-*.pickle"))) == 1

    def no_build(_: object) -> None:
        raise AssertionError("built again although this version's index was kept")

    with monkeypatch.context() as patched:  # a new index, as in the next process
        patched.setattr(fulltext_module, "_build", no_build)
        again = FulltextIndex(terms, cache_home=tmp_path)
        assert [again.search(q, k=5) for q in queries] == expected
        assert again.search("tremor", k=3, node_types=["go_term"]) == first.search(
            "tremor", k=3, node_types=["go_term"]
        )
    # another version of the KG is indexed anew
    changed = copy.deepcopy(terms)
    changed.add_nodes([Node("HP:9999999", "phenotype", "Quivering of the eyelids")])
    assert FulltextIndex(changed, cache_home=tmp_path).search("quivering", k=1)[0].id == (
        "HP:9999999"
    )
    assert len(list((tmp_path / "derived").glob("fulltext-*.pickle"))) == 2


def test_vector_search_matches_meaning(terms: NetworkXStore, tmp_path: Path) -> None:
    index = VectorIndex.for_store(terms, tmp_path, progress=False)
    assert index.search("tremor at rest", k=1)[0].id == "HP:0002322"  # Resting tremor
    assert index.search("self-digestion of cellular components", k=3, node_types=["go_term"])[
        0
    ].id.startswith("GO:")
    hits = index.search("parkinsonian syndrome", k=5)
    assert "HP:0001300" in {c.id for c in hits}
    assert all(0.0 <= c.score <= 1.0 and c.tools == ["vector_search"] for c in hits)
    assert index.search("anything", k=3, node_types=["drug"]) == []


def test_vector_index_gives_entities_embeddings_in_the_order_asked(
    terms: NetworkXStore, tmp_path: Path
) -> None:
    index = VectorIndex.for_store(terms, tmp_path, progress=False)
    first, second = index.ids[0], index.ids[-1]
    rows = index.vectors_of([second, first])
    assert rows.shape == (2, index.dimensions)
    assert np.allclose(rows[0], index.embeddings()[second])
    assert np.allclose(rows[1], index.embeddings()[first])
    with pytest.raises(KGError, match="no embedding for \\['nowhere:1'\\]"):
        index.vectors_of([first, "nowhere:1"])


def test_vector_index_is_persisted_per_kg_version(terms: NetworkXStore, tmp_path: Path) -> None:
    first = VectorIndex.for_store(terms, tmp_path, progress=False)
    [saved] = list(tmp_path.glob("vectors-*.npz"))
    assert saved.name == f"vectors-{terms.version[:16]}.npz"
    modified = saved.stat().st_mtime_ns
    again = VectorIndex.for_store(terms, tmp_path, progress=False)
    assert saved.stat().st_mtime_ns == modified  # loaded, not rebuilt
    assert again.ids == first.ids
    np.testing.assert_array_equal(again._vectors, first._vectors)
    (tmp_path / "broken.npz").write_bytes(b"junk")
    with pytest.raises(KGError, match="not a readable vector index"):
        VectorIndex.load(tmp_path / "broken.npz")


def test_a_new_version_embeds_only_what_changed(
    terms: NetworkXStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """After an ingestion the index of the new version reuses every unchanged entity's
    vector: only new entities and entities whose text changed are embedded."""
    first = VectorIndex.for_store(terms, tmp_path, progress=False)
    changed = copy.deepcopy(terms)
    renamed = next(n for n in changed.nodes() if n.id == "HP:0002322")
    changed.add_nodes(
        [
            Node("HP:9999999", "phenotype", "Tremor of the tongue"),
            Node(renamed.id, renamed.type, renamed.name, synonyms=("shaking while still",)),
        ]
    )
    embedded: list[str] = []
    original = vector_module.embed

    def counting(texts: list[str], **kwargs: object) -> np.ndarray:
        embedded.extend(texts)
        return original(texts, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(vector_module, "embed", counting)
    second = VectorIndex.for_store(changed, tmp_path, progress=False)
    assert len(embedded) == 2 and "Tremor of the tongue" in embedded
    assert any("shaking while still" in text for text in embedded)
    assert [p.name for p in tmp_path.glob("vectors-*.npz")] == [
        f"vectors-{changed.version[:16]}.npz"
    ]
    rebuilt = VectorIndex.build(changed, progress=False)
    np.testing.assert_allclose(second._vectors, rebuilt._vectors, atol=1e-5)
    assert second.ids == rebuilt.ids and first.ids != second.ids


def test_entity_linking_combines_both_engines(terms: NetworkXStore, tmp_path: Path) -> None:
    linker = EntityIndex(
        terms, FulltextIndex(terms), VectorIndex.for_store(terms, tmp_path, progress=False)
    )
    [best, *_] = linker.link("Parkinsonism")
    assert best.id == "HP:0001300" and best.match == "name" and best.score == 1.0
    # A description is not a name: the vector engine ranks the right entity among the fuzzy
    # candidates, but below the minimum link score nothing is linked.
    paraphrase = linker.fuzzy("shaking when the limb is at rest", k=3)
    assert "HP:0002322" in {e.id for e in paraphrase}
    assert all(e.score < linker.min_score for e in paraphrase)
    assert linker.link("shaking when the limb is at rest") == []
    scores = [e.score for e in linker.fuzzy("autophagy", k=5)]
    assert scores == sorted(scores, reverse=True)


def test_langchain_tools_return_summary_and_candidates(store: NetworkXStore) -> None:
    tools = {tool.name: tool for tool in make_retrieval_tools(store, FulltextIndex(store))}
    assert set(tools) == {"kg_traverse", "kg_fulltext_search"}
    call = {
        "type": "tool_call",
        "id": "call-1",
        "name": "kg_traverse",
        "args": {
            "query": {
                "op": "project",
                "relation": "associated_with",
                "inverse": True,
                "input": {"op": "entity", "id": "D1"},
            },
            "max_results": 1,
        },
    }
    message = tools["kg_traverse"].invoke(call)
    assert message.content.startswith("2 result(s); showing 1 (exact 1p traversal)")
    assert [c.id for c in message.artifact] == ["G1", "G2"]
    assert message.artifact[0].evidence[0].triples[0].sources == ["curated"]
    schema = tools["kg_traverse"].args_schema.model_json_schema()  # type: ignore[union-attr]
    assert {"query", "recall_target", "max_results", "node_types"} <= set(schema["properties"])
    honest = tools["kg_traverse"].invoke({**call, "args": {**call["args"], "recall_target": 0.9}})
    assert "recall target 0.9 requested: no calibration applies" in honest.content
    with pytest.raises(ValueError, match="recall_target"):
        tools["kg_traverse"].invoke({**call, "args": {**call["args"], "recall_target": 1.5}})
    found = tools["kg_fulltext_search"].invoke(
        {**call, "name": "kg_fulltext_search", "args": {"text": "alpha-synuclein"}}
    )
    assert found.artifact[0].id == "G1"


def test_approximate_index_agrees_with_exact_search(terms: NetworkXStore, tmp_path: Path) -> None:
    exact = VectorIndex.for_store(terms, tmp_path, progress=False)
    approximate = VectorIndex.load(next(tmp_path.glob("vectors-*.npz")))
    approximate.ann_threshold = 0  # force the HNSW path
    assert approximate.uses_ann and not exact.uses_ann
    for text in ("tremor at rest", "autophagy", "parkinsonian syndrome", "synaptic vesicle"):
        assert [c.id for c in approximate.search(text, k=3)] == [
            c.id for c in exact.search(text, k=3)
        ]
    filtered = approximate.search("tremor", k=5, node_types=["phenotype"])
    assert [c.id for c in filtered] == [
        c.id for c in exact.search("tremor", k=5, node_types=["phenotype"])
    ]
