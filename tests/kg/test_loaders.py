"""Every loader on real data shipped by PyPI packages, round-tripped, and on bad fixtures."""

from __future__ import annotations

from pathlib import Path

import pytest

from kgrecall.kg import KGError, KGLoadError, load_graph, save_graph
from kgrecall.kg.loaders import (
    GraphBatch,
    build_store,
    gene_ontology_path,
    get_loader,
    load_hpo,
    load_kegg_links,
    load_ligand_receptor,
    load_obo,
    load_pykeen_dataset,
    load_tsv,
)
from tests.conftest import DATA


def assert_round_trip(batch: GraphBatch, tmp_path: Path) -> None:
    store = build_store([batch], name="t")
    loaded = load_graph(save_graph(store, tmp_path / "rt.json.gz"))
    assert loaded.version == store.version
    assert loaded.number_of_edges() == store.number_of_edges()
    assert {e.triple for e in loaded.edges()} == {e.triple for e in store.edges()}


# -- TSV ---------------------------------------------------------------------------------
def test_tsv_with_header_columns(tmp_path: Path) -> None:
    batch = load_tsv(DATA / "small.tsv")
    store = build_store([batch], name="small")
    assert store.number_of_edges() == 3  # the repeated triple merged
    edge = store.get_edge("NCBIGene:6622", "associated_with", "OMIM:168601")
    assert edge is not None
    assert edge.sources == ("curated", "second_source")
    assert edge.confidence == 0.95
    assert edge.properties == {"evidence": "PMID:9197268"}
    # CURIEs normalised with bioregistry.
    assert store.has_node("uniprot:P37840")
    assert store.get_node("OMIM:168601").type == "disease"
    assert_round_trip(batch, tmp_path)


def test_tsv_bad_line_names_file_and_line() -> None:
    with pytest.raises(
        KGLoadError, match=r"bad_columns\.tsv:2: expected 3 tab-separated"
    ) as caught:
        load_tsv(DATA / "bad_columns.tsv")
    assert caught.value.line == 2


def test_tsv_unknown_relation_names_line_field_and_choices() -> None:
    with pytest.raises(KGLoadError) as caught:
        load_tsv(DATA / "unknown_relation.tsv")
    assert (caught.value.line, caught.value.field) == (2, "relation")
    assert "unknown relation 'causes_mayhem'" in str(caught.value)
    assert "associated_with" in str(caught.value)
    assert "--allow-new-relations" in str(caught.value)
    batch = load_tsv(DATA / "unknown_relation.tsv", allow_new_relations=True)
    assert "causes_mayhem" in batch.schema.relations


def test_tsv_rejects_bad_confidence_and_empty_files(tmp_path: Path) -> None:
    bad = tmp_path / "conf.tsv"
    bad.write_text("head\trelation\ttail\tconfidence\nA\tregulates\tB\tvery\n")
    with pytest.raises(KGLoadError, match=r"conf\.tsv:2: field 'confidence'"):
        load_tsv(bad)
    empty = tmp_path / "empty.tsv"
    empty.write_text("# nothing\n\n")
    with pytest.raises(KGLoadError, match="no triples"):
        load_tsv(empty)
    binary = tmp_path / "binary.tsv"
    binary.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(KGLoadError, match="not UTF-8"):
        load_tsv(binary)


# -- PyKEEN datasets -----------------------------------------------------------------------
@pytest.mark.parametrize(
    ("name", "entities", "relations", "splits"),
    [
        ("UMLS", 135, 46, {"train": 5216, "valid": 652, "test": 661}),
        ("Kinships", 104, 25, {"train": 8544, "valid": 1068, "test": 1074}),
        ("Nations", 14, 55, {"train": 1592, "valid": 199, "test": 201}),
    ],
)
def test_pykeen_datasets_keep_their_splits(
    name: str, entities: int, relations: int, splits: dict[str, int], tmp_path: Path
) -> None:
    batch = load_pykeen_dataset(name)
    assert len(batch.nodes) == entities
    assert len(batch.schema.relations) == relations
    counted: dict[str, int] = {}
    for edge in batch.edges:
        counted[edge.properties["split"]] = counted.get(edge.properties["split"], 0) + 1
    assert counted == splits
    assert_round_trip(batch, tmp_path)


