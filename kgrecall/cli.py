"""The ``kgrecall`` command line."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer

from kgrecall.kg import (
    DEMO_NAME,
    DemoConfig,
    GraphStore,
    KGError,
    KGSchema,
    Workspace,
    build_demo_kg,
    extract_subgraph,
)
from kgrecall.kg.loaders import LOADERS, build_store, get_loader, load_tsv
from kgrecall.kg.neo4j_store import Neo4jStore
from kgrecall.tools.linkpred import GO_HITS_AT_10, GO_MRR, LinkPredictor, TrainingConfig

app = typer.Typer(help="Recall-calibrated answers over incomplete biomedical knowledge graphs.")
kg_app = typer.Typer(help="Build, import and inspect knowledge graphs.", no_args_is_help=True)
app.add_typer(kg_app, name="kg")

HomeOption = Annotated[
    Path | None,
    typer.Option("--home", help="Data directory (default: $KGRECALL_HOME or ~/.cache/kgrecall)."),
]


def _print_stats(store: GraphStore, path: Path | None = None) -> None:
    stats = store.stats()
    typer.echo(f"KG {store.metadata.name!r}  version {store.version[:12]}")
    if path is not None:
        typer.echo(f"  file: {path}")
    typer.echo(f"  {stats.nodes:,} nodes, {stats.edges:,} edges")
    width = max((len(k) for k in (*stats.nodes_by_type, *stats.edges_by_relation)), default=8)
    typer.echo("  nodes by type:")
    for node_type, count in stats.nodes_by_type.items():
        typer.echo(f"    {node_type:<{width}} {count:>9,}")
    typer.echo("  edges by relation:")
    for relation, count in stats.edges_by_relation.items():
        typer.echo(f"    {relation:<{width}} {count:>9,}")
    skipped = store.metadata.extra.get("skipped")
    if skipped:
        typer.echo("  read but not added (by source and reason):")
        for reason, count in skipped.items():
            typer.echo(f"    {count:>7,}  {reason}")


@kg_app.command("build-demo")
def build_demo(
    full: Annotated[
        bool, typer.Option(help="Build every source whole, not the focused slice.")
    ] = False,
    name: Annotated[str, typer.Option(help="Name to save the KG under.")] = DEMO_NAME,
    force: Annotated[bool, typer.Option(help="Rebuild even if the KG exists.")] = False,
    home: HomeOption = None,
) -> None:
    """Build the biomedical demo KG offline from HPO, GO and ligand–receptor data."""
    workspace = Workspace(home)
    if workspace.exists(name) and not force:
        store = workspace.load(name)
        typer.echo(f"KG {name!r} already built (use --force to rebuild)")
        _print_stats(store, workspace.graph_path(name))
        return
    store = build_demo_kg(DemoConfig.full() if full else DemoConfig())
    path = workspace.save(store, name)
    _print_stats(store, path)
    typer.echo("  sources:")
    for source in store.metadata.sources:
        typer.echo(f"    {source['name']} ({source['version']}) — licence: {source['licence']}")


@kg_app.command("import")
def import_kg(
    source: Annotated[
        str | None, typer.Argument(help="File or dataset name (see --format).")
    ] = None,
    format_name: Annotated[
        str, typer.Option("--format", "-f", help=f"One of: {', '.join(LOADERS)}.")
    ] = "tsv",
    name: Annotated[str, typer.Option(help="Name to save the KG under.")] = "imported",
    allow_new_relations: Annotated[
        bool, typer.Option(help="TSV: declare relations outside kgrecall's vocabulary.")
    ] = False,
    merge: Annotated[bool, typer.Option(help="Add to the existing KG of that name.")] = False,
    force: Annotated[bool, typer.Option(help="Replace the existing KG of that name.")] = False,
    home: HomeOption = None,
) -> None:
    """Import a source into a named KG."""
    workspace = Workspace(home)
    loader = get_loader(format_name)
    if loader.name == "tsv":
        if source is None:
            raise KGError("--format tsv needs a file argument")
        batch = load_tsv(source, allow_new_relations=allow_new_relations)
    else:
        batch = loader.load(source)
    if workspace.exists(name) and not (merge or force):
        raise KGError(
            f"a KG named {name!r} exists; pass --merge to add to it or --force to replace it"
        )
    if merge and workspace.exists(name):
        store = workspace.load(name)
        store.extend_schema(batch.schema)
        store.add_nodes(batch.nodes)
        store.add_edges(batch.edges)
        if batch.source is not None:
            store.metadata.sources.append(batch.source.as_dict())
    else:
        store = build_store([batch], name=name)
    path = workspace.save(store, name)
    _print_stats(store, path)


@kg_app.command("stats")
def stats(
    kg: Annotated[str, typer.Argument(help="KG name or path to a KG file.")] = DEMO_NAME,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    neo4j: Annotated[bool, typer.Option(help="Read the KG in Neo4j (NEO4J_URI) instead.")] = False,
    database: Annotated[str | None, typer.Option(help="Neo4j database.")] = None,
    home: HomeOption = None,
) -> None:
    """Counts per node type and per relation."""
    store = neo4j_store(database) if neo4j else Workspace(home).load(kg)
    if as_json:
        payload = {"name": store.metadata.name, "version": store.version, **store.stats().as_dict()}
        typer.echo(json.dumps(payload, indent=2))
    else:
        _print_stats(store)


@kg_app.command("subgraph")
def subgraph(
    kg: Annotated[str, typer.Argument(help="KG name or path to a KG file.")] = DEMO_NAME,
    entity: Annotated[
        list[str], typer.Option("--entity", "-e", help="Seed entity: id, name or synonym.")
    ] = [],  # noqa: B006 - typer reads the default, it is never mutated
    depth: Annotated[int, typer.Option(min=0, help="BFS depth.")] = 1,
    max_nodes: Annotated[int, typer.Option(min=1, help="Stop after this many nodes.")] = 50,
    relation: Annotated[
        list[str], typer.Option("--relation", "-r", help="Only follow these relations.")
    ] = [],  # noqa: B006
    home: HomeOption = None,
) -> None:
    """Print the neighbourhood of entities as natural-language triples."""
    if not entity:
        raise KGError("give at least one --entity")
    store = Workspace(home).load(kg)
    seeds: list[str] = []
    for text in entity:
        found = store.lookup(text)
        if not found:
            store.get_node(text)  # raises with the closest matches
        seeds.extend(node.id for node in found)
    result = extract_subgraph(
        store, seeds, depth=depth, max_nodes=max_nodes, relations=relation or None
    )
    typer.echo(result.as_text())


def neo4j_store(database: str | None, schema: KGSchema | None = None) -> GraphStore:
    """A Neo4jStore from NEO4J_URI / NEO4J_USER / NEO4J_PASSWORD."""
    import os

    from neo4j import GraphDatabase

    uri = os.environ.get("NEO4J_URI")
    if not uri:
        raise KGError("set NEO4J_URI (and NEO4J_USER, NEO4J_PASSWORD) to use Neo4j")
    auth = (os.environ.get("NEO4J_USER", "neo4j"), os.environ.get("NEO4J_PASSWORD", ""))
    driver = GraphDatabase.driver(uri, auth=auth)
    return Neo4jStore(driver, database=database, schema=schema)


@kg_app.command("push-neo4j")
def push_neo4j(
    kg: Annotated[str, typer.Argument(help="KG name or path to a KG file.")] = DEMO_NAME,
    database: Annotated[
        str | None, typer.Option(help="Neo4j database (default: server's).")
    ] = None,
    replace: Annotated[bool, typer.Option(help="Delete kgrecall's existing nodes first.")] = False,
    home: HomeOption = None,
) -> None:
    """Load a KG into Neo4j (NEO4J_URI, NEO4J_USER, NEO4J_PASSWORD) with its indexes."""
    source = Workspace(home).load(kg)
    target = neo4j_store(database, source.schema)
    assert isinstance(target, Neo4jStore)
    if replace:
        target.clear()
    target.ensure_indexes()
    target.metadata = source.metadata
    target.add_nodes(source.nodes())
    target.add_edges(source.edges())
    typer.echo(f"pushed {source.number_of_nodes():,} nodes and {source.number_of_edges():,} edges")
    _print_stats(target)


@kg_app.command("list")
def list_kgs(home: HomeOption = None) -> None:
    """The KGs in the data directory."""
    workspace = Workspace(home)
    for name in workspace.names():
        typer.echo(name)


@kg_app.command("relations")
def relations() -> None:
    """kgrecall's biomedical relation vocabulary."""
    for name, meaning in KGSchema.biomedical().relations.items():
        typer.echo(f"{name:<22} {meaning}")


