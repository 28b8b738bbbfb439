"""Auto-learning: entities of an analysis added to the KG, with co-occurrence and tool links.

After an analysis, ``auto_learn`` extracts the biological entities of its task and findings
(regex NER: CURIEs, UniProt, KEGG, PDB, species; plus KG names) and records them:

- an analysis node (type ``protocol``, id ``analysis:<hash of task and findings>``) with
  ``requires_tool`` edges to one ``tool`` node per tool used and ``co_occurs_with`` edges to
  every entity mentioned;
- a node for each mentioned identifier the KG lacks (its type from the identifier: GO → go_term,
  HP → phenotype, MONDO/DOID/OMIM/ORPHA → disease, CHEBI → drug, UniProt → protein, KEGG
  pathways → pathway, KEGG genes → gene, species → organism, others → entity);
- ``co_occurs_with`` edges between entities mentioned in the same claim.

Everything added carries the provenance ``auto_learned`` and confidence 0.5. Curated content
is never overwritten: an existing node is left as it is, and an edge whose (head, relation,
tail) already exists is skipped (merging would add ``auto_learned`` to a curated edge's
sources). Path verification ignores ``auto_learned`` edges, so a report can never ground
itself. Nothing is learned unless asked (``kgrecall ground --auto-learn``).
"""

from __future__ import annotations

import hashlib
import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field

from kgrecall.grounding.claims import extract_claims
from kgrecall.grounding.entities import EntityExtractor, EntityMention
from kgrecall.grounding.verify import AUTO_LEARNED
from kgrecall.kg import Edge, GraphStore, KGError, KGSchema, Node
from kgrecall.kg.model import BIOMEDICAL_RELATIONS

LEARNED_CONFIDENCE = 0.5
LEARNED_RELATIONS = ("co_occurs_with", "requires_tool")
_TYPE_BY_PREFIX = {
    "GO": "go_term",
    "HP": "phenotype",
    "MONDO": "disease",
    "DOID": "disease",
    "OMIM": "disease",
    "ORPHA": "disease",
    "CHEBI": "drug",
    "NCBITaxon": "organism",
    "uniprot": "protein",
    "NCBIGene": "gene",
    "HGNC": "gene",
}


@dataclass(slots=True)
class LearningReport:
    """What one auto-learning step added, and what it left alone."""

    analysis_id: str
    nodes_added: list[str] = field(default_factory=list)
    edges_added: int = 0
    edges_skipped_existing: int = 0
    entities: list[str] = field(default_factory=list)


def auto_learn(
    store: GraphStore,
    *,
    task: str,
    findings: str,
    tools: Sequence[str] = (),
    extractor: EntityExtractor | None = None,
) -> LearningReport:
    """Add the analysis, its entities, co-occurrences and tool links to ``store``."""
    if not task.strip() and not findings.strip():
        raise KGError("auto-learning needs a task or findings; both are empty")
    if any(not name.strip() for name in tools):
        raise KGError("tool names must not be empty")
    extractor = extractor or EntityExtractor(store)
    digest = hashlib.sha256(f"{task}\x00{findings}".encode()).hexdigest()[:16]
    report = LearningReport(analysis_id=f"analysis:{digest}")
    groups = [
        extractor.extract(claim.text)
        for text in (task, findings)
        if text.strip()
        for claim in extract_claims(text)
    ]
    mentions = {m.id: m for group in groups for m in group}
    report.entities = sorted(mentions)
    learned = (AUTO_LEARNED,)
    nodes = [
        Node(report.analysis_id, "protocol", task.strip()[:200] or "analysis", sources=learned),
        *(Node(f"tool:{name.strip()}", "tool", name.strip(), sources=learned) for name in tools),
        *(_new_node(m) for m in mentions.values() if not store.has_node(m.id)),
    ]
    # The KG may declare only the relations it uses: declare ours before writing anything.
    store.extend_schema(
        KGSchema({r: BIOMEDICAL_RELATIONS[r] for r in LEARNED_RELATIONS}, frozenset())
    )
    fresh = [n for n in nodes if not store.has_node(n.id)]
    store.add_nodes(fresh)
    report.nodes_added = [n.id for n in fresh]
    triples = {(report.analysis_id, "requires_tool", f"tool:{t.strip()}") for t in tools}
    triples |= {(report.analysis_id, "co_occurs_with", entity) for entity in mentions}
    for group in groups:
        ids = sorted({m.id for m in group})
        triples |= {(a, "co_occurs_with", b) for a, b in itertools.combinations(ids, 2)}
    edges = []
    for head, relation, tail in sorted(triples):
        if store.get_edge(head, relation, tail) is not None:
            report.edges_skipped_existing += 1
            continue
        edges.append(
            Edge(head, relation, tail, sources=(AUTO_LEARNED,), confidence=LEARNED_CONFIDENCE)
        )
    store.add_edges(edges)
    report.edges_added = len(edges)
    return report


def _new_node(mention: EntityMention) -> Node:
    """A node for an identifier the KG lacks, typed by its prefix."""
    if mention.kind == "kegg":
        node_type = _kegg_type(mention.id.removeprefix("kegg:"))
    else:
        node_type = _TYPE_BY_PREFIX.get(mention.id.split(":", 1)[0], "entity")
    return Node(mention.id, node_type, mention.text, sources=(AUTO_LEARNED,))


def _kegg_type(local: str) -> str:
    """hsa:5594 → gene; hsa04010 / map04010 / ko04010 → pathway; D00001 → drug."""
    if local.startswith("hsa:"):
        return "gene"
    if local[:3] in ("hsa", "map") or local[:2] == "ko":
        return "pathway"
    return "drug" if local.startswith("D") else "entity"