def test_unknown_pykeen_dataset() -> None:
    with pytest.raises(KGError, match="valid: umls, kinships, nations"):
        load_pykeen_dataset("FB15k")


# -- OBO / Gene Ontology -------------------------------------------------------------------
def test_mini_obo_terms_relations_and_obsolete(tmp_path: Path) -> None:
    batch = load_obo(DATA / "mini.obo")
    ids = {n.id for n in batch.nodes}
    assert ids == {"GO:0008150", "GO:0012501", "GO:0006915", "GO:0043065"}
    apoptosis = next(n for n in batch.nodes if n.id == "GO:0006915")
    assert apoptosis.type == "go_term"
    assert apoptosis.synonyms == ("apoptosis",)  # only EXACT synonyms
    assert apoptosis.properties["definition"] == "A programmed cell death process."
    assert {e.triple for e in batch.edges} == {
        ("GO:0012501", "subclass_of", "GO:0008150"),
        ("GO:0006915", "subclass_of", "GO:0012501"),
        ("GO:0043065", "subclass_of", "GO:0008150"),
        ("GO:0043065", "positively_regulates", "GO:0006915"),
    }
    assert batch.skipped == {"relationship has_part": 1, "obsolete term": 1}
    assert len(load_obo(DATA / "mini.obo", include_obsolete=True).nodes) == 5
    rooted = load_obo(DATA / "mini.obo", roots=["GO:0012501"])
    assert {n.id for n in rooted.nodes} == {"GO:0012501", "GO:0006915"}
    assert_round_trip(batch, tmp_path)


def test_malformed_obo_names_line() -> None:
    with pytest.raises(KGLoadError, match=r"bad\.obo:5: expected 'tag: value'"):
        load_obo(DATA / "bad.obo")


def test_gene_ontology_from_gfftk(tmp_path: Path) -> None:
    batch = load_obo(gene_ontology_path())
    assert batch.source is not None and batch.source.version == "releases/2024-09-08"
    by_id = {n.id: n for n in batch.nodes}
    assert len(by_id) > 40_000
    assert by_id["GO:0006915"].name == "apoptotic process"
    assert by_id["GO:0006915"].properties["namespace"] == "biological_process"
    triples = {e.triple for e in batch.edges}
    assert ("GO:0006915", "subclass_of", "GO:0012501") in triples
    relations = {e.relation for e in batch.edges}
    assert {"subclass_of", "part_of", "regulates", "negatively_regulates"} <= relations
    assert batch.skipped["obsolete term"] > 1000
    assert_round_trip(batch, tmp_path)


# -- HPO -----------------------------------------------------------------------------------
def test_hpo_slice_has_genes_diseases_and_annotations(tmp_path: Path) -> None:
    batch = load_hpo(phenotype_roots=["HP:0002071"])
    by_id = {n.id: n for n in batch.nodes}
    assert by_id["HP:0001300"].name == "Parkinsonism"
    assert by_id["NCBIGene:6622"].name == "SNCA"
    assert by_id["OMIM:168601"].type == "disease"
    triples = {e.triple for e in batch.edges}
    assert ("HP:0001300", "subclass_of", "HP:0002071") in triples
    assert ("NCBIGene:6622", "has_phenotype", "HP:0001300") in triples
    assert ("OMIM:168601", "has_phenotype", "HP:0001300") in triples
    # SNCA is the gene of Parkinson disease 1 and 4 (OMIM 168601, 605543).
    assert ("NCBIGene:6622", "associated_with", "OMIM:168601") in triples
    assert ("NCBIGene:6622", "associated_with", "OMIM:605543") in triples
    derived = [e for e in batch.edges if e.relation == "associated_with"]
    assert all(e.sources == ("hpo3:derived",) and 0.79 < e.confidence < 1 for e in derived)
    assert_round_trip(batch, tmp_path)