def model_path(workspace: Workspace, kg: str, model: str) -> Path:
    """Where ``kgrecall train`` saves the model ``model`` of KG ``kg``."""
    return workspace.artifact_path(kg, "models", f"{model.lower()}.pt")


@app.command("train")
def train(
    kg: Annotated[str, typer.Option("--kg", help="KG name.")] = DEMO_NAME,
    model: Annotated[
        str, typer.Option(help="RotatE, ComplEx, TransE, DistMult or TuckER.")
    ] = "RotatE",
    dim: Annotated[int, typer.Option(min=1, help="Embedding dimension.")] = 200,
    max_epochs: Annotated[int, typer.Option(min=1)] = 200,
    learning_rate: Annotated[float, typer.Option(min=0.0)] = 0.01,
    loop: Annotated[str, typer.Option(help="auto, lcwa or slcwa.")] = "auto",
    budget_minutes: Annotated[
        float | None, typer.Option(help="Stop training after this much wall time.")
    ] = None,
    seed: Annotated[int, typer.Option()] = 0,
    home: HomeOption = None,
) -> None:
    """Train the link predictor on a KG; print filtered test metrics and the go/no-go verdict."""
    if loop not in ("auto", "lcwa", "slcwa"):
        raise KGError(f"invalid --loop {loop!r}; valid: auto, lcwa, slcwa")
    workspace = Workspace(home)
    store = workspace.load(kg)
    config = TrainingConfig(
        model=model,
        embedding_dim=dim,
        max_epochs=max_epochs,
        learning_rate=learning_rate,
        training_loop=loop,  # type: ignore[arg-type]
        time_budget_s=None if budget_minutes is None else budget_minutes * 60,
        seed=seed,
    )
    predictor = LinkPredictor.train(store, config)
    path = predictor.save(model_path(workspace, kg, model))
    report = predictor.report
    test = report.test
    typer.echo(
        f"{report.model} on {kg!r} ({report.training_loop}, {report.epochs} epochs, best at "
        f"{report.best_epoch}, stopped by {report.stopped_by}, {report.seconds:.0f} s)"
    )
    typer.echo(f"  triples train/valid/test: {report.n_train}/{report.n_valid}/{report.n_test}")
    typer.echo(
        f"  filtered test MRR {test.mrr:.3f}  Hits@1 {test.hits_at_1:.3f}  "
        f"Hits@3 {test.hits_at_3:.3f}  Hits@10 {test.hits_at_10:.3f}"
    )
    typer.echo(f"  probability calibration: Platt scaling, ECE {report.calibration_ece:.3f}")
    verdict = "GO" if test.go else "NO-GO"
    typer.echo(f"  verdict: {verdict} (needs MRR ≥ {GO_MRR} and Hits@10 ≥ {GO_HITS_AT_10})")
    typer.echo(f"  saved: {path}")


def main() -> None:
    """Entry point: KG errors become one clear line on stderr and exit status 2."""
    try:
        app()
    except KGError as error:
        typer.echo(f"error: {error}", err=True)
        sys.exit(2)
