"""KEGG pathway–gene lists in KEGG's "link" format, from a user-supplied file.

No KEGG data ships with kgrecall (KEGG's licence forbids redistribution). A link file looks
like ``path:hsa04010<TAB>hsa:5594``; an optional "list" file (``path:hsa04010<TAB>MAPK
signaling pathway - Homo sapiens (human)``) names the pathways. For human (``hsa:``) the
KEGG gene id is the NCBI Gene id, so genes become ``NCBIGene:5594``; other organisms keep
``kegg.genes:eco:b0002``. Edges: gene ``involved_in`` pathway.
"""

from __future__ import annotations

from pathlib import Path

from kgrecall.kg.errors import KGLoadError
from kgrecall.kg.loaders.base import GraphBatch, SourceInfo, read_text_lines
from kgrecall.kg.model import BIOMEDICAL_RELATIONS, Edge, KGSchema, Node

SOURCE = "kegg"


def _pathway_id(path: Path, number: int, text: str) -> str:
    if not text.startswith("path:") or len(text) <= 5:
        raise KGLoadError(
            path,
            f"expected a pathway like 'path:hsa04010', got {text!r}",
            line=number,
            field="pathway",
        )
    return f"kegg.pathway:{text[5:]}"


def _gene_id(path: Path, number: int, text: str) -> str:
    organism, sep, local = text.partition(":")
    if not sep or not organism or not local:
        raise KGLoadError(
            path, f"expected a gene like 'hsa:5594', got {text!r}", line=number, field="gene"
        )
    return f"NCBIGene:{local}" if organism == "hsa" and local.isdigit() else f"kegg.genes:{text}"


def load_kegg_links(link_path: str | Path, names_path: str | Path | None = None) -> GraphBatch:
    """Pathway and gene nodes with gene ``involved_in`` pathway edges."""
    links = Path(link_path)
    names: dict[str, str] = {}
    if names_path is not None:
        name_file = Path(names_path)
        for number, line in enumerate(read_text_lines(name_file), start=1):
            if not line.strip():
                continue
            cells = line.split("\t")
            if len(cells) != 2:
                raise KGLoadError(name_file, f"expected 2 columns, found {len(cells)}", line=number)
            names[_pathway_id(name_file, number, cells[0].strip())] = cells[1].strip()
    batch = GraphBatch(
        KGSchema(
            {"involved_in": BIOMEDICAL_RELATIONS["involved_in"]}, frozenset({"gene", "pathway"})
        )
    )
    nodes: dict[str, Node] = {}
    for number, line in enumerate(read_text_lines(links), start=1):
        if not line.strip():
            continue
        cells = [c.strip() for c in line.split("\t")]
        if len(cells) != 2:
            raise KGLoadError(
                links, f"expected 2 tab-separated columns, found {len(cells)}", line=number
            )
        first, second = cells
        pathway_text, gene_text = (first, second) if first.startswith("path:") else (second, first)
        pathway = _pathway_id(links, number, pathway_text)
        gene = _gene_id(links, number, gene_text)
        nodes.setdefault(
            pathway,
            Node(pathway, "pathway", names.get(pathway, pathway_text[5:]), sources=(SOURCE,)),
        )
        nodes.setdefault(gene, Node(gene, "gene", gene_text, sources=(SOURCE,)))
        batch.edges.append(Edge(gene, "involved_in", pathway, sources=(SOURCE,)))
    if not batch.edges:
        raise KGLoadError(links, "no pathway–gene links found")
    batch.nodes = [nodes[key] for key in sorted(nodes)]
    batch.source = SourceInfo(
        "KEGG (user-supplied)", "user file", "KEGG licence (user's own copy)", str(links)
    )
    return batch