def test_hpo_unknown_root() -> None:
    with pytest.raises(KGError, match="unknown HPO term 'HP:9999999'"):
        load_hpo(phenotype_roots=["HP:9999999"])


# -- ligand–receptor -----------------------------------------------------------------------
def test_bundled_ligand_receptor_pairs(tmp_path: Path) -> None:
    batch = load_ligand_receptor()
    assert len(batch.edges) == 6507
    tnf = next(n for n in batch.nodes if n.id == "uniprot:P01375")
    assert tnf.name == "TNF" and tnf.type == "protein"
    triples = {e.triple for e in batch.edges}
    assert ("uniprot:P01375", "interacts_with", "uniprot:P19438") in triples  # TNF → TNFRSF1A
    filtered = load_ligand_receptor(symbols={"TNF"})
    assert 0 < len(filtered.edges) < 100
    assert filtered.skipped["pair outside the symbol filter"] == 6507 - len(filtered.edges)
    assert_round_trip(batch, tmp_path)


def test_ligand_receptor_bad_header(tmp_path: Path) -> None:
    bad = tmp_path / "lr.tsv"
    bad.write_text("a\tb\nc\td\n")
    with pytest.raises(KGLoadError, match=r"lr\.tsv:1: expected the header"):
        load_ligand_receptor(bad)


# -- KEGG ----------------------------------------------------------------------------------
def test_kegg_link_format(tmp_path: Path) -> None:
    batch = load_kegg_links(DATA / "kegg_link.txt", DATA / "kegg_list.txt")
    names = {n.id: n.name for n in batch.nodes}
    assert names["kegg.pathway:hsa05012"] == "Parkinson disease - Homo sapiens (human)"
    assert {e.triple for e in batch.edges} == {
        ("NCBIGene:5594", "involved_in", "kegg.pathway:hsa04010"),
        ("NCBIGene:5595", "involved_in", "kegg.pathway:hsa04010"),
        ("NCBIGene:6622", "involved_in", "kegg.pathway:hsa05012"),
        ("NCBIGene:5594", "involved_in", "kegg.pathway:hsa05012"),
    }
    assert_round_trip(batch, tmp_path)


def test_kegg_bad_line() -> None:
    with pytest.raises(KGLoadError, match=r"kegg_bad\.txt:2: expected 2 tab-separated columns"):
        load_kegg_links(DATA / "kegg_bad.txt")


def test_loader_registry_lists_valid_formats() -> None:
    assert get_loader("TSV").name == "tsv"
    with pytest.raises(
        KGError, match="valid formats: tsv, obo, pykeen, hpo, ligand-receptor, kegg, hgnc, mondo"
    ):
        get_loader("csv")


def test_liana_omni_resource_csv_is_read_directly(tmp_path: Path) -> None:
    """The same derivation rules as the bundled table, applied to liana's own CSV."""
    batch = load_ligand_receptor(DATA / "liana_omni_sample.csv")
    triples = {e.triple for e in batch.edges}
    assert ("uniprot:P01375", "interacts_with", "uniprot:P19438") in triples
    tnfr1 = next(e for e in batch.edges if e.tail == "uniprot:P19438")
    assert tnfr1.properties["resources"] == ["cellchatdb", "consensus"]  # merged per pair
    assert len(batch.edges) == 6  # 6 TNF pairs; complexes and the mouse resource left out
    assert batch.skipped == {"protein complex (not split into subunits)": 2}
    assert all(not n.id.startswith("uniprot:COMPLEX") for n in batch.nodes)
    assert_round_trip(batch, tmp_path)
